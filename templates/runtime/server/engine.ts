/**
 * The generated Tasks server itself, copied unchanged into every set that has one (as
 * `server-engine.ts`): the method handlers (tasks/get, cancel, update, list, result), the wire
 * shapes of a task, the handles tool code gets, and status notifications, over the machinery of
 * `server-core.ts`. What differs between revisions is data, a `ServerProfile` the set's `server.ts`
 * declares from its schema (which methods, field names, what tasks/get inlines, whether results
 * carry `resultType`, ...), with the set's validators and status machine passed in; the types are
 * the set's through generics (`StoredTask`), so its `server.ts` is declarations and thin glue.
 */
import {
  isObject,
  ownValue,
  pointerToken,
  type JsonObject,
  type ValidationError,
  type ValidationResult,
} from "../protocol/json.js";
import { answeredRequest, checkFormAnswer, locatedFormCheck, type FormContentCheck } from "../protocol/form-answers.js";
import {
  grantedTtl,
  hasTaskEvents,
  hasTaskLeases,
  InMemoryTaskStoreOf,
  isJsonRpcErrorObject,
  newInstanceId,
  JSON_RPC_ERROR_CODES,
  JsonRpcError,
  methodNotFound,
  paramsObject,
  positiveInteger,
  requestContext,
  required,
  readEnvelope,
  respond,
  TaskEngine,
  validParams,
  validParamsBut,
  withoutMeta,
  type HeaderCheckOf,
  type JsonRpcErrorObject,
  type JsonRpcResponse,
  type RequestContext,
  type ServerToClientSend,
  type TaskAbortSignal,
  type TaskLease,
  type TaskPageOf,
  type TaskRecord,
  type TaskStoreOf,
  type TransportContext,
} from "./core.js";

// ---------------------------------------------------------------------------------------------
// The profile: what the schema decides

/** What a task method does, whatever the revision calls it. */
export type RouteRole = "get" | "cancel" | "list" | "payload" | "update";

/** A params object a task route accepts: its validator guarantees the task id. */
export type TaskParams = { readonly taskId: string };

/** One task method the server answers. */
export type RouteProfile = TaskRouteProfile | ListRouteProfile;

interface RouteBase {
  readonly method: string;
  /** Whether the schema requires params (otherwise absent params are fine). */
  readonly paramsRequired: boolean;
  /** Validate the params without `_meta`: they are closed and do not declare it, yet every request may carry it. */
  readonly stripMeta: boolean;
}

/** A method on one task: its validator must accept only params with the task id (the compiler holds the set's to it). */
export interface TaskRouteProfile extends RouteBase {
  readonly role: Exclude<RouteRole, "list">;
  readonly validate: (value: unknown) => ValidationResult<TaskParams>;
}

/** tasks/list: its params carry the cursor under the profile's `list.cursorField`. */
export interface ListRouteProfile extends RouteBase {
  readonly role: "list";
  readonly validate: (value: unknown) => ValidationResult<object>;
}

/** The status → field map of what a task shows beyond its own fields (`completed` → `result`). */
export interface InlinedFields {
  readonly input_required?: string;
  readonly completed?: string;
  readonly failed?: string;
}

/** The schema-dependent facts the server runs on: data, declared by the set's `server.ts`. */
export interface ServerProfile {
  /** The methods answered, in the schema's order; any other gets -32601. */
  readonly routes: readonly RouteProfile[];
  /** The wire task's names for its retention and its polling interval (`ttl` or `ttlMs`, ...). */
  readonly taskFields: { readonly ttl: string; readonly pollInterval?: string };
  /** What tasks/get inlines by status; undefined when it answers the plain task. */
  readonly inlined: InlinedFields | undefined;
  /** Results carry `resultType` ("task" for a created task, "complete" otherwise) because a created task's result is flat. */
  readonly resultType: boolean;
  /** tasks/cancel answers an empty acknowledgement, for a finished task too (otherwise the task, and -32602 when finished). */
  readonly cancelAck: boolean;
  /** Tasks ask for input and tasks/update answers it under this params field. */
  readonly input: { readonly responsesField: string } | undefined;
  /** tasks/list pages with this params field as the cursor. */
  readonly list: { readonly cursorField: string } | undefined;
  /** The status notification sent after every change, and whether it carries the detailed task. */
  readonly notification: { readonly method: string; readonly detailed: boolean } | undefined;
  /** Tasks ask for input with requests of their own, delivered on `tasks/result` (see "Input on tasks/result"). */
  readonly sideChannel?: SideChannelProfile | undefined;
  /**
   * The listen request's params, checked by the set's generated validator before a stream opens
   * (an invalid one is -32602 with the validator's errors); absent where the set has no such
   * definition, and then only the task filter is read.
   */
  readonly listen?: { readonly validate: (value: unknown) => ValidationResult<object> } | undefined;
  /**
   * The set's check of an accepted form's content (`validateElicitationContent`), where it has
   * elicitation forms: answers on tasks/update and tasks/result are judged by form-answers.ts
   * (defaults, the envelope by the validators, the content by the form). Absent: by the validators alone.
   */
  readonly forms?: FormContentCheck | undefined;
}

// ---------------------------------------------------------------------------------------------
// Stored tasks

/** A task as the store keeps it: what the wire shows plus what only the server sees. Records are immutable values. */
export interface StoredTaskOf<Status extends string> extends TaskRecord {
  readonly taskId: string;
  /** Who created it; nobody else sees it. */
  readonly owner: string;
  readonly status: Status;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  /** Retention from creation in milliseconds; null keeps the task until the store drops it. */
  readonly ttl: number | null;
  /** Suggested polling interval in milliseconds. */
  readonly pollInterval?: number;
  /** When the store may forget the task (epoch milliseconds); null for never. */
  readonly expiresAt: number | null;
  /** Incremented by every write; compare-and-set compares it. */
  readonly version: number;
  /** The request's result, once completed. */
  readonly result?: JsonObject;
  /** The JSON-RPC error, once failed. */
  readonly error?: JsonRpcErrorObject;
}

/** The input part of a stored task, where tasks ask for input. */
export interface StoredInputOf<Requests, Responses> {
  /** Input requests waiting for an answer, by key. */
  readonly inputRequests: Requests;
  /** Answers received and not yet superseded by the task's end, by key. */
  readonly inputResponses: Responses;
  /** Every input key the task has used: keys are unique for a task's lifetime. */
  readonly inputKeys: readonly string[];
}

/** Any stored task the engine serves. */
type AnyTask = StoredTaskOf<string>;

/** A stored task with its input part (the engine reads it only where the profile has input). */
type InputTask = AnyTask & StoredInputOf<{ readonly [key: string]: unknown }, { readonly [key: string]: unknown }>;

/** The request one input key carries, and its answer, in a set's stored task. */
type InputRequestOf<Task> = Task extends { readonly inputRequests: { readonly [key: string]: infer R } } ? R : never;
type InputResponseOf<Task> = Task extends { readonly inputResponses: { readonly [key: string]: infer R } } ? R : never;

/** Where tasks live, as the server uses them: the engine's reads and writes plus creation. */
export interface TaskStoreFor<Task extends TaskRecord> extends TaskStoreOf<Task> {
  /**
   * Stores a new task under a fresh, unguessable id (version 0), with its worker's first lease
   * where the store keeps leases (TaskLeasesOf; atomically, so a running task is never unleased);
   * rejects with TaskLimitError when full.
   */
  create(task: Omit<Task, "taskId" | "version">, lease?: TaskLease): Promise<Task>;
  /** The owner's task, or undefined when unknown, expired or someone else's. */
  get(owner: string, taskId: string): Promise<Task | undefined>;
  /** Replaces `current` by `next` (whose version is current's + 1) only if the stored version is still current's; says whether it did. */
  compareAndSet(current: Task, next: Task): Promise<boolean>;
}

