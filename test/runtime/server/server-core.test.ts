import { describe, expect, it } from "vitest";
import {
  grantedTtl,
  headerValue,
  InMemoryTaskStoreOf,
  JsonRpcError,
  paramsObject,
  readEnvelope,
  respond,
  TaskEngine,
  TaskLimitError,
  validParams,
  validParamsBut,
  withoutMeta,
  type TaskEngineProfile,
  type TaskRecord,
} from "../../../templates/runtime/server/core.js";
import { checkRoutingHeaders, hasTasksExtension, missingTasksExtension } from "../../../templates/runtime/server/tasks-extension.js";
import { TASKS_EXTENSION } from "../../../templates/runtime/protocol/constants.js";
import type { ValidationResult } from "../../../templates/runtime/protocol/json.js";

/**
 * The server machinery of generated Tasks sets, tested as source (templates/runtime/server/core.ts
 * and tasks-extension.ts), with a small status machine of its own standing in for a set's status.ts.
 */

type Status = "working" | "input_required" | "completed" | "failed" | "cancelled";
interface Task extends TaskRecord {
  readonly status: Status;
  readonly note?: string;
}

const TERMINAL: readonly Status[] = ["completed", "failed", "cancelled"];
const TRANSITIONS: Record<Status, readonly Status[]> = {
  working: ["input_required", "completed", "failed", "cancelled"],
  input_required: ["working", "completed", "failed", "cancelled"],
  completed: [],
  failed: [],
  cancelled: [],
};

class StateError extends Error {
  constructor(
    readonly taskId: string,
    readonly status: Status | undefined,
    message: string,
  ) {
    super(message);
  }
}

function newTask(owner = "alice", expiresAt: number | null = null): Omit<Task, "taskId" | "version"> {
  return { owner, status: "working", lastUpdatedAt: "", expiresAt };
}

function setup(now = () => 1_000) {
  const store = new InMemoryTaskStoreOf<Task>({ now });
  const changed: Task[] = [];
  const errors: unknown[] = [];
  const profile: TaskEngineProfile<Task> = {
    isTerminalStatus: (status) => TERMINAL.includes(status),
    canTransition: (from, to) => TRANSITIONS[from].includes(to),
    stateError: (taskId, status, message) => new StateError(taskId, status, message),
    changed: (task) => changed.push(task),
  };
  const engine = new TaskEngine(profile, { store, pollInterval: 10_000, onError: (e) => errors.push(e), now });
  return { store, engine, changed, errors };
}

describe("InMemoryTaskStoreOf", () => {
  it("creates tasks with fresh ids at version 0, visible to their owner only", async () => {
    const { store } = setup();
    const a = await store.create(newTask("alice"));
    const b = await store.create(newTask("alice"));
    expect(a.version).toBe(0);
    expect(a.taskId).not.toBe(b.taskId);
    expect(await store.get("alice", a.taskId)).toBe(a);
    expect(await store.get("bob", a.taskId)).toBeUndefined();
  });

  it("compare-and-set replaces only the current version, and refuses a next that is not the following version", async () => {
    const { store } = setup();
    const task = await store.create(newTask());
    const next = { ...task, version: 1, note: "one" };
    expect(await store.compareAndSet(task, next)).toBe(true);
    expect(await store.compareAndSet(task, { ...task, version: 1, note: "stale" })).toBe(false);
    expect((await store.get("alice", task.taskId))?.note).toBe("one");
    await expect(store.compareAndSet(next, { ...next, version: 3 })).rejects.toThrow(/following version/);
  });

  it("forgets a task once it expires, and when full drops expired tasks before refusing with TaskLimitError", async () => {
    let now = 1_000;
    const store = new InMemoryTaskStoreOf<Task>({ maxTasks: 2, now: () => now });
    const short = await store.create(newTask("alice", 2_000));
    await store.create(newTask("alice", null));
    await expect(store.create(newTask())).rejects.toBeInstanceOf(TaskLimitError);
    now = 2_000;
    expect(await store.get("alice", short.taskId)).toBeUndefined();
    await store.create(newTask());
    expect(store.size).toBe(2);
    await expect(store.create(newTask())).rejects.toBeInstanceOf(TaskLimitError);
  });

  it("lists an owner's tasks in creation order, page by page, and rejects a cursor it did not issue", async () => {
    const { store } = setup();
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      created.push((await store.create(newTask("alice"))).taskId);
      await store.create(newTask("bob"));
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.list("alice", cursor, 2);
      expect(page).toBeDefined();
      seen.push(...page!.tasks.map((t) => t.taskId));
      cursor = page!.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(seen).toEqual(created);
    expect(pages).toBe(3);
    expect(await store.list("alice", "not-a-cursor", 2)).toBeUndefined();
  });
});

