/**
 * The protocol flows beyond the task methods, as the stubs' profiles need them: the generated
 * type and validator names of each flow's messages, and the facts the engines read from their
 * shapes (multi round-trip's fields, the listen stream's filter, a tool's `taskSupport` values,
 * the data of the -32022/-32021 errors). Everything comes from the model, which holds the core
 * definitions the set takes from its core schema (lower/core-definitions.ts, README › Core
 * definitions); a flow the set lacks is absent. Static engine code takes these as profile data.
 */
import type { JsonValue } from "../../ir/nodes.js";
import { constantValues, definitionByName, intersectionView, namedPropertyTarget, propertyNode, singleString, type ObjectView } from "../../ir/query.js";
import type { MethodEntry } from "../methods.js";
import type { Model } from "../model.js";
import type { NamedDefinition } from "../naming.js";
import { CORE_FLOWS } from "../../lower/core-definitions.js";

/** A message of a flow: its generated type and validator, its params and result types where named. */
export interface FlowMessage {
  readonly method: string;
  readonly type: string;
  readonly validate: string;
  readonly params?: string;
  readonly result?: { readonly type: string; readonly validate: string };
}

/** Multi round-trip: the result that asks for input, and the fields a retry answers it with. */
export interface InputRequiredFlow {
  readonly type: string;
  readonly validate: string;
  /** The `resultType` the result is told by (`input_required`), when the schema writes it as a constant; otherwise the specification's value. */
  readonly resultType: string;
  /** Field names: the result's `inputRequests` and `requestState`, the retry's `inputResponses`. */
  readonly requestsField: string;
  readonly stateField: string;
  readonly responsesField: string;
  /** The types of the input requests and of the answers (`InputRequests`, `InputResponses`). */
  readonly requestsType?: string;
  readonly responsesType?: string;
  /** The params a retry carries besides the request's own (`InputResponseRequestParams`), when the schema names them. */
  readonly retryParams?: string;
}

/** The listen stream: its request, the acknowledgement, and the filter's notification kinds. */
export interface ListenFlow {
  readonly request: FlowMessage;
  readonly acknowledged?: FlowMessage;
  /** The filter's type and its keys (`taskIds`, `toolsListChanged`, ...), as the schema lists them. */
  readonly filter?: { readonly type: string; readonly keys: readonly string[] };
}

/** A tool's declaration of task support: where it sits on the Tool and the values it takes. */
export interface TaskSupportFlow {
  readonly tool: string;
  readonly path: readonly string[];
  readonly values: readonly JsonValue[];
  /** The named definition of the declaration (`ToolTaskSupport`), when the property refers to one. */
  readonly type?: string;
}

/** A JSON-RPC error response of a flow, by code: its type, and the fields of its `data`. */
export interface FlowError {
  readonly code: number;
  readonly type: string;
  readonly validate: string;
  readonly dataFields: readonly string[];
  readonly requiredDataFields: readonly string[];
  /** The named definition of its `data` (`UnsupportedProtocolVersionErrorData`), when the property refers to one. */
  readonly data?: string;
}

export interface CoreFlows {
  /** The flows' requests by method (`tools/call`, `subscriptions/listen`, ...), the ones the set has. */
  readonly requests: Readonly<Record<string, FlowMessage>>;
  readonly notifications: Readonly<Record<string, FlowMessage>>;
  readonly inputRequired?: InputRequiredFlow;
  readonly listen?: ListenFlow;
  readonly taskSupport?: TaskSupportFlow;
  /** The definition each tool of a `tools/list` page is (`Tool`), whatever it is called. */
  readonly tool?: string;
  readonly errors: readonly FlowError[];
}

/** The flows of a set's model (see the module comment). */
export function coreFlows(model: Model): CoreFlows {
  const requests = messages(model, model.methods.requests, CORE_FLOWS.requests);
  const notifications = messages(model, model.methods.notifications, CORE_FLOWS.notifications);
  const inputRequired = inputRequiredFlow(model);
  const listen = requests["subscriptions/listen"] ? listenFlow(model, requests["subscriptions/listen"], notifications) : undefined;
  const taskSupport = taskSupportFlow(model);
  const tool = listedTool(model)?.name;
  return {
    requests,
    notifications,
    ...(inputRequired ? { inputRequired } : {}),
    ...(listen ? { listen } : {}),
    ...(taskSupport ? { taskSupport } : {}),
    ...(tool ? { tool } : {}),
    errors: flowErrors(model),
  };
}

function messages(model: Model, entries: readonly MethodEntry[], wanted: readonly string[]): Record<string, FlowMessage> {
  const found: Record<string, FlowMessage> = {};
  for (const method of wanted) {
    const entry = entries.find((e) => e.method === method);
    if (!entry) continue;
    found[method] = {
      method,
      type: entry.message,
      validate: `validate${entry.message}`,
      ...(entry.params ? { params: entry.params } : {}),
      ...(entry.result && definitionByName(model.definitions, entry.result) ? { result: { type: entry.result, validate: `validate${entry.result}` } } : {}),
    };
  }
  return found;
}

function viewOf(def: NamedDefinition, model: Model): ObjectView | undefined {
  return intersectionView(def.node, model.byId);
}

