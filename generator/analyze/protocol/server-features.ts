/**
 * What the generated Tasks server must do, read from the analyzed model of a schema set: which
 * task methods exist, what their params and results look like, and the revision behaviour those
 * shapes imply. Nothing here looks at the set's name; a new revision of the specification that
 * keeps the shapes needs no change, and one that changes them changes the server with them.
 *
 * Derivations (each from the schema, never from a revision label):
 * - routes: every request of the method table whose method the server implements
 *   (`tasks/get`, `tasks/cancel`, `tasks/list`, `tasks/result`, `tasks/update`); any other method is
 *   answered -32601, so a revision without `tasks/list` or `tasks/result` rejects them.
 * - detailed: `tasks/get`'s result refers to the union with one variant per status, so a task is
 *   shown with its result, error or pending input inlined by status (otherwise the plain task,
 *   and the result is fetched with `tasks/result`).
 * - flatCreate: `CreateTaskResult` carries the task's fields itself instead of a nested `task`.
 *   A flat CreateTaskResult can only be told apart from the request's own result by a tag, so
 *   results carry `resultType` ("task" for a created task, "complete" otherwise).
 * - resultTag: whether results carry the `resultType` tag (a flat CreateTaskResult) and, if so, whether
 *   the schema models it: "none" (nested CreateTaskResult, no tag), "apart" (tagged, and no result
 *   definition declares `resultType`: the stubs add it to the types and the client reads it apart
 *   from the rest), "modeled" (a result definition declares it, the schema's own constants: the
 *   stubs take the tag from the schema's types). One fact, read by server and client alike.
 * - cancelAck: `tasks/cancel`'s result has no task fields, so it is an empty acknowledgement and
 *   cancelling a finished task gets the same acknowledgement; when it returns the task,
 *   cancelling a finished task is an error (-32602).
 * - extension: the schema declares the tasks capability as an extension capability (a definition
 *   named `…ExtensionCapability`). Such a capability is declared by the client per request in
 *   `_meta` (there is no initialize handshake to remember it), so every task method checks it
 *   (-32021 without it), and the Streamable HTTP routing header `Mcp-Name` must match `taskId`.
 * - sideChannel: `tasks/result` exists and `tasks/update` does not, so a task that needs input
 *   sends its own requests (elicitation, sampling) tied to it, and the server delivers them on
 *   `tasks/result`; typed by the set's `ElicitRequestParams`/`ElicitResult` (and sampling's) where
 *   it defines them.
 * - stripMeta: a params object closed with `additionalProperties: false` that does not declare
 *   `_meta` would reject the `_meta` every request may carry; such params are validated without
 *   it (`_meta` itself must be an object).
 */
import { coreFlows, type CoreFlows } from "./core-flows.js";
import { GeneratorError, type SourceLocation } from "../../diagnostics.js";
import type { MethodEntry } from "../methods.js";
import type { Model } from "../model.js";
import type { NamedDefinition } from "../naming.js";
import type { DefinitionId, Node } from "../../ir/nodes.js";
import { buildsOn, definitionByName, intersectionView, objectView, propertyNode, rejectsKey, singleString, type PropertyView } from "../../ir/query.js";
import { TASK_STATUSES } from "../status.js";

/** The task methods the server implements, by their role. */
export const SERVER_METHODS = {
  "tasks/get": "get",
  "tasks/cancel": "cancel",
  "tasks/list": "list",
  "tasks/result": "payload",
  "tasks/update": "update",
} as const;
export type RouteRole = (typeof SERVER_METHODS)[keyof typeof SERVER_METHODS];

export interface Route {
  readonly method: string;
  readonly role: RouteRole;
  /** The params type (`GetTaskRequestParams`). */
  readonly params: string;
  /** Its validator (`validateGetTaskRequestParams`). */
  readonly validate: string;
  readonly paramsRequired: boolean;
  /** Validate params without `_meta` (see the module comment). */
  readonly stripMeta: boolean;
  /** The result type (`GetTaskResult`). */
  readonly result: string;
}

/** One variant of the per-status task union and what it inlines from the stored task. */
export interface StatusVariant {
  readonly status: string;
  /** The property the variant adds to the task (`result`), if any. */
  readonly field?: string;
  /** Which part of the stored task fills it. */
  readonly source?: "result" | "error" | "inputRequests";
}

