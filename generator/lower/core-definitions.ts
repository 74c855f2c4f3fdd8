/**
 * The core definitions a set takes from the core MCP schema of its revision (`core` in the config,
 * ARCHITECTURE.md › Stubs): the ones the stubs' protocol flows use, found in that schema by meaning
 * (`coreFlowRoots`), and the ones the config adds by name; each with what it references (the lowerer
 * follows the `$ref`s), nothing else. A definition the set's own schemas define too, with the same
 * body, is the set's own: the core's `$ref`s to it are pointed at the set's (`shareWithOwnSchemas`),
 * so one type stands for both and the names cannot clash. One that differs keeps its own and meets
 * the naming stage's clash error, which says how to rename it.
 */
import { pathToFileURL } from "node:url";
import { GeneratorError, type SourceLocation } from "../diagnostics.js";
import type { DefinitionId, JsonValue } from "../ir/nodes.js";
import { constantValues, definitionsById, intersectionView, propertyNode, singleString, type DefinitionsById } from "../ir/query.js";
import type { SchemaFile } from "../load/documents.js";
import type { LocatedSchema, SchemaRegistry } from "../load/registry.js";
import { fragmentToken, unescapePointerToken } from "../load/json-pointer.js";
import { resolveUri, splitFragment } from "../load/uri.js";
import { nearest } from "../config/suggest.js";
import { Lowerer, type LowerOptions } from "./lower.js";

/**
 * The protocol flows the client and server stubs speak beyond the task methods, by what identifies
 * them on the wire: requests and notifications by `method`, errors by `error.code`. A flow the core
 * schema does not define (2025-11-25 has no `subscriptions/listen`) simply adds nothing.
 */
export const CORE_FLOWS = {
  /** Requests whose definition and `XResult` the stubs use: tool calls with their task support, multi round-trip on the requests that allow it, the listen stream, discovery, and the input a server asks of its client. */
  requests: [
    "tools/list",
    "tools/call",
    "prompts/get",
    "resources/read",
    "server/discover",
    "subscriptions/listen",
    "elicitation/create",
    "sampling/createMessage",
  ],
  /** The listen stream's acknowledgement, and the change that invalidates a client's cache of tools. */
  notifications: ["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"],
  /** -32022 unsupported protocol version (`data.supported`), -32021 missing client capability (`data.requiredCapabilities`). */
  errorCodes: [-32022, -32021],
} as const;

/** A document's JSON, every URI it is known by (retrieval URI, remote aliases, `$id`) and the base its `$ref`s resolve against. */
export interface KnownDocument {
  readonly json: unknown;
  readonly uris: readonly string[];
  readonly base: string;
}

/** A document known by `retrieval` (and `aliases`), and by its root `$id`, which is then its base. */
export function knownDocument(json: unknown, retrieval: string, aliases: readonly string[] = []): KnownDocument {
  const id = json !== null && typeof json === "object" ? (json as { $id?: unknown }).$id : undefined;
  const base = typeof id === "string" ? splitFragment(resolveUri(id, retrieval))[0] : retrieval;
  return { json, uris: [...new Set([retrieval, ...aliases, base])], base };
}

/**
 * The core document with its `$ref`s to definitions the set's own schemas share pointed at the
 * set's, and those names (by name, the absolute URI of the set's definition). Shared means same
 * name and same body once every shared name is read as one definition: the largest such set, found
 * by dropping names whose bodies differ until none does (a body that refers to a differing
 * definition differs too).
 */
export function shareWithOwnSchemas(core: KnownDocument, own: readonly KnownDocument[]): { json: unknown; shared: ReadonlyMap<string, string> } {
  const coreDefs = definitionsOf(core.json);
  const ownerOf = new Map<string, KnownDocument>();
  for (const doc of own) for (const name of Object.keys(definitionsOf(doc.json))) if (!ownerOf.has(name)) ownerOf.set(name, doc);
  const shared = new Set(Object.keys(coreDefs).filter((name) => ownerOf.has(name)));
  const known = [core, ...own];
  for (let changed = true; changed; ) {
    changed = false;
    for (const name of [...shared]) {
      const owner = ownerOf.get(name)!;
      const ours = canonical(definitionsOf(owner.json)[name], owner, known, shared);
      const theirs = canonical(coreDefs[name], core, known, shared);
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
        shared.delete(name);
        changed = true;
      }
    }
  }
  const target = new Map([...shared].map((name) => [name, `${ownerOf.get(name)!.base}#/${containerOf(ownerOf.get(name)!.json, name)}/${fragmentToken(name)}`]));
  const json = mapRefs(core.json, (ref) => {
    const name = coreDefinitionRef(ref, core);
    return name !== undefined && target.has(name) ? target.get(name)! : ref;
  });
  return { json, shared: target };
}

