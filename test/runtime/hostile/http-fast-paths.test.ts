import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpHttpCore, nodeHttpHandler, type HttpRequestParts, type McpHttpOptions } from "../../../generated/ext-tasks-draft/runtime/parts/http-server.js";
import { createTasksServer, type TasksServer } from "../../../generated/ext-tasks-draft/server.js";
import { httpText, raw, rpcBody, serve, until, validHeaders, V, META, type Served } from "./http-raw.js";

/**
 * The `http-server` part's shortcuts for the common request answer exactly as its general path:
 * a `Host`, `Accept` or `Content-Type` value taken without parsing, a body taken from the stream's
 * buffer when it has all arrived (no timer), an abort signal made only when read, a JSON answer
 * written with its own headers. Each case here has a near miss the shortcut must not take.
 */

const BODY_TIMEOUT_MS = 800;
let tasks: TasksServer;
let server: Served;

function options(extra: Partial<McpHttpOptions> = {}): McpHttpOptions {
  return {
    tasks,
    owner: () => "tester",
    bodyTimeoutMs: BODY_TIMEOUT_MS,
    methods: { ping: () => ({}), echo: (params) => ({ text: params.text }) },
    ...extra,
  };
}

const rpc = (body: string) => JSON.parse(body) as { id: unknown; error?: { code: number; message: string }; result?: { text?: string } };

beforeAll(async () => {
  tasks = createTasksServer();
  server = await serve(nodeHttpHandler(options()));
});

afterAll(async () => {
  tasks.close();
  await server.close();
});

/** One request through the core (no socket): the status. */
async function statusThroughCore(core: ReturnType<typeof createMcpHttpCore>, headers: Record<string, string>, loopback = true): Promise<number> {
  const body = rpcBody("ping");
  const request: HttpRequestParts = {
    method: "POST",
    path: "/mcp",
    headers: { host: "localhost", ...validHeaders("ping"), "content-length": String(body.length), ...headers },
    loopback,
    readBody: () => Promise.resolve(body),
  };
  return (await core(request)).status;
}

/** What the Host check answers, as URL parsing reads the value (the general path). */
function expectedHostStatus(host: string, allowed: readonly string[]): number {
  try {
    return host !== "" && allowed.includes(new URL(`http://${host}`).hostname) ? 200 : 403;
  } catch {
    return 403;
  }
}

describe("Host: an allowed name with a port is taken without parsing; everything else as URL reads it", () => {
  const NAMES = ["localhost", "LOCALHOST", "127.0.0.1", "127.1", "[::1]", "[0:0::1]", "::1", "localhost.", "mcp.example", "Mcp.Example", "evil.example", "", "a b"];
  const PORTS = ["", ":", ":0", ":80", ":3000", ":65535", ":65536", ":99999", ":00080", ":123456", ":0x10", ":-1", ":80:80", ":80/x", "/x", " "];

  it("a table of names and ports, on the default allow-list and a given one", async () => {
    for (const allowed of [undefined, ["mcp.example", "Example.COM", "[::1]"]] as const) {
      const core = createMcpHttpCore(options(allowed ? { allowedHosts: allowed } : {}));
      for (const name of NAMES) {
        for (const port of PORTS) {
          const host = `${name}${port}`;
          const expected = expectedHostStatus(host, allowed ?? ["localhost", "127.0.0.1", "[::1]"]);
          expect([host, await statusThroughCore(core, { host })]).toEqual([host, expected]);
        }
      }
    }
  });

  it("any Host value (fast-check): the same answer as URL parsing gives", async () => {
    const core = createMcpHttpCore(options());
    const hosts = fc.oneof(
      fc.string(),
      fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom(":", ""), fc.stringMatching(/^[0-9]{0,7}$/)).map(([name, colon, port]) => `${name}${colon}${port}`),
    );
    await fc.assert(
      fc.asyncProperty(hosts, async (host) => {
        expect(await statusThroughCore(core, { host })).toBe(expectedHostStatus(host, ["localhost", "127.0.0.1", "[::1]"]));
      }),
      { numRuns: 300 },
    );
  });

  it("a connection that did not arrive on loopback is not checked by default", async () => {
    const core = createMcpHttpCore(options());
    expect(await statusThroughCore(core, { host: "evil.example" }, false)).toBe(200);
    expect(await statusThroughCore(core, { host: "evil.example" }, true)).toBe(403);
  });
});

describe("Accept and Content-Type: the exact common values are taken without parsing; their near misses are not", () => {
  const core = () => createMcpHttpCore(options());

  it.each([
    ["application/json, text/event-stream", 200],
    ["text/event-stream, application/json", 200],
    ["application/json,text/event-stream", 200],
    ["application/json", 200],
    ["text/event-stream", 200],
    ["*/*", 200],
    ["APPLICATION/JSON", 200],
    ["application/json, text/event-stream;q=0", 200],
    ["application/json;q=0, text/event-stream;q=0", 406],
    ["application/json;q=0", 406],
    ["text/event-stream;q=0", 406],
    ["*/*;q=0", 406],
    ["application/jsonx", 406],
    ["application/json-seq, text/event-streams", 406],
    ["text/html", 406],
  ])("Accept: %s is %i", async (accept, status) => {
    expect(await statusThroughCore(core(), { accept: accept as string })).toBe(status);
  });

  it.each([
    ["application/json", 200],
    ["application/json; charset=utf-8", 200],
    ["application/json;charset=UTF-8", 200],
    ["application/json; charset=utf-8; x=y", 200],
    ["Application/Json", 200],
    ["application/jsonp", 415],
    ["application/json-seq", 415],
    ["application/json5; charset=utf-8", 415],
    ["text/json", 415],
    ["application/json, text/plain", 415],
  ])("Content-Type: %s is %i", async (contentType, status) => {
    expect(await statusThroughCore(core(), { "content-type": contentType as string })).toBe(status);
  });
});

