import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { readEventStream, streamableHttpTransport, type StreamableHttpTransport } from "../../../generated/tasks-2025-11-25/runtime/parts/http-client.js";
import { createTasksClient } from "../../../generated/tasks-2025-11-25/index.js";

/**
 * The `http-client` runtime part against small node:http servers of the tests' own, over real
 * HTTP on localhost: the initialize lifecycle of the revisions that have one (README › Runtime
 * parts), the standalone GET stream, requests of the server answered through `onRequest` and
 * POSTed back, notifications both ways, resumption of a response stream with `Last-Event-ID` after
 * the server's `retry:` delay, and DELETE of the session on close. The stateless revision's header
 * follows the request's `_meta`.
 */

type JsonObject = { [key: string]: unknown };

interface Seen {
  readonly httpMethod: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: JsonObject | undefined;
  readonly at: number;
}

type Handler = (seen: Seen, response: ServerResponse, request: IncomingMessage) => void;

let server: Server | undefined;
let transport: StreamableHttpTransport | undefined;

afterEach(async () => {
  await transport?.close();
  transport = undefined;
  const open = server;
  server = undefined;
  if (!open) return;
  open.closeAllConnections();
  await new Promise((resolve) => open.close(resolve));
});

/** A server calling `handle` for every HTTP request; resolves its URL and the requests it saw. */
async function serve(handle: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const entry: Seen = { httpMethod: request.method!, headers: request.headers, body: text ? (JSON.parse(text) as JsonObject) : undefined, at: performance.now() };
      seen.push(entry);
      handle(entry, response, request);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen };
}