/** The core document as the set lowers it: its `$ref`s to the definitions it shares with the set's own schemas pointed at theirs (see shareWithOwnSchemas). */
export interface CoreDocument {
  readonly file: SchemaFile;
  readonly json: unknown;
  /** The definitions the set's own schemas stand for, by name. */
  readonly shared: ReadonlyMap<string, string>;
  /** The names the config adds (`core.include`), checked. */
  readonly included: readonly string[];
}

/**
 * A set's core schema (`file`, read through `remoteUrl` when a remote mapping names it) shared with
 * the set's own schemas (`inputs`, bound), and the names the config adds (checked).
 */
export function coreDocument(
  file: SchemaFile,
  remoteUrl: string | undefined,
  inputs: readonly SchemaFile[],
  include: readonly { readonly name: string; readonly origin: SourceLocation }[],
): CoreDocument {
  const fileUrl = pathToFileURL(file.path).href;
  const known = remoteUrl !== undefined ? knownDocument(file.json, remoteUrl, [fileUrl]) : knownDocument(file.json, fileUrl);
  const own = inputs.map((input) => knownDocument(input.json, pathToFileURL(input.path).href));
  const { json, shared } = shareWithOwnSchemas(known, own);
  return { file, json, shared, included: includedRoots(include, file.json, file.display) };
}

/**
 * The names of the core definitions the stubs' flows use (`CORE_FLOWS`), found by meaning: the
 * whole core schema lowered on the side (nothing of it reaches the set's model) and read through
 * `$ref`s and `allOf` as the method table reads a set. Each request brings its `XResult`.
 */
export function coreFlowRoots(registry: SchemaRegistry, core: LocatedSchema, options: LowerOptions): string[] {
  const scratch = new Lowerer(registry, options);
  const names = new Map<DefinitionId, string>();
  for (const [container, key] of definitionKeys(core.schema)) {
    names.set(scratch.define(registry.resolveRef(`#/${container}/${fragmentToken(key)}`, core.context), key, true), key);
  }
  const definitions = scratch.list();
  const byId = definitionsById(definitions);
  const found: string[] = [];
  const requests: readonly string[] = CORE_FLOWS.requests;
  const notifications: readonly string[] = CORE_FLOWS.notifications;
  const codes: readonly number[] = CORE_FLOWS.errorCodes;
  for (const def of definitions) {
    const name = names.get(def.id);
    if (name === undefined) continue;
    const view = intersectionView(def.node, byId);
    if (!view) continue;
    const method = stringProperty(view, "method", byId);
    if (method !== undefined && view.properties.has("jsonrpc")) {
      const isRequest = view.properties.has("id");
      if (isRequest && requests.includes(method)) found.push(name, ...resultBeside(name, names));
      if (!isRequest && notifications.includes(method)) found.push(name);
      continue;
    }
    if (isInputRequiredResult(view) || isInputResponseParams(view)) found.push(name);
    const code = errorCode(view, byId);
    if (code !== undefined && codes.includes(code)) found.push(name);
  }
  return [...new Set(found)];
}

/** The core definition names the config adds, each checked: one the core schema lacks is a located error with the nearest name. */
export function includedRoots(
  include: readonly { readonly name: string; readonly origin: SourceLocation }[],
  core: unknown,
  coreFile: string,
): string[] {
  const defined = Object.keys(definitionsOf(core));
  for (const { name, origin } of include) {
    if (defined.includes(name)) continue;
    const guess = nearest(name, defined);
    throw new GeneratorError(
      origin,
      `"${name}" is not a definition of the core schema ${coreFile}${guess ? `; did you mean "${guess}"?` : ""}`,
      "config",
    );
  }
  return include.map((entry) => entry.name);
}

