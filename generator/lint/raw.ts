/**
 * The raw-JSON lint pass: runs the rules that read the raw JSON (`ref-siblings-ignored`,
 * `unknown-format`, `other-dialect-keyword`) on every schema object that is generated. Lowering drops what they are about
 * (a draft-07 `$ref` replaces its schema, `format` becomes documentation on whichever node the
 * schema turned into), so the IR no longer says where the keyword was.
 *
 * Only schemas that are generated are read: the subtree of every lowered definition, stopping at
 * nested `$defs`/`definitions` (each is a definition of its own when it is used) and at `$ref`
 * (its target is a definition too).
 */
import type { Diagnostic, SourceLocation } from "../diagnostics.js";
import type { Definition } from "../ir/nodes.js";
import { refHasSiblings, SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS, type Dialect } from "../load/dialect.js";
import { appendPointer, getByPointer, parsePointer } from "../load/json-pointer.js";
import type { SchemaRegistry } from "../load/registry.js";
import { RAW_RULES } from "./rules.js";

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

    for (const rule of RAW_RULES) {
      for (const finding of rule.check(s, { dialect, at })) diagnostics.push({ severity: "warning", ...finding });
    }
    if (typeof s.$ref === "string" && !refHasSiblings(dialect)) return; // nothing beside a draft-04..07 $ref is read, so nothing inside it is generated
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