const json = (response: ServerResponse, body: unknown, headers: Record<string, string> = {}) =>
  response.writeHead(200, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
const accepted = (response: ServerResponse) => response.writeHead(202).end();
const sse = (response: ServerResponse, headers: Record<string, string> = {}) =>
  response.writeHead(200, { "content-type": "text/event-stream", ...headers });
const event = (message: unknown, id?: string) => `${id ? `id: ${id}\n` : ""}data: ${JSON.stringify(message)}\n\n`;

const SESSION = "session-7";
const initializeResult = (id: unknown, version = "2025-06-18") => ({
  jsonrpc: "2.0",
  id,
  result: { protocolVersion: version, capabilities: {}, serverInfo: { name: "test", version: "1" } },
});

/** Answers the handshake and DELETE; `rest` answers everything else. GET streams are held open unless `rest` takes them. */
function withLifecycle(rest: Handler, options: { readonly getStream?: "open" | 405 } = {}): Handler {
  return (seen, response, request) => {
    const method = seen.body?.method;
    if (seen.httpMethod === "DELETE") return void response.writeHead(200).end();
    if (seen.httpMethod === "GET" && options.getStream === 405) return void response.writeHead(405).end();
    if (method === "initialize") return json(response, initializeResult(seen.body!.id), { "mcp-session-id": SESSION });
    if (method === "notifications/initialized") return accepted(response);
    rest(seen, response, request);
  };
}

const until = async (condition: () => boolean, what: string) => {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const signal = () => new AbortController().signal;

describe("http-client on a revision with the initialize handshake", () => {
  it("initializes once, then sends the session id and the negotiated version with every request", async () => {
    const { url, seen } = await serve(
      withLifecycle((s, response) => json(response, { jsonrpc: "2.0", id: s.body!.id, result: { tools: [] } }), { getStream: 405 }),
    );
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25", clientInfo: { name: "probe", version: "2" }, capabilities: { elicitation: {} } });
    const client = createTasksClient({ ...transport });
    await Promise.all([client.request("tools/list"), client.request("tools/list")]);

    const posts = seen.filter((s) => s.httpMethod === "POST");
    expect(posts.map((s) => s.body!.method)).toEqual(["initialize", "notifications/initialized", "tools/list", "tools/list"]);
    expect(posts[0]!.body!.params).toEqual({ protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "probe", version: "2" } });
    expect(posts[0]!.headers["mcp-session-id"]).toBeUndefined();
    for (const later of posts.slice(1)) {
      expect(later.headers["mcp-session-id"]).toBe(SESSION);
      // The server chose an older revision than offered: that is the version from now on.
      expect(later.headers["mcp-protocol-version"]).toBe("2025-06-18");
    }
    expect(posts[1]!.body).toEqual({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(transport.sessionId()).toBe(SESSION);
    expect(transport.negotiatedVersion()).toBe("2025-06-18");
    client.close();
  });

  it("reads capabilities given as a function when initialize is sent", async () => {
    const { url, seen } = await serve(withLifecycle((s, response) => json(response, { jsonrpc: "2.0", id: s.body!.id, result: {} }), { getStream: 405 }));
    let declared: { [key: string]: unknown } = {};
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25", capabilities: () => declared });
    declared = { sampling: {} };
    await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" }, {}, { signal: signal() });
    expect((seen[0]!.body!.params as JsonObject).capabilities).toEqual({ sampling: {} });
  });

  it("declares in initialize what the client's handlers answer, with the transport's own capabilities added", async () => {
    const { url, seen } = await serve(withLifecycle((s, response) => json(response, { jsonrpc: "2.0", id: s.body!.id, result: {} }), { getStream: 405 }));
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25", capabilities: { roots: { listChanged: true }, elicitation: { url: {} } } });
    const client = createTasksClient({ ...transport, inputHandlers: { "elicitation/create": () => ({ action: "decline" }) }, taskReceiver: false });
    await client.request("ping");
    // One configuration: the handler is what makes the client declare elicitation (form mode), and the
    // transport's entries are added to it.
    expect((seen[0]!.body!.params as JsonObject).capabilities).toEqual({ ...client.capabilities(), roots: { listChanged: true }, elicitation: { form: {}, url: {} } });
    expect(client.capabilities()).toMatchObject({ elicitation: { form: {} } });
    client.close();
  });

  it("declares nothing the client cannot answer", async () => {
    const { url, seen } = await serve(withLifecycle((s, response) => json(response, { jsonrpc: "2.0", id: s.body!.id, result: {} }), { getStream: 405 }));
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25" });
    const client = createTasksClient({ ...transport });
    await client.request("ping");
    expect((seen[0]!.body!.params as JsonObject).capabilities).toEqual({});
    client.close();
  });

  it("a failed initialize rejects the request and is tried again by the next one", async () => {
    let refuse = true;
    const { url, seen } = await serve((s, response) => {
      if (s.body?.method === "initialize" && refuse) {
        refuse = false;
        return json(response, { jsonrpc: "2.0", id: s.body.id, error: { code: -32602, message: "Unsupported protocol version" } });
      }
      return withLifecycle((t, r) => json(r, { jsonrpc: "2.0", id: t.body!.id, result: {} }), { getStream: 405 })(s, response, undefined as never);
    });
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25" });
    const request = { jsonrpc: "2.0" as const, id: 1, method: "ping" };
    await expect(transport.send(request, {}, { signal: signal() })).rejects.toThrow("initialize: the server did not accept the session: Unsupported protocol version (-32602)");
    expect(seen.map((s) => s.body?.method)).toEqual(["initialize"]);
    await expect(transport.send(request, {}, { signal: signal() })).resolves.toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  });

  it("opens the standalone GET stream: its notifications reach the listeners, its requests are answered by POST", async () => {
    let stream: ServerResponse | undefined;
    const { url, seen } = await serve(
      withLifecycle((s, response) => {
        if (s.httpMethod === "GET") {
          stream = sse(response, { "mcp-session-id": SESSION });
          return void stream.write(": open\n\n");
        }
        if (s.body && "result" in s.body) return accepted(response);
        if (s.body && "error" in s.body) return accepted(response);
        json(response, { jsonrpc: "2.0", id: s.body!.id, result: {} });
      }),
    );
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25" });
    const notifications: unknown[] = [];
    transport.onNotification((n) => notifications.push(n));
    const asked: unknown[] = [];
    transport.onRequest(async (request) => {
      asked.push(request);
      if (request.method === "roots/list") throw Object.assign(new Error("no roots here"), { code: -32601 });
      if (request.method === "sampling/createMessage") throw new Error("a bug");
      return { action: "accept", content: { name: "Ada" } };
    });
    await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" }, {}, { signal: signal() });
    await until(() => stream !== undefined, "the GET stream");
    const get = seen.find((s) => s.httpMethod === "GET")!;
    expect(get.headers).toMatchObject({ accept: "text/event-stream", "mcp-session-id": SESSION, "mcp-protocol-version": "2025-06-18" });

    stream!.write(event({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } }));
    stream!.write(event({ jsonrpc: "2.0", id: "s1", method: "elicitation/create", params: { message: "Name?", requestedSchema: { type: "object", properties: {} } } }));
    stream!.write(event({ jsonrpc: "2.0", id: "s2", method: "roots/list" }));
    stream!.write(event({ jsonrpc: "2.0", id: "s3", method: "sampling/createMessage", params: {} }));
    await until(() => seen.filter((s) => s.body && "id" in s.body && String(s.body.id).startsWith("s")).length === 3, "three answers");

    expect(notifications).toEqual([{ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } }]);
    expect(asked).toEqual([
      { jsonrpc: "2.0", id: "s1", method: "elicitation/create", params: { message: "Name?", requestedSchema: { type: "object", properties: {} } } },
      { jsonrpc: "2.0", id: "s2", method: "roots/list" },
      { jsonrpc: "2.0", id: "s3", method: "sampling/createMessage", params: {} },
    ]);
    const answers = Object.fromEntries(seen.filter((s) => s.body && String(s.body.id).startsWith("s")).map((s) => [s.body!.id, s]));
    expect(answers.s1!.body).toEqual({ jsonrpc: "2.0", id: "s1", result: { action: "accept", content: { name: "Ada" } } });
    expect(answers.s2!.body).toEqual({ jsonrpc: "2.0", id: "s2", error: { code: -32601, message: "no roots here" } });
    // Anything else a handler throws is no business of the server's: -32603.
    expect(answers.s3!.body).toEqual({ jsonrpc: "2.0", id: "s3", error: { code: -32603, message: "Internal error" } });
    expect(answers.s1!.headers).toMatchObject({ "mcp-session-id": SESSION, "mcp-protocol-version": "2025-06-18" });
  });

  it("answers a request of the server that arrives on a response stream", async () => {
    const { url, seen } = await serve(
      withLifecycle((s, response) => {
        if (s.body && ("result" in s.body || "error" in s.body)) return accepted(response);
        sse(response).write(event({ jsonrpc: "2.0", id: 99, method: "elicitation/create", params: { message: "?" } }));
        // The call's response is held until the answer to the server's request is in.
        const answered = setInterval(() => {
          if (!seen.some((t) => t.body?.id === 99 && "result" in t.body)) return;
          clearInterval(answered);
          response.end(event({ jsonrpc: "2.0", id: s.body!.id, result: { content: [] } }));
        }, 5);
      }, { getStream: 405 }),
    );
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25" });
    transport.onRequest(async () => ({ action: "decline" }));
    const answer = await transport.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "x" } }, {}, { signal: signal() });
    expect(answer).toEqual({ jsonrpc: "2.0", id: 5, result: { content: [] } });
    expect(seen.find((s) => s.body?.id === 99)!.body).toEqual({ jsonrpc: "2.0", id: 99, result: { action: "decline" } });
  });

  it("answers -32601 to a request of the server when no handler is set (here one in a JSON batch)", async () => {
    const unhandled = { jsonrpc: "2.0", id: 100, method: "elicitation/create" };
    const { url, seen } = await serve(
      withLifecycle((s, response) => {
        if (s.body && "error" in s.body) return accepted(response);
        json(response, [unhandled, { jsonrpc: "2.0", id: s.body!.id, result: {} }]);
      }, { getStream: 405 }),
    );
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25" });
    const remove = transport.onRequest(async () => ({ action: "decline" }));
    remove();
    expect(await transport.send({ jsonrpc: "2.0", id: 7, method: "ping" }, {}, { signal: signal() })).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
    await until(() => seen.some((s) => s.body?.id === 100), "the -32601 answer");
    expect(seen.find((s) => s.body?.id === 100)!.body).toEqual({ jsonrpc: "2.0", id: 100, error: { code: -32601, message: "Method not found: elicitation/create" } });
  });

  it("begins a new session when the server answers 404 for the old one, and sends the request again", async () => {
    let sessions = 0;
    const { url, seen } = await serve((s, response) => {
      if (s.httpMethod !== "POST") return void response.writeHead(405).end();
      if (s.body?.method === "initialize") return json(response, initializeResult(s.body.id), { "mcp-session-id": `s${++sessions}` });
      if (s.body?.method === "notifications/initialized") return accepted(response);
      // The first session ends after one request.
      if (s.headers["mcp-session-id"] === "s1" && seen.filter((t) => t.body?.method === "ping").length > 1) return void response.writeHead(404).end();
      json(response, { jsonrpc: "2.0", id: s.body!.id, result: {} });
    });
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25" });
    await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" }, {}, { signal: signal() });
    expect(await transport.send({ jsonrpc: "2.0", id: 2, method: "ping" }, {}, { signal: signal() })).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    const posts = seen.filter((t) => t.httpMethod === "POST");
    expect(posts.map((t) => [t.body!.method, t.headers["mcp-session-id"]])).toEqual([
      ["initialize", undefined],
      ["notifications/initialized", "s1"],
      ["ping", "s1"],
      ["ping", "s1"],
      ["initialize", undefined],
      ["notifications/initialized", "s2"],
      ["ping", "s2"],
    ]);
    expect(transport.sessionId()).toBe("s2");
  });

  it("sends notifications with Mcp-Method, the session and the version", async () => {
    const { url, seen } = await serve(withLifecycle((_s, response) => accepted(response), { getStream: 405 }));
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25", sessionId: "joined" });
    await transport.notify("notifications/roots/list_changed");
    await transport.notify("notifications/cancelled", { requestId: 3 });
    expect(seen.map((s) => s.body)).toEqual([
      { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } },
    ]);
    // A joined session is not initialized again.
    expect(seen[0]!.headers).toMatchObject({ "mcp-method": "notifications/roots/list_changed", "mcp-session-id": "joined", "mcp-protocol-version": "2025-11-25" });
  });

  it("resumes a response stream that ends early: GET with Last-Event-ID after the server's retry delay", async () => {
    const RETRY_MS = 150;
    let closedAt = 0;
    let pendingId: unknown;
    const { url, seen } = await serve(
      withLifecycle((s, response) => {
        if (s.httpMethod === "GET" && s.headers["last-event-id"] === undefined) return void sse(response).write(": standalone\n\n");
        if (s.httpMethod === "GET") {
          sse(response).write(`id: e2\ndata: \n\n`);
          return void response.write(event({ jsonrpc: "2.0", id: pendingId, result: { content: [{ type: "text", text: "resumed" }] } }, "e3"));
        }
        pendingId = s.body!.id;
        sse(response).write(`id: e1\nretry: ${RETRY_MS}\ndata: \n\n`);
        setTimeout(() => {
          closedAt = performance.now();
          response.end();
        }, 20);
      }),
    );
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25" });
    const client = createTasksClient({ ...transport });
    // `request` sends the call alone (`callTool` would look the tool up in tools/list first).
    expect(await client.request("tools/call", { name: "slow" })).toEqual({ content: [{ type: "text", text: "resumed" }] });
    const resume = seen.find((s) => s.httpMethod === "GET" && s.headers["last-event-id"] !== undefined)!;
    expect(resume.headers).toMatchObject({ "last-event-id": "e1", "mcp-session-id": SESSION });
    expect(resume.at - closedAt).toBeGreaterThanOrEqual(RETRY_MS - 10);
    client.close();
  });

  it("gives up on a stream that ends early when the server gave no event id", async () => {
    const { url, seen } = await serve(
      withLifecycle((_s, response) => {
        sse(response).write(`retry: 10\ndata: \n\n`);
        response.end();
      }, { getStream: 405 }),
    );
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25" });
    await expect(transport.send({ jsonrpc: "2.0", id: 1, method: "ping" }, {}, { signal: signal() })).rejects.toThrow("ping: HTTP 200 without a JSON-RPC response to request 1");
    expect(seen.filter((s) => s.httpMethod === "GET")).toHaveLength(1); // the standalone stream's 405 only
  });

  it("close() stops the GET stream and ends the session with DELETE", async () => {
    let streamClosed = false;
    const { url, seen } = await serve(
      withLifecycle((s, response, request) => {
        if (s.httpMethod === "GET") {
          request.on("close", () => (streamClosed = true));
          return void sse(response).write(": open\n\n");
        }
        json(response, { jsonrpc: "2.0", id: s.body!.id, result: {} });
      }),
    );
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25" });
    await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" }, {}, { signal: signal() });
    await until(() => seen.some((s) => s.httpMethod === "GET"), "the GET stream");
    await transport.close();
    await until(() => streamClosed, "the GET stream to close");
    const deleted = seen.find((s) => s.httpMethod === "DELETE")!;
    expect(deleted.headers["mcp-session-id"]).toBe(SESSION);
  });
});

