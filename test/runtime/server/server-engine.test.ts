import { describe, expect, it } from "vitest";
import {
  createdResult,
  createTasksServerFor,
  detailedTask,
  statusNotification,
  wireTask,
  type ServerBindings,
  type ServerProfile,
  type StoredInputOf,
  type StoredTaskOf,
} from "../../../templates/runtime/server/engine.js";
import { JsonRpcError, type JsonRpcResponse, type TransportContext } from "../../../templates/runtime/server/core.js";
import type { ValidationResult } from "../../../templates/runtime/protocol/json.js";

/**
 * The generated server's engine, tested as source (templates/runtime/server/engine.ts) with
 * profiles of its own: each revision feature a set's profile turns on or off (what tasks/get
 * inlines, `resultType`, cancel acknowledgement, input, list paging, notifications, `_meta`
 * stripping, the extension's checks) is exercised both ways, with fake validators and a small
 * status machine standing in for a set's validators.ts and status.ts.
 */

type Status = "working" | "input_required" | "completed" | "failed" | "cancelled";
type Request = { readonly ask: string };
type Response = { readonly answer: string };
interface Task extends StoredTaskOf<Status>, StoredInputOf<{ readonly [key: string]: Request }, { readonly [key: string]: Response }> {}

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

const BINDINGS: ServerBindings<Task> = {
  isTerminalStatus: (status) => TERMINAL.includes(status),
  canTransition: (from, to) => TRANSITIONS[from].includes(to),
  StateError,
};

const invalid = (message: string): ValidationResult<never> => ({
  ok: false,
  errors: [{ path: "", keyword: "type", message, schemaPath: "#" }],
});

/** Params with a string taskId and no other key but `allowed` (closed, like the draft's params). */
const taskIdParams =
  (...allowed: string[]) =>
  (value: unknown): ValidationResult<{ taskId: string }> => {
    const params = value as Record<string, unknown>;
    if (typeof params.taskId !== "string") return invalid("taskId must be a string");
    const extra = Object.keys(params).find((key) => key !== "taskId" && !allowed.includes(key));
    return extra ? invalid(`unexpected property ${extra}`) : { ok: true, value: params as { taskId: string } };
  };

/** tasks/update's params: every answer must be `{ answer: string }`. */
const updateParams = (value: unknown): ValidationResult<{ taskId: string }> => {
  const params = value as { taskId?: unknown; answers?: Record<string, { answer?: unknown }> };
  if (typeof params.taskId !== "string") return invalid("taskId must be a string");
  const bad = Object.entries(params.answers ?? {}).find(([, a]) => typeof a?.answer !== "string");
  return bad ? invalid(`answer ${bad[0]} must be a string`) : { ok: true, value: params as { taskId: string } };
};

const listParams = (value: unknown): ValidationResult<object> =>
  typeof (value as { after?: unknown }).after === "string" || (value as { after?: unknown }).after === undefined
    ? { ok: true, value: value as object }
    : invalid("after must be a string");

/** A profile like the draft's: detailed tasks/get, resultType, cancel acknowledgement, input, a detailed notification. */
const DRAFT = {
  routes: [
    { method: "t/get", role: "get", paramsRequired: true, stripMeta: true, validate: taskIdParams() },
    { method: "t/cancel", role: "cancel", paramsRequired: true, stripMeta: true, validate: taskIdParams() },
    { method: "t/update", role: "update", paramsRequired: true, stripMeta: true, validate: updateParams },
  ],
  taskFields: { ttl: "ttlMs", pollInterval: "pollMs" },
  inlined: { input_required: "pending", completed: "output", failed: "problem" },
  resultType: true,
  cancelAck: true,
  input: { responsesField: "answers" },
  list: undefined,
  notification: { method: "n/tasks", detailed: true },
} as const satisfies ServerProfile;

