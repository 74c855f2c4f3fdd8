import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as pinned from "../../../generated/ext-tasks-2026-05-22/index.js";
import type { InputHandlers, TasksClient, TasksClientRequest, TasksClientSend, TaskSnapshot } from "../../../generated/ext-tasks-2026-05-22/index.js";
import * as pinnedServer from "../../../generated/ext-tasks-2026-05-22/server.js";
import type { TaskHandle, TasksServer } from "../../../generated/ext-tasks-2026-05-22/server.js";
import type { InputRequest } from "../../../generated/ext-tasks-2026-05-22/types.js";
import * as newest from "../../../generated/ext-tasks-draft/index.js";
import * as newestServer from "../../../generated/ext-tasks-draft/server.js";

/**
 * End to end, in process: the generated ext-tasks (SEP-2663) client against the generated
 * ext-tasks server of the same set. The client's `send` is the server's JSON-RPC handler, except
 * for `tools/call`, which a few test tools answer the way a tool author would with the server's
 * `createTask`. Every task request the server accepts proves the client declared the extension
 * (the server answers -32021 otherwise) and sent params the server's validators accept.
 *
 * The same flows run on both bundled revisions of the extension: the newest (`ext-tasks-draft`,
 * 2026-08-21, whose schema models `resultType`, `_meta` and the input unions) and the pinned
 * 2026-05-22 one. Each set has its own classes, so each revision brings its own. The tests are
 * typed against the pinned set's declarations; what differs between the two is tested apart below.
 */

/** What a test needs of one revision's generated set. */
interface RevisionUnderTest {
  readonly name: string;
  readonly createTasksClient: typeof pinned.createTasksClient;
  readonly createTasksServer: typeof pinnedServer.createTasksServer;
  readonly JsonRpcResponseError: typeof pinned.JsonRpcResponseError;
  readonly TaskCancelledError: typeof pinned.TaskCancelledError;
  readonly TaskFailedError: typeof pinned.TaskFailedError;
  readonly ValidationFailed: typeof pinned.ValidationFailed;
  /** What `tasks/cancel` acknowledges with, as the client returns it. */
  readonly cancelAck: JsonObject;
}

type JsonObject = { [key: string]: unknown };

const setOf = (name: string, index: object, serverModule: object, cancelAck: JsonObject): RevisionUnderTest =>
  ({ name, ...index, ...serverModule, cancelAck }) as RevisionUnderTest;
// The newest schema's CancelTaskResult declares `resultType: "complete"`, so its acknowledgement carries it.
const NEWEST = setOf("ext-tasks-draft (2026-08-21)", newest, newestServer, { resultType: "complete" });
const PINNED = setOf("ext-tasks-2026-05-22", pinned, pinnedServer, {});

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

/** A fresh server and a client whose `send` reaches it, before each test of a revision's describe block. */
function connect(rev: RevisionUnderTest): void {
  beforeEach(() => {
    server = rev.createTasksServer({ pollInterval: 10 });
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
    client = rev.createTasksClient({
      send,
      onNotification: (listener) => server.subscribe((notification) => listener(notification)),
      minPollMs: 5,
    });
  });

  afterEach(() => {
    client.close();
    server.close();
  });
}

describe.each([NEWEST, PINNED])("$name: ext-tasks client against the generated ext-tasks server", (rev) => {
  const { JsonRpcResponseError, TaskCancelledError, TaskFailedError } = rev;
  connect(rev);

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
    expect((error as pinned.TaskFailedError).error).toEqual({ code: -32603, message: "boom", data: { where: "explode" } });
  });

  it("cancelling through the client ends the wait with TaskCancelledError (cancel answers an empty ack)", async () => {
    const start = await client.startToolCall({ name: "slow" });
    if (start.kind !== "task") throw new Error("expected a task");
    const waiting = client.waitForTask(start.task.taskId);
    expect(await client.cancelTask({ taskId: start.task.taskId })).toEqual(rev.cancelAck);
    await expect(waiting).rejects.toBeInstanceOf(TaskCancelledError);
    // Cancelling a finished task is the same acknowledgement in this revision.
    expect(await client.cancelTask({ taskId: start.task.taskId })).toEqual(rev.cancelAck);
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

});

