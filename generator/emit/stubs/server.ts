/**
 * `server.ts` of a Tasks schema set: the schema-dependent layer over the static `server-engine.ts`
 * and `server-core.ts` (and `tasks-extension.ts` where the schema makes tasks an extension),
 * rendered from `templates/server.ts.hbs` with a `ServerView` built from the features the schema
 * implies: the engine's profile as data, the set's types bound to the engine's generic ones, and
 * the factory (ARCHITECTURE.md › Stubs).
 */
import { render, typedTemplate, type StaticModuleName } from "../templates.js";
import { flowChecks } from "../../analyze/protocol/flow-checks.js";
import type { RouteRole, ServerFeatures, SideChannelMethod } from "../../analyze/protocol/server-features.js";

/** One task method, as the profile's `routes` lists it. */
export interface RouteView {
  readonly method: string;
  /** What it does (`get`, `cancel`, `list`, `payload`, `update`): the engine's handler. */
  readonly role: RouteRole;
  /** The params validator (`validateGetTaskRequestParams`). */
  readonly validate: string;
  readonly paramsRequired: boolean;
  /** Validate params without `_meta` (see analyze/protocol/server-features.ts). */
  readonly stripMeta: boolean;
}

/**
 * The data part of the profile (`ServerProfile` in templates/runtime/server/engine.ts), each value
 * as the TypeScript literal the template writes (`undefined` where the revision lacks the feature).
 */
export interface ProfileView {
  readonly taskFields: string;
  readonly inlined: string;
  readonly resultType: string;
  readonly cancelAck: string;
  readonly input: string;
  readonly list: string;
  readonly notification: string;
  readonly sideChannel: string;
  /** The listen request's params validator (from the set's core flows), where it has one and streams task notifications. */
  readonly listen: string;
  /** The set's form check (`validateElicitationContent`), where tasks ask for input and the set has elicitation forms. */
  readonly forms: string;
}

/** The base types each exported interface of server.ts extends, bound to the set's types (`StoredTaskOf<TaskStatus>, ...`). */
export interface BasesView {
  readonly storedTask: string;
  readonly taskStore: string;
  readonly taskHandle: string;
  readonly options: string;
  readonly server: string;
}

/** What `server.ts.hbs` reads: every key is read, and nothing else is (test/runtime/template-views.test.ts). */
export interface ServerView {
  /** The methods, for the module comment. */
  readonly methodList: string;
  /** What the schema implies, one sentence each, for the module comment. */
  readonly notes: readonly string[];
  readonly typeImports: readonly string[];
  readonly validatorImports: readonly string[];
  /** What server.ts imports from server-core.ts and server-engine.ts: exactly what it uses (unused imports fail to compile). */
  readonly coreImports: readonly string[];
  readonly engineImports: readonly string[];
  /** What server.ts re-exports from server-engine.ts. */
  readonly engineExports: readonly string[];
  readonly routes: readonly RouteView[];
  readonly profile: ProfileView;
  readonly bases: BasesView;
  readonly statusType: string;
  readonly taskType: string;
  readonly createResult: string;
  /** tasks/get answers the per-status union (its name), inlining by status. */
  readonly detailed: { readonly union: string; readonly summary: string } | false;
  /** Results carry `resultType` ("task" for a created task, "complete" otherwise): CreateTaskResult is flat. */
  readonly resultType: boolean;
  /** CreateTaskResult declares its own `resultType`: the template adds none to its type. */
  readonly resultTypeModeled: boolean;
  readonly extension: boolean;
  readonly list: boolean;
  /** The status notification's type. */
  readonly notification: string | false;
  /** Tasks ask for input on `tasks/result`: the handle's `requireInput` is typed by the profile's side-channel methods. */
  readonly sideChannel: boolean;
  /** Answers to elicitation forms are judged by the form: server.ts imports the set's `validateElicitationContent`. */
  readonly forms: boolean;
}

export const SERVER_TEMPLATE = typedTemplate<ServerView>("server.ts.hbs", {
  methodList: true,
  notes: true,
  typeImports: true,
  validatorImports: true,
  coreImports: true,
  engineImports: true,
  engineExports: true,
  routes: { method: true, role: true, validate: true, paramsRequired: true, stripMeta: true },
  profile: { taskFields: true, inlined: true, resultType: true, cancelAck: true, input: true, list: true, notification: true, sideChannel: true, listen: true, forms: true },
  bases: { storedTask: true, taskStore: true, taskHandle: true, options: true, server: true },
  statusType: true,
  taskType: true,
  createResult: true,
  detailed: { union: true, summary: true },
  resultType: true,
  resultTypeModeled: true,
  extension: true,
  list: true,
  notification: true,
  sideChannel: true,
  forms: true,
});

