/**
 * Runtime part `http-client`: the set's Tasks client (`client.ts`) over MCP's Streamable HTTP
 * transport with plain `fetch`.
 *
 * Needs no package, only the web platform: `fetch`, `Response`, `TextDecoder` and `AbortController`
 * (Node 20+, Deno, Bun, browsers), and their typings (`@types/node` or the DOM library), which is
 * why a set gets this file only when its config asks for it (`"runtime": ["http-client"]`).
 *
 *   const http = streamableHttpTransport({ url: "https://example.com/mcp" });
 *   const tasks = createTasksClient(http);
 *
 * Every request is a POST of the JSON-RPC message. The routing headers the generated client
 * passes to `send` are sent as they are (`Mcp-Method`, `Mcp-Name`). The answer may be JSON or an
 * SSE stream (`text/event-stream`); on any stream, notifications go to `onNotification`
 * listeners and requests of the server (elicitation, sampling, ...) to the `onRequest` handler,
 * whose answer is POSTed back. A JSON-RPC error sent with an HTTP error status is still the
 * answer; an HTTP error without one rejects. A session id the server assigns (`Mcp-Session-Id`)
 * is sent with every later request.
 *
 * The protocol revision decides the lifecycle:
 * - stateless (2026-07-28 and later): a request declares its revision in
 *   `_meta["io.modelcontextprotocol/protocolVersion"]` (the client puts it there) and the
 *   `MCP-Protocol-Version` header is that value, so the two always agree; nothing else happens.
 * - with a handshake (2025-11-25 and earlier; the transport's `protocolVersion` says which): the
 *   first request is preceded by `initialize` (`clientInfo`, `capabilities`) and
 *   `notifications/initialized`; later requests carry the negotiated version and the session id;
 *   the standalone GET stream is opened for what the server sends outside any request; a response
 *   stream that ends before its response is resumed with a GET carrying `Last-Event-ID`, after
 *   the server's `retry:` delay; `close()` ends the session with DELETE.
 *
 * `listen` opens a `subscriptions/listen` stream, which the generated client uses to follow tasks
 * by their status notifications instead of polling.
 *
 * What a server sends is bounded (README › Security limits): a JSON answer's body (`maxBodyBytes`)
 * and one SSE event (`maxEventBytes`) are read only up to their limit, then the request is aborted
 * and rejects with `HttpResponseLimitError`; the server's `retry:` is clamped into
 * `reconnect.minDelayMs`..`maxDelayMs`, and reconnects back off on consecutive failures, which only
 * a stream that stayed open `reconnect.healthyAfterMs` forgives (events alone do not); at most
 * `maxPendingServerRequests` requests of the server are handled at once.
 */
import { JSON_RPC_ERROR_CODES, PROTOCOL_VERSION_META, STATELESS_PROTOCOL_VERSION } from "../protocol/constants.js";
import { isObject } from "../protocol/json.js";

/** Defaults of the limits on what the server sends (see `StreamableHttpOptions`). */
export const HTTP_CLIENT_LIMITS = {
  maxBodyBytes: 16 * 1024 * 1024,
  maxEventBytes: 4 * 1024 * 1024,
  minDelayMs: 100,
  maxDelayMs: 60_000,
  healthyAfterMs: 10_000,
  maxPendingServerRequests: 32,
} as const;

/** The longest delay a timer takes as given (longer ones fire at once in Node and browsers). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The server sent more than this transport reads (`maxBodyBytes` of a JSON answer, `maxEventBytes` of
 * one SSE event): reading stopped there, the request was aborted, and its call rejects with this.
 */
export class HttpResponseLimitError extends Error {
  override readonly name = "HttpResponseLimitError";
  constructor(
    /** What was being read: a request's method, or the stream it came on. */
    readonly what: string,
    /** The option whose limit was reached. */
    readonly limit: "maxBodyBytes" | "maxEventBytes",
    readonly limitBytes: number,
  ) {
    super(
      `${what}: the server sent ${limit === "maxBodyBytes" ? "a response body" : "an SSE event"} larger than ${limit} (${limitBytes} bytes); the request was aborted`,
    );
  }
}

