/**
 * JSON Schema dialects and the keywords each one has. A document's `$schema` picks its dialect;
 * the dialect decides which keywords exist and what `items` and `$ref` siblings mean.
 */

export type Dialect = "draft-04" | "draft-06" | "draft-07" | "2019-09" | "2020-12";

/** Every dialect, oldest first. */
export const DIALECTS: readonly Dialect[] = ["draft-04", "draft-06", "draft-07", "2019-09", "2020-12"];

const DIALECT_URIS: Record<string, Dialect> = {
  "http://json-schema.org/draft-04/schema": "draft-04",
  "https://json-schema.org/draft-04/schema": "draft-04",
  "http://json-schema.org/draft-06/schema": "draft-06",
  "https://json-schema.org/draft-06/schema": "draft-06",
  "http://json-schema.org/draft-07/schema": "draft-07",
  "https://json-schema.org/draft-07/schema": "draft-07",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
};

/** The dialect a `$schema` value names, or undefined when it names none we know. */
export function dialectOf(schemaUri: string): Dialect | undefined {
  return DIALECT_URIS[schemaUri.replace(/#$/, "")];
}

export const KNOWN_DIALECT_URIS = Object.keys(DIALECT_URIS);

/** `$schema` values of draft-03 and earlier: refused by name rather than as unknown. */
export function isDraft03OrOlder(schemaUri: string): boolean {
  return /^https?:\/\/json-schema\.org\/draft-0[0-3]\/schema#?$/.test(schemaUri);
}

/** How a keyword is treated. */
export type KeywordRole =
  | "annotation" // documentation only; never changes validity
  | "core" // identifiers and containers: $id, $defs, $ref, ...
  | "validation" // implemented by the IR and its validators
  | "unsupported"; // part of the dialect but not implemented: generation stops

/** draft-04 (`id` names a resource; `exclusiveMaximum`/`exclusiveMinimum` are booleans beside `maximum`/`minimum`). */
const DRAFT_04: Record<string, KeywordRole> = {
  $schema: "core",
  id: "core",
  $ref: "core",
  definitions: "core",
  title: "annotation",
  description: "annotation",
  default: "annotation",
  format: "annotation",
  type: "validation",
  enum: "validation",
  multipleOf: "validation",
  maximum: "validation",
  exclusiveMaximum: "validation",
  minimum: "validation",
  exclusiveMinimum: "validation",
  maxLength: "validation",
  minLength: "validation",
  pattern: "validation",
  maxItems: "validation",
  minItems: "validation",
  uniqueItems: "validation",
  maxProperties: "validation",
  minProperties: "validation",
  required: "validation",
  properties: "validation",
  patternProperties: "validation",
  additionalProperties: "validation",
  dependencies: "validation",
  items: "validation",
  additionalItems: "validation",
  allOf: "validation",
  anyOf: "validation",
  oneOf: "validation",
  not: "validation",
};

/** draft-06: `$id` replaces `id`; numeric exclusive bounds; `const`, `contains`, `propertyNames`, `examples`. */
const DRAFT_06: Record<string, KeywordRole> = (() => {
  const { id: _id, ...rest } = DRAFT_04;
  return { ...rest, $id: "core", const: "validation", contains: "validation", propertyNames: "validation", examples: "annotation" };
})();

/**
 * draft-07: `if`/`then`/`else`, `$comment`, `readOnly`/`writeOnly`, content keywords. `$defs`
 * (2019-09's name for `definitions`) is read here too, as it always has been: it is a container
 * that never changes what is valid; so is `deprecated`, which only documents.
 */
const DRAFT_07: Record<string, KeywordRole> = {
  ...DRAFT_06,
  $defs: "core",
  deprecated: "annotation", // 2019-09's, read as documentation here as it always has been
  $comment: "annotation",
  readOnly: "annotation",
  writeOnly: "annotation",
  contentMediaType: "annotation",
  contentEncoding: "annotation",
  if: "validation",
  then: "validation",
  else: "validation",
};

/**
 * 2019-09: anchors, vocabularies, the split of `dependencies`. `definitions` stays a container
 * (the later meta-schemas still describe it for compatibility).
 */
const DRAFT_2019_09: Record<string, KeywordRole> = (() => {
  const { dependencies: _dependencies, ...rest } = DRAFT_07;
  return {
    ...rest,
    $anchor: "core",
    $vocabulary: "annotation",
    contentSchema: "annotation",
    dependentRequired: "validation",
    dependentSchemas: "validation",
    minContains: "validation",
    maxContains: "validation",
    unevaluatedItems: "validation",
    unevaluatedProperties: "validation",
    // The dynamic scope, as for 2020-12's $dynamicRef (lower.ts).
    $recursiveRef: "core",
    $recursiveAnchor: "core",
  };
})();

/** 2020-12: `prefixItems` replaces array-form `items` and `additionalItems`; dynamic references replace recursive ones. */
const DRAFT_2020_12: Record<string, KeywordRole> = (() => {
  const { additionalItems: _additionalItems, $recursiveRef: _recursiveRef, $recursiveAnchor: _recursiveAnchor, ...rest } = DRAFT_2019_09;
  return {
    ...rest,
    prefixItems: "validation",
    // Without a $dynamicRef that reaches it, a $dynamicAnchor is an ordinary anchor (lower.ts: the dynamic scope).
    $dynamicAnchor: "core",
    $dynamicRef: "core",
  };
})();

const KEYWORDS: Record<Dialect, Readonly<Record<string, KeywordRole>>> = {
  "draft-04": DRAFT_04,
  "draft-06": DRAFT_06,
  "draft-07": DRAFT_07,
  "2019-09": DRAFT_2019_09,
  "2020-12": DRAFT_2020_12,
};

export function keywordRole(dialect: Dialect, keyword: string): KeywordRole | undefined {
  return Object.prototype.hasOwnProperty.call(KEYWORDS[dialect], keyword) ? KEYWORDS[dialect][keyword] : undefined;
}

/**
 * The other dialects that define a keyword `dialect` does not (empty when `dialect` defines it or
 * no dialect does). Such a keyword is an annotation where it appears: the specification says a
 * keyword unknown to the dialect does not validate, and one known elsewhere is no typo.
 */
export function dialectsDefining(keyword: string, dialect: Dialect): Dialect[] {
  if (keywordRole(dialect, keyword) !== undefined) return [];
  return DIALECTS.filter((other) => keywordRole(other, keyword) !== undefined);
}

/** The keyword that names a schema resource: `id` in draft-04, `$id` later. */
export function idKeyword(dialect: Dialect): "id" | "$id" {
  return dialect === "draft-04" ? "id" : "$id";
}

/**
 * Whether a plain-name fragment in the resource identifier (`"#name"`, `"https://x/y#name"`) is an
 * anchor (draft-04 to draft-07; 2019-09 and later have `$anchor` for it).
 */
export function idFragmentIsAnchor(dialect: Dialect): boolean {
  return dialect === "draft-04" || dialect === "draft-06" || dialect === "draft-07";
}

/** Whether `exclusiveMaximum`/`exclusiveMinimum` are booleans modifying `maximum`/`minimum` (draft-04) rather than numbers. */
export function hasBooleanExclusiveBounds(dialect: Dialect): boolean {
  return dialect === "draft-04";
}

/** Whether `items` given as an array is a tuple (draft-04 to 2019-09) rather than an error (2020-12). */
export function hasArrayItems(dialect: Dialect): boolean {
  return dialect !== "2020-12";
}

/** Whether keywords beside `$ref` take effect (2019-09 and later) or are ignored (draft-04 to draft-07). */
export function refHasSiblings(dialect: Dialect): boolean {
  return dialect === "2019-09" || dialect === "2020-12";
}

/** Keywords whose value is one subschema. */
export const SCHEMA_KEYWORDS = [
  "additionalProperties",
  "additionalItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
] as const;

/** Keywords whose value is an array of subschemas. */
export const SCHEMA_ARRAY_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;

/** Keywords whose value is an object of subschemas. */
export const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"] as const;
