/**
 * JSON-RPC for the generated Tasks server: envelopes and errors, the request context a transport
 * passes in, and the small checks every handler uses on params. None of it depends on the schemas.
 */
import { JSON_RPC_ERROR_CODES } from "../protocol/constants.js";
import { isObject, ownValue, type JsonObject, type ValidationError, type ValidationResult } from "../protocol/json.js";

/** JSON-RPC's own error codes, from protocol/constants.ts (kept exported here for the set's server.ts). */
export { JSON_RPC_ERROR_CODES };

// ---------------------------------------------------------------------------------------------
// JSON-RPC

export type JsonRpcId = string | number;

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export interface JsonRpcSuccess {
  readonly jsonrpc: "2.0";
  readonly id: JsonRpcId;
  readonly result: object;
}

export interface JsonRpcFailure {
  readonly jsonrpc: "2.0";
  /** Null when the request was too malformed to read its id. */
  readonly id: JsonRpcId | null;
  readonly error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

/** An error with a JSON-RPC code: thrown by handlers (and hooks) to answer with it. */
export class JsonRpcError extends Error {
  // Typed string, not the literal: the limit errors (store.ts) are JsonRpcErrors with names of their own.
  override readonly name: string = "JsonRpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  static from(error: JsonRpcErrorObject): JsonRpcError {
    return new JsonRpcError(error.code, error.message, error.data);
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Whether a value is a JSON-RPC error object (`failed` is only for these). */
export function isJsonRpcErrorObject(value: unknown): value is JsonRpcErrorObject {
  return isObject(value) && Number.isInteger(ownValue(value, "code")) && typeof ownValue(value, "message") === "string";
}

// ---------------------------------------------------------------------------------------------
// Host APIs

/** The parts of `AbortSignal` this module relies on (declared so it compiles without DOM or Node typings). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** `AbortSignal` where the host's typings declare it, otherwise the structural subset above. */
export type TaskAbortSignal = typeof globalThis extends {
  AbortSignal: { prototype: infer S };
}
  ? S
  : AbortSignalLike;

/** Web-standard globals of Node 20+, Deno, Bun and browsers. */
export interface Host {
  readonly crypto: { randomUUID(): string };
  readonly AbortController: new () => {
    readonly signal: TaskAbortSignal & AbortSignalLike;
    abort(): void;
  };
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
  queueMicrotask(callback: () => void): void;
}

/** The host's globals, typed once for the store and the engine. */
export const host = globalThis as unknown as Host;

// ---------------------------------------------------------------------------------------------
// Request context

export type HeaderValue = string | readonly string[] | undefined;

/** What the transport knows about a request beyond its body. */
export interface TransportContext {
  /** The authenticated identity making the request. Tasks are visible only to the owner that created them. Default: "" (anonymous). */
  readonly owner?: string;
  /** The HTTP request headers, when the transport has them (names in any case). */
  readonly headers?: { readonly [name: string]: HeaderValue };
  /** Fires when the transport gives up on the request (the client went away). */
  readonly signal?: AbortSignalLike | undefined;
  /**
   * Sends a request to the client tied to this request (on its response stream, where the transport
   * has streams) and resolves with the client's result; rejects with a JsonRpcError when the client
   * answers an error. Where the revision delivers a task's input requests on `tasks/result`, the
   * server sends them through it.
   */
  readonly sendRequest?: ServerToClientSend;
}

/** A request the server sends the client, as `TransportContext.sendRequest` takes it. */
export type ServerToClientSend = (
  request: { readonly method: string; readonly params: JsonObject },
  options: { readonly signal?: AbortSignalLike },
) => Promise<JsonObject>;

/** The context a request is handled in: the transport's facts plus the request's own `_meta`. */
export interface RequestContext {
  readonly owner: string;
  /** `params._meta` of the request ({} when absent). */
  readonly meta: JsonObject;
  readonly headers: { readonly [name: string]: HeaderValue } | undefined;
  readonly signal: AbortSignalLike | undefined;
}

/** The context of a request with these params (for tool handlers outside this server's methods). */
export function requestContext(params: unknown, transport: TransportContext = {}): RequestContext {
  const meta = isObject(params) ? ownValue(params, "_meta") : undefined;
  return new TransportRequestContext(transport.owner ?? "", isObject(meta) ? meta : {}, transport);
}

/** A request's context; its `signal` is the transport's, read when asked for (a transport may make it only then). */
class TransportRequestContext implements RequestContext {
  readonly headers: { readonly [name: string]: HeaderValue } | undefined;
  readonly #transport: TransportContext;

