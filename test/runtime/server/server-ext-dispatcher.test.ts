import { describe, expect, it } from "vitest";
import {
  createTasksServer,
  InMemoryTaskStore,
  TASKS_EXTENSION,
  TaskLimitError,
  TaskStateError,
  type JsonRpcResponse,
  type TaskStore,
  type TasksServer,
  type TransportContext,
} from "../../../generated/ext-tasks-draft/server.js";
import type { InputRequest, TaskStatusNotification } from "../../../generated/ext-tasks-draft/types.js";
import { EXTENSION_META } from "../../support/task-store-contract.js";

/**
 * The generated ext-tasks (SEP-2663) server, driven through its JSON-RPC handler the way a
 * transport would: every answer below is what a client would receive.
 */


let nextId = 1;
async function call(server: TasksServer, method: string, params: object, transport?: TransportContext, meta: object = EXTENSION_META) {
  const response = await server.handle({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: meta } }, transport);
  if (!response) throw new Error("a request got no response");
  return response;
}

function result(response: JsonRpcResponse): Record<string, unknown> {
  if (!("result" in response)) throw new Error(`expected a result, got error ${JSON.stringify(response.error)}`);
  return response.result as Record<string, unknown>;
}

function errorOf(response: JsonRpcResponse) {
  if (!("error" in response)) throw new Error(`expected an error, got ${JSON.stringify(response.result)}`);
  return response.error;
}

// The form has the field the tests answer: the server judges an accepted form's content by the form (form-answers.ts).
const ask = (message: string): InputRequest => ({ method: "elicitation/create", params: { message, requestedSchema: { type: "object", properties: { n: { type: "number" } } } } });

describe("ext-tasks server: tasks/get", () => {
  it("shows each status with what it inlines, and resultType complete", async () => {
    const server = createTasksServer();
    const working = await server.createTask({});
    const created = working.createResult;
    expect(created).toMatchObject({ resultType: "task", taskId: working.taskId, status: "working", ttlMs: 3_600_000, pollIntervalMs: 1000 });
    expect(Object.keys(created)).not.toContain("result");

    expect(result(await call(server, "tasks/get", { taskId: working.taskId }))).toEqual({
      resultType: "complete",
      taskId: working.taskId,
      status: "working",
      createdAt: created.createdAt,
      lastUpdatedAt: expect.any(String),
      ttlMs: 3_600_000,
      pollIntervalMs: 1000,
    });

    void working.requireInput("confirm", ask("Sure?"));
    await waitForStatus(server, working.taskId, "input_required");
    expect(result(await call(server, "tasks/get", { taskId: working.taskId }))).toMatchObject({
      status: "input_required",
      inputRequests: { confirm: ask("Sure?") },
    });

    const done = await server.createTask({});
    await done.complete({ content: [{ type: "text", text: "oops" }], isError: true });
    const completed = result(await call(server, "tasks/get", { taskId: done.taskId }));
    // A tool error is still a completed task: `failed` is only for JSON-RPC errors.
    expect(completed).toMatchObject({ status: "completed", result: { isError: true } });
    expect(completed).not.toHaveProperty("error");

    const broken = await server.createTask({});
    await broken.fail({ code: -32603, message: "crashed", data: { at: "step 2" } });
    const failed = result(await call(server, "tasks/get", { taskId: broken.taskId }));
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603, message: "crashed", data: { at: "step 2" } } });
    expect(failed).not.toHaveProperty("result");
  });

  it("answers -32602 alike for unknown, expired and other owners' tasks", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const server = createTasksServer({ now: () => now, defaultTtl: 1000 });
    const mine = await server.createTask({ owner: "alice" });
    const alice = { owner: "alice" };

    expect(result(await call(server, "tasks/get", { taskId: mine.taskId }, alice)).status).toBe("working");
    const errors = [
      errorOf(await call(server, "tasks/get", { taskId: "no-such-task" }, alice)),
      errorOf(await call(server, "tasks/get", { taskId: mine.taskId }, { owner: "bob" })),
      errorOf(await call(server, "tasks/cancel", { taskId: mine.taskId }, { owner: "bob" })),
      errorOf(await call(server, "tasks/update", { taskId: mine.taskId, inputResponses: {} }, { owner: "bob" })),
    ];
    now += 1000; // the TTL runs out
    errors.push(errorOf(await call(server, "tasks/get", { taskId: mine.taskId }, alice)));
    // Identical answers: nothing tells a foreign or expired task from one that never existed.
    for (const error of errors) expect(error).toEqual({ code: -32602, message: "Task not found" });
  });
});

