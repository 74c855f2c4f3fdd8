/**
 * The Tasks client of the generated stubs, copied unchanged into every set that has a client (as
 * `client-engine.ts`): sending requests the way the revision wants them, checking what comes back,
 * creating tasks and following them with task-wait.ts, answering their input requests, tool calls
 * and status notifications. What the schema decides comes in two parts the set's `client.ts`
 * binds: its types (`ClientTypes`) and its protocol profile (`ClientProfile`: the task methods
 * with their validators, field names, revision features). The set's `client.ts` subclasses
 * `TasksClientEngine` with one typed method per task method (see ARCHITECTURE.md, "Stubs").
 */
import { isObject, ownValue, pointerToken, ValidationFailed, type JsonObject } from "../protocol/json.js";
import {
  abandonable,
  abortReason,
  checkBody,
  checkParams,
  clientError,
  DEFAULT_MAX_POLL_MS,
  DEFAULT_MIN_POLL_MS,
  DEFAULT_TIMEOUT_MS,
  exchange,
  host,
  InvalidResponseError,
  JsonRpcResponseError,
  objectOr,
  prefixed,
  readResult,
  rpcErrorOf,
  splitTag,
  TasksClientClosedError,
  UNSUPPORTED_PROTOCOL_VERSION,
  type BodyCheck,
  type MethodSpec,
  type RpcErrorObject,
  type TasksClientHeaders,
  type TasksClientListen,
  type TasksClientOnRequest,
  type TasksClientRequest,
  type TasksClientSend,
  type TasksClientServerRequest,
  type TasksClientSignal,
  type TasksClientSubscribe,
} from "./core.js";
import {
  TaskWait,
  type InputProfile,
  type StreamEnd,
  type TaskWaitProfile,
  type WaitClient,
  type WaitSnapshot,
} from "./task-wait.js";
import {
  ToolCatalog,
  ToolRejectedError,
  TOOLS_LIST,
  TOOLS_LIST_CHANGED,
  type CatalogEntry,
  type HeaderAnnotation,
  type ToolDescription,
  type ToolTaskSupportValue,
} from "./tool-catalog.js";
import { answeredRequest, checkFormAnswer, type AnsweredRequest } from "../protocol/form-answers.js";

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

/** The form's own check of accepted answers to `method`, for form-answers.ts (undefined: the schema checks the content). */
function formJudge(
  forms: FormCheck | undefined,
  method: string,
): ((schema: unknown, content: unknown) => Error | undefined) | undefined {
  return forms?.method === method ? (schema, content) => forms.problem(schema, content) : undefined;
}