/** A store that pages through tasks, for revisions with tasks/list. */
export interface TaskListingOf<Task> {
  /** One page of the owner's live tasks, oldest first; undefined when the cursor is not one this store issued. */
  list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPageOf<Task> | undefined>;
}

// ---------------------------------------------------------------------------------------------
// Wire shapes

type TaskFields = ServerProfile["taskFields"];

/** The task as the wire shows it, under the profile's field names. */
export type WireTaskOf<Task extends AnyTask, Fields extends TaskFields> = {
  taskId: string;
  status: Task["status"];
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
} & { [K in Fields["ttl"]]: number | null } & {
  [K in Fields extends { readonly pollInterval: infer P extends string } ? P : never]?: number;
};

/** What a failed task inlines: a JSON-RPC error object, as an object type (an interface would lack an index signature). */
type ErrorObject = { code: number; message: string; data?: unknown };

/** What a variant of the per-status task adds: its result, error or pending input under the profile's field. */
type InlinedOf<Task extends AnyTask, Status, Inlined> = Status extends keyof Inlined
  ? {
      [K in Inlined[Status] & string]: Status extends "completed"
        ? JsonObject
        : Status extends "failed"
          ? ErrorObject
          : { [key: string]: InputRequestOf<Task> };
    }
  : unknown;

/** The task with what its status inlines, as a union by status. */
export type DetailedTaskOf<Task extends AnyTask, Profile extends ServerProfile> = {
  [S in Task["status"]]: WireTaskOf<Task, Profile["taskFields"]> & { status: S } & InlinedOf<
      Task,
      S,
      Profile["inlined"]
    >;
}[Task["status"]];

/** The answer to the request that created a task: flat and tagged, or nesting the task. */
export type CreatedResultOf<Task extends AnyTask, Profile extends ServerProfile> = Profile extends {
  readonly resultType: true;
}
  ? { resultType: "task" } & WireTaskOf<Task, Profile["taskFields"]>
  : { task: WireTaskOf<Task, Profile["taskFields"]> };

/** The status notification of a task under the profile. */
export type StatusNotificationOf<Task extends AnyTask, Profile extends ServerProfile> = Profile extends {
  readonly notification: { readonly method: infer M extends string; readonly detailed: infer D };
}
  ? {
      jsonrpc: "2.0";
      method: M;
      params: D extends true ? DetailedTaskOf<Task, Profile> : WireTaskOf<Task, Profile["taskFields"]>;
    }
  : never;

/** The task as the wire shows it. */
export function wireTask<Task extends AnyTask, Profile extends ServerProfile>(
  profile: Profile,
  task: Task,
): WireTaskOf<Task, Profile["taskFields"]> {
  const { ttl, pollInterval } = profile.taskFields;
  const wire = {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    [ttl]: task.ttl,
    ...(pollInterval === undefined || task.pollInterval === undefined ? {} : { [pollInterval]: task.pollInterval }),
  };
  // Computed keys widen to an index signature; the profile's names are the keys WireTaskOf declares.
  return wire as WireTaskOf<Task, Profile["taskFields"]>;
}

/** The task with what its status inlines (the profile's `inlined`): pending input, result or error. */
export function detailedTask<Task extends AnyTask, Profile extends ServerProfile>(
  profile: Profile,
  task: Task,
): DetailedTaskOf<Task, Profile> {
  const base = wireTask(profile, task);
  const field = profile.inlined?.[task.status as keyof InlinedFields];
  if (field === undefined) return base as DetailedTaskOf<Task, Profile>;
  const value =
    task.status === "completed"
      ? stored(task.result, "result")
      : task.status === "failed"
        ? { ...stored(task.error, "error") }
        : { ...(task as Partial<InputTask>).inputRequests };
  // The status says which variant this is; WireTaskOf plus the inlined field is that variant.
  return { ...base, [field]: value } as DetailedTaskOf<Task, Profile>;
}

/** A stored part the task's status promises; its absence means a corrupt store. */
function stored<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`corrupt task record: no ${what}`);
  return value;
}

/** The answer to the request that created the task. */
export function createdResult<Task extends AnyTask, Profile extends ServerProfile>(
  profile: Profile,
  task: Task,
): CreatedResultOf<Task, Profile> {
  const wire = wireTask(profile, task);
  // Which of the two shapes is the profile's `resultType`, which the conditional type reads too.
  return (profile.resultType ? { resultType: "task", ...wire } : { task: wire }) as CreatedResultOf<Task, Profile>;
}

/** The status notification for a task, as subscribers receive it (the profile must have a notification). */
export function statusNotification<Task extends AnyTask, Profile extends ServerProfile>(
  profile: Profile,
  task: Task,
): StatusNotificationOf<Task, Profile> {
  const notification = profile.notification;
  if (!notification) throw new Error("this schema defines no status notification");
  const params = notification.detailed ? detailedTask(profile, task) : wireTask(profile, task);
  return { jsonrpc: "2.0", method: notification.method, params: { ...params } } as StatusNotificationOf<Task, Profile>;
}

// ---------------------------------------------------------------------------------------------
// Task status subscriptions (`subscriptions/listen`, SEP-2663 § Task Status Notifications)

/** The request that opens a notification stream. */
export const LISTEN_METHOD = "subscriptions/listen";
/** The first message of every subscription. */
export const SUBSCRIPTION_ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
/** The `_meta` key every message of a subscription carries: the listen request's JSON-RPC id. */
export const SUBSCRIPTION_ID_META = "io.modelcontextprotocol/subscriptionId";

/** Where a subscription's messages go: the response stream of its `subscriptions/listen` request. */
export interface ListenSink {
  /** Writes one JSON-RPC message on the stream. */
  send(message: JsonObject): void;
  /** Closes the stream (after the graceful result, when the server ends the subscription). */
  end(): void;
}

/**
 * How `listen` answered: at once (an error, or a request that is not a listen request), or with
 * an open stream. `end` ends it gracefully: the result to the listen request, then the end of the
 * stream (a transport limit, shutdown); a client that goes away ends it silently.
 */
export type ListenOutcome =
  { readonly kind: "answered"; readonly response: JsonRpcResponse } | { readonly kind: "streaming"; end(): void };

/** The task ids a listen request asks about (undefined: none asked); a malformed filter is -32602. */
export function listenTaskIds(params: JsonObject | undefined): readonly string[] | undefined {
  const notifications = params === undefined ? undefined : ownValue(params, "notifications");
  if (!isObject(notifications)) {
    throw new JsonRpcError(JSON_RPC_ERROR_CODES.InvalidParams, "Invalid params: notifications must be an object");
  }
  const taskIds = ownValue(notifications, "taskIds");
  if (taskIds === undefined) return undefined;
  if (!Array.isArray(taskIds) || !taskIds.every((id) => typeof id === "string")) {
    throw new JsonRpcError(
      JSON_RPC_ERROR_CODES.InvalidParams,
      "Invalid params: notifications.taskIds must be an array of strings",
    );
  }
  return taskIds;
}