describe("http-client on the stateless revision", () => {
  it("sends no initialize, takes MCP-Protocol-Version from the request's _meta whatever its own option says, and no session id", async () => {
    // A session id sent anyway is not echoed: that revision has no sessions.
    const { url, seen } = await serve((s, response) => json(response, { jsonrpc: "2.0", id: s.body!.id, result: {} }, { "mcp-session-id": "stray" }));
    transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25" });
    const params = { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } };
    await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params }, { "Mcp-Method": "tools/list" }, { signal: signal() });
    await transport.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params }, { "Mcp-Method": "tools/list" }, { signal: signal() });
    expect(seen).toHaveLength(2);
    for (const request of seen) {
      expect(request.headers).toMatchObject({ "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" });
      expect(request.headers["mcp-session-id"]).toBeUndefined();
    }
  });

  it("does not resume a stateless response stream (that revision has no resumption)", async () => {
    const { url, seen } = await serve((_s, response) => {
      sse(response).write(`id: e1\nretry: 10\ndata: \n\n`);
      response.end();
    });
    transport = streamableHttpTransport({ url });
    const params = { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } };
    await expect(transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params }, {}, { signal: signal() })).rejects.toThrow("without a JSON-RPC response");
    expect(seen.map((s) => s.httpMethod)).toEqual(["POST"]);
  });
});

describe("readEventStream (the SSE reader the transport's streams share)", () => {
  const streamOf = (...chunks: string[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });

  it("reads fields across chunks and line endings; drops comments and an event the stream cut short", async () => {
    const events: unknown[] = [];
    await readEventStream(streamOf(": hi\r\nid: 1\r", "\nretry: 250\r\ndata: a\ndata:b\n\nevent: ping\rdata: {}\r\r", "data: cut"), (e) => void events.push(e));
    expect(events).toEqual([
      { event: "message", data: "a\nb", id: "1", retry: 250 },
      { event: "ping", data: "{}" },
    ]);
  });

  it("stops at the first event the callback returns a value for", async () => {
    const found = await readEventStream(streamOf("data: 1\n\ndata: 2\n\ndata: 3\n\n"), (e) => (e.data === "2" ? "two" : undefined));
    expect(found).toBe("two");
  });
});
