/**
 * `client.ts` of a Tasks schema set: the schema-dependent layer over the static `runtime/client/engine.ts`
 * (the client itself) and `client-core.ts`, rendered from `templates/client.ts.hbs` with a `ClientView`
 * built from the features its schema implies: the set's types, its `ClientProfile` as data, and a
 * typed method per task method (see ARCHITECTURE.md, "Stubs").
 */
import { GeneratorError } from "../../diagnostics.js";
import type { Model } from "../../analyze/model.js";
import { definitionByName } from "../../ir/query.js";
import { render, typedTemplate, type StaticModuleName } from "../templates.js";
import type { RouteRole, SideChannelMethod } from "../../analyze/protocol/server-features.js";
import { findRequestedSchema } from "../../analyze/protocol/elicitation-form.js";
import { inputRouting } from "../../analyze/protocol/client-input.js";
import { flowChecks, type FlowChecks } from "../../analyze/protocol/flow-checks.js";
import { roundTripFeatures, type RoundTripFeatures } from "../../analyze/protocol/client-round-trips.js";
import { rejectsKey, type BodyCheck, type ClientFeatures, type ClientRoute, type MetaCheck } from "../../analyze/protocol/client-features.js";

/** The client method of each task method, and what its comment says. */
const METHODS: Record<RouteRole, { readonly name: string; readonly spec: string; readonly doc: string }> = {
  get: { name: "getTask", spec: "GET_TASK", doc: "the task's current state." },
  payload: { name: "getTaskPayload", spec: "GET_TASK_PAYLOAD", doc: "the result of the request that created the task (the server answers once the task is finished)." },
  cancel: { name: "cancelTask", spec: "CANCEL_TASK", doc: "asks the server to cancel the task." },
  list: { name: "listTasks", spec: "LIST_TASKS", doc: "one page of the caller's tasks; `allTasks` walks every page." },
  update: { name: "updateTask", spec: "UPDATE_TASK", doc: "answers input requests of the task (a partial set is fine; answers to keys not pending are ignored)." },
};

const ROLE_ORDER: readonly RouteRole[] = ["get", "payload", "list", "update", "cancel"];

/** How the client checks a body: its type, its validator, and the check of `_meta` apart (see analyze/protocol/client-features.ts). */
export interface CheckView {
  readonly type: string;
  readonly validate: string;
  readonly meta: string | false;
}

/** A body check the client declares as a constant (the created task, the status notification). */
export interface NamedCheckView extends CheckView {
  readonly name: string;
  readonly doc: string | false;
}

/** One method of the client. */
export interface ClientRouteView {
  readonly method: string;
  /** Its key in the profile's `methods` (`get`). */
  readonly role: RouteRole;
  /** The client's method (`getTask`) and the constant of its MethodSpec (`GET_TASK`). */
  readonly clientMethod: string;
  readonly spec: string;
  readonly doc: string;
  readonly params: string;
  /** What callers pass (the params, with room for `_meta` where the schema closes them without it). */
  readonly paramsType: string;
  readonly validateParams: string;
  readonly paramsRequired: boolean;
  readonly stripMeta: boolean;
  readonly result: CheckView;
}

/** One input handler typed by its request (see analyze/protocol/client-input.ts). */
export interface InputHandlerView {
  readonly method: string;
  readonly params: string;
  readonly result: string;
}

/** Answering input requests, when the task shows them and `tasks/update` carries the answers. */
export interface ClientInputView {
  readonly requestsField: string;
  readonly responsesField: string;
  /** Handlers typed per input method, or untyped (by method name). */
  readonly typed: readonly InputHandlerView[] | false;
  /** The profile's typed routing as an object literal (ClientInput["routing"] in runtime/client/profile.ts), or untyped. */
  readonly routing: string | false;
}

/**
 * What `client.ts.hbs` reads: every key is read, and nothing else is (test/runtime/template-views.test.ts).
 * The template holds only what the schema decides: imports, the API's types bound to the set's,
 * the profile as data, and a typed method per task method over `runtime/client/engine.ts`.
 */