/** A profile like 2025-11-25's: the plain task, nested create result, cancel answers the task, list and result, a plain notification. */
const PLAIN = {
  routes: [
    { method: "t/get", role: "get", paramsRequired: true, stripMeta: false, validate: taskIdParams("_meta") },
    { method: "t/cancel", role: "cancel", paramsRequired: true, stripMeta: false, validate: taskIdParams("_meta") },
    { method: "t/list", role: "list", paramsRequired: false, stripMeta: false, validate: listParams },
    { method: "t/result", role: "payload", paramsRequired: true, stripMeta: false, validate: taskIdParams("_meta") },
  ],
  taskFields: { ttl: "ttl" },
  inlined: undefined,
  resultType: false,
  cancelAck: false,
  input: undefined,
  list: { cursorField: "after" },
  notification: { method: "n/status", detailed: false },
} as const satisfies ServerProfile;

/** The bare minimum: tasks/get only, no notification. */
const MINIMAL = { ...PLAIN, routes: [PLAIN.routes[0]], list: undefined, notification: undefined } as const satisfies ServerProfile;

const alice: TransportContext = { owner: "alice" };
let nextId = 1;

async function call(server: { handle(m: unknown, t?: TransportContext): Promise<JsonRpcResponse | undefined> }, method: string, params?: object, transport = alice) {
  const response = await server.handle({ jsonrpc: "2.0", id: nextId++, method, ...(params ? { params } : {}) }, transport);
  if (!response) throw new Error("no answer");
  return response;
}
const resultOf = (response: JsonRpcResponse) => ("result" in response ? (response.result as Record<string, any>) : expect.fail(JSON.stringify(response)));
const errorOf = (response: JsonRpcResponse) => ("error" in response ? response.error : expect.fail(JSON.stringify(response)));

function stored(status: Status, extra: Partial<Task> = {}): Task {
  return {
    taskId: "t1",
    owner: "alice",
    status,
    createdAt: "2026-01-01T00:00:00.000Z",
    lastUpdatedAt: "2026-01-01T00:00:01.000Z",
    ttl: 60_000,
    pollInterval: 500,
    expiresAt: null,
    version: 3,
    inputRequests: {},
    inputResponses: {},
    inputKeys: [],
    ...extra,
  };
}

describe("wire shapes", () => {
  it("show the task under the profile's field names, without what only the server sees", () => {
    expect(wireTask(DRAFT, stored("working", { statusMessage: "busy" }))).toStrictEqual({
      taskId: "t1",
      status: "working",
      statusMessage: "busy",
      createdAt: "2026-01-01T00:00:00.000Z",
      lastUpdatedAt: "2026-01-01T00:00:01.000Z",
      ttlMs: 60_000,
      pollMs: 500,
    });
    // No polling field in the profile (or none on the task): none on the wire.
    expect(wireTask(PLAIN, stored("working"))).not.toHaveProperty("pollInterval");
    expect(wireTask(DRAFT, stored("working", { pollInterval: undefined as never }))).not.toHaveProperty("pollMs");
    expect(wireTask(PLAIN, stored("working", { ttl: null }))).toMatchObject({ ttl: null });
  });

  it("inline pending input, the result or the error by status, under the profile's names", () => {
    const pending = { a: { ask: "Name?" } };
    expect(detailedTask(DRAFT, stored("input_required", { inputRequests: pending }))).toMatchObject({ status: "input_required", pending });
    expect(detailedTask(DRAFT, stored("completed", { result: { n: 1 } }))).toMatchObject({ output: { n: 1 } });
    expect(detailedTask(DRAFT, stored("failed", { error: { code: -1, message: "no" } }))).toMatchObject({ problem: { code: -1, message: "no" } });
    for (const status of ["working", "cancelled"] as const) {
      expect(detailedTask(DRAFT, stored(status))).toStrictEqual(wireTask(DRAFT, stored(status)));
    }
    // Without `inlined` the detailed task is the plain one.
    expect(detailedTask(PLAIN, stored("completed", { result: { n: 1 } }))).toStrictEqual(wireTask(PLAIN, stored("completed")));
  });

  it("refuse a record whose status promises a part it lacks", () => {
    expect(() => detailedTask(DRAFT, stored("completed"))).toThrow("corrupt task record: no result");
    expect(() => detailedTask(DRAFT, stored("failed"))).toThrow("corrupt task record: no error");
  });

  it("answer a created task flat and tagged with resultType, or nested under `task`", () => {
    const task = stored("working");
    expect(createdResult(DRAFT, task)).toStrictEqual({ resultType: "task", ...wireTask(DRAFT, task) });
    expect(createdResult(PLAIN, task)).toStrictEqual({ task: wireTask(PLAIN, task) });
  });

  it("notify with the profile's method and the detailed or plain task", () => {
    const task = stored("completed", { result: { n: 1 } });
    expect(statusNotification(DRAFT, task)).toStrictEqual({ jsonrpc: "2.0", method: "n/tasks", params: detailedTask(DRAFT, task) });
    expect(statusNotification(PLAIN, task)).toStrictEqual({ jsonrpc: "2.0", method: "n/status", params: wireTask(PLAIN, task) });
    expect(() => statusNotification(MINIMAL, task)).toThrow("no status notification");
  });
});

