/**
 * Runtime part `http-server`: an MCP endpoint over Streamable HTTP for the stateless protocol
 * revision 2026-07-28 with the Tasks extension, around the set's Tasks server (`server.ts`). One
 * POST carries one JSON-RPC message and gets one JSON answer, except `subscriptions/listen`, whose
 * answer is a long-lived SSE stream of task status notifications (acknowledgement first, each
 * message carrying the subscription id, heartbeats, a graceful end at shutdown or a limit); there
 * is no session and no GET stream. For the 2025-11-25 revision (sessions, SSE, the standalone GET
 * stream) mount the generated server inside the MCP SDK instead (README, "Runtime parts").
 *
 * Two shapes over one core:
 * - `nodeHttpHandler(options)`: `(req, res) => void` for `node:http` (`http.createServer(handler)`);
 * - `fetchHttpHandler(options)`: `(request: Request) => Promise<Response>` for Fetch API hosts.
 *
 * What the handler does before a message reaches the application: the endpoint path (404) and
 * method (405); `Host` (on loopback connections) and `Origin` against allow-lists (403; the
 * transport's defences against DNS rebinding); `Accept` (406) and `Content-Type` (415) as the MCP
 * SDK judges them; the owner (401 when the `owner` option refuses the caller); a body size limit
 * (413) and a body read timeout (408); JSON and the JSON-RPC envelope (400); the stateless
 * envelope: `MCP-Protocol-Version` header equal to `_meta`'s protocol version, client
 * capabilities in `_meta` (a missing or malformed `_meta` field is -32602), `Mcp-Method` equal to
 * the method, `Mcp-Name` equal to `params.name` (`params.uri` for `resources/read`) and, when
 * `toolInputSchema` is given, each `Mcp-Param-{Name}` equal to the `tools/call` argument its
 * `x-mcp-header` annotation names (-32020; both headers may use the `=?base64?…?=` form). Then
 * `tasks/*` goes to the Tasks server, `server/discover` gets a default answer unless the
 * application has its own, and every other method to the application's handler in `methods`
 * (-32601 without one). Results without a `resultType` get `"complete"`.
 *
 * Needs Node's typings (`node:http`, `node:crypto`, and the global `Request`/`Response` the Fetch
 * shape uses), no package: a set gets this file only when its config asks for it
 * (`"runtime": ["http-server"]`).
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { isObject, ownValue, ValidationFailed, type JsonObject, type ValidationResult } from "../protocol/json.js";
import {
  headerValue,
  JSON_RPC_ERROR_CODES,
  LIMIT_ERROR_CODES,
  readEnvelope,
  type AbortSignalLike,
  type HeaderValue,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcResponse,
  type RequestContext,
  type TransportContext,
} from "../server/core.js";
import { checkNameHeader } from "../server/tasks-extension.js";
import { decodeHeaderValue } from "../protocol/header-values.js";
import {
  CLIENT_CAPABILITIES_META,
  CLIENT_INFO_META,
  DISCOVER_METHOD,
  PROTOCOL_VERSION_META,
  SERVER_INFO_META,
  STATELESS_PROTOCOL_VERSION,
  TASKS_EXTENSION,
  TASKS_EXTENSION_ERROR_CODES,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../protocol/constants.js";
import { createRouter, type RouterOptions, type TasksHandler } from "./mcp-router.js";
import { LISTEN_METHOD, type ListenOutcome, type ListenSink } from "../server/engine.js";

/** The protocol revision this handler speaks, and the -32022 error for one it does not. */
export { STATELESS_PROTOCOL_VERSION, UNSUPPORTED_PROTOCOL_VERSION };