export interface ClientView {
  readonly methodList: string;
  readonly notes: readonly string[];
  /** Some `_meta` is only "an object" (`validateMetaObject`). */
  readonly metaObject: boolean;
  readonly typeImports: readonly string[];
  readonly validatorImports: readonly string[];
  readonly profileImports: readonly string[];
  /** Some declaration names `JsonObject` (the extension's `_meta`, untyped handlers, `createTask`). */
  readonly usesJsonObject: boolean;
  readonly taskType: string;
  /** What `tasks/get` shows: the per-status union, or the task. */
  readonly snapshotType: string;
  readonly completedResultType: string;
  /** The types runtime/client/engine.ts is generic over (ClientTypes), `never`/`undefined` where the set lacks the part. */
  readonly payloadType: string;
  readonly answerType: string;
  readonly handlersType: string;
  readonly augmentType: string;
  /** What TasksClientOptions and WaitForTaskOptions extend in runtime/client/profile.ts. */
  readonly optionsBase: string;
  readonly waitOptionsBase: string;
  /** The task's poll interval field, for the docs. */
  readonly pollField: string;
  readonly routes: readonly ClientRouteView[];
  readonly checks: readonly NamedCheckView[];
  readonly list: { readonly params: string; readonly item: string; readonly fields: string } | false;
  /** The profile's `resultTag` (JSON). */
  readonly resultTag: string;
  readonly extension: boolean;
  /** The task methods (JSON), whose `Mcp-Name` routing header is `params.taskId`. */
  readonly taskMethods: string;
  readonly flatCreate: boolean;
  readonly createResult: { readonly type: string };
  /** The per-status union and the field each status inlines (JSON), when snapshots inline outcomes. */
  readonly detailed: { readonly union: string; readonly inlined: string } | false;
  /** The profile's `fields` (JSON): ttl, poll interval, inlined result and error. */
  readonly fields: string;
  readonly payloadDeliversInput: boolean;
  readonly input: ClientInputView | false;
  /** The method whose accepting answers are checked against their form. */
  readonly formMethod: string | false;
  /** The status notification's method. */
  readonly notification: string | false;
  readonly augment: { readonly field: string; readonly type: string; readonly validate: string } | false;
  readonly taskSupport: { readonly type: string } | false;
  /** The profile's `protocolVersion`: the revision requests declare unless the client is told another. */
  readonly protocolVersion: string | false;
  /** Multi round-trip requests (see analyze/protocol/client-round-trips.ts): field names, the methods (JSON) and the two map checks. */
  readonly roundTrips:
    | {
        readonly resultType: string;
        readonly requestsField: string;
        readonly responsesField: string;
        readonly stateField: string;
        readonly methods: string;
        readonly requests: { readonly type: string; readonly validate: string };
        readonly responses: { readonly type: string; readonly validate: string };
      }
    | false;
  /** What `callTool` reads from `tools/list`: `execution.taskSupport` (its values as a literal, or `false`), and `x-mcp-header` annotations (where requests are routed by headers). */
  readonly tools: { readonly taskSupport: string; readonly paramHeaders: boolean };
  /** The server sends requests of its own (a task's input requests on `tasks/result`), answered by the client's input handlers. */
  readonly serverRequests: ServerRequestsView | false;
  /** The set's Tool (what `tools/list` lists, from the core flows), which `listTools` and `ToolDescription` are; false: the catalog's structural ToolDescription. */
  readonly tool: string | false;
  /** The profile's `flowChecks`: the set's generated checks of the flows' messages it has (analyze/protocol/flow-checks.ts), by the engine's key. */
  readonly flowChecks: readonly { readonly key: string; readonly type: string; readonly validate: string }[] | false;
}

/** The profile's `serverRequests` and the handler types, as the template writes them. */
export interface ServerRequestsView {
  /** Handlers typed by the set's definitions (params and result), or false for handlers over JSON objects. */
  readonly typed: readonly { readonly method: string; readonly params: string; readonly result: string }[] | false;
  readonly routing: string;
  readonly capabilities: string;
  /** The `results` checks (`{ "elicitation/create": { type, validate } }`), or false where the set has no result types. */
  readonly results: string | false;
}

const CHECK = { type: true, validate: true, meta: true } as const;