/** The declared definition whose view has every one of `keys` (the first in source order). */
function declaredWith(model: Model, keys: readonly string[], exact = false): NamedDefinition | undefined {
  return model.definitions.find((def) => {
    if (def.owner) return false;
    const view = viewOf(def, model);
    if (!view || !keys.every((k) => view.properties.has(k))) return false;
    return !exact || view.properties.size === keys.length;
  });
}

/** The named definition a property refers to, if it is a plain `$ref`. */
function refName(model: Model, view: ObjectView, key: string): string | undefined {
  const property = view.properties.get(key);
  const node = property ? propertyNode(property) : undefined;
  return node?.kind === "ref" ? model.byId.get(node.target)?.name : undefined;
}

function inputRequiredFlow(model: Model): InputRequiredFlow | undefined {
  const result = declaredWith(model, ["resultType", "inputRequests", "requestState"]);
  if (!result) return undefined;
  const view = viewOf(result, model)!;
  const tag = singleString(propertyNode(view.properties.get("resultType")!), model.byId);
  const retry = declaredWith(model, ["_meta", "inputResponses", "requestState"], true);
  const retryView = retry ? viewOf(retry, model) : undefined;
  const requestsType = refName(model, view, "inputRequests");
  const responsesType = retryView ? refName(model, retryView, "inputResponses") : undefined;
  return {
    type: result.name,
    validate: `validate${result.name}`,
    // The core schema writes `resultType` as an open string; the value is the specification's (mrtr.mdx).
    resultType: tag ?? "input_required",
    requestsField: "inputRequests",
    stateField: "requestState",
    responsesField: "inputResponses",
    ...(requestsType ? { requestsType } : {}),
    ...(responsesType ? { responsesType } : {}),
    ...(retry ? { retryParams: retry.name } : {}),
  };
}

function listenFlow(model: Model, request: FlowMessage, notifications: Readonly<Record<string, FlowMessage>>): ListenFlow {
  const acknowledged = notifications["notifications/subscriptions/acknowledged"];
  const params = request.params ? definitionByName(model.definitions, request.params) : undefined;
  const paramsView = params ? viewOf(params, model) : undefined;
  const filterName = paramsView ? refName(model, paramsView, "notifications") : undefined;
  const filterDef = filterName ? definitionByName(model.definitions, filterName) : undefined;
  const filterView = filterDef ? viewOf(filterDef, model) : undefined;
  return {
    request,
    ...(acknowledged ? { acknowledged } : {}),
    ...(filterName && filterView ? { filter: { type: filterName, keys: [...filterView.properties.keys()] } } : {}),
  };
}

/** The named definition of the items of a `tools/list` page's `tools`. */
function listedTool(model: Model): NamedDefinition | undefined {
  const list = model.methods.requests.find((e) => e.method === "tools/list");
  const listResult = list?.result ? definitionByName(model.definitions, list.result) : undefined;
  const listView = listResult ? viewOf(listResult, model) : undefined;
  const tools = listView?.properties.get("tools");
  const toolsNode = tools ? propertyNode(tools) : undefined;
  return toolsNode?.kind === "array" && toolsNode.items?.kind === "ref" ? model.byId.get(toolsNode.items.target) : undefined;
}

/** The Tool's `execution.taskSupport` (2025-11-25 and the Tasks extension put it there), with the values it allows. */
function taskSupportFlow(model: Model): TaskSupportFlow | undefined {
  const item = listedTool(model);
  if (!item) return undefined;
  const execution = viewOf(item, model)?.properties.get("execution");
  const executionView = execution ? intersectionView(propertyNode(execution), model.byId) : undefined;
  const support = executionView?.properties.get("taskSupport");
  const supportNode = support ? propertyNode(support) : undefined;
  const values = supportNode ? constantValues(supportNode, model.byId) : undefined;
  const type = supportNode?.kind === "ref" ? model.byId.get(supportNode.target)?.name : undefined;
  return values ? { tool: item.name, path: ["execution", "taskSupport"], values, ...(type ? { type } : {}) } : undefined;
}

function flowErrors(model: Model): FlowError[] {
  const codes: readonly number[] = CORE_FLOWS.errorCodes;
  return model.definitions.flatMap((def): FlowError[] => {
    if (def.owner) return [];
    const error = viewOf(def, model)?.properties.get("error");
    const errorView = error ? intersectionView(propertyNode(error), model.byId) : undefined;
    const code = errorView?.properties.get("code");
    const values = code ? constantValues(propertyNode(code), model.byId) : undefined;
    const value = values?.length === 1 ? values[0] : undefined;
    if (typeof value !== "number" || !codes.includes(value)) return [];
    const data = errorView!.properties.get("data");
    const dataView = data ? intersectionView(propertyNode(data), model.byId) : undefined;
    const fields = dataView ? [...dataView.properties.values()] : [];
    const dataType = data ? namedPropertyTarget(data, model.byId)?.name : undefined;
    return [
      {
        code: value,
        type: def.name,
        validate: `validate${def.name}`,
        dataFields: fields.map((f) => f.name),
        requiredDataFields: fields.filter((f) => f.required).map((f) => f.name),
        ...(dataType ? { data: dataType } : {}),
      },
    ];
  });
}