describe("dispatch", () => {
  it("answers only the profile's methods (-32601 otherwise) and reads params the way each route says", async () => {
    const server = createTasksServerFor(PLAIN, BINDINGS);
    expect(errorOf(await call(server, "t/update", { taskId: "x" })).code).toBe(-32601);
    // paramsRequired: tasks/get without params is -32602; tasks/list without params is fine.
    expect(errorOf(await call(server, "t/get")).message).toBe("Invalid params: params are required");
    expect(resultOf(await call(server, "t/list"))).toEqual({ tasks: [] });
    // The validator's errors reach the client.
    const bad = errorOf(await call(server, "t/get", { taskId: 7 }));
    expect(bad).toMatchObject({ code: -32602, message: "Invalid params: (params): taskId must be a string" });
    server.close();
  });

  it("validates params without `_meta` where the route strips it, and with it where it does not", async () => {
    const withMeta = { taskId: "unknown", _meta: { x: 1 } };
    const strips = createTasksServerFor(DRAFT, BINDINGS);
    expect(errorOf(await call(strips, "t/get", withMeta)).message).toBe("Task not found");
    const keeps = createTasksServerFor({ ...DRAFT, routes: [{ ...DRAFT.routes[0], stripMeta: false }] }, BINDINGS);
    expect(errorOf(await call(keeps, "t/get", withMeta)).message).toBe("Invalid params: (params): unexpected property _meta");
    strips.close();
    keeps.close();
  });

  it("checks headers (the bindings' default or the options'), then params, then capabilities, in that order", async () => {
    const headerError = { code: -32020, message: "header" };
    const capabilityError = new JsonRpcError(-32021, "capability");
    const bindings: ServerBindings<Task> = { ...BINDINGS, checkHeaders: () => headerError, checkCapabilities: () => capabilityError };
    const server = createTasksServerFor(DRAFT, bindings);
    expect(errorOf(await call(server, "t/get", 7 as never))).toEqual(headerError);
    const overridden = createTasksServerFor(DRAFT, bindings, { checkHeaders: () => undefined });
    expect(errorOf(await call(overridden, "t/get", 7 as never)).message).toBe("Invalid params: params must be an object");
    expect(errorOf(await call(overridden, "t/get", { taskId: "x" }))).toEqual({ code: -32021, message: "capability" });
    // The options' check sees the method and the raw params.
    const seen: unknown[] = [];
    const watching = createTasksServerFor(DRAFT, BINDINGS, { checkHeaders: (method, params) => void seen.push(method, params) });
    await call(watching, "t/get", { taskId: "x" });
    expect(seen).toEqual(["t/get", { taskId: "x" }]);
    // Without the bindings' checks nothing is checked.
    const plain = createTasksServerFor(DRAFT, BINDINGS);
    expect(errorOf(await call(plain, "t/get", { taskId: "x" }, { ...alice, headers: { "mcp-name": "y" } })).message).toBe("Task not found");
    for (const s of [server, overridden, watching, plain]) s.close();
  });
});

