/**
 * The Tasks client of the generated stubs, copied unchanged into every set that has a client (as
 * `client-engine.ts`): sending requests the way the revision wants them, checking what comes back,
 * creating tasks and following them with task-wait.ts, answering their input requests, tool calls
 * and status notifications. What the schema decides comes in two parts the set's `client.ts`
 * binds: its types (`ClientTypes`) and its protocol profile (`ClientProfile`: the task methods
 * with their validators, field names, revision features). The set's `client.ts` subclasses
 * `TasksClientEngine` with one typed method per task method (see ARCHITECTURE.md, "Stubs").
 */
import { isObject, ownValue, pointerToken, ValidationFailed, type JsonObject } from "./runtime.js";
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
  InvalidResponseError,
  JsonRpcResponseError,
  objectOr,
  prefixed,
  readResult,
  rpcErrorOf,
  splitTag,
  host,
  TasksClientClosedError,
  type BodyCheck,
  type MethodSpec,
  type RpcErrorObject,
  type TasksClientHeaders,
  type TasksClientOnRequest,
  type TasksClientRequest,
  type TasksClientSend,
  type TasksClientServerRequest,
  type TasksClientSignal,
  type TasksClientSubscribe,
} from "./client-core.js";
import { TaskWait, type InputProfile, type TaskWaitProfile, type WaitClient, type WaitSnapshot } from "./task-wait.js";

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
}

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
   * Whether results carry `resultType` ("task" or "complete"): "none", no tag; "apart", a tag the
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
  /** Validate results and notifications with the generated validators (default true). Params are always validated. */
  readonly validateResults?: boolean;
  /** Gives up on a request after this many milliseconds (default 60 000; 0 never gives up). */
  readonly requestTimeoutMs?: number;
  /** Defaults of `waitForTask`'s poll bounds (250 ms and 60 s). */
  readonly minPollMs?: number;
  readonly maxPollMs?: number;
  /** `_meta` entries every request carries (a request's own `_meta` wins), e.g. the stateless protocol's `io.modelcontextprotocol/protocolVersion`. */
  readonly meta?: JsonObject;
  /** Told about what the client drops or fails to do in the background: invalid notifications, failed best-effort cancels, throwing listeners. */
  readonly onError?: (error: unknown) => void;
}

