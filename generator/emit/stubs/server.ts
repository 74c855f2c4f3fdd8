/**
 * `server.ts` of a Tasks schema set: the schema-dependent layer over the static `server-core.ts`
 * (and `tasks-extension.ts` where the schema makes tasks an extension), rendered from
 * `templates/server.ts.hbs` with a `ServerView` built from the features the schema implies.
 */
import type { Model } from "../../analyze/model.js";
import { render, typedTemplate, type StaticModuleName } from "../templates.js";
import { serverFeatures, type RouteRole, type ServerFeatures, type StatusVariant } from "../../analyze/protocol/server-features.js";

/** A task method's types, as the template names them. */
export interface RouteTypesView {
  /** The params type (`GetTaskRequestParams`). */
  readonly params: string;
  /** The result type (`GetTaskResult`). */
  readonly result: string;
}

/** One case of the dispatcher. */
export interface RouteView {
  readonly method: string;
  /** The server's private handler method (`getTask`). */
  readonly handler: string;
  /** The params validator (`validateGetTaskRequestParams`). */
  readonly validate: string;
  readonly paramsRequired: boolean;
  /** Validate params without `_meta` (see analyze/protocol/server-features.ts). */
  readonly stripMeta: boolean;
  /** tasks/update: the answers' values are validated in the handler, for the keys it uses, not up front. */
  readonly deferResponses: boolean;
}

/** What `server.ts.hbs` reads: every key is read, and nothing else is (test/runtime/template-views.test.ts). */
export interface ServerView {
  /** The methods, for the module comment. */
  readonly methodList: string;
  /** What the schema implies, one sentence each, for the module comment. */
  readonly notes: readonly string[];
  readonly typeImports: readonly string[];
  readonly validatorImports: readonly string[];
  readonly routes: readonly RouteView[];
  /** Some route validates its params without `_meta`. */
  readonly stripsMeta: boolean;
  readonly statusType: string;
  readonly taskType: string;
  readonly get: RouteTypesView | false;
  readonly cancel: RouteTypesView | false;
  readonly list: RouteTypesView | false;
  readonly payload: RouteTypesView | false;
  readonly update: RouteTypesView | false;
  /** tasks/get answers the per-status union, inlining by status. */
  readonly detailed: { readonly union: string; readonly variants: readonly { readonly status: string; readonly field: string | false; readonly value: string | false }[] } | false;
  readonly detailedSummary: string;
  readonly ttlField: string;
  readonly pollField: string | false;
  readonly createResult: string;
  /** Results carry `resultType` ("task" for a created task, "complete" otherwise): CreateTaskResult is flat. */
  readonly resultType: boolean;
  readonly cancelAck: boolean;
  readonly extension: boolean;
  readonly responsesField: string | false;
  readonly inputRequestsType: string | false;
  readonly inputResponsesType: string | false;
  readonly cursorField: string | false;
  readonly notification: { readonly type: string; readonly method: string; readonly detailed: boolean } | false;
}

const ROUTE_TYPES = { params: true, result: true } as const;

export const SERVER_TEMPLATE = typedTemplate<ServerView>("server.ts.hbs", {
  methodList: true,
  notes: true,
  typeImports: true,
  validatorImports: true,
  routes: { method: true, handler: true, validate: true, paramsRequired: true, stripMeta: true, deferResponses: true },
  stripsMeta: true,
  statusType: true,
  taskType: true,
  get: ROUTE_TYPES,
  cancel: ROUTE_TYPES,
  list: ROUTE_TYPES,
  payload: ROUTE_TYPES,
  update: ROUTE_TYPES,
  detailed: { union: true, variants: { status: true, field: true, value: true } },
  detailedSummary: true,
  ttlField: true,
  pollField: true,
  createResult: true,
  resultType: true,
  cancelAck: true,
  extension: true,
  responsesField: true,
  inputRequestsType: true,
  inputResponsesType: true,
  cursorField: true,
  notification: { type: true, method: true, detailed: true },
});

/** A set's server: the rendered glue and the static modules it imports. */
export interface EmittedServer {
  readonly code: string;
  readonly statics: readonly StaticModuleName[];
}

/** The handler method of each route in the generated server class. */
const HANDLERS: Record<RouteRole, string> = {
  get: "getTask",
  cancel: "cancelTask",
  list: "listTasks",
  payload: "taskPayload",
  update: "updateTask",
};

/** How the stored task fills what a status variant inlines. */
const INLINED: Record<NonNullable<StatusVariant["source"]>, string> = {
  inputRequests: "{ ...task.inputRequests }",
  result: 'stored(task.result, "result")',
  error: '{ ...stored(task.error, "error") }',
};