describe("tasks/get and tasks/cancel", () => {
  it("get answers the detailed task tagged complete, or the plain task untagged", async () => {
    const draft = createTasksServerFor(DRAFT, BINDINGS);
    const handle = await draft.createTask(alice);
    await handle.complete({ n: 1 });
    expect(resultOf(await call(draft, "t/get", { taskId: handle.taskId }))).toMatchObject({ resultType: "complete", status: "completed", output: { n: 1 } });
    const plain = createTasksServerFor(PLAIN, BINDINGS);
    const other = await plain.createTask(alice);
    await other.complete({ n: 1 });
    const shown = resultOf(await call(plain, "t/get", { taskId: other.taskId }));
    expect(shown).toMatchObject({ status: "completed" });
    expect(shown).not.toHaveProperty("resultType");
    expect(shown).not.toHaveProperty("result");
    // Another owner's task looks like one that never existed.
    expect(errorOf(await call(plain, "t/get", { taskId: other.taskId }, { owner: "bob" })).message).toBe("Task not found");
    draft.close();
    plain.close();
  });

  it("cancel with acknowledgement: an empty tagged answer, for a finished task too, and the task is cancelled", async () => {
    const server = createTasksServerFor(DRAFT, BINDINGS);
    const handle = await server.createTask(alice);
    expect(resultOf(await call(server, "t/cancel", { taskId: handle.taskId }))).toStrictEqual({ resultType: "complete" });
    expect(handle.signal.aborted).toBe(true);
    expect(resultOf(await call(server, "t/cancel", { taskId: handle.taskId }))).toStrictEqual({ resultType: "complete" });
    expect(resultOf(await call(server, "t/get", { taskId: handle.taskId }))).toMatchObject({ status: "cancelled", statusMessage: "Cancelled by the client." });
    server.close();
  });

  it("cancel answering the task: the cancelled task, and -32602 for a finished one", async () => {
    const server = createTasksServerFor(PLAIN, BINDINGS);
    const handle = await server.createTask(alice);
    expect(resultOf(await call(server, "t/cancel", { taskId: handle.taskId }))).toMatchObject({ taskId: handle.taskId, status: "cancelled" });
    expect(errorOf(await call(server, "t/cancel", { taskId: handle.taskId }))).toMatchObject({
      code: -32602,
      message: "Cannot cancel a task that is already cancelled",
    });
    server.close();
  });
});