/** The options of a client that answers the server's own requests (see `ServerRequestsProfile`). */
export interface ServerRequestOptions<Handlers, ReceiverOptions = never> {
  /** How the transport hands over the server's requests (or call `answerServerRequest` yourself). */
  readonly onRequest?: TasksClientOnRequest;
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
  readonly taskId: string;
  /** The request's key in the task's input requests (unique for the task's lifetime). */
  readonly key: string;
  readonly method: string;
  /** Aborted when the wait ends (the task finished, or the wait was abandoned). */
  readonly signal: TasksClientSignal;
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
export interface TasksClientCore<Snapshot, Result, Task, WaitForTaskOptions, StartToolCallOptions, CallToolOptions> {
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
  /** Any other request, sent the way this revision wants (with the extension declared and routing headers, where tasks are an extension); the result is returned as it came, only checked to be an object. */
  request(method: string, params?: JsonObject, options?: TasksClientRequestOptions): Promise<JsonObject>;
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
  ToolCallWaitOptions<T["task"]>;

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
  TasksClientRequestOptions,
  CallOptions<T>
> {
  readonly #profile: ClientProfile<T>;
  readonly #send: TasksClientSend;
  readonly #validateResults: boolean;
  readonly #timeoutMs: number;
  readonly #minPollMs: number;
  readonly #maxPollMs: number;
  readonly #meta: JsonObject | undefined;
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
    this.#capabilities = options.clientCapabilities ?? {};
    this.#onError = options.onError ?? (() => {});
    this.#waitProfile = waitProfile(profile);
    this.#waitClient = this.#makeWaitClient();
    const unsubscribe = options.onNotification?.((notification) => this.handleNotification(notification));
    this.#unsubscribe = typeof unsubscribe === "function" ? unsubscribe : undefined;
    this.#inputHandlers = options.inputHandlers;
    this.#receiverOptions = options.taskReceiver ?? {};
    const stop = profile.serverRequests
      ? options.onRequest?.((request) => this.answerServerRequest(request))
      : undefined;
    this.#stopRequests = typeof stop === "function" ? stop : undefined;
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

  async startToolCall(
    params: ToolCallParams,
    options: TasksClientRequestOptions = {},
  ): Promise<ToolCallStartOf<T["task"]>> {
    const { augment, resultTag } = this.#profile;
    const requestOptions = pickRequestOptions(options);
    if (augment) {
      const augmentation = ownValue(options as JsonObject, augment.field);
      if (augmentation === undefined) {
        return {
          kind: "complete",
          result: await this.request("tools/call", { ...params }, requestOptions),
        };
      }
      const result = await this.#create("tools/call", { ...params, [augment.field]: augmentation }, requestOptions);
      // A receiver that does not run this tool as a task answers its plain result.
      if (!Object.hasOwn(result, "task")) return { kind: "complete", result };
      return {
        kind: "task",
        task: this.#taskOf(this.#checkBody(this.#profile.created.check, result)),
      };
    }
    const result = await this.#create("tools/call", { ...params }, options);
    if (resultTag === "none")
      return {
        kind: "task",
        task: this.#taskOf(this.#checkBody(this.#profile.created.check, result)),
      };
    const { tag, body } = splitTag("tools/call", result);
    return tag === "task" ? { kind: "task", task: this.#checkCreated(body) } : { kind: "complete", result: body };
  }

  async callTool(params: ToolCallParams, options: CallOptions<T> = {}): Promise<JsonObject> {
    const { timeoutMs, onTaskCreated, ...waitOptions } = options;
    const field = this.#profile.augment?.field;
    const augmentation = field === undefined ? undefined : ownValue(options as JsonObject, field);
    const start = await this.startToolCall(params, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(field !== undefined && augmentation !== undefined ? { [field]: augmentation } : {}),
    });
    if (start.kind === "complete") return start.result;
    onTaskCreated?.(start.task);
    // The task's result is the tool's result: a result object (the set's validators checked it).
    return this.#wait(start.task.taskId, waitOptions, this.#snapshotOf(start.task)) as Promise<JsonObject>;
  }

  request(method: string, params?: JsonObject, options: TasksClientRequestOptions = {}): Promise<JsonObject> {
    return this.#request(method, params, options);
  }

  onTaskStatus(listener: (task: T["snapshot"]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  handleNotification(notification: unknown): void {
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
    const result = await this.#request(spec.method, checkParams(spec, params), options);
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
              await this.call(input.update, { taskId, [input.responsesField]: { [key]: answer } }, { signal });
            },
          }
        : {}),
      cancel: (taskId) => this.#cancelQuietly(taskId),
      report: (error) => this.#report(error),
      finished: (wait) => this.#waits.delete(wait),
    };
  }

