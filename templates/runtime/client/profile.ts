/**
 * What the set's `client.ts` binds the client engine to: its types (`ClientTypes`), its protocol
 * profile (`ClientProfile`, with the round-trip and server-request profiles), and the public API's
 * generic parts (options, the task errors, `TasksClientCore`) that `client.ts` binds to its types.
 */
import type { JsonObject } from "../protocol/json.js";
import type {
  BodyCheck,
  MethodSpec,
  RpcErrorObject,
  TasksClientListen,
  TasksClientOnRequest,
  TasksClientSend,
  TasksClientSignal,
  TasksClientSubscribe,
} from "./core.js";
import type { WaitSnapshot } from "./task-wait.js";
import type { ToolDescription } from "./tool-catalog.js";

// ---------------------------------------------------------------------------------------------
// What the set's client.ts binds

/** The set's types the engine is generic over. */
export interface ClientTypes {
  /** A task as `tasks/get` and notifications show it (the set's `TaskSnapshot`). */
  readonly snapshot: WaitSnapshot;
  /** The task a request created (the set's `Task`). */
  readonly task: { readonly taskId: string };
  /** What a request that created a task answers (`CreateTaskResult`). */
  readonly created: object;
  /** What a completed task produced (the set's `WaitForTaskResult`). */
  readonly result: unknown;
  /** What `tasks/result` answers (`never` without it). */
  readonly payload: unknown;
  /** One answer to an input request as `tasks/update` carries it (`never` without input). */
  readonly answer: unknown;
  /** The caller's input handlers (`undefined` when the client answers no input). */
  readonly handlers: unknown;
  /** What a request carries to run as a task (`never` without task augmentation). */
  readonly augment: unknown;
  /** A tool as `tools/list` lists it (the set's `Tool`; absent: the catalog's ToolDescription). */
  readonly tool?: object;
}

/** The tool type of a client's types: the set's, or the catalog's structural ToolDescription. */
export type ToolOf<T extends ClientTypes> = T["tool"] extends object ? T["tool"] : ToolDescription;

/** The schema-dependent facts of a client: its methods, their validators, field names and revision features. */
export interface ClientProfile<T extends ClientTypes> {
  /** The task methods the schema defines, by role. */
  readonly methods: {
    readonly get: MethodSpec<unknown, T["snapshot"]>;
    readonly payload?: MethodSpec<unknown, T["payload"]>;
    readonly list?: MethodSpec<unknown, unknown>;
    readonly update?: MethodSpec<unknown, unknown>;
    readonly cancel?: MethodSpec<unknown, unknown>;
  };
  /** What a request that created a task answers. */
  readonly created: {
    readonly check: BodyCheck<T["created"]>;
    /** The result is the task itself, rather than `{ task }`. */
    readonly flat: boolean;
    /**
     * Snapshots are a per-status union that inlines a finished task's outcome, and a created task
     * may already carry it: such a result is checked as the snapshot it is.
     */
    readonly detailed?: {
      readonly check: BodyCheck<T["snapshot"]>;
      /** The field each status inlines. */
      readonly inlined: readonly {
        readonly status: string;
        readonly field: string;
      }[];
      isSnapshot(value: unknown): value is T["snapshot"];
    };
  };
  /** The set's status machine (`status.ts`). */
  isTerminalStatus(status: T["snapshot"]["status"]): boolean;
  /**
   * Whether results carry `resultType` ("task" or "complete", and "input_required" where
   * `roundTrips` says so; any other value is an error): "none", no tag; "apart", a tag the
   * schema does not model (split off before validation); "modeled", the schema's own constants
   * (validated with the result; a result without one, from an older server, is "complete", as the
   * specification text says, though the schema requires it).
   */
  readonly resultTag: "none" | "apart" | "modeled";
  /** Field names of a task snapshot. */
  readonly fields: {
    /** The retention, in milliseconds from `createdAt`. */
    readonly ttl: string;
    readonly pollInterval?: string;
    /** Where a completed snapshot inlines its result (absent: `tasks/result` answers it). */
    readonly completed?: string;
    /** Where a failed snapshot inlines its JSON-RPC error (absent: `tasks/result` answers it). */
    readonly failed?: string;
  };
  /** `tasks/list` pages: the field of the tasks and of the next cursor (none: one page). */
  readonly list?: { readonly items: string; readonly nextCursor?: string };
  /** The task status notification. */
  readonly notification?: {
    readonly method: string;
    readonly check: BodyCheck<T["snapshot"]>;
  };
  /** The revision every request declares in `_meta` unless the options name one (the set's own: requests of the stateless revision declare it). */
  readonly protocolVersion?: string;
  /** Tasks are an extension: declared in every request's `_meta`, with Streamable HTTP routing headers. */
  readonly extension?: {
    readonly id: string;
    /** The `_meta` key of the client capabilities. */
    readonly capabilitiesMeta: string;
    /** Methods whose `Mcp-Name` header is `params.taskId`. */
    readonly taskMethods: readonly string[];
  };
  /** A request runs as a task when the client asks, in this params field. */
  readonly augment?: {
    readonly field: string;
    readonly check: BodyCheck<T["augment"]>;
  };
  /** `tasks/result` delivers the task's input requests: a wait asks for it as soon as the task needs input. */
  readonly payloadDeliversInput: boolean;
  /** Tasks show their input requests and `tasks/update` carries the answers. */
  readonly input?: ClientInput;
  /** The server sends the client requests of its own (a task's input requests, on `tasks/result`), answered by the input handlers. */
  readonly serverRequests?: ServerRequestsProfile;
  /** Requests may answer that they need input first, and are retried with it (multi round-trip requests). */
  readonly roundTrips?: RoundTripProfile;
  /** `callTool` looks the tool up in `tools/list` first: for its `execution.taskSupport`, and for its `x-mcp-header` annotations. */
  readonly tools?: {
    /**
     * Tools declare `execution.taskSupport`, with the values the set's schema allows: a call is
     * augmented when the tool requires a task (see `preferTasks`); false: tools declare none.
     */
    readonly taskSupport: false | readonly string[];
    /** Annotated arguments are mirrored into `Mcp-Param-{Name}` headers, and tools whose annotations break the transport's rules are left out. */
    readonly paramHeaders: boolean;
  };
  /**
   * The set's generated checks of the protocol's own messages beside the task methods, each where
   * the set defines it (its core definitions); without one, the engine reads that message
   * structurally, as it always has.
   */
  readonly flowChecks?: FlowChecks;
  /** The set's error classes for a wait's outcome. */
  readonly errors: {
    readonly failed: new (
      task: T["snapshot"],
      error: RpcErrorObject | undefined,
      result?: T["payload"],
      options?: { readonly cause?: unknown },
    ) => Error;
    readonly cancelled: new (task: T["snapshot"]) => Error;
  };
}

