/**
 * `unknown-format`: a `format` value that is not one of the JSON Schema formats. It is kept as an
 * annotation and checks nothing; formats other schema tools emit are named as such.
 */
import type { RawRule } from "../rule.js";

export const unknownFormat: RawRule = {
  id: "unknown-format",
  summary: "a format value that is not one of the JSON Schema formats (it is kept as an annotation and checks nothing)",
  reads: "raw",
  check(schema, { at }) {
    if (typeof schema.format !== "string" || JSON_SCHEMA_FORMATS.has(schema.format)) return [];
    return [{ rule: "unknown-format", location: at("format"), message: unknownFormatMessage(schema.format) }];
  },
};

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

function unknownFormatMessage(format: string): string {
  const origin = FOREIGN_FORMATS.has(format) ? ` ("${format}" is an OpenAPI/schemars format, not a JSON Schema one)` : "";
  return `format "${format}" is not a JSON Schema format${origin}; it is kept as documentation and nothing checks it`;
}