/** Default body size limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Default time the whole request body may take to arrive, from the start of its read: 10 s. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/** Default `Retry-After` on a 429 or 503 refusal by a limit: 5 s. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

type RequestHeaders = { readonly [name: string]: HeaderValue };

export interface McpHttpOptions extends RouterOptions {
  /** The endpoint path; other paths answer 404. Default "/mcp". */
  readonly path?: string;
  /**
   * Origins (`scheme://host[:port]`, exactly as browsers send them) allowed to call the endpoint,
   * or a test for one. A request without `Origin` (not from a browser) is always let through.
   * Default: `http(s)://localhost`, `127.0.0.1` and `[::1]` on any port, for a local server.
   */
  readonly allowedOrigins?: readonly string[] | ((origin: string) => boolean);
  /**
   * Host names (no port; IPv6 in brackets) the endpoint answers, or a test for one; `false` turns
   * the check off. A request whose `Host` is missing or not allowed answers 403 (DNS rebinding
   * protection for requests without `Origin`). Default: on a connection that arrived on a loopback
   * address (`nodeHttpHandler`), `localhost`, `127.0.0.1` and `[::1]` only, as the MCP SDK's
   * localhost default; other connections, and the Fetch shape (which cannot see the address), are
   * not checked unless this is given.
   */
  readonly allowedHosts?: readonly string[] | ((hostname: string) => boolean) | false;
  /** Largest request body in bytes; a larger one answers 413. Default DEFAULT_MAX_BODY_BYTES. */
  readonly maxBodyBytes?: number;
  /**
   * Longest time the request body may take to arrive, in ms from the start of its read; a slower
   * one answers 408 and the connection is closed. Default DEFAULT_BODY_TIMEOUT_MS; 0 waits forever.
   */
  readonly bodyTimeoutMs?: number;
  /**
   * Who is asking, from the request headers (tasks are visible to their owner only): the
   * application's authentication decides, e.g. the subject of a verified token. `undefined`
   * refuses the request: 401 with `WWW-Authenticate: Bearer`. Default (with a warning once per
   * process, README › Runtime parts › Owners): the SHA-256 of the `Authorization` header, its scheme
   * in any case, not verified, when sent; else "anonymous", which every caller without one shares.
   */
  readonly owner?: (headers: RequestHeaders) => string | undefined | Promise<string | undefined>;
  /** `_meta["io.modelcontextprotocol/serverInfo"]` of the default `server/discover` answer. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /**
   * Capabilities the default `server/discover` answer declares, besides `tools` (declared when
   * `methods` has `tools/list`) and the Tasks extension (always).
   */
  readonly capabilities?: JsonObject;
  /**
   * The set's generated `validateDiscoverResult`: the default `server/discover` answer (with
   * `capabilities` and `serverInfo` in it) is checked by it once, when the handler is created, so
   * options that make it invalid fail there (ValidationFailed, with each error's schema path)
   * rather than on the wire. Without it the answer is sent as built.
   */
  readonly validateDiscover?: (value: unknown) => ValidationResult<object>;
  /** Listen streams: an SSE comment this often keeps idle connections open (ms). Default 15 000; 0 sends none. */
  readonly heartbeatMs?: number;
  /** Listen streams: ended gracefully once this many bytes wait for a client that does not read. Default 1 MiB. */
  readonly maxStreamBufferBytes?: number;
  /**
   * Listen streams: ended gracefully after this long (ms), so clients reconnect (and re-read). Default 0: only the
   * Tasks server's own `maxListenDuration` (five minutes by default) ends them; this can end them sooner.
   */
  readonly maxListenMs?: number;
  /**
   * The `inputSchema` of a tool by name (undefined for an unknown tool): a `tools/call` must then
   * carry an `Mcp-Param-{Name}` header equal to each argument its schema annotates with
   * `x-mcp-header` (-32020 otherwise). Without it `Mcp-Param-*` headers are not checked.
   */
  readonly toolInputSchema?: (name: string) => unknown;
  /**
   * `Retry-After` (seconds) on a refusal by a limit: 429 (an owner's task or listen quota) and 503 (a full
   * store). A quota frees only as tasks end, so clients should not come straight back. Default 5; null sends none.
   */
  readonly retryAfterSeconds?: number | null;
}

/** One HTTP request, as the core reads it from either shape. */
export interface HttpRequestParts {
  readonly method: string;
  /** The request target's path (no query). */
  readonly path: string;
  readonly headers: RequestHeaders;
  /**
   * The body as text; "too-large" once more than `limit` bytes arrived, "timed-out" when it did
   * not end within `timeoutMs` (0: no limit). Reading stops at either.
   */
  readBody(limit: number, timeoutMs: number): Promise<string | "too-large" | "timed-out">;
  /** Whether the connection arrived on a loopback address (undefined: not known); decides the default Host check. */
  readonly loopback?: boolean;
  /** Fires when the client goes away. */
  readonly signal?: AbortSignalLike;
}

/** One HTTP answer: status, headers, and a body (absent for 202, 404, 405, 413) or an SSE stream. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: { readonly [name: string]: string };
  readonly body?: string;
  /** A streamed answer (`text/event-stream`): called once the headers are sent, with the response to write to. */
  readonly stream?: (channel: SseChannel) => void;
}

/** The open response of a streamed answer, as each shape provides it. */
export interface SseChannel {
  /** Writes SSE text; returns how many bytes the transport still holds for a slow client. */
  write(text: string): number;
  /** Ends the response. */
  end(): void;
}

/** The core both shapes share: one request in, one answer out; never throws. */
export type McpHttpCore = (request: HttpRequestParts) => Promise<HttpAnswer>;

/** The handler for `node:http`: `http.createServer(nodeHttpHandler({ tasks, methods }))`. */
export function nodeHttpHandler(options: McpHttpOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const core = createMcpHttpCore(options);
  const endpoint = options.path ?? "/mcp";
  // A request target equal to the endpoint (every well-formed call) is its own path: no URL to parse.
  const endpointIsPath = pathOf(endpoint) === endpoint;
  return (req, res) => {
    const target = req.url ?? "/";
    const path = endpointIsPath && target === endpoint ? endpoint : pathOf(target);
    void core(new NodeRequestParts(req, res, path)).then((answer) => writeNodeAnswer(res, answer));
  };
}

/**
 * A `node:http` request as the core reads it. Its abort signal is made when something first reads
 * it (most methods never do): aborted at once if the client has already gone, else when the
 * response closes before it finished.
 */