/** A set's server: the rendered glue and the static modules it imports. */
export interface EmittedServer {
  readonly code: string;
  readonly statics: readonly StaticModuleName[];
}

/**
 * The server module, from the set's server features (analyze/protocol/facts.ts); `hasForms`: the set has
 * elicitation forms, so accepted answers are judged by them.
 */
export function emitServer(features: ServerFeatures, hasForms: boolean): EmittedServer {
  const statics: StaticModuleName[] = ["protocol/constants", "server/core", "server/engine"];
  // Multi round-trip requests (InputRequiredResult) belong to the stateless revision the extension rides on.
  if (features.extension) statics.push("server/tasks-extension", "server/request-state");
  return { code: render(SERVER_TEMPLATE, serverView(features, hasForms)), statics };
}

/** A value as a TypeScript literal: identifier keys unquoted, strings double-quoted, `undefined` for absent. */
function literal(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));
  return `{ ${entries.map(([k, v]) => `${key(k)}: ${literal(v)}`).join(", ")} }`;
}

/** The view of a server; `hasForms`: the set has elicitation forms (and so its elicitation.ts). */
export function serverView(f: ServerFeatures, hasForms = false): ServerView {
  const { list, payload, update } = f.byRole;
  // Where tasks ask for input: the types of a pending request and of an answer, by key.
  const input = update && f.responsesField && f.detailed?.inputRequestsOf ? { requests: f.detailed.inputRequestsOf, responses: `${update.params}["${f.responsesField}"]` } : undefined;
  const typeImports = new Set<string>([f.statusType, f.taskType, f.createResult]);
  if (f.detailed) typeImports.add(f.detailed.union);
  // The types the input part is read from: `InputRequiredTask["inputRequests"]`, `UpdateTaskRequestParams["inputResponses"]`.
  if (input) for (const source of [input.requests, input.responses]) typeImports.add(source.replace(/\[.*$/, ""));
  if (f.notification) typeImports.add(f.notification.type);
  // Answers to forms are judged by the form wherever tasks ask for input (form-answers.ts).
  const forms = hasForms && (input !== undefined || f.sideChannel !== undefined);
  // The listen stream exists only where tasks have a status notification (createTasksServerFor).
  const listen = f.notification ? flowChecks(f.flows).listenParams : undefined;
  const bases = (...types: (string | false | undefined)[]) => types.filter((t): t is string => typeof t === "string").join(", ");

  return {
    methodList: f.routes.map((r) => r.method).join(", "),
    notes: notes(f),
    typeImports: [...typeImports].sort(),
    validatorImports: [...new Set([...f.routes.map((r) => r.validate), ...sideChannelValidators(f.sideChannel), ...(listen ? [listen.validate] : [])])].sort(),
    coreImports: ["InMemoryTaskStoreOf", "type InMemoryTaskStoreOptions", "JSON_RPC_ERROR_CODES", ...(f.extension ? ["type HeaderCheckOf"] : []), ...(list ? ["type TaskPageOf"] : [])],
    engineImports: engineImports(f, input !== undefined),
    engineExports: [
      ...(f.notification ? ["DEFAULT_MAX_LISTEN_DURATION", "DEFAULT_MAX_LISTEN_STREAMS_PER_OWNER", "ListenLimitError"] : []),
      ...(payload ? ["RELATED_TASK_META"] : []),
      "type CreateTaskOptions",
    ],
    routes: f.routes.map((r) => ({
      method: r.method,
      role: r.role,
      validate: r.validate,
      paramsRequired: r.paramsRequired,
      stripMeta: r.stripMeta,
    })),
    profile: {
      taskFields: literal({ ttl: f.ttlField, pollInterval: f.pollField }),
      inlined: literal(f.detailed ? Object.fromEntries(f.detailed.variants.filter((v) => v.field).map((v) => [v.status, v.field])) : undefined),
      resultType: literal(f.resultTag !== "none"),
      cancelAck: literal(f.cancelAck),
      input: literal(input && { responsesField: f.responsesField }),
      list: literal(list && { cursorField: f.cursorField ?? "cursor" }),
      notification: literal(f.notification && { method: f.notification.method, detailed: f.notification.detailed }),
      sideChannel: f.sideChannel ? sideChannelLiteral(f.sideChannel) : "undefined",
      listen: listen ? `{ validate: ${listen.validate} }` : "undefined",
      forms: forms ? "validateElicitationContent" : "undefined",
    },
    bases: {
      storedTask: bases(`StoredTaskOf<${f.statusType}>`, input && `StoredInputOf<${input.requests}, ${input.responses}>`, f.sideChannel && "StoredSideChannelInput"),
      taskStore: bases("TaskStoreFor<StoredTask>", list && "TaskListingOf<StoredTask>"),
      taskHandle: bases("TaskHandleOf<TaskCreatedResult>", input && `InputHandleOf<${input.requests}[string], ${input.responses}[string]>`, f.sideChannel && "SideChannelHandleOf<InputMethods>"),
      options: bases("TasksServerOptionsOf<TaskStore>", list && "PagingOptions", f.extension && "HeaderCheckOptions<TaskMethod>", f.notification && "ListenOptions"),
      server: bases("TasksServerOf<TaskHandle>", f.notification && `StatusSubscriptionOf<${f.notification.type}>`),
    },
    statusType: f.statusType,
    taskType: f.taskType,
    createResult: f.createResult,
    detailed: f.detailed
      ? {
          union: f.detailed.union,
          summary: f.detailed.variants
            .filter((v) => v.field)
            .map((v) => `\`${v.field}\` when ${v.status}`)
            .join(", "),
        }
      : false,
    resultType: f.resultTag !== "none",
    resultTypeModeled: f.resultTag === "modeled",
    extension: f.extension,
    list: list !== undefined,
    notification: f.notification?.type ?? false,
    sideChannel: f.sideChannel !== undefined,
    forms,
  };
}

/** The profile's `sideChannel`: each method's validators, the set's where it defines the types, `anyObject` otherwise. */
function sideChannelLiteral(methods: readonly SideChannelMethod[]): string {
  const validator = (name: string | undefined) => (name ? `validate${name}` : "anyObject");
  const entries = methods.map((m) => `${JSON.stringify(m.method)}: { params: ${validator(m.params)}, result: ${validator(m.result)} }`);
  return `{ methods: { ${entries.join(", ")} } }`;
}

/** What server.ts imports from server-engine.ts: what every set uses, and what its features add. */
function engineImports(f: ServerFeatures, input: boolean): string[] {
  const values = ["createdResult", "createTasksServerFor", "wireTask"];
  const types = ["ServerBindings", "ServerProfile", "StoredTaskOf", "TaskHandleOf", "TasksServerOf", "TasksServerOptionsOf", "TaskStoreFor"];
  if (f.detailed) values.push("detailedTask");
  if (f.notification) {
    values.push("statusNotification");
    types.push("ListenOptions", "StatusListenerOf", "StatusSubscriptionOf");
  }
  if (input) types.push("InputHandleOf", "StoredInputOf");
  if (f.sideChannel) {
    if (f.sideChannel.some((m) => !m.params || !m.result)) values.push("anyObject");
    types.push("SideChannelHandleOf", "SideChannelMethodsOf", "StoredSideChannelInput");
  }
  if (f.byRole.list) types.push("PagingOptions", "TaskListingOf");
  if (f.extension) types.push("HeaderCheckOptions");
  return [...values.sort(), ...types.sort().map((t) => `type ${t}`)];
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
  if (f.sideChannel) out.push("A task asks for input with `handle.requireInput(key, { method, params })` (" + f.sideChannel.map((m) => `\`${m.method}\``).join(", ") + "): it shows `input_required`, `tasks/result` sends the request to the client with the related-task `_meta`, and the answer resolves the promise.");
  if (cancel) {
    out.push(
      f.cancelAck
        ? "`tasks/cancel` answers an empty acknowledgement, for a finished task too."
        : "`tasks/cancel` answers the cancelled task; cancelling a finished task is an error (-32602).",
    );
  }
  out.push(
    f.flatCreate
      ? `${f.createResult} is flat (the task's own fields), so results carry \`resultType\`: "task" for a created task, "complete" otherwise${f.resultTag === "modeled" ? " (the schema's own constants); the server always sends it" : ""}.`
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

/** The set's validators the side-channel profile names. */
function sideChannelValidators(methods: readonly SideChannelMethod[] | undefined): string[] {
  return (methods ?? []).flatMap((m) => (m.params && m.result ? [`validate${m.params}`, `validate${m.result}`] : []));
}
