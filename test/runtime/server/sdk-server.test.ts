import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTaskMessageQueue } from "@modelcontextprotocol/sdk/experimental/tasks";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  McpError,
  TaskStatusNotificationSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterEach, describe, expect, it } from "vitest";
import { projectRoot } from "../../support/paths.js";
import { STRICT_COMPILER_OPTIONS } from "../../support/typescript.js";
import { mountTasksServer, sdkTaskStore } from "../../../generated/tasks-2025-11-25/runtime/parts/sdk-server.js";
import { SqliteTaskStore } from "../../../generated/tasks-2025-11-25/runtime/parts/sqlite-store.js";
import {
  createTasksServer,
  InMemoryTaskStore,
  RELATED_TASK_META,
  validateCreateTaskResult,
  validateGetTaskResult,
  validateListTasksResult,
  type StoredTask,
  type TasksServer,
} from "../../../generated/tasks-2025-11-25/index.js";

/**
 * The `sdk-server` runtime part: the generated 2025-11-25 server and stores inside the real SDK 1.32
 * (README › Runtime parts › Inside the MCP SDK):
 * mounted on a low-level `Server` (the SDK's client drives it, status notifications reach it), and a
 * generated store behind an `McpServer` with `registerToolTask` (the SDK's own task handling). The
 * generated validators accept what the SDK sends.
 */

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

async function connect(server: Server | McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "sdk-client", version: "1.0.0" }, { capabilities: {} });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

/** A low-level SDK Server whose one tool, "compute", runs as a generated task. */
function mountedServer(tasks: TasksServer): Server {
  const server = new Server(
    { name: "mounted", version: "1.0.0" },
    { capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } },
  );
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { ms = 0, fail = false, label = "result" } = (request.params.arguments ?? {}) as { ms?: number; fail?: boolean; label?: string };
    if (!request.params.task) return text(label);
    const task = await tasks.createTask({ owner: "" }, { ttl: request.params.task.ttl ?? null });
    setTimeout(() => {
      if (task.signal.aborted) return;
      void (fail ? task.fail({ code: -32001, message: "upstream failed" }) : task.complete(text(label)));
    }, ms);
    return task.createResult;
  });
  mountTasksServer(server, tasks);
  return server;
}