describe("TaskEngine", () => {
  it("writes a change as the next version, tells the profile, and leaves the task alone when the change returns undefined", async () => {
    const { store, engine, changed } = setup();
    const task = await store.create(newTask());
    const change = await engine.write("alice", task.taskId, (t) => ({ ...t, status: "input_required" }));
    expect(change?.after).toMatchObject({ status: "input_required", version: 1, lastUpdatedAt: new Date(1_000).toISOString() });
    expect(changed.map((t) => t.version)).toEqual([1]);
    const none = await engine.write("alice", task.taskId, () => undefined);
    expect(none?.before).toBe(none?.after);
    expect(changed).toHaveLength(1);
    expect(await engine.write("bob", task.taskId, (t) => t)).toBeUndefined();
  });

  it("enforces the status machine: an illegal transition and any change of a finished task throw the profile's error", async () => {
    const { store, engine } = setup();
    const task = await store.create(newTask());
    await engine.write("alice", task.taskId, (t) => ({ ...t, status: "completed" }));
    const refused = engine.write("alice", task.taskId, (t) => ({ ...t, status: "working" }));
    await expect(refused).rejects.toBeInstanceOf(StateError);
    await expect(refused).rejects.toMatchObject({ status: "completed", message: "Illegal transition from completed to working" });
    await expect(engine.change("alice", task.taskId, "complete", (t) => t)).rejects.toMatchObject({
      status: "completed",
      message: "Cannot complete: the task is already completed",
    });
    await expect(engine.change("alice", "missing", "complete", (t) => t)).rejects.toMatchObject({ status: undefined });
  });

  it("retries a compare-and-set that lost a race, re-applying the change to the newer record", async () => {
    const { store, engine } = setup();
    const task = await store.create(newTask());
    let calls = 0;
    const change = await engine.write("alice", task.taskId, (t) => {
      calls++;
      // A concurrent writer gets in between the first read and its compare-and-set.
      if (calls === 1) void store.compareAndSet(t, { ...t, version: t.version + 1, note: "other" });
      return { ...t, status: "input_required" };
    });
    expect(calls).toBe(2);
    expect(change?.after).toMatchObject({ note: "other", version: 2 });
  });

  it("writeExisting answers an unknown task with JSON-RPC -32602 Task not found", async () => {
    const { engine } = setup();
    await expect(engine.writeExisting("alice", "nope", (t) => t)).rejects.toMatchObject({ code: -32602, message: "Task not found" });
    await expect(engine.find("alice", "nope")).rejects.toBeInstanceOf(JsonRpcError);
  });

  it("wakes a wait at once on this process's change, and aborts handles' signals when the task is cancelled", async () => {
    const { store, engine } = setup();
    const task = await store.create(newTask());
    const signal = engine.signalFor(task.taskId);
    const done = engine.waitFor("alice", task.taskId, (t) => (TERMINAL.includes(t.status) ? t.status : undefined));
    await engine.write("alice", task.taskId, (t) => ({ ...t, status: "cancelled" }));
    // The poll interval is 10 s: only the wake-up can end this wait within the test's time.
    await expect(done).resolves.toBe("cancelled");
    expect(signal.aborted).toBe(true);
  });

  it("does not abort handles when the task completes", async () => {
    const { store, engine } = setup();
    const task = await store.create(newTask());
    const signal = engine.signalFor(task.taskId);
    await engine.write("alice", task.taskId, (t) => ({ ...t, status: "completed" }));
    expect(signal.aborted).toBe(false);
  });

  it("close ends every wait with an error", async () => {
    const { store, engine } = setup();
    const task = await store.create(newTask());
    const waiting = engine.waitFor("alice", task.taskId, () => undefined);
    engine.close();
    await expect(waiting).rejects.toMatchObject({ code: -32603, message: "The server is closing" });
  });

  it("maps errors: a JsonRpcError answers as itself, anything else as -32603 and goes to the error hook, which may itself throw", () => {
    const { engine, errors } = setup();
    expect(engine.errorObject(new JsonRpcError(-32602, "bad", { x: 1 }))).toEqual({ code: -32602, message: "bad", data: { x: 1 } });
    const boom = new Error("boom");
    expect(engine.errorObject(boom)).toEqual({ code: -32603, message: "Internal error" });
    expect(errors).toEqual([boom]);
    const store = new InMemoryTaskStoreOf<Task>();
    const throwing = new TaskEngine<Task>(
      { isTerminalStatus: () => false, canTransition: () => true, stateError: () => new Error(), changed: () => {} },
      { store, pollInterval: 1, onError: () => { throw new Error("hook"); }, now: Date.now },
    );
    expect(throwing.errorObject(boom)).toEqual({ code: -32603, message: "Internal error" });
  });
});

