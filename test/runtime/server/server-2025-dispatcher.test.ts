import { describe, expect, it } from "vitest";
import {
  createTasksServer,
  RELATED_TASK_META,
  type JsonRpcResponse,
  type TasksServer,
  type TransportContext,
} from "../../../generated/tasks-2025-11-25/server.js";

/** The generated 2025-11-25 Tasks server, driven through its JSON-RPC handler. */

let nextId = 1;
async function call(server: TasksServer, method: string, params?: object, transport?: TransportContext): Promise<JsonRpcResponse> {
  const response = await server.handle({ jsonrpc: "2.0", id: nextId++, method, ...(params ? { params } : {}) }, transport);
  if (!response) throw new Error("a request got no response");
  return response;
}

function result(response: JsonRpcResponse): Record<string, any> {
  if (!("result" in response)) throw new Error(`expected a result, got error ${JSON.stringify(response.error)}`);
  return response.result as Record<string, any>;
}

function errorOf(response: JsonRpcResponse) {
  if (!("error" in response)) throw new Error(`expected an error, got ${JSON.stringify(response.result)}`);
  return response.error;
}

describe("2025-11-25 server", () => {
  it("answers tasks/get with the task itself, in the 2025 field names", async () => {
    const server = createTasksServer({ pollInterval: 250 });
    const task = await server.createTask({}, { ttl: 60_000, statusMessage: "starting" });
    expect(task.createResult).toEqual({ task: expect.objectContaining({ taskId: task.taskId, status: "working", ttl: 60_000 }) });
    const got = result(await call(server, "tasks/get", { taskId: task.taskId }));
    expect(got).toEqual({
      taskId: task.taskId,
      status: "working",
      statusMessage: "starting",
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      lastUpdatedAt: expect.any(String),
      ttl: 60_000,
      pollInterval: 250,
    });
    expect(got).not.toHaveProperty("resultType");
  });

  it("has no tasks/update (the schema defines none) and no extension gate", async () => {
    const server = createTasksServer();
    const task = await server.createTask({});
    expect(errorOf(await call(server, "tasks/update", { taskId: task.taskId, inputResponses: {} })).code).toBe(-32601);
    // No `_meta` capability is needed: 2025-11-25 negotiates capabilities at initialize.
    expect(result(await call(server, "tasks/get", { taskId: task.taskId })).status).toBe("working");
  });

  it("waits in tasks/result until the task finishes, then answers its result with the related-task _meta", async () => {
    const server = createTasksServer();
    const task = await server.createTask({});
    const pending = call(server, "tasks/result", { taskId: task.taskId });
    let settled = false;
    void pending.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    await task.complete({ content: [{ type: "text", text: "42" }], _meta: { trace: "x" } });
    expect(result(await pending)).toEqual({
      content: [{ type: "text", text: "42" }],
      _meta: { trace: "x", [RELATED_TASK_META]: { taskId: task.taskId } },
    });
  });

  it("answers tasks/result of a failed task with its JSON-RPC error, and of a cancelled one with -32602", async () => {
    const server = createTasksServer();
    const failing = await server.createTask({});
    await failing.fail({ code: -32001, message: "upstream timed out", data: { after: 30 } });
    expect(errorOf(await call(server, "tasks/result", { taskId: failing.taskId }))).toEqual({
      code: -32001,
      message: "upstream timed out",
      data: { after: 30 },
    });
    const cancelled = await server.createTask({});
    await call(server, "tasks/cancel", { taskId: cancelled.taskId });
    expect(errorOf(await call(server, "tasks/result", { taskId: cancelled.taskId })).code).toBe(-32602);
    expect(errorOf(await call(server, "tasks/result", { taskId: "nope" })).code).toBe(-32602);
  });

  it("answers tasks/cancel with the cancelled task, and -32602 for a finished one", async () => {
    const server = createTasksServer();
    const task = await server.createTask({});
    expect(result(await call(server, "tasks/cancel", { taskId: task.taskId }))).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    expect(task.signal.aborted).toBe(true);
    expect(errorOf(await call(server, "tasks/cancel", { taskId: task.taskId }))).toEqual({
      code: -32602,
      message: "Cannot cancel a task that is already cancelled",
    });
  });

  it("lists only the caller's tasks, page by page with an opaque cursor", async () => {
    const server = createTasksServer({ pageSize: 2 });
    const alice = { owner: "alice" };
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) {
      mine.push((await server.createTask(alice)).taskId);
      await server.createTask({ owner: "bob" });
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = result(await call(server, "tasks/list", cursor ? { cursor } : {}, alice));
      seen.push(...page.tasks.map((t: { taskId: string }) => t.taskId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(seen).toEqual(mine);
    expect(pages).toBe(3);
    // Params are optional for tasks/list.
    expect(result(await call(server, "tasks/list", undefined, alice)).tasks).toHaveLength(2);
    expect(result(await call(server, "tasks/list", {}, { owner: "carol" }))).toEqual({ tasks: [] });
    expect(errorOf(await call(server, "tasks/list", { cursor: "not-a-cursor" }, alice)).code).toBe(-32602);
    expect(errorOf(await call(server, "tasks/list", { cursor: 7 }, alice)).code).toBe(-32602);
  });

  it("does not list expired tasks", async () => {
    let now = 0;
    const server = createTasksServer({ now: () => now });
    await server.createTask({}, { ttl: 10 });
    const lasting = await server.createTask({}, { ttl: 1000 });
    now = 10;
    expect(result(await call(server, "tasks/list", {})).tasks.map((t: { taskId: string }) => t.taskId)).toEqual([lasting.taskId]);
  });

  it("notifies notifications/tasks/status with the task", async () => {
    const server = createTasksServer();
    const seen: unknown[] = [];
    server.subscribe((notification) => seen.push(notification));
    const task = await server.createTask({});
    await task.complete({ content: [] });
    expect(seen).toEqual([
      { jsonrpc: "2.0", method: "notifications/tasks/status", params: expect.objectContaining({ status: "working" }) },
      { jsonrpc: "2.0", method: "notifications/tasks/status", params: expect.objectContaining({ status: "completed" }) },
    ]);
    expect((seen[1] as { params: object }).params).not.toHaveProperty("result");
  });
});