/** The generated checks of the protocol's flows (see `ClientProfile.flowChecks`). */
export interface FlowChecks {
  /** The params of a listen stream's acknowledgement (`notifications/subscriptions/acknowledged`). */
  readonly listenAcknowledged?: BodyCheck<unknown>;
  /** A whole InputRequiredResult, before its fields are read. */
  readonly inputRequired?: BodyCheck<unknown>;
  /** One page of `tools/list`, before its tools are read. */
  readonly toolsPage?: BodyCheck<unknown>;
  /** What `tools/call` completes with (`CallToolResult`): `callTool`'s result, at once or as its task's result. */
  readonly toolResult?: BodyCheck<unknown>;
  /** The result of `server/discover`, before its capabilities are read. */
  readonly discover?: BodyCheck<unknown>;
  /** The `data` of a -32022 "unsupported protocol version" error, before a version is picked from it. */
  readonly unsupportedVersion?: BodyCheck<unknown>;
  /** The `data` of a -32021 "missing required client capability" error, before a listen stream is given up for it. */
  readonly missingCapability?: BodyCheck<unknown>;
}

/** How input requests are shown, routed and answered. */
export interface ClientInput {
  /** The snapshot's field of pending input requests, by key. */
  readonly requestsField: string;
  /** The `tasks/update` params field of answers, by key. */
  readonly responsesField: string;
  /** `tasks/update`: answers are checked as part of its params before they are sent. */
  readonly update: MethodSpec<unknown, unknown>;
  /**
   * Handlers typed per method: whether each gets the request's `params`, and whether an unanswered
   * one is cancelled. Absent: handlers by method name, given the params as an object, and only an
   * elicitation answered `{ action: "cancel" }` without one.
   */
  readonly routing?: {
    readonly [method: string]: {
      readonly params: boolean;
      readonly cancelByDefault: boolean;
    };
  };
  /** Accepting answers to one method are checked against the form they answer. */
  readonly forms?: FormCheck;
}

/** Checks an accepting answer against its request's form (see `formCheck`). */
export interface FormCheck {
  readonly method: string;
  /** Why the content does not fit the requested schema, or undefined when it fits. */
  problem(requestedSchema: unknown, content: unknown): Error | undefined;
}