export interface StreamableHttpOptions {
  /** The MCP endpoint. */
  readonly url: string | URL;
  /** Headers for every request (authorization, ...). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The revision offered in `initialize` when it is one with the handshake (2025-11-25 and
   * earlier), and the `MCP-Protocol-Version` of requests whose `_meta` declares none. A stateless
   * client declares its version in each request's `_meta` (its `protocolVersion` option): that
   * value is the header, whatever this says.
   */
  readonly protocolVersion?: string;
  /** A session to join (`Mcp-Session-Id`): no `initialize` is sent. */
  readonly sessionId?: string;
  /** `initialize`'s `clientInfo` (default `{ name: "mcp-tasks-gen-client", version: "1.0.0" }`). */
  readonly clientInfo?: { readonly name: string; readonly version: string; readonly [key: string]: unknown };
  /**
   * `initialize`'s client capabilities, or a function read when `initialize` is sent. A generated
   * client given this transport declares what its handlers answer itself (`declareCapabilities`);
   * these entries are added to that, and win where both name the same capability.
   */
  readonly capabilities?: { readonly [key: string]: unknown } | (() => { readonly [key: string]: unknown });
  /** Open the standalone GET stream after `initialize` (default true). */
  readonly standaloneStream?: boolean;
  /**
   * Reconnecting a stream the server ends: how many failures in a row (default 2), and the delay
   * when the server sets no `retry:` (default 1000 ms). The server's `retry:` is clamped into
   * `minDelayMs`..`maxDelayMs` (100 ms..60 s); each consecutive failure doubles the delay (up to
   * `maxDelayMs`). The count of failures is forgiven only when a stream stayed open `healthyAfterMs`
   * (10 s): a server that sends an event and hangs up at once cannot make the client reconnect forever.
   */
  readonly reconnect?: {
    readonly maxAttempts?: number;
    readonly delayMs?: number;
    readonly minDelayMs?: number;
    readonly maxDelayMs?: number;
    readonly healthyAfterMs?: number;
  };
  /** The largest body of a JSON answer read (default 16 MiB); beyond it the request is aborted with HttpResponseLimitError. */
  readonly maxBodyBytes?: number;
  /** The largest SSE event read, its lines together (default 4 MiB); beyond it the stream is aborted with HttpResponseLimitError. */
  readonly maxEventBytes?: number;
  /**
   * Requests of the server handled at once (default 32): one more is dropped unanswered and told to
   * `onError`, so a server cannot make the client run any number of handlers and answers at once.
   */
  readonly maxPendingServerRequests?: number;
  /** Told about what fails in the background: the GET stream, answers POSTed back, handlers that throw. */
  readonly onError?: (error: unknown) => void;
  /** The `fetch` to use (default: the global one). */
  readonly fetch?: typeof fetch;
}

/** A JSON-RPC request as the generated clients send it. */
export interface HttpAdapterRequest {
  readonly jsonrpc: "2.0";
  readonly id: string | number;
  readonly method: string;
  readonly params?: { readonly [key: string]: unknown };
}

/** A request the server sends the client, as the `onRequest` handler gets it. */
export interface HttpServerRequest {
  readonly id: string | number;
  readonly method: string;
  readonly params?: { readonly [key: string]: unknown };
}

/**
 * Answers a request of the server: resolves with its result object. To answer with a JSON-RPC
 * error, reject (or resolve) with an error carrying a numeric `code` and a `message` (and
 * optionally `data`), as the runtime's `JsonRpcError` does; any other rejection answers -32603.
 * The set's client-core.ts names this shape `TasksClientServerRequestHandler`.
 */
export type HttpServerRequestHandler = (request: HttpServerRequest) => Promise<object>;

