import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { streamableHttpTransport } from "../../../generated/ext-tasks-draft/runtime/parts/http-client.js";
import { fetchHttpHandler, nodeHttpHandler, STATELESS_PROTOCOL_VERSION, type McpHttpOptions } from "../../../generated/ext-tasks-draft/runtime/parts/http-server.js";
import { createTasksClient } from "../../../generated/ext-tasks-draft/index.js";
import { createTasksServer, JsonRpcError, type TasksServer } from "../../../generated/ext-tasks-draft/server.js";
import { validateDiscoverResult } from "../../../generated/ext-tasks-draft/validators.js";
import { ValidationFailed } from "../../../generated/ext-tasks-draft/runtime/protocol/json.js";

/**
 * The `http-server` runtime part (README, "Runtime parts"), in both shapes, each served over real
 * HTTP on 127.0.0.1: the Node shape by `node:http` directly, the Fetch shape through Node's own
 * `Request` and `Response` (a few lines below turn `node:http`'s request into a `Request` and
 * write the `Response` back). The same cases run against both.
 */

const V = STATELESS_PROTOCOL_VERSION;
/** A POST body declared as JSON (the handler answers 415 otherwise). */
const JSON_BODY = { "content-type": "application/json" };
const META = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };

/** `node:http` → Fetch `Request`, and the `Response` back: the Fetch shape as any Fetch host calls it. */
function servedByFetch(handler: (request: Request) => Promise<Response>) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method!,
      headers,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
    } as RequestInit);
    const response = await handler(request);
    const answerHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      answerHeaders[name] = value;
    });
    res.writeHead(response.status, answerHeaders);
    res.end(Buffer.from(await response.arrayBuffer()));
  };
}

const errors: unknown[] = [];
const notified: unknown[] = [];

function options(tasks: TasksServer, extra: Partial<McpHttpOptions> = {}): McpHttpOptions {
  return {
    tasks,
    serverInfo: { name: "test", version: "1.0.0" },
    onError: (error) => errors.push(error),
    maxBodyBytes: 4096,
    methods: {
      "tools/list": () => ({ tools: [{ name: "work", inputSchema: { type: "object" } }] }),
      "tools/call": async (params, context) => {
        if (params.name === "crash") throw new Error("boom");
        if (params.name === "refuse") throw new JsonRpcError(-32602, "Refused", { why: "test" });
        const task = await tasks.createTask(context);
        setTimeout(() => void task.complete({ content: [{ type: "text", text: `done for ${context.owner}` }] }), 20);
        return task.createResult;
      },
    },
    notifications: { "notifications/hello": (params) => void notified.push(params) },
    ...extra,
  };
}

