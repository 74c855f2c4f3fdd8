/**
 * Loading and lowering a whole set: its schema files (with remote mappings and bindings) into a
 * registry, then every definition and titled root into IR, in source order. The keyword-by-keyword
 * lowering of one schema is lower.ts; this file decides which schemas become definitions.
 */
import { pathToFileURL } from "node:url";
import { pascalCase } from "../names.js";
import { bindSchemas } from "../bind/bindings.js";
import { sourcePath, type ResolvedCore, type ResolvedSet } from "../config/config.js";
import type { Definition } from "../ir/nodes.js";
import type { Dialect } from "../load/dialect.js";
import { readSchemaFile, type SchemaFile } from "../load/documents.js";
import { fragmentToken } from "../load/json-pointer.js";
import { SchemaRegistry, type LocatedSchema } from "../load/registry.js";
import { coreFlowRoots, definitionKeys, includedRoots, knownDocument, shareWithOwnSchemas } from "./core-definitions.js";
import { Lowerer } from "./lower.js";

export interface LoweredSet {
  readonly registry: SchemaRegistry;
  /** Every definition, lowered (not yet analyzed), in source order. */
  readonly definitions: readonly Definition[];
  readonly sources: readonly SchemaFile[];
}

/** Load and lower one set: the schemas as IR, before analyze rewrites anything. */
export function lowerSet(set: ResolvedSet, rootDir: string): LoweredSet {
  const registry = new SchemaRegistry(set.defaultDialect);
  const display = sourceDisplay(set, rootDir);
  const inputs = set.schemas.map((path) => readSchemaFile(path, display(path)));
  const remotes = Object.entries(set.remotes).map(([url, path]) => ({ url, file: readSchemaFile(path, display(path)) }));
  // Bindings rewrite the inputs and bring in the files they reach (see bind/bindings.ts).
  const bound = bindSchemas(set.bindings, inputs, remotes.map((r) => r.file), display);
  const core = set.core ? coreDocument(set.core, remotes, bound.inputs, display) : undefined;
  // Remote mappings first, so an input that is also mapped keeps its own file as retrieval URI.
  let coreRoot: LocatedSchema | undefined;
  for (const { url, file } of remotes) {
    const json = file === core?.file ? core.json : file.json;
    const added = registry.addDocument({ file: file.display, retrievalUri: url, json, aliases: [pathToFileURL(file.path).href] });
    if (file === core?.file) coreRoot = added;
  }
  const lowerer = new Lowerer(registry, { extraAnnotations: set.annotations });
  const declared: string[] = [];
  for (const file of bound.extra) registry.addDocument({ file: file.display, retrievalUri: pathToFileURL(file.path).href, json: file.json });
  if (core && !coreRoot) coreRoot = registry.addDocument({ file: core.file.display, retrievalUri: pathToFileURL(core.file.path).href, json: core.json });
  const roots = bound.inputs.map((file) => registry.addDocument({ file: file.display, retrievalUri: pathToFileURL(file.path).href, json: file.json }));
  bound.checkRefs(registry);
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
  if (core && coreRoot) {
    // After the set's own definitions, so theirs come first in the output (see core-definitions.ts).
    const wanted = [...(set.stubs === false ? [] : coreFlowRoots(registry, coreRoot, { extraAnnotations: set.annotations })), ...core.included];
    for (const name of new Set(wanted)) {
      if (core.shared.has(name)) continue;
      const container = definitionKeys(core.json).find(([, key]) => key === name)![0];
      declared.push(lowerer.define(registry.resolveRef(`#/${container}/${fragmentToken(name)}`, coreRoot.context), name, true));
    }
  }
  const coreSource = core && !remotes.some((r) => r.file === core.file) ? [core.file] : [];
  return { registry, definitions: inSourceOrder(lowerer.list(), declared), sources: [...inputs, ...remotes.map((r) => r.file), ...bound.extra, ...coreSource] };
}

/**
 * A set's core schema (a mapped remote document, or a file of its own), its `$ref`s to the
 * definitions the set's schemas share pointed at theirs, and the names the config adds (checked).
 */
function coreDocument(
  config: ResolvedCore,
  remotes: readonly { readonly url: string; readonly file: SchemaFile }[],
  inputs: readonly SchemaFile[],
  display: (path: string) => string,
): { file: SchemaFile; json: unknown; shared: ReadonlyMap<string, string>; included: string[] } {
  const remote = remotes.find((r) => r.file.path === config.schema);
  const file = remote?.file ?? readSchemaFile(config.schema, display(config.schema));
  const fileUrl = pathToFileURL(file.path).href;
  const known = remote ? knownDocument(file.json, remote.url, [fileUrl]) : knownDocument(file.json, fileUrl);
  const own = inputs.map((input) => knownDocument(input.json, pathToFileURL(input.path).href));
  const { json, shared } = shareWithOwnSchemas(known, own);
  return { file, json, shared, included: includedRoots(config.include, file.json, file.display) };
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

/** How a set's files are named in output and messages: bundled ones by their package name, others relative to `rootDir`. */
export function sourceDisplay(set: ResolvedSet, rootDir: string): (path: string) => string {
  return (path) => set.sourceNames?.[path] ?? sourcePath(path, rootDir);
}

/**
 * Lowers schemas held in memory, declaring exactly the given roots (each found by URI, a fragment
 * may point inside) and what they reference, in the order of the roots.
 */
export function lowerMemoryDocuments(
  documents: readonly { readonly uri: string; readonly json: unknown; readonly display?: string }[],
  roots: readonly { readonly name: string; readonly uri: string }[],
  defaultDialect: Dialect,
): Definition[] {
  const registry = new SchemaRegistry(defaultDialect);
  for (const doc of documents) registry.addDocument({ file: doc.display ?? doc.uri, retrievalUri: doc.uri, json: doc.json });
  const lowerer = new Lowerer(registry);
  const declared = roots.map((root) => {
    const located = registry.resolveRef(root.uri, { loc: { file: "(roots)", pointer: "" }, baseUri: root.uri, dialect: defaultDialect });
    return lowerer.define(located, root.name, true);
  });
  return inSourceOrder(lowerer.list(), declared);
}
