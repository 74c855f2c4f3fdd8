/**
 * Runtime part `http-client`: the set's Tasks client (`client.ts`) over MCP's Streamable HTTP
 * transport with plain `fetch`.
 *
 * Needs no package, only the web platform: `fetch`, `Response` and `TextDecoder` (Node 20+, Deno,
 * Bun, browsers), and their typings (`@types/node` or the DOM library), which is why a set gets
 * this file only when its config asks for it (`"runtime": ["http-client"]`).
 *
 *   const http = streamableHttpTransport({ url: "https://example.com/mcp" });
 *   const tasks = createTasksClient(http);
 *
 * Every request is a POST of the JSON-RPC message. The routing headers the generated client
 * passes to `send` are sent as they are: for the Tasks extension (SEP-2663) that is `Mcp-Method`
 * and `Mcp-Name` (= `params.taskId` for task methods), which the server checks against the body.
 * The answer may be JSON or an SSE stream (`text/event-stream`): from a stream, notifications
 * that arrive before the response go to `onNotification` listeners, and the stream is closed
 * once the response has arrived. A JSON-RPC error sent with an HTTP error status is still the
 * answer; an HTTP error without one rejects. A session id the server assigns (`Mcp-Session-Id`)
 * is sent with every later request.
 *
 * `listen` opens a `subscriptions/listen` stream (`listenOverHttp`), which the generated client
 * uses to follow tasks by their status notifications.
 *
 * Not covered: the initialization handshake (send `initialize` with `request`, or pass the
 * `sessionId` of a session set up elsewhere), the standalone GET stream for notifications outside
 * any request, and requests the server sends to the client within a stream (they are dropped).
 */

export interface StreamableHttpOptions {
  /** The MCP endpoint. */
  readonly url: string | URL;
  /** Headers for every request (authorization, ...). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as `MCP-Protocol-Version` when given. */
  readonly protocolVersion?: string;
  /** A session to join (`Mcp-Session-Id`). */
  readonly sessionId?: string;
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

export interface StreamableHttpTransport {
  /** The generated client's `send`. */
  readonly send: (
    request: HttpAdapterRequest,
    headers: { readonly [name: string]: string },
    options: { readonly signal: unknown },
  ) => Promise<unknown>;
  /** The generated client's `onNotification`: notifications that arrive in response streams. */
  readonly onNotification: (listener: (notification: unknown) => void) => () => void;
  /** The session id in use, if any. */
  sessionId(): string | undefined;
  /** The generated client's `listen`: a `subscriptions/listen` request and its long-lived SSE answer (`listenOverHttp`). */
  readonly listen: (
    request: HttpAdapterRequest,
    headers: { readonly [name: string]: string },
    options: { readonly signal: unknown; readonly onMessage: (message: unknown) => void },
  ) => Promise<unknown>;
}

export function streamableHttpTransport(options: StreamableHttpOptions): StreamableHttpTransport {
  const doFetch = options.fetch ?? globalThis.fetch;
  const listeners = new Set<(notification: unknown) => void>();
  let sessionId = options.sessionId;

  const deliver = (message: unknown) => {
    if (!isNotification(message)) return;
    for (const listener of listeners) listener(message);
  };

  return {
    async send(request, headers, { signal }) {
      const response = await doFetch(options.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...options.headers,
          ...(options.protocolVersion ? { "mcp-protocol-version": options.protocolVersion } : {}),
          ...(sessionId ? { "mcp-session-id": sessionId } : {}),
          ...headers,
        },
        body: JSON.stringify(request),
        signal: signal as AbortSignal,
      });
      sessionId = response.headers.get("mcp-session-id") ?? sessionId;
      const type = response.headers.get("content-type") ?? "";
      const answer = type.includes("text/event-stream")
        ? await fromEventStream(response, request.id, deliver)
        : fromJson(await response.text(), request.id, deliver);
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
    sessionId: () => sessionId,
    listen: (request, headers, listenOptions) =>
      listenOverHttp(options, () => sessionId, request, headers, listenOptions),
  };
}

/**
 * `subscriptions/listen` over Streamable HTTP: one POST whose answer is an SSE stream that stays
 * open. Every message on it but the response goes to `onMessage` (the acknowledgement, the
 * notifications); resolves with the response (the server's graceful end, or an error answered as
 * JSON at once), or undefined when the stream ends without one (a drop); rejects when `signal`
 * aborts (the client closes the stream: that cancels the subscription) or the request fails.
 */
export async function listenOverHttp(
  options: StreamableHttpOptions,
  sessionId: () => string | undefined,
  request: HttpAdapterRequest,
  headers: { readonly [name: string]: string },
  { signal, onMessage }: { readonly signal: unknown; readonly onMessage: (message: unknown) => void },
): Promise<unknown> {
  const session = sessionId();
  const response = await (options.fetch ?? globalThis.fetch)(options.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...options.headers,
      ...(options.protocolVersion ? { "mcp-protocol-version": options.protocolVersion } : {}),
      ...(session ? { "mcp-session-id": session } : {}),
      ...headers,
    },
    body: JSON.stringify(request),
    signal: signal as AbortSignal,
  });
  const type = response.headers.get("content-type") ?? "";
  if (type.includes("text/event-stream")) return fromEventStream(response, request.id, onMessage);
  const answer = fromJson(await response.text(), request.id, onMessage);
  if (answer === undefined) {
    throw new Error(`${request.method}: HTTP ${response.status} without a JSON-RPC response or an event stream`);
  }
  return answer;
}

/** The response to `id` in a JSON body (one message or a batch); notifications in it are delivered. */
function fromJson(text: string, id: string | number, deliver: (message: unknown) => void): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  let answer: unknown;
  for (const message of Array.isArray(body) ? body : [body]) {
    if (isResponseTo(message, id)) answer ??= message;
    else deliver(message);
  }
  return answer;
}

/** Reads SSE events until the response to `id`; notifications before it are delivered. */
async function fromEventStream(
  response: Response,
  id: string | number,
  deliver: (message: unknown) => void,
): Promise<unknown> {
  if (!response.body) return undefined;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += decoder.decode(value, { stream: !done });
      // Events end with a blank line; the last piece may be incomplete.
      const events = buffer.split(/\r\n\r\n|\n\n|\r\r/);
      buffer = done ? "" : events.pop()!;
      for (const event of events) {
        const message = eventData(event);
        if (message === undefined) continue;
        if (isResponseTo(message, id)) return message;
        deliver(message);
      }
      if (done) return undefined;
    }
  } finally {
    // The response is in (or never will be): the rest of the stream is not ours to read.
    reader.cancel().catch(() => {});
  }
}

/** The JSON of an SSE event's `data` lines, or undefined for an event without (valid) data. */
function eventData(event: string): unknown {
  const data = event
    .split(/\r\n|\n|\r/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).replace(/^ /, ""))
    .join("\n");
  if (data === "") return undefined;
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

function isResponseTo(message: unknown, id: string | number): boolean {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const m = message as Record<string, unknown>;
  return ("result" in m || "error" in m) && (m.id === id || ("error" in m && m.id === null));
}

function isNotification(message: unknown): boolean {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const m = message as Record<string, unknown>;
  return typeof m.method === "string" && !("id" in m);
}
