/**
 * Lint rules that read the raw JSON: `ref-siblings-ignored` and `unknown-format`. Lowering drops
 * what they are about (a draft-07 `$ref` replaces its schema, `format` becomes documentation on
 * whichever node the schema turned into), so the IR no longer says where the keyword was.
 *
 * Only schemas that are generated are read: the subtree of every lowered definition, stopping at
 * nested `$defs`/`definitions` (each is a definition of its own when it is used) and at `$ref`
 * (its target is a definition too).
 */
import type { Diagnostic, SourceLocation } from "../diagnostics.js";
import type { Definition } from "../ir/nodes.js";
import { keywordRole, SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS, type Dialect } from "../load/dialect.js";
import { appendPointer, getByPointer, parsePointer } from "../load/json-pointer.js";
import type { SchemaRegistry } from "../load/registry.js";
import { FOREIGN_FORMATS, JSON_SCHEMA_FORMATS } from "./rules.js";

type SchemaObject = Record<string, unknown>;

export function lintRaw(registry: SchemaRegistry, definitions: readonly Definition[]): Diagnostic[] {
  const documents = new Map<string, unknown>();
  for (const doc of registry.documents) if (!documents.has(doc.context.loc.file)) documents.set(doc.context.loc.file, doc.schema);
  const diagnostics: Diagnostic[] = [];
  const visited = new Set<unknown>();

  const visit = (schema: unknown, loc: SourceLocation, inherited: Dialect): void => {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema) || visited.has(schema)) return;
    visited.add(schema);
    const s = schema as SchemaObject;
    const dialect = registry.contextOf(s)?.dialect ?? inherited;
    const at = (...tokens: (string | number)[]): SourceLocation => ({ file: loc.file, pointer: appendPointer(loc.pointer, ...tokens) });

    if (typeof s.format === "string" && !JSON_SCHEMA_FORMATS.has(s.format)) {
      diagnostics.push({ severity: "warning", rule: "unknown-format", location: at("format"), message: unknownFormatMessage(s.format) });
    }
    if (typeof s.$ref === "string") {
      if (dialect === "draft-07") {
        for (const keyword of Object.keys(s)) {
          const role = keywordRole(dialect, keyword);
          if (role !== "validation" && role !== "unsupported") continue;
          diagnostics.push({ severity: "warning", rule: "ref-siblings-ignored", location: at(keyword), message: refSiblingMessage(keyword) });
        }
        return; // nothing beside a draft-07 $ref is read, so nothing inside it is generated
      }
    }
    for (const keyword of SCHEMA_KEYWORDS) if (keyword in s) visit(s[keyword], at(keyword), dialect);
    for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
      const list = s[keyword];
      if (Array.isArray(list)) list.forEach((item, i) => visit(item, at(keyword, i), dialect));
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      if (keyword === "$defs" || keyword === "definitions") continue;
      const map = s[keyword];
      if (map && typeof map === "object" && !Array.isArray(map)) {
        for (const [key, sub] of Object.entries(map)) visit(sub, at(keyword, key), dialect);
      }
    }
    if (Array.isArray(s.items)) s.items.forEach((item, i) => visit(item, at("items", i), dialect));
    else if ("items" in s) visit(s.items, at("items"), dialect);
    const deps = s.dependencies;
    if (deps && typeof deps === "object" && !Array.isArray(deps)) {
      for (const [key, sub] of Object.entries(deps)) if (!Array.isArray(sub)) visit(sub, at("dependencies", key), dialect);
    }
  };

  for (const def of definitions) {
    const root = documents.get(def.loc.file);
    if (root === undefined) continue;
    const schema = def.loc.pointer === "" ? root : getByPointer(root, parsePointer(def.loc.pointer));
    const dialect = schema !== null && typeof schema === "object" ? registry.contextOf(schema)?.dialect : undefined;
    visit(schema, def.loc, dialect ?? "2020-12");
  }
  return diagnostics;
}

function unknownFormatMessage(format: string): string {
  const origin = FOREIGN_FORMATS.has(format) ? ` ("${format}" is an OpenAPI/schemars format, not a JSON Schema one)` : "";
  return `format "${format}" is not a JSON Schema format${origin}; it is kept as documentation and nothing checks it`;
}

function refSiblingMessage(keyword: string): string {
  return (
    `"${keyword}" beside "$ref" has no effect in draft-07 (a $ref there replaces the whole schema), so neither the generated ` +
    `code nor any draft-07 validator applies it; to apply it, write "allOf": [{ "$ref": ... }, { "${keyword}": ... }], ` +
    `or move the schema to 2019-09/2020-12, where keywords beside $ref apply`
  );
}