async function startTask(client: Client, args: Record<string, unknown>): Promise<string> {
  const stream = client.experimental.tasks.callToolStream({ name: "compute", arguments: args }, CallToolResultSchema, { task: { ttl: 60_000 } });
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

describe("mountTasksServer: the generated server answers tasks/* inside an SDK Server", () => {
  it("runs a task with the SDK client's callToolStream: created, polled, result with its related-task _meta", async () => {
    const client = await connect(mountedServer(createTasksServer({ pollInterval: 10 })));
    const messages = [];
    for await (const message of client.experimental.tasks.callToolStream({ name: "compute", arguments: { ms: 40, label: "42" } }, CallToolResultSchema, {
      task: { ttl: 30_000 },
    })) {
      messages.push(message);
    }
    expect(messages[0]?.type).toBe("taskCreated");
    const last = messages.at(-1) as { type: string; result: CallToolResult };
    expect(last.type).toBe("result");
    expect(last.result.content).toEqual([{ type: "text", text: "42" }]);
    const created = messages[0] as { task: { taskId: string } };
    expect(last.result._meta?.[RELATED_TASK_META]).toEqual({ taskId: created.task.taskId });
  });

  it("answers the generated server's JSON-RPC errors as McpError with their code and data", async () => {
    const client = await connect(mountedServer(createTasksServer()));
    expect((await rejection(client.experimental.tasks.getTask("no-such-task"))).code).toBe(-32602);
    const failing = await startTask(client, { ms: 5, fail: true });
    const error = await rejection(client.experimental.tasks.getTaskResult(failing, CallToolResultSchema));
    // The SDK client prefixes what it shows; the wire message is the generated server's own.
    expect([error.code, error.message]).toEqual([-32001, "MCP error -32001: upstream failed"]);
    const running = await startTask(client, { ms: 10_000 });
    expect(await client.experimental.tasks.cancelTask(running)).toMatchObject({ taskId: running, status: "cancelled" });
    expect((await rejection(client.experimental.tasks.cancelTask(running))).code).toBe(-32602);
  });

  it("lists the connection's tasks, and what the SDK client receives passes the generated validators", async () => {
    const client = await connect(mountedServer(createTasksServer({ pageSize: 2 })));
    const ids = [await startTask(client, { ms: 10_000 }), await startTask(client, { ms: 10_000 }), await startTask(client, { ms: 10_000 })];
    const first = await client.experimental.tasks.listTasks();
    expect(validateListTasksResult(first).ok).toBe(true);
    const second = await client.experimental.tasks.listTasks(first.nextCursor);
    expect([...first.tasks, ...second.tasks].map((t) => t.taskId)).toEqual(ids);
    expect(validateGetTaskResult(await client.experimental.tasks.getTask(ids[0]!)).ok).toBe(true);
  });

  it("sends each status change of the connection's tasks as notifications/tasks/status", async () => {
    const tasks = createTasksServer();
    const client = await connect(mountedServer(tasks));
    const seen: string[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
      seen.push(`${n.params.taskId}:${n.params.status}`);
    });
    const taskId = await startTask(client, { ms: 10 });
    await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    await expect.poll(() => seen).toContain(`${taskId}:completed`);
    // Another owner's task is not this connection's business.
    const other = await tasks.createTask({ owner: "someone-else" });
    await other.complete(text("theirs"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen.some((s) => s.startsWith(other.taskId))).toBe(false);
  });
});

describe("sdkTaskStore: a generated store behind the SDK's own task handling", () => {
  function sdkServer(store: ReturnType<typeof sdkTaskStore>): McpServer {
    const server = new McpServer(
      { name: "sdk-with-generated-store", version: "1.0.0" },
      { capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore: store, taskMessageQueue: new InMemoryTaskMessageQueue() },
    );
    server.experimental.tasks.registerToolTask(
      "compute",
      { description: "Finishes after a moment", execution: { taskSupport: "required" } },
      {
        async createTask({ taskStore, taskRequestedTtl }) {
          const task = await taskStore.createTask({ ttl: taskRequestedTtl ?? 60_000, pollInterval: 10 });
          setTimeout(() => void taskStore.storeTaskResult(task.taskId, "completed", text(`done ${task.taskId}`)).catch(() => {}), 20);
          return { task };
        },
        getTask: ({ taskId, taskStore }) => taskStore.getTask(taskId),
        getTaskResult: async ({ taskId, taskStore }) => (await taskStore.getTaskResult(taskId)) as CallToolResult,
      },
    );
    return server;
  }

  it("an McpServer with registerToolTask runs a task end to end; the generated store holds it, completed", async () => {
    const store = new InMemoryTaskStore();
    const client = await connect(sdkServer(sdkTaskStore(store)));
    const messages = [];
    for await (const message of client.experimental.tasks.callToolStream({ name: "compute", arguments: {} }, CallToolResultSchema, { task: { ttl: 30_000 } })) {
      messages.push(message);
    }
    const created = messages[0] as { type: string; task: { taskId: string } };
    expect(created.type).toBe("taskCreated");
    expect(validateCreateTaskResult({ task: created.task }).ok).toBe(true);
    const last = messages.at(-1) as { type: string; result: CallToolResult };
    expect(last.result.content).toEqual([{ type: "text", text: `done ${created.task.taskId}` }]);
    const stored = await store.get("", created.task.taskId);
    expect(stored).toMatchObject({ status: "completed", ttl: 30_000, pollInterval: 10, result: text(`done ${created.task.taskId}`) });
  });

  it("keeps the SDK's rules: a terminal task never changes, an unknown one is not found, a bad cursor is refused", async () => {
    const store = new InMemoryTaskStore();
    const bridge = sdkTaskStore(store, { maxTtl: 1_000 });
    const task = await bridge.createTask({ ttl: 60_000 }, 1, { method: "tools/call", params: {} }, "s1");
    expect(task.ttl).toBe(1_000);
    expect(await bridge.getTask(task.taskId, "s2")).toBeNull();
    await bridge.updateTaskStatus(task.taskId, "input_required", "waiting", "s1");
    expect(await bridge.getTask(task.taskId, "s1")).toMatchObject({ status: "input_required", statusMessage: "waiting" });
    await bridge.storeTaskResult(task.taskId, "failed", { ...text("broke"), isError: true }, "s1");
    await expect(bridge.updateTaskStatus(task.taskId, "working", undefined, "s1")).rejects.toThrow(/already failed/);
    await expect(bridge.storeTaskResult(task.taskId, "completed", text("late"), "s1")).rejects.toThrow(/already failed/);
    expect(await bridge.getTaskResult(task.taskId, "s1")).toEqual({ ...text("broke"), isError: true });
    await expect(bridge.getTaskResult("missing", "s1")).rejects.toThrow(/not found/);
    await expect(bridge.listTasks("not-a-cursor", "s1")).rejects.toThrow(/Invalid cursor/);
    expect((await bridge.listTasks(undefined, "s1")).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
  });

  it("concurrent writers through compare-and-set: exactly one terminal write wins", async () => {
    const store = new InMemoryTaskStore();
    const a = sdkTaskStore(store);
    const b = sdkTaskStore(store);
    const task = await a.createTask({}, 1, { method: "tools/call", params: {} });
    const outcomes = await Promise.allSettled([
      a.storeTaskResult(task.taskId, "completed", text("a")),
      b.storeTaskResult(task.taskId, "completed", text("b")),
      b.updateTaskStatus(task.taskId, "cancelled"),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const final = await store.get("", task.taskId);
    expect(final?.version).toBe(1);
  });

  it("with the sqlite-store part behind it, an SDK server's tasks survive a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-sdk-sqlite-"));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "tasks.db");
    const first = new SqliteTaskStore<StoredTask>(file);
    const client = await connect(sdkServer(sdkTaskStore(first)));
    const stream = client.experimental.tasks.callToolStream({ name: "compute", arguments: {} }, CallToolResultSchema, { task: { ttl: 60_000 } });
    const messages = [];
    for await (const message of stream) messages.push(message);
    const taskId = (messages[0] as { task: { taskId: string } }).task.taskId;
    first.close();
    // A new process: a new store on the same file, a new SDK server, a new connection.
    const second = new SqliteTaskStore<StoredTask>(file);
    closers.push(async () => second.close());
    const bridge = sdkTaskStore(second);
    expect(await bridge.getTask(taskId)).toMatchObject({ taskId, status: "completed", ttl: 60_000 });
    expect(await bridge.getTaskResult(taskId)).toEqual(text(`done ${taskId}`));
  });
});