/** The `_meta` key that ties a message to a task. */
export const RELATED_TASK_META = "io.modelcontextprotocol/related-task";

// ---------------------------------------------------------------------------------------------
// Tasks for tool authors

export interface CreateTaskOptions {
  /** Requested retention in milliseconds (clamped to the server's maximum); null asks for unlimited. Default: the server's. */
  readonly ttl?: number | null;
  readonly statusMessage?: string;
}

/** A running task, for the code doing its work. `Status`: the set's statuses (any string where unbound). */
export interface TaskHandleOf<Created, Status extends string = string> {
  readonly taskId: string;
  /** Aborted when the task is cancelled. */
  readonly signal: TaskAbortSignal;
  /** The answer to the request that created the task. */
  readonly createResult: Created;
  /** Sets the status message (the status stays). */
  update(statusMessage: string): Promise<void>;
  /**
   * Moves the task to a status that is neither final nor `input_required`: `working`, or one the
   * schema adds (a `paused`). The status machine decides (a refused move throws the set's
   * TaskStateError); a status message given replaces the old one. Final statuses are reached
   * through `complete` and `fail` (and cancellation), `input_required` through `requireInput`.
   */
  setStatus(
    status: Exclude<Status, "completed" | "failed" | "cancelled" | "input_required">,
    statusMessage?: string,
  ): Promise<void>;
  /**
   * Completes the task with the request's result. A tool result with `isError: true` completes too.
   * Resolves once the result is stored: while the store fails, the write is retried (the server's
   * `finalWriteRetry`); past that bound it rejects with the store's error, and the task is failed
   * by a sweeper once its lease lapses. A task already finished (cancelled, say) rejects with the
   * set's TaskStateError at once.
   */
  complete(result: JsonObject): Promise<void>;
  /** Fails the task with a JSON-RPC error (only for protocol-level errors); stored like `complete`. */
  fail(error: JsonRpcErrorObject): Promise<void>;
}

/** What a handle adds where tasks ask for input. */
export interface InputHandleOf<Request, Response> {
  /**
   * Asks the client for input: the task shows `input_required` with the request under `key`
   * until a `tasks/update` answers it, and the answer is returned. Keys are unique for the
   * task's lifetime (reusing one throws). Several may be pending at once. The request is stored
   * like `complete` (retried while the store fails), and the wait for the answer outlasts an outage.
   */
  requireInput(key: string, request: Request): Promise<Response>;
  /** The answer to an input request made earlier (also by a previous process, with a durable store). */
  input(key: string): Promise<Response>;
}

/** A task handle under the profile: with the input methods where tasks ask for input. */
export type TaskHandleFor<Task extends AnyTask, Profile extends ServerProfile> = TaskHandleOf<
  CreatedResultOf<Task, Profile>,
  Task["status"]
> &
  (Profile extends { readonly input: object } ? InputHandleOf<InputRequestOf<Task>, InputResponseOf<Task>> : unknown) &
  (Profile extends { readonly sideChannel: object } ? SideChannelHandleOf<SideChannelMethodsOf<Profile>> : unknown);

// ---------------------------------------------------------------------------------------------
// The server

export interface TasksServerOptionsOf<Store> {
  /** Where tasks live. Default: a new InMemoryTaskStore. */
  readonly store?: Store;
  /** Retention of a task whose creator asks for none, in milliseconds. Default one hour. */
  readonly defaultTtl?: number;
  /** Longest retention granted, in milliseconds; null grants unlimited. Default 24 hours. */
  readonly maxTtl?: number | null;
  /** Polling interval suggested to clients, in milliseconds. Default 1000. */
  readonly pollInterval?: number;
  /** Told about every unexpected exception (the client only sees -32603 "Internal error"). */
  readonly onError?: (error: unknown) => void;
  /** The clock, in epoch milliseconds (for tests). */
  readonly now?: () => number;
  /**
   * Where the store keeps worker leases (TaskLeasesOf: every store this package generates): how
   * long the lease of a task this instance runs lasts from its last renewal, in milliseconds.
   * After an instance dies its unfinished tasks fail ("The worker running this task stopped")
   * once their leases lapse. Default 15000.
   */
  readonly leaseDuration?: number;
  /** How often the leases of this instance's running tasks are renewed, in milliseconds (well under `leaseDuration`). Default 5000. */
  readonly leaseRenewInterval?: number;
  /** How often this instance looks for orphaned tasks (lease lapsed) and fails them, in milliseconds; 0 never. Default 5000. */
  readonly orphanSweepInterval?: number;
  /** This instance's name as a lease holder; unique per instance. Default a random UUID. */
  readonly instanceId?: string;
  /**
   * How long a handle's final write (`complete`, `fail`, and `requireInput`'s request) is retried
   * while the store fails, in milliseconds, this instance renewing the task's lease meanwhile; past
   * it the handle's promise rejects and the lease is let go (made to lapse), so that a sweeper
   * fails the task. 0 never retries. Default 600000 (ten minutes).
   */
  readonly finalWriteRetry?: number;
}

/** The error an orphaned task (its worker's lease lapsed) is failed with. */
export const ORPHANED_TASK_ERROR: JsonRpcErrorObject = {
  code: JSON_RPC_ERROR_CODES.InternalError,
  message: "The worker running this task stopped (lease expired)",
};

/** The option of revisions with tasks/list. */
export interface PagingOptions {
  /** Tasks per tasks/list page. Default 50. */
  readonly pageSize?: number;
}

/** The option of revisions whose requests carry routing headers. */
export interface HeaderCheckOptions<Method extends string> {
  /** Checks transport headers against the body, before anything else. Default: checkRoutingHeaders. */
  readonly checkHeaders?: HeaderCheckOf<Method>;
}

/** Receives a status notification and the owner of its task (send it only to that owner's connections). */
export type StatusListenerOf<Notification> = (notification: Notification, owner: string) => void;

export interface TasksServerOf<Handle> {
  /** Answers one JSON-RPC message; never throws. Undefined for notifications, which get no answer. */
  handle(message: unknown, transport?: TransportContext): Promise<JsonRpcResponse | undefined>;
  /** Creates a `working` task for the request's owner. */
  createTask(context: { readonly owner?: string }, options?: CreateTaskOptions): Promise<Handle>;
  /** A handle on an existing, unfinished task (after a restart, with a durable store); undefined when unknown or finished. */
  resumeTask(context: { readonly owner?: string }, taskId: string): Promise<Handle | undefined>;
  /** Ends waiting requests and handles (they fail) and drops listeners. */
  close(): void;
}

/** What a server adds where the schema defines a status notification. */
export interface StatusSubscriptionOf<Notification> {
  /** Calls the listener with a status notification after every change of any task; returns the unsubscribe function. */
  subscribe(listener: StatusListenerOf<Notification>): () => void;
  /**
   * Answers a `subscriptions/listen` request for task status notifications: an error at once, or
   * a subscription whose acknowledgement and notifications go to `sink` until the transport's
   * signal aborts (the client went away), `end` is called, or the server closes (see "Task status
   * subscriptions" below).
   */
  listen(message: unknown, transport: TransportContext, sink: ListenSink): Promise<ListenOutcome>;
}

/** A server under the profile: with `subscribe` where the schema defines a status notification. */
export type TasksServerFor<Task extends AnyTask, Profile extends ServerProfile> = TasksServerOf<
  TaskHandleFor<Task, Profile>
> &
  (Profile extends { readonly notification: object }
    ? StatusSubscriptionOf<StatusNotificationOf<Task, Profile>>
    : unknown);