/** A `FormCheck` from the set's content validator and the error it raises (`validateElicitationContent`, `ElicitationContentInvalid`). */
export function formCheck<Invalid, Errors>(
  method: string,
  validate: (
    requestedSchema: unknown,
    content: unknown,
  ) =>
    | { readonly ok: true }
    | {
        readonly ok: false;
        readonly invalid: Invalid;
        readonly errors: Errors;
      },
  invalid: new (invalid: Invalid, errors: Errors) => Error,
): FormCheck {
  return {
    method,
    problem: (requestedSchema, content) => {
      const checked = validate(requestedSchema, content);
      return checked.ok ? undefined : new invalid(checked.invalid, checked.errors);
    },
  };
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
  readonly clientInfo?: { readonly name: string; readonly version: string; readonly [key: string]: unknown };
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

// ---------------------------------------------------------------------------------------------
// The client

type Wait<T extends ClientTypes> = TaskWait<T["snapshot"], T["result"], T["payload"], T["answer"], T["handlers"]>;

/** The call options `callTool` reads, in the widest form a set has them. */
type CallOptions<T extends ClientTypes> = InputWaitOptions<T["snapshot"], T["handlers"]> &
  ToolCallWaitOptions<T["task"]> &
  RoundTripOptions<T["handlers"]>;

/** The options of a request that may ask for input first. */
type RequestOptions<T extends ClientTypes> = TasksClientRequestOptions & RoundTripOptions<T["handlers"]>;

/**
 * A Tasks client over a transport, as the profile describes it. The set's `client.ts` subclasses
 * it with a typed method per task method (`call`), `allTasks` (`pages`) and `createTask`
 * (`createWith`).
 */
export class TasksClientEngine<T extends ClientTypes> implements TasksClientCore<
  T["snapshot"],
  T["result"],
  T["task"],
  InputWaitOptions<T["snapshot"], T["handlers"]>,
  RequestOptions<T>,
  CallOptions<T>,
  RequestOptions<T>,
  ToolOf<T>
> {
  readonly #profile: ClientProfile<T>;
  readonly #send: TasksClientSend;
  readonly #validateResults: boolean;
  readonly #timeoutMs: number;
  readonly #minPollMs: number;
  readonly #maxPollMs: number;
  readonly #meta: JsonObject | undefined;
  readonly #clientInfo: JsonObject | undefined;
  readonly #supportedVersions: readonly string[];
  /** The revision requests declare (changed once by a -32022 answer); undefined: the client declares none. */
  #protocolVersion: string | undefined;
  readonly #capabilities: JsonObject;
  readonly #onError: (error: unknown) => void;
  readonly #waits = new Set<Wait<T>>();
  readonly #listeners = new Set<(task: T["snapshot"]) => void>();
  readonly #unsubscribe: (() => void) | undefined;
  readonly #waitProfile: TaskWaitProfile<T["snapshot"], T["result"], T["payload"], T["answer"], T["handlers"]>;
  readonly #waitClient: WaitClient<T["snapshot"], T["result"], T["payload"], T["answer"], T["handlers"]>;
  /** The client-wide handlers of the server's requests, and each wait's own. */
  readonly #inputHandlers: T["handlers"] | undefined;
  readonly #waitHandlers = new WeakMap<Wait<T>, T["handlers"]>();
  /** Aborted when the client closes: ends the handlers of the server's requests still running. */
  readonly #closing = new host.AbortController();
  readonly #stopRequests: (() => void) | undefined;
  /** Where the server's requests run as tasks, created at the first one (see `ServerRequestOptions.taskReceiver`). */
  readonly #receiverOptions: object | false;
  #receiver: TaskReceiver | undefined;
  readonly #listen: TasksClientListen | undefined;
  readonly #maxListenStreams: number;
  #listenStreams = 0;
  /** Whether the server takes listen requests: asked of `server/discover` once, false after a refusal. */
  #listenOffered: Promise<boolean> | undefined;
  readonly #catalog: ToolCatalog | undefined;
  readonly #preferTasks: boolean;
  readonly #maxInputRounds: number;
  #nextId = 1;
  #closed = false;

  constructor(
    profile: ClientProfile<T>,
    options: ExtensionClientOptions & ServerRequestOptions<T["handlers"], object>,
  ) {
    this.#profile = profile;
    this.#send = options.send;
    this.#validateResults = options.validateResults ?? true;
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#minPollMs = options.minPollMs ?? DEFAULT_MIN_POLL_MS;
    this.#maxPollMs = options.maxPollMs ?? DEFAULT_MAX_POLL_MS;
    this.#meta = options.meta;
    const configured =
      options.protocolVersion === null
        ? undefined
        : (options.protocolVersion ?? ownValue(options.meta ?? {}, PROTOCOL_VERSION_META) ?? profile.protocolVersion);
    this.#protocolVersion = typeof configured === "string" ? configured : undefined;
    this.#supportedVersions =
      options.supportedProtocolVersions ?? (this.#protocolVersion === undefined ? [] : [this.#protocolVersion]);
    this.#clientInfo = options.clientInfo;
    this.#capabilities = options.clientCapabilities ?? {};
    this.#onError = options.onError ?? (() => {});
    this.#listen = options.listen;
    this.#maxListenStreams = options.maxListenStreams ?? DEFAULT_MAX_LISTEN_STREAMS;
    this.#waitProfile = waitProfile(profile);
    this.#waitClient = this.#makeWaitClient();
    this.#preferTasks = options.preferTasks ?? false;
    this.#maxInputRounds = options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
    this.#catalog = profile.tools
      ? new ToolCatalog(
          {
            listPage: async (cursor) =>
              this.#checkedResult(
                profile.flowChecks?.toolsPage,
                await this.#request(TOOLS_LIST, cursor === undefined ? undefined : { cursor }, {}),
              ),
            report: (error) => this.#report(error),
          },
          { headers: profile.tools.paramHeaders, taskSupport: profile.tools.taskSupport || [] },
        )
      : undefined;
    const unsubscribe = options.onNotification?.((notification) => this.handleNotification(notification));
    this.#unsubscribe = typeof unsubscribe === "function" ? unsubscribe : undefined;
    this.#inputHandlers = options.inputHandlers;
    this.#receiverOptions = options.taskReceiver ?? {};
    const stop = profile.serverRequests
      ? options.onRequest?.((request) => this.answerServerRequest(request))
      : undefined;
    this.#stopRequests = typeof stop === "function" ? stop : undefined;
    if (profile.serverRequests) options.declareCapabilities?.(this.capabilities());
  }

  /**
   * Answers a request the server sent (what `onRequest` subscriptions do): runs its handler (a
   * wait's own for a request tied to its task, otherwise the client's), fills an accepted form's
   * defaults the user left out, and checks the answer (an accepted form against the form it
   * answers) before it is sent. Rejects with a JsonRpcResponseError to answer as the JSON-RPC error.
   */
  answerServerRequest(request: TasksClientServerRequest): Promise<object> {
    const serverRequests = this.#profile.serverRequests;
    if (!serverRequests || this.#closed) {
      return Promise.reject(
        new JsonRpcResponseError(request.method, METHOD_NOT_FOUND, `Method not found: ${request.method}`),
      );
    }
    const receiver = this.#receiverFor(serverRequests);
    if (receiver && TASK_RECEIVER_METHODS.includes(request.method)) return receiver.answer(request);
    const augmentField = this.#profile.augment?.field;
    const clientHandlers = (this.#inputHandlers ?? {}) as InputHandlerTable;
    // Only what `capabilities()` declares runs as a task (a method with a handler); anything else is answered as a plain request.
    if (
      receiver &&
      augmentField !== undefined &&
      request.params &&
      Object.hasOwn(request.params, augmentField) &&
      Object.hasOwn(serverRequests.routing, request.method) &&
      typeof clientHandlers[request.method] === "function"
    ) {
      const handlers = clientHandlers;
      return receiver.start(augmentField, request, (plain, signal, taskId) =>
        answerServerRequestWith(serverRequests, handlers, plain, {
          taskId,
          signal,
          report: (e) => this.#report(e),
        }),
      );
    }
    const taskId = relatedTaskId(request.params);
    const wait = taskId === undefined ? undefined : [...this.#waits].find((w) => w.taskId === taskId);
    const handlers = (wait && this.#waitHandlers.get(wait)) ?? this.#inputHandlers ?? {};
    return answerServerRequestWith(serverRequests, handlers as InputHandlerTable, request, {
      taskId: taskId ?? "",
      signal: this.#closing.signal,
      report: (error) => this.#report(error),
    });
  }

  /**
   * The client capabilities this client's handlers support, to declare where the connection is set up
   * (the SDK client's `registerCapabilities`, the HTTP transport's `initialize`): each method with a
   * handler (`elicitation`, `sampling`), an elicitation's form mode, and the requests the client
   * runs as tasks (`tasks.requests`) where it is a task receiver.
   */
  capabilities(): JsonObject {
    const serverRequests = this.#profile.serverRequests;
    if (!serverRequests) return {};
    const handlers = (this.#inputHandlers ?? {}) as InputHandlerTable;
    const plain = capabilitiesOf(serverRequests, handlers);
    return serverRequests.receiver && this.#receiverOptions !== false
      ? mergeObjects(plain, receiverCapabilities(serverRequests, handlers))
      : plain;
  }

  /** The task receiver, created at its first use, where the set has one and the options do not turn it off. */
  #receiverFor(serverRequests: ServerRequestsProfile): TaskReceiver | undefined {
    if (!serverRequests.receiver || this.#receiverOptions === false) return undefined;
    this.#receiver ??= new TaskReceiver(serverRequests.receiver(this.#receiverOptions), (e) => this.#report(e));
    return this.#receiver;
  }

  waitForTask(taskId: string, options: InputWaitOptions<T["snapshot"], T["handlers"]> = {}): Promise<T["result"]> {
    return this.#wait(taskId, options, undefined);
  }

  async startToolCall(params: ToolCallParams, options: RequestOptions<T> = {}): Promise<ToolCallStartOf<T["task"]>> {
    const { augment, tools } = this.#profile;
    const asked = augment === undefined ? undefined : ownValue(options as JsonObject, augment.field);
    // A caller who asks for a task decides, but never for a tool that forbids it (2025-11-25: clients
    // MUST NOT invoke it as a task); otherwise the tool's taskSupport does. Headers need the tool's schema.
    const needed = tools !== undefined && (tools.paramHeaders || tools.taskSupport);
    const entry = needed ? await this.#toolEntry(params.name, options.signal, false) : undefined;
    if (asked !== undefined && tools?.taskSupport && entry?.taskSupport === "forbidden")
      throw new TaskForbiddenError(params.name);
    const headers = entry ? paramHeaders(entry.headers, params.arguments) : {};
    const augmentation =
      asked ?? (augment && entry && wantsTask(entry.taskSupport, this.#preferTasks) ? {} : undefined);
    if (augmentation !== undefined || !augment || !tools?.taskSupport || entry?.taskSupport === "required") {
      return this.#startCall(params, augmentation, headers, options);
    }
    // A plain call is refused when the tool requires a task. The list read may be out of date: read
    // it again and, if the tool says so now, call it as a task rather than hand back the refusal.
    let refusal: unknown;
    try {
      const start = await this.#startCall(params, undefined, headers, options);
      if (start.kind === "task" || ownValue(start.result, "isError") !== true) return start;
      refusal = start;
    } catch (error) {
      if (!(error instanceof JsonRpcResponseError)) throw error;
      refusal = error;
    }
    const fresh = await this.#toolEntry(params.name, options.signal, true);
    if (fresh?.taskSupport === "required") return this.#startCall(params, {}, headers, options);
    if (refusal instanceof JsonRpcResponseError) throw refusal;
    return refusal as ToolCallStartOf<T["task"]>;
  }

  async callTool(params: ToolCallParams, options: CallOptions<T> = {}): Promise<JsonObject> {
    const { timeoutMs, onTaskCreated, maxInputRounds, ...waitOptions } = options;
    const field = this.#profile.augment?.field;
    const augmentation = field === undefined ? undefined : ownValue(options as JsonObject, field);
    const start = await this.startToolCall(params, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(field !== undefined && augmentation !== undefined ? { [field]: augmentation } : {}),
      ...(options.inputHandlers !== undefined ? { inputHandlers: options.inputHandlers } : {}),
      ...(maxInputRounds !== undefined ? { maxInputRounds } : {}),
    });
    if (start.kind === "complete") return start.result;
    onTaskCreated?.(start.task);
    // The task's result is the tool's result: a result object (the set's validators checked it).
    return this.#wait(start.task.taskId, waitOptions, this.#snapshotOf(start.task)) as Promise<JsonObject>;
  }

  async request(method: string, params?: JsonObject, options: RequestOptions<T> = {}): Promise<JsonObject> {
    const requestOptions = pickRequestOptions(options);
    if (!this.#profile.roundTrips?.methods.includes(method)) return this.#request(method, params, requestOptions);
    const result = await this.#roundTrips(method, params ?? {}, options, (sent) =>
      this.#request(method, sent, requestOptions),
    );
    const tag = ownValue(result, "resultType");
    // Returned as it came; a tag the client cannot read is an error, not "complete".
    if (tag !== undefined && tag !== "complete" && tag !== "task") {
      throw new InvalidResponseError(method, `unknown resultType ${JSON.stringify(tag)}`, result);
    }
    return result;
  }

  listTools(options: { readonly refresh?: boolean; readonly signal?: TasksClientSignal } = {}): Promise<ToolOf<T>[]> {
    if (!this.#catalog) return Promise.reject(new Error("this client does not read tools/list"));
    if (options.signal?.aborted) return Promise.reject(abortReason(options.signal));
    // The set's Tool: each page passed its generated ListToolsResult check (flowChecks.toolsPage) unless results go unchecked.
    const tools = this.#catalog.tools(options.refresh ?? false) as Promise<unknown[]> as Promise<ToolOf<T>[]>;
    return abandonable(tools, options.signal, () => {});
  }

  // --- tool calls and multi round-trip requests ---

  /** Sends `tools/call` (as a task when `augmentation` is given) and tells a created task from a plain result. */
  async #startCall(
    params: ToolCallParams,
    augmentation: unknown,
    headers: TasksClientHeaders,
    options: RequestOptions<T>,
  ): Promise<ToolCallStartOf<T["task"]>> {
    const { augment, resultTag } = this.#profile;
    const sent: JsonObject =
      augment && augmentation !== undefined ? { ...params, [augment.field]: augmentation } : { ...params };
    const requestOptions = pickRequestOptions(options);
    const send = (withHeaders: TasksClientHeaders) =>
      this.#roundTrips("tools/call", sent, options, (retry) =>
        this.#create("tools/call", retry, requestOptions, withHeaders),
      );
    let result: JsonObject;
    try {
      result = await send(headers);
    } catch (error) {
      const again = await this.#headersAfterMismatch(error, params, headers, options.signal);
      if (!again) throw error;
      result = await send(again);
    }
    if (augment) {
      // A receiver that does not run this tool as a task answers its plain result.
      if (augmentation === undefined || !Object.hasOwn(result, "task")) return { kind: "complete", result };
      return { kind: "task", task: this.#taskOf(this.#checkBody(this.#profile.created.check, result)) };
    }
    if (resultTag === "none") {
      return { kind: "task", task: this.#taskOf(this.#checkBody(this.#profile.created.check, result)) };
    }
    const { tag, body } = splitTag("tools/call", result);
    if (tag === "task") return { kind: "task", task: this.#checkCreated(body) };
    if (tag === "complete") return { kind: "complete", result: body };
    throw new InvalidResponseError("tools/call", `unknown resultType ${JSON.stringify(tag)}`, result);
  }

  /**
   * The server said the call's `Mcp-Param-*` headers do not match (HeaderMismatch): the transport
   * asks the client to read `tools/list` again and retry with the headers it now implies. Undefined
   * when that is not the error, or the headers would be the same (then the error stands).
   */
  async #headersAfterMismatch(
    error: unknown,
    params: ToolCallParams,
    headers: TasksClientHeaders,
    signal: TasksClientSignal | undefined,
  ): Promise<TasksClientHeaders | undefined> {
    if (
      !(error instanceof JsonRpcResponseError) ||
      error.code !== HEADER_MISMATCH ||
      !this.#profile.tools?.paramHeaders
    ) {
      return undefined;
    }
    const fresh = await this.#toolEntry(params.name, signal, true);
    const again = fresh ? paramHeaders(fresh.headers, params.arguments) : {};
    const same = JSON.stringify(Object.entries(again).sort()) === JSON.stringify(Object.entries(headers).sort());
    return same ? undefined : again;
  }

  /**
   * What the client knows of a tool (undefined when the server does not list it, or the list could
   * not be read: then the call is plain, without parameter headers, and the failure is reported).
   * A tool left out for its `x-mcp-header` annotations is not called: ToolRejectedError.
   */
  async #toolEntry(
    name: string,
    signal: TasksClientSignal | undefined,
    refresh: boolean,
  ): Promise<CatalogEntry | undefined> {
    const catalog = this.#catalog;
    if (!catalog) return undefined;
    if (signal?.aborted) throw abortReason(signal);
    let entry: CatalogEntry | ToolRejectedError | undefined;
    try {
      entry = await abandonable(catalog.entry(name, refresh), signal, () => {});
    } catch (error) {
      if (signal?.aborted) throw error;
      this.#report(error);
      return undefined;
    }
    if (entry instanceof ToolRejectedError) throw entry;
    return entry;
  }

  /**
   * Sends a request with `send` and, while it answers an InputRequiredResult (mrtr.mdx), answers its
   * input requests with the caller's handlers and sends it again: a new request (new JSON-RPC id)
   * with the original params, the answers in `inputResponses` and `requestState` echoed exactly as it
   * came (omitted when the result had none). Nothing of one round reaches any other request. The
   * result that is not `input_required` is returned as it came (it may have created a task).
   */
  async #roundTrips(
    method: string,
    params: JsonObject,
    options: RequestOptions<T>,
    send: (params: JsonObject) => Promise<JsonObject>,
  ): Promise<JsonObject> {
    const profile = this.#profile.roundTrips;
    const maxRounds = options.maxInputRounds ?? this.#maxInputRounds;
    let sent = params;
    for (let round = 1; ; round++) {
      const result = await send(sent);
      if (!profile?.methods.includes(method) || ownValue(result, "resultType") !== profile.resultType) return result;
      this.#checkedResult(this.#profile.flowChecks?.inputRequired, result);
      const asked = readInputRequired(profile, method, result, this.#validateResults);
      if (round > maxRounds) throw new InputRoundsExceededError(method, maxRounds);
      const answers =
        asked.requests === undefined ? undefined : await this.#answerRound(method, round, asked.requests, options);
      // Abandoned while the handlers ran: no retry.
      if (options.signal?.aborted) throw abortReason(options.signal);
      sent = retryParams(profile, params, answers, asked.state);
    }
  }

  /** Answers every input request of one round (in parallel); the first failure ends the round. */
  async #answerRound(
    method: string,
    round: number,
    requests: { readonly [key: string]: unknown },
    options: RequestOptions<T>,
  ): Promise<JsonObject | undefined> {
    const keys = Object.keys(requests);
    if (keys.length === 0) return undefined;
    const { signal } = options;
    if (signal?.aborted) throw abortReason(signal);
    // Handlers hear that the round is over: abandoned, failed, or answered.
    const controller = new host.AbortController();
    const onAbort = () => controller.abort(abortReason(signal!));
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const answering = Promise.all(
        keys.map((key) =>
          this.#answerInput(method, round, key, requests[key], options.inputHandlers, controller.signal),
        ),
      );
      const answers = await abandonable(answering, signal, () => {});
      return Object.fromEntries(keys.map((key, i) => [key, answers[i]]));
    } finally {
      signal?.removeEventListener("abort", onAbort);
      controller.abort(roundEnded(method, round));
    }
  }

  /** One input request's answer, from the handler of its method, checked before it is sent. */
  async #answerInput(
    method: string,
    round: number,
    key: string,
    request: unknown,
    handlers: T["handlers"] | undefined,
    signal: TasksClientSignal,
  ): Promise<unknown> {
    const { input, roundTrips } = this.#profile;
    const inputMethod = isObject(request) ? ownValue(request, "method") : undefined;
    if (typeof inputMethod !== "string") {
      throw new InputRequestError(method, key, undefined, "the input request has no method");
    }
    const context: InputRequestContext = { taskId: "", key, method: inputMethod, signal, request: { method, round } };
    const answering = runInputHandler(input?.routing, (handlers ?? {}) as InputHandlerTable, request, context);
    if (!answering) throw new InputRequestError(method, key, inputMethod, "no input handler for this method");
    let answer: unknown;
    try {
      answer = await answering;
    } catch (error) {
      throw new InputRequestError(method, key, inputMethod, "the input handler failed", { cause: error });
    }
    const checked = checkRoundTripAnswer(roundTrips!, input?.forms, key, inputMethod, request, answer);
    if (!checked.ok) {
      throw new InputRequestError(method, key, inputMethod, checked.error.message, { cause: checked.error });
    }
    return checked.value;
  }

  onTaskStatus(listener: (task: T["snapshot"]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  handleNotification(notification: unknown): void {
    if (isObject(notification) && ownValue(notification, "method") === TOOLS_LIST_CHANGED) {
      this.#catalog?.invalidate();
      return;
    }
    const spec = this.#profile.notification;
    // A set without a status notification has nothing to hear.
    if (!spec || this.#closed || !isObject(notification) || ownValue(notification, "method") !== spec.method) return;
    let task: T["snapshot"];
    try {
      const params = ownValue(notification, "params");
      if (!isObject(params)) throw new InvalidResponseError(spec.method, "params is not an object", notification);
      task = this.#checkBody(spec.check, params);
    } catch (error) {
      // A notification answers nothing: an invalid one is dropped (and reported).
      this.#report(error);
      return;
    }
    for (const listener of this.#listeners) {
      try {
        listener(task);
      } catch (error) {
        this.#report(error);
      }
    }
    for (const wait of this.#waits) if (wait.taskId === task.taskId) wait.observe(task);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe?.();
    this.#stopRequests?.();
    this.#closing.abort(new TasksClientClosedError());
    this.#receiver?.close();
    this.#listeners.clear();
    for (const wait of [...this.#waits]) wait.close();
  }

  // --- what the set's typed methods call ---

  /** A method of this set: params validated, the request sent, the result checked. */
  protected async call<P, R>(
    spec: MethodSpec<P, R>,
    params: P | undefined,
    options: TasksClientRequestOptions = {},
  ): Promise<R> {
    return this.#callChecked(spec, checkParams(spec, params), options);
  }

  /** A method of this set whose params are already checked: the request sent, the result checked. */
  async #callChecked<R>(
    spec: MethodSpec<unknown, R>,
    params: JsonObject | undefined,
    options: TasksClientRequestOptions,
  ): Promise<R> {
    const result = await this.#request(spec.method, params, options);
    const { resultTag } = this.#profile;
    if (resultTag === "none") return this.#checkBody(spec.result, result);
    const { tag, body } = splitTag(spec.method, result);
    if (tag !== "complete") {
      throw new InvalidResponseError(spec.method, `resultType is "${tag}", expected "complete"`, result);
    }
    // A schema that models the tag validates it: put it back, "complete" where the server left it out.
    return this.#checkBody(spec.result, resultTag === "modeled" ? { ...body, resultType: tag } : body);
  }

  /** Every task of the caller, page after page of `tasks/list`. */
  protected async *pages<Item>(
    params: object,
    options?: TasksClientRequestOptions,
  ): AsyncGenerator<Item, void, undefined> {
    const { methods, list } = this.#profile;
    if (!methods.list || !list) throw new Error("this client has no tasks/list");
    const seen = new Set<unknown>();
    let page = (await this.call(methods.list, params, options)) as JsonObject;
    for (;;) {
      yield* ownValue(page, list.items) as Item[];
      const cursor = list.nextCursor === undefined ? undefined : ownValue(page, list.nextCursor);
      if (cursor === undefined) return;
      // A cursor that comes back would page forever.
      if (seen.has(cursor)) {
        throw new InvalidResponseError(methods.list.method, `the cursor ${JSON.stringify(cursor)} came back`, page);
      }
      seen.add(cursor);
      page = (await this.call(methods.list, { ...params, cursor }, options)) as JsonObject;
    }
  }

  /** Sends `method` as a task (params augmented) and returns what created it. */
  protected async createWith(
    method: string,
    params: JsonObject,
    augmentation: T["augment"],
    options: TasksClientRequestOptions,
  ): Promise<T["created"]> {
    const augment = this.#profile.augment;
    if (!augment) throw new Error("this client does not augment requests");
    const checked = augment.check.validate(augmentation);
    if (!checked.ok) throw new ValidationFailed(augment.check.type, prefixed(`/${augment.field}`, checked.errors));
    const result = await this.#create(method, { ...params, [augment.field]: augmentation }, options);
    return this.#checkBody(this.#profile.created.check, result);
  }

  // --- the machinery ---

  #wait(
    taskId: string,
    options: InputWaitOptions<T["snapshot"], T["handlers"]>,
    initial: T["snapshot"] | undefined,
  ): Promise<T["result"]> {
    if (this.#closed) return Promise.reject(new TasksClientClosedError());
    const wait: Wait<T> = new TaskWait(this.#waitProfile, this.#waitClient, taskId, {
      minPollMs: options.minPollMs ?? this.#minPollMs,
      maxPollMs: options.maxPollMs ?? this.#maxPollMs,
      cancelOnAbort: options.cancelOnAbort ?? true,
      signal: options.signal,
      onUpdate: options.onUpdate,
      inputHandlers: (options.inputHandlers ?? (this.#profile.input ? {} : undefined)) as T["handlers"],
    });
    this.#waits.add(wait);
    if (options.inputHandlers !== undefined) this.#waitHandlers.set(wait, options.inputHandlers);
    wait.start(initial);
    return wait.promise;
  }

  #makeWaitClient(): WaitClient<T["snapshot"], T["result"], T["payload"], T["answer"], T["handlers"]> {
    const { methods, input } = this.#profile;
    const { payload } = methods;
    return {
      getTask: (taskId, signal) => this.call(methods.get, { taskId }, { signal }),
      ...(payload
        ? {
            getTaskPayload: (taskId: string, signal: TasksClientSignal) => this.call(payload, { taskId }, { signal }),
          }
        : {}),
      ...(input
        ? {
            answer: async (taskId: string, key: string, answer: T["answer"], signal: TasksClientSignal) => {
              // checkAnswer checked the answer as these params (an accepted form by form-answers.ts):
              // checked again as a whole, 95.5 for a form's number field would fail ElicitResult's integers.
              const params = { taskId, [input.responsesField]: { [key]: answer } };
              await this.#callChecked(input.update, params, { signal });
            },
          }
        : {}),
      ...(this.#listen && this.#profile.extension && this.#profile.notification
        ? {
            openStream: (taskId: string, signal: TasksClientSignal, acknowledged: () => void) =>
              this.#openStream(taskId, signal, acknowledged),
          }
        : {}),
      cancel: (taskId) => this.#cancelQuietly(taskId),
      report: (error) => this.#report(error),
      finished: (wait) => this.#waits.delete(wait),
    };
  }

  // --- task status streams (subscriptions/listen) ---

  /**
   * One listen stream for one task, as the wait's `openStream`: the messages of this subscription
   * (its id in `_meta`) are read, the acknowledgement must agree to the task, and its status
   * notifications go where every notification goes (`handleNotification`: listeners and waits).
   */
  async #openStream(taskId: string, signal: TasksClientSignal, acknowledged: () => void): Promise<StreamEnd> {
    const listen = this.#listen!;
    const extension = this.#profile.extension!;
    if (this.#closed || !(await this.#offersListen())) return "unsupported";
    if (signal.aborted) return "ended";
    // No stream free: poll for now, as after a drop.
    if (this.#listenStreams >= this.#maxListenStreams) return "dropped";
    const params = this.#withExtension(extension, { notifications: { taskIds: [taskId] } });
    const request: TasksClientRequest = { jsonrpc: "2.0", id: this.#nextId++, method: LISTEN_METHOD, params };
    // The stream stops with the wait, or when the server does not agree to the task.
    const stream = new host.AbortController();
    const stop = () => stream.abort(abortReason(signal));
    signal.addEventListener("abort", stop, { once: true });
    let refused = false;
    const acknowledgement = this.#validateResults ? this.#profile.flowChecks?.listenAcknowledged : undefined;
    const onMessage = (message: unknown) => {
      let read: ReturnType<typeof listenMessage>;
      try {
        read = listenMessage(message, request.id, acknowledgement);
      } catch (error) {
        // An acknowledgement the schema rejects agrees to nothing: poll instead.
        refused = true;
        this.#report(error);
        stream.abort(error);
        return;
      }
      if (read.kind === "acknowledged") {
        if (read.taskIds.includes(taskId)) acknowledged();
        else {
          refused = true;
          stream.abort(new Error(`the server does not send notifications for task ${taskId}`));
        }
      } else if (read.kind === "notification") this.handleNotification(message);
    };
    this.#listenStreams++;
    try {
      const response = await listen(request, routingHeaders([], LISTEN_METHOD, params), {
        signal: stream.signal,
        onMessage,
      });
      if (response === undefined) return "dropped";
      readResult(response, request);
      return "ended";
    } catch (error) {
      if (refused) return "unsupported";
      if (signal.aborted) return "ended";
      this.#report(error);
      if (!(error instanceof JsonRpcResponseError && this.#refusesListen(error))) return "dropped";
      // The server takes no listen requests from this client after all: poll from now on.
      this.#listenOffered = Promise.resolve(false);
      return "unsupported";
    } finally {
      this.#listenStreams--;
      signal.removeEventListener("abort", stop);
    }
  }

  /**
   * Whether an error answer to a listen request means the server will not take one from this
   * client again: it has none (-32601), or it names a client capability this client lacks
   * (-32021, with `data` the set's check accepts where it has one; reopening would not change it).
   */
  #refusesListen(error: JsonRpcResponseError): boolean {
    if (error.code === METHOD_NOT_FOUND) return true;
    if (error.code !== MISSING_REQUIRED_CLIENT_CAPABILITY) return false;
    const data = this.#validateResults ? this.#profile.flowChecks?.missingCapability : undefined;
    return data === undefined || data.validate(error.data).ok;
  }

  /**
   * Whether the server may take listen requests: its `server/discover` capabilities declare the
   * tasks extension, whose status notifications travel on `subscriptions/listen`. Asked once; a
   * discovery lost to the transport is asked again by the next wait.
   */
  #offersListen(): Promise<boolean> {
    const extension = this.#profile.extension!;
    this.#listenOffered ??= this.#request(DISCOVER_METHOD, {}, {}).then(
      (answer) => {
        const result = this.#checkedResult(this.#profile.flowChecks?.discover, answer);
        const capabilities = objectOr(ownValue(result, "capabilities"));
        return isObject(ownValue(objectOr(ownValue(capabilities, "extensions")), extension.id));
      },
      (error: unknown) => {
        this.#report(error);
        if (!(error instanceof JsonRpcResponseError)) this.#listenOffered = undefined;
        return false;
      },
    );
    return this.#listenOffered;
  }

  /**
   * Sends a request that may create a task. Abandoning it (the signal) rejects at once but does
   * not stop the request: a task it creates anyway belongs to nobody, so it is cancelled.
   */
  #create(
    method: string,
    params: JsonObject,
    options: TasksClientRequestOptions,
    headers: TasksClientHeaders = {},
  ): Promise<JsonObject> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const sending = this.#request(
      method,
      params,
      options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
      headers,
    );
    return abandonable(sending, signal, (result) => {
      const taskId = createdTaskId(this.#profile, result);
      if (taskId !== undefined) this.#cancelQuietly(taskId);
    });
  }

  /**
   * Sends a request and returns its result object; a JSON-RPC error rejects with JsonRpcResponseError.
   * A -32022 "unsupported protocol version" answer is retried once with a revision both sides
   * support, which later requests keep.
   */
  async #request(
    method: string,
    params: JsonObject | undefined,
    options: TasksClientRequestOptions,
    extraHeaders: TasksClientHeaders = {},
  ): Promise<JsonObject> {
    try {
      return await this.#requestOnce(method, params, options, extraHeaders);
    } catch (error) {
      const version = this.#profile.extension
        ? retryVersion(
            error,
            this.#supportedVersions,
            this.#validateResults ? this.#profile.flowChecks?.unsupportedVersion : undefined,
          )
        : undefined;
      if (version === undefined) throw error;
      this.#protocolVersion = version;
      return this.#requestOnce(method, params, options, extraHeaders);
    }
  }

  async #requestOnce(
    method: string,
    params: JsonObject | undefined,
    options: TasksClientRequestOptions,
    extraHeaders: TasksClientHeaders,
  ): Promise<JsonObject> {
    if (this.#closed) throw new TasksClientClosedError();
    const extension = this.#profile.extension;
    // An extension's requests always carry params: their `_meta` declares the extension.
    const sent = extension ? this.#withExtension(extension, params ?? {}) : this.#withMeta(params);
    const request: TasksClientRequest = {
      jsonrpc: "2.0",
      id: this.#nextId++,
      method,
      ...(sent === undefined ? {} : { params: sent }),
    };
    const headers = {
      ...(extension && sent ? routingHeaders(extension.taskMethods, method, sent) : {}),
      ...extraHeaders,
    };
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    return readResult(await exchange(this.#send, request, headers, { ...options, timeoutMs }), request);
  }

  /**
   * A result checked whole by the set's generated check, where it has one and results are
   * validated. A result without `resultType` (an older server's) is checked as the "complete" it
   * means, where the revision tags results; it is returned as it came.
   */
  #checkedResult(check: BodyCheck<unknown> | undefined, result: JsonObject): JsonObject {
    if (!check || !this.#validateResults) return result;
    const tagged =
      this.#profile.resultTag === "none" || Object.hasOwn(result, "resultType")
        ? result
        : { ...result, resultType: "complete" };
    checkBody(check, tagged);
    return result;
  }

  /** The params with the client's `meta` (a request's own `_meta` entries win). */
  #withMeta(params: JsonObject | undefined): JsonObject | undefined {
    if (this.#meta === undefined) return params;
    return {
      ...params,
      _meta: { ...this.#meta, ...objectOr(ownValue(params ?? {}, "_meta")) },
    };
  }

  /** The params with the client's `meta`, and the tasks extension declared in `_meta` client capabilities (keeping whatever else `_meta` says). */
  #withExtension(extension: NonNullable<ClientProfile<T>["extension"]>, params: JsonObject): JsonObject {
    const meta = {
      ...(this.#clientInfo ? { [CLIENT_INFO_META]: this.#clientInfo } : {}),
      ...this.#meta,
      ...objectOr(ownValue(params, "_meta")),
      // The client owns the revision it speaks (a -32022 answer may have changed it).
      ...(this.#protocolVersion === undefined ? {} : { [PROTOCOL_VERSION_META]: this.#protocolVersion }),
    };
    const declared = objectOr(ownValue(meta, extension.capabilitiesMeta));
    const extensions = {
      ...objectOr(ownValue(this.#capabilities, "extensions")),
      ...objectOr(ownValue(declared, "extensions")),
    };
    const tasks = objectOr(ownValue(extensions, extension.id));
    const capabilities = {
      ...this.#capabilities,
      ...declared,
      extensions: { ...extensions, [extension.id]: tasks },
    };
    return {
      ...params,
      _meta: { ...meta, [extension.capabilitiesMeta]: capabilities },
    };
  }

  #checkBody<B>(check: BodyCheck<B>, body: JsonObject): B {
    return this.#validateResults ? checkBody(check, body) : (body as B);
  }

  /** The task a request created, checked as its created result, or as the snapshot when it inlines its outcome. */
  #checkCreated(body: JsonObject): T["task"] {
    const { detailed, check } = this.#profile.created;
    if (detailed && inlinesOutcome(detailed.inlined, body)) {
      return this.#checkBody(detailed.check, body) as unknown as T["task"];
    }
    if (this.#profile.resultTag === "modeled") {
      // CreateTaskResult declares `resultType: "task"`: checked with it, the task is what remains.
      const { resultType: _tag, ...task } = this.#checkBody(check, { ...body, resultType: "task" }) as JsonObject;
      return this.#taskOf(task as T["created"]);
    }
    return this.#taskOf(this.#checkBody(check, body));
  }

  /** The task inside what created it. */
  #taskOf(created: T["created"]): T["task"] {
    return (this.#profile.created.flat ? created : ownValue(created as JsonObject, "task")) as T["task"];
  }

  /**
   * The created task as a snapshot to start waiting from, when it is one (with a per-status union:
   * a task that has not finished, or one that inlines its outcome); otherwise the wait starts with a poll.
   */
  #snapshotOf(task: T["task"]): T["snapshot"] | undefined {
    const detailed = this.#profile.created.detailed;
    if (!detailed) return task as unknown as T["snapshot"];
    // `_meta` of the created result is no part of the task.
    const rest: JsonObject = { ...task };
    delete rest._meta;
    return detailed.isSnapshot(rest) ? rest : undefined;
  }

  /** A best-effort `tasks/cancel`, for a task nobody waits for any more; a failure is only reported. */
  #cancelQuietly(taskId: string): void {
    const cancel = this.#profile.methods.cancel;
    // Without tasks/cancel an abandoned task runs on until it ends or expires.
    if (!cancel) return;
    this.call(cancel, { taskId }).then(
      () => {},
      (error: unknown) => this.#report(error),
    );
  }

  #report(error: unknown): void {
    try {
      this.#onError(error);
    } catch {
      // An error hook that throws must not break the client.
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Waiting for a task

/** What the profile's tasks tell a wait (see task-wait.ts). */
export function waitProfile<T extends ClientTypes>(
  profile: ClientProfile<T>,
): TaskWaitProfile<T["snapshot"], T["result"], T["payload"], T["answer"], T["handlers"]> {
  const { fields, errors, input } = profile;
  const read = (task: T["snapshot"], field: string) => ownValue(task as unknown as JsonObject, field);
  const completed = fields.completed;
  const failed = fields.failed;
  return {
    isTerminalStatus: (status) => profile.isTerminalStatus(status),
    pollInterval: (task) => {
      const interval = fields.pollInterval === undefined ? undefined : read(task, fields.pollInterval);
      return typeof interval === "number" ? interval : undefined;
    },
    expiry: (task) => expiryOf(read(task, fields.ttl), task),
    completed:
      completed === undefined
        ? (_task, payload) => payload() as Promise<unknown> as Promise<T["result"]>
        : (task) => read(task, completed) as T["result"],
    failed:
      failed === undefined
        ? // The failure itself is what `tasks/result` answers: the request's JSON-RPC error (or a result saying why).
          (task, payload) =>
            payload().then(
              (result) => new errors.failed(task, undefined, result),
              (error: unknown) =>
                new errors.failed(task, error instanceof JsonRpcResponseError ? error.toJSON() : undefined, undefined, {
                  cause: error,
                }),
            )
        : (task) => new errors.failed(task, rpcErrorOf(read(task, failed))),
    cancelled: (task) => new errors.cancelled(task),
    payloadDeliversInput: profile.payloadDeliversInput,
    ...(input ? { input: inputProfile<T>(input) } : {}),
  };
}

/** When the task's retention ends: `createdAt` + its TTL (undefined when unlimited or unreadable). */
function expiryOf(ttl: unknown, task: WaitSnapshot & { readonly createdAt?: unknown }): number | undefined {
  const createdAt = typeof task.createdAt === "string" ? Date.parse(task.createdAt) : Number.NaN;
  return typeof ttl === "number" && !Number.isNaN(createdAt) ? createdAt + ttl : undefined;
}

/** How a wait answers input requests. */
function inputProfile<T extends ClientTypes>(
  input: ClientInput,
): InputProfile<T["snapshot"], T["answer"], T["handlers"]> {
  return {
    requests: (task) =>
      ownValue(task as unknown as JsonObject, input.requestsField) as {
        readonly [key: string]: unknown;
      },
    run: (handlers, request, context) =>
      runInputHandler(input.routing, handlers as InputHandlerTable, request, context),
    check: (taskId, key, method, request, answer) =>
      checkAnswer<T["answer"]>(input, taskId, key, answer, { ...answeredRequest(request), method }),
  };
}

/** Handlers as the engine looks them up: by method. */
type InputHandlerTable = {
  readonly [method: string]: ((params: unknown, context: InputRequestContext) => unknown) | undefined;
};

/** Runs the handler of an input request's method; undefined when there is none and the method has no default answer. */
export function runInputHandler(
  routing: ClientInput["routing"],
  handlers: InputHandlerTable,
  request: unknown,
  context: InputRequestContext,
): Promise<unknown> | undefined {
  const params = isObject(request) ? ownValue(request, "params") : undefined;
  const handler = handlers[context.method];
  if (!routing) {
    // Untyped: any method with a handler, given its params as an object.
    if (handler) return answerWith(() => handler(isObject(params) ? params : {}, context));
    return context.method === "elicitation/create" ? Promise.resolve({ action: "cancel" }) : undefined;
  }
  const route = Object.hasOwn(routing, context.method) ? routing[context.method] : undefined;
  if (!route) return undefined;
  // Snapshots are validated (unless `validateResults: false`), so the request is one the schema describes.
  if (handler) return answerWith(() => handler(route.params ? params : undefined, context));
  // Without a handler the user was never asked: the elicitation is cancelled.
  return route.cancelByDefault ? Promise.resolve({ action: "cancel" }) : undefined;
}

/** A handler's answer as a promise, a throw included. */
function answerWith<R>(handler: () => R): Promise<Awaited<R>> {
  return new Promise<Awaited<R>>((resolve) => resolve(handler() as Awaited<R>));
}

/**
 * The answer as `tasks/update` carries it, or why it cannot be sent: answers are results, so JSON
 * objects, and must pass the schema; an accepted form (of `request`, the input request answered)
 * is judged by form-answers.ts: its defaults filled in, its content checked by the form.
 */
export function checkAnswer<Answer>(
  input: ClientInput,
  taskId: string,
  key: string,
  answer: unknown,
  request: AnsweredRequest = { method: "" },
): { readonly ok: true; readonly value: Answer } | { readonly ok: false; readonly error: Error } {
  const { params } = input.update;
  if (!isObject(answer)) {
    const path = `/${input.responsesField}/${pointerToken(key)}`;
    return {
      ok: false,
      error: new ValidationFailed(params.type, [clientError(path, "type", "an answer must be an object")]),
    };
  }
  const checked = checkFormAnswer(request, answer, {
    envelope: (envelope) => {
      const valid = params.validate({ taskId, [input.responsesField]: { [key]: envelope } });
      return valid.ok ? undefined : new ValidationFailed(params.type, valid.errors);
    },
    // An accepted form must fit the form it answers: the user sees the field errors, nothing is sent.
    form: formJudge(input.forms, request.method),
  });
  return checked.ok ? { ok: true, value: checked.value as Answer } : { ok: false, error: checked.problem };
}

// ---------------------------------------------------------------------------------------------
// Multi round-trip requests (mrtr.mdx)

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

/** The Streamable HTTP transport's error for headers that do not match the body. */
const HEADER_MISMATCH = -32020;

/** How many times a request may ask for input before the client gives up (a server may ask again, but not forever). */
export const DEFAULT_MAX_INPUT_ROUNDS = 16;

/** An input request of a request (not a task) could not be answered: no handler for its method, the handler threw, or its answer is invalid. */
export class InputRequestError extends Error {
  override readonly name = "InputRequestError";
  constructor(
    /** The request that asked (`tools/call`). */
    readonly method: string,
    /** The input request's key. */
    readonly key: string,
    /** The input request's method, when it has one. */
    readonly inputMethod: string | undefined,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(`${method}, input "${key}"${inputMethod ? ` (${inputMethod})` : ""}: ${message}`, options);
  }
}

/** A call asked to run as a task (`task` in its options) names a tool whose `execution.taskSupport` is "forbidden" (or says nothing): it is not sent. */
export class TaskForbiddenError extends Error {
  override readonly name = "TaskForbiddenError";
  constructor(readonly tool: string) {
    super(
      `tool ${JSON.stringify(tool)} does not run as a task (its execution.taskSupport is "forbidden"): call it without \`task\``,
    );
  }
}

/** A request kept asking for input after `maxInputRounds` answers. */
export class InputRoundsExceededError extends Error {
  override readonly name = "InputRoundsExceededError";
  constructor(
    readonly method: string,
    readonly maxInputRounds: number,
  ) {
    super(`${method}: still asks for input after ${maxInputRounds} rounds (maxInputRounds)`);
  }
}

/** The input requests and the state of an InputRequiredResult, checked: it must carry at least one of them. */
export function readInputRequired(
  profile: RoundTripProfile,
  method: string,
  result: JsonObject,
  validate: boolean,
): { readonly requests?: { readonly [key: string]: unknown }; readonly state?: string } {
  const requests = ownValue(result, profile.requestsField);
  const state = ownValue(result, profile.stateField);
  if (state !== undefined && typeof state !== "string") {
    throw new InvalidResponseError(method, `${profile.stateField} is not a string`, result);
  }
  if (requests === undefined) {
    if (state === undefined) {
      throw new InvalidResponseError(
        method,
        `an ${profile.resultType} result carries neither ${profile.requestsField} nor ${profile.stateField}`,
        result,
      );
    }
    return { state };
  }
  if (!isObject(requests)) throw new InvalidResponseError(method, `${profile.requestsField} is not an object`, result);
  if (validate) {
    const checked = profile.requests.validate(requests);
    if (!checked.ok) {
      throw new ValidationFailed(profile.requests.type, prefixed(`/${profile.requestsField}`, checked.errors));
    }
  }
  return state === undefined ? { requests } : { requests, state };
}

/** The retry's params: the original ones, the answers, and the state exactly as it came (each only when there is one). */
export function retryParams(
  profile: RoundTripProfile,
  params: JsonObject,
  answers: JsonObject | undefined,
  state: string | undefined,
): JsonObject {
  const retry: JsonObject = { ...params };
  delete retry[profile.responsesField];
  delete retry[profile.stateField];
  if (answers !== undefined) retry[profile.responsesField] = answers;
  if (state !== undefined) retry[profile.stateField] = state;
  return retry;
}

/** The answer as the retry carries it, or why it cannot be sent: an object that passes the schema, an accepted form judged by form-answers.ts. */
export function checkRoundTripAnswer(
  profile: RoundTripProfile,
  forms: FormCheck | undefined,
  key: string,
  method: string,
  request: unknown,
  answer: unknown,
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: Error } {
  const { responses } = profile;
  if (!isObject(answer)) {
    return {
      ok: false,
      error: new ValidationFailed(responses.type, [
        clientError(`/${pointerToken(key)}`, "type", "an answer must be an object"),
      ]),
    };
  }
  const checked = checkFormAnswer({ ...answeredRequest(request), method }, answer, {
    envelope: (envelope) => {
      const valid = responses.validate({ [key]: envelope });
      return valid.ok ? undefined : new ValidationFailed(responses.type, valid.errors);
    },
    // An accepted form must fit the form it answers: the user sees the field errors, nothing is sent.
    form: formJudge(forms, method),
  });
  return checked.ok ? { ok: true, value: checked.value } : { ok: false, error: checked.problem };
}

/** Why the handlers of a round are told to stop once it is over. */
function roundEnded(method: string, round: number): Error {
  const error = new Error(`round ${round} of ${method} ended`);
  error.name = "AbortError";
  return error;
}

/** Whether a call to a tool with this `taskSupport` runs as a task when the caller does not say. */
export function wantsTask(taskSupport: ToolTaskSupportValue, preferTasks: boolean): boolean {
  return taskSupport === "required" || (taskSupport === "optional" && preferTasks);
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** The request that opens a notification stream, and its messages (subscriptions.mdx). */
export const LISTEN_METHOD = "subscriptions/listen";
const LISTEN_ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
const SUBSCRIPTION_ID_META = "io.modelcontextprotocol/subscriptionId";
const DISCOVER_METHOD = "server/discover";
const METHOD_NOT_FOUND = -32601;
/** The extension's "missing required client capability" error. */
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
/** Listen streams a client keeps open at once, by default. */
export const DEFAULT_MAX_LISTEN_STREAMS = 4;

/**
 * What a message on a listen stream is to the subscription `id`: its acknowledgement (with the
 * agreed task ids), a notification of it, or not its own. An acknowledgement the set's
 * `acknowledgement` check rejects throws its ValidationFailed.
 */
export function listenMessage(
  message: unknown,
  id: string | number,
  acknowledgement?: BodyCheck<unknown>,
):
  | { readonly kind: "acknowledged"; readonly taskIds: readonly unknown[] }
  | { readonly kind: "notification" }
  | { readonly kind: "other" } {
  const params = isObject(message) ? ownValue(message, "params") : undefined;
  const meta = isObject(params) ? ownValue(params, "_meta") : undefined;
  // Every message of a subscription carries its id; anything else (another subscription's) is not this one's.
  if (
    !isObject(meta) ||
    ownValue(meta, SUBSCRIPTION_ID_META) !== id ||
    ownValue(message as JsonObject, "id") !== undefined
  )
    return { kind: "other" };
  if (ownValue(message as JsonObject, "method") !== LISTEN_ACKNOWLEDGED) return { kind: "notification" };
  // The set's check of the acknowledgement's params (its filter), where it has one: throws ValidationFailed.
  if (acknowledgement) checkBody(acknowledgement, params as JsonObject);
  const taskIds = ownValue(objectOr(ownValue(params as JsonObject, "notifications")), "taskIds");
  return { kind: "acknowledged", taskIds: Array.isArray(taskIds) ? taskIds : [] };
}

/** The request options of a call's options (its signal and timeout). */
function pickRequestOptions(options: TasksClientRequestOptions): TasksClientRequestOptions {
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
}

/** The id of the task a result created, if it created one. */
export function createdTaskId<T extends ClientTypes>(
  profile: ClientProfile<T>,
  result: JsonObject,
): string | undefined {
  if (profile.created.flat && profile.resultTag !== "none" && ownValue(result, "resultType") !== "task")
    return undefined;
  const task = profile.created.flat ? result : ownValue(result, "task");
  const taskId = isObject(task) ? ownValue(task, "taskId") : undefined;
  return typeof taskId === "string" ? taskId : undefined;
}

/** Whether a created task carries what its status inlines in `tasks/get`. */
function inlinesOutcome(
  inlined: readonly { readonly status: string; readonly field: string }[],
  body: JsonObject,
): boolean {
  const status = ownValue(body, "status");
  return inlined.some((entry) => status === entry.status && Object.hasOwn(body, entry.field));
}

/** The `_meta` keys of the stateless revisions' per-request protocol version and client identity. */
const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO_META = "io.modelcontextprotocol/clientInfo";

/** The params field `Mcp-Name` mirrors, by method (the Streamable HTTP transport's standard request headers). */
const NAME_SOURCES: { readonly [method: string]: string } = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/**
 * Streamable HTTP routing headers: `Mcp-Method`, and `Mcp-Name` for what the request is about
 * (the task for the extension's task methods; the tool, prompt or resource), encoded where unsafe.
 */
export function routingHeaders(taskMethods: readonly string[], method: string, params: JsonObject): TasksClientHeaders {
  const source = taskMethods.includes(method)
    ? "taskId"
    : Object.hasOwn(NAME_SOURCES, method)
      ? NAME_SOURCES[method]
      : undefined;
  const name = source === undefined ? undefined : ownValue(params, source);
  return typeof name === "string"
    ? { "Mcp-Method": method, "Mcp-Name": encodeHeaderValue(name) }
    : { "Mcp-Method": method };
}

/**
 * The revision to retry with after a -32022 "unsupported protocol version" answer: the client's
 * most preferred one among the server's `data.supported`; undefined for any other error, when
 * the two share none, or when the set's check of the error's `data` rejects it (the error then
 * reaches the caller as it came).
 */
export function retryVersion(
  error: unknown,
  supported: readonly string[],
  data?: BodyCheck<unknown>,
): string | undefined {
  if (!(error instanceof JsonRpcResponseError) || error.code !== UNSUPPORTED_PROTOCOL_VERSION) return undefined;
  if (data && !data.validate(error.data).ok) return undefined;
  const offered = isObject(error.data) ? ownValue(error.data, "supported") : undefined;
  if (!Array.isArray(offered)) return undefined;
  return supported.find((version) => offered.includes(version));
}

// ---------------------------------------------------------------------------------------------
// The server's own requests (2025-11-25)
//
// Where tasks have no `tasks/update`, a task that needs input sends its client requests of its own
// (an elicitation, a sampling request) tied to it with the related-task `_meta`; `tasks/result`
// delivers them, and any other server request comes the same way (the transport's `onRequest`).
// The client answers them with the same typed input handlers a wait uses for tasks/update.

/** JSON-RPC's "internal error": a handler failed, or its answer could not be sent. */
const INTERNAL_ERROR = -32603;
/** The `_meta` key that ties a request to a task. */
const RELATED_TASK = "io.modelcontextprotocol/related-task";

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

/** The task a request is tied to (its related-task `_meta`), if any. */
export function relatedTaskId(params: JsonObject | undefined): string | undefined {
  const meta = params === undefined ? undefined : ownValue(params, "_meta");
  const related = isObject(meta) ? ownValue(meta, RELATED_TASK) : undefined;
  const taskId = isObject(related) ? ownValue(related, "taskId") : undefined;
  return typeof taskId === "string" ? taskId : undefined;
}

/** Runs the handler of one server request and checks its answer; rejects with the JSON-RPC error to answer. */
export async function answerServerRequestWith(
  profile: ServerRequestsProfile,
  handlers: InputHandlerTable,
  request: TasksClientServerRequest,
  context: { readonly taskId: string; readonly signal: TasksClientSignal; readonly report: (error: unknown) => void },
): Promise<object> {
  const { method } = request;
  if (method === "ping") return {};
  const params = request.params ?? {};
  let running: Promise<unknown> | undefined;
  try {
    running = runInputHandler(
      profile.routing,
      handlers,
      { method, params },
      {
        taskId: context.taskId,
        key: String(request.id),
        method,
        signal: context.signal,
      },
    );
  } catch (error) {
    running = Promise.reject(error);
  }
  if (!running) throw new JsonRpcResponseError(method, METHOD_NOT_FOUND, `Method not found: ${method}`);
  let answer: unknown;
  try {
    answer = await running;
  } catch (error) {
    // A handler may answer an error of its own choosing; anything else is the client's failure.
    if (error instanceof JsonRpcResponseError) throw error;
    context.report(error);
    throw new JsonRpcResponseError(method, INTERNAL_ERROR, `${method}: the handler failed`);
  }
  const checked = checkServerAnswer(profile, method, params, answer);
  if (checked instanceof Error) {
    context.report(checked);
    throw new JsonRpcResponseError(method, INTERNAL_ERROR, `${method}: ${checked.message}`);
  }
  return checked;
}

/** The answer as it is sent, or why it cannot be: an accepted form judged by form-answers.ts (defaults, envelope, form). */
function checkServerAnswer(
  profile: ServerRequestsProfile,
  method: string,
  params: JsonObject,
  answer: unknown,
): object | Error {
  if (!isObject(answer)) return new ValidationFailed(method, [clientError("", "type", "an answer must be an object")]);
  const check = profile.results && Object.hasOwn(profile.results, method) ? profile.results[method] : undefined;
  const checked = checkFormAnswer({ method, params }, answer, {
    envelope: (envelope) => {
      if (!check) return undefined;
      try {
        checkBody(check, envelope as JsonObject);
        return undefined;
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
    },
    form: formJudge(profile.forms, method),
  });
  return checked.ok ? (checked.value as JsonObject) : checked.problem;
}

/** The capabilities of the methods the handlers answer (an elicitation is answered even without one, but declared only with one). */
export function capabilitiesOf(profile: ServerRequestsProfile, handlers: InputHandlerTable): JsonObject {
  const capabilities: JsonObject = {};
  for (const [method, capability] of Object.entries(profile.capabilities)) {
    if (typeof handlers[method] !== "function") continue;
    for (const [name, value] of Object.entries(capability)) {
      capabilities[name] = mergeObjects(objectOr(capabilities[name]), objectOr(value));
    }
  }
  return capabilities;
}

/** Two capability objects merged, nested objects too. */
function mergeObjects(a: JsonObject, b: JsonObject): JsonObject {
  const merged: JsonObject = { ...a };
  for (const [key, value] of Object.entries(b)) {
    merged[key] = isObject(value) && isObject(merged[key]) ? mergeObjects(merged[key] as JsonObject, value) : value;
  }
  return merged;
}

// ---------------------------------------------------------------------------------------------
// The client as a task receiver (2025-11-25)
//
// The server may send an elicitation or a sampling request as a task (`params.task`) to a client
// that declares `tasks.requests.elicitation.create` (or `sampling.createMessage`). The client
// answers the task at once (`{ task }`), runs the handler meanwhile, and answers the server's
// `tasks/*` requests about it. The tasks are those of the set's own server (`server.ts`): the same
// store, status machine and answers as a server's tasks, with the server as their only owner.

/** The requests about the client's tasks the server may send. */
const TASK_RECEIVER_METHODS: readonly string[] = ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"];

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

/** The `tasks` capability of a receiver: list, cancel, and each request with a handler under `requests` (`elicitation/create` → `elicitation.create`). */
export function receiverCapabilities(profile: ServerRequestsProfile, handlers: InputHandlerTable): JsonObject {
  const requests: JsonObject = {};
  for (const method of Object.keys(profile.routing)) {
    if (typeof handlers[method] !== "function") continue;
    const [group, name] = method.split("/");
    if (!group || !name) continue;
    requests[group] = { ...objectOr(requests[group]), [name]: {} };
  }
  if (Object.keys(requests).length === 0) return {};
  return { tasks: { list: {}, cancel: {}, requests } };
}

/** The client's tasks: requests the server sent as tasks, run by the handlers, kept by the set's server. */
class TaskReceiver {
  readonly #server: ReceiverServer;
  readonly #report: (error: unknown) => void;
  #nextId = 1;

  constructor(server: ReceiverServer, report: (error: unknown) => void) {
    this.#server = server;
    this.#report = report;
  }

  /** Creates the task and answers `{ task }` at once; the handler's answer completes it, its error fails it. */
  async start(
    augmentField: string,
    request: TasksClientServerRequest,
    run: (plain: TasksClientServerRequest, signal: TasksClientSignal, taskId: string) => Promise<object>,
  ): Promise<object> {
    const { [augmentField]: augmentation, ...params } = request.params ?? {};
    const ttl = isObject(augmentation) ? ownValue(augmentation, "ttl") : undefined;
    const handle = await this.#server.createTask({}, typeof ttl === "number" || ttl === null ? { ttl } : {});
    void run({ id: request.id, method: request.method, params }, handle.signal, handle.taskId)
      .then(
        (result) => handle.complete(result as JsonObject),
        (error: unknown) =>
          handle.fail(
            error instanceof JsonRpcResponseError ? error.toJSON() : { code: INTERNAL_ERROR, message: String(error) },
          ),
      )
      .catch((error: unknown) => {
        // Cancelled meanwhile: the status machine refuses to finish it, as it should.
        if (!handle.signal.aborted) this.#report(error);
      });
    return handle.createResult;
  }

  /** Answers `tasks/*` about the client's tasks as the set's server does. */
  async answer(request: TasksClientServerRequest): Promise<object> {
    const message = { jsonrpc: "2.0", id: this.#nextId++, method: request.method, params: request.params ?? {} };
    const response = await this.#server.handle(message);
    const error = isObject(response) ? rpcErrorOf(ownValue(response, "error")) : undefined;
    if (error) throw new JsonRpcResponseError(request.method, error.code, error.message, error.data);
    const result = isObject(response) ? ownValue(response, "result") : undefined;
    if (!isObject(result)) throw new JsonRpcResponseError(request.method, INTERNAL_ERROR, "Internal error");
    return result;
  }

  close(): void {
    this.#server.close();
  }
}

/**
 * `Mcp-Param-{Name}` headers of a tool call (the Streamable HTTP transport's custom headers): each
 * annotated argument, read at its exact property path, as a string (integers in decimal, booleans
 * `true`/`false`) encoded by `encodeHeaderValue`; an absent or null argument has no header. An
 * argument of another kind cannot be mirrored, so the call is not sent.
 */
export function paramHeaders(
  annotations: readonly HeaderAnnotation[],
  args: JsonObject | undefined,
): TasksClientHeaders {
  const headers: { [name: string]: string } = {};
  for (const { header, path } of annotations) {
    let value: unknown = args;
    for (const key of path) value = isObject(value) ? ownValue(value, key) : undefined;
    if (value === undefined || value === null) continue;
    let text: string;
    if (typeof value === "string") text = value;
    else if (typeof value === "boolean") text = value ? "true" : "false";
    else if (typeof value === "number" && Number.isSafeInteger(value)) text = String(value);
    else {
      const pointer = `/arguments/${path.map(pointerToken).join("/")}`;
      throw new ValidationFailed("CallToolRequestParams", [
        clientError(pointer, "x-mcp-header", `Mcp-Param-${header} takes a string, a safe integer or a boolean`),
      ]);
    }
    headers[`Mcp-Param-${header}`] = encodeHeaderValue(text);
  }
  return headers;
}

/**
 * A header value as the Streamable HTTP transport carries it: as it is when it is plain visible
 * ASCII or space without leading or trailing space; otherwise (non-ASCII, control characters,
 * edge whitespace, or a value that itself looks like the sentinel) `=?base64?{UTF-8 in Base64}?=`.
 * The same rule serves `Mcp-Name` and `Mcp-Param-{Name}`.
 */
export function encodeHeaderValue(value: string): string {
  const plain =
    /^[\x20-\x7e]*$/.test(value) &&
    !value.startsWith(" ") &&
    !value.endsWith(" ") &&
    !(value.startsWith("=?base64?") && value.endsWith("?="));
  return plain ? value : `=?base64?${base64(utf8(value))}?=`;
}

/** UTF-8 bytes of a string; a lone surrogate becomes U+FFFD, as TextEncoder writes it. */
function utf8(text: string): number[] {
  const bytes: number[] = [];
  for (const char of text) {
    let code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else {
      bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    }
  }
  return bytes;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard Base64 with padding (no host's `btoa` or `Buffer` needed). */
function base64(bytes: readonly number[]): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const n = (bytes[i]! << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += BASE64.charAt((n >> 18) & 63) + BASE64.charAt((n >> 12) & 63);
    out += b === undefined ? "=" : BASE64.charAt((n >> 6) & 63);
    out += c === undefined ? "=" : BASE64.charAt(n & 63);
  }
  return out;
}
