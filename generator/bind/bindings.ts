/**
 * Bindings: a set's config may give a definition of its schemas a schema of its own, to fill in
 * what the schema leaves open. The ext-tasks draft writes `InputRequest` and `InputResponse` as
 * placeholders (`anyOf: [{}, {}, {}]`); binding them to the elicitation, sampling and roots
 * definitions of another schema file makes the generated types say what an input request is.
 *
 * ```json
 * "bindings": {
 *   "InputRequest": { "anyOf": [{ "$ref": "schemas/mcp-input-requests-2025-11-25.schema.json#/$defs/ElicitRequest" }, ...] }
 * }
 * ```
 *
 * Rules (the one place that decides them):
 * - The key is a definition name of the set's schema files (`$defs` or `definitions`), which
 *   must exist exactly once. The value is a JSON Schema that replaces the definition's body; the
 *   definition keeps its `$schema`, `$id`, `$anchor`, `$comment`, `title` and `description`
 *   unless the binding sets them.
 * - `$ref`s in a binding are relative to the config file, like every path in it; a ref that is
 *   only a fragment (`#/$defs/Task`) points into the document holding the bound definition, and
 *   an absolute URI resolves as any `$ref` does (by `$id`, or through `remotes`).
 * - The files a binding reaches are loaded as documents of the set, and so are the local files
 *   they reach in turn by relative `$ref`; nothing in them is declared unless it is used. They
 *   are listed with their hashes among the sources in every file header.
 * - Inline copies of a bound definition's original body elsewhere in the set's schemas (Zod
 *   output repeats `InputRequest`'s body inside `InputRequests` and `InputRequiredTask`) are
 *   bound too, where their place names the definition: a property `inputRequest`, or an entry
 *   (`additionalProperties`, `items`) of `inputRequests`/`InputRequests`, the rule
 *   `analyze/dedupe.ts` uses between definitions that share a body (matched here by plural
 *   forms, since dedupe's `singular` turns "Responses" into "Respons"). A copy whose place says
 *   nothing stays as written (and lint still reports it).
 *
 * Binding rewrites the documents before they are registered, so lowering, lint and every
 * emitter see the bound schema and report locations in the original files. What a binding
 * states inline (rather than by `$ref`) becomes part of the bound definition's document, so lint
 * findings and validator `schemaPath`s inside it point at that definition's place in its file;
 * a binding made of `$ref`s (as the repository's is) keeps every location exact.
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { GeneratorError, type SourceLocation } from "../diagnostics.js";
import { pascalCase } from "../names.js";
import { canonicalJson } from "../ir/structure.js";
import type { JsonValue } from "../ir/nodes.js";
import { readSchemaFile, type SchemaFile } from "../load/documents.js";
import { SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS } from "../load/dialect.js";
import { appendPointer, escapePointerToken } from "../load/json-pointer.js";
import type { SchemaRegistry } from "../load/registry.js";
import { resolveUri, splitFragment } from "../load/uri.js";

/** A binding as the config resolves it: `$ref`s made absolute, and where the config writes it. */
export interface Binding {
  readonly schema: JsonValue;
  readonly origin: SourceLocation;
}

type SchemaObject = { [key: string]: JsonValue };

/** The keywords a bound definition keeps from its original body. */
const KEPT = ["$schema", "$id", "$anchor", "$dynamicAnchor", "$comment", "title", "description"];
/** Keywords left out when comparing a copy with an original body: they say nothing about values. */
const ANNOTATIONS = new Set(["$schema", "$comment", "title", "description", "examples", "deprecated"]);
/** Keywords whose value is data, not a schema: a `$ref` key inside them is not a reference. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

// ---------------------------------------------------------------------------------------------
// Config: checking and resolving the `bindings` field.

/** Checks a set's `bindings`: an object of definition name → JSON Schema (an object or a boolean), and an optional `$comment`. */
export function checkBindings(value: unknown, pointer: string, fail: (pointer: string, message: string) => never): Record<string, JsonValue> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return fail(pointer, "expected an object of definition name → JSON Schema");
  }
  const bindings: Record<string, JsonValue> = {};
  for (const [name, schema] of Object.entries(value as Record<string, unknown>)) {
    const at = appendPointer(pointer, name);
    // A note to the reader, as everywhere in the config.
    if (name === "$comment") {
      if (typeof schema !== "string") fail(at, "$comment must be a string");
      continue;
    }
    if (name === "") fail(at, "a binding needs the name of a definition of the set's schemas");
    if (typeof schema !== "boolean" && (schema === null || typeof schema !== "object" || Array.isArray(schema))) {
      fail(at, `expected a JSON Schema (an object or a boolean) for "${name}"`);
    }
    forEachRef(schema as JsonValue, at, (ref, refAt) => {
      if (typeof ref !== "string") fail(refAt, "$ref must be a string");
    });
    bindings[name] = schema as JsonValue;
  }
  return bindings;
}

