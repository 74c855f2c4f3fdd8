import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createTasksClient,
  JsonRpcResponseError,
  TaskCancelledError,
  TaskFailedError,
  ValidationFailed,
  type InputHandlers,
  type TasksClient,
  type TasksClientRequest,
  type TasksClientSend,
  type TaskSnapshot,
} from "../../../generated/ext-tasks-2026-05-22/index.js";
import { createTasksServer, type TaskHandle, type TasksServer } from "../../../generated/ext-tasks-2026-05-22/server.js";
import type { InputRequest } from "../../../generated/ext-tasks-2026-05-22/types.js";

/**
 * End to end, in process: the generated ext-tasks (SEP-2663) client against the generated
 * ext-tasks server of the same set. The client's `send` is the server's JSON-RPC handler, except
 * for `tools/call`, which a few test tools answer the way a tool author would with the server's
 * `createTask`. Every task request the server accepts proves the client declared the extension
 * (the server answers -32021 otherwise) and sent params the server's validators accept.
 */

type JsonObject = { [key: string]: unknown };

let server: TasksServer;
let client: TasksClient;
let sent: TasksClientRequest[];
/** Decorates every result before the client sees it (a conforming server may add `_meta`). */
let decorate: (result: JsonObject, request: TasksClientRequest) => JsonObject;
/** Lets a test end a slow task's work. */
let handles: Map<string, TaskHandle>;

