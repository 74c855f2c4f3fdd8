import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CreateMessageResultSchema,
  CreateTaskResultSchema,
  ElicitResultSchema,
  McpError,
  type CallToolResult,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { sdkClientTransport } from "../../../generated/tasks-2025-11-25/runtime/parts/sdk-client.js";
import { answerServerRequestWith } from "../../../generated/tasks-2025-11-25/runtime/client/server-requests.js";
import { formCheck } from "../../../generated/tasks-2025-11-25/runtime/client/input-answers.js";
import type { ServerRequestsProfile } from "../../../generated/tasks-2025-11-25/runtime/client/profile.js";
import { ElicitationContentInvalid, validateElicitationContent } from "../../../generated/ext-tasks-draft/elicitation.js";
import {
  createTasksClient,
  JsonRpcResponseError,
  type InputHandlers,
  type TasksClient,
} from "../../../generated/tasks-2025-11-25/index.js";

/**
 * The generated 2025-11-25 client answering the server's own requests (README › Runtime parts ›
 * Inside the MCP SDK): a task's elicitation delivered on `tasks/result`, and plain server requests,
 * reach the client's typed input handlers through the SDK adapter's `onRequest`; answers are
 * checked and completed (an accepted form's defaults) before they are sent. The peer is a real SDK
 * 1.32 `McpServer`; the SDK client itself has no handler of its own.
 */

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

/** The form of the suite's `elicitation-sep1034-client-defaults` scenario (@modelcontextprotocol/conformance 0.2.0-alpha.12): every field has a default. */
const DEFAULTS_FORM = {
  message: "Test client default value handling - please accept with defaults",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", description: "User name", default: "John Doe" },
      age: { type: "integer", description: "User age", default: 30 },
      score: { type: "number", description: "User score", default: 95.5 },
      status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
      verified: { type: "boolean", description: "Verification status", default: true },
    },
    required: [],
  },
};

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An SDK server with a task tool that asks for input (delivered only through tasks/result) and plain tools that ask directly. */
function sdkServer(): McpServer {
  const store = new InMemoryTaskStore();
  const server = new McpServer(
    { name: "sdk-peer", version: "1.0.0" },
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: store,
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    },
  );
  closers.push(async () => store.cleanup());
  server.experimental.tasks.registerToolTask(
    "ask",
    { description: "Asks the user's name (an elicitation tied to the task), then greets", execution: { taskSupport: "required" } },
    {
      async createTask({ taskStore }) {
        const task = await taskStore.createTask({ ttl: 60_000, pollInterval: 20 });
        void (async () => {
          await taskStore.updateTaskStatus(task.taskId, "input_required");
          let greeting: string;
          try {
            const answer = await server.server.request(
              { method: "elicitation/create", params: { mode: "form", message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } } },
              ElicitResultSchema,
              { relatedTask: { taskId: task.taskId } },
            );
            greeting = answer.action === "accept" ? `Hello, ${String(answer.content?.name)}!` : `No name (${answer.action})`;
          } catch (error) {
            greeting = `Refused: ${(error as McpError).code}`;
          }
          await taskStore.updateTaskStatus(task.taskId, "working");
          await taskStore.storeTaskResult(task.taskId, "completed", text(greeting));
        })();
        return { task };
      },
      getTask: ({ taskId, taskStore }) => taskStore.getTask(taskId),
      getTaskResult: async ({ taskId, taskStore }) => (await taskStore.getTaskResult(taskId)) as CallToolResult,
    },
  );
  server.registerTool("defaults", { description: "Elicits a form whose fields all have defaults" }, async () => {
    const answer = await server.server.request({ method: "elicitation/create", params: DEFAULTS_FORM }, ElicitResultSchema);
    return text(JSON.stringify(answer));
  });
  server.registerTool("sample", { description: "Asks the client's model" }, async () => {
    try {
      const answer = await server.server.request(
        { method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 } },
        CreateMessageResultSchema,
      );
      return text(`model said ${JSON.stringify(answer.content)}`);
    } catch (error) {
      return text(`sampling failed: ${(error as McpError).code}`);
    }
  });
  return server;
}