/** Makes each binding's relative `$ref`s absolute (relative to the config's folder) and records where it is written. */
export function resolveBindings(bindings: Readonly<Record<string, JsonValue>>, rootDir: string, origin: SourceLocation): Record<string, Binding> {
  const base = pathToFileURL(resolve(rootDir) + "/").href;
  return Object.fromEntries(
    Object.entries(bindings).map(([name, schema]) => {
      const absolute = mapRefs(schema, (ref) => (ref.startsWith("#") || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(ref) ? ref : resolveUri(ref, base)));
      return [name, { schema: absolute, origin: { file: origin.file, pointer: appendPointer(origin.pointer, name) } }];
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Applying bindings to a set's documents.

export interface BoundSchemas {
  /** The set's input files, their JSON rewritten by the bindings (the same objects when there are none). */
  readonly inputs: readonly SchemaFile[];
  /** Files the bindings reach that the set does not load otherwise. */
  readonly extra: readonly SchemaFile[];
  /** Throws a located config error for a binding `$ref` that does not resolve; call once every document is registered. */
  checkRefs(registry: SchemaRegistry): void;
}

/**
 * Applies bindings to the input files of a set. `loaded` are the files the set loads anyway
 * (inputs and remotes), so they are not loaded twice; `display` names a file in messages.
 */
export function bindSchemas(
  bindings: Readonly<Record<string, Binding>> | undefined,
  inputs: readonly SchemaFile[],
  loaded: readonly SchemaFile[],
  display: (path: string) => string,
): BoundSchemas {
  const entries = Object.entries(bindings ?? {});
  if (entries.length === 0) return { inputs, extra: [], checkRefs: () => {} };

  // Where each bound definition is, and the body it had.
  const targets = entries.map(([name, binding]) => {
    const found = inputs.flatMap((file, index) =>
      (["$defs", "definitions"] as const).flatMap((container) => {
        const defs = isObject(file.json) ? file.json[container] : undefined;
        return isObject(defs) && Object.hasOwn(defs, name) ? [{ index, container }] : [];
      }),
    );
    if (found.length !== 1) {
      const where = inputs.map((f) => f.display).join(", ");
      throw new GeneratorError(
        binding.origin,
        found.length === 0
          ? `binds "${name}", but no schema of the set (${where}) defines "${name}" under $defs or definitions`
          : `binds "${name}", but it is defined ${found.length} times in the set's schemas; a binding must name one definition`,
        "config",
      );
    }
    const { index, container } = found[0]!;
    const file = inputs[index]!;
    const original = ((file.json as SchemaObject)[container] as SchemaObject)[name]!;
    return { name, binding, index, container, original, base: documentBase(file), body: bodyKey(original) };
  });

  const rewritten = inputs.map((file, index) => {
    const own = targets.filter((t) => t.index === index);
    const copies = (schema: JsonValue, place: Place | undefined, rebased: boolean): JsonValue | undefined => {
      if (place === undefined) return undefined;
      const key = bodyKey(schema);
      const bound = targets.find((t) => t.body === key && names(place, t.name));
      if (!bound) return undefined;
      // A plain `#/$defs/X` where the document's own base is in force; the absolute URI under a nested `$id`.
      const fragment = `#${pointerFragment(bound.container, bound.name)}`;
      const sameDocument = bound.index === index && !rebased;
      return { ...annotationsOf(schema), $ref: sameDocument ? fragment : `${bound.base}${fragment}` };
    };
    // Copies first (in the original documents), then the bound definitions themselves.
    let json = rewriteSchemas(file.json as JsonValue, undefined, copies, (container, name) =>
      own.some((t) => t.container === container && t.name === name),
    );
    for (const target of own) {
      const root = json as SchemaObject;
      const defs = { ...(root[target.container] as SchemaObject), [target.name]: boundBody(target.original, target.binding.schema) };
      json = { ...root, [target.container]: defs };
    }
    return json === file.json ? file : { ...file, json };
  });

  const extra = reachedFiles(targets.map((t) => t.binding), [...inputs, ...loaded], display);
  return {
    inputs: rewritten,
    extra,
    checkRefs(registry) {
      for (const target of targets) {
        forEachRef(target.binding.schema, target.binding.origin.pointer, (ref, pointer) => {
          try {
            registry.resolveRef(ref as string, { loc: { file: "(binding)", pointer: "" }, baseUri: target.base, dialect: "2020-12" });
          } catch (e) {
            const detail = e instanceof GeneratorError ? e.detail : (e as Error).message;
            throw new GeneratorError({ file: target.binding.origin.file, pointer }, detail, "config");
          }
        });
      }
    },
  };
}

/** The original definition's kept keywords, then the binding. */
function boundBody(original: JsonValue, binding: JsonValue): JsonValue {
  const kept = isObject(original) ? Object.fromEntries(KEPT.filter((k) => Object.hasOwn(original, k)).map((k) => [k, original[k]!])) : {};
  if (typeof binding === "boolean") return binding ? kept : { ...kept, not: {} };
  return { ...kept, ...(binding as SchemaObject) };
}

/** What a schema says about values, as a string equal for equal schemas (annotations left out). */
function bodyKey(schema: JsonValue): string {
  if (!isObject(schema)) return canonicalJson(schema);
  return canonicalJson(Object.fromEntries(Object.entries(schema).filter(([k]) => !ANNOTATIONS.has(k))));
}

function annotationsOf(schema: JsonValue): SchemaObject {
  if (!isObject(schema)) return {};
  return Object.fromEntries(Object.entries(schema).filter(([k]) => k === "title" || k === "description" || k === "$comment"));
}

/** The URI `$ref`s reach a document's root by: its `$id`, or its file URL. */
function documentBase(file: SchemaFile): string {
  const url = pathToFileURL(file.path).href;
  const id = isObject(file.json) ? file.json.$id : undefined;
  if (typeof id !== "string" || id.startsWith("#")) return url;
  return splitFragment(resolveUri(id, url))[0];
}

function pointerFragment(container: string, name: string): string {
  return `/${container}/${encodeURIComponent(escapePointerToken(name))}`;
}

/**
 * What a subschema's position calls it: its property name or definition key, or (`entry`) one
 * entry of the map or array its container's name calls.
 */
interface Place {
  readonly name: string;
  readonly entry: boolean;
}

/** Whether a place names a definition: `inputRequest` or an entry of `inputRequests` names `InputRequest`. */
function names(place: Place, definition: string): boolean {
  const wanted = pascalCase(definition);
  const name = pascalCase(place.name);
  if (!place.entry) return name === wanted;
  return [`${wanted}s`, `${wanted}es`, wanted.replace(/y$/, "ies")].includes(name);
}

/**
 * Rewrites every subschema of a document, root first: `replace` may return a new schema for one
 * (its children are then left alone). A subschema's place (see Place) is its property name or
 * definition key; for an entry of a map or array, its container's name; the container's own
 * place through `allOf`/`anyOf`/`oneOf`. `skip` keeps a definition out of the walk (a bound
 * definition is not a copy of itself).
 */
function rewriteSchemas(
  schema: JsonValue,
  place: Place | undefined,
  replace: (schema: JsonValue, place: Place | undefined, rebased: boolean) => JsonValue | undefined,
  skip: (container: string, name: string) => boolean,
  isRoot = true,
  /** Whether a `$id` below the document's root is in force here. */
  rebased = false,
): JsonValue {
  if (!isObject(schema)) return schema;
  if (!isRoot) {
    if (typeof schema.$id === "string" && !schema.$id.startsWith("#")) rebased = true;
    const replaced = replace(schema, place, rebased);
    if (replaced !== undefined) return replaced;
  }
  const entry = place === undefined || place.entry ? undefined : { name: place.name, entry: true };
  const sub = (child: JsonValue, childPlace: Place | undefined) => rewriteSchemas(child, childPlace, replace, skip, false, rebased);
  const out: SchemaObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((SCHEMA_KEYWORDS as readonly string[]).includes(key)) {
      out[key] = sub(value, /^(additional|unevaluated)(Properties|Items)$/.test(key) ? entry : undefined);
    } else if ((SCHEMA_ARRAY_KEYWORDS as readonly string[]).includes(key) && Array.isArray(value)) {
      out[key] = value.map((item) => sub(item, key === "prefixItems" ? entry : place));
    } else if ((SCHEMA_MAP_KEYWORDS as readonly string[]).includes(key) && isObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => {
          if ((key === "$defs" || key === "definitions") && skip(key, name)) return [name, child];
          const childPlace = key === "properties" || key === "$defs" || key === "definitions" ? { name, entry: false } : key === "patternProperties" ? entry : undefined;
          return [name, sub(child, childPlace)];
        }),
      );
    } else if (key === "items") {
      out[key] = Array.isArray(value) ? value.map((item) => sub(item, entry)) : sub(value, entry);
    } else if (key === "dependencies" && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, Array.isArray(child) ? child : sub(child, undefined)]));
    } else {
      out[key] = value;
    }
  }
  // Keep the original object when nothing inside changed, so unbound documents stay as read.
  return Object.entries(out).every(([k, v]) => v === schema[k]) ? schema : out;
}

