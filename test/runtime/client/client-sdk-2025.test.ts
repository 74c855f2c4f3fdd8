import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ElicitRequestSchema, ElicitResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sdkClientTransport } from "../../../generated/tasks-2025-11-25/runtime/parts/sdk-client.js";
import {
  createTasksClient,
  JsonRpcResponseError,
  TaskCancelledError,
  TaskFailedError,
  toolTaskSupport,
  ValidationFailed,
  type Task,
  type TasksClient,
  type TaskSnapshot,
} from "../../../generated/tasks-2025-11-25/index.js";

/**
 * The generated 2025-11-25 client against a real peer: an `@modelcontextprotocol/sdk` 1.32
 * `McpServer` with task tools (`experimental.tasks.registerToolTask`) and the SDK's
 * `InMemoryTaskStore`, over `InMemoryTransport`, reached through the SDK adapter. Every request
 * below goes through the generated client and its validators.
 */

interface Gate {
  readonly promise: Promise<"complete" | "fail">;
  open(outcome: "complete" | "fail"): void;
}

function gate(): Gate {
  let open: (outcome: "complete" | "fail") => void = () => {};
  const promise = new Promise<"complete" | "fail">((resolve) => (open = resolve));
  return { promise, open };
}

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

let sdk: Client;
let server: McpServer;
let store: InMemoryTaskStore;
let tasks: TasksClient;
/** Gates of the tool's tasks: the test decides when (and how) each one finishes. */
let gates: Map<string, Gate>;
let sent: string[];

beforeEach(async () => {
  gates = new Map();
  sent = [];
  store = new InMemoryTaskStore();
  server = new McpServer(
    { name: "sdk-peer", version: "1.0.0" },
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: store,
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    },
  );
  server.experimental.tasks.registerToolTask(
    "gated",
    { description: "Finishes when the test opens its gate", execution: { taskSupport: "required" } },
    {
      async createTask({ taskStore, taskRequestedTtl }) {
        const task = await taskStore.createTask({ ttl: taskRequestedTtl ?? 60_000, pollInterval: 20 });
        const g = gate();
        gates.set(task.taskId, g);
        void g.promise.then(async (outcome) => {
          try {
            if (outcome === "complete") await taskStore.storeTaskResult(task.taskId, "completed", text(`done ${task.taskId}`));
            else await taskStore.storeTaskResult(task.taskId, "failed", { ...text("it broke"), isError: true });
          } catch {
            // The task was cancelled first: the SDK refuses to finish a terminal task.
          }
        });
        return { task };
      },
      getTask: ({ taskId, taskStore }) => taskStore.getTask(taskId),
      getTaskResult: async ({ taskId, taskStore }) => (await taskStore.getTaskResult(taskId)) as CallToolResult,
    },
  );
  server.experimental.tasks.registerToolTask(
    "ask",
    { description: "Asks the user's name (an elicitation tied to the task), then greets", execution: { taskSupport: "required" } },
    {
      async createTask({ taskStore }) {
        const task = await taskStore.createTask({ ttl: 60_000, pollInterval: 20 });
        void (async () => {
          // A request tied to the task is queued: the SDK delivers it only through tasks/result.
          await taskStore.updateTaskStatus(task.taskId, "input_required");
          const answer = await server.server.request(
            { method: "elicitation/create", params: { mode: "form", message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } } },
            ElicitResultSchema,
            { relatedTask: { taskId: task.taskId } },
          );
          await taskStore.updateTaskStatus(task.taskId, "working");
          await taskStore.storeTaskResult(task.taskId, "completed", text(`Hello, ${String(answer.content?.name)}!`));
        })();
        return { task };
      },
      getTask: ({ taskId, taskStore }) => taskStore.getTask(taskId),
      getTaskResult: async ({ taskId, taskStore }) => (await taskStore.getTaskResult(taskId)) as CallToolResult,
    },
  );
  server.registerTool("plain", { description: "Answers at once" }, async () => text("plain answer"));

  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  sdk = new Client({ name: "generated-client-test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  sdk.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Ada" } }));
  await Promise.all([server.connect(serverSide), sdk.connect(clientSide)]);
  const transport = sdkClientTransport(sdk);
  tasks = createTasksClient({
    ...transport,
    send: (request, headers, options) => {
      sent.push(request.method);
      return transport.send(request, headers, options);
    },
    minPollMs: 5,
  });
});

afterEach(async () => {
  tasks.close();
  await sdk.close();
  await server.close();
  store.cleanup();
});

async function createGatedTask(ttl = 60_000): Promise<Task> {
  const created = await tasks.createTask("tools/call", { name: "gated", arguments: {} }, { ttl });
  return created.task;
}