/** The generated client over an SDK client that declares what the generated client's handlers support, connected to `server`. */
async function connect(server: McpServer, inputHandlers?: InputHandlers): Promise<{ tasks: TasksClient; sdk: Client; server: McpServer }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sdk = new Client({ name: "generated-client-test", version: "1.0.0" });
  // The client's own tasks suggest a short poll interval, so the SDK server's polls are quick.
  const tasks = createTasksClient({ ...sdkClientTransport(sdk), ...(inputHandlers ? { inputHandlers } : {}), minPollMs: 5, taskReceiver: { pollInterval: 20 } });
  sdk.registerCapabilities(tasks.capabilities());
  await Promise.all([server.connect(serverSide), sdk.connect(clientSide)]);
  closers.push(async () => {
    tasks.close();
    await sdk.close();
    await server.close();
  });
  return { tasks, sdk, server };
}

const form = (properties: object) => ({ mode: "form", message: "?", requestedSchema: { type: "object", properties } });
const firstText = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;

describe("2025-11-25 client: the server's own requests, answered by the input handlers", () => {
  it("a task's elicitation, delivered on tasks/result, is answered by the wait's handler, with the task it belongs to", async () => {
    const { tasks } = await connect(sdkServer(), { "elicitation/create": () => ({ action: "decline" }) });
    const seen: { taskId: string; message: unknown }[] = [];
    const result = await tasks.callTool(
      { name: "ask" },
      {
        task: {},
        signal: AbortSignal.timeout(10_000),
        inputHandlers: {
          "elicitation/create": (params, context) => {
            seen.push({ taskId: context.taskId, message: params.message });
            return { action: "accept", content: { name: "Ada" } };
          },
        },
        onTaskCreated: (task) => seen.push({ taskId: task.taskId, message: "created" }),
      },
    );
    expect(firstText(result)).toBe("Hello, Ada!");
    // The wait's handler answered, not the client's, and knew which task asked.
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual({ taskId: seen[0]!.taskId, message: "Your name?" });
  });

  it("without a wait's handler the client's handler answers; without any, the elicitation is cancelled", async () => {
    const server = sdkServer();
    const { tasks } = await connect(server, { "elicitation/create": () => ({ action: "accept", content: { name: "Grace" } }) });
    expect(firstText(await tasks.callTool({ name: "ask" }, { task: {}, signal: AbortSignal.timeout(10_000) }))).toBe("Hello, Grace!");
    const bare = await connect(sdkServer());
    expect(firstText(await bare.tasks.callTool({ name: "ask" }, { task: {}, signal: AbortSignal.timeout(10_000) }))).toBe("No name (cancel)");
  });

  it("fills an accepted form's defaults the handler left out (SEP-1034), the handler's own values winning", async () => {
    const { tasks } = await connect(sdkServer(), { "elicitation/create": () => ({ action: "accept", content: { name: "Ada" } }) });
    const answer = JSON.parse(firstText(await tasks.callTool({ name: "defaults" }))) as ElicitResult;
    expect(answer).toEqual({ action: "accept", content: { name: "Ada", age: 30, score: 95.5, status: "active", verified: true } });
  });

  it("a handler's error reaches the server as its JSON-RPC error; a method with no handler is -32601; an answer that is no object is -32603 and reported", async () => {
    const errors: unknown[] = [];
    const server = sdkServer();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const sdk = new Client({ name: "c", version: "1.0.0" });
    const tasks = createTasksClient({
      ...sdkClientTransport(sdk),
      onError: (error) => errors.push(error),
      inputHandlers: {
        "elicitation/create": () => {
          throw new JsonRpcResponseError("elicitation/create", -32050, "the user closed the window");
        },
        "sampling/createMessage": () => "not an object" as never,
      },
    });
    sdk.registerCapabilities(tasks.capabilities());
    await Promise.all([server.connect(serverSide), sdk.connect(clientSide)]);
    closers.push(async () => {
      tasks.close();
      await sdk.close();
      await server.close();
    });
    expect(firstText(await tasks.callTool({ name: "ask" }, { task: {}, signal: AbortSignal.timeout(10_000) }))).toBe("Refused: -32050");
    expect(firstText(await tasks.callTool({ name: "sample" }))).toBe("sampling failed: -32603");
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/an answer must be an object/);

    const { tasks: noSampling } = await connect(sdkServer(), { "elicitation/create": () => ({ action: "decline" }) });
    expect(firstText(await noSampling.callTool({ name: "sample" }))).toBe("sampling failed: -32601");
  });

  it("declares a capability only for the methods it has handlers for", async () => {
    const { tasks: none } = await connect(sdkServer());
    expect(none.capabilities()).toEqual({});
    const { tasks: elicits } = await connect(sdkServer(), { "elicitation/create": () => ({ action: "decline" }) });
    const receiving = { list: {}, cancel: {} };
    expect(elicits.capabilities()).toEqual({ elicitation: { form: {} }, tasks: { ...receiving, requests: { elicitation: { create: {} } } } });
    const { tasks: both, server } = await connect(sdkServer(), {
      "elicitation/create": () => ({ action: "decline" }),
      "sampling/createMessage": () => ({ role: "assistant", content: { type: "text", text: "" }, model: "m" }),
    });
    const declared = {
      elicitation: { form: {} },
      sampling: {},
      tasks: { ...receiving, requests: { elicitation: { create: {} }, sampling: { createMessage: {} } } },
    };
    expect(both.capabilities()).toEqual(declared);
    // What the SDK client declared in initialize is what the generated client said.
    expect(server.server.getClientCapabilities()).toEqual(declared);
  });
});