export interface ServerFeatures {
  readonly routes: readonly Route[];
  readonly byRole: Partial<Record<RouteRole, Route>>;
  readonly statusType: string;
  readonly taskType: string;
  /** The per-status union shown by tasks/get, when tasks/get inlines by status. */
  readonly detailed?: { readonly union: string; readonly variants: readonly StatusVariant[]; readonly inputRequestsOf?: string };
  readonly ttlField: string;
  readonly pollField?: string;
  readonly createResult: string;
  readonly flatCreate: boolean;
  /** Whether results carry a `resultType` tag, and whether the schema models it (see the module comment). */
  readonly resultTag: ResultTag;
  readonly cancelAck: boolean;
  readonly extension: boolean;
  /** For tasks/update: the params property holding the answers (`inputResponses`). */
  readonly responsesField?: string;
  /** For tasks/list: the params property holding the cursor. */
  readonly cursorField?: string;
  readonly notification?: { readonly method: string; readonly type: string; readonly detailed: boolean };
  /**
   * The protocol flows beyond the task methods (tool calls, multi round-trip, the listen stream,
   * discovery, input requests, flow errors), read from the set's core definitions (core-flows.ts):
   * here, so client and server of a set read the same.
   */
  readonly flows: CoreFlows;
  /** Tasks ask for input with requests of their own, delivered on `tasks/result` (see the module comment). */
  readonly sideChannel?: readonly SideChannelMethod[];
}

/** A request a task may send its client on `tasks/result`: the set's definitions of its params and answer, where it has them. */
export interface SideChannelMethod {
  readonly method: string;
  readonly params?: string;
  readonly result?: string;
}

/** The requests a task may send its client (the 2025-11-25 tasks text: elicitation and sampling). */
const SIDE_CHANNEL_METHODS = ["elicitation/create", "sampling/createMessage"] as const;

/**
 * The side-channel methods, typed by the params and result the core flows find for each request
 * (by its method, whatever the definitions are called) where the set has both; otherwise any object.
 */
function sideChannelMethods(flows: CoreFlows): SideChannelMethod[] {
  return SIDE_CHANNEL_METHODS.map((method) => {
    const request = flows.requests[method];
    return request?.params && request.result ? { method, params: request.params, result: request.result.type } : { method };
  });
}

/** Results untagged ("none"), tagged where the schema does not model the tag ("apart"), or tagged by the schema's own constants ("modeled"). */
export type ResultTag = "none" | "apart" | "modeled";

/** A task method: one of the requests the stubs are built from (`tasks/get`, `tasks/cancel`, ...). */
export const isTaskMethod = (method: string): boolean => method.startsWith("tasks/");

/**
 * Why a set gets no client.ts and server.ts, in words, when it defines no task methods (then it
 * quietly gets none, and `lint` says why); undefined when it gets them. A set that defines task
 * methods but lacks a piece the stubs need is a located error naming that piece: never silent.
 */
export function noStubsReason(model: Model): string | undefined {
  const byName = (name: string) => definitionByName(model.definitions, name);
  const taskRequests = model.methods.requests.filter((r) => isTaskMethod(r.method));
  const unsent = taskMessagesWithoutEnvelope(model);
  if (taskRequests.length === 0 && unsent.length === 0) {
    return "the schema defines no task methods (no JSON-RPC request whose `method` is a `tasks/` constant)";
  }
  const [first] = unsent;
  if (first) {
    throw new GeneratorError(
      first.def.loc,
      `\`${first.method}\` is not a JSON-RPC message: ${first.def.name} has no \`${first.missing}\` (expected the JSON-RPC envelope, referenced or inlined, through $ref or allOf)`,
    );
  }
  const get = taskRequests.find((r) => r.method === "tasks/get");
  if (!get) {
    const methods = taskRequests.map((r) => `\`${r.method}\``).join(", ");
    throw new GeneratorError(
      byName(taskRequests[0]!.message)?.loc,
      `the set defines task methods (${methods}) but no \`tasks/get\` request, which the client polls and the server answers: expected a request whose \`method\` is "tasks/get"`,
    );
  }
  const getLoc = byName(get.message)?.loc;
  if (!model.status) {
    const { loc, detail } = missingStatusModel(model);
    throw new GeneratorError(loc ?? getLoc, `\`tasks/get\` has no task status definition: ${detail}`);
  }
  if (!model.status.taskType) {
    throw new GeneratorError(
      byName(model.status.statusType)?.loc ?? getLoc,
      `\`tasks/get\` has no task definition: expected an object whose required \`status\` takes the values of ${model.status.statusType}`,
    );
  }
  return undefined;
}

/**
 * What exactly keeps a set from having a status model: the definition nearest to one (the literal
 * holding the most of the base statuses) and the statuses it lacks, or that there is none at all.
 */
