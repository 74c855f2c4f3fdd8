/**
 * The generated Tasks server itself, copied unchanged into every set that has one: the method
 * handlers (tasks/get, cancel, update, list, result), status notifications and subscriptions, and
 * the handles tool code gets, over the task engine (`task-engine.ts`) and JSON-RPC (`json-rpc.ts`).
 * What differs between revisions is data, a `ServerProfile` (`profile.ts`) the set's `server.ts`
 * declares from its schema, with the set's validators and status machine passed in. This module
 * re-exports the profile, listen and side-channel modules, so a set imports the server from one place.
 */
export * from "./profile.js";
export * from "./listen.js";
export * from "./side-channel.js";
import { answeredRequest, checkFormAnswer, locatedFormCheck, type FormContentCheck } from "../protocol/form-answers.js";
import {
  isObject,
  ownValue,
  pointerToken,
  type JsonObject,
  type ValidationError,
  type ValidationResult,
} from "../protocol/json.js";
import {
  grantedTtl,
  hasTaskEvents,
  hasTaskLeases,
  host,
  InMemoryTaskStoreOf,
  isJsonRpcErrorObject,
  JSON_RPC_ERROR_CODES,
  JsonRpcError,
  methodNotFound,
  newInstanceId,
  paramsObject,
  positiveInteger,
  readEnvelope,
  requestContext,
  required,
  respond,
  TaskEngine,
  TaskLimitError,
  TERMINAL_TASK_STATUSES,
  validParams,
  validParamsBut,
  withoutMeta,
  type HeaderCheckOf,
  type JsonRpcResponse,
  type RequestContext,
  type ServerToClientSend,
  type TransportContext,
} from "./core.js";
import {
  DEFAULT_MAX_LISTEN_DURATION,
  DEFAULT_MAX_LISTEN_STREAMS_PER_OWNER,
  LISTEN_METHOD,
  ListenLimitError,
  type ListenOutcome,
  type ListenSink,
  listenTaskIds,
  RELATED_TASK_META,
  SUBSCRIPTION_ACKNOWLEDGED,
  SUBSCRIPTION_ID_META,
} from "./listen.js";
import {
  addDetailedTask,
  addWireTask,
  type AnyTask,
  createdResult,
  type CreateTaskOptions,
  type HeaderCheckOptions,
  type InputHandleOf,
  type InputTask,
  type ListenOptions,
  ORPHANED_TASK_ERROR,
  type PagingOptions,
  type RouteProfile,
  type ServerBindings,
  type ServerProfile,
  type StatusListenerOf,
  statusNotification,
  type StoredInputOf,
  type TaskHandleOf,
  type TaskListingOf,
  type TaskParams,
  type TaskRouteProfile,
  type TasksServerFor,
  type TasksServerOptionsOf,
  type TaskStoreFor,
  wireTask,
} from "./profile.js";
import {
  sideChannelFailure,
  type SideChannelHandleOf,
  type SideChannelOutcome,
  sideChannelOutcome,
  type SideChannelProfile,
  sideChannelRequest,
  type StoredInputErrorsOf,
  withSideChannelAnswer,
} from "./side-channel.js";

/** The methods of a profile's routes. */
type MethodOf<Profile extends ServerProfile> = Profile["routes"][number]["method"];

/** The options the server reads: the set's `TasksServerOptions` is these, less what its revision lacks. */
type EngineOptions<Task extends AnyTask, Profile extends ServerProfile> = TasksServerOptionsOf<
  TaskStoreFor<Task> & Partial<TaskListingOf<Task>>
