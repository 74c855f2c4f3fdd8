/**
 * The method table: which JSON-RPC requests and notifications a schema set defines, what each
 * one's params and result are, and the revision features the stubs follow. Found from the
 * schema's shapes (a `method` constant, an `id`, `XRequest` ↔ `XResult` naming), never from the
 * set's name, so a new revision of the spec needs no change here.
 */
import { GeneratorError, type SourceLocation } from "../diagnostics.js";
import {
  definitionByName,
  definitionsById,
  intersectionView,
  namedPropertyTarget,
  propertyNode,
  singleString,
  type DefinitionsById,
} from "../ir/query.js";
import type { NamedDefinition } from "./naming.js";

export interface MethodEntry {
  /** The JSON-RPC method name (`tasks/get`). */
  readonly method: string;
  /** The message definition (`GetTaskRequest`). */
  readonly message: string;
  /** The definition of `params`, when it is a named one. */
  readonly params?: string;
  /** Whether `params` is required. */
  readonly paramsRequired: boolean;
  /** The result definition (`GetTaskResult`), for requests. */
  readonly result?: string;
}

export interface MethodTable {
  readonly requests: readonly MethodEntry[];
  readonly notifications: readonly MethodEntry[];
}

/**
 * A config's say on one method, for a revision that lacks what the stubs need (`"methods": {
 * "tasks/get": { "result": "GetTaskResult" } }`): definition names as the generated types name them.
 */
export interface MethodMapping {
  readonly params?: string;
  readonly result?: string;
  /** Where the mapping is written (`mcp-tasks-gen.config.json#/sets/0/methods/tasks~1get`). */
  readonly origin?: SourceLocation;
}

/**
 * Every request and notification of the set: a definition read as one object through `$ref`s and
 * `allOf` (an envelope referenced or inlined, the request's own part beside it), with a `method`
 * that allows one string and a `jsonrpc` property; a request also has an `id`. A result is the
 * `XResult` beside an `XRequest`, or what the config's mapping names.
 */
export function buildMethodTable(definitions: readonly NamedDefinition[], mappings: ReadonlyMap<string, MethodMapping> = new Map()): MethodTable {
  const byId = definitionsById(definitions);
  const requests: MethodEntry[] = [];
  const notifications: MethodEntry[] = [];
  for (const def of definitions) {
    if (def.owner) continue; // hoisted parts are not messages
    const message = messageOf(def, byId);
    if (!message) continue;
    const mapping = mappings.get(message.method);
    const paramsName = mapping?.params ?? message.params;
    const entry = {
      method: message.method,
      message: def.name,
      ...(paramsName ? { params: paramsName } : {}),
      paramsRequired: message.paramsRequired,
    };
    if (message.request) {
      const resultName = mapping?.result ?? pairedResult(def.name, definitions);
      requests.push({ ...entry, ...(resultName ? { result: resultName } : {}) });
    } else {
      notifications.push(entry);
    }
  }
  for (const [method, mapping] of mappings) checkMapping(method, mapping, requests, notifications, definitions);
  return { requests, notifications };
}

/** What makes a definition a JSON-RPC message, read from its meaning; undefined for anything else. */
export function messageOf(
  def: NamedDefinition,
  byId: DefinitionsById<NamedDefinition>,
): { method: string; request: boolean; params?: string; paramsRequired: boolean } | undefined {
  const view = intersectionView(def.node, byId);
  const method = view?.properties.get("method");
  const methodName = method?.required ? singleString(propertyNode(method), byId) : undefined;
  if (!view || !methodName || !view.properties.has("jsonrpc")) return undefined;
  const params = view.properties.get("params");
  const paramsName = params ? namedPropertyTarget(params, byId)?.name : undefined;
  return {
    method: methodName,
    request: view.properties.has("id"),
    ...(paramsName ? { params: paramsName } : {}),
    paramsRequired: params?.required ?? false,
  };
}

/** `XResult` for a definition named `XRequest`, when the set declares it. */
function pairedResult(request: string, definitions: readonly NamedDefinition[]): string | undefined {
  const name = request.replace(/Request$/, "Result");
  return name !== request && definitionByName(definitions, name) ? name : undefined;
}

/** A mapping names a method the set defines and definitions the set declares: a typo is reported, never ignored. */
function checkMapping(
  method: string,
  mapping: MethodMapping,
  requests: readonly MethodEntry[],
  notifications: readonly MethodEntry[],
  definitions: readonly NamedDefinition[],
): void {
  const at = mapping.origin;
  const entry = [...requests, ...notifications].find((e) => e.method === method);
  if (!entry) {
    const known = [...requests, ...notifications].map((e) => e.method);
    throw new GeneratorError(at, `the set defines no method \`${method}\`${known.length > 0 ? ` (it defines ${known.join(", ")})` : ""}`, "config");
  }
  for (const field of ["params", "result"] as const) {
    const name = mapping[field];
    if (name === undefined) continue;
    if (field === "result" && !requests.includes(entry)) throw new GeneratorError(at && { ...at, pointer: `${at.pointer}/result` }, `\`${method}\` is a notification: it has no result`, "config");
    if (!definitionByName(definitions, name)) {
      throw new GeneratorError(at && { ...at, pointer: `${at.pointer}/${field}` }, `the set declares no definition ${name}`, "config");
    }
  }
}