describe("ext-tasks server: gatekeeping", () => {
  it("answers -32021 with requiredCapabilities when the request does not declare the extension", async () => {
    const server = createTasksServer();
    const task = await server.createTask({});
    for (const meta of [{}, { "io.modelcontextprotocol/clientCapabilities": {} }, { "io.modelcontextprotocol/clientCapabilities": { extensions: {} } }]) {
      for (const [method, params] of [
        ["tasks/get", { taskId: task.taskId }],
        ["tasks/cancel", { taskId: task.taskId }],
        ["tasks/update", { taskId: task.taskId, inputResponses: {} }],
      ] as const) {
        expect(errorOf(await call(server, method, params, undefined, meta))).toEqual({
          code: -32021,
          message: expect.stringContaining(TASKS_EXTENSION),
          data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        });
      }
    }
    // The capability is judged per request: declaring it once does not open later requests.
    expect(result(await call(server, "tasks/get", { taskId: task.taskId })).status).toBe("working");
    expect(errorOf(await call(server, "tasks/get", { taskId: task.taskId }, undefined, {})).code).toBe(-32021);
  });

  it("rejects a mismatched or missing Mcp-Name with -32020 before any lookup", async () => {
    const server = createTasksServer();
    const task = await server.createTask({});
    const headers = (name?: string) => ({ headers: { "Mcp-Method": "tasks/get", ...(name === undefined ? {} : { "Mcp-Name": name }) } });
    expect(result(await call(server, "tasks/get", { taskId: task.taskId }, headers(` ${task.taskId} `))).taskId).toBe(task.taskId);
    // An unknown task id with a mismatched header is a header error, not "Task not found": the header is checked first.
    expect(errorOf(await call(server, "tasks/get", { taskId: "unknown" }, headers(task.taskId))).code).toBe(-32020);
    expect(errorOf(await call(server, "tasks/get", { taskId: task.taskId }, headers())).code).toBe(-32020);
    // Even a request without the capability gets the header error first.
    expect(errorOf(await call(server, "tasks/get", { taskId: task.taskId }, headers("other"), {})).code).toBe(-32020);
    const wrongMethod = { headers: { "mcp-method": "tasks/cancel", "mcp-name": task.taskId } };
    expect(errorOf(await call(server, "tasks/get", { taskId: task.taskId }, wrongMethod)).code).toBe(-32020);
    // Transports without headers (in-process, stdio) have nothing to check.
    expect(result(await call(server, "tasks/get", { taskId: task.taskId })).status).toBe("working");
  });

  it("answers -32601 for methods this revision does not have, tasks/result and tasks/list included", async () => {
    const server = createTasksServer();
    for (const method of ["tasks/result", "tasks/list", "tools/call", "__proto__", "constructor"]) {
      expect(errorOf(await call(server, method, { taskId: "x" })).code).toBe(-32601);
    }
  });

  it("validates params with the generated validators: -32602 with every error in data", async () => {
    const server = createTasksServer();
    const error = errorOf(await call(server, "tasks/update", { taskId: 42, inputResponses: "yes" }));
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({
      errors: expect.arrayContaining([
        expect.objectContaining({ path: "/taskId", keyword: "type" }),
        expect.objectContaining({ path: "/inputResponses", keyword: "type" }),
      ]),
      errorCount: 2,
    });
    // `_meta` is every request's envelope: the params schema does not reject it, but it must be an object.
    expect(errorOf(await call(server, "tasks/get", { taskId: "t" }, undefined, "meta" as unknown as object)).code).toBe(-32602);
    // This revision's params are open (no additionalProperties: false): an unknown property is no error, a missing one is.
    expect(errorOf(await call(server, "tasks/get", { taskId: "t", extra: 1 }))).toEqual(errorOf(await call(server, "tasks/get", { taskId: "t" })));
    expect(errorOf(await call(server, "tasks/get", { extra: 1 })).data).toEqual({
      errors: [expect.objectContaining({ keyword: "required" })],
      errorCount: 1,
    });
  });

  it("answers -32603 without details when the store fails, and reports the error to onError", async () => {
    const reported: unknown[] = [];
    const failing: TaskStore = {
      create: () => Promise.reject(new Error("disk on fire")),
      get: () => Promise.reject(new Error("disk on fire at /var/secret")),
      compareAndSet: () => Promise.reject(new Error("disk on fire")),
    };
    const server = createTasksServer({ store: failing, onError: (e) => reported.push(e) });
    const error = errorOf(await call(server, "tasks/get", { taskId: "t" }));
    expect(error).toEqual({ code: -32603, message: "Internal error" });
    expect(JSON.stringify(error)).not.toContain("secret");
    expect(reported).toHaveLength(1);
  });
});