export const CLIENT_TEMPLATE = typedTemplate<ClientView>("client.ts.hbs", {
  methodList: true,
  notes: true,
  metaObject: true,
  typeImports: true,
  validatorImports: true,
  profileImports: true,
  usesJsonObject: true,
  taskType: true,
  snapshotType: true,
  completedResultType: true,
  payloadType: true,
  answerType: true,
  handlersType: true,
  augmentType: true,
  optionsBase: true,
  waitOptionsBase: true,
  pollField: true,
  routes: {
    method: true,
    role: true,
    clientMethod: true,
    spec: true,
    doc: true,
    params: true,
    paramsType: true,
    validateParams: true,
    paramsRequired: true,
    stripMeta: true,
    result: CHECK,
  },
  checks: { ...CHECK, name: true, doc: true },
  list: { params: true, item: true, fields: true },
  resultTag: true,
  extension: true,
  taskMethods: true,
  flatCreate: true,
  createResult: { type: true },
  detailed: { union: true, inlined: true },
  fields: true,
  payloadDeliversInput: true,
  input: { requestsField: true, responsesField: true, typed: { method: true, params: true, result: true }, routing: true },
  formMethod: true,
  notification: true,
  augment: { field: true, type: true, validate: true },
  taskSupport: { type: true },
  protocolVersion: true,
  serverRequests: { typed: { method: true, params: true, result: true }, routing: true, capabilities: true, results: true },
  roundTrips: {
    resultType: true,
    requestsField: true,
    responsesField: true,
    stateField: true,
    methods: true,
    requests: { type: true, validate: true },
    responses: { type: true, validate: true },
  },
  tools: { taskSupport: true, paramHeaders: true },
  flowChecks: { key: true, type: true, validate: true },
  tool: true,
});

/** A set's client: the rendered glue and the static modules it imports. */
export interface EmittedClient {
  readonly code: string;
  readonly statics: readonly StaticModuleName[];
}

/** The client module, from the set's client features (analyze/protocol/facts.ts). */
export function emitClient(features: ClientFeatures, model: Model): EmittedClient {
  // The extension's identifiers come from protocol/constants, as the server's do.
  const statics: StaticModuleName[] = ["protocol/constants", "client/core", "client/tool-catalog", "client/profile", "client/input-answers", "client/round-trips", "client/engine"];
  return { code: render(CLIENT_TEMPLATE, clientView(features, model)), statics };
}