/** The server module, or undefined when the set defines no task methods. */
export function emitServer(model: Model): EmittedServer | undefined {
  const features = serverFeatures(model);
  if (!features) return undefined;
  const statics: StaticModuleName[] = features.extension ? ["server-core", "tasks-extension"] : ["server-core"];
  return { code: render(SERVER_TEMPLATE, serverView(features)), statics };
}

const routeTypes = (route: { readonly params: string; readonly result: string } | undefined): RouteTypesView | false =>
  route ? { params: route.params, result: route.result } : false;

export function serverView(f: ServerFeatures): ServerView {
  const { get, cancel, list, payload, update } = f.byRole;
  const typeImports = new Set<string>([f.statusType, f.taskType, f.createResult]);
  for (const route of f.routes) {
    typeImports.add(route.params);
    typeImports.add(route.result);
  }
  if (f.detailed) typeImports.add(f.detailed.union);
  if (update && f.detailed?.inputRequestsOf) typeImports.add(f.detailed.inputRequestsOf.replace(/\[.*$/, ""));
  if (f.notification) typeImports.add(f.notification.type);

  return {
    methodList: f.routes.map((r) => r.method).join(", "),
    notes: notes(f),
    typeImports: [...typeImports].sort(),
    validatorImports: [...new Set(f.routes.map((r) => r.validate))].sort(),
    // tasks/update: answers to keys the task does not await are ignored, content included, so their
    // values are validated in the handler, for the keys it uses (deferResponses), not up front.
    routes: f.routes.map((r) => ({
      method: r.method,
      handler: HANDLERS[r.role],
      validate: r.validate,
      paramsRequired: r.paramsRequired,
      stripMeta: r.stripMeta,
      deferResponses: r.role === "update" && f.responsesField !== undefined,
    })),
    stripsMeta: f.routes.some((r) => r.stripMeta),
    statusType: f.statusType,
    taskType: f.taskType,
    get: routeTypes(get),
    cancel: routeTypes(cancel),
    list: routeTypes(list),
    payload: routeTypes(payload),
    update: routeTypes(update),
    detailed: f.detailed
      ? {
          union: f.detailed.union,
          variants: f.detailed.variants.map((v) => ({
            status: v.status,
            field: v.field ?? false,
            value: v.source ? INLINED[v.source] : false,
          })),
        }
      : false,
    detailedSummary: f.detailed
      ? f.detailed.variants
          .filter((v) => v.field)
          .map((v) => `\`${v.field}\` when ${v.status}`)
          .join(", ")
      : "",
    ttlField: f.ttlField,
    pollField: f.pollField ?? false,
    createResult: f.createResult,
    resultType: f.flatCreate,
    cancelAck: f.cancelAck,
    extension: f.extension,
    responsesField: f.responsesField ?? false,
    inputRequestsType: f.detailed?.inputRequestsOf ?? false,
    inputResponsesType: update && f.responsesField ? `${update.params}["${f.responsesField}"]` : false,
    cursorField: f.cursorField ?? false,
    notification: f.notification ? { type: f.notification.type, method: f.notification.method, detailed: f.notification.detailed } : false,
  };
}

/** The module comment's list of what the schema implies, so a reader sees why the server behaves as it does. */
function notes(f: ServerFeatures): string[] {
  const { cancel, list, payload, update } = f.byRole;
  const out: string[] = [];
  out.push(
    f.detailed
      ? `\`tasks/get\` answers the task with ${f.detailed.variants
          .filter((v) => v.field)
          .map((v) => `\`${v.field}\``)
          .join(", ")} inlined by status (${f.detailed.union}).`
      : `\`tasks/get\` answers the task itself (${f.taskType}).`,
  );
  if (payload) out.push("`tasks/result` waits for the task to finish and answers its result with the related-task `_meta`, or its error.");
  if (list) out.push("`tasks/list` pages through the caller's own tasks with an opaque cursor.");
  if (update) out.push(`\`tasks/update\` delivers answers to pending input requests; unknown or already answered keys are ignored.`);
  if (cancel) {
    out.push(
      f.cancelAck
        ? "`tasks/cancel` answers an empty acknowledgement, for a finished task too."
        : "`tasks/cancel` answers the cancelled task; cancelling a finished task is an error (-32602).",
    );
  }
  out.push(
    f.flatCreate
      ? `${f.createResult} is flat (the task's own fields), so results carry \`resultType\`: "task" for a created task, "complete" otherwise.`
      : `${f.createResult} nests the task under \`task\`.`,
  );
  if (f.extension) {
    out.push("Tasks are an extension the client declares per request in `_meta` client capabilities; without it task methods answer -32021.");
    out.push("Over Streamable HTTP the `Mcp-Name` header must equal `params.taskId` (-32020), checked before any lookup.");
  }
  if (f.notification) {
    out.push(`\`${f.notification.method}\` carries the ${f.notification.detailed ? "detailed task" : "task"} after every change.`);
  }
  return out;
}
