/**
 * `client.ts` of a Tasks schema set: the schema-dependent layer over the static `client-core.ts`,
 * rendered from `templates/client.ts.hbs` with a `ClientView` built from the features its schema implies.
 */
import { GeneratorError } from "../../diagnostics.js";
import type { Model } from "../../analyze/model.js";
import { definitionByName } from "../../ir/query.js";
import { render, typedTemplate, type StaticModuleName } from "../templates.js";
import type { RouteRole } from "../../analyze/protocol/server-features.js";
import { inputRouting, type InputRouting } from "../../analyze/protocol/client-input.js";
import { clientFeatures, rejectsKey, type BodyCheck, type ClientFeatures, type ClientRoute, type MetaCheck } from "../../analyze/protocol/client-features.js";

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

/** One method of the client. */
export interface ClientRouteView {
  readonly method: string;
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

/** Answering input requests, when the task shows them and `tasks/update` carries the answers. */
export interface ClientInputView {
  readonly requestsField: string;
  readonly responsesField: string;
  readonly updateParams: string;
  readonly validate: string;
  readonly requestType: string;
  readonly responseType: string;
  /** Handlers typed per input method (see analyze/protocol/client-input.ts), or untyped. */
  readonly typed:
    | {
        readonly handlers: readonly Omit<InputRouting["handlers"][number], "checksForm">[];
        readonly checksForms: boolean;
        readonly formMethod: string | false;
      }
    | false;
}

/** What `client.ts.hbs` reads: every key is read, and nothing else is (test/runtime/template-views.test.ts). */
export interface ClientView {
  readonly methodList: string;
  readonly notes: readonly string[];
  /** Bodies whose `_meta` is checked apart, for the module comment. */
  readonly metaApartTypes: string;
  readonly metaApartNote: boolean;
  /** Some `_meta` is only "an object" (`validateMetaObject`). */
  readonly metaObject: boolean;
  readonly typeImports: readonly string[];
  readonly validatorImports: readonly string[];
  readonly taskType: string;
  /** What `tasks/get` shows: the per-status union, or the task. */
  readonly snapshotType: string;
  readonly routes: readonly ClientRouteView[];
  readonly taskMethods: readonly string[];
  readonly payload: { readonly result: { readonly type: string } } | false;
  readonly cancel: boolean;
  readonly list:
    | { readonly method: string; readonly params: string; readonly result: { readonly type: string }; readonly items: string; readonly nextCursor: string | false }
    | false;
  readonly resultTag: boolean;
  readonly extension: boolean;
  readonly ttlField: string;
  readonly pollField: string | false;
  readonly flatCreate: boolean;
  readonly createResult: CheckView;
  readonly createdDetailed: CheckView | false;
  readonly detailed: { readonly union: string; readonly inlined: readonly { readonly status: string; readonly field: string }[] } | false;
  readonly completedField: string | false;
  readonly completedResultType: string;
  readonly failedField: string | false;
  readonly payloadDeliversInput: boolean;
  readonly input: ClientInputView | false;
  readonly notification: (CheckView & { readonly method: string }) | false;
  readonly augment: { readonly field: string; readonly type: string; readonly validate: string } | false;
  readonly taskSupport: { readonly type: string } | false;
}

const CHECK = { type: true, validate: true, meta: true } as const;

export const CLIENT_TEMPLATE = typedTemplate<ClientView>("client.ts.hbs", {
  methodList: true,
  notes: true,
  metaApartTypes: true,
  metaApartNote: true,
  metaObject: true,
  typeImports: true,
  validatorImports: true,
  taskType: true,
  snapshotType: true,
  routes: {
    method: true,
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
  taskMethods: true,
  payload: { result: { type: true } },
  cancel: true,
  list: { method: true, params: true, result: { type: true }, items: true, nextCursor: true },
  resultTag: true,
  extension: true,
  ttlField: true,
  pollField: true,
  flatCreate: true,
  createResult: CHECK,
  createdDetailed: CHECK,
  detailed: { union: true, inlined: { status: true, field: true } },
  completedField: true,
  completedResultType: true,
  failedField: true,
  payloadDeliversInput: true,
  input: {
    requestsField: true,
    responsesField: true,
    updateParams: true,
    validate: true,
    requestType: true,
    responseType: true,
    typed: { handlers: { method: true, params: true, argument: true, result: true, cancelByDefault: true }, checksForms: true, formMethod: true },
  },
  notification: { ...CHECK, method: true },
  augment: { field: true, type: true, validate: true },
  taskSupport: { type: true },
});

/** A set's client: the rendered glue and the static modules it imports. */
export interface EmittedClient {
  readonly code: string;
  readonly statics: readonly StaticModuleName[];
}

/** The client module, or undefined when the set defines no task methods. */
export function emitClient(model: Model): EmittedClient | undefined {
  const features = clientFeatures(model);
  if (!features) return undefined;
  // The extension's identifiers come from the same module the server reads them from.
  const statics: StaticModuleName[] = ["client-core", "task-wait", ...(features.server.extension ? (["server-core", "tasks-extension"] as const) : [])];
  return { code: render(CLIENT_TEMPLATE, clientView(features, model)), statics };
}

export function clientView(f: ClientFeatures, model: Model): ClientView {
  const s = f.server;
  const { get, payload, update, list } = s.byRole;
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
  const routing =
    update && input?.field && s.responsesField && inputVariant ? inputRouting(model, inputVariant, input.field, update.params, s.responsesField) : undefined;
  // Only handlers typed per method name the input requests' type (`requestType`).
  if (routing && inputVariant) typeImports.add(inputVariant);
  for (const name of routing?.imports ?? []) typeImports.add(name);
  if (f.augment) {
    typeImports.add(f.augment.type);
    validatorImports.add(f.augment.validate);
  }
  if (f.taskSupport) {
    typeImports.add(f.taskSupport.type);
    validatorImports.add(`is${f.taskSupport.type}`);
  }

  // A created task already finished, with its outcome inlined as tasks/get shows it (see the template).
  const unionRejectsMeta = detailed ? rejectsKey(definitionNode(model, detailed.union), "_meta", model.byId) : false;
  const createdDetailed = detailed
    ? { type: detailed.union, validate: `validate${detailed.union}`, meta: unionRejectsMeta ? metaValidator(f.createResult.metaApart) : false }
    : false;
  // Checked apart only when the created result is told apart by its `resultType` tag (see the template).
  if (createdDetailed && f.resultTag) validatorImports.add(createdDetailed.validate);

  // Methods in a reading order: look at a task, get its result, list, answer, cancel.
  const routes = [...f.routes].sort((a, b) => ROLE_ORDER.indexOf(a.role) - ROLE_ORDER.indexOf(b.role)).map((route) => routeData(route));
  const metaApart = [...f.routes.map((r) => r.resultCheck), f.createResult, ...(f.notification ? [f.notification] : [])].filter((c) => c.metaApart);

  return {
    methodList: f.routes.map((r) => r.method).join(", "),
    notes: notes(f),
    metaApartTypes: metaApart.map((c) => c.type).join(", "),
    metaApartNote: metaApart.length > 0,
    metaObject: metaApart.some((c) => c.metaApart?.kind === "object"),
    typeImports: [...typeImports].sort(),
    validatorImports: [...validatorImports].sort(),
    taskType: s.taskType,
    snapshotType: detailed ? detailed.union : s.taskType,
    routes,
    taskMethods: f.routes.map((r) => r.method),
    payload: payload ? { result: { type: routeData(f.routes.find((r) => r.role === "payload")!).result.type } } : false,
    cancel: s.byRole.cancel !== undefined,
    list: list && f.listFields ? listView(routeData(f.routes.find((r) => r.role === "list")!), f.listFields) : false,
    resultTag: f.resultTag,
    extension: s.extension,
    ttlField: s.ttlField,
    pollField: s.pollField ?? false,
    flatCreate: s.flatCreate,
    createResult: checkData(f.createResult),
    createdDetailed,
    detailed: detailed
      ? {
          union: detailed.union,
          inlined: detailed.variants.flatMap((v) => (v.field ? [{ status: v.status, field: v.field }] : [])),
        }
      : false,
    completedField: completed?.field ?? false,
    completedResultType: completed?.field && completedVariant ? `${completedVariant}["${completed.field}"]` : payload ? payload.result : "never",
    failedField: failed?.field ?? false,
    payloadDeliversInput: Boolean(payload) && !(update && input?.field),
    input:
      update && input?.field && s.responsesField && inputVariant
        ? {
            requestsField: input.field,
            responsesField: s.responsesField,
            updateParams: update.params,
            validate: update.validate,
            requestType: `${inputVariant}["${input.field}"][string]`,
            responseType: `${update.params}["${s.responsesField}"][string]`,
            typed: routing
              ? { handlers: routing.handlers.map(({ checksForm: _, ...handler }) => handler), checksForms: routing.checksForms, formMethod: routing.formMethod }
              : false,
          }
        : false,
    notification: f.notification ? { ...checkData(f.notification), method: f.notification.method } : false,
    augment: f.augment ? { field: f.augment.field, type: f.augment.type, validate: f.augment.validate } : false,
    taskSupport: f.taskSupport ? { type: f.taskSupport.type } : false,
  };
}

function definitionNode(model: Model, name: string) {
  const def = definitionByName(model.definitions, name);
  if (!def) throw new GeneratorError(undefined, `client stub: definition ${name} is missing from the model`);
  return def.node;
}

function listView(route: ClientRouteView, fields: NonNullable<ClientFeatures["listFields"]>): ClientView["list"] {
  return { method: route.method, params: route.params, result: { type: route.result.type }, items: fields.items, nextCursor: fields.nextCursor ?? false };
}

function routeData(route: ClientRoute): ClientRouteView {
  const method = METHODS[route.role];
  return {
    method: route.method,
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
  if (f.resultTag) out.push("The schema does not model `resultType`: the client reads it from each result and validates the rest.");
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