  /**
   * Sends a request that may create a task. Abandoning it (the signal) rejects at once but does
   * not stop the request: a task it creates anyway belongs to nobody, so it is cancelled.
   */
  #create(method: string, params: JsonObject, options: TasksClientRequestOptions): Promise<JsonObject> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const sending = this.#request(
      method,
      params,
      options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
    );
    return abandonable(sending, signal, (result) => {
      const taskId = createdTaskId(this.#profile, result);
      if (taskId !== undefined) this.#cancelQuietly(taskId);
    });
  }

  /** Sends a request and returns its result object; a JSON-RPC error rejects with JsonRpcResponseError. */
  async #request(
    method: string,
    params: JsonObject | undefined,
    options: TasksClientRequestOptions,
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
    const headers = extension && sent ? routingHeaders(extension.taskMethods, method, sent) : {};
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    return readResult(await exchange(this.#send, request, headers, { ...options, timeoutMs }), request);
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
    const meta = { ...this.#meta, ...objectOr(ownValue(params, "_meta")) };
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
    check: (taskId, key, method, request, answer) => {
      const checked = checkAnswer<T["answer"]>(input, taskId, key, answer);
      // An accepted form must fit the form it answers: the user sees the field errors, nothing is sent.
      const form =
        checked.ok && input.forms?.method === method ? formProblem(input.forms, request, checked.value) : undefined;
      if (form) return { ok: false, error: form };
      return checked;
    },
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

/** The answer as `tasks/update` carries it, or why it cannot be sent: answers are results, so JSON objects, and must pass the schema. */
export function checkAnswer<Answer>(
  input: ClientInput,
  taskId: string,
  key: string,
  answer: unknown,
): { readonly ok: true; readonly value: Answer } | { readonly ok: false; readonly error: ValidationFailed } {
  const { params } = input.update;
  if (!isObject(answer)) {
    const path = `/${input.responsesField}/${pointerToken(key)}`;
    return {
      ok: false,
      error: new ValidationFailed(params.type, [clientError(path, "type", "an answer must be an object")]),
    };
  }
  const checked = params.validate({
    taskId,
    [input.responsesField]: { [key]: answer },
  });
  if (!checked.ok)
    return {
      ok: false,
      error: new ValidationFailed(params.type, checked.errors),
    };
  const answers = objectOr(ownValue(objectOr(checked.value), input.responsesField));
  return { ok: true, value: ownValue(answers, key) as Answer };
}

/** Why an accepting answer does not fit the form it answers (undefined when it fits, or when the request has no form). */
function formProblem(forms: FormCheck, request: unknown, answer: unknown): Error | undefined {
  const params = isObject(request) ? ownValue(request, "params") : undefined;
  const requestedSchema = isObject(params) ? ownValue(params, "requestedSchema") : undefined;
  if (requestedSchema === undefined || !isObject(answer) || ownValue(answer, "action") !== "accept") return undefined;
  return forms.problem(requestedSchema, ownValue(answer, "content") ?? {});
}

// ---------------------------------------------------------------------------------------------
// Helpers

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

/** Streamable HTTP routing headers: `Mcp-Method`, and `Mcp-Name` for what the request is about (the task, or the tool). */
export function routingHeaders(taskMethods: readonly string[], method: string, params: JsonObject): TasksClientHeaders {
  const name = taskMethods.includes(method)
    ? ownValue(params, "taskId")
    : method === "tools/call"
      ? ownValue(params, "name")
      : undefined;
  return typeof name === "string" ? { "Mcp-Method": method, "Mcp-Name": name } : { "Mcp-Method": method };
}

// ---------------------------------------------------------------------------------------------
// The server's own requests (2025-11-25)
//
// Where tasks have no `tasks/update`, a task that needs input sends its client requests of its own
// (an elicitation, a sampling request) tied to it with the related-task `_meta`; `tasks/result`
// delivers them, and any other server request comes the same way (the transport's `onRequest`).
// The client answers them with the same typed input handlers a wait uses for tasks/update.

/** JSON-RPC's "method not found": a server request no handler answers. */
const METHOD_NOT_FOUND = -32601;
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

/** The answer as it is sent (an accepted form with its defaults filled in), or why it cannot be. */
function checkServerAnswer(
  profile: ServerRequestsProfile,
  method: string,
  params: JsonObject,
  answer: unknown,
): object | Error {
  if (!isObject(answer)) return new ValidationFailed(method, [clientError("", "type", "an answer must be an object")]);
  const filled = method === "elicitation/create" ? withFormDefaults(params, answer) : answer;
  const check = profile.results && Object.hasOwn(profile.results, method) ? profile.results[method] : undefined;
  if (check) {
    try {
      checkBody(check, filled);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }
  if (profile.forms?.method === method) {
    const problem = formProblem(profile.forms, { params }, filled);
    if (problem) return problem;
  }
  return filled;
}

/**
 * An accepting answer with the form's defaults for the fields it leaves out (SEP-1034: a field's
 * `default` is what the user accepted when they did not change it). The handler's values win.
 */
export function withFormDefaults(params: JsonObject, answer: JsonObject): JsonObject {
  if (ownValue(answer, "action") !== "accept") return answer;
  const schema = ownValue(params, "requestedSchema");
  const properties = isObject(schema) ? ownValue(schema, "properties") : undefined;
  if (!isObject(properties)) return answer;
  const defaults: JsonObject = {};
  for (const [name, field] of Object.entries(properties)) {
    const value = isObject(field) ? ownValue(field, "default") : undefined;
    if (isFieldValue(value)) defaults[name] = Array.isArray(value) ? [...value] : value;
  }
  if (Object.keys(defaults).length === 0) return answer;
  return { ...answer, content: { ...defaults, ...objectOr(ownValue(answer, "content")) } };
}

/** A value a form field can hold (text, a number, yes/no, the options of a multi-select). */
function isFieldValue(value: unknown): value is string | number | boolean | string[] {
  return (
    typeof value === "string" ||
    typeof value === "number" ||
    typeof value === "boolean" ||
    (Array.isArray(value) && value.every((v) => typeof v === "string"))
  );
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
