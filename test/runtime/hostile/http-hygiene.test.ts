import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BODY_TIMEOUT_MS, fetchHttpHandler, nodeHttpHandler, type McpHttpOptions } from "../../../generated/ext-tasks-draft/runtime/parts/http-server.js";
import { createTasksServer, type TasksServer } from "../../../generated/ext-tasks-draft/server.js";
import { httpText, openDescriptors, ping, raw, rpcBody, serve, until, validHeaders, type Served } from "./http-raw.js";

/**
 * The `http-server` part against what a hostile peer sends, raw over loopback: a body that never
 * ends, media types it does not speak, a Host a DNS rebinding attack sends, method names from
 * `Object.prototype`. Each is refused with a status and a JSON-RPC error without an id, its
 * connection closed; a well-behaved ping meanwhile is answered, and connections are released.
 */

const BODY_TIMEOUT_MS = 1500;
const errors: unknown[] = [];
let tasks: TasksServer;
let server: Served;

function options(extra: Partial<McpHttpOptions> = {}): McpHttpOptions {
  return {
    tasks,
    owner: () => "tester",
    bodyTimeoutMs: BODY_TIMEOUT_MS,
    onError: (error) => errors.push(error),
    methods: { ping: () => ({}) },
    ...extra,
  };
}

/** The answer's JSON-RPC body. */
const rpc = (body: string) => JSON.parse(body) as { jsonrpc: string; id: unknown; error?: { code: number; message: string }; result?: unknown };

beforeAll(async () => {
  tasks = createTasksServer();
  server = await serve(nodeHttpHandler(options()));
});

afterAll(async () => {
  tasks.close();
  await server.close();
});

describe("a request body that does not arrive (slow body)", () => {
  it("headers and part of the body, then silence: 408 with a JSON-RPC error and the connection closed; a ping meanwhile is answered first", async () => {
    const body = rpcBody("ping");
    const head = httpText({ ...validHeaders("ping"), host: `127.0.0.1:${server.port}`, "content-length": String(body.length) }, body.slice(0, 20));
    const slow = raw(server.port, [head]);
    await new Promise((r) => setTimeout(r, 100));
    const pinged = await ping(server.port);
    const answer = await slow;
    expect(pinged.status).toBe(200);
    expect(pinged.ms).toBeLessThan(answer.ms);
    expect(answer.status).toBe(408);
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(rpc(answer.body)).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32000, message: `Request Timeout: the body did not arrive within ${BODY_TIMEOUT_MS} ms` } });
    expect(answer.closed).toBe(true);
    expect(answer.ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
    await until(() => server.connections(), 0);
  });

  it("a body trickled a few bytes at a time is timed out by its total time, not by silence", async () => {
    const body = rpcBody("ping");
    const head = httpText({ ...validHeaders("ping"), "content-length": String(body.length) }, "");
    const trickle = [head, ...body.match(/.{1,4}/gs)!];
    const answer = await raw(server.port, trickle, { pauseMs: 100 });
    expect([answer.status, rpc(answer.body).error?.code, answer.closed]).toEqual([408, -32000, true]);
    expect(answer.ms).toBeLessThan(BODY_TIMEOUT_MS + 1000);
  });

  it("fifty slow bodies at once: all 408, pings answered meanwhile, every connection and descriptor released", async () => {
    const before = openDescriptors();
    const head = httpText({ ...validHeaders("ping"), "content-length": "1000" }, '{"jsonrpc":');
    const slow = Array.from({ length: 50 }, () => raw(server.port, [head]));
    await new Promise((r) => setTimeout(r, 200));
    const pings = await Promise.all([ping(server.port), ping(server.port), ping(server.port)]);
    const answers = await Promise.all(slow);
    expect(pings.map((p) => p.status)).toEqual([200, 200, 200]);
    expect(Math.max(...pings.map((p) => p.done))).toBeLessThan(Math.min(...answers.map((a) => a.at)));
    expect(new Set(answers.map((a) => `${a.status} ${a.closed}`))).toEqual(new Set(["408 true"]));
    await until(() => server.connections(), 0);
    if (before !== undefined) await until(() => openDescriptors()! <= before + 2, true);
  });

  it("a complete body within the time is answered as always; the default limit is 10 s", async () => {
    const body = rpcBody("ping");
    const answer = await raw(server.port, [httpText(validHeaders("ping"), "").replace("content-length: 0", `content-length: ${body.length}`), body.slice(0, 10), body.slice(10)], { pauseMs: 50 });
    expect([answer.status, rpc(answer.body).result]).toEqual([200, { resultType: "complete" }]);
    expect(DEFAULT_BODY_TIMEOUT_MS).toBe(10_000);
  });

  it("without a time limit, a client that goes away mid-body (also before the read starts) ends the read: reported, nothing waits", async () => {
    const reported: unknown[] = [];
    const owners: Array<() => void> = [];
    const patient = await serve(
      nodeHttpHandler(
        options({
          bodyTimeoutMs: 0,
          onError: (error) => reported.push(error),
          // The second request's owner answers only once its client has gone.
          owner: () => (owners.length === 0 ? (owners.push(() => {}), "tester") : new Promise((resolve) => owners.push(() => resolve("tester")))),
        }),
      ),
    );
    try {
      const head = httpText({ ...validHeaders("ping"), "content-length": "1000" }, '{"jsonrpc":');
      for (let i = 0; i < 2; i++) {
        const socket = connect(patient.port, "127.0.0.1");
        socket.on("error", () => {});
        socket.write(head);
        await until(() => owners.length, i + 1);
        await new Promise((r) => setTimeout(r, 100));
        socket.destroy();
        await until(() => patient.connections(), 0);
        owners[i]!();
        await until(() => reported.length, i + 1);
      }
      expect(reported.map((error) => (error as Error).message)).toEqual([
        expect.stringMatching(/aborted|closed the connection/),
        "the client closed the connection before the body ended",
      ]);
    } finally {
      await patient.close();
    }
  });

  it("the Fetch shape: a body stream that never ends is 408 and the stream is cancelled", async () => {
    let cancelled = false;
    const never = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode('{"jsonrpc":')),
      cancel: () => void (cancelled = true),
    });
    const handler = fetchHttpHandler(options({ bodyTimeoutMs: 200 }));
    const response = await handler(new Request("http://localhost/mcp", { method: "POST", headers: validHeaders("ping"), body: never, duplex: "half" } as RequestInit));
    expect([response.status, response.headers.get("connection"), ((await response.json()) as { error: { code: number } }).error.code]).toEqual([408, "close", -32000]);
    await until(() => cancelled, true);
  });
});