export interface StreamableHttpTransport {
  /** The generated client's `send`. */
  readonly send: (
    request: HttpAdapterRequest,
    headers: { readonly [name: string]: string },
    options: { readonly signal: unknown },
  ) => Promise<unknown>;
  /** The generated client's `onNotification`: notifications that arrive on any stream. */
  readonly onNotification: (listener: (notification: unknown) => void) => () => void;
  /** Sets the handler of the server's requests (one at a time); returns the function that removes it. Without one they are answered -32601. */
  readonly onRequest: (handler: HttpServerRequestHandler) => () => void;
  /** Sends a notification (POST, no answer expected). */
  readonly notify: (method: string, params?: { readonly [key: string]: unknown }) => Promise<void>;
  /** The session id in use, if any. */
  sessionId(): string | undefined;
  /** The revision `initialize` negotiated, if it was sent. */
  negotiatedVersion(): string | undefined;
  /** Stops the GET stream and, for a session this transport began, ends it with DELETE. */
  close(): Promise<void>;
  /**
   * What the client can answer, declared in `initialize` (the generated client calls it with its
   * `capabilities()`, so its handlers and the handshake cannot disagree); the `capabilities` option's
   * entries are added. Without effect once `initialize` was sent.
   */
  readonly declareCapabilities: (capabilities: { readonly [key: string]: unknown }) => void;
  /**
   * The generated client's `listen`: a `subscriptions/listen` request, whose answer is an SSE stream
   * that stays open. Every message on it but the response goes to `onMessage` (the acknowledgement,
   * the notifications); resolves with the response (the server's graceful end, or an error answered
   * as JSON at once), or undefined when the stream ends without one (a drop); rejects when `signal`
   * aborts (closing the stream cancels the subscription) or the request fails.
   */
  readonly listen: (
    request: HttpAdapterRequest,
    headers: { readonly [name: string]: string },
    options: { readonly signal: unknown; readonly onMessage: (message: unknown) => void },
  ) => Promise<unknown>;
}