/** The `$defs`/`definitions` entries of a document, as [container, key]. */
export function definitionKeys(json: unknown): [string, string][] {
  if (json === null || typeof json !== "object") return [];
  return (["$defs", "definitions"] as const).flatMap((container) => {
    const defs = (json as Record<string, unknown>)[container];
    return defs && typeof defs === "object" ? Object.keys(defs).map((key): [string, string] => [container, key]) : [];
  });
}

/** The result of `XRequest`: the `XResult` beside it, as the method table finds it. */
function resultBeside(name: string, names: ReadonlyMap<DefinitionId, string>): string[] {
  if (!name.endsWith("Request")) return [];
  const result = `${name.slice(0, -"Request".length)}Result`;
  return [...names.values()].includes(result) ? [result] : [];
}

type View = NonNullable<ReturnType<typeof intersectionView>>;

function stringProperty(view: View, key: string, byId: DefinitionsById): string | undefined {
  const property = view.properties.get(key);
  return property ? singleString(propertyNode(property), byId) : undefined;
}

/** A result that asks for input before the request can complete (multi round-trip): it carries `resultType`, `inputRequests` and `requestState`. */
function isInputRequiredResult(view: View): boolean {
  return ["resultType", "inputRequests", "requestState"].every((key) => view.properties.has(key));
}

/** The params a request is retried with in multi round-trip, on their own: `inputResponses` and `requestState` beside `_meta` only. */
function isInputResponseParams(view: View): boolean {
  const keys = [...view.properties.keys()].sort();
  return JSON.stringify(keys) === JSON.stringify(["_meta", "inputResponses", "requestState"]);
}

/** The one `error.code` a JSON-RPC error response allows, if it allows one. */
function errorCode(view: View, byId: DefinitionsById): number | undefined {
  const error = view.properties.get("error");
  const errorView = error ? intersectionView(propertyNode(error), byId) : undefined;
  const code = errorView?.properties.get("code");
  const values = code ? constantValues(propertyNode(code), byId) : undefined;
  return values?.length === 1 && typeof values[0] === "number" ? values[0] : undefined;
}

function definitionsOf(json: unknown): Record<string, unknown> {
  if (json === null || typeof json !== "object") return {};
  const record = json as Record<string, unknown>;
  return { ...((record.definitions as Record<string, unknown>) ?? {}), ...((record.$defs as Record<string, unknown>) ?? {}) };
}

function containerOf(json: unknown, name: string): string {
  const defs = (json as Record<string, unknown>).$defs;
  return defs && typeof defs === "object" && Object.hasOwn(defs, name) ? "$defs" : "definitions";
}

/** The core definition a `$ref` of the core document names (`#/$defs/X` or the same through one of its URIs). */
function coreDefinitionRef(ref: string, core: KnownDocument): string | undefined {
  return definitionRef(ref, core, core);
}

/** The definition name a `$ref` found in `from` names in `target`, if it names one of its definitions. */
function definitionRef(ref: string, from: KnownDocument, target: KnownDocument): string | undefined {
  let absolute: string;
  try {
    absolute = resolveUri(ref, from.base);
  } catch {
    return undefined;
  }
  const [uri, fragment] = splitFragment(absolute);
  if (!target.uris.includes(uri)) return undefined;
  const match = /^\/(\$defs|definitions)\/([^/]+)$/.exec(fragment);
  return match ? unescapePointerToken(match[2]!) : undefined;
}

/**
 * A definition's body with every `$ref` replaced by what it names: `doc#name` for a definition of a
 * known document (a shared core name as the set's own), the absolute URI otherwise.
 */
function canonical(
  body: unknown,
  from: KnownDocument,
  known: readonly KnownDocument[],
  shared: ReadonlySet<string>,
): unknown {
  return mapRefs(body, (ref) => {
    for (const [i, doc] of known.entries()) {
      const name = definitionRef(ref, from, doc);
      if (name !== undefined) return shared.has(name) ? `shared#${name}` : `${i}#${name}`;
    }
    return resolveUri(ref, from.base);
  });
}

/** A deep copy of a schema with each `$ref` string mapped. */
function mapRefs(value: unknown, map: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => mapRefs(item, map));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, JsonValue>).map(([key, child]) => [key, key === "$ref" && typeof child === "string" ? map(child) : mapRefs(child, map)]),
  );
}