describe("ext-tasks server: input and cancellation", () => {
  it("applies partial answers, ignores unknown and answered keys, and resumes once all are in", async () => {
    const server = createTasksServer();
    const task = await server.createTask({});
    const first = task.requireInput("first", ask("One?"));
    const second = task.requireInput("second", ask("Two?"));
    await waitForStatus(server, task.taskId, "input_required");

    expect(result(await call(server, "tasks/update", { taskId: task.taskId, inputResponses: { first: { action: "accept" }, bogus: { action: "decline" } } }))).toEqual({
      resultType: "complete",
    });
    // The first answer is applied before the ack: the task still waits for the second, and only for it.
    const afterPartial = result(await call(server, "tasks/get", { taskId: task.taskId }));
    expect(afterPartial).toMatchObject({ status: "input_required", inputRequests: { second: ask("Two?") } });
    expect(Object.keys(afterPartial.inputRequests as object)).toEqual(["second"]);
    await expect(first).resolves.toEqual({ action: "accept" });

    // An answer to an already answered key changes nothing.
    await call(server, "tasks/update", { taskId: task.taskId, inputResponses: { first: { action: "decline" } } });
    expect(result(await call(server, "tasks/get", { taskId: task.taskId })).status).toBe("input_required");

    await call(server, "tasks/update", { taskId: task.taskId, inputResponses: { second: { action: "accept", content: { n: 2 } } } });
    await expect(second).resolves.toEqual({ action: "accept", content: { n: 2 } });
    expect(result(await call(server, "tasks/get", { taskId: task.taskId }))).not.toHaveProperty("inputRequests");
    expect(result(await call(server, "tasks/get", { taskId: task.taskId })).status).toBe("working");
  });

  it("validates the answers a task awaits and ignores the others, whatever they hold", async () => {
    const server = createTasksServer();
    const task = await server.createTask({});
    const pending = task.requireInput("k", ask("?"));
    await waitForStatus(server, task.taskId, "input_required");

    // An answer for a key the task does not await is ignored, even one that fits no answer shape.
    expect(result(await call(server, "tasks/update", { taskId: task.taskId, inputResponses: { other: 42 } }))).toEqual({ resultType: "complete" });
    // An answer it awaits must be a valid answer: -32602 with the validator's errors, and the task keeps waiting.
    const invalid = errorOf(await call(server, "tasks/update", { taskId: task.taskId, inputResponses: { k: { action: "maybe" } } }));
    expect(invalid.code).toBe(-32602);
    expect(JSON.stringify(invalid.data)).toContain("/inputResponses/k");
    expect(result(await call(server, "tasks/get", { taskId: task.taskId })).status).toBe("input_required");
    // The map itself must still be an object.
    expect(errorOf(await call(server, "tasks/update", { taskId: task.taskId, inputResponses: [] })).code).toBe(-32602);

    await call(server, "tasks/update", { taskId: task.taskId, inputResponses: { k: { action: "decline" } } });
    await expect(pending).resolves.toEqual({ action: "decline" });
  });

  it("keeps input keys unique for the task's lifetime", async () => {
    const server = createTasksServer();
    const task = await server.createTask({});
    const answered = task.requireInput("k", ask("?"));
    await waitForStatus(server, task.taskId, "input_required");
    await call(server, "tasks/update", { taskId: task.taskId, inputResponses: { k: { action: "accept" } } });
    await answered;
    await expect(task.requireInput("k", ask("again?"))).rejects.toThrow(/already used/);
  });

  it("acknowledges cancel (also of a finished task), aborts the handle's signal and ends pending input", async () => {
    const server = createTasksServer();
    const task = await server.createTask({});
    const pending = task.requireInput("k", ask("?"));
    const aborted = new Promise((resolve) => task.signal.addEventListener("abort", resolve));
    expect(result(await call(server, "tasks/cancel", { taskId: task.taskId }))).toEqual({ resultType: "complete" });
    await aborted;
    await expect(pending).rejects.toBeInstanceOf(TaskStateError);
    expect(result(await call(server, "tasks/get", { taskId: task.taskId }))).toMatchObject({ status: "cancelled" });
    expect(result(await call(server, "tasks/get", { taskId: task.taskId }))).not.toHaveProperty("inputRequests");
    expect(result(await call(server, "tasks/cancel", { taskId: task.taskId }))).toEqual({ resultType: "complete" });
    // A terminal task never changes, whatever its tool code tries.
    await expect(task.complete({ content: [] })).rejects.toBeInstanceOf(TaskStateError);
    await expect(task.update("still going")).rejects.toBeInstanceOf(TaskStateError);
    expect(result(await call(server, "tasks/get", { taskId: task.taskId })).status).toBe("cancelled");
  });

  it("refuses illegal status changes and non-JSON-RPC failures", async () => {
    const server = createTasksServer();
    const task = await server.createTask({});
    await task.complete({ content: [] });
    await expect(task.fail({ code: -32603, message: "late" })).rejects.toThrow(/already completed/);
    const other = await server.createTask({});
    await expect(other.fail({ message: "no code" } as never)).rejects.toThrow(TypeError);
    await expect(other.complete("text" as never)).rejects.toThrow(TypeError);
  });
});

