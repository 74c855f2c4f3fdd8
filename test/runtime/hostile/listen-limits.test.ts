import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { streamableHttpTransport } from "../../../generated/ext-tasks-draft/runtime/parts/http-client.js";
import { nodeHttpHandler, STATELESS_PROTOCOL_VERSION } from "../../../generated/ext-tasks-draft/runtime/parts/http-server.js";
import { createTasksClient } from "../../../generated/ext-tasks-draft/index.js";
import {
  createTasksServer,
  DEFAULT_MAX_LISTEN_DURATION,
  DEFAULT_MAX_LISTEN_STREAMS_PER_OWNER,
  LIMIT_ERROR_CODES,
  ListenLimitError,
  type TaskHandle,
  type TasksServer,
} from "../../../generated/ext-tasks-draft/server.js";

/**
 * A caller that opens listen streams without end, and streams that would stay open for ever: one
 * owner holds at most `maxListenStreamsPerOwner` streams on a server instance (one more is
 * answered -32013 naming the limit, HTTP 429), and every stream ends gracefully after
 * `maxListenDuration`, the generated client reopening it and reading its task again.
 */

const V = STATELESS_PROTOCOL_VERSION;
const META = {
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};
type Json = { [key: string]: any };
let nextId = 1;

const listenRequest = (id = nextId++) => ({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { _meta: META, notifications: {} } });

/** A sink that keeps what the subscription writes, and whether the server ended it. */
function recorder() {
  const messages: Json[] = [];
  let ended = false;
  return {
    messages,
    get ended() {
      return ended;
    },
    sink: { send: (message: Json) => void messages.push(message), end: () => void (ended = true) },
  };
}

const servers: TasksServer[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
  vi.useRealTimers();
});
const tasksServer = (options: Parameters<typeof createTasksServer>[0] = {}) => {
  const server = createTasksServer(options);
  servers.push(server);
  return server;
};

describe("open listen streams per owner (in process)", () => {
  it("an owner holds at most maxListenStreamsPerOwner streams: one more is refused with -32013 naming the limit; other owners, and the owner's open streams, work on", async () => {
    const tasks = tasksServer({ maxListenStreamsPerOwner: 2 });
    const gone = new AbortController();
    const first = recorder();
    expect((await tasks.listen(listenRequest(), { owner: "alice", signal: gone.signal }, first.sink)).kind).toBe("streaming");
    const second = recorder();
    const secondOutcome = await tasks.listen(listenRequest(), { owner: "alice" }, second.sink);
    expect(secondOutcome.kind).toBe("streaming");
    const refused = await tasks.listen(listenRequest(7), { owner: "alice" }, recorder().sink);
    expect(refused).toEqual({
      kind: "answered",
      response: {
        jsonrpc: "2.0",
        id: 7,
        error: {
          code: -32013,
          message: "Too many open subscriptions/listen streams: this owner holds its maximum of 2 on this server (maxListenStreamsPerOwner)",
          data: { limit: "maxListenStreamsPerOwner", max: 2 },
        },
      },
    });
    expect(LIMIT_ERROR_CODES.OwnerListenLimit).toBe(-32013);
    expect(new ListenLimitError(2).toJSON()).toEqual((refused as Json).response.error);
    // Bob is not touched by alice's streams.
    expect((await tasks.listen(listenRequest(), { owner: "bob" }, recorder().sink)).kind).toBe("streaming");
    // A stream the client closed gives its place back; so does one the server ended.
    gone.abort();
    expect((await tasks.listen(listenRequest(), { owner: "alice" }, recorder().sink)).kind).toBe("streaming");
    expect((await tasks.listen(listenRequest(), { owner: "alice" }, recorder().sink)).kind).toBe("answered");
    if (secondOutcome.kind === "streaming") secondOutcome.end();
    expect(second.ended).toBe(true);
    expect((await tasks.listen(listenRequest(), { owner: "alice" }, recorder().sink)).kind).toBe("streaming");
  });

  it(`the default is ${DEFAULT_MAX_LISTEN_STREAMS_PER_OWNER} streams per owner per server`, async () => {
    expect(DEFAULT_MAX_LISTEN_STREAMS_PER_OWNER).toBe(10);
    const tasks = tasksServer();
    const opened = await Promise.all(Array.from({ length: 10 }, () => tasks.listen(listenRequest(), { owner: "alice" }, recorder().sink)));
    expect(opened.every((outcome) => outcome.kind === "streaming")).toBe(true);
    const refused = await tasks.listen(listenRequest(), { owner: "alice" }, recorder().sink);
    expect(refused.kind === "answered" && "error" in refused.response && refused.response.error.code).toBe(-32013);
  });

  it("concurrent listen requests cannot slip past the cap together", async () => {
    const tasks = tasksServer({ maxListenStreamsPerOwner: 3 });
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => tasks.listen(listenRequest(), { owner: "alice" }, recorder().sink)));
    expect(outcomes.filter((outcome) => outcome.kind === "streaming")).toHaveLength(3);
  });
});

