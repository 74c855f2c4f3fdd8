/**
 * `$vocabulary` (2019-09 and later): a custom meta-schema names the vocabularies its schemas use.
 * The standard vocabularies are known keyword by keyword; a schema whose meta-schema leaves one out
 * reads that vocabulary's keywords as annotations. A vocabulary mcp-tasks-gen does not know stops
 * generation when the meta-schema requires it (`true`) and is ignored when it is optional (`false`),
 * as the specification says.
 */
import type { Dialect } from "./dialect.js";

const VALIDATION = [
  "type",
  "const",
  "enum",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
];
const APPLICATOR = ["items", "contains", "additionalProperties", "properties", "patternProperties", "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not"];
const META_DATA = ["title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples"];
const CONTENT = ["contentEncoding", "contentMediaType", "contentSchema"];

/** The standard vocabularies of each dialect that has them, by URI → their keywords. `format-assertion` is left out: formats are never asserted. */
const STANDARD: Readonly<Partial<Record<Dialect, Readonly<Record<string, readonly string[]>>>>> = {
  "2019-09": {
    "https://json-schema.org/draft/2019-09/vocab/core": ["$id", "$schema", "$anchor", "$ref", "$recursiveRef", "$recursiveAnchor", "$vocabulary", "$comment", "$defs"],
    "https://json-schema.org/draft/2019-09/vocab/applicator": [...APPLICATOR, "additionalItems", "unevaluatedItems", "unevaluatedProperties"],
    "https://json-schema.org/draft/2019-09/vocab/validation": VALIDATION,
    "https://json-schema.org/draft/2019-09/vocab/meta-data": META_DATA,
    "https://json-schema.org/draft/2019-09/vocab/format": ["format"],
    "https://json-schema.org/draft/2019-09/vocab/content": CONTENT,
  },
  "2020-12": {
    "https://json-schema.org/draft/2020-12/vocab/core": ["$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs"],
    "https://json-schema.org/draft/2020-12/vocab/applicator": [...APPLICATOR, "prefixItems"],
    "https://json-schema.org/draft/2020-12/vocab/unevaluated": ["unevaluatedItems", "unevaluatedProperties"],
    "https://json-schema.org/draft/2020-12/vocab/validation": VALIDATION,
    "https://json-schema.org/draft/2020-12/vocab/meta-data": META_DATA,
    "https://json-schema.org/draft/2020-12/vocab/format-annotation": ["format"],
    "https://json-schema.org/draft/2020-12/vocab/content": CONTENT,
  },
};

/** Whether a dialect has vocabularies at all (2019-09 and later). */
export function hasVocabularies(dialect: Dialect): boolean {
  return STANDARD[dialect] !== undefined;
}

/** Whether `uri` is a standard vocabulary of the dialect that mcp-tasks-gen implements. */
export function isKnownVocabulary(dialect: Dialect, uri: string): boolean {
  const known = STANDARD[dialect];
  return known !== undefined && Object.hasOwn(known, uri);
}

/**
 * Whether a keyword is switched off in a schema whose meta-schema names `vocabularies` (undefined:
 * the dialect's own meta-schema, where every vocabulary is on): it belongs to a standard vocabulary
 * of the dialect that the list leaves out, so it is an annotation there.
 */
export function isSwitchedOff(dialect: Dialect, vocabularies: ReadonlySet<string> | undefined, keyword: string): boolean {
  const known = STANDARD[dialect];
  if (!vocabularies || !known) return false;
  let inSome = false;
  for (const [uri, keywords] of Object.entries(known)) {
    if (!keywords.includes(keyword)) continue;
    if (vocabularies.has(uri)) return false;
    inSome = true;
  }
  return inSome;
}
