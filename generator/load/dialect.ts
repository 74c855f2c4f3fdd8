/**
 * JSON Schema dialects and the keywords each one has. A document's `$schema` picks its dialect;
 * the dialect decides which keywords exist and what `items` and `$ref` siblings mean.
 */

export type Dialect = "draft-07" | "2019-09" | "2020-12";

const DIALECT_URIS: Record<string, Dialect> = {
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

/** How a keyword is treated. */
export type KeywordRole =
  | "annotation" // documentation only; never changes validity
  | "core" // identifiers and containers: $id, $defs, $ref, ...
  | "validation" // implemented by the IR and its validators
  | "unsupported"; // part of the dialect but not implemented: generation stops

const COMMON: Record<string, KeywordRole> = {
  $schema: "core",
  $id: "core",
  $ref: "core",
  $comment: "annotation",
  $defs: "core",
  definitions: "core",
  title: "annotation",
  description: "annotation",
  default: "annotation",
  examples: "annotation",
  readOnly: "annotation",
  writeOnly: "annotation",
  deprecated: "annotation",
  format: "annotation",
  contentMediaType: "annotation",
  contentEncoding: "annotation",
  type: "validation",
  enum: "validation",
  const: "validation",
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
  propertyNames: "validation",
  items: "validation",
  contains: "validation",
  allOf: "validation",
  anyOf: "validation",
  oneOf: "validation",
  not: "validation",
  if: "validation",
  then: "validation",
  else: "validation",
};

const SINCE_2019: Record<string, KeywordRole> = {
  $anchor: "core",
  $vocabulary: "annotation",
  contentSchema: "annotation",
  dependentRequired: "validation",
  dependentSchemas: "validation",
  minContains: "validation",
  maxContains: "validation",
  unevaluatedItems: "validation",
  unevaluatedProperties: "validation",
};

const KEYWORDS: Record<Dialect, Readonly<Record<string, KeywordRole>>> = {
  "draft-07": { ...COMMON, additionalItems: "validation", dependencies: "validation" },
  "2019-09": {
    ...COMMON,
    ...SINCE_2019,
    additionalItems: "validation",
    // The dynamic scope, as for 2020-12's $dynamicRef (lower.ts).
    $recursiveRef: "core",
    $recursiveAnchor: "core",
  },
  "2020-12": {
    ...COMMON,
    ...SINCE_2019,
    prefixItems: "validation",
    // Without a $dynamicRef that reaches it, a $dynamicAnchor is an ordinary anchor (lower.ts: the dynamic scope).
    $dynamicAnchor: "core",
    $dynamicRef: "core",
  },
};

export function keywordRole(dialect: Dialect, keyword: string): KeywordRole | undefined {
  return Object.prototype.hasOwnProperty.call(KEYWORDS[dialect], keyword) ? KEYWORDS[dialect][keyword] : undefined;
}

/** Whether `items` given as an array is a tuple (draft-07, 2019-09) rather than an error (2020-12). */
export function hasArrayItems(dialect: Dialect): boolean {
  return dialect !== "2020-12";
}

/** Whether keywords beside `$ref` take effect (2019-09 and later) or are ignored (draft-07). */
export function refHasSiblings(dialect: Dialect): boolean {
  return dialect !== "draft-07";
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