describe("requests", () => {
  it("reads envelopes, trusting nothing", () => {
    expect(readEnvelope({ jsonrpc: "2.0", id: 1, method: "m", params: { a: 1 } })).toEqual({ kind: "request", id: 1, method: "m", params: { a: 1 } });
    expect(readEnvelope({ jsonrpc: "2.0", method: "m" })).toEqual({ kind: "notification" });
    expect(readEnvelope([])).toMatchObject({ kind: "invalid", id: null });
    expect(readEnvelope({ jsonrpc: "1.0", id: "x", method: "m" })).toMatchObject({ kind: "invalid", id: "x" });
    expect(readEnvelope({ jsonrpc: "2.0", id: 1.5, method: "m" })).toMatchObject({ kind: "invalid", id: null });
    expect(readEnvelope({ jsonrpc: "2.0", id: 1, method: 2 })).toMatchObject({ kind: "invalid", id: 1 });
  });

  it("checks params: an object whose _meta is an object", () => {
    expect(paramsObject(undefined)).toBeUndefined();
    expect(() => paramsObject([])).toThrow(/params must be an object/);
    expect(() => paramsObject({ _meta: 1 })).toThrow(/_meta must be an object/);
    expect(withoutMeta({ a: 1, _meta: {} })).toEqual({ a: 1 });
  });

  it("maps validator errors to -32602 naming the first and carrying all", () => {
    const errors = [
      { path: "/taskId", keyword: "type", message: "must be a string", schemaPath: "s#/1" },
      { path: "", keyword: "required", message: "x", schemaPath: "s#/2" },
    ];
    const reject = (): ValidationResult<never> => ({ ok: false, errors });
    let thrown: unknown;
    try {
      validParams(reject, {});
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(JsonRpcError);
    expect((thrown as JsonRpcError).toJSON()).toEqual({ code: -32602, message: "Invalid params: /taskId: must be a string", data: { errors, errorCount: errors.length } });
  });

  it("validParamsBut validates a map field as an empty object and hands its entries back unchecked", () => {
    const seen: unknown[] = [];
    const accept = (value: unknown): ValidationResult<Record<string, unknown>> => (seen.push(value), { ok: true, value: value as Record<string, unknown> });
    expect(validParamsBut("answers", accept, { taskId: "t", answers: { k: 1 } })).toEqual({ taskId: "t", answers: { k: 1 } });
    expect(seen).toEqual([{ taskId: "t", answers: {} }]);
  });

  it("reads a header case-insensitively, trimmed; a repeated one counts as absent", () => {
    expect(headerValue({ "MCP-Name": " t1 " }, "mcp-name")).toBe("t1");
    expect(headerValue({ "mcp-name": ["a", "b"] }, "mcp-name")).toBeUndefined();
    expect(headerValue({}, "mcp-name")).toBeUndefined();
  });
});

describe("respond and grantedTtl", () => {
  it("answers a request with its result or its mapped error, a notification with nothing, and garbage with -32600", async () => {
    const ok = await respond({ jsonrpc: "2.0", id: "a", method: "m", params: { x: 1 } }, async (method, params) => ({ method, params }), () => ({ code: 0, message: "" }));
    expect(ok).toEqual({ jsonrpc: "2.0", id: "a", result: { method: "m", params: { x: 1 } } });
    const failed = await respond({ jsonrpc: "2.0", id: 2, method: "m" }, async () => { throw new Error("x"); }, () => ({ code: -32603, message: "Internal error" }));
    expect(failed).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32603, message: "Internal error" } });
    let dispatched = false;
    expect(await respond({ jsonrpc: "2.0", method: "m" }, async () => ((dispatched = true), {}), () => ({ code: 0, message: "" }))).toBeUndefined();
    expect(dispatched).toBe(false);
    expect(await respond("x", async () => ({}), () => ({ code: 0, message: "" }))).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid request: a message must be a JSON object" },
    });
  });

  it("grants the asked retention up to the maximum, the default for none or nonsense, and the maximum for unlimited", () => {
    expect(grantedTtl(5_000, 60_000, 86_400_000)).toBe(5_000);
    expect(grantedTtl(10 ** 12, 60_000, 86_400_000)).toBe(86_400_000);
    expect(grantedTtl(undefined, 60_000, 86_400_000)).toBe(60_000);
    expect(grantedTtl(-1, 60_000, 86_400_000)).toBe(60_000);
    expect(grantedTtl(null, 60_000, 86_400_000)).toBe(86_400_000);
    expect(grantedTtl(null, 60_000, null)).toBeNull();
    expect(grantedTtl(10 ** 12, 60_000, null)).toBe(10 ** 12);
  });
});