describe("ext-tasks-2026-05-22: a schema that closes its results", () => {
  const { ValidationFailed } = PINNED;
  connect(PINNED);

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
    expect((error as pinned.ValidationFailed).errors[0]).toMatchObject({ path: "/_meta/io.modelcontextprotocol~1related-task/taskId", keyword: "required" });
  });
});

describe("ext-tasks-draft (2026-08-21): resultType, _meta and input read from the schema", () => {
  const { ValidationFailed } = NEWEST;
  connect(NEWEST);
  const withoutTag = ({ resultType: _tag, ...rest }: JsonObject): JsonObject => rest;

  it("a plain tools/call result is complete, not a task", async () => {
    const start = await client.startToolCall({ name: "quick" });
    expect(start).toEqual({ kind: "complete", result: text("quick answer") });
    // The tool is looked up first (its x-mcp-header annotations decide the call's headers).
    expect(sent.map((r) => r.method)).toEqual(["tools/list", "tools/call"]);
  });

  it("the server always sends resultType: task on the created task, complete on every other result", async () => {
    const seen: [string, unknown][] = [];
    decorate = (result, request) => (seen.push([request.method, result.resultType]), result);
    await client.callTool({ name: "greet" }, { inputHandlers: { "elicitation/create": () => ({ action: "accept", content: { name: "Ada" } }) } });
    await client.cancelTask({ taskId: String((await client.startToolCall({ name: "slow" }) as { task: { taskId: string } }).task.taskId) });
    const methods = new Set(seen.map(([method]) => method));
    expect([...methods].sort()).toEqual(["tasks/cancel", "tasks/get", "tasks/update", "tools/call"]);
    for (const [method, tag] of seen) expect(tag, method).toBe(method === "tools/call" ? "task" : "complete");
  });

  it("a result without resultType, from an older server, is read as complete (the schema requires it; the specification text does not)", async () => {
    decorate = withoutTag;
    // Read as complete, it is checked as the tool's CallToolResult, which a created task is not.
    await expect(client.startToolCall({ name: "slow" })).rejects.toThrow(ValidationFailed);
    await expect(client.startToolCall({ name: "slow" })).rejects.toThrow('invalid CallToolResult: /content: missing required property "content"');
    decorate = (result, request) => (request.method === "tools/call" ? { ...withoutTag(result), content: [] } : withoutTag(result));
    const start = await client.startToolCall({ name: "slow" });
    // Untagged, a created task would be a complete result: it is the tool's answer, handed back as such.
    expect(start.kind).toBe("complete");
    const taskId = String((start as { result: JsonObject }).result.taskId);
    const task = await client.getTask({ taskId });
    expect(task).toMatchObject({ taskId, status: "working", resultType: "complete" });
    expect(await client.cancelTask({ taskId })).toEqual({ resultType: "complete" });
  });

  it("a task method answering resultType: task is an invalid response", async () => {
    decorate = (result, request) => (request.method === "tasks/get" ? { ...result, resultType: "task" } : result);
    const start = await client.startToolCall({ name: "slow" });
    if (start.kind !== "task") throw new Error("expected a task");
    expect("resultType" in start.task).toBe(false);
    await expect(client.getTask({ taskId: start.task.taskId })).rejects.toThrow('resultType is "task", expected "complete"');
  });

  it("_meta is the schema's ResultMetaObject: serverInfo is accepted as written and checked", async () => {
    const start = await client.startToolCall({ name: "slow" });
    if (start.kind !== "task") throw new Error("expected a task");
    const serverInfo = { name: "example-server", version: "1.0.0" };
    decorate = (result) => ({ ...result, _meta: { "io.modelcontextprotocol/serverInfo": serverInfo, trace: "abc" } });
    const task = await client.getTask({ taskId: start.task.taskId });
    expect(task._meta).toEqual({ "io.modelcontextprotocol/serverInfo": serverInfo, trace: "abc" });
    decorate = (result) => ({ ...result, _meta: { "io.modelcontextprotocol/serverInfo": { name: "example-server" } } });
    const error = await client.getTask({ taskId: start.task.taskId }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as pinned.ValidationFailed).errors.map((e) => e.path)).toContain("/_meta/io.modelcontextprotocol~1serverInfo/version");
  });
});