describe("the body: taken whole when it has all arrived, waited for (and timed) otherwise", () => {
  const echo = (text: string, id = 1) => JSON.stringify({ jsonrpc: "2.0", id, method: "echo", params: { text, _meta: META } });
  const slowOwner = () => new Promise<string>((resolve) => setTimeout(() => resolve("tester"), 100));

  it("headers and body in one packet, read after a slow owner function: the body whole, multi-byte characters included; the answer's Content-Length counts bytes", async () => {
    const patient = await serve(nodeHttpHandler(options({ owner: slowOwner })));
    try {
      const text = "é€😀 ".repeat(50);
      const answer = await raw(patient.port, [httpText(validHeaders("echo"), echo(text))]);
      expect([answer.status, rpc(answer.body).result?.text]).toEqual([200, text]);
      expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.body));
    } finally {
      await patient.close();
    }
  });

  it("part of a declared body, read after a slow owner function: still waited for, 408 at the configured time", async () => {
    const patient = await serve(nodeHttpHandler(options({ owner: slowOwner })));
    try {
      const body = echo("hello");
      const answer = await raw(patient.port, [httpText({ ...validHeaders("echo"), "content-length": String(body.length) }, body.slice(0, body.length - 1))]);
      expect([answer.status, rpc(answer.body).error?.code, answer.closed]).toEqual([408, -32000, true]);
      expect(answer.ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
    } finally {
      await patient.close();
    }
  });

  it("a chunked body: answered when complete, 413 over the limit, 408 at the configured time when it stalls", async () => {
    const limited = await serve(nodeHttpHandler(options({ maxBodyBytes: 400 })));
    try {
      const chunked = (body: string, end = true) => `${body.length.toString(16)}\r\n${body}\r\n${end ? "0\r\n\r\n" : ""}`;
      const head = httpText({ ...validHeaders("echo"), "content-length": undefined, "transfer-encoding": "chunked" });
      const whole = await raw(limited.port, [head + chunked(echo("chunks"))]);
      expect([whole.status, rpc(whole.body).result?.text]).toEqual([200, "chunks"]);
      const large = await raw(limited.port, [head + chunked(echo("x".repeat(500)))]);
      expect([large.status, large.closed]).toEqual([413, true]);
      const stalled = await raw(limited.port, [head + chunked(echo("stalled"), false)]);
      expect([stalled.status, stalled.closed]).toEqual([408, true]);
      expect(stalled.ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
    } finally {
      await limited.close();
    }
  });

  it("two requests pipelined in one packet on a keep-alive connection: both answered, in order", async () => {
    const socket = connect(server.port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => (received += chunk.toString("utf8")));
    const closed = new Promise((resolve) => socket.on("close", resolve));
    socket.write(httpText(validHeaders("echo"), echo("first", 1)) + httpText({ ...validHeaders("echo"), connection: "close" }, echo("second", 2)));
    await closed;
    const answers = received.split("HTTP/1.1 ").slice(1);
    expect(answers.map((answer) => [answer.slice(0, 3), rpc(answer.slice(answer.indexOf("\r\n\r\n") + 4)).result?.text])).toEqual([
      ["200", "first"],
      ["200", "second"],
    ]);
  });
});

describe("the abort signal, made when a method first reads it", () => {
  it("a client gone before the method reads the signal: it is aborted when read", async () => {
    let gone: () => void = () => {};
    const clientGone = new Promise<void>((resolve) => (gone = resolve));
    let seen: (aborted: boolean) => void = () => {};
    const sawSignal = new Promise<boolean>((resolve) => (seen = resolve));
    const late = await serve(
      nodeHttpHandler(
        options({
          methods: {
            "tools/call": async (_params, context) => {
              await clientGone;
              seen(context.signal!.aborted);
              return {};
            },
          },
        }),
      ),
    );
    try {
      const socket = connect(late.port, "127.0.0.1");
      socket.on("error", () => {});
      socket.write(httpText(validHeaders("tools/call", "slow"), JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", _meta: META } })));
      await new Promise((r) => setTimeout(r, 100));
      socket.destroy();
      await until(() => late.connections(), 0);
      gone();
      expect(await sawSignal).toBe(true);
    } finally {
      await late.close();
    }
  });

  it("a client that stays: the signal read during the method is not aborted, and the answer arrives", async () => {
    let seen = true;
    const staying = await serve(
      nodeHttpHandler(
        options({
          methods: {
            "tools/call": (_params, context) => {
              seen = context.signal!.aborted;
              return {};
            },
          },
        }),
      ),
    );
    try {
      const answer = await raw(staying.port, [httpText(validHeaders("tools/call", "quick"), JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "quick", _meta: META } }))]);
      expect([answer.status, seen]).toEqual([200, false]);
    } finally {
      await staying.close();
    }
  });
});

describe("tasks/get: the answer's bytes", () => {
  it("resultType first, then the task's fields in the wire's order (no field added or moved)", async () => {
    const created = (await tasks.createTask({ owner: "tester" }, { ttl: 60_000 })) as { taskId: string };
    const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tasks/get", params: { taskId: created.taskId, _meta: META } });
    const answer = await raw(server.port, [httpText(validHeaders("tasks/get", created.taskId), body)]);
    const result = (JSON.parse(answer.body) as { result: Record<string, unknown> }).result;
    expect(answer.status).toBe(200);
    expect(Object.keys(result)).toEqual(["resultType", "taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"]);
    expect(answer.body).toBe(JSON.stringify({ jsonrpc: "2.0", id: 7, result }));
    expect(V).toBe("2026-07-28");
  });
});