class NodeRequestParts implements HttpRequestParts {
  readonly method: string;
  readonly headers: RequestHeaders;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  #controller: AbortController | undefined;

  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    readonly path: string,
  ) {
    this.#req = req;
    this.#res = res;
    this.method = req.method ?? "GET";
    this.headers = req.headers as IncomingHttpHeaders & RequestHeaders;
  }

  /** Known once per connection (the Host check reads it on every request of a keep-alive connection). */
  get loopback(): boolean {
    const socket = this.#req.socket;
    let loopback = loopbackSockets.get(socket);
    if (loopback === undefined) {
      loopback = isLoopbackAddress(socket.localAddress);
      loopbackSockets.set(socket, loopback);
    }
    return loopback;
  }

  readBody(limit: number, timeoutMs: number): Promise<string | "too-large" | "timed-out"> {
    return readNodeBody(this.#req, limit, timeoutMs);
  }

  get signal(): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    const res = this.#res;
    const gone = () => controller.abort(new Error("the client closed the connection"));
    if (res.destroyed && !res.writableFinished) gone();
    else
      res.once("close", () => {
        if (!res.writableFinished) gone();
      });
    return controller.signal;
  }
}

/** Whether each connection arrived on a loopback address, by socket. */
const loopbackSockets = new WeakMap<object, boolean>();

/** Writes the core's answer: one `writeHead` and one `end`, or the headers and then the stream. */
function writeNodeAnswer(res: ServerResponse, answer: HttpAnswer): void {
  if (res.headersSent || res.destroyed) return; // the client went away: nobody to answer
  if (answer.stream) {
    res.writeHead(answer.status, answer.headers);
    res.flushHeaders();
    answer.stream({
      write: (text) => (res.write(text), res.writableLength),
      end: () => res.end(),
    });
    return;
  }
  const body = answer.body;
  if (body === undefined) return void res.writeHead(answer.status, answer.headers).end();
  // A JSON-RPC answer (nearly every one): its two headers in a fresh object of one shape, no copy of the shared one.
  const headers =
    answer.headers === JSON_HEADERS
      ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
      : { ...answer.headers, "content-length": String(Buffer.byteLength(body)) };
  res.writeHead(answer.status, headers).end(body);
}

/** The handler for Fetch API hosts: `(request: Request) => Promise<Response>`. */
export function fetchHttpHandler(options: McpHttpOptions): (request: Request) => Promise<Response> {
  const core = createMcpHttpCore(options);
  return async (request) => {
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    // Aborted when the client goes away: the request's signal, or the consumer cancelling a stream.
    const gone = new AbortController();
    if (request.signal.aborted) gone.abort(request.signal.reason);
    else request.signal.addEventListener("abort", () => gone.abort(request.signal.reason), { once: true });
    const answer = await core({
      method: request.method,
      path: pathOf(request.url),
      headers,
      readBody: (limit, timeoutMs) => readFetchBody(request, limit, timeoutMs),
      signal: gone.signal,
    });
    if (answer.stream) {
      return new Response(fetchEventStream(answer.stream, gone), { status: answer.status, headers: answer.headers });
    }
    return new Response(answer.body ?? null, { status: answer.status, headers: answer.headers });
  };
}

