import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { startExampleServer } from "../../../examples/ext-tasks-server/server.js";
import { streamableHttpTransport } from "../../../generated/ext-tasks-draft/runtime/parts/http-client.js";
import { createMcpHttpCore, fetchHttpHandler, nodeHttpHandler, STATELESS_PROTOCOL_VERSION, type McpHttpOptions } from "../../../generated/ext-tasks-draft/runtime/parts/http-server.js";
import { listenMessage } from "../../../generated/ext-tasks-draft/runtime/client/listen.js";
import { validateSubscriptionsAcknowledgedNotificationParams } from "../../../generated/ext-tasks-draft/validators.js";
import { createTasksClient } from "../../../generated/ext-tasks-draft/index.js";
import { createTasksServer, type TaskHandle, type TasksServer } from "../../../generated/ext-tasks-draft/server.js";

/**
 * Task status notifications over `subscriptions/listen` (README, "Runtime parts"; SEP-2663 § Task
 * Status Notifications and the 2026-07-28 subscriptions text), end to end over real HTTP: the
 * `http-server` part's SSE answer read raw with `fetch` (both handler shapes), then the generated
 * client with the `http-client` part following tasks on the stream, its fallback to polling when
 * the stream drops, and the example server serving it. The official suite reports its
 * `tasks-status-notifications` scenario SKIPPED ("pending subscriptions/listen rewrite"), so these
 * are the checks that hold the feature.
 */

const V = STATELESS_PROTOCOL_VERSION;
const TASKS = { "io.modelcontextprotocol/tasks": {} };
const meta = (capabilities: object = { extensions: TASKS }) => ({
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": capabilities,
});
const SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

type Json = { [key: string]: any };

/** Serves a Fetch handler on `node:http`, streaming its body (an SSE answer stays open) and cancelling it when the client goes away. */
function servedByFetch(handler: (request: Request) => Promise<Response>) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const gone = new AbortController();
    res.once("close", () => gone.abort());
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method!,
      headers,
      signal: gone.signal,
      ...(req.method === "POST" ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
    } as RequestInit);
    const response = await handler(request);
    const answerHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      answerHeaders[name] = value;
    });
    res.writeHead(response.status, answerHeaders);
    if (!response.body) return void res.end();
    const body = Readable.fromWeb(response.body as never);
    res.once("close", () => body.destroy());
    body.pipe(res);
  };
}