describe("input (tasks/update and the handle's requireInput)", () => {
  it("delivers the awaited answers, validating only those, and the task works again once none is pending", async () => {
    const server = createTasksServerFor(DRAFT, BINDINGS);
    const handle = await server.createTask(alice);
    const first = handle.requireInput("a", { ask: "A?" });
    const second = handle.requireInput("b", { ask: "B?" });
    await expect.poll(async () => resultOf(await call(server, "t/get", { taskId: handle.taskId })).pending).toEqual({ a: { ask: "A?" }, b: { ask: "B?" } });
    // An unknown key is ignored whatever it holds; an awaited answer that is invalid is -32602.
    expect(resultOf(await call(server, "t/update", { taskId: handle.taskId, answers: { zzz: 42 } }))).toStrictEqual({ resultType: "complete" });
    expect(errorOf(await call(server, "t/update", { taskId: handle.taskId, answers: { a: { answer: 1 } } })).message).toContain("answer a must be a string");
    await call(server, "t/update", { taskId: handle.taskId, answers: { a: { answer: "yes" } } });
    await expect(first).resolves.toEqual({ answer: "yes" });
    expect(resultOf(await call(server, "t/get", { taskId: handle.taskId }))).toMatchObject({ status: "input_required", pending: { b: { ask: "B?" } } });
    await call(server, "t/update", { taskId: handle.taskId, answers: { b: { answer: "no" } } });
    await expect(second).resolves.toEqual({ answer: "no" });
    expect(resultOf(await call(server, "t/get", { taskId: handle.taskId }))).toMatchObject({ status: "working" });
    // Answers stay readable; keys are unique for the task's lifetime.
    await expect(handle.input("a")).resolves.toEqual({ answer: "yes" });
    await expect(handle.requireInput("a", { ask: "again" })).rejects.toThrow(/already used/);
    await expect(handle.input("never")).rejects.toThrow('The task never asked for input "never"');
    server.close();
  });

  it("a task that ends while waiting for input fails the wait with the set's state error", async () => {
    const server = createTasksServerFor(DRAFT, BINDINGS);
    const handle = await server.createTask(alice);
    const waiting = handle.requireInput("a", { ask: "A?" });
    await expect.poll(async () => resultOf(await call(server, "t/get", { taskId: handle.taskId })).status).toBe("input_required");
    await call(server, "t/cancel", { taskId: handle.taskId });
    await expect(waiting).rejects.toBeInstanceOf(StateError);
    // The end of the task cleared its pending input.
    expect(resultOf(await call(server, "t/get", { taskId: handle.taskId }))).not.toHaveProperty("pending");
    server.close();
  });

  it("without input in the profile, handles have no input methods and records no input part", async () => {
    let created: Task | undefined;
    const server = createTasksServerFor(PLAIN, BINDINGS, {
      store: {
        create: async (task) => (created = { ...task, taskId: "t", version: 0 }),
        get: async () => created,
        compareAndSet: async () => true,
      },
    });
    const handle = await server.createTask(alice);
    expect(handle).not.toHaveProperty("requireInput");
    expect(handle).not.toHaveProperty("input");
    expect(created).not.toHaveProperty("inputRequests");
    expect(created).not.toHaveProperty("inputKeys");
    server.close();
  });
});

describe("tasks/list and tasks/result", () => {
  it("lists the owner's tasks a page at a time under the profile's cursor field; a foreign cursor is -32602", async () => {
    const server = createTasksServerFor(PLAIN, BINDINGS, { pageSize: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await server.createTask(alice)).taskId);
    await server.createTask({ owner: "bob" });
    const first = resultOf(await call(server, "t/list", {}));
    expect(first.tasks.map((t: { taskId: string }) => t.taskId)).toEqual(ids.slice(0, 2));
    const second = resultOf(await call(server, "t/list", { after: first.nextCursor }));
    expect(second).toEqual({ tasks: [expect.objectContaining({ taskId: ids[2] })] });
    expect(errorOf(await call(server, "t/list", { after: "nope" }))).toMatchObject({ code: -32602, message: "Invalid cursor" });
    server.close();
  });

  it("result waits for the end: the result with the related-task _meta, the task's error, or -32602 when cancelled", async () => {
    const server = createTasksServerFor(PLAIN, BINDINGS);
    const done = await server.createTask(alice);
    const answer = call(server, "t/result", { taskId: done.taskId });
    await done.complete({ n: 1, _meta: { keep: true } });
    expect(resultOf(await answer)).toEqual({ n: 1, _meta: { keep: true, "io.modelcontextprotocol/related-task": { taskId: done.taskId } } });
    const failed = await server.createTask(alice);
    await failed.fail({ code: -32000, message: "broke", data: { why: 1 } });
    expect(errorOf(await call(server, "t/result", { taskId: failed.taskId }))).toEqual({ code: -32000, message: "broke", data: { why: 1 } });
    const cancelled = await server.createTask(alice);
    await call(server, "t/cancel", { taskId: cancelled.taskId });
    expect(errorOf(await call(server, "t/result", { taskId: cancelled.taskId }))).toMatchObject({ code: -32602, message: "The task was cancelled; it has no result" });
    server.close();
  });
});

