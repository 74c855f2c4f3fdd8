import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, McpError, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createTasksServer, RELATED_TASK_META, type TasksServer } from "../../../generated/tasks-2025-11-25/server.js";

/**
 * The real SDK 1.32 client (`client.experimental.tasks.*`, and `callToolStream`, which polls
 * tasks/get and fetches tasks/result itself) against the generated 2025-11-25 server. The server
 * end of the SDK's InMemoryTransport is a minimal JSON-RPC peer: it answers `initialize` and a
 * `tools/call` that creates a task, and hands every other request to the generated handler.
 */

/** Serves one connection; `owner` is that connection's identity (the SDK's session). */
async function servePeer(transport: InMemoryTransport, tasks: TasksServer, owner: string): Promise<void> {
  transport.onmessage = (message: JSONRPCMessage) => {
    if (!("method" in message) || !("id" in message)) return; // notifications and responses need no answer
    void answer(message as JSONRPCMessage & { id: string | number; method: string; params?: Record<string, any> }).then((response) =>
      transport.send(response as JSONRPCMessage),
    );
  };
  async function answer(request: { id: string | number; method: string; params?: Record<string, any> }): Promise<unknown> {
    if (request.method === "initialize") {
      return {
        jsonrpc: "2.0",
        id: request.id,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
          serverInfo: { name: "generated-2025-11-25", version: "0.0.0" },
        },
      };
    }
    if (request.method === "tools/call") return { jsonrpc: "2.0", id: request.id, result: await compute(request.params ?? {}) };
    return tasks.handle(request, { owner });
  }
  /** The one tool: waits `ms`, then answers (or fails with a JSON-RPC error); a task when the request asks for one. */
  async function compute(params: Record<string, any>): Promise<object> {
    const { ms = 0, fail = false, label = "result" } = params.arguments ?? {};
    if (!params.task) return { content: [{ type: "text", text: label }] };
    const task = await tasks.createTask({ owner }, { ttl: params.task.ttl });
    setTimeout(() => {
      if (task.signal.aborted) return;
      void (fail ? task.fail({ code: -32001, message: "upstream failed", data: { label } }) : task.complete({ content: [{ type: "text", text: label }] }));
    }, ms);
    return task.createResult;
  }
  await transport.start();
}

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

async function connect(tasks: TasksServer, owner: string): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await servePeer(serverSide, tasks, owner);
  const client = new Client({ name: "sdk-client", version: "1.0.0" }, { capabilities: {} });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

/** Starts a task through a plain tools/call with `task`, as the SDK sends it. */
async function startTask(client: Client, args: Record<string, unknown>, ttl = 60_000): Promise<string> {
  const stream = client.experimental.tasks.callToolStream({ name: "compute", arguments: args }, CallToolResultSchema, { task: { ttl } });
  const first = await stream.next();
  void stream.return(undefined);
  if (first.value?.type !== "taskCreated") throw new Error(`expected taskCreated, got ${JSON.stringify(first.value)}`);
  return first.value.task.taskId;
}

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error("expected the request to fail");
}

describe("SDK 1.32 client against the generated 2025-11-25 server", () => {
  it("runs a task end to end with callToolStream: created, polled with tasks/get, result from tasks/result", async () => {
    const client = await connect(createTasksServer({ pollInterval: 10 }), "session-a");
    const messages = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "compute", arguments: { ms: 60, label: "forty-two" } },
      CallToolResultSchema,
      { task: { ttl: 30_000 } },
    )) {
      messages.push(message);
    }
    const types = messages.map((m) => m.type);
    expect(types[0]).toBe("taskCreated");
    expect(types.at(-1)).toBe("result");
    expect(types.slice(1, -1).every((t) => t === "taskStatus")).toBe(true);
    const created = messages[0] as { task: { taskId: string; ttl: number | null; pollInterval?: number } };
    expect(created.task).toMatchObject({ ttl: 30_000, pollInterval: 10 });
    const final = messages.at(-1) as { result: { content: unknown; _meta?: Record<string, unknown> } };
    expect(final.result.content).toEqual([{ type: "text", text: "forty-two" }]);
    expect(final.result._meta?.[RELATED_TASK_META]).toEqual({ taskId: created.task.taskId });
  });

  it("getTask answers the task as the SDK's schema reads it", async () => {
    const client = await connect(createTasksServer(), "session-a");
    const taskId = await startTask(client, { ms: 10_000 }, 45_000);
    const task = await client.experimental.tasks.getTask(taskId);
    expect(task).toMatchObject({ taskId, status: "working", ttl: 45_000, pollInterval: 1000 });
    expect(Date.parse(task.createdAt)).not.toBeNaN();
    expect((await rejection(client.experimental.tasks.getTask("no-such-task"))).code).toBe(-32602);
  });

  it("getTaskResult waits for the task, answers its result, and a failed task's error", async () => {
    const client = await connect(createTasksServer(), "session-a");
    const slow = await startTask(client, { ms: 50, label: "late" });
    const result = await client.experimental.tasks.getTaskResult(slow, CallToolResultSchema);
    expect(result.content).toEqual([{ type: "text", text: "late" }]);
    expect(result._meta?.[RELATED_TASK_META]).toEqual({ taskId: slow });

    const failing = await startTask(client, { ms: 5, fail: true, label: "x" });
    const error = await rejection(client.experimental.tasks.getTaskResult(failing, CallToolResultSchema));
    expect(error.code).toBe(-32001);
    expect(error.data).toEqual({ label: "x" });
  });

  it("cancelTask answers the cancelled task; cancelling it again is an error", async () => {
    const tasks = createTasksServer();
    const client = await connect(tasks, "session-a");
    const taskId = await startTask(client, { ms: 10_000 });
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled).toMatchObject({ taskId, status: "cancelled" });
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe("cancelled");
    expect((await rejection(client.experimental.tasks.cancelTask(taskId))).code).toBe(-32602);
    expect((await rejection(client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema))).code).toBe(-32602);
  });

  it("listTasks pages through the caller's own tasks only", async () => {
    const tasks = createTasksServer({ pageSize: 2 });
    const alice = await connect(tasks, "session-a");
    const bob = await connect(tasks, "session-b");
    const mine = [];
    for (let i = 0; i < 5; i++) mine.push(await startTask(alice, { ms: 10_000 }));
    const bobs = await startTask(bob, { ms: 10_000 });

    const listed: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await alice.experimental.tasks.listTasks(cursor);
      listed.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(listed).toEqual(mine);
    expect(pages).toBe(3);
    expect((await bob.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([bobs]);
    // Another session's task is not found, exactly like a task that does not exist.
    expect((await rejection(bob.experimental.tasks.getTask(mine[0]!))).message).toBe((await rejection(bob.experimental.tasks.getTask("nope"))).message);
    expect((await rejection(alice.experimental.tasks.listTasks("bogus-cursor"))).code).toBe(-32602);
  });
});