// ---------------------------------------------------------------------------------------------
// The public API's generic parts (the set's client.ts binds them to its types)

/** The task ended `failed`. */
export class TaskFailedErrorOf<Snapshot extends WaitSnapshot, Payload> extends Error {
  override readonly name = "TaskFailedError";
  constructor(
    /** The task as last seen (its terminal snapshot). */
    readonly task: Snapshot,
    /** The JSON-RPC error the request failed with, when the server says which. */
    readonly error: RpcErrorObject | undefined,
    /** What `tasks/result` answered instead of an error, if it answered a result. */
    readonly result?: Payload,
    options?: { readonly cause?: unknown },
  ) {
    super(
      `task ${task.taskId} failed` +
        (error ? `: ${error.message} (${error.code})` : task.statusMessage ? `: ${task.statusMessage}` : ""),
      options,
    );
  }
}

/** The task ended `cancelled`. */
export class TaskCancelledErrorOf<Snapshot extends WaitSnapshot> extends Error {
  override readonly name = "TaskCancelledError";
  constructor(
    /** The task as last seen (its terminal snapshot). */
    readonly task: Snapshot,
  ) {
    super(`task ${task.taskId} was cancelled` + (task.statusMessage ? `: ${task.statusMessage}` : ""));
  }
}

export interface ClientOptions {
  readonly send: TasksClientSend;
  /** How the client hears the peer's notifications (or call `handleNotification` yourself). */
  readonly onNotification?: TasksClientSubscribe;
  /**
   * Opens a `subscriptions/listen` stream (the `http-client` transport has one): where tasks are
   * an extension and `server/discover` shows the server declaring it, `waitForTask` follows the
   * task's status notifications there instead of polling, and polls while the stream is down.
   */
  readonly listen?: TasksClientListen;
  /**
   * Listen streams open at once (one per waited task; default 4: a browser has about six connections
   * per host for everything). A wait beyond it polls, and tries again after a pause.
   */
  readonly maxListenStreams?: number;
  /** Validate results and notifications with the generated validators (default true). Params are always validated. */
  readonly validateResults?: boolean;
  /** Gives up on a request after this many milliseconds (default 60 000; 0 never gives up). */
  readonly requestTimeoutMs?: number;
  /** Defaults of `waitForTask`'s poll bounds (250 ms and 60 s). */
  readonly minPollMs?: number;
  readonly maxPollMs?: number;
  /** `_meta` entries every request carries (a request's own `_meta` wins), e.g. the stateless protocol's `io.modelcontextprotocol/protocolVersion`. */
  readonly meta?: JsonObject;
  /**
   * The protocol revision the client speaks, where requests declare it (the stateless revisions,
   * whose tasks are an extension): every request's `_meta["io.modelcontextprotocol/protocolVersion"]`,
   * which the `http-client` transport also sends as the `MCP-Protocol-Version` header. Default: the
   * `meta` option's entry, else the revision the set was generated for; `null`: declare none (for a
   * peer of an older revision). (A revision with the initialize handshake negotiates it in the transport.)
   */
  readonly protocolVersion?: string | null;
  /** The revisions the client can speak, by preference, for a retry after -32022 "unsupported protocol version" (default: `protocolVersion` alone). */
  readonly supportedProtocolVersions?: readonly string[];
  /** Who the client is: every request's `_meta["io.modelcontextprotocol/clientInfo"]`, where requests declare the revision. */
  readonly clientInfo?: {
    readonly name: string;
    readonly version: string;
    readonly [key: string]: unknown;
  };
  /** Told about what the client drops or fails to do in the background: invalid notifications, failed best-effort cancels, throwing listeners, tools left out of `tools/list`. */
  readonly onError?: (error: unknown) => void;
  /** Run a tool whose `execution.taskSupport` is "optional" as a task (default false: only "required" tools are, unless a call asks). */
  readonly preferTasks?: boolean;
  /** Default of `maxInputRounds` (16). */
  readonly maxInputRounds?: number;
}