interface Started {
  readonly url: string;
  close(): Promise<void>;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Started> {
  const http: Server = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

const SHAPES = {
  "Node (req, res)": (o: McpHttpOptions) => listen(nodeHttpHandler(o)),
  "Fetch (Request) => Response": (o: McpHttpOptions) => listen(servedByFetch(fetchHttpHandler(o))),
} as const;

describe.each(Object.keys(SHAPES) as (keyof typeof SHAPES)[])("http-server, %s shape, over real HTTP", (shape) => {
  let tasks: TasksServer;
  let server: Started;
  let narrow: Started;

  beforeAll(async () => {
    tasks = createTasksServer({ pollInterval: 10 });
    server = await SHAPES[shape](options(tasks));
    narrow = await SHAPES[shape](options(tasks, { allowedOrigins: ["https://app.example"], path: "/rpc" }));
  });
  afterAll(async () => {
    tasks.close();
    await server.close();
    await narrow.close();
  });
  afterEach(() => {
    errors.length = 0;
    notified.length = 0;
  });

  /** POSTs a request with the headers the stateless revision wants (overridable). */
  async function post(method: string, params: Record<string, unknown>, headers: Record<string, string> = {}, url = server.url) {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": V,
        "mcp-method": method,
        ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { _meta: META, ...params } }),
    });
    const text = await response.text();
    return { status: response.status, type: response.headers.get("content-type"), body: text === "" ? undefined : (JSON.parse(text) as Record<string, any>) };
  }

  it("a task round trip with the generated client and the http-client part: tools/call creates it, tasks/get ends it", async () => {
    const client = createTasksClient({ ...streamableHttpTransport({ url: server.url, protocolVersion: V }), meta: { "io.modelcontextprotocol/protocolVersion": V }, minPollMs: 10 });
    try {
      const created: string[] = [];
      const result = await client.callTool({ name: "work" }, { onTaskCreated: (task) => created.push(task.status) });
      expect(created).toEqual(["working"]);
      expect(result).toEqual({ content: [{ type: "text", text: "done for anonymous" }] });
    } finally {
      client.close();
    }
  });

  it("server/discover by default: this revision, tools (tools/list is a method), the Tasks extension, serverInfo", async () => {
    const { status, type, body } = await post("server/discover", {});
    expect(status).toBe(200);
    expect(type).toBe("application/json");
    expect(body!.result).toMatchObject({
      resultType: "complete",
      supportedVersions: [V],
      capabilities: { tools: {}, extensions: { "io.modelcontextprotocol/tasks": {} } },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "test", version: "1.0.0" } },
    });
  });

  it("an application method's result gets resultType complete; a created task keeps resultType task", async () => {
    expect((await post("tools/list", {})).body!.result).toEqual({ resultType: "complete", tools: [{ name: "work", inputSchema: { type: "object" } }] });
    expect((await post("tools/call", { name: "work" })).body!.result).toMatchObject({ resultType: "task", status: "working" });
  });

  it("a JsonRpcError from a method is the answer (400); another exception is -32603 (500) and goes to onError", async () => {
    const refused = await post("tools/call", { name: "refuse" });
    expect([refused.status, refused.body!.error]).toEqual([400, { code: -32602, message: "Refused", data: { why: "test" } }]);
    const crashed = await post("tools/call", { name: "crash" });
    expect([crashed.status, crashed.body!.error]).toEqual([500, { code: -32603, message: "Internal error" }]);
    expect(errors).toEqual([new Error("boom")]);
  });

  it("an unknown method is -32601 with 404", async () => {
    const { status, body } = await post("prompts/list", {});
    expect([status, body!.error.code]).toEqual([404, -32601]);
  });

  it("the envelope: protocol version header and _meta, Mcp-Method, Mcp-Name", async () => {
    const codeOf = async (headers: Record<string, string>, method = "tools/list", params: Record<string, unknown> = {}) => {
      const { status, body } = await post(method, params, headers);
      return [status, body!.error?.code];
    };
    expect(await codeOf({ "mcp-protocol-version": "2025-11-25" })).toEqual([400, -32022]);
    expect(await codeOf({ "mcp-method": "tools/call" })).toEqual([400, -32020]);
    expect(await codeOf({ "mcp-name": "other" }, "tools/call", { name: "work" })).toEqual([400, -32020]);
    expect(await codeOf({ "mcp-name": "other" }, "tasks/get", { taskId: "t" })).toEqual([400, -32020]);
    const noMeta = await fetch(server.url, {
      method: "POST",
      headers: { ...JSON_BODY, "mcp-protocol-version": V, "mcp-method": "tools/list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
    });
    expect([noMeta.status, ((await noMeta.json()) as { error: { code: number } }).error.code]).toEqual([400, -32602]);
  });

  it("tasks are their owner's: another Authorization does not see them", async () => {
    const created = await post("tools/call", { name: "work" }, { authorization: "Bearer a" });
    const taskId = created.body!.result.taskId as string;
    expect((await post("tasks/get", { taskId }, { authorization: "Bearer a", "mcp-name": taskId })).status).toBe(200);
    const other = await post("tasks/get", { taskId }, { authorization: "Bearer b", "mcp-name": taskId });
    expect([other.status, other.body!.error.message]).toEqual([400, "Task not found"]);
  });

  it("Origin: a local origin passes by default, another is 403; an allow-list admits exactly its origins", async () => {
    expect((await post("tools/list", {}, { origin: "http://localhost:5173" })).status).toBe(200);
    expect((await post("tools/list", {}, { origin: "https://evil.example" })).status).toBe(403);
    const narrowUrl = narrow.url.replace("/mcp", "/rpc");
    expect((await post("tools/list", {}, { origin: "https://app.example" }, narrowUrl)).status).toBe(200);
    expect((await post("tools/list", {}, { origin: "http://localhost:5173" }, narrowUrl)).status).toBe(403);
    expect((await post("tools/list", {}, {}, narrowUrl)).status).toBe(200);
  });

  it("a body over the limit is 413, whether its length is declared or it is streamed", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(5000) } });
    expect((await fetch(server.url, { method: "POST", headers: JSON_BODY, body: big })).status).toBe(413);
    const chunks = Readable.toWeb(Readable.from([big.slice(0, 3000), big.slice(3000)])) as ReadableStream;
    const streamed = await fetch(server.url, { method: "POST", headers: JSON_BODY, body: chunks, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it("HTTP: another path 404, GET 405 with Allow, a body that is not JSON -32700, a batch -32600", async () => {
    expect((await fetch(server.url.replace("/mcp", "/x"), { method: "POST", headers: JSON_BODY, body: "{}" })).status).toBe(404);
    const get = await fetch(server.url);
    expect([get.status, get.headers.get("allow")]).toEqual([405, "POST"]);
    const notJson = await fetch(server.url, { method: "POST", headers: JSON_BODY, body: "{nope" });
    expect([notJson.status, ((await notJson.json()) as { error: { code: number } }).error.code]).toEqual([400, -32700]);
    const batch = await fetch(server.url, { method: "POST", headers: JSON_BODY, body: "[]" });
    expect([batch.status, ((await batch.json()) as { error: { code: number } }).error.code]).toEqual([400, -32600]);
  });

  it("a notification is 202 without a body and reaches its handler", async () => {
    const response = await fetch(server.url, { method: "POST", headers: JSON_BODY, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/hello", params: { n: 1 } }) });
    expect([response.status, await response.text()]).toEqual([202, ""]);
    expect(notified).toEqual([{ n: 1 }]);
  });
});

describe("http-server, Node shape: the client going away", () => {
  it("aborts the request's context.signal, so the method can stop its work", async () => {
    const tasks = createTasksServer();
    let aborted: (reason: unknown) => void = () => {};
    const sawAbort = new Promise<unknown>((resolve) => (aborted = resolve));
    let entered: () => void = () => {};
    const inMethod = new Promise<void>((resolve) => (entered = resolve));
    const server = await listen(
      nodeHttpHandler({
        tasks,
        methods: {
          "tools/call": (_params, context) =>
            new Promise<object>(() => {
              context.signal!.addEventListener("abort", () => aborted("aborted"), { once: true });
              entered();
            }),
        },
      }),
    );
    try {
      const controller = new AbortController();
      const call = fetch(server.url, {
        method: "POST",
        headers: { ...JSON_BODY, "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": "slow" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", _meta: META } }),
        signal: controller.signal,
      }).catch(() => "gone");
      await inMethod;
      controller.abort();
      expect(await call).toBe("gone");
      expect(await sawAbort).toBe("aborted");
    } finally {
      tasks.close();
      await server.close();
    }
  });
});

describe("the default server/discover answer checked by the set's generated DiscoverResult validator", () => {
  const discoverRequest = () =>
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": V, "mcp-method": "server/discover" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: META } }),
    });

  it("options that make the answer invalid fail when the handler is made, with the validator's schema paths", () => {
    const tasks = createTasksServer();
    const make = () => fetchHttpHandler({ tasks, validateDiscover: validateDiscoverResult, serverInfo: { name: "no version" } as unknown as { name: string; version: string } });
    expect(make).toThrow(ValidationFailed);
    try {
      make();
    } catch (error) {
      expect((error as ValidationFailed).typeName).toBe("DiscoverResult");
      expect((error as ValidationFailed).errors.map((e) => [e.path, e.schemaPath])).toEqual([
        ["/_meta/io.modelcontextprotocol~1serverInfo/version", expect.stringMatching(/#\/\$defs\/Implementation\/required$/)],
      ]);
    }
    // Without the validator the same options are taken as they are.
    expect(() => fetchHttpHandler({ tasks, serverInfo: { name: "no version" } as unknown as { name: string; version: string } })).not.toThrow();
    tasks.close();
  });

  it("valid options: the answer served passes the validator", async () => {
    const tasks = createTasksServer();
    const handler = fetchHttpHandler({ tasks, validateDiscover: validateDiscoverResult, serverInfo: { name: "s", version: "1" }, capabilities: { prompts: {} } });
    const body = (await (await handler(discoverRequest())).json()) as { result: unknown };
    expect(validateDiscoverResult(body.result).ok).toBe(true);
    tasks.close();
  });
});
