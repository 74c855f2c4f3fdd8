/**
 * The method table: which JSON-RPC requests and notifications a schema set defines, what each
 * one's params and result are, and the revision features the stubs follow. Found from the
 * schema's shapes (a `method` constant, an `id`, `XRequest` ↔ `XResult` naming), never from the
 * set's name, so a new revision of the spec needs no change here.
 */
import type { Node } from "../ir/nodes.js";
import { definitionByName, definitionsById, followRefs, objectOf, refTarget, type DefinitionsById } from "../ir/query.js";
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

export function buildMethodTable(definitions: readonly NamedDefinition[]): MethodTable {
  const byId = definitionsById(definitions);
  const requests: MethodEntry[] = [];
  const notifications: MethodEntry[] = [];
  for (const def of definitions) {
    if (def.owner) continue; // hoisted parts are not messages
    const object = objectOf(def.node, byId);
    if (!object) continue;
    const method = object.properties.find((p) => p.name === "method");
    const jsonrpc = object.properties.find((p) => p.name === "jsonrpc");
    const methodName = method?.required ? singleString(method.node, byId) : undefined;
    if (!methodName || !jsonrpc) continue;
    const params = object.properties.find((p) => p.name === "params");
    const paramsName = params ? refTarget(params.node, byId)?.name : undefined;
    const entry = {
      method: methodName,
      message: def.name,
      ...(paramsName ? { params: paramsName } : {}),
      paramsRequired: params?.required ?? false,
    };
    if (object.properties.some((p) => p.name === "id")) {
      const resultName = def.name.replace(/Request$/, "Result");
      requests.push({ ...entry, ...(resultName !== def.name && definitionByName(definitions, resultName) ? { result: resultName } : {}) });
    } else {
      notifications.push(entry);
    }
  }
  return { requests, notifications };
}

function singleString(node: Node, byId: DefinitionsById): string | undefined {
  const target = followRefs(node, byId);
  return target.kind === "literal" && target.values.length === 1 && typeof target.values[0] === "string" ? target.values[0] : undefined;
}