function missingStatusModel(model: Model): { loc?: SourceLocation; detail: string } {
  const expected = `a definition whose values include ${TASK_STATUSES.join(", ")} (a revision may add more)`;
  let nearest: { def: NamedDefinition; lacks: string[]; others: unknown[] } | undefined;
  for (const def of model.definitions) {
    if (def.node.kind !== "literal") continue;
    const values = def.node.values;
    const lacks = TASK_STATUSES.filter((s) => !values.includes(s));
    if (lacks.length === TASK_STATUSES.length) continue;
    if (!nearest || lacks.length < nearest.lacks.length) nearest = { def, lacks, others: values.filter((v) => typeof v !== "string") };
  }
  if (!nearest) return { detail: `expected ${expected}; no definition of the set is such an enum (statuses written only inline, in a task's \`status\`, are not looked for)` };
  const what = nearest.lacks.length > 0 ? `lacks ${nearest.lacks.map((s) => `"${s}"`).join(", ")}` : `holds values that are not strings (${nearest.others.map((v) => JSON.stringify(v)).join(", ")})`;
  return { loc: nearest.def.loc, detail: `${nearest.def.name} is the nearest, but it ${what}; expected ${expected}` };
}

/**
 * Definitions whose `method` is a task method's constant but that lack a property every JSON-RPC
 * request has: a request whose envelope was left out, which the method table cannot count.
 */
function taskMessagesWithoutEnvelope(model: Model): { def: NamedDefinition; method: string; missing: string }[] {
  const known = new Set([...model.methods.requests, ...model.methods.notifications].map((e) => e.message));
  return model.definitions.flatMap((def) => {
    if (def.owner || !def.exported || known.has(def.name)) return [];
    const view = intersectionView(def.node, model.byId);
    const method = view?.properties.get("method");
    const name = method?.required ? singleString(propertyNode(method), model.byId) : undefined;
    if (!view || !name || !isTaskMethod(name)) return [];
    const missing = ["jsonrpc", "id"].find((p) => !view.properties.has(p));
    return missing ? [{ def, method: name, missing }] : [];
  });
}

/** The server's features, or undefined when the set has no task methods to serve (see noStubsReason). */
export function serverFeatures(model: Model): ServerFeatures | undefined {
  return noStubsReason(model) === undefined ? stubServerFeatures(model) : undefined;
}

/** The server's features of a set noStubsReason has passed (it has task methods, a status model and a task). */
export function stubServerFeatures(model: Model): ServerFeatures {
  // noStubsReason has made sure of both.
  const status = model.status!;
  const taskType = status.taskType!;
  const byId = model.byId;
  const definition = (name: string): NamedDefinition => {
    const def = definitionByName(model.definitions, name);
    if (!def) throw new GeneratorError(undefined, `server stub: definition ${name} is missing from the model`);
    return def;
  };
  const properties = (name: string) => propertiesOf(definition(name).node, byId);

  const routes: Route[] = [];
  for (const entry of model.methods.requests) {
    const role = (SERVER_METHODS as Record<string, RouteRole | undefined>)[entry.method];
    if (!role) continue;
    routes.push(route(entry, role, definition, byId));
  }
  const byRole: Partial<Record<RouteRole, Route>> = Object.fromEntries(routes.map((r) => [r.role, r]));

  const taskProperties = properties(taskType);
  const ttlField = taskProperties.find((p) => /^ttl/.test(p.name))?.name;
  if (!ttlField) throw new GeneratorError(definition(taskType).loc, "server stub: the task type has no ttl property");
  const pollField = taskProperties.find((p) => /^pollInterval/.test(p.name))?.name;

  const getResult = definition(byRole.get!.result);
  const union = status.variantUnion;
  const detailed =
    union && buildsOn(getResult.node, definition(union.name).id, byId)
      ? {
          union: union.name,
          variants: union.variants.map((v) => statusVariant(v.status, v.name, taskProperties, definition, byId)),
        }
      : undefined;
  const inputVariant = detailed?.variants.find((v) => v.source === "inputRequests");

  const createResult = definitionByName(model.definitions, "CreateTaskResult");
  if (!createResult) {
    throw new GeneratorError(definition(taskType).loc, "the set has no CreateTaskResult, the result of a request that creates a task: expected a definition of that name beside the task definition");
  }
  const createProperties = propertiesOf(createResult.node, byId).map((p) => p.name);
  const flatCreate = createProperties.includes("taskId");
  if (!flatCreate && !createProperties.includes("task")) {
    throw new GeneratorError(createResult.loc, "server stub: CreateTaskResult has neither the task's fields nor a `task` property");
  }

  const cancel = byRole.cancel;
  const cancelAck = cancel ? !properties(cancel.result).some((p) => p.name === "status") : false;

  const update = byRole.update;
  const responsesField = update
    ? properties(update.params).find((p) => p.name !== "taskId" && p.name !== "_meta")?.name
    : undefined;
  if (update && (!responsesField || !inputVariant)) {
    throw new GeneratorError(definition(update.params).loc, "server stub: tasks/update needs an answers property and an input_required task with pending requests");
  }
  const list = byRole.list;
  const cursorField = list ? properties(list.params).find((p) => p.name === "cursor")?.name : undefined;

  const notificationEntry = model.methods.notifications.find(
    (n) => n.params !== undefined && properties(n.params).some((p) => p.name === "status"),
  );
  const notification = notificationEntry
    ? {
        method: notificationEntry.method,
        type: notificationEntry.message,
        detailed: detailed !== undefined && buildsOn(definition(notificationEntry.params!).node, definition(detailed.union).id, byId),
      }
    : undefined;

  const resultNames = [...routes.map((r) => r.result), createResult.name];
  const modeled = resultNames.some((name) => objectView(definition(name).node, byId, "json-schema")?.properties.has("resultType"));
  const flows = coreFlows(model);
  return {
    routes,
    byRole,
    statusType: status.statusType,
    taskType,
    ...(detailed ? { detailed: { ...detailed, ...(inputVariant ? { inputRequestsOf: inputVariantName(union!, inputVariant) } : {}) } } : {}),
    ttlField,
    ...(pollField ? { pollField } : {}),
    createResult: createResult.name,
    flatCreate,
    resultTag: !flatCreate ? "none" : modeled ? "modeled" : "apart",
    cancelAck,
    extension: model.definitions.some((d) => /ExtensionCapability$/.test(d.name)),
    ...(responsesField ? { responsesField } : {}),
    ...(cursorField ? { cursorField } : {}),
    ...(notification ? { notification } : {}),
    flows,
    ...(byRole.payload && !update ? { sideChannel: sideChannelMethods(flows) } : {}),
  };
}