describe("media types the endpoint does not speak (as the MCP SDK's Streamable HTTP server)", () => {
  const send = (headers: Record<string, string | undefined>) =>
    raw(server.port, [httpText({ ...validHeaders("ping"), ...headers }, rpcBody("ping"))]);

  it("Content-Type: 415 unless the media type is application/json (parameters and case aside)", async () => {
    const statusOf = async (contentType: string | undefined) => (await send({ "content-type": contentType })).status;
    expect(await statusOf("text/plain")).toBe(415);
    expect(await statusOf(undefined)).toBe(415);
    expect(await statusOf("text/plain; a=application/json")).toBe(415);
    expect(await statusOf("application/jsonx")).toBe(415);
    expect(await statusOf("application/json, text/plain")).toBe(415);
    expect(await statusOf("application/json; charset=utf-8")).toBe(200);
    expect(await statusOf("Application/JSON")).toBe(200);
    const answer = await send({ "content-type": "text/plain" });
    expect(rpc(answer.body)).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "Unsupported Media Type: Content-Type must be application/json" } });
    expect(answer.closed).toBe(true);
  });

  it("Accept: 406 when it admits neither JSON nor an event stream; an absent Accept admits both", async () => {
    const statusOf = async (accept: string | undefined) => (await send({ accept })).status;
    expect(await statusOf("text/html")).toBe(406);
    expect(await statusOf("application/json;q=0, text/html")).toBe(406);
    expect(await statusOf("application/xml, image/*")).toBe(406);
    expect(await statusOf("application/json")).toBe(200);
    expect(await statusOf("text/event-stream")).toBe(200);
    expect(await statusOf("text/*")).toBe(200);
    expect(await statusOf("*/*")).toBe(200);
    expect(await statusOf("application/*; q=0.5")).toBe(200);
    expect(await statusOf(undefined)).toBe(200);
    const answer = await send({ accept: "text/html" });
    expect(rpc(answer.body)).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "Not Acceptable: Client must accept application/json or text/event-stream" } });
    expect(answer.closed).toBe(true);
  });

  it("the SDK's own transport answers a text/plain body with the same status, code and message", async () => {
    const { WebStandardStreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js");
    const sdk = new WebStandardStreamableHTTPServerTransport({});
    const theirs = await sdk.handleRequest(new Request("http://localhost/mcp", { method: "POST", headers: { ...validHeaders("ping"), "content-type": "text/plain" }, body: rpcBody("ping") }));
    const ours = await fetchHttpHandler(options())(new Request("http://localhost/mcp", { method: "POST", headers: { ...validHeaders("ping"), "content-type": "text/plain" }, body: rpcBody("ping") }));
    expect([ours.status, await ours.json()]).toEqual([theirs.status, await theirs.json()]);
  });

  it("a flood of 200 refused requests: each refused and closed, pings among them answered, nothing left open", async () => {
    const before = openDescriptors();
    const flood = Array.from({ length: 200 }, (_, i) => send(i % 2 ? { "content-type": "text/plain" } : { accept: "text/html" }));
    const pings = await Promise.all([ping(server.port), ping(server.port)]);
    const answers = await Promise.all(flood);
    expect(pings.map((p) => p.status)).toEqual([200, 200]);
    expect(new Set(answers.map((a) => `${a.status} ${a.closed}`))).toEqual(new Set(["415 true", "406 true"]));
    await until(() => server.connections(), 0);
    if (before !== undefined) await until(() => openDescriptors()! <= before + 2, true);
  });
});