describe("2025-11-25 client against the SDK server", () => {
  it("creates a task with a task-augmented tools/call and gets the CreateTaskResult", async () => {
    const task = await createGatedTask(30_000);
    expect(task.status).toBe("working");
    expect(task.ttl).toBe(30_000);
    expect(task.pollInterval).toBe(20);
    expect(gates.has(task.taskId)).toBe(true);
  });

  it("polls a task to completion and fetches its result with tasks/result", async () => {
    const task = await createGatedTask();
    const updates: TaskSnapshot[] = [];
    const waiting = tasks.waitForTask(task.taskId, { onUpdate: (t) => updates.push(t) });
    // Let a couple of polls see it working before it finishes.
    await new Promise((resolve) => setTimeout(resolve, 60));
    gates.get(task.taskId)!.open("complete");
    const result = await waiting;
    expect(result.content).toEqual([{ type: "text", text: `done ${task.taskId}` }]);
    // tasks/result answers with the related-task _meta, validated as GetTaskPayloadResult.
    expect(result._meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId: task.taskId });
    expect(updates.map((u) => u.status)).toEqual(["working", "completed"]);
    expect(sent.filter((m) => m === "tasks/get").length).toBeGreaterThanOrEqual(2);
    expect(sent.at(-1)).toBe("tasks/result");
  });

  it("is woken by the status notification long before its next poll", async () => {
    const task = await createGatedTask();
    const notified: TaskSnapshot[] = [];
    tasks.onTaskStatus((t) => notified.push(t));
    const started = Date.now();
    // Polls every 10 s at the earliest: only the notification can end this wait quickly.
    const waiting = tasks.waitForTask(task.taskId, { minPollMs: 10_000, maxPollMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    gates.get(task.taskId)!.open("complete");
    await waiting;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(notified.map((t) => [t.taskId, t.status])).toContainEqual([task.taskId, "completed"]);
    expect(sent.filter((m) => m === "tasks/get")).toHaveLength(1);
  });

  it("callTool with `task` waits transparently; without it the tool answers at once", async () => {
    const created: Task[] = [];
    const calling = tasks.callTool(
      { name: "gated", arguments: {} },
      { task: { ttl: 60_000 }, onTaskCreated: (t) => (created.push(t), gates.get(t.taskId)!.open("complete")) },
    );
    const result = await calling;
    expect(created).toHaveLength(1);
    expect(result.content).toEqual([{ type: "text", text: `done ${created[0]!.taskId}` }]);

    const plain = await tasks.callTool({ name: "plain" });
    expect(plain.content).toEqual([{ type: "text", text: "plain answer" }]);
  });

  it("a task that needs input gets it through tasks/result, answered by the SDK client's own handler", async () => {
    const statuses: string[] = [];
    // Without tasks/result asked early the SDK never delivers the elicitation, and this would hang.
    const result = await tasks.callTool({ name: "ask" }, { task: {}, onUpdate: (t) => statuses.push(t.status), signal: AbortSignal.timeout(10_000) });
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
    expect(statuses).toContain("input_required");
    // The SDK holds the elicitation until someone asks tasks/result: the wait asked it once, on
    // seeing input_required, and that same request answered the result at the end.
    expect(sent.filter((m) => m === "tasks/result")).toHaveLength(1);
  });

  it("reports a failed task as TaskFailedError carrying what tasks/result answered", async () => {
    const task = await createGatedTask();
    const waiting = tasks.waitForTask(task.taskId);
    gates.get(task.taskId)!.open("fail");
    const error = await waiting.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TaskFailedError);
    const failed = error as TaskFailedError;
    expect(failed.task.status).toBe("failed");
    expect(failed.result?.isError).toBe(true);
  });

  it("lists every task across pages (the SDK store pages by 10)", async () => {
    const created = new Set<string>();
    for (let i = 0; i < 12; i++) created.add((await createGatedTask()).taskId);
    const first = await tasks.listTasks();
    expect(first.tasks).toHaveLength(10);
    expect(first.nextCursor).toBeTypeOf("string");
    const all: string[] = [];
    for await (const task of tasks.allTasks()) all.push(task.taskId);
    expect(new Set(all)).toEqual(created);
    expect(all).toHaveLength(12);
  });

  it("cancels a task: tasks/cancel answers the cancelled task, and a wait on it ends with TaskCancelledError", async () => {
    const task = await createGatedTask();
    const waiting = tasks.waitForTask(task.taskId);
    const cancelled = await tasks.cancelTask({ taskId: task.taskId });
    expect(cancelled.status).toBe("cancelled");
    await expect(waiting).rejects.toBeInstanceOf(TaskCancelledError);
    // Cancelling a finished task is an error in this revision.
    await expect(tasks.cancelTask({ taskId: task.taskId })).rejects.toMatchObject({ code: -32602 });
  });

  it("aborting a wait rejects with the signal's reason and cancels the task", async () => {
    const task = await createGatedTask();
    const controller = new AbortController();
    const waiting = tasks.waitForTask(task.taskId, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error("user gave up"));
    await expect(waiting).rejects.toThrow("user gave up");
    await expect.poll(async () => (await tasks.getTask({ taskId: task.taskId })).status).toBe("cancelled");
  });

  it("answers an unknown task with JsonRpcResponseError -32602", async () => {
    const error = await tasks.getTask({ taskId: "no-such-task" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JsonRpcResponseError);
    expect(error).toMatchObject({ code: -32602, method: "tasks/get" });
    // The message is the one on the wire: the SDK server sends its McpError's message (already
    // prefixed "MCP error -32602: "); the client-side SDK prefixes it again, and the adapter undoes that.
    expect((error as JsonRpcResponseError).message).toBe("MCP error -32602: Failed to retrieve task: Task not found");
  });

  it("validates params before sending anything", async () => {
    await expect(tasks.getTask({} as never)).rejects.toBeInstanceOf(ValidationFailed);
    await expect(tasks.createTask("tools/call", { name: "gated" }, { ttl: "soon" } as never)).rejects.toBeInstanceOf(ValidationFailed);
    expect(sent).toEqual([]);
  });

  it("reads per-tool taskSupport from the SDK's tools/list", async () => {
    const { tools } = await sdk.listTools();
    const support = Object.fromEntries(tools.map((tool) => [tool.name, toolTaskSupport(tool)]));
    expect(support).toEqual({ gated: "required", ask: "required", plain: "forbidden" });
  });
});