function route(entry: MethodEntry, role: RouteRole, definition: (name: string) => NamedDefinition, byId: ReadonlyMap<DefinitionId, NamedDefinition>): Route {
  const message = definition(entry.message);
  if (!entry.params) {
    throw new GeneratorError(message.loc, `\`${entry.method}\` has no params definition: expected a \`params\` object schema on ${entry.message} or a "methods" mapping in the config`);
  }
  if (!entry.result) {
    const expected = entry.message.replace(/Request$/, "Result");
    throw new GeneratorError(
      message.loc,
      `\`${entry.method}\` has no result definition: expected ${expected !== entry.message ? `${expected} beside ${entry.message}` : "a result definition"} or a "methods" mapping in the config`,
    );
  }
  const params = definition(entry.params);
  return {
    method: entry.method,
    role,
    params: entry.params,
    validate: `validate${entry.params}`,
    paramsRequired: entry.paramsRequired,
    stripMeta: rejectsKey(params.node, "_meta", byId),
    result: entry.result,
  };
}

/** Which stored part a status variant inlines: the property it adds beyond the task's own. */
function statusVariant(
  status: string,
  name: string,
  taskProperties: readonly PropertyView[],
  definition: (name: string) => NamedDefinition,
  byId: ReadonlyMap<DefinitionId, NamedDefinition>,
): StatusVariant {
  const own = new Set(taskProperties.map((p) => p.name));
  const extra = propertiesOf(definition(name).node, byId).filter((p) => p.required && !own.has(p.name));
  const source = ({ input_required: "inputRequests", completed: "result", failed: "error" } as const)[status as "completed"];
  if (extra.length === 0 && source === undefined) return { status };
  if (extra.length === 1 && source !== undefined) return { status, field: extra[0]!.name, source };
  throw new GeneratorError(
    definition(name).loc,
    `server stub: the ${status} task variant adds ${extra.map((p) => p.name).join(", ") || "nothing"}; ` +
      `expected ${source ? "one property (its " + source + ")" : "none"}`,
  );
}

function inputVariantName(union: { readonly variants: readonly { status: string; name: string }[] }, variant: StatusVariant): string {
  return `${union.variants.find((v) => v.status === variant.status)!.name}["${variant.field!}"]`;
}

/**
 * The properties an object type surely has, through references and intersections (`Result & Task`);
 * of a union, the ones every variant has (`status` of a per-status task union).
 */
function propertiesOf(node: Node, byId: ReadonlyMap<DefinitionId, NamedDefinition>): PropertyView[] {
  const view = objectView(node, byId, "json-schema");
  return view ? [...view.properties.values()].filter((p) => !p.partial) : [];
}
