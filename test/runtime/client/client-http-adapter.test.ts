import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { streamableHttpTransport } from "../../../generated/ext-tasks-draft/runtime/parts/http-client.js";
import { startExampleServer, PROTOCOL_VERSION, type ExampleServer } from "../../../examples/ext-tasks-server/server.js";
import { createTasksClient, TaskFailedError, type TasksClient } from "../../../generated/ext-tasks-draft/index.js";
import { createTasksServer, type TasksServer } from "../../../generated/ext-tasks-draft/server.js";

/**
 * The Streamable HTTP adapter (plain fetch) under the generated ext-tasks client, over real HTTP
 * on localhost. The generated server checks the routing headers of task methods itself
 * (`Mcp-Name` must equal `params.taskId`, -32020 otherwise), so every task request that succeeds
 * proves the client computed them and the adapter sent them.
 */

type JsonObject = { [key: string]: unknown };

const text = (value: string) => ({ content: [{ type: "text", text: value }] });

interface Seen {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
}

describe("Streamable HTTP adapter against a small HTTP host of the generated server", () => {
  let http: Server;
  let url: string;
  let tasks: TasksServer;
  let seen: Seen[];

  beforeAll(async () => {
    http = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        void (async () => {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as JsonObject;
          seen.push({ method: String(body.method), headers: request.headers });
          if (body.method === "tools/call") {
            // Answer as an SSE stream: a notification first, then the response (the session is assigned here).
            const task = await tasks.createTask({});
            void task.requireInput("name", { method: "elicitation/create", params: { message: "Name?", requestedSchema: { type: "object", properties: { n: { type: "number" } } } } }).then((answer) =>
              task.complete(text(`Hi ${JSON.stringify(answer)}`)),
            );
            response.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "session-1" });
            response.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "starting" } })}\n\n`);
            response.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: body.id, result: task.createResult })}\n\n`);
            return; // the stream stays open: the adapter must stop reading once it has the response
          }
          const answer = await tasks.handle(body, { headers: request.headers });
          const json = JSON.stringify(answer);
          response.writeHead(answer && "error" in answer ? 400 : 200, { "content-type": "application/json" }).end(json);
        })();
      });
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });

  beforeEach(() => {
    tasks = createTasksServer({ pollInterval: 10 });
    seen = [];
  });

  afterEach(() => tasks.close());

  it("sends Mcp-Method and Mcp-Name = params.taskId, reads SSE and JSON answers, and keeps the session", async () => {
    const transport = streamableHttpTransport({ url, headers: { authorization: "Bearer t" } });
    const notifications: unknown[] = [];
    transport.onNotification((n) => notifications.push(n));
    // A host with sessions speaks no stateless revision: the client declares none (protocolVersion: null).
    const client = createTasksClient({ ...transport, protocolVersion: null, minPollMs: 5 });
    const result = await client.callTool({ name: "ask" }, { inputHandlers: { "elicitation/create": () => ({ action: "accept", content: { n: 1 } }) } });
    expect(result).toEqual(text('Hi {"action":"accept","content":{"n":1}}'));
    expect(notifications).toEqual([{ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "starting" } }]);
    expect(transport.sessionId()).toBe("session-1");

    // The client looks the tool up first (for its x-mcp-header annotations), then calls it.
    expect(seen.slice(0, 2).map((r) => r.method)).toEqual(["tools/list", "tools/call"]);
    const call = seen[1]!;
    expect(call.headers).toMatchObject({ "mcp-method": "tools/call", "mcp-name": "ask", authorization: "Bearer t" });
    expect(seen[0]!.headers["mcp-session-id"]).toBeUndefined();
    expect(call.headers["mcp-session-id"]).toBeUndefined();
    // The client also asks server/discover whether it may listen for task notifications (the host has none).
    const taskRequests = seen.slice(2).filter((r) => r.method.startsWith("tasks/"));
    expect(taskRequests.map((r) => r.method)).toContain("tasks/update");
    for (const request of taskRequests) {
      expect(request.headers["mcp-method"]).toBe(request.method);
      expect(request.headers["mcp-session-id"]).toBe("session-1");
      expect(request.headers["mcp-name"]).toMatch(/^[0-9a-f-]{36}$/);
    }
    client.close();
  });

  it("a JSON-RPC error sent with an HTTP error status is the answer (here the server's -32020 for a wrong Mcp-Name)", async () => {
    const transport = streamableHttpTransport({ url });
    const task = await tasks.createTask({});
    const answer = await transport.send(
      { jsonrpc: "2.0", id: 7, method: "tasks/get", params: { taskId: task.taskId, _meta: { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } } } },
      { "Mcp-Method": "tasks/get", "Mcp-Name": "someone-else" },
      { signal: new AbortController().signal },
    );
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32020 } });
  });
});

/**
 * The same client and adapter against the example server of examples/ext-tasks-server/ (stateless protocol revision
 * 2026-07-28 over HTTP, with the conformance fixture tools). Its envelope rules need the
 * protocol version in a header and in `_meta`: the adapter's `protocolVersion` and the client's
 * `meta` option.
 */
describe("Streamable HTTP adapter against the example ext-tasks server", () => {
  let example: ExampleServer;
  let client: TasksClient;

  beforeAll(async () => {
    example = await startExampleServer();
  });

  afterAll(() => example.close());

  beforeEach(() => {
    const transport = streamableHttpTransport({ url: example.url, protocolVersion: PROTOCOL_VERSION });
    client = createTasksClient({ ...transport, meta: { "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION }, minPollMs: 10 });
  });

  afterEach(() => client.close());

  it("a synchronous tool answers its result directly", async () => {
    expect(await client.callTool({ name: "greet", arguments: { name: "Ada" } })).toEqual(text("Hello, Ada!"));
  });

  it("a task tool is awaited transparently", async () => {
    const created: string[] = [];
    const result = await client.callTool({ name: "slow_compute", arguments: { seconds: 0.05, label: "x" } }, { onTaskCreated: (t) => created.push(t.status) });
    expect(created).toEqual(["working"]);
    expect(result).toEqual(text("x: computed after 0.05s"));
  });

  it("answers the elicitation of an input_required task", async () => {
    const result = await client.callTool(
      { name: "confirm_delete", arguments: { filename: "a.txt" } },
      { inputHandlers: { "elicitation/create": () => ({ action: "accept", content: { confirm: true } }) } },
    );
    expect(result).toEqual(text("Deleted a.txt."));
  });

  it("a task that fails with a JSON-RPC error rejects with TaskFailedError", async () => {
    await expect(client.callTool({ name: "protocol_error_job" })).rejects.toSatisfy(
      (e: unknown) => e instanceof TaskFailedError && e.error?.code === -32603,
    );
  });
});