describe("README's SDK blocks (Runtime parts › 2025-11-25 servers: inside the MCP SDK)", () => {
  it("type-check as written, under strict NodeNext settings, against the generated set and the real SDK", () => {
    const readme = readFileSync(join(projectRoot, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```ts\n(\/\/ sdk-[a-z]+\.ts)\n([\s\S]*?)```/g)].map((m) => [m[1]!.slice(3), m[2]!] as const);
    expect(blocks.map(([name]) => name)).toEqual(["sdk-mounted.ts", "sdk-store.ts", "sdk-input.ts"]);
    const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-readme-sdk-"));
    closers.push(async () => rmSync(work, { recursive: true, force: true }));
    writeFileSync(join(work, "package.json"), '{ "type": "module" }\n');
    symlinkSync(join(projectRoot, "node_modules"), join(work, "node_modules"), "dir");
    cpSync(join(projectRoot, "generated", "tasks-2025-11-25"), join(work, "generated", "mcp-tasks", "tasks-2025-11-25"), { recursive: true });
    for (const [name, code] of blocks) writeFileSync(join(work, name), code);
    const options = { ...STRICT_COMPILER_OPTIONS, types: ["node"], noEmit: true, skipLibCheck: true };
    const program = ts.createProgram(blocks.map(([name]) => join(work, name)), options);
    const problems = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName.slice(work.length + 1)}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    expect(problems).toEqual([]);
  }, 60_000);
});