export function clientView(f: ClientFeatures, model: Model): ClientView {
  const s = f.server;
  const { get, payload, update } = s.byRole;
  if (!get) throw new GeneratorError(undefined, "client stub: the set has no tasks/get");
  const detailed = s.detailed;
  const variantField = (source: "result" | "error" | "inputRequests") => detailed?.variants.find((v) => v.source === source);
  const completed = variantField("result");
  const failed = variantField("error");
  const input = variantField("inputRequests");
  const variantName = (status: string) => model.status?.variantUnion?.variants.find((v) => v.status === status)?.name;
  if (!payload && !completed?.field) {
    throw new GeneratorError(undefined, "client stub: neither tasks/result nor an inlined result tells the client a completed task's result");
  }

  const typeImports = new Set<string>([s.taskType, s.createResult]);
  const validatorImports = new Set<string>();
  const useCheck = (check: BodyCheck) => {
    typeImports.add(check.type);
    validatorImports.add(check.validate);
    if (check.metaApart?.kind === "validator") validatorImports.add(check.metaApart.name);
  };
  for (const route of f.routes) {
    typeImports.add(route.params);
    validatorImports.add(route.validate);
    useCheck(route.resultCheck);
  }
  useCheck(f.createResult);
  if (f.notification) useCheck(f.notification);
  if (detailed) {
    typeImports.add(detailed.union);
    validatorImports.add(`is${detailed.union}`);
  }
  const completedVariant = completed ? variantName(completed.status) : undefined;
  if (completedVariant) typeImports.add(completedVariant);
  const inputVariant = input ? variantName(input.status) : undefined;
  const answering = update && input?.field && s.responsesField && inputVariant ? { requestsField: input.field, responsesField: s.responsesField } : undefined;
  const routing = answering && update && inputVariant ? inputRouting(model, inputVariant, answering.requestsField, update.params, answering.responsesField) : undefined;
  for (const name of routing?.imports ?? []) typeImports.add(name);
  const roundTrips =
    answering && update && inputVariant && routing
      ? roundTripFeatures(model, f.resultTag, { inputVariant, requestsField: answering.requestsField, updateParams: update.params, responsesField: answering.responsesField }, s.flows.inputRequired)
      : undefined;
  if (roundTrips) {
    validatorImports.add(roundTrips.requests.validate);
    validatorImports.add(roundTrips.responses.validate);
  }
  if (f.augment) {
    typeImports.add(f.augment.type);
    validatorImports.add(f.augment.validate);
  }
  if (f.taskSupport) {
    typeImports.add(f.taskSupport.type);
    validatorImports.add(`is${f.taskSupport.type}`);
  }

  // A created task already finished, with its outcome inlined as tasks/get shows it (see inlinesOutcome in runtime/client/task-profile.ts).
  const unionRejectsMeta = detailed ? rejectsKey(definitionNode(model, detailed.union), "_meta", model.byId) : false;
  const checks: NamedCheckView[] = [{ name: "CREATE_TASK_RESULT", doc: false, ...checkData(f.createResult) }];
  if (detailed) {
    const meta = unionRejectsMeta ? metaValidator(f.createResult.metaApart) : false;
    checks.push({
      name: "CREATED_DETAILED_TASK",
      doc: `A created task that already carries what its status inlines in \`tasks/get\`: checked as the ${detailed.union} it is.`,
      ...{ type: detailed.union, validate: `validate${detailed.union}`, meta },
    });
    validatorImports.add(`validate${detailed.union}`);
  }
  if (f.notification) checks.push({ name: "STATUS_NOTIFICATION", doc: false, ...checkData(f.notification) });

  // Methods in a reading order: look at a task, get its result, list, answer, cancel.
  const routes = [...f.routes].sort((a, b) => ROLE_ORDER.indexOf(a.role) - ROLE_ORDER.indexOf(b.role)).map((route) => routeData(route));
  const metaApart = [...f.routes.map((r) => r.resultCheck), f.createResult, ...(f.notification ? [f.notification] : [])].filter((c) => c.metaApart);
  const payloadRoute = routes.find((r) => r.role === "payload");
  const listRoute = routes.find((r) => r.role === "list");
  const typedInput = answering !== undefined && routing !== undefined;
  const serverRequests = answering === undefined && s.sideChannel ? serverRequestsView(s.sideChannel) : undefined;
  if (serverRequests?.typed) for (const h of serverRequests.typed) typeImports.add(h.params).add(h.result);
  if (serverRequests?.results) for (const h of serverRequests.typed || []) validatorImports.add(`validate${h.result}`);
  const sideChannelForms = serverRequests !== undefined && findRequestedSchema(model) !== undefined ? "elicitation/create" : false;
  const formMethod = typedInput ? routing.formMethod : sideChannelForms;
  const handlers = answering !== undefined || serverRequests !== undefined;
  const checksOfFlows = usedFlowChecks(flowChecks(s.flows), { roundTrips: roundTrips !== undefined, listen: s.extension && f.notification !== undefined, extension: s.extension });
  for (const c of checksOfFlows) validatorImports.add(c.validate);
  // Typed as the set's Tool only where its pages are checked as its ListToolsResult.
  const tool = checksOfFlows.some((c) => c.key === "toolsPage") ? s.flows.tool : undefined;
  if (tool) typeImports.add(tool);

  return {
    methodList: f.routes.map((r) => r.method).join(", "),
    notes: [...notes(f), ...roundTripNote(roundTrips), ...toolsNote(f), ...metaApartNote(metaApart.map((c) => c.type))],
    metaObject: [...metaApart.map((c) => metaValidator(c.metaApart)), ...checks.map((c) => c.meta)].includes("validateMetaObject"),
    typeImports: [...typeImports].sort(),
    validatorImports: [...validatorImports].sort(),
    profileImports: profileImports({ answering: handlers, extension: s.extension, roundTrips: roundTrips !== undefined, serverRequests: serverRequests !== undefined }),
    usesJsonObject: s.extension || f.augment !== undefined || (answering !== undefined && !typedInput) || serverRequests !== undefined,
    taskType: s.taskType,
    snapshotType: detailed ? detailed.union : s.taskType,
    completedResultType: completed?.field && completedVariant ? `${completedVariant}["${completed.field}"]` : payload ? payload.result : "never",
    payloadType: payloadRoute ? payloadRoute.result.type : "never",
    answerType: answering && update ? `${update.params}["${answering.responsesField}"][string]` : "never",
    handlersType: handlers ? "InputHandlers" : "undefined",
    augmentType: f.augment ? f.augment.type : "never",
    optionsBase: (s.extension ? "ExtensionClientOptions" : "ClientOptions") + (serverRequests ? ", ServerRequestOptions<InputHandlers, TasksServerOptions>" : ""),
    waitOptionsBase: handlers ? "InputWaitOptions<TaskSnapshot, InputHandlers>" : "WaitOptions<TaskSnapshot>",
    pollField: s.pollField ?? "poll interval",
    routes,
    checks,
    list:
      listRoute && f.listFields
        ? {
            params: listRoute.params,
            item: `${listRoute.result.type}["${f.listFields.items}"][number]`,
            fields: literal({ items: f.listFields.items, ...(f.listFields.nextCursor ? { nextCursor: f.listFields.nextCursor } : {}) }),
          }
        : false,
    resultTag: literal(f.resultTag),
    extension: s.extension,
    taskMethods: literal(f.routes.map((r) => r.method)),
    flatCreate: s.flatCreate,
    createResult: { type: f.createResult.type },
    detailed: detailed
      ? { union: detailed.union, inlined: literal(detailed.variants.flatMap((v) => (v.field ? [{ status: v.status, field: v.field }] : []))) }
      : false,
    fields: literal({
      ttl: s.ttlField,
      ...(s.pollField ? { pollInterval: s.pollField } : {}),
      ...(completed?.field ? { completed: completed.field } : {}),
      ...(failed?.field ? { failed: failed.field } : {}),
    }),
    payloadDeliversInput: Boolean(payload) && !(update && input?.field),
    input: answering
      ? {
          ...answering,
          typed: routing ? routing.handlers.map(({ method, params, result }) => ({ method, params, result })) : false,
          routing: routing ? literal(Object.fromEntries(routing.handlers.map((h) => [h.method, { params: h.passesParams, cancelByDefault: h.cancelByDefault }]))) : false,
        }
      : false,
    formMethod,
    notification: f.notification ? f.notification.method : false,
    augment: f.augment ? { field: f.augment.field, type: f.augment.type, validate: f.augment.validate } : false,
    taskSupport: f.taskSupport ? { type: f.taskSupport.type } : false,
    protocolVersion: f.protocolVersion ?? false,
    roundTrips: roundTrips ? { ...roundTrips, methods: literal(roundTrips.methods) } : false,
    // The values the Tool's declaration allows (core flows); the three the specification names where only the enum is known.
    tools: { taskSupport: f.taskSupport ? literal(s.flows.taskSupport?.values ?? ["forbidden", "optional", "required"]) : "false", paramHeaders: s.extension },
    serverRequests: serverRequests ?? false,
    flowChecks: checksOfFlows.length > 0 ? checksOfFlows : false,
    tool: tool ?? false,
  };
}