export function streamableHttpTransport(options: StreamableHttpOptions): StreamableHttpTransport {
  const doFetch = options.fetch ?? globalThis.fetch;
  const listeners = new Set<(notification: unknown) => void>();
  const report = options.onError ?? (() => {});
  const maxAttempts = options.reconnect?.maxAttempts ?? 2;
  const minDelayMs = timerMs(options.reconnect?.minDelayMs ?? HTTP_CLIENT_LIMITS.minDelayMs);
  const maxDelayMs = Math.max(minDelayMs, timerMs(options.reconnect?.maxDelayMs ?? HTTP_CLIENT_LIMITS.maxDelayMs));
  const healthyAfterMs = options.reconnect?.healthyAfterMs ?? HTTP_CLIENT_LIMITS.healthyAfterMs;
  const defaultDelayMs = timerMs(options.reconnect?.delayMs ?? 1000);
  const maxBodyBytes = options.maxBodyBytes ?? HTTP_CLIENT_LIMITS.maxBodyBytes;
  const limits = { maxEventBytes: options.maxEventBytes ?? HTTP_CLIENT_LIMITS.maxEventBytes };
  /** The server's `retry:` clamped into the bounds (the delay stays as it was for a value that is no number). */
  const retryDelay = (retry: number | undefined, current: number) =>
    retry === undefined || !Number.isFinite(retry) ? current : Math.min(maxDelayMs, Math.max(minDelayMs, retry));
  /** The delay before reconnecting after `failures` failures in a row: doubled each time, up to `maxDelayMs`. */
  const backoff = (delayMs: number, failures: number) =>
    Math.min(Math.max(delayMs, maxDelayMs), delayMs * 2 ** Math.max(0, Math.min(failures - 1, 30)));
  const standalone = new AbortController();
  let sessionId = options.sessionId;
  let negotiated: string | undefined;
  let initializing: Promise<void> | undefined;
  let handler: HttpServerRequestHandler | undefined;
  let declaredCapabilities: { readonly [key: string]: unknown } = {};
  let closed = false;

  const baseHeaders = (version: string | undefined, session = true): Record<string, string> => ({
    ...options.headers,
    ...(version ? { "mcp-protocol-version": version } : {}),
    ...(sessionId && session ? { "mcp-session-id": sessionId } : {}),
  });

  const post = async (message: object, headers: Record<string, string>, signal: AbortSignal | undefined) => {
    const response = await doFetch(options.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(message),
      ...(signal ? { signal } : {}),
    });
    sessionId = response.headers.get("mcp-session-id") ?? sessionId;
    return response;
  };

  /** Routes one message that is not the awaited response: notifications to listeners, requests to the handler. */
  const dispatch = (message: unknown) => {
    if (isNotification(message)) {
      for (const listener of listeners) {
        try {
          listener(message);
        } catch (error) {
          report(error);
        }
      }
    } else if (isRequest(message)) {
      if (pendingServerRequests < maxPendingServerRequests) void answerServerRequest(message);
      else
        report(
          new Error(
            `${message.method}: dropped unanswered, ${maxPendingServerRequests} requests of the server are pending (maxPendingServerRequests)`,
          ),
        );
    }
  };

  let pendingServerRequests = 0;
  const maxPendingServerRequests = options.maxPendingServerRequests ?? HTTP_CLIENT_LIMITS.maxPendingServerRequests;
  const answerServerRequest = async (request: HttpServerRequest) => {
    pendingServerRequests++;
    try {
      const reply = { jsonrpc: "2.0" as const, id: request.id, ...(await outcomeOf(handler, request, report)) };
      const response = await post(reply, baseHeaders(negotiated ?? options.protocolVersion), undefined);
      await response.body?.cancel();
      if (!response.ok) throw new Error(`answer to ${request.method}: HTTP ${response.status}`);
    } catch (error) {
      report(error);
    } finally {
      pendingServerRequests--;
    }
  };

  /** GET on the endpoint as an SSE stream (resuming after `lastEventId` when given); undefined when the server offers none. */
  const openStream = async (lastEventId: string | undefined, signal: AbortSignal): Promise<Response | undefined> => {
    const response = await doFetch(options.url, {
      method: "GET",
      headers: {
        accept: "text/event-stream",
        ...baseHeaders(negotiated ?? options.protocolVersion),
        ...(lastEventId !== undefined ? { "last-event-id": lastEventId } : {}),
      },
      signal,
    });
    if (response.ok && isEventStream(response)) return response;
    await response.body?.cancel().catch(() => {});
    return undefined;
  };

  /** The standalone GET stream: read while the transport is open, reconnected when the server ends it. */
  const runStandaloneStream = async () => {
    const signal = standalone.signal;
    // A stream belongs to its session: a new session opens its own.
    const session = sessionId;
    let lastEventId: string | undefined;
    let delayMs = defaultDelayMs;
    let failures = 0;
    while (!closed && sessionId === session) {
      let openedAt: number | undefined;
      try {
        const response = await openStream(lastEventId, signal);
        // 405 (or anything but a stream): the server sends nothing outside requests.
        if (!response?.body) return;
        openedAt = Date.now();
        await readEventStream(
          response.body,
          (event) => {
            if (event.id !== undefined) lastEventId = event.id;
            delayMs = retryDelay(event.retry, delayMs);
            const message = parseData(event.data);
            if (message !== undefined) dispatch(message);
          },
          { ...limits, what: "the GET stream" },
        );
      } catch (error) {
        if (closed) return;
        report(error);
      }
      // Only time forgives: a stream that ends soon after it opened is a failure, whatever it sent.
      failures = openedAt !== undefined && Date.now() - openedAt >= healthyAfterMs ? 0 : failures + 1;
      if (failures > maxAttempts) return;
      if (!(await sleep(backoff(delayMs, failures), signal))) return;
    }
  };

  /** The handshake, once for all the requests that wait for it; a failed one is tried again by the next request. */
  const beginSession = () =>
    (initializing ??= initialize(options.protocolVersion!, undefined).catch((error: unknown) => {
      initializing = undefined;
      throw error;
    }));

  const initialize = async (version: string, signal: AbortSignal | undefined) => {
    const request = {
      jsonrpc: "2.0" as const,
      id: "initialize",
      method: "initialize",
      params: {
        protocolVersion: version,
        capabilities: mergeCapabilities(
          declaredCapabilities,
          (typeof options.capabilities === "function" ? options.capabilities() : options.capabilities) ?? {},
        ),
        clientInfo: options.clientInfo ?? { name: "mcp-tasks-gen-client", version: "1.0.0" },
      },
    };
    const response = await post(request, { ...options.headers, "mcp-method": "initialize" }, signal);
    const answer = await answerOf(request, response, signal);
    const result = isObject(answer) ? answer.result : undefined;
    if (!isObject(result) || typeof result.protocolVersion !== "string") {
      const error =
        isObject(answer) && isObject(answer.error)
          ? `: ${String(answer.error.message)} (${String(answer.error.code)})`
          : "";
      throw new Error(`initialize: the server did not accept the session${error}`);
    }
    negotiated = result.protocolVersion;
    await notifyWith("notifications/initialized", undefined, signal);
    if (options.standaloneStream !== false) void runStandaloneStream();
  };

  const notifyWith = async (method: string, params: object | undefined, signal: AbortSignal | undefined) => {
    const message = { jsonrpc: "2.0" as const, method, ...(params ? { params } : {}) };
    const response = await post(
      message,
      { ...baseHeaders(negotiated ?? options.protocolVersion), "mcp-method": method },
      signal,
    );
    await response.body?.cancel().catch(() => {});
    if (!response.ok) throw new Error(`${method}: HTTP ${response.status}`);
  };

  /** The response to `request` from its POST's answer (JSON or a stream, resumed when it ends early). */
  const answerOf = async (request: HttpAdapterRequest, response: Response, signal: AbortSignal | undefined) => {
    if (!isEventStream(response)) {
      return fromJson(await readBody(response, maxBodyBytes, request.method), request.id, dispatch);
    }
    const resumable = declaredVersion(request) === undefined && hasHandshake(negotiated ?? options.protocolVersion);
    let stream: Response | undefined = response;
    let lastEventId: string | undefined;
    let delayMs = defaultDelayMs;
    for (let attempt = 0; stream; attempt++) {
      const found = await fromEventStream(
        stream,
        request.id,
        dispatch,
        (event) => {
          if (event.id !== undefined) lastEventId = event.id;
          delayMs = retryDelay(event.retry, delayMs);
        },
        { ...limits, what: request.method },
      );
      if (found !== undefined) return found;
      // The stream ended before the response: resume it where it stopped (2025-11-25 Streamable HTTP, resumability).
      if (!resumable || lastEventId === undefined || attempt >= maxAttempts) return undefined;
      const controller = linkedController(signal);
      if (!(await sleep(backoff(delayMs, attempt + 1), controller.signal))) return undefined;
      stream = await openStream(lastEventId, controller.signal);
    }
    return undefined;
  };

  return {
    async send(request, headers, { signal }) {
      const abort = signal as AbortSignal | undefined;
      const declared = declaredVersion(request);
      const handshake = declared === undefined && hasHandshake(negotiated ?? options.protocolVersion);
      if (handshake && sessionId === undefined && negotiated === undefined) await beginSession();
      const sentWith = sessionId;
      // The stateless revision has no sessions: a session id a server sends anyway is not echoed.
      const stateless = declared !== undefined && !hasHandshake(declared);
      const sending = () =>
        post(
          request,
          { ...baseHeaders(declared ?? negotiated ?? options.protocolVersion, !stateless), ...headers },
          abort,
        );
      let response = await sending();
      if (response.status === 404 && handshake && sentWith !== undefined && negotiated !== undefined) {
        // The server ended the session: a new one is begun and the request sent again, once.
        await response.body?.cancel().catch(() => {});
        if (sessionId === sentWith) {
          sessionId = undefined;
          negotiated = undefined;
          initializing = undefined;
        }
        await beginSession();
        response = await sending();
      }
      const answer = await answerOf(request, response, abort);
      if (answer === undefined) {
        throw new Error(
          `${request.method}: HTTP ${response.status} without a JSON-RPC response to request ${JSON.stringify(request.id)}`,
        );
      }
      return answer;
    },
    onNotification(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onRequest(next) {
      handler = next;
      return () => {
        if (handler === next) handler = undefined;
      };
    },
    notify: (method, params) => notifyWith(method, params, undefined),
    sessionId: () => sessionId,
    negotiatedVersion: () => negotiated,
    declareCapabilities(capabilities) {
      declaredCapabilities = capabilities;
    },
    async listen(request, headers, { signal, onMessage }) {
      // Listen streams belong to the stateless revisions: the request declares its version, no session.
      const version = declaredVersion(request) ?? options.protocolVersion;
      const response = await post(request, { ...baseHeaders(version, false), ...headers }, signal as AbortSignal);
      if (isEventStream(response)) {
        return fromEventStream(response, request.id, onMessage, undefined, { ...limits, what: request.method });
      }
      const answer = fromJson(await readBody(response, maxBodyBytes, request.method), request.id, onMessage);
      if (answer === undefined) {
        throw new Error(`${request.method}: HTTP ${response.status} without a JSON-RPC response or an event stream`);
      }
      return answer;
    },
    async close() {
      if (closed) return;
      closed = true;
      standalone.abort();
      // A session this transport began (by `initialize`) is ended; a joined one belongs to whoever began it.
      if (negotiated === undefined || sessionId === undefined) return;
      try {
        const response = await doFetch(options.url, { method: "DELETE", headers: baseHeaders(negotiated) });
        await response.body?.cancel().catch(() => {});
      } catch (error) {
        report(error);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Server-sent events (reusable by any stream reader of this file)

/** One event of an SSE stream: its `data` lines joined, and the `id`/`retry` it set. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
  readonly id?: string;
  readonly retry?: number;
}

/** What `readEventStream` reads at most, and what a refusal names. */
export interface SseLimits {
  /** The largest event, its lines and line endings together (default 4 MiB). */
  readonly maxEventBytes?: number;
  /** What is being read, for HttpResponseLimitError's message (default "SSE stream"). */
  readonly what?: string;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Reads an SSE body event by event (the WHATWG event-stream format: `data`, `event`, `id`,
 * `retry`, comments, any line ending). `onEvent` may return a value other than `undefined` or
 * `false` to stop reading: that value is returned. The body is cancelled when reading stops, and
 * an event the stream cut short is dropped, as the format says. An event larger than
 * `maxEventBytes` stops reading with HttpResponseLimitError. Lines are cut from the bytes as they
 * arrive (a line ending is one byte in UTF-8), each byte looked at once, and decoded whole.
 */
export async function readEventStream<T>(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: SseEvent) => T | false | undefined | void,
  limits: SseLimits = {},
): Promise<T | undefined> {
  const maxEventBytes = limits.maxEventBytes ?? HTTP_CLIENT_LIMITS.maxEventBytes;
  const reader = body.getReader();
  // Per line, so a character cut between chunks is whole; the stream's BOM is dropped by hand below.
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** The pieces of the line not ended yet. */
  let pieces: Uint8Array[] = [];
  /** The bytes of the event so far, the pieces included. */
  let eventBytes = 0;
  let first = true;
  let afterCR = false;
  let data: string[] = [];
  let type = "";
  let id: string | undefined;
  let retry: number | undefined;

  /** One line of the stream: a field, a comment, or the blank line that dispatches the event. */
  const onLine = (line: string): SseEvent | undefined => {
    if (first) {
      first = false;
      if (line.startsWith("\uFEFF")) line = line.slice(1);
    }
    if (line === "") {
      const event: SseEvent = {
        event: type || "message",
        data: data.join("\n"),
        ...(id !== undefined ? { id } : {}),
        ...(retry !== undefined ? { retry } : {}),
      };
      data = [];
      type = "";
      id = undefined;
      retry = undefined;
      eventBytes = 0;
      return event;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const fieldValue = colon < 0 ? "" : line.slice(colon + (line.startsWith(" ", colon + 1) ? 2 : 1));
    if (field === "data") data.push(fieldValue);
    else if (field === "event") type = fieldValue;
    else if (field === "id" && !fieldValue.includes("\0")) id = fieldValue;
    else if (field === "retry" && /^\d+$/.test(fieldValue)) retry = Number(fieldValue);
    return undefined;
  };
  const lineOf = (rest: Uint8Array): string => {
    if (pieces.length === 0) return decoder.decode(rest);
    pieces.push(rest);
    const whole = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.byteLength, 0));
    let at = 0;
    for (const piece of pieces) {
      whole.set(piece, at);
      at += piece.byteLength;
    }
    pieces = [];
    return decoder.decode(whole);
  };

  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return undefined;
      let start = 0;
      // A `\n` right after a `\r` that ended the last chunk is that line ending's second half.
      if (afterCR && value[0] === LF) start = 1;
      afterCR = false;
      for (let at = start; at < value.length; at++) {
        const byte = value[at];
        if (byte !== LF && byte !== CR) continue;
        eventBytes += at - start + 1;
        if (eventBytes > maxEventBytes) {
          throw new HttpResponseLimitError(limits.what ?? "SSE stream", "maxEventBytes", maxEventBytes);
        }
        const event = onLine(lineOf(value.subarray(start, at)));
        if (byte === CR) {
          if (at + 1 === value.length) afterCR = true;
          else if (value[at + 1] === LF) at++;
        }
        start = at + 1;
        if (event !== undefined) {
          const outcome = onEvent(event);
          if (outcome !== undefined && outcome !== false) return outcome as T;
        }
      }
      if (start < value.length) {
        eventBytes += value.length - start;
        if (eventBytes > maxEventBytes) {
          throw new HttpResponseLimitError(limits.what ?? "SSE stream", "maxEventBytes", maxEventBytes);
        }
        // Copied: the reader may hand its buffer on.
        pieces.push(value.slice(start));
      }
    }
  } finally {
    // What follows is not ours to read (or there is nothing more).
    reader.cancel().catch(() => {});
  }
}

/**
 * Reads an SSE answer until the response to `id` and returns it (undefined when the stream ends
 * first); every other message on it goes to `deliver`, every event (priming ones too) to `seen`.
 */
export async function fromEventStream(
  response: Response,
  id: string | number,
  deliver: (message: unknown) => void,
  seen: (event: SseEvent) => void = () => {},
  limits: SseLimits = {},
): Promise<unknown> {
  if (!response.body) return undefined;
  return readEventStream(
    response.body,
    (event) => {
      seen(event);
      const message = parseData(event.data);
      if (message === undefined) return undefined;
      if (isResponseTo(message, id)) return message;
      deliver(message);
      return undefined;
    },
    limits,
  );
}

/** The JSON of an event's data, or undefined for an event without (valid) data (a priming event has none). */
function parseData(data: string): unknown {
  if (data.trim() === "") return undefined;
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

/**
 * A body read as text up to `maxBytes`: a larger one (by its Content-Length, or by what arrives)
 * is cancelled there, which aborts the request, and rejects with HttpResponseLimitError.
 */
async function readBody(response: Response, maxBytes: number, what: string): Promise<string> {
  const refuse = () => new HttpResponseLimitError(what, "maxBodyBytes", maxBytes);
  if (!response.body) return "";
  const declared = Number(response.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body.cancel().catch(() => {});
    throw refuse();
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw refuse();
      chunks.push(value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(body);
}

/** A delay a timer takes as given: not negative, not NaN, at most about 24.8 days (a longer one would fire at once). */
function timerMs(ms: number): number {
  return Number.isNaN(ms) ? 0 : Math.min(MAX_TIMER_MS, Math.max(0, ms));
}

/** The response to `id` in a JSON body (one message or a batch); the other messages in it are dispatched. */
function fromJson(text: string, id: string | number, dispatch: (message: unknown) => void): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  let answer: unknown;
  for (const message of Array.isArray(body) ? body : [body]) {
    if (isResponseTo(message, id)) answer ??= message;
    else dispatch(message);
  }
  return answer;
}

/** The `result` or `error` member answering a server request through `handler`. */
async function outcomeOf(
  handler: HttpServerRequestHandler | undefined,
  request: HttpServerRequest,
  report: (error: unknown) => void,
): Promise<{ result: object } | { error: { code: number; message: string; data?: unknown } }> {
  if (!handler)
    return { error: { code: JSON_RPC_ERROR_CODES.MethodNotFound, message: `Method not found: ${request.method}` } };
  try {
    const result = await handler(request);
    const error = rpcError(result);
    return error ? { error } : { result };
  } catch (thrown) {
    const error = rpcError(thrown);
    if (error) return { error };
    report(thrown);
    return { error: { code: JSON_RPC_ERROR_CODES.InternalError, message: "Internal error" } };
  }
}

/** The JSON-RPC error an `Error` carries (`code` and `message`, as `JsonRpcError` has), or undefined. */
function rpcError(value: unknown): { code: number; message: string; data?: unknown } | undefined {
  if (!(value instanceof Error)) return undefined;
  const { code, data } = value as Error & { code?: unknown; data?: unknown };
  if (typeof code !== "number" || !Number.isInteger(code)) return undefined;
  return data === undefined ? { code, message: value.message } : { code, message: value.message, data };
}

/** Capabilities with `extra`'s entries added: an object entry both have is merged one level down, otherwise `extra`'s wins. */
function mergeCapabilities(
  base: { readonly [key: string]: unknown },
  extra: { readonly [key: string]: unknown },
): { [key: string]: unknown } {
  const merged: { [key: string]: unknown } = { ...base };
  for (const [name, value] of Object.entries(extra)) {
    const mine = merged[name];
    merged[name] = isObject(mine) && isObject(value) ? { ...mine, ...value } : value;
  }
  return merged;
}

/** The revision a request declares in `_meta` (stateless revisions), if any. */
function declaredVersion(request: HttpAdapterRequest): string | undefined {
  const meta = request.params?._meta;
  const version = isObject(meta) ? meta[PROTOCOL_VERSION_META] : undefined;
  return typeof version === "string" ? version : undefined;
}

/** Whether a revision begins with the initialize handshake (those before the stateless one). */
function hasHandshake(version: string | undefined): boolean {
  return version !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(version) && version < STATELESS_PROTOCOL_VERSION;
}

function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").includes("text/event-stream");
}

/** Waits `ms`; false when `signal` aborted first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, timerMs(ms));
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** A controller aborted with `signal` (when given). */
function linkedController(signal: AbortSignal | undefined): AbortController {
  const controller = new AbortController();
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  return controller;
}

function isResponseTo(message: unknown, id: string | number): boolean {
  if (!isObject(message)) return false;
  return (
    ("result" in message || "error" in message) && (message.id === id || ("error" in message && message.id === null))
  );
}

function isNotification(message: unknown): boolean {
  return isObject(message) && typeof message.method === "string" && !("id" in message);
}

function isRequest(message: unknown): message is HttpServerRequest {
  return (
    isObject(message) &&
    typeof message.method === "string" &&
    (typeof message.id === "string" || typeof message.id === "number") &&
    !("result" in message) &&
    !("error" in message)
  );
}