/** Calls `visit` for every `$ref` of a schema (not inside data keywords), with its JSON pointer. */
function forEachRef(schema: JsonValue, pointer: string, visit: (ref: JsonValue, pointer: string) => void): void {
  if (Array.isArray(schema)) {
    schema.forEach((item, i) => forEachRef(item, appendPointer(pointer, i), visit));
    return;
  }
  if (!isObject(schema)) return;
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$ref") visit(value, appendPointer(pointer, key));
    else if (!DATA_KEYWORDS.has(key)) forEachRef(value, appendPointer(pointer, key), visit);
  }
}

function mapRefs(schema: JsonValue, map: (ref: string) => string): JsonValue {
  if (Array.isArray(schema)) return schema.map((item) => mapRefs(item, map));
  if (!isObject(schema)) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === "$ref" && typeof value === "string" ? map(value) : DATA_KEYWORDS.has(key) ? value : mapRefs(value, map),
    ]),
  );
}

/** The local files the bindings reach by `$ref`, and the ones those reach, that are not loaded yet. */
function reachedFiles(bindings: readonly Binding[], loaded: readonly SchemaFile[], display: (path: string) => string): SchemaFile[] {
  const known = new Set(loaded.map((f) => resolve(f.path)));
  const found: SchemaFile[] = [];
  const queue: { path: string; origin: SourceLocation }[] = [];
  const enqueue = (uri: string, origin: SourceLocation) => {
    const [resource] = splitFragment(uri);
    if (!resource.startsWith("file:")) return;
    const path = resolve(fileURLToPath(resource));
    if (known.has(path)) return;
    known.add(path);
    queue.push({ path, origin });
  };
  for (const binding of bindings) {
    forEachRef(binding.schema, binding.origin.pointer, (ref, pointer) => enqueue(ref as string, { file: binding.origin.file, pointer }));
  }
  while (queue.length > 0) {
    const { path, origin } = queue.shift()!;
    let file: SchemaFile;
    try {
      file = readSchemaFile(path, display(path));
    } catch (e) {
      throw new GeneratorError(origin, `a binding reaches ${display(path)}: ${e instanceof GeneratorError ? e.detail : (e as Error).message}`, "config");
    }
    found.push(file);
    const base = documentBase(file);
    forEachRef(file.json as JsonValue, "", (ref, pointer) => {
      if (typeof ref !== "string" || ref.startsWith("#")) return;
      try {
        enqueue(resolveUri(ref, base), { file: file.display, pointer });
      } catch {
        // An unresolvable $ref is reported where it is written, when the schema is lowered.
      }
    });
  }
  return found;
}

function isObject(value: unknown): value is SchemaObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