/** The flow checks the client's engine reads, given the parts of it the set has (a check of a message it never reads is left out). */
function usedFlowChecks(checks: FlowChecks, parts: { readonly roundTrips: boolean; readonly listen: boolean; readonly extension: boolean }) {
  const used: Record<Exclude<keyof FlowChecks, "listenParams">, boolean> = {
    listenAcknowledged: parts.listen,
    inputRequired: parts.roundTrips,
    toolsPage: true,
    toolResult: true,
    discover: parts.listen,
    unsupportedVersion: parts.extension,
    missingCapability: parts.listen,
  };
  return (Object.keys(used) as (keyof typeof used)[]).flatMap((key) => {
    const check = checks[key];
    return used[key] && check ? [{ key, type: check.type, validate: check.validate }] : [];
  });
}

/** What the capability of each method the client answers is declared as (where a handler answers it). */
const SERVER_REQUEST_CAPABILITIES: { readonly [method: string]: object } = {
  "elicitation/create": { elicitation: { form: {} } },
  "sampling/createMessage": { sampling: {} },
};

/** The server's requests the client answers: the server's side-channel methods, typed where the set defines their params and results. */
function serverRequestsView(methods: readonly SideChannelMethod[]): ServerRequestsView {
  const typed = methods.every((m) => m.params && m.result) ? methods.map((m) => ({ method: m.method, params: m.params!, result: m.result! })) : false;
  return {
    typed,
    routing: literal(Object.fromEntries(methods.map((m) => [m.method, { params: true, cancelByDefault: m.method === "elicitation/create" }]))),
    capabilities: literal(Object.fromEntries(methods.map((m) => [m.method, SERVER_REQUEST_CAPABILITIES[m.method] ?? {}]))),
    results: typed ? `{ ${typed.map((m) => `${JSON.stringify(m.method)}: { type: "${m.result}", validate: validate${m.result} }`).join(", ")} }` : false,
  };
}