describe("Host on a loopback server (DNS rebinding without Origin)", () => {
  const send = (port: number, host: string | undefined, version = "1.1", closeWithinMs = 1000) =>
    raw(port, [httpText({ ...validHeaders("ping"), host }, rpcBody("ping"), { version })], { closeWithinMs });

  it("a foreign Host is 403 by default; the loopback names on any port pass", async () => {
    const answer = await send(server.port, "evil.example");
    expect([answer.status, rpc(answer.body), answer.closed]).toEqual([403, { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Invalid Host: evil.example" } }, true]);
    expect((await send(server.port, `evil.example:${server.port}`)).status).toBe(403);
    expect((await send(server.port, "127.0.0.1.evil.example")).status).toBe(403);
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, "[::1]:8080", "LOCALHOST"]) {
      expect([host, (await send(server.port, host, "1.1", 0)).status]).toEqual([host, 200]);
    }
    expect((await ping(server.port)).status).toBe(200);
  });

  it("no Host (HTTP/1.0) and a Host that is no host name are 403 too", async () => {
    const missing = await send(server.port, undefined, "1.0");
    expect([missing.status, rpc(missing.body).error?.message]).toEqual([403, "Missing Host header"]);
    const invalid = await send(server.port, "a b");
    expect([invalid.status, rpc(invalid.body).error?.message]).toEqual([403, "Invalid Host header: a b"]);
  });

  it("allowedHosts names the hosts (any port); false turns the check off", async () => {
    const named = await serve(nodeHttpHandler(options({ allowedHosts: ["mcp.example"] })));
    const open = await serve(nodeHttpHandler(options({ allowedHosts: false })));
    try {
      expect((await send(named.port, "mcp.example:443")).status).toBe(200);
      expect((await send(named.port, `localhost:${named.port}`)).status).toBe(403);
      expect((await send(open.port, "evil.example")).status).toBe(200);
    } finally {
      await named.close();
      await open.close();
    }
  });

  it("the Fetch shape cannot see the address: unchecked by default, checked when allowedHosts is given", async () => {
    const request = () => new Request("http://evil.example/mcp", { method: "POST", headers: { ...validHeaders("ping"), host: "evil.example" }, body: rpcBody("ping") });
    expect((await fetchHttpHandler(options())(request())).status).toBe(200);
    const checked = await fetchHttpHandler(options({ allowedHosts: ["localhost"] }))(request());
    expect([checked.status, ((await checked.json()) as { error: { message: string } }).error.message]).toEqual([403, "Invalid Host: evil.example"]);
  });
});

describe("method names that are Object.prototype's members", () => {
  const NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "tasks/__proto__"];

  it.each(NAMES)("%s is -32601 Method not found (404), with its routing headers as sent", async (method) => {
    const answer = await raw(server.port, [httpText(validHeaders(method, "x"), rpcBody(method, { name: "x" }))]);
    expect([answer.status, rpc(answer.body)]).toEqual([404, { jsonrpc: "2.0", id: 1, error: { code: -32601, message: `Method not found: ${method}` } }]);
  });

  it("as notifications they are accepted (202) and nothing breaks; a ping after all of them is answered", async () => {
    for (const method of NAMES) {
      const answer = await raw(server.port, [httpText(validHeaders(method), rpcBody(method, {}, null))]);
      expect([method, answer.status]).toEqual([method, 202]);
    }
    expect((await ping(server.port)).status).toBe(200);
    expect(errors).toEqual([]);
  });
});