describe("handles, notifications and options", () => {
  it("notifies subscribers of every change with the profile's notification; a throwing listener is reported, not fatal", async () => {
    const errors: unknown[] = [];
    const server = createTasksServerFor(DRAFT, BINDINGS, { onError: (e) => errors.push(e) });
    const seen: [string, string, string][] = [];
    const unsubscribe = server.subscribe((n, owner) => seen.push([n.method, n.params.status, owner]));
    server.subscribe(() => {
      throw new Error("listener broke");
    });
    const handle = await server.createTask(alice);
    await handle.update("half way");
    await handle.complete({ n: 1 });
    expect(seen).toEqual([
      ["n/tasks", "working", "alice"],
      ["n/tasks", "working", "alice"],
      ["n/tasks", "completed", "alice"],
    ]);
    expect(errors).toHaveLength(3);
    unsubscribe();
    await server.createTask(alice);
    expect(seen).toHaveLength(3);
    server.close();
  });

  it("has no subscribe without a notification in the profile", () => {
    const server = createTasksServerFor(MINIMAL, BINDINGS);
    expect(server).not.toHaveProperty("subscribe");
    server.close();
  });

  it("creates tasks with the granted TTL and the polling interval, and refuses changes to a finished one with the set's state error", async () => {
    const now = () => 1_000_000;
    const server = createTasksServerFor(DRAFT, BINDINGS, { now, maxTtl: 10_000, pollInterval: 250 });
    const handle = await server.createTask(alice, { ttl: 99_000, statusMessage: "starting" });
    expect(handle.createResult).toMatchObject({ resultType: "task", status: "working", statusMessage: "starting", ttlMs: 10_000, pollMs: 250 });
    await expect(handle.complete("nope" as never)).rejects.toBeInstanceOf(TypeError);
    await expect(handle.fail({ message: "no code" } as never)).rejects.toBeInstanceOf(TypeError);
    await handle.fail({ code: -32000, message: "broke" });
    const refused = handle.update("too late");
    await expect(refused).rejects.toBeInstanceOf(StateError);
    await expect(refused).rejects.toMatchObject({ status: "failed", message: "Cannot update the status message: the task is already failed" });
    server.close();
  });

  it("resumes an unfinished task only", async () => {
    const server = createTasksServerFor(DRAFT, BINDINGS);
    const running = await server.createTask(alice);
    const finished = await server.createTask(alice);
    await finished.complete({});
    expect((await server.resumeTask(alice, running.taskId))?.taskId).toBe(running.taskId);
    expect(await server.resumeTask(alice, finished.taskId)).toBeUndefined();
    expect(await server.resumeTask({ owner: "bob" }, running.taskId)).toBeUndefined();
    server.close();
  });

  it("holds a task route's validator to params with the task id (this file is type-checked by `npm run typecheck`)", () => {
    const route = { method: "t/get", paramsRequired: true, stripMeta: false } as const;
    const holds: ServerProfile["routes"] = [{ ...route, role: "get", validate: taskIdParams() }];
    // @ts-expect-error listParams does not promise a taskId, so it cannot validate a route on one task
    const refused: ServerProfile["routes"] = [{ ...route, role: "get", validate: listParams }];
    expect([holds, refused]).toHaveLength(2);
  });

  it("refuses a profile whose routes need a part it lacks, when the server is created", () => {
    expect(() => createTasksServerFor({ ...PLAIN, list: undefined }, BINDINGS)).toThrow("server profile: t/list (list) needs the profile's list");
    expect(() => createTasksServerFor({ ...DRAFT, input: undefined }, BINDINGS)).toThrow("server profile: t/update (update) needs the profile's input");
  });

  it("answers JSON-RPC envelopes as server-core does: nothing for a notification, -32600 for what is not a request", async () => {
    const server = createTasksServerFor(MINIMAL, BINDINGS);
    expect(await server.handle({ jsonrpc: "2.0", method: "t/get" })).toBeUndefined();
    expect(await server.handle({ id: 1, method: "t/get" })).toMatchObject({ id: 1, error: { code: -32600 } });
    server.close();
  });
});
