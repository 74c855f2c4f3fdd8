/**
 * Lowering a whole set: every definition and titled root of its documents into IR, in source order,
 * then the core definitions it takes. The documents come read, bound and registered (generate.ts
 * runs those stages); the keyword-by-keyword lowering of one schema is lower.ts; this file decides
 * which schemas become definitions.
 */
import { pascalCase } from "../names.js";
import type { Definition } from "../ir/nodes.js";
import type { Dialect } from "../load/dialect.js";
import { fragmentToken } from "../load/json-pointer.js";
import type { LocatedSchema, SchemaRegistry } from "../load/registry.js";
import { definitionKeys } from "./core-definitions.js";
import { Lowerer, type LowerOptions } from "./lower.js";

/** The core definitions a set takes (see core-definitions.ts): from its registered core document, by name. */
export interface CoreSelection {
  /** The core document as registered (its shared `$ref`s pointed at the set's). */
  readonly root: LocatedSchema;
  /** Names to lower, in order; a name the set's own schemas stand for (`shared`) is skipped. */
  readonly names: readonly string[];
  readonly shared: ReadonlyMap<string, string>;
}

/**
 * The definitions of a set's documents (`roots`, the input documents in config order), then the core
 * definitions `core` selects: input definitions first, in the order they were written, then the
 * ones only referenced.
 */
export function lowerSetDefinitions(
  registry: SchemaRegistry,
  roots: readonly LocatedSchema[],
  core: CoreSelection | undefined,
  options: LowerOptions,
): Definition[] {
  const lowerer = new Lowerer(registry, options);
  const declared: string[] = [];
  for (const root of roots) {
    // readSchemaFile accepts only objects and booleans as documents; a boolean has no definitions.
    const schema = typeof root.schema === "object" ? (root.schema as Record<string, unknown>) : {};
    const before = declared.length;
    for (const container of ["$defs", "definitions"] as const) {
      const defs = schema[container];
      if (!defs || typeof defs !== "object") continue;
      for (const key of Object.keys(defs)) {
        const located = registry.resolveRef(`#/${container}/${fragmentToken(key)}`, root.context);
        declared.push(lowerer.define(located, key, true));
      }
    }
    // The root is a type when it says something about values (a config schema's root is usually the
    // type users want most), and when the document has no definitions, so that no file generates
    // nothing at all; under its title, or else its file name.
    if (hasAssertions(schema) || declared.length === before) declared.push(lowerer.define(root, rootTypeName(root), true));
  }
  if (core) {
    // After the set's own definitions, so theirs come first in the output (see core-definitions.ts).
    for (const name of new Set(core.names)) {
      if (core.shared.has(name)) continue;
      const container = definitionKeys(core.root.schema).find(([, key]) => key === name)![0];
      declared.push(lowerer.define(registry.resolveRef(`#/${container}/${fragmentToken(name)}`, core.root.context), name, true));
    }
  }
  return inSourceOrder(lowerer.list(), declared);
}

/**
 * The name of a document's root type: its title, or else its file name without `.schema.json`/`.json`,
 * in PascalCase (`user-profile.schema.json` → `UserProfile`).
 */
function rootTypeName(root: { readonly schema: unknown; readonly context: { readonly loc: { readonly file: string } } }): string {
  const schema = root.schema;
  if (schema !== null && typeof schema === "object" && typeof (schema as { title?: unknown }).title === "string") {
    return (schema as { title: string }).title;
  }
  const base = root.context.loc.file.split("/").pop() ?? "";
  return pascalCase(base.replace(/(\.schema)?\.json$/i, ""));
}

/** Input definitions first, in the order they were written; then the ones only referenced. */
function inSourceOrder(definitions: readonly Definition[], declared: readonly string[]): Definition[] {
  const rank = new Map(declared.map((id, i) => [id, i]));
  const position = (d: Definition) => rank.get(d.id) ?? declared.length;
  return [...definitions].sort((a, b) => position(a) - position(b));
}

/** Whether a root schema says anything about values (a root that only holds `$defs` does not). */
function hasAssertions(schema: Record<string, unknown>): boolean {
  const container = new Set(["$schema", "$id", "$comment", "$defs", "definitions", "title", "description", "$anchor", "$vocabulary"]);
  return Object.keys(schema).some((k) => !container.has(k));
}

/**
 * Lowers schemas held in memory (registered in `registry`), declaring exactly the given roots (each
 * found by URI, a fragment may point inside) and what they reference, in the order of the roots.
 */
export function lowerMemoryRoots(registry: SchemaRegistry, roots: readonly { readonly name: string; readonly uri: string }[], defaultDialect: Dialect): Definition[] {
  const lowerer = new Lowerer(registry);
  const declared = roots.map((root) => {
    const located = registry.resolveRef(root.uri, { loc: { file: "(roots)", pointer: "" }, baseUri: root.uri, dialect: defaultDialect });
    return lowerer.define(located, root.name, true);
  });
  return inSourceOrder(lowerer.list(), declared);
}
