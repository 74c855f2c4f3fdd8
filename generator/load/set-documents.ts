/**
 * A set's documents, the load stage of the pipeline (generate.ts runs it): its schema files read
 * (the inputs, the remote mappings, the core schema), and once bindings have rewritten the inputs
 * (bind/bindings.ts), every document registered in one registry so `$ref`s between them resolve.
 */
import { pathToFileURL } from "node:url";
import type { Dialect } from "./dialect.js";
import { readSchemaFile, type SchemaFile } from "./documents.js";
import { SchemaRegistry, type LocatedSchema } from "./registry.js";

/** A remote document mapped to a local file: `$ref`s to `url` read `file`. */
export interface RemoteFile {
  readonly url: string;
  readonly file: SchemaFile;
}

export interface SetFiles {
  /** The set's own schema files, in the order of its config. */
  readonly inputs: readonly SchemaFile[];
  readonly remotes: readonly RemoteFile[];
  /** The core schema (`core` in the config): the remote file mapped to it, or a file of its own. */
  readonly core?: SchemaFile;
}

/** Reads a set's files by path; `display` names a file in messages and headers. */
export function readSetFiles(
  paths: { readonly schemas: readonly string[]; readonly remotes: Readonly<Record<string, string>>; readonly core?: string },
  display: (path: string) => string,
): SetFiles {
  const inputs = paths.schemas.map((path) => readSchemaFile(path, display(path)));
  const remotes = Object.entries(paths.remotes).map(([url, path]) => ({ url, file: readSchemaFile(path, display(path)) }));
  if (paths.core === undefined) return { inputs, remotes };
  const core = remotes.find((r) => r.file.path === paths.core)?.file ?? readSchemaFile(paths.core, display(paths.core));
  return { inputs, remotes, core };
}

export interface SetDocuments {
  readonly registry: SchemaRegistry;
  /** Each input document's root, in the order of the inputs. */
  readonly roots: readonly LocatedSchema[];
  /** The core document's root, when the set has one. */
  readonly coreRoot?: LocatedSchema;
}

/**
 * Registers a set's documents: remote mappings first, so an input that is also mapped keeps its own
 * file as retrieval URI; then the files bindings reach (`extra`), the core schema when no remote maps
 * it, and the inputs. The core is registered with `core.json` (its `$ref`s to shared definitions
 * pointed at the set's, see lower/core-definitions.ts), not its file's JSON.
 */
export function registerSetDocuments(
  dialects: { readonly default: Dialect; readonly remotesInherit: boolean },
  documents: {
    readonly remotes: readonly RemoteFile[];
    readonly extra: readonly SchemaFile[];
    readonly inputs: readonly SchemaFile[];
    readonly core?: { readonly file: SchemaFile; readonly json: unknown };
  },
): SetDocuments {
  const { remotes, extra, inputs, core } = documents;
  const registry = new SchemaRegistry(dialects.default);
  let coreRoot: LocatedSchema | undefined;
  for (const { url, file } of remotes) {
    const json = file === core?.file ? core.json : file.json;
    const added = registry.addDocument({
      file: file.display,
      retrievalUri: url,
      json,
      aliases: [pathToFileURL(file.path).href],
      ...(dialects.remotesInherit && file !== core?.file ? { inheritsDialect: true } : {}),
    });
    if (file === core?.file) coreRoot = added;
  }
  for (const file of extra) registry.addDocument({ file: file.display, retrievalUri: pathToFileURL(file.path).href, json: file.json });
  if (core && !coreRoot) coreRoot = registry.addDocument({ file: core.file.display, retrievalUri: pathToFileURL(core.file.path).href, json: core.json });
  const roots = inputs.map((file) => registry.addDocument({ file: file.display, retrievalUri: pathToFileURL(file.path).href, json: file.json }));
  return { registry, roots, ...(coreRoot ? { coreRoot } : {}) };
}

/** Schemas held in memory, each known by its URI (`display` names it in messages; default: the URI). */
export function registerMemoryDocuments(
  documents: readonly { readonly uri: string; readonly json: unknown; readonly display?: string }[],
  defaultDialect: Dialect,
): SchemaRegistry {
  const registry = new SchemaRegistry(defaultDialect);
  for (const doc of documents) registry.addDocument({ file: doc.display ?? doc.uri, retrievalUri: doc.uri, json: doc.json });
  return registry;
}