  constructor(
    readonly owner: string,
    readonly meta: JsonObject,
    transport: TransportContext,
  ) {
    this.headers = transport.headers;
    this.#transport = transport;
  }

  get signal(): AbortSignalLike | undefined {
    return this.#transport.signal;
  }
}

/** Checks the routing headers of a request for `Method` against its body; an error rejects the request before any lookup. */
export type HeaderCheckOf<Method extends string> = (
  method: Method,
  params: unknown,
  context: RequestContext,
) => JsonRpcErrorObject | undefined;

/** A header's value, found case-insensitively, with surrounding whitespace removed; undefined when absent or repeated. */
export function headerValue(headers: { readonly [name: string]: HeaderValue }, name: string): string | undefined {
  const wanted = name.toLowerCase();
  // `for…in` with an own-property test: the keys in order, without an array of them per lookup.
  for (const key in headers) {
    // Most keys differ in length, and Node's are lower case already: no lower-casing for those.
    if (key.length !== wanted.length || (key !== wanted && key.toLowerCase() !== wanted)) continue;
    if (!Object.hasOwn(headers, key)) continue;
    const value = headers[key];
    if (typeof value === "string") return value.trim();
    return value !== undefined && value.length === 1 ? value[0]!.trim() : undefined;
  }
  return undefined;
}
// Requests

export type Envelope =
  | {
      readonly kind: "request";
      readonly id: JsonRpcId;
      readonly method: string;
      readonly params: unknown;
    }
  | { readonly kind: "notification" }
  | {
      readonly kind: "invalid";
      readonly id: JsonRpcId | null;
      readonly reason: string;
    };

/**
 * The answer to one JSON-RPC message: undefined for a notification, -32600 for what is not a
 * request, otherwise what `dispatch` returns, or the error it throws as `errorObject` maps it.
 */
export async function respond(
  message: unknown,
  dispatch: (method: string, params: unknown) => Promise<object>,
  errorObject: (error: unknown) => JsonRpcErrorObject,
): Promise<JsonRpcResponse | undefined> {
  const envelope = readEnvelope(message);
  if (envelope.kind === "notification") return undefined;
  if (envelope.kind === "invalid") {
    return {
      jsonrpc: "2.0",
      id: envelope.id,
      error: {
        code: JSON_RPC_ERROR_CODES.InvalidRequest,
        message: `Invalid request: ${envelope.reason}`,
      },
    };
  }
  try {
    const result = await dispatch(envelope.method, envelope.params);
    return { jsonrpc: "2.0", id: envelope.id, result };
  } catch (error) {
    return { jsonrpc: "2.0", id: envelope.id, error: errorObject(error) };
  }
}

/** Reads the JSON-RPC envelope of a message, trusting nothing about it. */
export function readEnvelope(message: unknown): Envelope {
  if (!isObject(message))
    return {
      kind: "invalid",
      id: null,
      reason: "a message must be a JSON object",
    };
  const id = ownValue(message, "id");
  const knownId = isRequestId(id) ? id : null;
  if (ownValue(message, "jsonrpc") !== "2.0") return { kind: "invalid", id: knownId, reason: 'jsonrpc must be "2.0"' };
  const method = ownValue(message, "method");
  if (typeof method !== "string") return { kind: "invalid", id: knownId, reason: "method must be a string" };
  if (!Object.hasOwn(message, "id")) return { kind: "notification" };
  if (knownId === null)
    return {
      kind: "invalid",
      id: null,
      reason: "id must be a string or an integer",
    };
  return {
    kind: "request",
    id: knownId,
    method,
    params: ownValue(message, "params"),
  };
}

function isRequestId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

/** The -32601 error for a method the server does not answer. */
export function methodNotFound(method: string): JsonRpcError {
  return new JsonRpcError(JSON_RPC_ERROR_CODES.MethodNotFound, `Method not found: ${abbreviate(method)}`);
}

/** The params object (undefined when absent); `_meta`, when present, must be an object. */
export function paramsObject(params: unknown): JsonObject | undefined {
  if (params === undefined) return undefined;
  if (!isObject(params))
    throw new JsonRpcError(JSON_RPC_ERROR_CODES.InvalidParams, "Invalid params: params must be an object");
  const meta = ownValue(params, "_meta");
  if (meta !== undefined && !isObject(meta)) {
    throw new JsonRpcError(JSON_RPC_ERROR_CODES.InvalidParams, "Invalid params: _meta must be an object");
  }
  return params;
}

/** The params of a method whose params the schema requires. */
export function required(params: JsonObject | undefined): JsonObject {
  if (params === undefined)
    throw new JsonRpcError(JSON_RPC_ERROR_CODES.InvalidParams, "Invalid params: params are required");
  return params;
}

/**
 * Params checked by their generated validator, except the values of the map `field`: that it is an
 * object is checked here, its entries by the handler, which knows which of them it will use.
 */
export function validParamsBut<T>(
  field: string,
  validate: (value: unknown) => ValidationResult<T>,
  params: JsonObject,
): T {
  const entries = params[field];
  if (!isObject(entries)) return validParams(validate, params);
  return {
    ...validParams(validate, { ...params, [field]: {} }),
    [field]: entries,
  };
}

/**
 * Params checked by their generated validator; -32602 names the first error in its message and
 * carries the first 50 and their count in `data` (see `invalidParamsData`).
 */
export function validParams<T>(validate: (value: unknown) => ValidationResult<T>, params: JsonObject): T {
  const checked = validate(params);
  if (checked.ok) return checked.value;
  const first = checked.errors[0];
  throw new JsonRpcError(
    JSON_RPC_ERROR_CODES.InvalidParams,
    `Invalid params${first ? `: ${first.path || "(params)"}: ${first.message}` : ""}`,
    invalidParamsData(checked.errors, checked.errorCount),
  );
}

/** How many validation errors an invalid-params answer lists at most. */
export const MAX_REPORTED_ERRORS = 50;

/**
 * The `data` of an invalid-params answer: the first `MAX_REPORTED_ERRORS` errors and how many there
 * are (`errorCount`, from the validator when it counted past its list). Bounded whatever the
 * request: one request with 30,000 bad items is answered with 50 errors, not megabytes of them.
 */
export function invalidParamsData(
  errors: readonly ValidationError[],
  errorCount: number = errors.length,
): { readonly errors: readonly ValidationError[]; readonly errorCount: number } {
  return {
    errors: errors.length > MAX_REPORTED_ERRORS ? errors.slice(0, MAX_REPORTED_ERRORS) : errors,
    errorCount: Math.max(errorCount, errors.length),
  };
}

/** The params without `_meta`, for params the schema closes without room for it (every request may carry `_meta`). */
export function withoutMeta(params: JsonObject): JsonObject {
  if (!Object.hasOwn(params, "_meta")) return params;
  const copy = { ...params };
  delete copy._meta;
  return copy;
}

/** The answer for a task that never existed, has expired, or belongs to someone else: all look the same. */
export function unknownTask(): JsonRpcError {
  return new JsonRpcError(JSON_RPC_ERROR_CODES.InvalidParams, "Task not found");
}

/**
 * The retention a new task gets: what its creator asks (a positive number of milliseconds, else
 * `defaultTtl`) up to `maxTtl`; null (unlimited) asked gets `maxTtl`, and a null `maxTtl` grants anything.
 */
export function grantedTtl(
  requested: number | null | undefined,
  defaultTtl: number,
  maxTtl: number | null,
): number | null {
  if (requested === null) return maxTtl;
  const ttl = positiveInteger(requested, defaultTtl);
  return maxTtl === null ? ttl : Math.min(ttl, maxTtl);
}

/** A setting that must be a positive number of milliseconds (or items), rounded; `fallback` otherwise. */
export function positiveInteger(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 1 ? Math.round(value) : fallback;
}

function abbreviate(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