/** The options of a client that answers the server's own requests (see `ServerRequestsProfile`). */
export interface ServerRequestOptions<Handlers, ReceiverOptions = never> {
  /** How the transport hands over the server's requests (or call `answerServerRequest` yourself). */
  readonly onRequest?: TasksClientOnRequest;
  /**
   * Where the transport declares the client's capabilities in its handshake (`http-client` has it):
   * called once with `capabilities()`, so what the handlers answer is what the server is told.
   */
  readonly declareCapabilities?: (capabilities: JsonObject) => void;
  /**
   * Handlers of the server's requests, by method. A wait's own `inputHandlers` answer the requests
   * tied to its task (the related-task `_meta`); these answer the rest. An elicitation without a
   * handler is answered `{ action: "cancel" }`; another method without one gets -32601. Each method
   * with a handler is declared in `capabilities()`.
   */
  readonly inputHandlers?: Handlers;
  /**
   * The server may ask for an elicitation or a sampling request as a task (`params.task`): the
   * client then runs the handler as a task of its own, answers the task at once, and answers the
   * server's `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` about it, with the set's
   * own server (its store and status machine). These are that server's options (its `store`, TTL
   * bounds, ...); `false` runs nothing as a task (and declares no `tasks` capability).
   */
  readonly taskReceiver?: ReceiverOptions | false;
}

/** The options of a client whose tasks are an extension. */
export interface ExtensionClientOptions extends ClientOptions {
  /** Client capabilities declared in every request's `_meta`, beside the tasks extension the client always declares. */
  readonly clientCapabilities?: JsonObject;
}

export interface TasksClientRequestOptions {
  /** Abandons the request; the transport is told through `send`'s signal. */
  readonly signal?: TasksClientSignal;
  /** Overrides the client's `requestTimeoutMs` for this request. */
  readonly timeoutMs?: number;
}

/** Where an input request comes from, for its handler. */
export interface InputRequestContext {
  /** The task that asks; empty when a request asks before it completes (then `request` says which). */
  readonly taskId: string;
  /** The request's key in the task's input requests (unique for the task's lifetime). */
  readonly key: string;
  readonly method: string;
  /** Aborted when the wait ends (the task finished, or the wait was abandoned), or when the round of a request ends. */
  readonly signal: TasksClientSignal;
  /** The request that asks for input before it can complete (multi round-trip requests), and which of its rounds this is (from 1); absent for a task's input request. */
  readonly request?: { readonly method: string; readonly round: number };
}

export interface WaitOptions<Snapshot> {
  /** Abandons the wait: it rejects with the signal's reason and a best-effort `tasks/cancel` is sent (see `cancelOnAbort`). */
  readonly signal?: TasksClientSignal;
  /** Called once per change of the task (from polls and notifications), in order; never after the first terminal snapshot. */
  readonly onUpdate?: (task: Snapshot) => void;
  /** Bounds of the poll interval; the task's own poll interval is clamped into them. */
  readonly minPollMs?: number;
  readonly maxPollMs?: number;
  /** Send `tasks/cancel` when the signal aborts an unfinished task (default true). */
  readonly cancelOnAbort?: boolean;
}

/** The options of a wait that answers input requests. */
export interface InputWaitOptions<Snapshot, Handlers> extends WaitOptions<Snapshot> {
  /** Handlers of the task's input requests, by method. */
  readonly inputHandlers?: Handlers;
}

/** How a request answers the input it asks for before it completes (multi round-trip requests). */
export interface RoundTripOptions<Handlers> {
  /** Handlers of the input requests, by method (the same ones a task's input requests go to). */
  readonly inputHandlers?: Handlers;
  /** How many times the request may ask for input before it fails with InputRoundsExceededError (the client's `maxInputRounds`, 16 by default). */
  readonly maxInputRounds?: number;
}

/** What `callTool` takes beside the wait's options. */
export interface ToolCallWaitOptions<Task> {
  /** Timeout of the `tools/call` request itself (the client's `requestTimeoutMs` by default). */
  readonly timeoutMs?: number;
  /** Told when the call became a task, before the wait begins. */
  readonly onTaskCreated?: (task: Task) => void;
}

/** `tools/call` params (the schema sets do not define tools; these are the fields the client reads). */
export interface ToolCallParams {
  readonly name: string;
  readonly arguments?: JsonObject;
  readonly _meta?: JsonObject;
}

/** How a tool call started: it finished at once, or it created a task. */
export type ToolCallStartOf<Task> =
  { readonly kind: "complete"; readonly result: JsonObject } | { readonly kind: "task"; readonly task: Task };

/** The methods every Tasks client has, whatever its schema. */
export interface TasksClientCore<
  Snapshot,
  Result,
  Task,
  WaitForTaskOptions,
  StartToolCallOptions,
  CallToolOptions,
  RequestOptions = TasksClientRequestOptions,
  Tool = ToolDescription,