/** What the set's other modules give the server: its status machine, its state error, and the extension's checks. */
export interface ServerBindings<Task extends AnyTask> {
  /** The set's status machine (`status.ts`). */
  isTerminalStatus(status: Task["status"]): boolean;
  canTransition(from: Task["status"], to: Task["status"]): boolean;
  /** The set's `TaskStateError`, for a change the status machine refuses (`status` undefined: the task is gone). */
  readonly StateError: new (taskId: string, status: Task["status"] | undefined, message: string) => Error;
  /** The header check when the options name none; absent where requests carry no routing headers. */
  readonly checkHeaders?: HeaderCheckOf<string>;
  /** Rejects a request lacking a client capability task methods require (the tasks extension), after params are read. */
  readonly checkCapabilities?: (context: RequestContext) => JsonRpcError | undefined;
}

/** The methods of a profile's routes. */
type MethodOf<Profile extends ServerProfile> = Profile["routes"][number]["method"];

/** The options the server reads: the set's `TasksServerOptions` is these, less what its revision lacks. */
type EngineOptions<Task extends AnyTask, Profile extends ServerProfile> = TasksServerOptionsOf<
  TaskStoreFor<Task> & Partial<TaskListingOf<Task>>
> &
  PagingOptions &
  HeaderCheckOptions<MethodOf<Profile>>;

/** Creates the Tasks server of a set: its profile, its bindings, the user's options. */
export function createTasksServerFor<Task extends AnyTask, Profile extends ServerProfile>(
  profile: Profile,
  bindings: ServerBindings<Task>,
  options: EngineOptions<Task, Profile> = {},
): TasksServerFor<Task, Profile> {
  const server = new Server<Task, Profile>(profile, bindings, options);
  const subscription = profile.notification
    ? {
        subscribe: (listener: StatusListenerOf<unknown>) => server.subscribe(listener),
        listen: (message: unknown, transport: TransportContext, sink: ListenSink) =>
          server.listen(message, transport, sink),
      }
    : {};
  // The members the profile promises (TasksServerFor reads the same profile) and no others.
  return {
    handle: (message: unknown, transport?: TransportContext) => server.handle(message, transport),
    createTask: (context: { readonly owner?: string }, taskOptions?: CreateTaskOptions) =>
      server.createTask(context, taskOptions),
    resumeTask: (context: { readonly owner?: string }, taskId: string) => server.resumeTask(context, taskId),
    close: () => server.close(),
    ...subscription,
  } as unknown as TasksServerFor<Task, Profile>;
}

class Server<Task extends AnyTask, Profile extends ServerProfile> {
  readonly #profile: Profile;
  readonly #bindings: ServerBindings<Task>;
  readonly #store: TaskStoreFor<Task> & Partial<TaskListingOf<Task>>;
  readonly #engine: TaskEngine<Task>;
  readonly #defaultTtl: number;
  readonly #maxTtl: number | null;
  readonly #pollInterval: number;
  readonly #pageSize: number;
  readonly #checkHeaders: HeaderCheckOf<MethodOf<Profile>> | undefined;
  readonly #now: () => number;
  readonly #listeners = new Set<StatusListenerOf<unknown>>();
  /** Open `subscriptions/listen` streams, ended gracefully by `close`; their owner's agreed tasks. */
  readonly #listens = new Set<{ end(): void; readonly owner: string; readonly taskIds: ReadonlySet<string> }>();
  readonly #finalWriteRetry: number;