/** How a request that asks for input first is answered (see analyze/protocol/client-round-trips.ts). */
function roundTripNote(roundTrips: RoundTripFeatures | undefined): string[] {
  if (!roundTrips) return [];
  return [
    `${roundTrips.methods.map((m) => `\`${m}\``).join(", ")} may answer \`resultType: "${roundTrips.resultType}"\` (${roundTrips.requests.type} and/or \`${roundTrips.stateField}\`): ` +
      `the input handlers answer, and the request is sent again with a new id, \`${roundTrips.responsesField}\` and \`${roundTrips.stateField}\` exactly as it came, until it completes or creates a task.`,
  ];
}

/** What `callTool` reads from `tools/list`. */
function toolsNote(f: ClientFeatures): string[] {
  const reads = [...(f.taskSupport ? ["`execution.taskSupport` (a tool that requires a task is called as one)"] : []), ...(f.server.extension ? ["`x-mcp-header` annotations (mirrored into `Mcp-Param-{Name}` headers; a tool that breaks their rules is left out)"] : [])];
  return reads.length === 0 ? [] : [`\`callTool\` reads each tool's ${reads.join(" and ")} from \`tools/list\`, cached until it is stale or \`notifications/tools/list_changed\`.`];
}

/** Why some bodies have their `_meta` checked apart (see BodyCheck in client-core.ts). */
function metaApartNote(types: readonly string[]): string[] {
  if (types.length === 0) return [];
  return [
    `Results and notifications may carry \`_meta\`, but under JSON Schema's \`allOf\` these reject it: ${types.join(", ")}. ` +
      "The client checks their `_meta` apart, against the `_meta` definition the schema's other branch declares, and the rest with the type's own validator (with `\"allOf\": \"merged\"` the validators accept `_meta` in place; the client works the same).",
  ];
}

/** Data of the profile as an object literal (prettier gives it the house style). */
function literal(value: unknown): string {
  return JSON.stringify(value);
}

/** What client.ts imports from runtime/client/profile.ts (the engine class and `formCheck` it imports by name in the template). */
function profileImports(parts: { readonly answering: boolean; readonly extension: boolean; readonly roundTrips: boolean; readonly serverRequests: boolean }): string[] {
  return [
    "TaskCancelledErrorOf",
    "TaskFailedErrorOf",
    parts.extension ? "type ExtensionClientOptions" : "type ClientOptions",
    "type ClientProfile",
    ...(parts.answering ? ["type InputRequestContext", "type InputWaitOptions"] : ["type WaitOptions"]),
    ...(parts.roundTrips ? ["type RoundTripOptions"] : []),
    ...(parts.serverRequests ? ["type ServerRequestOptions"] : []),
    "type TasksClientCore",
    "type TasksClientRequestOptions",
    "type ToolCallStartOf",
    "type ToolCallWaitOptions",
  ];
}

