/**
 * The parts of the generated Tasks client that do not depend on the schemas, copied unchanged into
 * every set that has a client (as `client-core.ts`): the transport contract, the errors a client
 * throws, reading JSON-RPC responses, and checking params and bodies with the validators a set's
 * `client.ts` passes in (`MethodSpec`, `BodyCheck`). The set's `client.ts` is the layer the schema
 * decides: its methods, its revision's result shapes, and the task-wait state machine over them.
 */
import {
  isObject,
  ownValue,
  ValidationFailed,
  type JsonObject,
  type ValidationError,
  type ValidationResult,
} from "../protocol/json.js";

// ---------------------------------------------------------------------------------------------
// Transport

/** A JSON-RPC request as the client sends it. */
export interface TasksClientRequest {
  readonly jsonrpc: "2.0";
  readonly id: string | number;
  readonly method: string;
  readonly params?: JsonObject;
}

/** HTTP headers a request should carry where the transport has headers (Streamable HTTP); other transports ignore them. */
export type TasksClientHeaders = { readonly [name: string]: string };

/** The parts of `AbortSignal` the client uses (declared so it compiles without DOM or Node typings; any `AbortSignal` is one). */
export interface TasksClientSignal {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * Sends one request and resolves with the peer's JSON-RPC response, whatever it says (the client
 * checks it); rejects only when the transport fails. `signal` aborts when the client gives up on
 * the request (timeout or the caller's signal).
 */
export type TasksClientSend = (
  request: TasksClientRequest,
  headers: TasksClientHeaders,
  options: { readonly signal: TasksClientSignal },
) => Promise<unknown>;

/**
 * Opens a long-lived notification stream: sends the `subscriptions/listen` request, passes every
 * message of its stream but the response to `onMessage`, and resolves with the JSON-RPC response
 * that ends it (the server's graceful result, or an error answered at once), or undefined when
 * the stream ended without one (a drop). Rejects when the transport fails or `signal` aborts.
 */
export type TasksClientListen = (
  request: TasksClientRequest,
  headers: TasksClientHeaders,
  options: { readonly signal: TasksClientSignal; readonly onMessage: (message: unknown) => void },
) => Promise<unknown>;
/** A request the server sends the client (elicitation, sampling, ...), as a transport delivers it. */
export interface TasksClientServerRequest {
  readonly id: string | number;
  readonly method: string;
  readonly params?: JsonObject;
}

/**
 * Answers a request of the server: resolves with its result object; rejects with an error that
 * carries a JSON-RPC `code` and `message` (a `JsonRpcError`) to answer with that error (any other
 * rejection answers -32603). A transport that can receive such requests offers
 * `onRequest(handler)` (the `http-client` part does).
 */
export type TasksClientServerRequestHandler = (request: TasksClientServerRequest) => Promise<object>;

/** Subscribes to the peer's notifications; may return the function that unsubscribes. */
export type TasksClientSubscribe = (listener: (notification: unknown) => void) => (() => void) | void;

/**
 * How the transport hands the client the server's requests (Streamable HTTP: on response streams
 * and the standalone GET stream); may return the function that stops. The client's handlers reject
 * with a `JsonRpcResponseError` (its `code`, `message`, `data`) for an error answer.
 */
export type TasksClientOnRequest = (handler: TasksClientServerRequestHandler) => (() => void) | void;

/** Web-standard globals of Node 20+, Deno, Bun and browsers. */
export interface Host {
  readonly AbortController: new () => { readonly signal: TasksClientSignal; abort(reason?: unknown): void };
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

/** The host's timers and AbortController, for the set's client too. */
export const host = globalThis as unknown as Host;

// ---------------------------------------------------------------------------------------------
// Errors

/** A JSON-RPC error object. */
export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** The peer answered a request with a JSON-RPC error. */
export class JsonRpcResponseError extends Error {
  override readonly name = "JsonRpcResponseError";
  constructor(
    /** The method of the request it answers. */
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  toJSON(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** The peer's answer is not a JSON-RPC response to the request (wrong id, no result or error, a result that is not an object, an unexpected `resultType`). */
export class InvalidResponseError extends Error {
  override readonly name = "InvalidResponseError";
  constructor(
    readonly method: string,
    message: string,
    readonly response: unknown,
  ) {
    super(`${method}: ${message}`);
  }
}

/** A request got no answer within its timeout. */
export class RequestTimeoutError extends Error {
  override readonly name = "RequestTimeoutError";
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`${method}: no answer within ${timeoutMs} ms`);
  }
}

/** The task outlived its retention (`createdAt` + its TTL, by the client's clock) without finishing, or vanished after it. */
export class TaskExpiredError extends Error {
  override readonly name = "TaskExpiredError";
  constructor(
    readonly taskId: string,
    /** When the task's retention ended (epoch milliseconds). */
    readonly expiredAt: number,
    options?: { readonly cause?: unknown },
  ) {
    super(`task ${taskId} expired at ${new Date(expiredAt).toISOString()} without finishing`, options);
  }
}
/**
 * The task ended in a final status the schema adds and the set's config makes final (`"statuses"`):
 * it has neither a result nor an error of the protocol's, so the wait ends with the task as it ended.
 */
export class TaskEndedError extends Error {
  override readonly name = "TaskEndedError";
  constructor(
    /** The task as last seen (its final snapshot). */
    readonly task: { readonly taskId: string; readonly status: string; readonly statusMessage?: string },
  ) {
    super(`task ${task.taskId} ended ${task.status}` + (task.statusMessage ? `: ${task.statusMessage}` : ""));
  }
}

/** An input request of the task could not be answered: no handler for its method, the handler threw, or its answer is invalid. */
export class TaskInputError extends Error {
  override readonly name = "TaskInputError";
  constructor(
    readonly taskId: string,
    /** The input request's key (in the task's pending input requests). */
    readonly key: string,
    /** The input request's method, when it has one. */
    readonly method: string | undefined,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(`task ${taskId}, input "${key}"${method ? ` (${method})` : ""}: ${message}`, options);
  }
}

/** The client was closed while a request or a wait was pending. */
export class TasksClientClosedError extends Error {
  override readonly name = "TasksClientClosedError";
  constructor() {
    super("the tasks client is closed");
  }
}

// ---------------------------------------------------------------------------------------------
// What each method sends and receives

/** How the client checks a result or notification params. */
export interface BodyCheck<T> {
  readonly type: string;
  readonly validate: (value: unknown) => ValidationResult<T>;
  /**
   * Checks `_meta` apart from the rest, for a schema with no room for it: every result (and
   * notification) may carry `_meta`, but under JSON Schema's `allOf` a branch closed with
   * `additionalProperties: false` rejects it. `_meta` is checked against the definition the schema's
   * other branch declares, the rest with the type's own validator, and the value keeps its `_meta`.
   */
  readonly meta?: (value: unknown) => ValidationResult<unknown>;
}

export interface MethodSpec<P, R> {
  readonly method: string;
  readonly params: BodyCheck<P>;
  readonly paramsRequired: boolean;
  /** The schema's params do not declare `_meta`: it is checked to be an object and the rest validated. */
  readonly paramsMetaApart: boolean;
  readonly result: BodyCheck<R>;
}

// ---------------------------------------------------------------------------------------------
// Timing

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MIN_POLL_MS = 250;
export const DEFAULT_MAX_POLL_MS = 60_000;
/** The poll interval when the task suggests none. */
export const DEFAULT_POLL_MS = 1_000;
/** Polls that fail in a row (transport errors, timeouts) before `waitForTask` gives up. */
export const MAX_POLL_FAILURES = 3;
/** The first and the longest pause before a wait reopens a listen stream that ended (it polls meanwhile). */
export const LISTEN_RETRY_MIN_MS = 500;
export const LISTEN_RETRY_MAX_MS = 30_000;
/** How long an acknowledged listen stream must stay open before its end no longer doubles the pause (an acknowledgement alone forgives nothing). */
export const LISTEN_HEALTHY_MS = 10_000;

// ---------------------------------------------------------------------------------------------
// Helpers

/** The params, checked by the method's validator (with `_meta` checked apart where the schema has no room for it). */
export function checkParams<P>(spec: MethodSpec<P, unknown>, params: P | undefined): JsonObject | undefined {
  if (params === undefined) {
    if (spec.paramsRequired)
      throw new ValidationFailed(spec.params.type, [clientError("", "required", "params are required")]);
    return undefined;
  }
  if (!isObject(params))
    throw new ValidationFailed(spec.params.type, [clientError("", "type", "params must be an object")]);
  if (!spec.paramsMetaApart || !Object.hasOwn(params, "_meta")) {
    const checked = spec.params.validate(params);
    if (!checked.ok) throw new ValidationFailed(spec.params.type, checked.errors);
    return params;
  }
  const { _meta: meta, ...rest } = params;
  if (!isObject(meta))
    throw new ValidationFailed(spec.params.type, [clientError("/_meta", "type", "_meta must be an object")]);
  const checked = spec.params.validate(rest);
  if (!checked.ok) throw new ValidationFailed(spec.params.type, checked.errors);
  return params;
}

/** A result or notification params, checked as the module comment says. */
export function checkBody<T>(check: BodyCheck<T>, body: JsonObject): T {
  if (!check.meta || !Object.hasOwn(body, "_meta")) {
    const checked = check.validate(body);
    if (!checked.ok) throw new ValidationFailed(check.type, checked.errors);
    return checked.value;
  }
  const { _meta: meta, ...rest } = body;
  const metaChecked = check.meta(meta);
  if (!metaChecked.ok) throw new ValidationFailed(check.type, prefixed("/_meta", metaChecked.errors));
  const checked = check.validate(rest);
  if (!checked.ok) throw new ValidationFailed(check.type, checked.errors);
  return { ...checked.value, _meta: meta } as T;
}

/** `_meta` where the schema only says it is an object. */
export function validateMetaObject(value: unknown): ValidationResult<JsonObject> {
  return isObject(value) ? { ok: true, value } : { ok: false, errors: [clientError("", "type", "must be an object")] };
}

/** An error found by the client itself rather than by a generated validator. */
export function clientError(path: string, keyword: string, message: string): ValidationError {
  return { path, keyword, message, schemaPath: "" };
}

export function prefixed(path: string, errors: readonly ValidationError[]): ValidationError[] {
  return errors.map((e) => ({ ...e, path: path + e.path }));
}

/** The result of a JSON-RPC response to `request`; an error answer throws JsonRpcResponseError. */
export function readResult(response: unknown, request: TasksClientRequest): JsonObject {
  if (!isObject(response) || ownValue(response, "jsonrpc") !== "2.0") {
    throw new InvalidResponseError(request.method, "the answer is not a JSON-RPC 2.0 response", response);
  }
  const id = ownValue(response, "id");
  const error = ownValue(response, "error");
  // An error about a request the peer could not read carries a null id.
  if (id !== request.id && !(error !== undefined && id === null)) {
    throw new InvalidResponseError(
      request.method,
      `the answer is for id ${JSON.stringify(id)}, not ${JSON.stringify(request.id)}`,
      response,
    );
  }
  if (error !== undefined) {
    const rpcError = rpcErrorOf(error);
    if (!rpcError) throw new InvalidResponseError(request.method, "the error is not a JSON-RPC error object", response);
    throw new JsonRpcResponseError(request.method, rpcError.code, rpcError.message, rpcError.data);
  }
  const result = ownValue(response, "result");
  if (!isObject(result)) throw new InvalidResponseError(request.method, "the result is not an object", response);
  return result;
}

/** A JSON-RPC error object, or undefined when the value is not one. */
export function rpcErrorOf(value: unknown): RpcErrorObject | undefined {
  if (!isObject(value)) return undefined;
  const code = ownValue(value, "code");
  const message = ownValue(value, "message");
  if (typeof code !== "number" || !Number.isInteger(code) || typeof message !== "string") return undefined;
  const data = ownValue(value, "data");
  return data === undefined ? { code, message } : { code, message, data };
}

/**
 * Splits `resultType` off a result: "task" when the request created a task, "complete" when it
 * finished, "input_required" when it asks for input first, or another value a later revision
 * defines (the tag is open-ended: each caller decides what it can read, and an unknown one is an
 * error there, never "complete"). A result without the tag is complete, as results were before it.
 */
export function splitTag(method: string, result: JsonObject): { readonly tag: string; readonly body: JsonObject } {
  if (!Object.hasOwn(result, "resultType")) return { tag: "complete", body: result };
  const { resultType: tag, ...body } = result;
  if (typeof tag !== "string") {
    throw new InvalidResponseError(method, `resultType ${JSON.stringify(tag)} is not a string`, result);
  }
  return { tag, body };
}

/**
 * One request/response exchange through `send`, bounded by `timeoutMs` (0 or infinite: none) and
 * the caller's signal; the transport is told through `send`'s signal when the client gives up.
 */
export function exchange(
  send: TasksClientSend,
  request: TasksClientRequest,
  headers: TasksClientHeaders,
  options: { readonly signal?: TasksClientSignal; readonly timeoutMs: number },
): Promise<unknown> {
  const { signal, timeoutMs } = options;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const controller = new host.AbortController();
  return new Promise((resolve, reject) => {
    let timer: unknown;
    const settle = (outcome: () => void) => {
      host.clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      outcome();
    };
    const onAbort = () => {
      const reason = abortReason(signal!);
      controller.abort(reason);
      settle(() => reject(reason));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      timer = host.setTimeout(() => {
        const error = new RequestTimeoutError(request.method, timeoutMs);
        controller.abort(error);
        settle(() => reject(error));
      }, timeoutMs);
    }
    let sending: Promise<unknown>;
    try {
      sending = Promise.resolve(send(request, headers, { signal: controller.signal }));
    } catch (error) {
      sending = Promise.reject(error);
    }
    sending.then(
      (response) => settle(() => resolve(response)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}

/**
 * A request the caller may abandon (its signal) without stopping it: the promise rejects at once
 * with the signal's reason, and the result that still arrives goes to `lateResult` (a task it
 * created belongs to nobody, so the client cancels it).
 */
export function abandonable<T>(
  sending: Promise<T>,
  signal: TasksClientSignal | undefined,
  lateResult: (result: T) => void,
): Promise<T> {
  if (!signal) return sending;
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(abortReason(signal));
      sending.then(lateResult, () => {});
    };
    signal.addEventListener("abort", onAbort, { once: true });
    sending.then(
      (result) => {
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

export function objectOr(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

/** Why a finished wait stops what it still has running (its requests, its input handlers). */
export function waitEnded(taskId: string): Error {
  const error = new Error(`the wait for task ${taskId} ended`);
  error.name = "AbortError";
  return error;
}

export function abortReason(signal: TasksClientSignal): unknown {
  if (signal.reason !== undefined) return signal.reason;
  const error = new Error("The operation was aborted");
  error.name = "AbortError";
  return error;
}