describe("answering a server request: an accepted form is checked against the form it answers", () => {
  // The 2025-11-25 set gets its form check once it defines the elicitation types; the engine's check is the same for every set, shown here with the e434597 set's form validator.
  const profile: ServerRequestsProfile = {
    routing: { "elicitation/create": { params: true, cancelByDefault: true } },
    capabilities: { "elicitation/create": { elicitation: { form: {} } } },
    forms: formCheck("elicitation/create", validateElicitationContent, ElicitationContentInvalid),
  };
  const form = { message: "Age?", requestedSchema: { type: "object", properties: { age: { type: "integer", minimum: 0 } }, required: ["age"] } };
  const answer = (content: unknown, reported: unknown[]) =>
    answerServerRequestWith(
      profile,
      { "elicitation/create": () => ({ action: "accept", content }) },
      { id: 7, method: "elicitation/create", params: form },
      { taskId: "", signal: new AbortController().signal, report: (error) => reported.push(error) },
    );

  it("a form that does not fit is not sent: the server gets -32603, onError the ElicitationContentInvalid with the field's error", async () => {
    const reported: unknown[] = [];
    const error = await answer({ age: -3 }, reported).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcResponseError);
    expect((error as JsonRpcResponseError).code).toBe(-32603);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(ElicitationContentInvalid);
    expect((reported[0] as ElicitationContentInvalid).errors.map((e) => e.path)).toEqual(["/age"]);
    // A missing required field is refused too.
    await expect(answer({}, [])).rejects.toMatchObject({ code: -32603 });
  });

  it("a form that fits is sent as it is", async () => {
    expect(await answer({ age: 41 }, [])).toEqual({ action: "accept", content: { age: 41 } });
  });
});