const text = (value: string) => ({ content: [{ type: "text", text: value }] });
const elicit = (message: string): InputRequest => ({
  method: "elicitation/create",
  params: { mode: "form", message, requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
});

/** The tools: each answers a tools/call result (a created task or a complete result). */
const tools: Record<string, () => Promise<JsonObject>> = {
  async quick() {
    return { resultType: "complete", ...text("quick answer") };
  },
  async greet() {
    const task = await server.createTask({});
    void (async () => {
      const answer = (await task.requireInput("name", elicit("Your name?"))) as { action?: string; content?: { name?: string } };
      await task.complete(text(answer.action === "accept" ? `Hello, ${answer.content?.name}!` : "Hello, stranger!"));
    })();
    return { ...task.createResult };
  },
  async twoQuestions() {
    const task = await server.createTask({});
    void (async () => {
      const [a, b] = (await Promise.all([task.requireInput("a", elicit("A?")), task.requireInput("b", elicit("B?"))])) as { content?: { name?: string } }[];
      await task.complete(text(`${a?.content?.name} & ${b?.content?.name}`));
    })();
    return { ...task.createResult };
  },
  async explode() {
    const task = await server.createTask({});
    void task.fail({ code: -32603, message: "boom", data: { where: "explode" } });
    return { ...task.createResult };
  },
  async slow() {
    const task = await server.createTask({});
    handles.set(task.taskId, task);
    return { ...task.createResult };
  },
};

async function callTool(request: TasksClientRequest): Promise<unknown> {
  const name = String(request.params?.name);
  const tool = tools[name];
  if (!tool) return { jsonrpc: "2.0", id: request.id, error: { code: -32602, message: `Unknown tool: ${name}` } };
  return { jsonrpc: "2.0", id: request.id, result: await tool() };
}

beforeEach(() => {
  server = createTasksServer({ pollInterval: 10 });
  sent = [];
  handles = new Map();
  decorate = (result) => result;
  const send: TasksClientSend = async (request) => {
    sent.push(request);
    const response = request.method === "tools/call" ? await callTool(request) : await server.handle(request);
    if (response && typeof response === "object" && "result" in response) {
      return { ...response, result: decorate(response.result as JsonObject, request) };
    }
    return response;
  };
  client = createTasksClient({
    send,
    onNotification: (listener) => server.subscribe((notification) => listener(notification)),
    minPollMs: 5,
  });
});

afterEach(() => {
  client.close();
  server.close();
});

describe("ext-tasks client against the generated ext-tasks server", () => {
  it("callTool answers a plain result at once, without the resultType tag", async () => {
    expect(await client.callTool({ name: "quick" })).toEqual(text("quick answer"));
  });

  it("creates a task, answers its elicitation through tasks/update, and reads the inlined result", async () => {
    const asked: JsonObject[] = [];
    const handlers: InputHandlers = {
      "elicitation/create": (params, context) => {
        asked.push({ ...params, key: context.key, method: context.method });
        return { action: "accept", content: { name: "Luca" } };
      },
    };
    const updates: TaskSnapshot[] = [];
    const result = await client.callTool({ name: "greet" }, { inputHandlers: handlers, onUpdate: (t) => updates.push(t) });
    expect(result).toEqual(text("Hello, Luca!"));
    expect(asked).toEqual([{ mode: "form", message: "Your name?", requestedSchema: expect.any(Object), key: "name", method: "elicitation/create" }]);
    expect(updates.map((t) => t.status)).toContain("input_required");
    expect(updates.at(-1)?.status).toBe("completed");
    const updatesSent = sent.filter((r) => r.method === "tasks/update");
    expect(updatesSent).toHaveLength(1);
    expect(updatesSent[0]!.params).toMatchObject({ inputResponses: { name: { action: "accept", content: { name: "Luca" } } } });
  });

  it("declares the extension in every request's _meta client capabilities", async () => {
    await client.callTool({ name: "greet" });
    expect(sent.length).toBeGreaterThan(2);
    for (const request of sent) {
      expect(request.params?._meta).toMatchObject({
        "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
      });
    }
  });

  it("answers an elicitation without a handler with { action: \"cancel\" }", async () => {
    expect(await client.callTool({ name: "greet" })).toEqual(text("Hello, stranger!"));
    const update = sent.find((r) => r.method === "tasks/update");
    expect(update?.params).toMatchObject({ inputResponses: { name: { action: "cancel" } } });
  });

  it("answers several pending input requests, each key once", async () => {
    const keys: string[] = [];
    const result = await client.callTool(
      { name: "twoQuestions" },
      { inputHandlers: { "elicitation/create": (_params, { key }) => (keys.push(key), { action: "accept", content: { name: key.toUpperCase() } }) } },
    );
    expect(result).toEqual(text("A & B"));
    expect(keys.sort()).toEqual(["a", "b"]);
  });

  it("a failed task rejects with TaskFailedError carrying the JSON-RPC error", async () => {
    const error = await client.callTool({ name: "explode" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TaskFailedError);
    expect((error as TaskFailedError).error).toEqual({ code: -32603, message: "boom", data: { where: "explode" } });
  });

  it("cancelling through the client ends the wait with TaskCancelledError (cancel answers an empty ack)", async () => {
    const start = await client.startToolCall({ name: "slow" });
    if (start.kind !== "task") throw new Error("expected a task");
    const waiting = client.waitForTask(start.task.taskId);
    expect(await client.cancelTask({ taskId: start.task.taskId })).toEqual({});
    await expect(waiting).rejects.toBeInstanceOf(TaskCancelledError);
    // Cancelling a finished task is the same acknowledgement in this revision.
    expect(await client.cancelTask({ taskId: start.task.taskId })).toEqual({});
  });

  it("aborting a wait rejects with the reason and cancels the task on the server", async () => {
    const controller = new AbortController();
    let taskId = "";
    const calling = client.callTool({ name: "slow" }, { signal: controller.signal, onTaskCreated: (t) => ((taskId = t.taskId), controller.abort(new Error("stop"))) });
    await expect(calling).rejects.toThrow("stop");
    await expect.poll(async () => (await client.getTask({ taskId })).status).toBe("cancelled");
  });

  it("finishing the work wakes the wait through notifications/tasks before any poll", async () => {
    const start = await client.startToolCall({ name: "slow" });
    if (start.kind !== "task") throw new Error("expected a task");
    const waiting = client.waitForTask(start.task.taskId, { minPollMs: 10_000, maxPollMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await handles.get(start.task.taskId)!.complete(text("finished"));
    expect(await waiting).toEqual(text("finished"));
    expect(sent.filter((r) => r.method === "tasks/get")).toHaveLength(1);
  });

  it("an unknown task is JsonRpcResponseError -32602", async () => {
    await expect(client.getTask({ taskId: "nope" })).rejects.toSatisfy(
      (e: unknown) => e instanceof JsonRpcResponseError && e.code === -32602 && e.method === "tasks/get",
    );
  });

  it("accepts the _meta and resultType a conforming server puts on results, and still checks _meta", async () => {
    decorate = (result, request) => ({
      ...result,
      _meta: { "io.modelcontextprotocol/related-task": { taskId: String(request.params?.taskId ?? "t") }, trace: "abc" },
    });
    const start = await client.startToolCall({ name: "slow" });
    if (start.kind !== "task") throw new Error("expected a task");
    const task = await client.getTask({ taskId: start.task.taskId });
    expect(task.status).toBe("working");
    expect(task._meta).toEqual({ "io.modelcontextprotocol/related-task": { taskId: start.task.taskId }, trace: "abc" });
    expect("resultType" in task).toBe(false);

    // _meta is checked apart, not skipped: the related-task entry must have its taskId.
    decorate = (result) => ({ ...result, _meta: { "io.modelcontextprotocol/related-task": {} } });
    const error = await client.getTask({ taskId: start.task.taskId }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as ValidationFailed).errors[0]).toMatchObject({ path: "/_meta/io.modelcontextprotocol~1related-task/taskId", keyword: "required" });
  });
});