describe("how long a listen stream stays open", () => {
  it(`ends every stream gracefully after maxListenDuration (default ${DEFAULT_MAX_LISTEN_DURATION} ms): the result to the listen request, then the end`, async () => {
    expect(DEFAULT_MAX_LISTEN_DURATION).toBe(5 * 60 * 1000);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const tasks = tasksServer();
    const stream = recorder();
    await tasks.listen(listenRequest(42), { owner: "alice" }, stream.sink);
    vi.advanceTimersByTime(DEFAULT_MAX_LISTEN_DURATION - 1);
    expect(stream.ended).toBe(false);
    vi.advanceTimersByTime(1);
    expect(stream.ended).toBe(true);
    expect(stream.messages.at(-1)).toEqual({ jsonrpc: "2.0", id: 42, result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": 42 } } });
    // An ended stream gives its place back.
    const again = recorder();
    expect((await tasks.listen(listenRequest(), { owner: "alice" }, again.sink)).kind).toBe("streaming");
  });

  it("maxListenDuration: 0 keeps streams open until the client or the server closes them", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const tasks = tasksServer({ maxListenDuration: 0 });
    const stream = recorder();
    await tasks.listen(listenRequest(), { owner: "alice" }, stream.sink);
    vi.advanceTimersByTime(24 * 60 * 60 * 1000);
    expect(stream.ended).toBe(false);
  });
});

describe("listen limits over HTTP, with the generated client", () => {
  let http: Server | undefined;
  let received: string[] = [];
  let handles: TaskHandle[] = [];
  afterEach(async () => {
    http?.closeAllConnections();
    await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
    http = undefined;
  });

  async function serve(tasks: TasksServer): Promise<string> {
    received = [];
    handles = [];
    const handler = nodeHttpHandler({
      tasks,
      heartbeatMs: 0,
      methods: {
        "tools/call": async (_params, context) => {
          const task = await tasks.createTask(context);
          handles.push(task);
          return task.createResult;
        },
      },
    });
    http = createServer((req: IncomingMessage, res: ServerResponse) => {
      received.push(String(req.headers["mcp-method"]));
      handler(req, res);
    });
    await new Promise<void>((resolve) => http!.listen(0, "127.0.0.1", () => resolve()));
    return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  }
  const count = (method: string) => received.filter((m) => m === method).length;
  const until = async (test: () => boolean, what: string) => {
    for (let i = 0; i < 1500 && !test(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    if (!test()) throw new Error(`timed out waiting for ${what}`);
  };

  async function openRaw(url: string, authorization: string) {
    const controller = new AbortController();
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": V,
        "mcp-method": "subscriptions/listen",
        authorization,
      },
      body: JSON.stringify(listenRequest()),
      signal: controller.signal,
    });
    return { response, abort: () => controller.abort() };
  }

  it("one stream too many answers 429 with -32013 as JSON, while the owner's open streams and another owner's stay served", async () => {
    const tasks = tasksServer({ maxListenStreamsPerOwner: 2 });
    const url = await serve(tasks);
    const open = [await openRaw(url, "Bearer alice"), await openRaw(url, "Bearer alice")];
    for (const { response } of open) expect([response.status, response.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    const refused = await openRaw(url, "Bearer alice");
    expect(refused.response.status).toBe(429);
    expect(((await refused.response.json()) as Json).error).toMatchObject({ code: -32013, data: { limit: "maxListenStreamsPerOwner", max: 2 } });
    const bob = await openRaw(url, "Bearer bob");
    expect(bob.response.status).toBe(200);
    for (const stream of [...open, bob]) stream.abort();
  });

  it("the client reopens a stream the server ends at its time limit, reading the task again each time, and resolves from the stream", async () => {
    const tasks = tasksServer({ maxListenDuration: 300 });
    const url = await serve(tasks);
    // A one-minute poll interval: whatever the client learns comes from the streams and the reads after them.
    const client = createTasksClient({
      ...streamableHttpTransport({ url, protocolVersion: V }),
      meta: { "io.modelcontextprotocol/protocolVersion": V },
      minPollMs: 60_000,
      maxPollMs: 60_000,
    });
    try {
      const calling = client.callTool({ name: "work" });
      await until(() => count("subscriptions/listen") >= 3, "two streams ended by the server and reopened");
      const reads = count("tasks/get");
      await handles[0]!.complete({ content: [{ type: "text", text: "done" }] });
      expect(await calling).toEqual({ content: [{ type: "text", text: "done" }] });
      // Each acknowledged stream was followed by one read of the task, and no poll came between.
      expect(reads).toBeGreaterThanOrEqual(2);
      expect(reads).toBeLessThanOrEqual(count("subscriptions/listen"));
    } finally {
      client.close();
    }
  });
});