> {
  /**
   * Follows a task to its outcome: resolves with the result of a completed task; rejects with
   * TaskFailedError, TaskCancelledError, TaskExpiredError, TaskInputError (where the client
   * answers input), the signal's reason, or the error that stopped the polls.
   */
  waitForTask(taskId: string, options?: WaitForTaskOptions): Promise<Result>;
  /** Calls a tool and tells a created task from a plain result. */
  startToolCall(params: ToolCallParams, options?: StartToolCallOptions): Promise<ToolCallStartOf<Task>>;
  /** Calls a tool and returns its result, waiting for the task when the call becomes one. */
  callTool(params: ToolCallParams, options?: CallToolOptions): Promise<JsonObject>;
  /**
   * Any other request, sent the way this revision wants (with the extension declared and routing
   * headers, where tasks are an extension); the result is returned as it came, only checked to be
   * an object. Where the revision has multi round-trip requests, a request that asks for input
   * first (`prompts/get`, `resources/read`, `tools/call`) has it answered by the input handlers and
   * is retried until it completes; a `resultType` the client does not know is an error.
   */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject>;
  /**
   * The server's tools (every page of `tools/list`), as the client last read them: read again when
   * stale, after `notifications/tools/list_changed`, or with `refresh`. Tools whose `x-mcp-header`
   * annotations break the transport's rules are left out (and reported to `onError`).
   */
  listTools(options?: { readonly refresh?: boolean; readonly signal?: TasksClientSignal }): Promise<Tool[]>;
  /** Calls the listener with every valid status notification; returns the function that unsubscribes. */
  onTaskStatus(listener: (task: Snapshot) => void): () => void;
  /** Feeds a notification received from the peer (what `onNotification` subscriptions do). */
  handleNotification(notification: unknown): void;
  /** Unsubscribes from notifications; pending waits reject with TasksClientClosedError. */
  close(): void;
}

/** How a revision's requests ask for input before they complete, as the set's `client.ts` describes it. */
export interface RoundTripProfile {
  /** The `resultType` of an InputRequiredResult ("input_required"). */
  readonly resultType: string;
  /** Its field of input requests, by key, and the retry's field of answers, by the same keys. */
  readonly requestsField: string;
  readonly responsesField: string;
  /** The opaque state the retry echoes. */
  readonly stateField: string;
  /** The requests a server may answer that way. */
  readonly methods: readonly string[];
  /** The set's checks of the input requests map and of the answers map. */
  readonly requests: BodyCheck<unknown>;
  readonly responses: BodyCheck<unknown>;
}

/** Which server requests the client answers, how each is routed, and how its answers are checked. */
export interface ServerRequestsProfile {
  /** Handlers typed per method (see `ClientInput.routing`). */
  readonly routing: NonNullable<ClientInput["routing"]>;
  /** Accepting answers to one method are checked against the form they answer. */
  readonly forms?: FormCheck;
  /** Answers are checked with the set's result validators where it has them (absent: any object). */
  readonly results?: { readonly [method: string]: BodyCheck<unknown> };
  /** The capability each method is declared under, where a handler answers it. */
  readonly capabilities: { readonly [method: string]: JsonObject };
  /** Creates the set's own Tasks server, which runs the requests the server sends as tasks (see `ServerRequestOptions.taskReceiver`). */
  readonly receiver?: (options: object) => ReceiverServer;
}

/** What of the set's `TasksServer` the receiver uses. */
export interface ReceiverServer {
  handle(message: unknown): Promise<unknown>;
  createTask(context: { readonly owner?: string }, options?: { readonly ttl?: number | null }): Promise<ReceiverHandle>;
  close(): void;
}

/** What of the set's `TaskHandle` the receiver uses. */
export interface ReceiverHandle {
  readonly taskId: string;
  readonly signal: TasksClientSignal;
  readonly createResult: object;
  complete(result: JsonObject): Promise<void>;
  fail(error: RpcErrorObject): Promise<void>;
}

/** The call options `callTool` reads, in the widest form a set has them. */
export type CallOptions<T extends ClientTypes> = InputWaitOptions<T["snapshot"], T["handlers"]> &
  ToolCallWaitOptions<T["task"]> &
  RoundTripOptions<T["handlers"]>;

/** The options of a request that may ask for input first. */
export type RequestOptions<T extends ClientTypes> = TasksClientRequestOptions & RoundTripOptions<T["handlers"]>;

/** The request options of a call's options (its signal and timeout). */
export function pickRequestOptions(options: TasksClientRequestOptions): TasksClientRequestOptions {
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
}
