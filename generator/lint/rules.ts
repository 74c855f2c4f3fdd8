/**
 * The lint rules: stable ids, what each one finds, and whether it reads the IR or the raw JSON.
 * Ids never change once published (users filter on them); messages may be improved.
 */

export type LintRuleId =
  | "unreachable-property"
  | "unsatisfiable"
  | "ref-siblings-ignored"
  | "unknown-format"
  | "placeholder-union"
  | "duplicate-branch";

export interface LintRule {
  readonly id: LintRuleId;
  /** What the rule finds, in one sentence (for `--help`, the README and `lint --json`). */
  readonly summary: string;
}

export const LINT_RULES: readonly LintRule[] = [
  {
    id: "unreachable-property",
    summary:
      "an allOf branch with additionalProperties: false rejects a property that a sibling branch declares, so no valid value can carry it",
  },
  { id: "unsatisfiable", summary: "a schema no value can satisfy (const outside its enum, contradictory types in allOf, minimum > maximum, ...)" },
  { id: "ref-siblings-ignored", summary: "draft-07: validation keywords beside $ref have no effect" },
  { id: "unknown-format", summary: "a format value that is not one of the JSON Schema formats (it is kept as an annotation and checks nothing)" },
  { id: "placeholder-union", summary: "an anyOf/oneOf whose every branch accepts any value: it checks nothing (a oneOf of them accepts nothing)" },
  { id: "duplicate-branch", summary: "two branches of one anyOf/oneOf accept exactly the same values" },
];

/** The formats JSON Schema defines (draft-07 and 2019-09/2020-12 together). */
export const JSON_SCHEMA_FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "date",
  "time",
  "duration",
  "email",
  "idn-email",
  "hostname",
  "idn-hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uuid",
  "uri-template",
  "json-pointer",
  "relative-json-pointer",
  "regex",
]);

/** Formats other schema tools emit (OpenAPI, schemars, Pydantic): named in the message so it is clear where they come from. */
export const FOREIGN_FORMATS: ReadonlySet<string> = new Set([
  "int8",
  "int16",
  "int32",
  "int64",
  "uint",
  "uint8",
  "uint16",
  "uint32",
  "uint64",
  "float",
  "double",
  "byte",
  "binary",
  "password",
]);
