import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  McpError,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { mountTasksServer } from "../../../generated/tasks-2025-11-25/runtime/parts/sdk-server.js";
import { sdkClientTransport } from "../../../generated/tasks-2025-11-25/runtime/parts/sdk-client.js";
import {
  createTasksClient,
  createTasksServer,
  InMemoryTaskStore,
  JsonRpcError,
  RELATED_TASK_META,
  type StoredTask,
  type TaskHandle,
  type TasksServer,
} from "../../../generated/tasks-2025-11-25/index.js";

/**
 * The 2025-11-25 server's `requireInput` (README › Runtime parts › Inside the MCP SDK): a task asks
 * its client for input with a request of its own, shows `input_required`, and `tasks/result`
 * delivers the request (tied to the task by the related-task `_meta`) on its response stream; the
 * answer resolves `requireInput`. The peer is the real SDK 1.32 client, whose `callToolStream`
 * calls `tasks/result` on `input_required` and answers with its own request handlers.
 */

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

/** What the tool's task code does with its handle, per test. */
type Work = (task: TaskHandle) => Promise<void>;

function inputServer(tasks: TasksServer, work: Work): Server {
  const server = new Server(
    { name: "asks", version: "1.0.0" },
    { capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } },
  );
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const task = await tasks.createTask({ owner: "" }, { ttl: request.params.task?.ttl ?? null });
    void work(task).catch((error: unknown) =>
      task.fail({ code: -32603, message: error instanceof Error ? error.message : String(error) }).catch(() => {}),
    );
    return task.createResult;
  });
  mountTasksServer(server, tasks);
  return server;
}

interface Peer {
  readonly client: Client;
  /** Every request the client received, with its params. */
  readonly received: { method: string; params: Record<string, unknown> }[];
}

async function connect(server: Server, answers: { elicit?: () => unknown; sample?: () => unknown }): Promise<Peer> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "sdk-client", version: "1.0.0" }, { capabilities: { elicitation: { form: {} }, sampling: {} } });
  const received: Peer["received"] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    received.push({ method: request.method, params: request.params as Record<string, unknown> });
    return (answers.elicit ?? (() => ({ action: "decline" })))() as never;
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    received.push({ method: request.method, params: request.params as Record<string, unknown> });
    return (answers.sample ?? (() => ({ role: "assistant", content: { type: "text", text: "" }, model: "m" })))() as never;
  });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return { client, received };
}

/** Runs the tool as a task through the SDK client's stream: every status it saw, and the result. */
async function runTool(client: Client): Promise<{ statuses: string[]; taskId: string; result: CallToolResult }> {
  const statuses: string[] = [];
  let taskId = "";
  for await (const message of client.experimental.tasks.callToolStream({ name: "ask", arguments: {} }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  })) {
    if (message.type === "taskCreated") taskId = message.task.taskId;
    if (message.type === "taskStatus") statuses.push(message.task.status);
    if (message.type === "result") return { statuses, taskId, result: message.result as CallToolResult };
    if (message.type === "error") throw message.error;
  }
  throw new Error("the stream ended without a result");
}

const form = {
  mode: "form" as const,
  message: "Your name?",
  requestedSchema: { type: "object" as const, properties: { name: { type: "string" as const } }, required: ["name"] },
};