function definitionNode(model: Model, name: string) {
  const def = definitionByName(model.definitions, name);
  if (!def) throw new GeneratorError(undefined, `client stub: definition ${name} is missing from the model`);
  return def.node;
}

function routeData(route: ClientRoute): ClientRouteView {
  const method = METHODS[route.role];
  return {
    method: route.method,
    role: route.role,
    clientMethod: method.name,
    spec: method.spec,
    doc: method.doc,
    params: route.params,
    paramsType: route.stripMeta ? `WithRequestMeta<${route.params}>` : route.params,
    validateParams: route.validate,
    paramsRequired: route.paramsRequired,
    stripMeta: route.stripMeta,
    result: checkData(route.resultCheck),
  };
}

function checkData(check: BodyCheck): CheckView {
  return { type: check.type, validate: check.validate, meta: metaValidator(check.metaApart) };
}

function metaValidator(meta: MetaCheck | undefined): string | false {
  if (!meta) return false;
  return meta.kind === "validator" ? meta.name : "validateMetaObject";
}

/** The module comment's list of what the schema implies, so a reader sees why the client behaves as it does. */
function notes(f: ClientFeatures): string[] {
  const s = f.server;
  const out: string[] = [];
  out.push(
    s.detailed
      ? `\`tasks/get\` shows ${s.detailed.variants
          .filter((v) => v.field)
          .map((v) => `\`${v.field}\` when ${v.status}`)
          .join(", ")} (${s.detailed.union}), so a finished task's outcome is read from it.`
      : `\`tasks/get\` answers the task itself (${s.taskType}); a finished task's outcome is fetched with \`tasks/result\`.`,
  );
  if (s.byRole.list) out.push("`tasks/list` pages through the caller's tasks by cursor; `allTasks` walks every page.");
  if (s.byRole.update) out.push("`tasks/update` carries answers to the task's input requests; `waitForTask` sends them as handlers produce them.");
  else {
    out.push(
      "`tasks/get` shows no input requests and there is no `tasks/update`: a task that needs input (`input_required`) sends its own requests, " +
        (s.byRole.payload
          ? "delivered through `tasks/result`, which `waitForTask` asks for as soon as it sees `input_required`; the transport's request handlers answer them."
          : "which the transport's request handlers answer; `waitForTask` polls on until the task moves on."),
    );
  }
  if (s.byRole.cancel) {
    out.push(
      s.cancelAck
        ? "`tasks/cancel` answers an empty acknowledgement, for a finished task too: the outcome is seen through `tasks/get`."
        : "`tasks/cancel` answers the cancelled task; cancelling a finished task is an error (-32602).",
    );
  }
  out.push(
    s.flatCreate
      ? `The server alone decides to create a task: a request answers either its own result or a flat ${s.createResult}, told apart by \`resultType\` ("task" or "complete").`
      : f.augment
        ? `A request runs as a task when the client asks (\`params.${f.augment.field}\`: ${f.augment.type}); it then answers ${s.createResult} \`{ task }\`.`
        : `A request that created a task answers ${s.createResult}.`,
  );
  if (f.resultTag === "apart") out.push("The schema does not model `resultType`: the client reads it from each result and validates the rest.");
  if (f.resultTag === "modeled") {
    out.push("The schema models `resultType`: results are validated with it, and one without it (from an older server) is read as \"complete\".");
  }
  if (s.extension) {
    out.push("Tasks are an extension: every request declares it in `params._meta[\"io.modelcontextprotocol/clientCapabilities\"].extensions`.");
    out.push("Over Streamable HTTP, `send` gets the routing headers `Mcp-Method` and `Mcp-Name` (`params.taskId` for task methods, the tool's name for `tools/call`).");
  }
  if (s.notification) {
    out.push(`\`${s.notification.method}\` carries the ${s.notification.detailed ? "detailed task" : "task"}; it wakes \`waitForTask\` before its next poll.`);
  }
  out.push(`Polls honour the task's \`${s.pollField ?? "poll interval"}\` (clamped), and \`createdAt\` + \`${s.ttlField}\` is a backstop.`);
  return out;
}