describe("ext-tasks server: store and notifications", () => {
  it("notifies subscribers with the detailed task on every change, with the task's owner", async () => {
    const server = createTasksServer();
    const seen: [TaskStatusNotification, string][] = [];
    server.subscribe((notification, owner) => seen.push([notification, owner]));
    const task = await server.createTask({ owner: "alice" });
    await task.update("halfway");
    const input = task.requireInput("k", ask("?"));
    await waitForStatus(server, task.taskId, "input_required", { owner: "alice" });
    await call(server, "tasks/update", { taskId: task.taskId, inputResponses: { k: { action: "accept" } } }, { owner: "alice" });
    await input;
    await task.complete({ content: [{ type: "text", text: "done" }] });
    expect(seen.map(([n, owner]) => [n.method, n.params.status, owner])).toEqual([
      ["notifications/tasks", "working", "alice"],
      ["notifications/tasks", "working", "alice"],
      ["notifications/tasks", "input_required", "alice"],
      ["notifications/tasks", "working", "alice"],
      ["notifications/tasks", "completed", "alice"],
    ]);
    expect(seen[1]![0].params.statusMessage).toBe("halfway");
    expect(seen[2]![0].params).toMatchObject({ inputRequests: { k: ask("?") } });
    expect(seen[4]![0].params).toMatchObject({ result: { content: [{ type: "text", text: "done" }] } });
  });

  it("caps the tasks it holds, making room by dropping expired ones", async () => {
    let now = 0;
    const store = new InMemoryTaskStore({ maxTasks: 2, now: () => now });
    const server = createTasksServer({ store, now: () => now, defaultTtl: 100 });
    await server.createTask({});
    await server.createTask({});
    await expect(server.createTask({})).rejects.toBeInstanceOf(TaskLimitError);
    now = 100;
    await expect(server.createTask({})).resolves.toBeDefined();
    expect(store.size).toBe(1);
  });

  it("mints unguessable ids and clamps TTLs to the maximum", async () => {
    const server = createTasksServer({ maxTtl: 5000 });
    const ids = await Promise.all(Array.from({ length: 50 }, () => server.createTask({}).then((t) => t.taskId)));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(50);
    expect((await server.createTask({}, { ttl: 10 ** 9 })).createResult.ttlMs).toBe(5000);
    expect((await server.createTask({}, { ttl: null })).createResult.ttlMs).toBe(5000);
    const unlimited = createTasksServer({ maxTtl: null });
    expect((await unlimited.createTask({}, { ttl: null })).createResult.ttlMs).toBeNull();
    expect((await unlimited.createTask({}, { ttl: 1234.4 })).createResult.ttlMs).toBe(1234);
  });
});

/** Polls tasks/get until the task has the status (input is registered asynchronously). */
async function waitForStatus(server: TasksServer, taskId: string, status: string, transport?: TransportContext): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (result(await call(server, "tasks/get", { taskId }, transport)).status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`task ${taskId} never reached ${status}`);
}