/** The core: the checks above, then the router. */
export function createMcpHttpCore(options: McpHttpOptions): McpHttpCore {
  const endpoint = options.path ?? "/mcp";
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const originAllowed = originTest(options.allowedOrigins);
  const hostRefusal = hostCheck(options.allowedHosts);
  const ownerOf = options.owner ?? defaultOwner;
  if (!options.owner) warnDefaultOwner();
  const report = options.onError ?? (() => {});
  checkDiscover(options);
  const methods = { [DISCOVER_METHOD]: () => discover(options), ...options.methods };
  const route = createRouter({ ...options, methods: completeResults(methods) });
  const listen = listenerOf(options);
  const retryAfter = retryAfterHeader(options.retryAfterSeconds);

  const answer = async (request: HttpRequestParts): Promise<HttpAnswer> => {
    try {
      if (request.path !== endpoint) return { status: 404, headers: {} };
      if (request.method !== "POST") return { status: 405, headers: { allow: "POST" } };
      const hostRefused = hostRefusal(request);
      if (hostRefused) return hostRefused;
      const origin = headerValue(request.headers, "origin");
      if (origin !== undefined && !originAllowed(origin)) {
        return failure(
          403,
          null,
          JSON_RPC_ERROR_CODES.InvalidRequest,
          "Forbidden: this Origin may not call the endpoint",
        );
      }
      const mediaRefused = checkMediaTypes(request.headers);
      if (mediaRefused) return mediaRefused;
      // Awaited even when the owner function answers at once: by then a body that came with the
      // headers is read in full (readNodeBody then needs no timer).
      const owner = await ownerOf(request.headers);
      if (owner === undefined) return unauthorized();
      const declared = Number(headerValue(request.headers, "content-length"));
      if (declared > maxBodyBytes) return { status: 413, headers: { connection: "close" } };
      const text = await request.readBody(maxBodyBytes, bodyTimeoutMs);
      if (text === "too-large") return { status: 413, headers: { connection: "close" } };
      if (text === "timed-out") return bodyTimedOut(bodyTimeoutMs);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return failure(400, null, JSON_RPC_ERROR_CODES.ParseError, "Parse error: the body is not JSON");
      }
      if (Array.isArray(body))
        return failure(
          400,
          null,
          JSON_RPC_ERROR_CODES.InvalidRequest,
          "Invalid request: one JSON-RPC message per POST",
        );
      const envelope = readEnvelope(body);
      if (envelope.kind === "invalid")
        return failure(400, envelope.id, JSON_RPC_ERROR_CODES.InvalidRequest, `Invalid request: ${envelope.reason}`);
      const transport = new HttpTransport(owner, request);
      if (envelope.kind === "notification") {
        await route(body, transport, envelope);
        return { status: 202, headers: {} };
      }
      const rejected =
        checkEnvelope(envelope.method, envelope.params, request.headers) ??
        checkParamHeaders(envelope.method, envelope.params, request.headers, options.toolInputSchema);
      if (rejected)
        return failure(httpStatus(rejected.code), envelope.id, rejected.code, rejected.message, rejected.data);
      if (envelope.method === LISTEN_METHOD && listen) return await listenAnswer(listen, body, transport, options);
      const answer = (await route(body, transport, envelope))!;
      return json("error" in answer ? httpStatus(answer.error.code) : 200, answer);
    } catch (error) {
      // Only a failing `owner` or body read gets here: the router answers every other failure itself.
      report(error);
      return failure(500, null, JSON_RPC_ERROR_CODES.InternalError, "Internal error");
    }
  };
  if (retryAfter === undefined) return answer;
  return async (request) => {
    const answered = await answer(request);
    if (answered.status !== 429 && answered.status !== 503) return answered;
    return { ...answered, headers: { ...answered.headers, "retry-after": retryAfter } };
  };
}

/** The `Retry-After` value for limit refusals; a misconfigured value fails at start-up, not per request. */
function retryAfterHeader(seconds: number | null | undefined): string | undefined {
  if (seconds === null) return undefined;
  const value = seconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new TypeError(`retryAfterSeconds: expected a whole number of seconds ≥ 0 or null, got ${String(seconds)}`);
  return String(value);
}

/** What a request's handlers learn of its transport; its `signal` is the request's, taken only when read. */
class HttpTransport implements TransportContext {
  readonly headers: RequestHeaders;
  readonly #request: HttpRequestParts;

  constructor(
    readonly owner: string,
    request: HttpRequestParts,
  ) {
    this.headers = request.headers;
    this.#request = request;
  }

  get signal(): AbortSignalLike | undefined {
    return this.#request.signal;
  }
}

// ---------------------------------------------------------------------------------------------
// subscriptions/listen: one long-lived SSE response per subscription (subscriptions.mdx)

/** The Tasks server's `listen`, unless the application answers `subscriptions/listen` itself. */
function listenerOf(options: McpHttpOptions): NonNullable<TasksHandler["listen"]> | undefined {
  if (options.methods && Object.hasOwn(options.methods, LISTEN_METHOD)) return undefined;
  const tasks = options.tasks;
  return tasks.listen ? (message, transport, sink) => tasks.listen!(message, transport, sink) : undefined;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  // Proxies must not hold events back (streamable-http.mdx).
  "x-accel-buffering": "no",
};

/**
 * The answer to a listen request: its error as JSON, or an SSE stream. Messages the subscription
 * sends before the headers are out wait in order. The stream ends gracefully (the server's result,
 * then the end) at shutdown, after `maxListenMs`, or when a client stops reading and more than
 * `maxStreamBufferBytes` pile up; it ends silently when the client goes away.
 */
async function listenAnswer(
  listen: NonNullable<TasksHandler["listen"]>,
  message: unknown,
  transport: TransportContext,
  options: McpHttpOptions,
): Promise<HttpAnswer> {
  const maxBuffered = options.maxStreamBufferBytes ?? DEFAULT_MAX_BODY_BYTES;
  const waiting: string[] = [];
  let channel: SseChannel | undefined;
  let finished = false;
  let eventId = 0;
  let outcome: ListenOutcome | undefined;
  const timers: ReturnType<typeof setTimeout>[] = [];
  const stopTimers = () => timers.forEach((timer) => clearTimeout(timer));
  const endGracefully = () => {
    if (outcome?.kind === "streaming") outcome.end();
  };
  const write = (text: string) => {
    if (finished) return;
    if (!channel) return void waiting.push(text);
    // A client that does not read: end its subscription rather than buffer without bound.
    if (channel.write(text) > maxBuffered) queueMicrotask(endGracefully);
  };
  const sink: ListenSink = {
    send: (sent) => write(sseEvent(++eventId, sent)),
    end: () => {
      stopTimers();
      if (finished) return;
      finished = true;
      channel?.end();
    },
  };
  transport.signal?.addEventListener("abort", stopTimers, { once: true });
  outcome = await listen(message, transport, sink);
  if (outcome.kind === "answered") {
    const response = outcome.response;
    return json("error" in response ? httpStatus(response.error.code) : 200, response);
  }
  return {
    status: 200,
    headers: SSE_HEADERS,
    stream: (opened) => {
      channel = opened;
      for (const text of waiting.splice(0)) opened.write(text);
      if (finished) return void opened.end();
      const heartbeatMs = options.heartbeatMs ?? 15_000;
      if (heartbeatMs > 0) timers.push(setInterval(() => write(": keep-alive\n\n"), heartbeatMs));
      if (options.maxListenMs) timers.push(setTimeout(endGracefully, options.maxListenMs));
      if (transport.signal?.aborted) stopTimers();
    },
  };
}