  constructor(profile: Profile, bindings: ServerBindings<Task>, options: EngineOptions<Task, Profile>) {
    // A route whose role needs a part of the profile the profile lacks is a generator bug: say so now, not at the first request.
    for (const route of profile.routes) {
      if ((route.role === "update" && !profile.input) || (route.role === "list" && !profile.list)) {
        throw new Error(
          `server profile: ${route.method} (${route.role}) needs the profile's ${route.role === "list" ? "list" : "input"}`,
        );
      }
    }
    this.#profile = profile;
    this.#bindings = bindings;
    this.#store = options.store ?? new InMemoryTaskStoreOf<Task>(options.now ? { now: options.now } : {});
    this.#maxTtl = options.maxTtl === undefined ? 24 * 60 * 60 * 1000 : options.maxTtl;
    this.#defaultTtl = positiveInteger(options.defaultTtl, 60 * 60 * 1000);
    this.#pollInterval = positiveInteger(options.pollInterval, 1000);
    this.#pageSize = positiveInteger(options.pageSize, 50);
    this.#checkHeaders = options.checkHeaders ?? bindings.checkHeaders;
    this.#now = options.now ?? Date.now;
    this.#finalWriteRetry = options.finalWriteRetry === 0 ? 0 : positiveInteger(options.finalWriteRetry, 600_000);
    const { isTerminalStatus, canTransition, StateError } = bindings;
    const engineProfile = {
      isTerminalStatus,
      canTransition,
      stateError: (taskId: string, status: Task["status"] | undefined, message: string) =>
        new StateError(taskId, status, message),
      changed: (task: Task) => this.#notify(task),
      watching: () => this.#listeners.size > 0,
      listenedTo: () => this.#listenedTo(),
      orphaned: (task: Task): Task => ({
        ...task,
        status: "failed",
        statusMessage: ORPHANED_TASK_ERROR.message,
        error: ORPHANED_TASK_ERROR,
        ...this.#noInput(),
      }),
    };
    const store = this.#store;
    this.#engine = new TaskEngine(engineProfile, {
      store,
      pollInterval: this.#pollInterval,
      onError: options.onError ?? (() => {}),
      now: this.#now,
      ...(hasTaskEvents(store) ? { events: store } : {}),
      ...(hasTaskLeases<Task>(store)
        ? {
            leases: {
              store,
              holder: options.instanceId ?? newInstanceId(),
              duration: positiveInteger(options.leaseDuration, 15_000),
              renewInterval: positiveInteger(options.leaseRenewInterval, 5_000),
              sweepInterval:
                options.orphanSweepInterval === 0 ? 0 : positiveInteger(options.orphanSweepInterval, 5_000),
            },
          }
        : {}),
    });
  }

  handle(message: unknown, transport: TransportContext = {}): Promise<JsonRpcResponse | undefined> {
    return respond(
      message,
      (method, params) => this.#dispatch(method, params, transport),
      (error) => this.#engine.errorObject(error),
    );
  }

  async #dispatch(method: string, rawParams: unknown, transport: TransportContext): Promise<object> {
    const route = this.#profile.routes.find((r) => r.method === method);
    if (!route) throw methodNotFound(method);
    const context = requestContext(rawParams, transport);
    const headerError = this.#checkHeaders?.(route.method as MethodOf<Profile>, rawParams, context);
    if (headerError) throw JsonRpcError.from(headerError);
    const params = paramsObject(rawParams);
    const capabilityError = this.#bindings.checkCapabilities?.(context);
    if (capabilityError) throw capabilityError;
    if (route.role === "list") {
      const given = route.paramsRequired ? required(params) : params;
      if (given === undefined) return this.#listTasks(undefined, context);
      return this.#listTasks(validParams(route.validate, route.stripMeta ? withoutMeta(given) : given), context);
    }
    // Every other route is on one task: it needs params, for the task id.
    const given = route.stripMeta ? withoutMeta(required(params)) : required(params);
    const responsesField = this.#profile.input?.responsesField;
    switch (route.role) {
      case "get":
        return this.#getTask(validParams(route.validate, given), context);
      case "cancel":
        return this.#cancelTask(validParams(route.validate, given), context);
      case "payload":
        return this.#taskPayload(validParams(route.validate, given), context, transport.sendRequest);
      case "update":
        if (responsesField === undefined)
          throw new Error("unreachable: the constructor checks that update routes have input");
        // The answers' values are validated by #updateTask, for the keys the task awaits.
        return this.#updateTask(
          validParamsBut(responsesField, route.validate, given),
          responsesField,
          route.validate,
          context,
        );
    }
  }

  /** `resultType: "complete"` where results carry it. */
  #complete(): { readonly resultType?: "complete" } {
    return this.#profile.resultType ? { resultType: "complete" } : {};
  }

  /** The input part of a record that ends waiting for input, where tasks ask for input. */
  #noInput(): Partial<StoredInputOf<object, object>> {
    return this.#asksInput() ? { inputRequests: {}, inputResponses: {} } : {};
  }

  /** Whether tasks ask for input (answered by tasks/update, or on tasks/result): their records have the input part. */
  #asksInput(): boolean {
    return this.#profile.input !== undefined || this.#profile.sideChannel !== undefined;
  }

  async #getTask(params: TaskParams, context: RequestContext): Promise<object> {
    const task = await this.#engine.find(context.owner, params.taskId);
    const shown = this.#profile.inlined ? detailedTask(this.#profile, task) : wireTask(this.#profile, task);
    return { ...this.#complete(), ...shown };
  }

  async #cancelTask(params: TaskParams, context: RequestContext): Promise<object> {
    const change = await this.#engine.writeExisting(context.owner, params.taskId, (task) =>
      this.#bindings.isTerminalStatus(task.status)
        ? undefined
        : { ...task, status: "cancelled", statusMessage: "Cancelled by the client.", ...this.#noInput() },
    );
    // Cancelling a task that already finished is acknowledged the same way: the outcome is seen through tasks/get.
    if (this.#profile.cancelAck) return this.#complete();
    if (change.before === change.after) {
      throw new JsonRpcError(
        JSON_RPC_ERROR_CODES.InvalidParams,
        `Cannot cancel a task that is already ${change.before.status}`,
      );
    }
    return { ...this.#complete(), ...wireTask(this.#profile, change.after) };
  }

  async #updateTask(
    params: TaskParams,
    field: string,
    validate: TaskRouteProfile["validate"],
    context: RequestContext,
  ): Promise<object> {
    const responses = ownValue(params, field);
    const given = isObject(responses) ? Object.entries(responses) : [];
    await this.#engine.writeExisting(context.owner, params.taskId, (current) => {
      const task = current as Task & InputTask;
      // Answers to keys that are not pending (unknown, or answered before) are ignored; a partial set is fine.
      const answered = given.filter(([key]) => Object.hasOwn(task.inputRequests, key));
      if (answered.length === 0 || this.#bindings.isTerminalStatus(task.status)) return undefined;
      // The answers this task awaits are judged now (the others are ignored, whatever they hold).
      const judged = validParams(
        (value) =>
          judgedAnswers(validate, value as TaskParams, field, task.inputRequests, answered, this.#profile.forms),
        params,
      );
      const answeredKeys = new Set(answered.map(([key]) => key));
      const pending = Object.fromEntries(Object.entries(task.inputRequests).filter(([key]) => !answeredKeys.has(key)));
      const stillWaiting = Object.keys(pending).length > 0;
      return {
        ...task,
        status: stillWaiting ? task.status : "working",
        inputRequests: pending,
        inputResponses: { ...task.inputResponses, ...judged },
      };
    });
    return this.#complete();
  }

  async #listTasks(params: object | undefined, context: RequestContext): Promise<object> {
    const cursorField = this.#profile.list?.cursorField;
    const list = this.#store.list;
    if (cursorField === undefined) throw new Error("unreachable: the constructor checks that list routes have list");
    if (!list) throw new Error("tasks/list needs a store that lists (TaskStore.list)");
    const cursor = params === undefined ? undefined : ownValue(params as JsonObject, cursorField);
    const page = await list.call(
      this.#store,
      context.owner,
      typeof cursor === "string" ? cursor : undefined,
      this.#pageSize,
    );
    if (!page) throw new JsonRpcError(JSON_RPC_ERROR_CODES.InvalidParams, "Invalid cursor");
    return {
      tasks: page.tasks.map((task) => wireTask(this.#profile, task)),
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
    };
  }

  /** Waits until the task finishes, then answers with its result (or its error); meanwhile delivers its input requests where they come this way. */
  async #taskPayload(
    params: TaskParams,
    context: RequestContext,
    sendRequest: ServerToClientSend | undefined,
  ): Promise<object> {
    const isTerminal = this.#bindings.isTerminalStatus;
    const sideChannel = this.#profile.sideChannel;
    const task =
      sideChannel && sendRequest
        ? await this.#deliverInputUntilTerminal(sideChannel, context, params.taskId, sendRequest)
        : await this.#engine.waitFor(
            context.owner,
            params.taskId,
            (t) => (isTerminal(t.status) ? t : undefined),
            context.signal,
          );
    if (task.status === "failed" && task.error) throw JsonRpcError.from(task.error);
    if (task.status !== "completed" || !task.result)
      throw new JsonRpcError(JSON_RPC_ERROR_CODES.InvalidParams, `The task was ${task.status}; it has no result`);
    const meta = ownValue(task.result, "_meta");
    return { ...task.result, _meta: { ...(isObject(meta) ? meta : {}), [RELATED_TASK_META]: { taskId: task.taskId } } };
  }

  // --- tasks for tool authors ---

  async createTask(context: { readonly owner?: string }, options: CreateTaskOptions = {}): Promise<object> {
    const now = this.#now();
    const ttl = grantedTtl(options.ttl, this.#defaultTtl, this.#maxTtl);
    const fresh = {
      owner: context.owner ?? "",
      status: "working",
      ...(options.statusMessage === undefined ? {} : { statusMessage: options.statusMessage }),
      createdAt: new Date(now).toISOString(),
      lastUpdatedAt: new Date(now).toISOString(),
      ttl,
      pollInterval: this.#pollInterval,
      expiresAt: ttl === null ? null : now + ttl,
      ...(this.#asksInput() ? { ...this.#noInput(), inputKeys: [] } : {}),
    };
    // A new record of the set's StoredTask: "working", and the input part where the profile has input.
    const lease = this.#engine.newLease();
    const record = fresh as unknown as Omit<Task, "taskId" | "version">;
    const task = await (lease ? this.#store.create(record, lease) : this.#store.create(record));
    this.#engine.created(task);
    this.#engine.hold(task.owner, task.taskId);
    return this.#handleFor(task);
  }

  async resumeTask(context: { readonly owner?: string }, taskId: string): Promise<object | undefined> {
    const task = await this.#store.get(context.owner ?? "", taskId);
    if (!task || this.#bindings.isTerminalStatus(task.status)) return undefined;
    // This instance runs it now: its lease is taken (once a previous holder's has lapsed) and renewed.
    this.#engine.hold(task.owner, task.taskId);
    return this.#handleFor(task);
  }

  subscribe(listener: StatusListenerOf<unknown>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    // Shutdown ends every subscription gracefully (subscriptions.mdx, Graceful Closure).
    for (const listen of [...this.#listens]) listen.end();
    this.#listeners.clear();
    this.#engine.close();
  }

  async listen(message: unknown, transport: TransportContext, sink: ListenSink): Promise<ListenOutcome> {
    const envelope = readEnvelope(message);
    // A notification (no id) cannot open a subscription: its messages would carry no subscription id.
    if (envelope.kind === "notification") {
      const error = { code: JSON_RPC_ERROR_CODES.InvalidRequest, message: "Invalid request: listen needs an id" };
      return { kind: "answered", response: { jsonrpc: "2.0", id: null, error } };
    }
    let opened: ListenOutcome | undefined;
    const response = await respond(
      message,
      async (method, rawParams) => {
        if (method !== LISTEN_METHOD || envelope.kind !== "request") throw methodNotFound(method);
        const context = requestContext(rawParams, transport);
        const params = paramsObject(rawParams);
        if (this.#profile.listen) validParams(this.#profile.listen.validate, required(params));
        const taskIds = listenTaskIds(params);
        // Task notifications are the extension's: asking for them without declaring it is -32021.
        if (taskIds !== undefined) {
          const capabilityError = this.#bindings.checkCapabilities?.(context);
          if (capabilityError) throw capabilityError;
        }
        opened = await this.#openListen(envelope.id, context, taskIds, sink);
        return {};
      },
      (error) => this.#engine.errorObject(error),
    );
    // `respond` answers every request (and an invalid message with -32600); only a notification gets nothing.
    return opened ?? { kind: "answered", response: response! };
  }

  /**
   * One subscription: the listener is in place before the acknowledgement is computed, so a change
   * in between is queued rather than lost; the acknowledgement goes first, then the queue, then
   * each change as it happens, for the subscriber's own agreed tasks only.
   */
  async #openListen(
    id: string | number,
    context: RequestContext,
    taskIds: readonly string[] | undefined,
    sink: ListenSink,
  ): Promise<ListenOutcome> {
    const meta = { [SUBSCRIPTION_ID_META]: id };
    const agreed = new Set<string>();
    let queue: JsonObject[] | undefined = [];
    let open = true;
    const deliver = (message: JsonObject) => {
      if (queue) queue.push(message);
      else sink.send(message);
    };
    const unsubscribe = this.subscribe((notification, owner) => {
      const params = (notification as { params: JsonObject }).params;
      const taskId = ownValue(params, "taskId");
      if (!open || owner !== context.owner || typeof taskId !== "string") return;
      // Before the acknowledgement the agreed set is not known yet: queue, filter when flushing.
      if (queue === undefined && !agreed.has(taskId)) return;
      deliver({ ...(notification as JsonObject), params: { ...params, _meta: meta } });
    });
    const stop = () => {
      open = false;
      unsubscribe();
      context.signal?.removeEventListener("abort", stop);
      this.#listens.delete(subscription);
    };
    const subscription = {
      owner: context.owner,
      taskIds: agreed,
      end: () => {
        if (!open) return;
        stop();
        // Graceful closure: the response to the listen request, then the end of the stream.
        sink.send({ jsonrpc: "2.0", id, result: { resultType: "complete", _meta: meta } });
        sink.end();
      },
    };
    // The client closing the stream cancels the subscription: nothing more is written.
    context.signal?.addEventListener("abort", stop, { once: true });
    this.#listens.add(subscription);
    try {
      for (const taskId of taskIds ?? []) {
        if (agreed.has(taskId)) continue;
        // Only the subscriber's own live tasks are agreed to (someone else's looks unknown).
        if (await this.#store.get(context.owner, taskId)) agreed.add(taskId);
      }
    } catch (error) {
      // The store failed: no subscription (the request answers -32603).
      stop();
      throw error;
    }
    if (!open || context.signal?.aborted) {
      stop();
      return { kind: "streaming", end: () => {} };
    }
    sink.send({
      jsonrpc: "2.0",
      method: SUBSCRIPTION_ACKNOWLEDGED,
      params: { _meta: meta, notifications: taskIds === undefined ? {} : { taskIds: [...agreed] } },
    });
    const queued = queue;
    queue = undefined;
    for (const message of queued) {
      const taskId = ownValue(ownValue(message, "params") as JsonObject, "taskId");
      if (typeof taskId === "string" && agreed.has(taskId)) sink.send(message);
    }
    return { kind: "streaming", end: subscription.end };
  }

  /** The tasks of open listen subscriptions, with their owners. */
  *#listenedTo(): Iterable<{ readonly owner: string; readonly taskId: string }> {
    for (const { owner, taskIds } of this.#listens) for (const taskId of taskIds) yield { owner, taskId };
  }

  #handleFor(task: Task): object {
    const { taskId, owner } = task;
    const noInput = this.#noInput();
    const signal = this.#engine.signalFor(taskId);
    // Once a final write gave up (its lease let go), later writes through the handle are tried once.
    let retryFor = this.#finalWriteRetry;
    // Every change goes through the status machine; a refused one throws the set's TaskStateError.
    // The writes the task's outcome hangs on outlast a store outage (see `finalWriteRetry`).
    const change = async (describe: string, next: (task: Task) => Task): Promise<void> => {
      try {
        await this.#engine.changeDurably(owner, taskId, describe, next, retryFor, signal);
      } catch (error) {
        if (this.#engine.isStoreFailure(error)) retryFor = 0;
        throw error;
      }
    };
    const handle: TaskHandleOf<unknown> = {
      taskId,
      signal,
      createResult: createdResult(this.#profile, task),
      // A status message is not worth holding the work for: tried once.
      update: (statusMessage) =>
        this.#engine.change(owner, taskId, "update the status message", (current) => ({ ...current, statusMessage })),
      setStatus: async (status, statusMessage) => {
        if (status === "input_required" || this.#bindings.isTerminalStatus(status))
          throw new TypeError(
            `setStatus: "${status}" is reached through ${status === "input_required" ? "requireInput" : "complete, fail or cancellation"}`,
          );
        await change(`move to ${status}`, (current) => ({
          ...current,
          status,
          ...(statusMessage === undefined ? {} : { statusMessage }),
        }));
      },
      complete: async (result) => {
        if (!isObject(result)) throw new TypeError("complete: the result must be an object");
        await change("complete", (current) => ({ ...current, status: "completed", result, ...noInput }));
      },
      fail: async (error) => {
        if (!isJsonRpcErrorObject(error))
          throw new TypeError("fail: the error must be a JSON-RPC error object { code, message, data? }");
        const { code, message, data } = error;
        await change("fail", (current) => ({
          ...current,
          status: "failed",
          error: data === undefined ? { code, message } : { code, message, data },
          ...noInput,
        }));
      },
    };
    if (this.#profile.sideChannel) return { ...handle, ...this.#sideChannelHandle(owner, taskId, change) };
    return this.#profile.input ? { ...handle, ...this.#inputHandle(owner, taskId, change) } : handle;
  }

  /** requireInput and input of a handle, where tasks ask for input. */
  #inputHandle(
    owner: string,
    taskId: string,
    change: (describe: string, next: (task: Task) => Task) => Promise<void>,
  ): InputHandleOf<unknown, unknown> {
    const { isTerminalStatus, StateError } = this.#bindings;
    const input = (key: string): Promise<unknown> =>
      this.#engine
        .waitOut(owner, taskId, (stored) => {
          const current = stored as Task & InputTask;
          if (Object.hasOwn(current.inputResponses, key)) return { answer: current.inputResponses[key] };
          if (isTerminalStatus(current.status))
            throw new StateError(
              taskId,
              current.status,
              `No answer for input "${key}": the task is already ${current.status}`,
            );
          if (!Object.hasOwn(current.inputRequests, key)) throw new Error(`The task never asked for input "${key}"`);
          return undefined;
        })
        .then((found) => found.answer);
    const requireInput = async (key: string, request: unknown): Promise<unknown> => {
      await change(`ask for input "${key}"`, (stored) => {
        const current = stored as Task & InputTask;
        if (current.inputKeys.includes(key))
          throw new Error(`Input key "${key}" was already used by this task; keys are unique for a task's lifetime`);
        return {
          ...current,
          status: "input_required",
          inputRequests: { ...current.inputRequests, ...Object.fromEntries([[key, request]]) },
          inputKeys: [...current.inputKeys, key],
        };
      });
      return input(key);
    };
    return { requireInput, input };
  }

  // --- input on tasks/result (see "Input on tasks/result" below) ---

  /** Input requests being sent to a client by this process, by task id: each is sent once at a time. */
  readonly #delivering = new Map<string, { readonly keys: Set<string>; loops: number }>();

  /**
   * Serves one `tasks/result` of a task that asks for input on it: every pending request not already
   * on its way is sent to the client, each answer recorded as it comes, until the task is finished.
   */
  async #deliverInputUntilTerminal(
    sideChannel: SideChannelProfile,
    context: RequestContext,
    taskId: string,
    sendRequest: ServerToClientSend,
  ): Promise<Task> {
    const isTerminal = this.#bindings.isTerminalStatus;
    const state = this.#delivering.get(taskId) ?? { keys: new Set<string>(), loops: 0 };
    this.#delivering.set(taskId, state);
    state.loops++;
    const delivering = state.keys;
    try {
      for (;;) {
        const found = await this.#engine.waitFor(
          context.owner,
          taskId,
          (t) => {
            const fresh = Object.keys((t as Task & InputTask).inputRequests ?? {}).filter((k) => !delivering.has(k));
            return isTerminal(t.status) || fresh.length > 0 ? { task: t, fresh } : undefined;
          },
          context.signal,
        );
        if (isTerminal(found.task.status)) return found.task;
        for (const key of found.fresh) {
          // Another tasks/result of this task may have taken it since the read.
          if (delivering.has(key)) continue;
          delivering.add(key);
          const request = (found.task as Task & InputTask).inputRequests[key];
          // A request whose delivery failed is pending still: a poll of this loop sends it again.
          void this.#deliver(sideChannel, context, taskId, key, request, sendRequest).finally(() => {
            delivering.delete(key);
            this.#forgetDeliveries(taskId, state);
          });
        }
      }
    } finally {
      state.loops--;
      this.#forgetDeliveries(taskId, state);
    }
  }

  /** Drops a task's delivery state once no tasks/result serves it and nothing is on its way. */
  #forgetDeliveries(taskId: string, state: { readonly keys: Set<string>; readonly loops: number }): void {
    if (state.keys.size === 0 && state.loops === 0 && this.#delivering.get(taskId) === state)
      this.#delivering.delete(taskId);
  }

  /** Sends one input request and records the client's answer (a transport failure records nothing). */
  async #deliver(
    sideChannel: SideChannelProfile,
    context: RequestContext,
    taskId: string,
    key: string,
    request: unknown,
    sendRequest: ServerToClientSend,
  ): Promise<void> {
    let outcome: SideChannelOutcome | undefined;
    try {
      const sent = sideChannelRequest(taskId, request);
      const answer = await sendRequest(sent, context.signal ? { signal: context.signal } : {});
      outcome = sideChannelOutcome(sideChannel, sent.method, answer, sent.params, this.#profile.forms);
    } catch (error) {
      outcome = sideChannelFailure(error);
      if (!outcome) this.#engine.report(error);
    }
    if (!outcome) return;
    const answered = outcome;
    try {
      await this.#engine.write(context.owner, taskId, (current) =>
        this.#bindings.isTerminalStatus(current.status)
          ? undefined
          : (withSideChannelAnswer(current as Task & InputTask & StoredInputErrorsOf, key, answered) as
              Task | undefined),
      );
    } catch (error) {
      this.#engine.report(error);
    }
  }

  /** requireInput and input of a handle, where tasks ask for input on tasks/result. */
  #sideChannelHandle(
    owner: string,
    taskId: string,
    change: (describe: string, next: (task: Task) => Task) => Promise<void>,
  ): SideChannelHandleOf<{ [method: string]: { params: object; result: object } }> {
    const sideChannel = this.#profile.sideChannel!;
    const { isTerminalStatus, StateError } = this.#bindings;
    const input = (key: string): Promise<object> =>
      this.#engine
        .waitOut(owner, taskId, (stored) => {
          const current = stored as Task & InputTask & StoredInputErrorsOf;
          if (Object.hasOwn(current.inputResponses, key)) return { answer: current.inputResponses[key] as object };
          if (current.inputErrors && Object.hasOwn(current.inputErrors, key))
            throw JsonRpcError.from(current.inputErrors[key]!);
          if (isTerminalStatus(current.status))
            throw new StateError(
              taskId,
              current.status,
              `No answer for input "${key}": the task is already ${current.status}`,
            );
          if (!Object.hasOwn(current.inputRequests, key)) throw new Error(`The task never asked for input "${key}"`);
          return undefined;
        })
        .then((found) => found.answer);
    const requireInput = async (
      key: string,
      request: { readonly method: string; readonly params: object },
    ): Promise<object> => {
      const method = isObject(request) ? request.method : undefined;
      if (typeof method !== "string" || !Object.hasOwn(sideChannel.methods, method))
        throw new TypeError(
          `requireInput: the request's method must be one of ${Object.keys(sideChannel.methods).join(", ")}`,
        );
      const checked = sideChannel.methods[method]!.params(request.params);
      if (!checked.ok)
        throw new TypeError(
          `requireInput: invalid ${method} params: ${checked.errors.map((e) => `${e.path || "/"} ${e.message}`).join("; ")}`,
        );
      await change(`ask for input "${key}"`, (stored) => {
        const current = stored as Task & InputTask;
        if (current.inputKeys.includes(key))
          throw new Error(`Input key "${key}" was already used by this task; keys are unique for a task's lifetime`);
        return {
          ...current,
          status: "input_required",
          inputRequests: { ...current.inputRequests, [key]: { method, params: request.params } },
          inputKeys: [...current.inputKeys, key],
        };
      });
      return input(key);
    };
    return { requireInput, input } as SideChannelHandleOf<{ [method: string]: { params: object; result: object } }>;
  }

  #notify(task: Task): void {
    if (!this.#profile.notification || this.#listeners.size === 0) return;
    const notification = statusNotification(this.#profile, task);
    for (const listener of this.#listeners) {
      try {
        listener(notification, task.owner);
      } catch (error) {
        this.#engine.report(error);
      }
    }
  }
}

/**
 * The answers of a tasks/update as the task keeps them, each judged against the request it answers
 * by form-answers.ts (an accepted form: its defaults filled in, the envelope by the params'
 * validator, the content by the form), or every error, located in the params.
 */
function judgedAnswers(
  validate: TaskRouteProfile["validate"],
  params: TaskParams,
  field: string,
  requests: { readonly [key: string]: unknown },
  answered: readonly (readonly [string, unknown])[],
  forms: FormContentCheck | undefined,
): ValidationResult<JsonObject> {
  const kept: JsonObject = {};
  const errors: ValidationError[] = [];
  for (const [key, answer] of answered) {
    const checked = checkFormAnswer(answeredRequest(requests[key]), answer, {
      envelope: (envelope) => {
        const valid = validate({ ...params, [field]: { [key]: envelope } });
        return valid.ok ? undefined : valid.errors;
      },
      form: locatedFormCheck(forms, `/${field}/${pointerToken(key)}/content`),
    });
    if (checked.ok) kept[key] = checked.value;
    else errors.push(...checked.problem);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: kept };
}

// ---------------------------------------------------------------------------------------------
// Input on tasks/result (2025-11-25)
//
// A task of this revision asks for input by sending requests of its own (an elicitation, a
// sampling request) tied to the task with the related-task `_meta`; it shows `input_required`
// meanwhile. The client reads them on `tasks/result`, which it calls on seeing `input_required`:
// the server sends each pending request through the transport's `sendRequest` (on that call's
// response stream), and the client's answer resolves `requireInput`. Pending requests and answers
// are kept in the task record (the input part the newer revisions use), so a `tasks/result` served
// by another process sharing a durable store delivers them too, and a handle resumed after a
// restart reads an answer with `input(key)`.

/** A validator of the set (`validateElicitResult`, ...), or `anyObject` where the set lacks the type. */
export type ObjectValidator<T> = (value: unknown) => ValidationResult<T>;

/** The requests tasks may send on `tasks/result`, by method: validators of their params and of the answers. */
export interface SideChannelProfile {
  readonly methods: {
    readonly [method: string]: {
      readonly params: ObjectValidator<object>;
      readonly result: ObjectValidator<object>;
    };
  };
}

/** Accepts any JSON object: the validator of a request or answer whose type the set does not define. */
export function anyObject(value: unknown): ValidationResult<JsonObject> {
  return isObject(value)
    ? { ok: true, value }
    : { ok: false, errors: [{ path: "", keyword: "type", message: "must be an object", schemaPath: "" }] };
}

/** What a validator accepts. */
type Validated<V> = V extends ObjectValidator<infer T> ? T : never;

/** The side-channel methods of a profile: each method's params and result, from its validators. */
export type SideChannelMethodsOf<Profile extends ServerProfile> = Profile extends {
  readonly sideChannel: { readonly methods: infer M };
}
  ? {
      [K in keyof M & string]: M[K] extends { readonly params: infer P; readonly result: infer R }
        ? { params: Validated<P>; result: Validated<R> }
        : never;
    }
  : never;

/** A request a task sends its client, typed by method. */
export type SideChannelRequestOf<Methods, M extends keyof Methods> = Methods[M] extends { readonly params: infer P }
  ? { readonly method: M; readonly params: P }
  : never;

/** What a handle adds where tasks ask for input on `tasks/result`. */
export interface SideChannelHandleOf<
  Methods extends { readonly [method: string]: { params: object; result: object } },
> {
  /**
   * Asks the client for input: the task shows `input_required`, the request goes to the client on
   * its next `tasks/result` (with the related-task `_meta`), and its answer, checked against the
   * method's result type, is returned. A JSON-RPC error answer rejects with JsonRpcError. Keys are
   * unique for the task's lifetime (reusing one throws); several requests may be pending at once.
   */
  requireInput<M extends keyof Methods & string>(
    key: string,
    request: SideChannelRequestOf<Methods, M>,
  ): Promise<Methods[M]["result"]>;
  /** The answer to an input request made earlier (also by a previous process, with a durable store). */
  input(key: string): Promise<Methods[keyof Methods]["result"]>;
}

/** The input part of a stored task where tasks ask for input on `tasks/result`: the requests as sent, the answers as received. */
export interface StoredSideChannelInput
  extends
    StoredInputOf<
      { readonly [key: string]: { readonly method: string; readonly params: object } },
      { readonly [key: string]: object }
    >,
    StoredInputErrorsOf {}

/** The stored part of a side-channel input request that the client answered with an error. */
export interface StoredInputErrorsOf {
  /** JSON-RPC errors the client answered, by key (an answer is either here or in `inputResponses`). */
  readonly inputErrors?: { readonly [key: string]: JsonRpcErrorObject };
}

/** The answer to record for a delivered request: the client's result, or its error. */
export type SideChannelOutcome =
  { readonly ok: true; readonly result: JsonObject } | { readonly ok: false; readonly error: JsonRpcErrorObject };

/** The record after the answer to `key` arrived: it leaves the pending requests; the task works again once none is left. */
export function withSideChannelAnswer<Task extends InputTask & StoredInputErrorsOf>(
  task: Task,
  key: string,
  outcome: SideChannelOutcome,
): Task | undefined {
  if (!Object.hasOwn(task.inputRequests, key)) return undefined;
  const pending = Object.fromEntries(Object.entries(task.inputRequests).filter(([k]) => k !== key));
  const stillWaiting = Object.keys(pending).length > 0;
  return {
    ...task,
    status: stillWaiting || task.status !== "input_required" ? task.status : "working",
    inputRequests: pending,
    ...(outcome.ok
      ? { inputResponses: { ...task.inputResponses, [key]: outcome.result } }
      : { inputErrors: { ...task.inputErrors, [key]: outcome.error } }),
  };
}

/** The request as the client receives it: its params tied to the task with the related-task `_meta`. */
export function sideChannelRequest(taskId: string, request: unknown): { method: string; params: JsonObject } {
  const method = isObject(request) ? ownValue(request, "method") : undefined;
  const params = isObject(request) ? ownValue(request, "params") : undefined;
  if (typeof method !== "string" || !isObject(params))
    throw new Error("corrupt task record: an input request without method or params");
  const meta = ownValue(params, "_meta");
  return { method, params: { ...params, _meta: { ...(isObject(meta) ? meta : {}), [RELATED_TASK_META]: { taskId } } } };
}

/**
 * What the client answered to a request with these `params`, checked against the method's result
 * validator (an accepted form judged by form-answers.ts with `forms`, the set's form check): an
 * invalid answer is recorded as -32602.
 */
export function sideChannelOutcome(
  profile: SideChannelProfile,
  method: string,
  answer: unknown,
  params?: unknown,
  forms?: FormContentCheck,
): SideChannelOutcome {
  const validate = Object.hasOwn(profile.methods, method) ? profile.methods[method]!.result : anyObject;
  const checked = checkFormAnswer({ method, params }, answer, {
    envelope: (envelope) => {
      const valid = validate(envelope);
      return valid.ok ? undefined : valid.errors;
    },
    form: locatedFormCheck(forms, "/content"),
  });
  if (checked.ok) return { ok: true, result: checked.value as JsonObject };
  const detail = checked.problem.map((e) => `${e.path || "/"}: ${e.message}`).join("; ");
  return {
    ok: false,
    error: {
      code: JSON_RPC_ERROR_CODES.InvalidParams,
      message: `${method}: invalid answer from the client (${detail})`,
    },
  };
}

/**
 * The outcome of a request the client could not answer: its JSON-RPC error answer; undefined for
 * a transport failure (the client went away), after which the request stays pending and the next
 * `tasks/result` delivers it again.
 */
export function sideChannelFailure(error: unknown): SideChannelOutcome | undefined {
  return error instanceof JsonRpcError ? { ok: false, error: error.toJSON() } : undefined;
}