describe("2025-11-25 client as a task receiver: the server's elicitation as a task", () => {
  /** Elicits as a task through the SDK server's own stream (it checks the client's tasks capability, polls tasks/get, reads tasks/result). */
  function elicitAsTask(server: McpServer) {
    return async () => {
      const seen: string[] = [];
      let answer: unknown;
      for await (const message of server.server.experimental.tasks.elicitInputStream(
        { mode: "form", message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
        { task: { ttl: 60_000 } },
      )) {
        seen.push(message.type === "taskStatus" ? `status:${message.task.status}` : message.type);
        if (message.type === "result") answer = message.result;
        if (message.type === "error") answer = { error: message.error.message };
      }
      return { seen, answer };
    };
  }

  it("runs the handler as a task: answered { task } at once, then tasks/get and tasks/result, the result carrying the related-task _meta", async () => {
    const server = sdkServer();
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let handlerTaskId = "";
    const { tasks } = await connect(server, {
      "elicitation/create": async (_params, context) => {
        handlerTaskId = context.taskId;
        await released;
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    expect(tasks.capabilities()).toEqual({
      elicitation: { form: {} },
      tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} } } },
    });
    const running = elicitAsTask(server)();
    // While the handler waits, the server sees the client's task working.
    await expect.poll(async () => (await server.server.experimental.tasks.listTasks()).tasks.map((t) => t.status)).toEqual(["working"]);
    release();
    const { seen, answer } = await running;
    expect(seen[0]).toBe("taskCreated");
    expect(seen).toContain("status:completed");
    expect(answer).toMatchObject({ action: "accept", content: { name: "Ada" } });
    const [task] = (await server.server.experimental.tasks.listTasks()).tasks;
    expect((answer as { _meta?: Record<string, unknown> })._meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId: task!.taskId });
    // The handler knew which of the client's tasks it was running.
    expect(handlerTaskId).toBe(task!.taskId);
  });

  it("a sampling request sent as a task: its handler's answer is the task's result; a handler's error fails the task", async () => {
    const server = sdkServer();
    let calls = 0;
    await connect(server, {
      "elicitation/create": () => ({ action: "decline" }),
      "sampling/createMessage": () => {
        if (++calls === 2) throw new JsonRpcResponseError("sampling/createMessage", -32050, "no model today");
        return { role: "assistant", content: { type: "text", text: "a poem" }, model: "test-model" };
      },
    });
    const sample = async () => {
      const out: string[] = [];
      for await (const message of server.server.experimental.tasks.createMessageStream(
        { messages: [{ role: "user", content: { type: "text", text: "a poem" } }], maxTokens: 20 },
        { task: { ttl: 60_000 } },
      )) {
        if (message.type === "taskStatus") out.push(message.task.status);
        if (message.type === "result") out.push(`result:${JSON.stringify(message.result.content)}`);
        if (message.type === "error") out.push("error");
      }
      return out;
    };
    expect(await sample()).toContain(`result:${JSON.stringify({ type: "text", text: "a poem" })}`);
    const failed = await sample();
    expect(failed).toContain("failed");
    expect(failed.at(-1)).toBe("error");
    const listed = (await server.server.experimental.tasks.listTasks()).tasks.map((t) => t.status);
    expect(listed).toEqual(["completed", "failed"]);
  });

  it("tasks/cancel from the server cancels the client's task and aborts its handler; an unknown task is -32602", async () => {
    const server = sdkServer();
    let aborted = false;
    await connect(server, {
      "elicitation/create": (_params, context) =>
        new Promise((_resolve, reject) =>
          context.signal.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("cancelled"));
          }),
        ),
    });
    const created = (await server.server.request(
      { method: "elicitation/create", params: { mode: "form", message: "?", requestedSchema: { type: "object", properties: {} }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    )) as { task: { taskId: string; status: string } };
    expect(created.task.status).toBe("working");
    const cancelled = await server.server.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled.status).toBe("cancelled");
    await expect.poll(() => aborted).toBe(true);
    expect((await server.server.experimental.tasks.getTask(created.task.taskId)).status).toBe("cancelled");
    await expect(server.server.experimental.tasks.getTask("no-such-task")).rejects.toMatchObject({ code: -32602 });
  });

  it("a request sent as a task for a method without a handler is answered as a plain request (no task is created)", async () => {
    // The SDK server refuses to send it (the client never declared it), so it is handed to the client directly.
    const { tasks } = await connect(sdkServer(), { "elicitation/create": () => ({ action: "decline" }) });
    const sampling = { id: 1, method: "sampling/createMessage", params: { messages: [], maxTokens: 1, task: { ttl: 1000 } } };
    await expect(tasks.answerServerRequest(sampling)).rejects.toMatchObject({ code: -32601 });
    expect(await tasks.answerServerRequest({ id: 2, method: "tasks/list", params: {} })).toMatchObject({ tasks: [] });
    // The one it declared does run as a task.
    const created = await tasks.answerServerRequest({ id: 3, method: "elicitation/create", params: { ...form({}), task: { ttl: 1000 } } });
    expect(created).toMatchObject({ task: { status: "working", ttl: 1000 } });
  });

  it("declares no tasks capability without handlers, nor with taskReceiver: false (and the SDK server then refuses to send a task)", async () => {
    const { tasks: none } = await connect(sdkServer());
    expect(none.capabilities()).toEqual({});
    const server = sdkServer();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const sdk = new Client({ name: "c", version: "1.0.0" });
    const tasks = createTasksClient({ ...sdkClientTransport(sdk), taskReceiver: false, inputHandlers: { "elicitation/create": () => ({ action: "decline" }) } });
    expect(tasks.capabilities()).toEqual({ elicitation: { form: {} } });
    sdk.registerCapabilities(tasks.capabilities());
    await Promise.all([server.connect(serverSide), sdk.connect(clientSide)]);
    closers.push(async () => {
      tasks.close();
      await sdk.close();
      await server.close();
    });
    const { answer } = await elicitAsTask(server)();
    expect(String((answer as { error?: string }).error)).toMatch(/does not support task creation for elicitation\/create|task/i);
  });
});