/** One SSE event carrying a JSON-RPC message; ids number the stream's events (streams are not resumable). */
function sseEvent(id: number, message: object): string {
  return `id: ${id}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** A streamed answer as a Fetch body: its queue in bytes is the backpressure measure; cancelling it is the client going away. */
function fetchEventStream(
  stream: NonNullable<HttpAnswer["stream"]>,
  gone: AbortController,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let open = true;
        stream({
          write: (text) => {
            if (!open) return 0;
            controller.enqueue(encoder.encode(text));
            return Math.max(0, -(controller.desiredSize ?? 0));
          },
          end: () => {
            if (open) controller.close();
            open = false;
          },
        });
        gone.signal.addEventListener("abort", () => (open = false), { once: true });
      },
      cancel: (reason) => gone.abort(reason),
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );
}

/**
 * The stateless envelope rules: the protocol version in the header and in `_meta`, the client
 * capabilities in `_meta`, and the routing headers. Task methods check their own `Mcp-Name`
 * against `params.taskId` in the Tasks server.
 */
function checkEnvelope(method: string, params: unknown, headers: RequestHeaders): JsonRpcErrorObject | undefined {
  const mismatch = TASKS_EXTENSION_ERROR_CODES.HeaderMismatch;
  const version = headerValue(headers, "mcp-protocol-version");
  if (version === undefined) return { code: mismatch, message: "Missing MCP-Protocol-Version header" };
  if (version !== STATELESS_PROTOCOL_VERSION) {
    return {
      code: UNSUPPORTED_PROTOCOL_VERSION,
      message: `Unsupported protocol version: ${version.slice(0, 40)}`,
      data: { requested: version, supported: [STATELESS_PROTOCOL_VERSION] },
    };
  }
  const mcpMethod = headerValue(headers, "mcp-method");
  if (mcpMethod !== method) {
    return {
      code: mismatch,
      message:
        mcpMethod === undefined ? "Missing Mcp-Method header" : "Mcp-Method header does not match the request method",
    };
  }
  if (!isObject(params))
    return {
      code: JSON_RPC_ERROR_CODES.InvalidParams,
      message: "Invalid params: every request carries params with _meta",
    };
  // Own entries only: `__proto__`, `constructor` and the like are no named methods.
  const named = Object.hasOwn(NAMED_BY, method) ? NAMED_BY[method] : undefined;
  const nameProblem = named === undefined ? undefined : checkNameHeader(headers, params, named);
  if (nameProblem) return nameProblem;
  return checkMeta(ownValue(params, "_meta"), version);
}

/**
 * The request `_meta` (basic/index › `_meta`): a missing or malformed required field is
 * -32602; `clientInfo` is optional but must be an Implementation when sent; a protocol version
 * that disagrees with the header is -32020.
 */
function checkMeta(meta: unknown, headerVersion: string): JsonRpcErrorObject | undefined {
  const invalid = (message: string) => ({
    code: JSON_RPC_ERROR_CODES.InvalidParams,
    message: `Invalid params: ${message}`,
  });
  if (!isObject(meta)) return invalid("every request carries _meta");
  const version = ownValue(meta, PROTOCOL_VERSION_META);
  if (typeof version !== "string")
    return invalid("_meta must carry io.modelcontextprotocol/protocolVersion (a string)");
  if (version !== headerVersion) {
    return {
      code: TASKS_EXTENSION_ERROR_CODES.HeaderMismatch,
      message: "MCP-Protocol-Version header does not match _meta protocolVersion",
    };
  }
  if (!isObject(ownValue(meta, CLIENT_CAPABILITIES_META))) {
    return invalid("_meta must carry io.modelcontextprotocol/clientCapabilities (an object)");
  }
  const clientInfo = ownValue(meta, CLIENT_INFO_META);
  if (
    clientInfo !== undefined &&
    !(
      isObject(clientInfo) &&
      typeof ownValue(clientInfo, "name") === "string" &&
      typeof ownValue(clientInfo, "version") === "string"
    )
  ) {
    return invalid("_meta io.modelcontextprotocol/clientInfo must have a name and a version (strings)");
  }
  return undefined;
}

/** An `x-mcp-header` annotation of a tool's input schema: the header's name and where its value is in `arguments`. */
export interface ParamHeader {
  readonly name: string;
  readonly path: readonly string[];
}

/**
 * The `x-mcp-header` annotations of an input schema, reached through `properties` only (the
 * only place the spec allows them; a client rejects a tool with others, so none are looked for).
 */
export function paramHeaders(schema: unknown, path: readonly string[] = []): ParamHeader[] {
  const properties = isObject(schema) ? ownValue(schema, "properties") : undefined;
  if (!isObject(properties)) return [];
  return Object.keys(properties).flatMap((key) => {
    const property = ownValue(properties, key);
    const name = isObject(property) ? ownValue(property, "x-mcp-header") : undefined;
    const here = typeof name === "string" ? [{ name, path: [...path, key] }] : [];
    return [...here, ...paramHeaders(property, [...path, key])];
  });
}

/**
 * `Mcp-Param-{Name}` headers of a `tools/call` against the arguments its tool annotates
 * (streamable-http.mdx › Server Behavior for Custom Headers): a value in the body needs its
 * header, decoded equal (numbers compared as numbers); a header needs its value. -32020 otherwise.
 */
function checkParamHeaders(
  method: string,
  params: unknown,
  headers: RequestHeaders,
  inputSchemaOf: McpHttpOptions["toolInputSchema"],
): JsonRpcErrorObject | undefined {
  if (method !== "tools/call" || !inputSchemaOf || !isObject(params)) return undefined;
  const name = ownValue(params, "name");
  if (typeof name !== "string") return undefined;
  const args = ownValue(params, "arguments");
  for (const annotation of paramHeaders(inputSchemaOf(name))) {
    const value = annotation.path.reduce<unknown>((at, key) => (isObject(at) ? ownValue(at, key) : undefined), args);
    const header = headerValue(headers, `mcp-param-${annotation.name.toLowerCase()}`);
    const what = `Mcp-Param-${annotation.name}`;
    const mismatch = (message: string) => ({ code: TASKS_EXTENSION_ERROR_CODES.HeaderMismatch, message });
    if (value === undefined || value === null) {
      if (header !== undefined) return mismatch(`${what} header sent for an argument the body does not have`);
      continue;
    }
    if (header === undefined) return mismatch(`Missing ${what} header (the argument is in the body)`);
    const decoded = decodeHeaderValue(header);
    if (decoded === undefined)
      return mismatch(`${what} header is not valid (characters a header may not carry, or a bad Base64 form)`);
    if (!headerMatches(decoded, value)) return mismatch(`${what} header does not match the argument`);
  }
  return undefined;
}

function headerMatches(header: string, value: unknown): boolean {
  if (typeof value === "string") return header === value;
  if (typeof value === "boolean") return header === String(value);
  if (typeof value === "number") return header.trim() !== "" && Number(header) === value;
  return false;
}

/** The params member `Mcp-Name` carries, by method (task methods: the Tasks server checks `taskId`). */
const NAMED_BY: { readonly [method: string]: string } = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/** The default `server/discover` answer: this revision, tools when listed, the Tasks extension. */
function discover(options: McpHttpOptions): JsonObject {
  const extensions = isObject(options.capabilities?.extensions) ? options.capabilities.extensions : {};
  return {
    supportedVersions: [STATELESS_PROTOCOL_VERSION],
    capabilities: {
      ...(options.methods?.["tools/list"] ? { tools: {} } : {}),
      ...options.capabilities,
      extensions: { ...extensions, [TASKS_EXTENSION]: {} },
    },
    ttlMs: 0,
    cacheScope: "public",
    ...(options.serverInfo ? { _meta: { [SERVER_INFO_META]: options.serverInfo } } : {}),
  };
}

/** Throws when the default `server/discover` answer is not the set's DiscoverResult (where the options give its validator). */
function checkDiscover(options: McpHttpOptions): void {
  if (!options.validateDiscover) return;
  // Checked as the client reads it: with the `resultType` every result gets (completeResults).
  const checked = options.validateDiscover({ resultType: "complete", ...discover(options) });
  if (!checked.ok) throw new ValidationFailed("DiscoverResult", checked.errors);
}

/** Each handler's result with `resultType: "complete"` unless it says otherwise (a created task says "task"). */
function completeResults(methods: NonNullable<RouterOptions["methods"]>): NonNullable<RouterOptions["methods"]> {
  return Object.fromEntries(
    Object.entries(methods).map(([method, handler]) => [
      method,
      async (params: JsonObject, context: RequestContext) => {
        const result = await handler(params, context);
        return "resultType" in result ? result : { resultType: "complete", ...result };
      },
    ]),
  );
}

/** HTTP status of a JSON-RPC error: unknown methods 404, internal errors 500, an owner's quota 429, a full store 503, the rest 400. */
export function httpStatus(code: number): number {
  if (code === JSON_RPC_ERROR_CODES.MethodNotFound) return 404;
  if (code === JSON_RPC_ERROR_CODES.InternalError) return 500;
  if (code === LIMIT_ERROR_CODES.OwnerTaskLimit || code === LIMIT_ERROR_CODES.OwnerListenLimit) return 429;
  if (code === LIMIT_ERROR_CODES.TaskStoreFull) return 503;
  return 400;
}

/** The headers of every JSON answer: one shared object (`writeNodeAnswer` knows it by identity). */
const JSON_HEADERS: { readonly [name: string]: string } = Object.freeze({ "content-type": "application/json" });

function json(status: number, body: JsonRpcResponse): HttpAnswer {
  return { status, headers: JSON_HEADERS, body: JSON.stringify(body) };
}

function failure(status: number, id: JsonRpcId | null, code: number, message: string, data?: unknown): HttpAnswer {
  return json(status, { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } });
}

const LOCAL_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

function originTest(allowed: McpHttpOptions["allowedOrigins"]): (origin: string) => boolean {
  if (typeof allowed === "function") return allowed;
  if (allowed) return (origin) => allowed.includes(origin);
  return (origin) => LOCAL_ORIGIN.test(origin);
}

/**
 * The default owner: a bearer of the same credentials is the same owner (hashed: the secret is not
 * kept). The scheme is case-insensitive (RFC 9110 › Authentication Scheme), so `Bearer x` and
 * `bearer x` are one owner; the credentials are taken as sent (tokens are case-sensitive).
 */
function defaultOwner(headers: RequestHeaders): string {
  const authorization = headerValue(headers, "authorization")?.trim();
  if (!authorization) return "anonymous";
  const [, scheme = "", credentials = ""] = /^(\S+)\s*(.*)$/s.exec(authorization) ?? [];
  // The scheme's conventional spelling (`Bearer`, `Basic`): a header sent that way hashes as it always did.
  const normalised = `${scheme.charAt(0).toUpperCase()}${scheme.slice(1).toLowerCase()} ${credentials}`;
  return `auth:${createHash("sha256").update(normalised).digest("hex")}`;
}

let warnedDefaultOwner = false;

/** Said once per process: without `owner` nothing verifies who is asking (README › Runtime parts › Owners says why this is not refused). */
function warnDefaultOwner(): void {
  if (warnedDefaultOwner) return;
  warnedDefaultOwner = true;
  globalThis.console?.warn(
    'http-server: no `owner` option: tasks are keyed by the unverified Authorization header, and every caller without one shares the owner "anonymous" (README › Runtime parts › Owners)',
  );
}

function pathOf(target: string): string {
  return new URL(target, "http://localhost").pathname;
}

/**
 * The body of a `node:http` request. Reading stops (the stream paused, not destroyed, so the
 * answer can still be written; it carries `connection: close`) once the limit or the time is
 * exceeded. A client that aborts its body, or has gone before the read starts, rejects, as before.
 */
function readNodeBody(
  req: IncomingMessage,
  limit: number,
  timeoutMs: number,
): Promise<string | "too-large" | "timed-out"> {
  if (req.destroyed) return Promise.reject(new Error("the client closed the connection before the body ended"));
  // The whole body is already here (a small one arrives with the headers; the message's end may
  // still be on its way): taken from the stream's buffer in one read, with no listener and no
  // timer, since nothing is left to wait for.
  if (req.complete || req.readableLength === declaredLength(req)) {
    if (req.readableLength > limit) return Promise.resolve("too-large");
    const body = req.read() as Buffer | null;
    return Promise.resolve(body === null ? "" : body.toString("utf8"));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      clearTimeout(timer);
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    };
    const refuse = (why: "too-large" | "timed-out") => {
      stop();
      req.pause();
      resolve(why);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) refuse("too-large");
      else chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks).toString("utf8"));
    };
    const onError = (error: unknown) => {
      stop();
      reject(error);
    };
    // Gone before the end (its error may have come before these listeners): no wait for what cannot arrive.
    const onClose = () => onError(new Error("the client closed the connection before the body ended"));
    const timer = timeoutMs > 0 ? setTimeout(() => refuse("timed-out"), timeoutMs) : undefined;
    req.on("data", onData).once("end", onEnd).once("error", onError).once("close", onClose);
  });
}

/** The body length a request declares (`Content-Length` without `Transfer-Encoding`, which Node has checked); -1 otherwise. */
function declaredLength(req: IncomingMessage): number {
  const declared = req.headers["content-length"];
  return declared === undefined || req.headers["transfer-encoding"] !== undefined ? -1 : Number(declared);
}

async function readFetchBody(
  request: Request,
  limit: number,
  timeoutMs: number,
): Promise<string | "too-large" | "timed-out"> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timed-out">((resolve) => {
    if (timeoutMs > 0) timer = setTimeout(() => resolve("timed-out"), timeoutMs);
  });
  try {
    for (;;) {
      const read = await Promise.race([reader.read(), timedOut]);
      if (read === "timed-out") {
        reader.cancel().catch(() => {});
        return "timed-out";
      }
      if (read.done) break;
      size += read.value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        return "too-large";
      }
      chunks.push(read.value);
    }
  } finally {
    clearTimeout(timer);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

// ---------------------------------------------------------------------------------------------
// Transport hygiene the MCP SDK's Streamable HTTP server has: Host, Accept, Content-Type, a slow
// body, a caller the owner function refuses. Each answer closes the connection (its body may be
// unread) and carries a JSON-RPC error without an id (none was read); -32000 and the messages
// are the SDK's (webStandardStreamableHttp.js, middleware/hostHeaderValidation.js).

/** The SDK's code for transport-level refusals (JSON-RPC's implementation-defined server error). */
const TRANSPORT_ERROR = -32000;

const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

function refused(status: number, message: string, headers: { readonly [name: string]: string } = {}): HttpAnswer {
  const answer = failure(status, null, TRANSPORT_ERROR, message);
  return { ...answer, headers: { ...answer.headers, ...headers, connection: "close" } };
}

/**
 * The `Host` check, made once: 403 for a `Host` outside the allow-list (by default: checked on
 * loopback connections only). A `Host` that is an allowed name exactly as URL parsing would leave
 * it, with or without a port, is let through without parsing; any other goes through `URL`.
 */
function hostCheck(allowed: McpHttpOptions["allowedHosts"]): (request: HttpRequestParts) => HttpAnswer | undefined {
  if (allowed === false) return () => undefined;
  const names = typeof allowed === "function" ? [] : (allowed ?? LOOPBACK_HOSTS);
  const allows = typeof allowed === "function" ? allowed : (hostname: string) => names.includes(hostname);
  const plain = new Set(names.filter((name) => parsedHostname(name) === name));
  return (request) => {
    if (allowed === undefined && request.loopback !== true) return undefined;
    const host = headerValue(request.headers, "host");
    if (host === undefined || host === "") return refused(403, "Missing Host header");
    if (plain.has(withoutPort(host))) return undefined;
    const hostname = parsedHostname(host);
    if (hostname === undefined) return refused(403, `Invalid Host header: ${host.slice(0, 100)}`);
    return allows(hostname) ? undefined : refused(403, `Invalid Host: ${hostname.slice(0, 100)}`);
  };
}

/** The host name a `Host` value names, as URL parsing reads it; undefined when it does not parse. */
function parsedHostname(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/** `Host` without a trailing `:port` (1 to 5 digits, at most 65535, what URL accepts); as it is otherwise. */
function withoutPort(host: string): string {
  const colon = host.lastIndexOf(":");
  const digits = host.length - colon - 1;
  if (colon < 0 || digits < 1 || digits > 5) return host;
  let port = 0;
  for (let i = colon + 1; i < host.length; i++) {
    const code = host.charCodeAt(i);
    if (code < 48 || code > 57) return host;
    port = port * 10 + (code - 48);
  }
  return port <= 65535 ? host.slice(0, colon) : host;
}

/**
 * 406 for an `Accept` that admits neither JSON nor an event stream (an absent `Accept` admits
 * both, RFC 9110 › Accept); 415 for a body that is not declared `application/json` (parameters
 * such as `charset` allowed; an absent `Content-Type` is refused, as the SDK does).
 */
function checkMediaTypes(headers: RequestHeaders): HttpAnswer | undefined {
  const accept = headerValue(headers, "accept");
  if (
    accept !== undefined &&
    !commonAccept(accept) &&
    !accepts(accept, "application/json") &&
    !accepts(accept, "text/event-stream")
  ) {
    return refused(406, "Not Acceptable: Client must accept application/json or text/event-stream");
  }
  const contentType = headerValue(headers, "content-type");
  if (contentType === "application/json" || contentType === "application/json; charset=utf-8") return undefined;
  const essence = contentType?.split(";", 1)[0]!.trim().toLowerCase();
  if (essence !== "application/json") {
    return refused(415, "Unsupported Media Type: Content-Type must be application/json");
  }
  return undefined;
}

/** The `Accept` values clients send (the MCP SDK's first), each admitting JSON or SSE: no parsing for them. */
function commonAccept(accept: string): boolean {
  return (
    accept === "application/json, text/event-stream" ||
    accept === "application/json" ||
    accept === "text/event-stream" ||
    accept === "*/*"
  );
}

// Whether an `Accept` value admits a media type: its own range, `type/*` or `*/*`, with a weight above 0.
function accepts(accept: string, mediaType: string): boolean {
  const wildcard = `${mediaType.split("/", 1)[0]}/*`;
  return accept.split(",").some((range) => {
    const [name = "", ...parameters] = range.split(";").map((part) => part.trim().toLowerCase());
    if (name !== mediaType && name !== wildcard && name !== "*/*") return false;
    const weight = parameters.find((parameter) => /^q\s*=/.test(parameter));
    return weight === undefined || Number(weight.replace(/^q\s*=\s*/, "")) > 0;
  });
}

function unauthorized(): HttpAnswer {
  return refused(401, "Unauthorized: the request carries no credentials this server accepts", {
    "www-authenticate": "Bearer",
  });
}

function bodyTimedOut(timeoutMs: number): HttpAnswer {
  return refused(408, `Request Timeout: the body did not arrive within ${timeoutMs} ms`);
}

/** Whether a socket's local address is a loopback one (IPv4 127/8, `::1`, or IPv4 loopback mapped into IPv6). */
function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  return /^(?:::ffff:)?127\./.test(address) || address === "::1";
}