interface Started {
  readonly url: string;
  readonly http: Server;
  close(): Promise<void>;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Started> {
  const http = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    http,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

const SHAPES = {
  "Node (req, res)": (o: McpHttpOptions) => serve(nodeHttpHandler(o)),
  "Fetch (Request) => Response": (o: McpHttpOptions) => serve(servedByFetch(fetchHttpHandler(o))),
} as const;

/** A listen stream read raw: its HTTP answer, then each SSE event as it arrives. */
interface RawStream {
  readonly status: number;
  readonly type: string | null;
  /** The JSON body of an answer that is not a stream. */
  readonly json?: Json;
  /** Every event so far: its `id:` and its message. */
  readonly events: { readonly id: string | undefined; readonly message: Json }[];
  /** Resolves once `count` events have arrived (rejects after 10 s). */
  until(count: number): Promise<void>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  abort(): void;
}

let nextId = 100;

async function openRaw(url: string, taskIds: readonly string[] | undefined, options: { authorization?: string; capabilities?: object; id?: number } = {}): Promise<RawStream> {
  const controller = new AbortController();
  const id = options.id ?? nextId++;
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V,
      "mcp-method": "subscriptions/listen",
      ...(options.authorization ? { authorization: options.authorization } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { _meta: meta(options.capabilities), notifications: taskIds === undefined ? {} : { taskIds } },
    }),
    signal: controller.signal,
  });
  const type = response.headers.get("content-type");
  if (!type?.includes("text/event-stream")) {
    return { status: response.status, type, json: await response.json(), events: [], until: async () => {}, ended: Promise.resolve(), abort: () => {} };
  }
  const events: { id: string | undefined; message: Json }[] = [];
  const waiters: (() => void)[] = [];
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        const blocks = buffer.split("\n\n");
        buffer = blocks.pop()!;
        for (const block of blocks) {
          const lines = block.split("\n");
          const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6));
          if (data.length === 0) continue;
          events.push({ id: lines.find((l) => l.startsWith("id: "))?.slice(4), message: JSON.parse(data.join("\n")) });
          waiters.splice(0).forEach((wake) => wake());
        }
      }
    } catch {
      // Aborted by the test.
    }
  })();
  return {
    status: response.status,
    type,
    events,
    ended,
    abort: () => controller.abort(),
    until: (count) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${events.length} of ${count} events: ${JSON.stringify(events)}`)), 10_000);
        const check = () => {
          if (events.length >= count) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(check);
        };
        check();
      }),
  };
}

const text = (value: string) => ({ content: [{ type: "text", text: value }] });
const settle = (ms = 50) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(Object.keys(SHAPES) as (keyof typeof SHAPES)[])("subscriptions/listen over the http-server part, %s shape", (shape) => {
  let tasks: TasksServer;
  let server: Started;
  const errors: unknown[] = [];

  async function start(extra: Partial<McpHttpOptions> = {}) {
    tasks = createTasksServer({ onError: (error) => errors.push(error) });
    server = await SHAPES[shape]({ tasks, onError: (error) => errors.push(error), ...extra });
  }
  afterEach(async () => {
    tasks.close();
    await server.close();
    expect(errors).toEqual([]);
    errors.length = 0;
  });

  it("acknowledges first with the caller's own task ids, then sends each change of them with the subscription id, and nothing else", async () => {
    await start();
    const mine = await tasks.createTask({ owner: "anonymous" });
    const theirs = await tasks.createTask({ owner: "someone-else" });
    const stream = await openRaw(server.url, [mine.taskId, theirs.taskId, "no-such-task"], { id: 7 });
    expect(stream.status).toBe(200);
    expect(stream.type).toContain("text/event-stream");
    await stream.until(1);
    expect(stream.events[0]!.message).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: { [SUBSCRIPTION]: 7 }, notifications: { taskIds: [mine.taskId] } },
    });
    await theirs.update("not yours to see");
    await mine.update("step 1");
    await theirs.complete(text("theirs"));
    await mine.complete(text("mine"));
    await stream.until(3);
    await settle();
    const [, first, last, ...rest] = stream.events.map((e) => e.message);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ method: "notifications/tasks", params: { _meta: { [SUBSCRIPTION]: 7 }, taskId: mine.taskId, status: "working", statusMessage: "step 1" } });
    // The complete detailed task, as tasks/get shows it, result inlined.
    expect(last).toMatchObject({ method: "notifications/tasks", params: { _meta: { [SUBSCRIPTION]: 7 }, taskId: mine.taskId, status: "completed", result: text("mine") } });
    // Event ids number the stream's events.
    expect(stream.events.map((e) => e.id)).toEqual(["1", "2", "3"]);
    stream.abort();
  });

  it("keeps owners apart: another caller's stream never carries this caller's tasks", async () => {
    await start();
    const alice = await tasks.createTask({ owner: "anonymous" });
    // The default owner of a request with credentials is a hash of them: Bob cannot name Alice's task.
    const bob = await openRaw(server.url, [alice.taskId], { authorization: "Bearer bob" });
    await bob.until(1);
    expect(bob.events[0]!.message.params.notifications).toEqual({ taskIds: [] });
    await alice.complete(text("alice"));
    await settle();
    expect(bob.events).toHaveLength(1);
    bob.abort();
  });

  it("answers -32021 naming the extension when task notifications are asked without it", async () => {
    await start();
    const task = await tasks.createTask({ owner: "anonymous" });
    const stream = await openRaw(server.url, [task.taskId], { capabilities: {} });
    expect(stream.status).toBe(400);
    expect(stream.json).toMatchObject({ error: { code: -32021, data: { requiredCapabilities: { extensions: TASKS } } } });
    // Without taskIds nothing of the extension is asked: acknowledged with nothing agreed.
    const plain = await openRaw(server.url, undefined, { capabilities: {} });
    await plain.until(1);
    expect(plain.events[0]!.message.params.notifications).toEqual({});
    plain.abort();
  });

  it("answers a malformed filter with -32602", async () => {
    await start();
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", "mcp-protocol-version": V, "mcp-method": "subscriptions/listen" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: { _meta: meta(), notifications: { taskIds: [1] } } }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: 1, error: { code: -32602 } });
  });

  it("ends gracefully at shutdown: the result to the listen request carries the subscription id, then the stream ends", async () => {
    await start();
    const task = await tasks.createTask({ owner: "anonymous" });
    const stream = await openRaw(server.url, [task.taskId], { id: "sub-1" as unknown as number });
    await stream.until(1);
    tasks.close();
    await stream.ended;
    expect(stream.events.at(-1)!.message).toEqual({ jsonrpc: "2.0", id: "sub-1", result: { resultType: "complete", _meta: { [SUBSCRIPTION]: "sub-1" } } });
  });

  it("ends gracefully at the stream's time limit, and sends heartbeats (SSE comments) meanwhile", async () => {
    await start({ maxListenMs: 400, heartbeatMs: 50 });
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", "mcp-protocol-version": V, "mcp-method": "subscriptions/listen" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "subscriptions/listen", params: { _meta: meta(), notifications: { taskIds: [] } } }),
    });
    const body = await response.text();
    expect(body.match(/^: keep-alive$/gm)?.length ?? 0).toBeGreaterThanOrEqual(1);
    expect(body.trim().split("\n").at(-1)).toBe(`data: ${JSON.stringify({ jsonrpc: "2.0", id: 3, result: { resultType: "complete", _meta: { [SUBSCRIPTION]: 3 } } })}`);
  });
});

describe("subscriptions/listen in the Tasks server (the stream's sink, in process)", () => {
  it("stops writing once the client goes away (not even a final result)", async () => {
    const tasks = createTasksServer();
    const task = await tasks.createTask({ owner: "o" });
    const written: Json[] = [];
    let ends = 0;
    const gone = new AbortController();
    const outcome = await tasks.listen(
      { jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: { _meta: meta(), notifications: { taskIds: [task.taskId] } } },
      { owner: "o", signal: gone.signal },
      { send: (message) => void written.push(message), end: () => void ends++ },
    );
    expect(outcome.kind).toBe("streaming");
    await task.update("seen");
    gone.abort();
    await task.update("not seen");
    tasks.close();
    expect(written.map((m) => m.method ?? "result")).toEqual(["notifications/subscriptions/acknowledged", "notifications/tasks"]);
    expect(ends).toBe(0);
  });

  it("rejects listen params its generated validator rejects with -32602, each error with its schema path, and opens no stream", async () => {
    const tasks = createTasksServer();
    const task = await tasks.createTask({ owner: "o" });
    const cases: [Json, RegExp][] = [
      // A filter kind the schema types as a boolean.
      [{ _meta: meta(), notifications: { taskIds: [task.taskId], toolsListChanged: "yes" } }, /#\/\$defs\/SubscriptionFilter\/properties\/toolsListChanged\/type$/],
      // The per-request protocol version the request's _meta requires.
      [{ _meta: { "io.modelcontextprotocol/clientCapabilities": { extensions: TASKS } }, notifications: { taskIds: [task.taskId] } }, /#\/\$defs\/RequestMetaObject\/required$/],
    ];
    for (const [params, schemaPath] of cases) {
      let opened = 0;
      const outcome = await tasks.listen(
        { jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params },
        { owner: "o" },
        { send: () => void opened++, end: () => void opened++ },
      );
      if (outcome.kind !== "answered") throw new Error("expected an answer");
      const error = (outcome.response as Json).error;
      expect(error.code).toBe(-32602);
      expect(error.data.errors.map((e: Json) => e.schemaPath)).toEqual(expect.arrayContaining([expect.stringMatching(schemaPath)]));
      expect(opened).toBe(0);
    }
    tasks.close();
  });

  it("writes nothing after ending gracefully", async () => {
    const tasks = createTasksServer();
    const task = await tasks.createTask({ owner: "o" });
    const written: Json[] = [];
    let ends = 0;
    const outcome = await tasks.listen(
      { jsonrpc: "2.0", id: "s", method: "subscriptions/listen", params: { _meta: meta(), notifications: { taskIds: [task.taskId] } } },
      { owner: "o" },
      { send: (message) => void written.push(message), end: () => void ends++ },
    );
    if (outcome.kind !== "streaming") throw new Error("expected a stream");
    outcome.end();
    await task.complete(text("after the end"));
    tasks.close();
    expect(written.map((m) => m.method ?? m.result?.resultType)).toEqual(["notifications/subscriptions/acknowledged", "complete"]);
    expect(ends).toBe(1);
  });
});

describe("the client's reading of a listen stream's messages", () => {
  const ack = (id: unknown, notifications: object) => ({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: { [SUBSCRIPTION]: id }, notifications } });
  it("takes only its own subscription's messages: the acknowledgement with the agreed ids, then notifications", () => {
    expect(listenMessage(ack(5, { taskIds: ["a"] }), 5)).toEqual({ kind: "acknowledged", taskIds: ["a"] });
    expect(listenMessage(ack(5, {}), 5)).toEqual({ kind: "acknowledged", taskIds: [] });
    // Another subscription's (the id is compared as is: "5" is not 5), or none at all.
    expect(listenMessage(ack("5", { taskIds: ["a"] }), 5)).toEqual({ kind: "other" });
    expect(listenMessage({ jsonrpc: "2.0", method: "notifications/tasks", params: { taskId: "a", status: "working" } }, 5)).toEqual({ kind: "other" });
    expect(listenMessage({ jsonrpc: "2.0", method: "notifications/tasks", params: { _meta: { [SUBSCRIPTION]: 5 }, taskId: "a" } }, 5)).toEqual({ kind: "notification" });
    // The response that ends the stream is not a notification.
    expect(listenMessage({ jsonrpc: "2.0", id: 5, params: { _meta: { [SUBSCRIPTION]: 5 } } }, 5)).toEqual({ kind: "other" });
  });

  it("checks the acknowledgement with the check it is given (the set's generated one), and only the acknowledgement", () => {
    const check = { type: "SubscriptionsAcknowledgedNotificationParams", validate: validateSubscriptionsAcknowledgedNotificationParams };
    expect(listenMessage(ack(5, { taskIds: ["a"] }), 5, check)).toEqual({ kind: "acknowledged", taskIds: ["a"] });
    expect(() => listenMessage(ack(5, { resourceSubscriptions: "not a list" }), 5, check)).toThrow(/resourceSubscriptions/);
    // Without a check the same message is read structurally (a set without the core definition).
    expect(listenMessage(ack(5, { resourceSubscriptions: "not a list" }), 5)).toEqual({ kind: "acknowledged", taskIds: [] });
    expect(listenMessage({ jsonrpc: "2.0", method: "notifications/tasks", params: { _meta: { [SUBSCRIPTION]: 5 }, taskId: 7 } }, 5, check)).toEqual({ kind: "notification" });
  });
});

describe("the HTTP handler's listen stream and a client that does not read", () => {
  it("ends the subscription gracefully once more than maxStreamBufferBytes wait, instead of buffering without bound", async () => {
    const tasks = createTasksServer();
    const task = await tasks.createTask({ owner: "anonymous" });
    const core = createMcpHttpCore({ tasks, maxStreamBufferBytes: 1000, heartbeatMs: 0 });
    const body = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "subscriptions/listen", params: { _meta: meta(), notifications: { taskIds: [task.taskId] } } });
    const answer = await core({
      method: "POST",
      path: "/mcp",
      headers: { "content-type": "application/json", "mcp-protocol-version": V, "mcp-method": "subscriptions/listen" },
      readBody: async () => body,
    });
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject({ "content-type": "text/event-stream", "x-accel-buffering": "no" });
    // The transport's buffer as the slow client leaves it: everything written stays there.
    let held = 0;
    const written: string[] = [];
    let ended = 0;
    answer.stream!({ write: (t) => (written.push(t), (held += t.length)), end: () => void ended++ });
    for (let i = 0; held <= 1000; i++) await task.update(`step ${i} ${"x".repeat(100)}`);
    await settle(10);
    await task.update("after the end");
    expect(ended).toBe(1);
    expect(written.at(-1)).toContain(JSON.stringify({ jsonrpc: "2.0", id: 9, result: { resultType: "complete", _meta: { [SUBSCRIPTION]: 9 } } }));
    expect(written.join("")).not.toContain("after the end");
    tasks.close();
  });
});

describe("waitForTask over the listen stream, generated client + http-client part", () => {
  let tasks: TasksServer;
  let server: Started;
  let handles: Map<string, TaskHandle>;
  /** Each request the server received, by `Mcp-Method`. */
  let received: string[];
  /** The open listen responses, to kill them server-side. */
  let streams: Set<ServerResponse>;
  let killEveryStream: boolean;

  async function start(extra: Partial<McpHttpOptions> = {}, tasksServer?: TasksServer) {
    tasks = tasksServer ?? createTasksServer();
    handles = new Map();
    received = [];
    streams = new Set();
    killEveryStream = false;
    const handler = nodeHttpHandler({
      tasks,
      methods: {
        "tools/call": async (_params, context) => {
          const task = await tasks.createTask(context);
          handles.set(task.taskId, task);
          return task.createResult;
        },
      },
      ...extra,
    });
    server = await serve((req, res) => {
      const method = String(req.headers["mcp-method"]);
      received.push(method);
      if (method === "subscriptions/listen") {
        streams.add(res);
        res.once("close", () => streams.delete(res));
        if (killEveryStream) setTimeout(() => res.destroy(), 20);
      }
      handler(req, res);
    });
  }
  afterEach(async () => {
    tasks.close();
    await server.close();
  });

  const client = (pollMs: number, maxListenStreams?: number) =>
    createTasksClient({
      ...streamableHttpTransport({ url: server.url, protocolVersion: V }),
      meta: { "io.modelcontextprotocol/protocolVersion": V },
      minPollMs: pollMs,
      maxPollMs: pollMs,
      ...(maxListenStreams === undefined ? {} : { maxListenStreams }),
    });
  const count = (method: string) => received.filter((m) => m === method).length;
  const until = async (test: () => boolean, what: string) => {
    for (let i = 0; i < 1000 && !test(); i++) await settle(10);
    if (!test()) throw new Error(`timed out waiting for ${what}`);
  };

  it("resolves from the stream's notifications: with a one-minute poll interval it reads the task once, after the acknowledgement", async () => {
    await start();
    const tasksClient = client(60_000);
    const seen: string[] = [];
    const started = Date.now();
    const calling = tasksClient.callTool({ name: "work" }, { onUpdate: (task) => seen.push(task.status + (task.statusMessage ? `:${task.statusMessage}` : "")) });
    await until(() => handles.size === 1 && streams.size === 1, "the task and its stream");
    await settle(100);
    const handle = [...handles.values()][0]!;
    await handle.update("halfway");
    await settle(50);
    await handle.complete(text("done"));
    expect(await calling).toMatchObject(text("done"));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(seen).toEqual(["working", "working:halfway", "completed:halfway"]);
    // One server/discover, one listen, one read after the acknowledgement, and no poll.
    expect(count("server/discover")).toBe(1);
    expect(count("subscriptions/listen")).toBe(1);
    expect(count("tasks/get")).toBe(1);
    tasksClient.close();
  });

  it("survives the stream dropping mid-task: reopens it and reads the task again, so a status reached meanwhile is not missed", async () => {
    await start();
    const tasksClient = client(60_000);
    const calling = tasksClient.callTool({ name: "work" });
    await until(() => handles.size === 1 && streams.size === 1 && count("tasks/get") === 1, "the first stream");
    await settle(50);
    // Killed server-side without a response: a drop. The task finishes while no stream is open.
    for (const res of streams) res.destroy();
    await settle(20);
    await [...handles.values()][0]!.complete(text("while away"));
    expect(await calling).toMatchObject(text("while away"));
    expect(count("subscriptions/listen")).toBe(2);
    expect(count("tasks/get")).toBe(2);
    tasksClient.close();
  });

  it("polls while the stream cannot be kept up, and resolves from a poll", async () => {
    await start();
    const tasksClient = client(100);
    const calling = tasksClient.callTool({ name: "work" });
    await until(() => streams.size === 1, "the first stream");
    killEveryStream = true;
    for (const res of streams) res.destroy();
    const polls = count("tasks/get");
    await until(() => count("tasks/get") >= polls + 2, "polls after the drop");
    await [...handles.values()][0]!.complete(text("by polling"));
    expect(await calling).toMatchObject(text("by polling"));
    tasksClient.close();
  });

  it("keeps at most maxListenStreams streams open: a wait beyond it polls", async () => {
    await start();
    const tasksClient = client(50, 1);
    const calls = [tasksClient.callTool({ name: "work" }), tasksClient.callTool({ name: "work" })];
    await until(() => handles.size === 2 && streams.size === 1 && count("tasks/get") >= 4, "one stream and polls");
    await settle(100);
    expect(streams.size).toBe(1);
    expect(count("subscriptions/listen")).toBe(1);
    for (const handle of handles.values()) await handle.complete(text("both"));
    expect(await Promise.all(calls)).toEqual([text("both"), text("both")]);
    tasksClient.close();
  });

  it("an acknowledgement the client's generated validator rejects agrees to nothing: reported with its schema path, and the wait polls", async () => {
    const real = createTasksServer();
    const ACK = "notifications/subscriptions/acknowledged";
    // The real server, its acknowledgements corrupted: a filter kind the schema types as a boolean.
    const corrupting = {
      ...real,
      listen: (message: unknown, transport: Parameters<TasksServer["listen"]>[1], sink: Parameters<TasksServer["listen"]>[2]) =>
        real.listen(message, transport, {
          send: (m: Json) => sink.send(m.method === ACK ? { ...m, params: { ...m.params, notifications: { ...m.params.notifications, toolsListChanged: "yes" } } } : m),
          end: () => sink.end(),
        }),
    } as TasksServer;
    await start({}, corrupting);
    const errors: unknown[] = [];
    const tasksClient = createTasksClient({
      ...streamableHttpTransport({ url: server.url, protocolVersion: V }),
      meta: { "io.modelcontextprotocol/protocolVersion": V },
      minPollMs: 50,
      maxPollMs: 50,
      onError: (error) => void errors.push(error),
    });
    const calling = tasksClient.callTool({ name: "work" });
    await until(() => handles.size === 1 && count("tasks/get") >= 3, "polls after the refused acknowledgement");
    await [...handles.values()][0]!.complete(text("polled"));
    expect(await calling).toMatchObject(text("polled"));
    const invalid = errors.find((e): e is { typeName: string; errors: { schemaPath: string }[] } => (e as { name?: string }).name === "ValidationFailed");
    expect(invalid?.typeName).toBe("SubscriptionsAcknowledgedNotificationParams");
    expect(invalid?.errors.map((e) => e.schemaPath)).toEqual([expect.stringMatching(/#\/\$defs\/SubscriptionFilter\/properties\/toolsListChanged\/type$/)]);
    // Refused, not dropped: no second stream.
    expect(count("subscriptions/listen")).toBe(1);
    tasksClient.close();
  });

  it.each([
    ["data the set's validator accepts: polls and does not ask again", { requiredCapabilities: { extensions: {} } }, 1],
    ["data it rejects (no requiredCapabilities): read as a drop, asked again", { why: "no" }, 2],
  ])("a listen request answered -32021, %s", async (_what, data, listens) => {
    const real = createTasksServer();
    const refusing = {
      ...real,
      listen: async (message: unknown) => ({
        kind: "answered" as const,
        response: { jsonrpc: "2.0" as const, id: (message as Json).id, error: { code: -32021, message: "Missing required client capability", data } },
      }),
    } as unknown as TasksServer;
    await start({}, refusing);
    tasks = real;
    const tasksClient = client(50);
    const calling = tasksClient.callTool({ name: "work" });
    await until(() => handles.size === 1 && count("tasks/get") >= 2, "polls");
    if (listens > 1) await until(() => count("subscriptions/listen") >= listens, "the listen request again");
    else await settle(700);
    await [...handles.values()][0]!.complete(text("polled"));
    expect(await calling).toMatchObject(text("polled"));
    if (listens === 1) expect(count("subscriptions/listen")).toBe(1);
    tasksClient.close();
  });

  it("polls when the server has no listen stream (-32601), and does not ask again", async () => {
    const real = createTasksServer();
    // The same server without `listen`: the handler routes subscriptions/listen like any unknown method.
    const withoutListen = { handle: real.handle.bind(real), createTask: real.createTask.bind(real), close: () => real.close() } as unknown as TasksServer;
    await start({}, withoutListen);
    tasks = real;
    const tasksClient = client(50);
    const first = tasksClient.callTool({ name: "work" });
    await until(() => handles.size === 1 && count("tasks/get") >= 2, "polls");
    await [...handles.values()][0]!.complete(text("polled"));
    expect(await first).toMatchObject(text("polled"));
    const second = tasksClient.callTool({ name: "work" });
    await until(() => handles.size === 2, "the second task");
    await [...handles.values()][1]!.complete(text("polled again"));
    expect(await second).toMatchObject(text("polled again"));
    expect(count("subscriptions/listen")).toBe(1);
    tasksClient.close();
  });
});

describe("the example server serves task status notifications", () => {
  it("a slow_compute task resolves from the stream (no poll in a minute-long interval), and shutdown ends the stream gracefully", async () => {
    const example = await startExampleServer({ log: () => {} });
    try {
      const methods: string[] = [];
      const transport = streamableHttpTransport({
        url: example.url,
        protocolVersion: V,
        fetch: (url, init) => {
          methods.push(String((init?.headers as Record<string, string>)["Mcp-Method"] ?? (init?.headers as Record<string, string>)["mcp-method"]));
          return fetch(url, init);
        },
      });
      const tasksClient = createTasksClient({ ...transport, meta: { "io.modelcontextprotocol/protocolVersion": V }, minPollMs: 60_000, maxPollMs: 60_000 });
      const result = await tasksClient.callTool({ name: "slow_compute", arguments: { seconds: 0.3, label: "listen" } });
      expect(result).toMatchObject({ content: [{ type: "text", text: "listen: computed after 0.3s" }] });
      expect(methods.filter((m) => m === "tasks/get")).toHaveLength(1);
      expect(methods).toContain("subscriptions/listen");
      tasksClient.close();

      const task = await example.tasks.createTask({ owner: "anonymous" });
      const stream = await openRaw(example.url, [task.taskId], { id: 42 });
      await stream.until(1);
      await example.close();
      await stream.ended;
      expect(stream.events.at(-1)!.message).toEqual({ jsonrpc: "2.0", id: 42, result: { resultType: "complete", _meta: { [SUBSCRIPTION]: 42 } } });
    } finally {
      await example.close();
    }
  });
});
