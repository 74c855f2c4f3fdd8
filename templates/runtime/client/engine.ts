/**
 * The Tasks client engine of the generated stubs, copied unchanged into every set that has a client
 * (as `runtime/client/engine.ts`): the `TasksClientEngine` class alone, sending requests the way the
 * revision wants them, checking what comes back, creating tasks and following them (task-wait.ts),
 * running multi round-trips (round-trips.ts), tool calls (tool-catalog.ts, headers.ts), status
 * streams (listen.ts) and the server's own requests (server-requests.ts). What the schema decides
 * comes in two parts the set's `client.ts` binds (profile.ts): its types (`ClientTypes`) and its
 * protocol profile (`ClientProfile`). The set's `client.ts` subclasses `TasksClientEngine` with one
 * typed method per task method (see ARCHITECTURE.md, "Stubs").
 */
import { isObject, ownValue, ValidationFailed, type JsonObject } from "../protocol/json.js";
import {
  CLIENT_INFO_META,
  DISCOVER_METHOD,
  JSON_RPC_ERROR_CODES,
  PROTOCOL_VERSION_META,
  TASKS_EXTENSION_ERROR_CODES,
} from "../protocol/constants.js";
import {
  abandonable,
  abortReason,
  checkBody,
  checkParams,
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
  splitTag,
  TasksClientClosedError,
  type BodyCheck,
  type MethodSpec,
  type TasksClientHeaders,
  type TasksClientListen,
  type TasksClientRequest,
  type TasksClientSend,
  type TasksClientServerRequest,
  type TasksClientSignal,
} from "./core.js";
import { TaskWait, type TaskWaitProfile, type WaitClient } from "./task-wait.js";
import { ToolCatalog, ToolRejectedError, TOOLS_LIST, TOOLS_LIST_CHANGED, type CatalogEntry } from "./tool-catalog.js";
import { checkRoundTripAnswer, runInputHandler, type InputHandlerTable } from "./input-answers.js";
import { DEFAULT_MAX_LISTEN_STREAMS, ListenStreams } from "./listen.js";
import { paramHeaders, routingHeaders } from "./headers.js";
import { retryVersion } from "./versions.js";
import {
  DEFAULT_MAX_INPUT_ROUNDS,
  InputRequestError,
  InputRoundsExceededError,
  readInputRequired,
  retryParams,
  roundEnded,
} from "./round-trips.js";
import {
  answerServerRequestWith,
  capabilitiesOf,
  mergeObjects,
  receiverCapabilities,
  relatedTaskId,
  TASK_RECEIVER_METHODS,
  TaskReceiver,
} from "./server-requests.js";
import { createdTaskId, inlinesOutcome, waitProfile } from "./task-profile.js";
import { pickRequestOptions } from "./profile.js";
import { TaskForbiddenError, wantsTask } from "./tool-catalog.js";
import type {
  ClientProfile,
  ClientTypes,
  ExtensionClientOptions,
  InputRequestContext,
  InputWaitOptions,
  ServerRequestOptions,
  ServerRequestsProfile,
  TasksClientCore,
  TasksClientRequestOptions,
  ToolCallParams,
  ToolCallStartOf,
  ToolOf,
  CallOptions,
  RequestOptions,
} from "./profile.js";

// ---------------------------------------------------------------------------------------------
// The client

type Wait<T extends ClientTypes> = TaskWait<T["snapshot"], T["result"], T["payload"], T["answer"], T["handlers"]>;

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
  /** The status streams of the waits, where the transport can listen and the set has the extension's notifications. */
  readonly #streams: ListenStreams | undefined;
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
    this.#streams =
      options.listen && profile.extension && profile.notification
        ? this.#listenStreams(options.listen, options.maxListenStreams ?? DEFAULT_MAX_LISTEN_STREAMS, profile.extension)
        : undefined;
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
          {
            headers: profile.tools.paramHeaders,
            taskSupport: profile.tools.taskSupport || [],
          },
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
        new JsonRpcResponseError(
          request.method,
          JSON_RPC_ERROR_CODES.MethodNotFound,
          `Method not found: ${request.method}`,
        ),
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
    return this.#completed(await this.#wait(start.task.taskId, waitOptions, this.#snapshotOf(start.task))).result;
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

  listTools(
    options: {
      readonly refresh?: boolean;
      readonly signal?: TasksClientSignal;
    } = {},
  ): Promise<ToolOf<T>[]> {
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
      if (augmentation === undefined || !Object.hasOwn(result, "task")) return this.#completed(result);
      return {
        kind: "task",
        task: this.#taskOf(this.#checkBody(this.#profile.created.check, result)),
      };
    }
    if (resultTag === "none") {
      return {
        kind: "task",
        task: this.#taskOf(this.#checkBody(this.#profile.created.check, result)),
      };
    }
    const { tag, body } = splitTag("tools/call", result);
    if (tag === "task") return { kind: "task", task: this.#checkCreated(body) };
    if (tag === "complete") return this.#completed(body);
    throw new InvalidResponseError("tools/call", `unknown resultType ${JSON.stringify(tag)}`, result);
  }

  /** A tool's result (at once, or its task's) checked as the set's CallToolResult: ValidationFailed when it is none. */
  #completed(result: unknown): { readonly kind: "complete"; readonly result: JsonObject } {
    const check = this.#profile.flowChecks?.toolResult;
    return { kind: "complete", result: isObject(result) ? this.#checkedResult(check, result) : (result as JsonObject) };
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
      error.code !== TASKS_EXTENSION_ERROR_CODES.HeaderMismatch ||
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
    const context: InputRequestContext = {
      taskId: "",
      key,
      method: inputMethod,
      signal,
      request: { method, round },
    };
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
              const params = {
                taskId,
                [input.responsesField]: { [key]: answer },
              };
              await this.#callChecked(input.update, params, { signal });
            },
          }
        : {}),
      ...(this.#streams
        ? {
            openStream: (taskId: string, signal: TasksClientSignal, acknowledged: () => void) =>
              this.#streams!.open(taskId, signal, acknowledged),
          }
        : {}),
      cancel: (taskId) => this.#cancelQuietly(taskId),
      report: (error) => this.#report(error),
      finished: (wait) => this.#waits.delete(wait),
    };
  }

  /** The listen streams of this client's waits (listen.ts), on its requests, checks and notifications. */
  #listenStreams(
    listen: TasksClientListen,
    maxStreams: number,
    extension: NonNullable<ClientProfile<T>["extension"]>,
  ): ListenStreams {
    const checks = this.#validateResults ? this.#profile.flowChecks : undefined;
    return new ListenStreams(listen, maxStreams, {
      extensionId: extension.id,
      checks: { acknowledged: checks?.listenAcknowledged, missingCapability: checks?.missingCapability },
      closed: () => this.#closed,
      nextId: () => this.#nextId++,
      withExtension: (params) => this.#withExtension(extension, params),
      discover: () => this.#request(DISCOVER_METHOD, {}, {}),
      checkDiscovered: (result) => this.#checkedResult(this.#profile.flowChecks?.discover, result),
      notification: (message) => this.handleNotification(message),
      report: (error) => this.#report(error),
    });
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
      const { resultType: _tag, ...task } = this.#checkBody(check, {
        ...body,
        resultType: "task",
      }) as JsonObject;
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