> &
  PagingOptions &
  HeaderCheckOptions<MethodOf<Profile>> &
  ListenOptions;

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
  readonly #listens = new Set<{
    end(): void;
    readonly owner: string;
    readonly taskIds: ReadonlySet<string>;
  }>();
  /** How many of `#listens` each owner holds (the per-owner cap counts these). */
  readonly #listensByOwner = new Map<string, number>();
  readonly #maxListensPerOwner: number;
  /** Milliseconds a listen stream stays open; 0 never ends it. */
  readonly #maxListenDuration: number;
  readonly #finalWriteRetry: number;
  /** The profile's routes by method (a Map: no inherited name is a route). */
  readonly #routes: ReadonlyMap<string, RouteProfile>;

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
    this.#routes = new Map(profile.routes.map((route) => [route.method, route]));
    this.#bindings = bindings;
    this.#store = options.store ?? new InMemoryTaskStoreOf<Task>(options.now ? { now: options.now } : {});
    this.#maxTtl = options.maxTtl === undefined ? 24 * 60 * 60 * 1000 : options.maxTtl;
    this.#defaultTtl = positiveInteger(options.defaultTtl, 60 * 60 * 1000);
    this.#pollInterval = positiveInteger(options.pollInterval, 1000);
    this.#pageSize = positiveInteger(options.pageSize, 50);
    this.#checkHeaders = options.checkHeaders ?? bindings.checkHeaders;
    this.#now = options.now ?? Date.now;
    this.#finalWriteRetry = options.finalWriteRetry === 0 ? 0 : positiveInteger(options.finalWriteRetry, 600_000);
    this.#maxListensPerOwner = positiveInteger(options.maxListenStreamsPerOwner, DEFAULT_MAX_LISTEN_STREAMS_PER_OWNER);
    this.#maxListenDuration =
      options.maxListenDuration === 0 ? 0 : positiveInteger(options.maxListenDuration, DEFAULT_MAX_LISTEN_DURATION);
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
    const route = this.#routes.get(method);
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
    // One object: `resultType` first (where results carry it), then the task's fields.
    const result = this.#profile.resultType ? { resultType: "complete" } : {};
    return this.#profile.inlined
      ? addDetailedTask(result, this.#profile, task)
      : addWireTask(result, this.#profile, task);
  }

  async #cancelTask(params: TaskParams, context: RequestContext): Promise<object> {
    const change = await this.#engine.writeExisting(context.owner, params.taskId, (task) =>
      this.#bindings.isTerminalStatus(task.status)
        ? undefined
        : {
            ...task,
            status: "cancelled",
            statusMessage: "Cancelled by the client.",
            ...this.#noInput(),
          },
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
    return {
      ...task.result,
      _meta: {
        ...(isObject(meta) ? meta : {}),
        [RELATED_TASK_META]: { taskId: task.taskId },
      },
    };
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
    let task: Task;
    try {
      task = await (lease ? this.#store.create(record, lease) : this.#store.create(record));
    } catch (error) {
      // A full store is the operator's to hear of (the caller gets -32012); an owner's quota is the caller's own.
      if (error instanceof TaskLimitError) this.#engine.report(error);
      throw error;
    }
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
      const error = {
        code: JSON_RPC_ERROR_CODES.InvalidRequest,
        message: "Invalid request: listen needs an id",
      };
      return {
        kind: "answered",
        response: { jsonrpc: "2.0", id: null, error },
      };
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
    // Checked and counted before the first await, so concurrent requests cannot all slip under the cap.
    const held = this.#listensByOwner.get(context.owner) ?? 0;
    if (held >= this.#maxListensPerOwner) throw new ListenLimitError(this.#maxListensPerOwner);
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
      deliver({
        ...(notification as JsonObject),
        params: { ...params, _meta: meta },
      });
    });
    let timeLimit: unknown;
    const stop = () => {
      open = false;
      unsubscribe();
      host.clearTimeout(timeLimit);
      context.signal?.removeEventListener("abort", stop);
      if (!this.#listens.delete(subscription)) return;
      const left = (this.#listensByOwner.get(context.owner) ?? 1) - 1;
      if (left > 0) this.#listensByOwner.set(context.owner, left);
      else this.#listensByOwner.delete(context.owner);
    };
    const subscription = {
      owner: context.owner,
      taskIds: agreed,
      end: () => {
        if (!open) return;
        stop();
        // Graceful closure: the response to the listen request, then the end of the stream.
        sink.send({
          jsonrpc: "2.0",
          id,
          result: { resultType: "complete", _meta: meta },
        });
        sink.end();
      },
    };
    // The client closing the stream cancels the subscription: nothing more is written.
    context.signal?.addEventListener("abort", stop, { once: true });
    this.#listens.add(subscription);
    this.#listensByOwner.set(context.owner, held + 1);
    // The stream's time limit: ended gracefully, the client opens a new one (and reads its task again).
    if (this.#maxListenDuration > 0) {
      timeLimit = host.setTimeout(subscription.end, this.#maxListenDuration);
      (timeLimit as { unref?: () => void }).unref?.();
    }
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
      params: {
        _meta: meta,
        notifications: taskIds === undefined ? {} : { taskIds: [...agreed] },
      },
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
  *#listenedTo(): Iterable<{
    readonly owner: string;
    readonly taskId: string;
  }> {
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
        // An added status the config makes final is reached here; the protocol's own final ones are not.
        if (
          status === "input_required" ||
          (this.#bindings.isTerminalStatus(status) && TERMINAL_TASK_STATUSES.includes(status))
        )
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
        await change("complete", (current) => ({
          ...current,
          status: "completed",
          result,
          ...noInput,
        }));
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

  /**
   * The answer to input `key` of a task, once it is stored: the one wait both kinds of input handle
   * use. A side-channel answer the client refused is stored as an error, thrown here; the task's end
   * before an answer, or a key it never asked for, is an error too.
   */
  #answerTo(owner: string, taskId: string, key: string): Promise<unknown> {
    const { isTerminalStatus, StateError } = this.#bindings;
    return this.#engine
      .waitOut(owner, taskId, (stored) => {
        const current = stored as Task & InputTask & StoredInputErrorsOf;
        if (Object.hasOwn(current.inputResponses, key)) return { answer: current.inputResponses[key] };
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
  }

  /** requireInput and input of a handle, where tasks ask for input. */
  #inputHandle(
    owner: string,
    taskId: string,
    change: (describe: string, next: (task: Task) => Task) => Promise<void>,
  ): InputHandleOf<unknown, unknown> {
    const input = (key: string): Promise<unknown> => this.#answerTo(owner, taskId, key);
    const requireInput = async (key: string, request: unknown): Promise<unknown> => {
      await change(`ask for input "${key}"`, (stored) => askedForInput(stored as Task & InputTask, key, request));
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
    const state = this.#delivering.get(taskId) ?? {
      keys: new Set<string>(),
      loops: 0,
    };
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
  ): SideChannelHandleOf<{
    [method: string]: { params: object; result: object };
  }> {
    const sideChannel = this.#profile.sideChannel!;
    const input = (key: string): Promise<object> => this.#answerTo(owner, taskId, key) as Promise<object>;
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
      await change(`ask for input "${key}"`, (stored) =>
        askedForInput(stored as Task & InputTask, key, { method, params: request.params }),
      );
      return input(key);
    };
    return { requireInput, input } as SideChannelHandleOf<{
      [method: string]: { params: object; result: object };
    }>;
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
 * A task that asks for input under `key`: `input_required` with the request kept beside the others
 * and the key used up (both handles, plain and side channel, ask through this). A key is never reused.
 */
function askedForInput<T extends InputTask>(current: T, key: string, request: unknown): T {
  if (current.inputKeys.includes(key))
    throw new Error(`Input key "${key}" was already used by this task; keys are unique for a task's lifetime`);
  return {
    ...current,
    status: "input_required",
    // fromEntries: a key named `__proto__` is an own property here, as it is on the wire.
    inputRequests: { ...current.inputRequests, ...Object.fromEntries([[key, request]]) },
    inputKeys: [...current.inputKeys, key],
  };
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