describe("requireInput on a 2025-11-25 server mounted in the SDK", () => {
  it("an elicitation reaches the SDK client on tasks/result with the related-task _meta; its answer resolves requireInput and the task completes", async () => {
    const tasks = createTasksServer({ pollInterval: 10 });
    const { client, received } = await connect(
      inputServer(tasks, async (task) => {
        const answer = await task.requireInput("name", { method: "elicitation/create", params: form });
        await task.complete(text(`Hello, ${String((answer.content as { name?: unknown } | undefined)?.name)}!`));
      }),
      { elicit: () => ({ action: "accept", content: { name: "Ada" } }) },
    );
    const { statuses, taskId, result } = await runTool(client);
    expect(statuses).toContain("input_required");
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
    expect(received).toHaveLength(1);
    expect(received[0]!.method).toBe("elicitation/create");
    expect(received[0]!.params.message).toBe("Your name?");
    expect((received[0]!.params._meta as Record<string, unknown>)[RELATED_TASK_META]).toEqual({ taskId });
  });

  it("two requests in turn (elicitation, then sampling), each answered once; the task works again between them", async () => {
    const tasks = createTasksServer({ pollInterval: 10 });
    const seen: string[] = [];
    tasks.subscribe((n) => seen.push(n.params.status));
    const { client, received } = await connect(
      inputServer(tasks, async (task) => {
        const name = await task.requireInput("name", { method: "elicitation/create", params: form });
        const poem = await task.requireInput("poem", {
          method: "sampling/createMessage",
          params: { messages: [{ role: "user", content: { type: "text", text: `A poem for ${String((name.content as { name: string }).name)}` } }], maxTokens: 50 },
        });
        await task.complete(text(String((poem.content as { text?: unknown }).text)));
      }),
      {
        elicit: () => ({ action: "accept", content: { name: "Ada" } }),
        sample: () => ({ role: "assistant", content: { type: "text", text: "Roses for Ada" }, model: "test-model" }),
      },
    );
    const { result } = await runTool(client);
    expect(result.content).toEqual([{ type: "text", text: "Roses for Ada" }]);
    expect(received.map((r) => r.method)).toEqual(["elicitation/create", "sampling/createMessage"]);
    // working → input_required → working → input_required → working → completed
    expect(seen.filter((s, i) => s !== seen[i - 1])).toEqual(["working", "input_required", "working", "input_required", "working", "completed"]);
  });

  it("a JSON-RPC error from the client rejects requireInput with it (its code and message)", async () => {
    const tasks = createTasksServer({ pollInterval: 10 });
    const outcomes: unknown[] = [];
    const { client } = await connect(
      inputServer(tasks, async (task) => {
        await task.requireInput("a", { method: "elicitation/create", params: form }).catch((e: JsonRpcError) => outcomes.push([e.code, e.message]));
        await task.complete(text("done"));
      }),
      {
        elicit: () => {
          // Not -32000/-32001: the SDK raises those itself (connection closed, timeout), so they mean the client is gone.
          throw new McpError(-32050, "the user closed the window");
        },
      },
    );
    const { result } = await runTool(client);
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(outcomes).toEqual([[-32050, "the user closed the window"]]);
  });

  it("an answer that is not an object is recorded as -32602; a transport failure leaves the request pending for the next tasks/result", async () => {
    const tasks = createTasksServer({ pollInterval: 10 });
    const task = await tasks.createTask({});
    const asked = task.requireInput("a", { method: "elicitation/create", params: form });
    const result = (sendRequest: (request: { method: string; params: Record<string, unknown> }) => Promise<unknown>, signal?: AbortSignal) =>
      tasks.handle({ jsonrpc: "2.0", id: 1, method: "tasks/result", params: { taskId: task.taskId } }, { sendRequest: sendRequest as never, ...(signal ? { signal } : {}) });
    // The client goes away mid-request: nothing is recorded, the task still waits for input.
    const gone = new AbortController();
    const first = result(async () => {
      gone.abort();
      throw new Error("connection reset");
    }, gone.signal);
    expect(await first).toMatchObject({ error: { code: -32603 } });
    expect((await tasks.handle({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { taskId: task.taskId } }))).toMatchObject({ result: { status: "input_required" } });
    // The next tasks/result delivers it again; this client answers something that is not an object.
    const second = result(async (request) => {
      expect(request.method).toBe("elicitation/create");
      return "yes" as never;
    });
    await expect(asked).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/^elicitation\/create: invalid answer from the client/) });
    await task.complete(text("done"));
    expect(await second).toMatchObject({ result: { content: [{ type: "text", text: "done" }] } });
  });

  it("two tasks/result at once deliver a pending request once; two pending requests go out together", async () => {
    const tasks = createTasksServer({ pollInterval: 10 });
    const task = await tasks.createTask({});
    const sent: string[] = [];
    let answer: (value: object) => void = () => {};
    const answered = new Promise<object>((resolve) => (answer = resolve));
    const sendRequest = async (request: { method: string; params: Record<string, unknown> }) => {
      sent.push(String(request.params.message));
      return answered;
    };
    const result = (id: number) => tasks.handle({ jsonrpc: "2.0", id, method: "tasks/result", params: { taskId: task.taskId } }, { sendRequest: sendRequest as never });
    const both = [result(1), result(2)];
    const a = task.requireInput("a", { method: "elicitation/create", params: { ...form, message: "A?" } });
    const b = task.requireInput("b", { method: "elicitation/create", params: { ...form, message: "B?" } });
    await expect.poll(() => sent.length).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sent.sort()).toEqual(["A?", "B?"]);
    answer({ action: "decline" });
    expect(await Promise.all([a, b])).toEqual([{ action: "decline" }, { action: "decline" }]);
    await task.complete(text("done"));
    for (const response of await Promise.all(both)) expect(response).toMatchObject({ result: { content: [{ type: "text", text: "done" }] } });
  });

  it("refuses a request it cannot deliver before the task changes: an unknown method, params that are not an object, a key used twice", async () => {
    const tasks = createTasksServer();
    const task = await tasks.createTask({});
    // @ts-expect-error roots/list is not a method a task of this revision sends
    await expect(task.requireInput("r", { method: "roots/list", params: {} })).rejects.toThrow(/elicitation\/create, sampling\/createMessage/);
    // @ts-expect-error params must be an object
    await expect(task.requireInput("p", { method: "elicitation/create", params: "hello" })).rejects.toThrow(/invalid elicitation\/create params/);
    const first = task.requireInput("k", { method: "elicitation/create", params: form });
    await expect(task.requireInput("k", { method: "elicitation/create", params: form })).rejects.toThrow(/already used/);
    // Only the first request was stored and made the task wait.
    const shown = await tasks.handle({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: task.taskId } });
    expect(shown).toMatchObject({ result: { status: "input_required" } });
    await task.complete(text("gave up"));
    await expect(first).rejects.toThrow(/already completed/);
  });

  it("a durable answer: a handle resumed after the request was answered reads it with input(key)", async () => {
    const store = new InMemoryTaskStore();
    const tasks = createTasksServer({ store, pollInterval: 10 });
    let resumed: unknown;
    let record: StoredTask | undefined;
    const { client } = await connect(
      inputServer(tasks, async (task) => {
        await task.requireInput("name", { method: "elicitation/create", params: form });
        // As if another process picked the task up after a restart.
        const again = await tasks.resumeTask({ owner: "" }, task.taskId);
        resumed = await again!.input("name");
        record = await store.get("", task.taskId);
        await task.complete(text("ok"));
      }),
      { elicit: () => ({ action: "accept", content: { name: "Grace" } }) },
    );
    await runTool(client);
    expect(resumed).toEqual({ action: "accept", content: { name: "Grace" } });
    // The answer is in the record, the request no longer pending, the task working again.
    expect(record?.status).toBe("working");
    expect(record?.inputResponses).toEqual({ name: { action: "accept", content: { name: "Grace" } } });
    expect(record?.inputRequests).toEqual({});
  });

  it("both ends generated (each inside the SDK): the generated client's wait handler answers the task's elicitation and the task completes with the answer", async () => {
    const tasks = createTasksServer({ pollInterval: 10 });
    const server = inputServer(tasks, async (task) => {
      const answer = await task.requireInput("name", { method: "elicitation/create", params: form });
      await task.complete(text(`Hello, ${String((answer.content as { name?: unknown } | undefined)?.name)}!`));
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const sdk = new Client({ name: "generated", version: "1.0.0" });
    const client = createTasksClient({ ...sdkClientTransport(sdk), minPollMs: 5 });
    sdk.registerCapabilities({ elicitation: { form: {} } });
    await sdk.connect(clientSide);
    closers.push(async () => {
      client.close();
      await sdk.close();
      await server.close();
    });
    const result = await client.callTool(
      { name: "ask" },
      {
        task: {},
        signal: AbortSignal.timeout(10_000),
        inputHandlers: { "elicitation/create": (params) => ({ action: "accept", content: { name: params.message === "Your name?" ? "Ada" : "?" } }) },
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
  });
});
