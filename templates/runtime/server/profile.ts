/**
 * What the schema decides of a Tasks server (`ServerProfile`: routes, field names, what tasks/get
 * inlines), the stored and wire shapes of a task, the handles tool code gets, and the server's options
 * and interface. Types and pure shape functions; `engine.ts` runs them.
 */
import { type FormContentCheck } from "../protocol/form-answers.js";
import { type JsonObject, type ValidationResult } from "../protocol/json.js";
import {
  JSON_RPC_ERROR_CODES,
  JsonRpcError,
  type HeaderCheckOf,
  type JsonRpcErrorObject,
  type JsonRpcResponse,
  type RequestContext,
  type TaskAbortSignal,
  type TaskLease,
  type TaskPageOf,
  type TaskRecord,
  type TaskStoreOf,
  type TransportContext,
} from "./core.js";
import { type ListenOutcome, type ListenSink } from "./listen.js";
import { type SideChannelHandleOf, type SideChannelMethodsOf, type SideChannelProfile } from "./side-channel.js";

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
export type AnyTask = StoredTaskOf<string>;

/** A stored task with its input part (the engine reads it only where the profile has input). */
export type InputTask = AnyTask &
  StoredInputOf<{ readonly [key: string]: unknown }, { readonly [key: string]: unknown }>;

/** The request one input key carries, and its answer, in a set's stored task. */
type InputRequestOf<Task> = Task extends {
  readonly inputRequests: { readonly [key: string]: infer R };
}
  ? R
  : never;
type InputResponseOf<Task> = Task extends {
  readonly inputResponses: { readonly [key: string]: infer R };
}
  ? R
  : never;

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
  [S in Task["status"]]: WireTaskOf<Task, Profile["taskFields"]> & {
    status: S;
  } & InlinedOf<Task, S, Profile["inlined"]>;
}[Task["status"]];

/** The answer to the request that created a task: flat and tagged, or nesting the task. */
export type CreatedResultOf<Task extends AnyTask, Profile extends ServerProfile> = Profile extends {
  readonly resultType: true;
}
  ? { resultType: "task" } & WireTaskOf<Task, Profile["taskFields"]>
  : { task: WireTaskOf<Task, Profile["taskFields"]> };

/** The status notification of a task under the profile. */
export type StatusNotificationOf<Task extends AnyTask, Profile extends ServerProfile> = Profile extends {
  readonly notification: {
    readonly method: infer M extends string;
    readonly detailed: infer D;
  };
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
  // Fields added in the wire's order, not spread: the profile's names are the keys WireTaskOf declares.
  return addWireTask({}, profile, task) as WireTaskOf<Task, Profile["taskFields"]>;
}

/** The task with what its status inlines (the profile's `inlined`): pending input, result or error. */
export function detailedTask<Task extends AnyTask, Profile extends ServerProfile>(
  profile: Profile,
  task: Task,
): DetailedTaskOf<Task, Profile> {
  // The status says which variant this is; WireTaskOf plus the inlined field is that variant.
  return addDetailedTask({}, profile, task) as DetailedTaskOf<Task, Profile>;
}

/**
 * Adds the task's wire fields to `wire` (after what it holds, e.g. a result's `resultType`) and
 * returns it: one object built in order, where spreading the parts into one would copy each.
 */
export function addWireTask(
  wire: { [key: string]: unknown },
  profile: ServerProfile,
  task: AnyTask,
): { [key: string]: unknown } {
  const { ttl, pollInterval } = profile.taskFields;
  wire.taskId = task.taskId;
  wire.status = task.status;
  if (task.statusMessage !== undefined) wire.statusMessage = task.statusMessage;
  wire.createdAt = task.createdAt;
  wire.lastUpdatedAt = task.lastUpdatedAt;
  wire[ttl] = task.ttl;
  if (pollInterval !== undefined && task.pollInterval !== undefined) wire[pollInterval] = task.pollInterval;
  return wire;
}

/** `addWireTask`, then the field the task's status inlines (the profile's `inlined`), if any. */
export function addDetailedTask(
  wire: { [key: string]: unknown },
  profile: ServerProfile,
  task: AnyTask,
): { [key: string]: unknown } {
  addWireTask(wire, profile, task);
  const field = profile.inlined?.[task.status as keyof InlinedFields];
  if (field === undefined) return wire;
  wire[field] =
    task.status === "completed"
      ? stored(task.result, "result")
      : task.status === "failed"
        ? { ...stored(task.error, "error") }
        : { ...(task as Partial<InputTask>).inputRequests };
  return wire;
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
  return {
    jsonrpc: "2.0",
    method: notification.method,
    params: { ...params },
  } as StatusNotificationOf<Task, Profile>;
}

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

/** The options of revisions with task status notifications (`subscriptions/listen` streams). */
export interface ListenOptions {
  /**
   * Open `subscriptions/listen` streams one owner may hold on this server instance; one more is
   * answered -32013 (ListenLimitError; HTTP 429) and the client polls instead. Counted per instance
   * (a stream lives on the instance holding its connection). Default 10 (DEFAULT_MAX_LISTEN_STREAMS_PER_OWNER).
   */
  readonly maxListenStreamsPerOwner?: number;
  /**
   * How long a listen stream stays open, in milliseconds: then the server ends it gracefully (the
   * result to the listen request) and the client opens a new one, reading the task again. 0 never.
   * Default 300000 (five minutes, DEFAULT_MAX_LISTEN_DURATION).
   */
  readonly maxListenDuration?: number;
}

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