describe("tasks extension", () => {
  const context = (meta: object, headers?: Record<string, string>) => ({ owner: "", meta: meta as never, headers, signal: undefined });

  it("sees the extension only when declared in the request's _meta client capabilities", () => {
    const declared = { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION]: {} } } };
    expect(hasTasksExtension(context(declared))).toBe(true);
    expect(hasTasksExtension(context({ "io.modelcontextprotocol/clientCapabilities": { extensions: {} } }))).toBe(false);
    expect(hasTasksExtension(context({}))).toBe(false);
    expect(missingTasksExtension().toJSON()).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } });
  });

  it("checks routing headers only when the transport has headers", () => {
    expect(checkRoutingHeaders("tasks/get", { taskId: "t" }, context({}))).toBeUndefined();
    expect(checkRoutingHeaders("tasks/get", { taskId: "t" }, context({}, { "mcp-name": "t" }))).toBeUndefined();
    expect(checkRoutingHeaders("tasks/get", { taskId: "t" }, context({}, { "mcp-name": "u" }))).toMatchObject({ code: -32020 });
    expect(checkRoutingHeaders("tasks/get", { taskId: "t" }, context({}, {}))).toMatchObject({ code: -32020, message: /Missing Mcp-Name/ });
    expect(checkRoutingHeaders("tasks/get", { taskId: "t" }, context({}, { "mcp-method": "tasks/cancel", "mcp-name": "t" }))).toMatchObject({ code: -32020 });
  });
});
