import { describe, expect, it } from "vitest";
import { isObject, ValidationFailed, type JsonObject, type ValidationResult } from "../../../templates/runtime/protocol/json.js";
import {
  InvalidResponseError,
  TaskInputError,
  TasksClientClosedError,
  type BodyCheck,
  type MethodSpec,
  type TasksClientHeaders,
  type TasksClientRequest,
  type TasksClientSend,
} from "../../../templates/runtime/client/core.js";
import { checkAnswer, formCheck, runInputHandler } from "../../../templates/runtime/client/input-answers.js";
import { TasksClientEngine } from "../../../templates/runtime/client/engine.js";
import { createdTaskId } from "../../../templates/runtime/client/task-profile.js";
import {
  TaskCancelledErrorOf,
  TaskFailedErrorOf,
  type ClientInput,
  type ClientOptions,
  type ClientProfile,
  type InputRequestContext,
} from "../../../templates/runtime/client/profile.js";

/**
 * The client engine of generated Tasks clients (templates/runtime/client/engine.ts), tested as
 * source over a fake peer and two small profiles standing in for a set's client.ts: one shaped
 * like the 2025-11-25 revision (task augmentation, `tasks/result`, `tasks/list` pages, `{ task }`
 * results) and one like the tasks extension (extension `_meta` and routing headers, `resultType`,
 * flat results, snapshots that inline their outcome, input requests answered with `tasks/update`).
 * Each test pins a branch a profile field selects, which a template flag used to select.
 */

// ---------------------------------------------------------------------------------------------
// Fakes

/** A check that accepts any object as a T, or runs `rule` on it (a stand-in for a set's validator). */
function check<T>(type: string, rule: (value: JsonObject) => string | undefined = () => undefined): BodyCheck<T> {
  return {
    type,
    validate: (value: unknown): ValidationResult<T> => {
      const problem = isObject(value) ? rule(value) : "must be an object";
      return problem === undefined ? { ok: true, value: value as T } : { ok: false, errors: [{ path: "", keyword: "type", message: problem, schemaPath: "" }] };
    },
  };
}

function spec<R>(method: string, rule?: (value: JsonObject) => string | undefined): MethodSpec<JsonObject, R> {
  return { method, params: check<JsonObject>(`${method} params`, rule), paramsRequired: false, paramsMetaApart: false, result: check<R>(`${method} result`) };
}

type Answer = { result: unknown } | { error: { code: number; message: string } };

/** A peer that answers each request with `answer` and records what it was sent. */
function peer(answer: (request: TasksClientRequest) => Answer | Promise<Answer>) {
  const sent: { request: TasksClientRequest; headers: TasksClientHeaders }[] = [];
  const send: TasksClientSend = async (request, headers) => {
    sent.push({ request, headers });
    return { jsonrpc: "2.0", id: request.id, ...(await answer(request)) };
  };
  const methods = () => sent.map((s) => s.request.method);
  return { send, sent, methods };
}

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
const task = (status: string, extra: JsonObject = {}) => ({ taskId: "t1", status, lastUpdatedAt: at(extra.n === undefined ? 0 : Number(extra.n)), createdAt: at(0), ttl: null, ...extra });
const isTerminalStatus = (status: string) => ["completed", "failed", "cancelled"].includes(status);
const FAST: Pick<ClientOptions, "minPollMs" | "maxPollMs"> = { minPollMs: 1, maxPollMs: 2 };

// ---------------------------------------------------------------------------------------------
// A 2025-11-25-like profile: augmentation, tasks/result, list pages, `{ task }` results

type Task = { taskId: string; status: string; statusMessage?: string; lastUpdatedAt: string; createdAt: string; ttl: number | null };
type Types2025 = {
  snapshot: Task;
  task: Task;
  created: { task: Task };
  result: JsonObject;
  payload: JsonObject;
  answer: never;
  handlers: undefined;
  augment: { ttl?: number };
};

class Failed2025 extends TaskFailedErrorOf<Task, JsonObject> {}
class Cancelled2025 extends TaskCancelledErrorOf<Task> {}

const PROFILE_2025: ClientProfile<Types2025> = {
  methods: { get: spec<Task>("tasks/get"), payload: spec<JsonObject>("tasks/result"), list: spec("tasks/list"), cancel: spec("tasks/cancel") },
  created: { check: check("CreateTaskResult", (v) => (isObject(v.task) ? undefined : "task is required")), flat: false },
  isTerminalStatus,
  resultTag: "none",
  fields: { ttl: "ttl", pollInterval: "pollInterval" },
  list: { items: "tasks", nextCursor: "nextCursor" },
  notification: { method: "notifications/tasks/status", check: check("TaskStatusNotificationParams") },
  augment: { field: "task", check: check("TaskMetadata", (v) => (v.ttl === undefined || typeof v.ttl === "number" ? undefined : "ttl must be a number")) },
  payloadDeliversInput: true,
  errors: { failed: Failed2025, cancelled: Cancelled2025 },
};

/** What a set's client.ts adds: a typed method per task method. */
class Client2025 extends TasksClientEngine<Types2025> {
  getTask(params: { taskId: string }) {
    return this.call(PROFILE_2025.methods.get, params);
  }
  allTasks(params: JsonObject = {}): AsyncGenerator<Task, void, undefined> {
    return this.pages(params);
  }
  createTask(method: string, params: JsonObject, augmentation: { ttl?: number } = {}) {
    return this.createWith(method, params, augmentation, {});
  }
}

describe("client engine, 2025-11-25-like profile", () => {
  it("sends a tool call as a plain request without augmentation, and as a task with it", async () => {
    const { send, sent } = peer((r) => ({ result: isObject(r.params?.task) ? { task: task("working") } : { content: [] } }));
    const client = new Client2025(PROFILE_2025, { send });
    expect(await client.startToolCall({ name: "echo" })).toEqual({ kind: "complete", result: { content: [] } });
    const started = await client.startToolCall({ name: "echo" }, { task: { ttl: 5 } } as object);
    expect(started).toEqual({ kind: "task", task: task("working") });
    expect(sent[1]!.request.params).toEqual({ name: "echo", task: { ttl: 5 } });
    // No routing headers, no _meta added where tasks are no extension.
    expect(sent.map((s) => s.headers)).toEqual([{}, {}]);
  });

  it("a receiver that runs an augmented tool call as a plain request answers its result", async () => {
    const { send } = peer(() => ({ result: { content: ["done"] } }));
    const client = new Client2025(PROFILE_2025, { send });
    expect(await client.startToolCall({ name: "echo" }, { task: {} } as object)).toEqual({ kind: "complete", result: { content: ["done"] } });
  });

  it("createTask checks the augmentation before anything is sent (errors under its field)", async () => {
    const { send, sent } = peer(() => ({ result: { task: task("working") } }));
    const client = new Client2025(PROFILE_2025, { send });
    const rejected = await client.createTask("tools/call", { name: "x" }, { ttl: "soon" } as never).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(ValidationFailed);
    expect((rejected as ValidationFailed).errors[0]!.path).toBe("/task");
    expect(sent).toEqual([]);
    expect(await client.createTask("tools/call", { name: "x" }, { ttl: 9 })).toEqual({ task: task("working") });
    expect(sent[0]!.request.params).toEqual({ name: "x", task: { ttl: 9 } });
  });

  it("reads a completed task's result from tasks/result", async () => {
    const { send, methods } = peer((r) => ({ result: r.method === "tasks/get" ? task("completed") : { content: ["42"] } }));
    const client = new Client2025(PROFILE_2025, { send, ...FAST });
    expect(await client.waitForTask("t1")).toEqual({ content: ["42"] });
    expect(methods()).toEqual(["tasks/get", "tasks/result"]);
  });

  it("a failed task carries the JSON-RPC error tasks/result answers, or the result it answers instead", async () => {
    const failing = peer((r) => (r.method === "tasks/get" ? { result: task("failed") } : { error: { code: -32603, message: "boom" } }));
    const error = await new Client2025(PROFILE_2025, { send: failing.send, ...FAST }).waitForTask("t1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Failed2025);
    expect((error as Failed2025).error).toEqual({ code: -32603, message: "boom" });
    const answering = peer((r) => ({ result: r.method === "tasks/get" ? task("failed") : { isError: true } }));
    const second = (await new Client2025(PROFILE_2025, { send: answering.send, ...FAST }).waitForTask("t1").catch((e: unknown) => e)) as Failed2025;
    expect([second.error, second.result]).toEqual([undefined, { isError: true }]);
  });

  it("a cancelled task ends the wait with the set's cancelled error", async () => {
    const { send } = peer(() => ({ result: task("cancelled") }));
    await expect(new Client2025(PROFILE_2025, { send, ...FAST }).waitForTask("t1")).rejects.toBeInstanceOf(Cancelled2025);
  });

  it("pages through tasks/list by cursor, and stops on a cursor that comes back", async () => {
    const pages: Record<string, JsonObject> = { "": { tasks: [task("working")], nextCursor: "a" }, a: { tasks: [task("completed", { taskId: "t2" })], nextCursor: "b" }, b: { tasks: [] } };
    const { send, sent } = peer((r) => ({ result: pages[String(r.params?.cursor ?? "")]! }));
    const client = new Client2025(PROFILE_2025, { send });
    const seen: string[] = [];
    for await (const t of client.allTasks({ limit: 1 })) seen.push(t.taskId);
    expect(seen).toEqual(["t1", "t2"]);
    expect(sent.map((s) => s.request.params)).toEqual([{ limit: 1 }, { limit: 1, cursor: "a" }, { limit: 1, cursor: "b" }]);

    const looping = peer(() => ({ result: { tasks: [], nextCursor: "same" } }));
    const pagesOf = async () => {
      for await (const _ of new Client2025(PROFILE_2025, { send: looping.send }).allTasks()) void _;
    };
    await expect(pagesOf()).rejects.toThrow(/the cursor "same" came back/);
  });

  it("a list without a cursor field is one page; a client without tasks/list has no pages", async () => {
    const { send, sent } = peer(() => ({ result: { tasks: [task("working")], nextCursor: "ignored" } }));
    const onePage = new Client2025({ ...PROFILE_2025, list: { items: "tasks" } }, { send });
    const seen: Task[] = [];
    for await (const t of onePage.allTasks()) seen.push(t);
    expect([seen.length, sent.length]).toEqual([1, 1]);
    const { list: _, ...withoutList } = PROFILE_2025;
    await expect(new Client2025(withoutList, { send }).allTasks().next()).rejects.toThrow("this client has no tasks/list");
  });

  it("a tool call abandoned by its signal cancels the `{ task }` it created anyway", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const { send, methods, sent } = peer(async (r) => {
      if (r.method === "tools/call") await held;
      return { result: r.method === "tools/call" ? { task: task("working") } : {} };
    });
    const controller = new AbortController();
    const client = new Client2025(PROFILE_2025, { send });
    const started = client.startToolCall({ name: "slow" }, { signal: controller.signal, task: {} } as object);
    controller.abort(new Error("stop"));
    await expect(started).rejects.toThrow("stop");
    release();
    await expect.poll(methods).toEqual(["tools/call", "tasks/cancel"]);
    expect(sent[1]!.request.params).toEqual({ taskId: "t1" });
  });

  it("delivers valid status notifications to listeners and reports invalid ones", async () => {
    const reported: unknown[] = [];
    const listeners: ((n: unknown) => void)[] = [];
    const client = new Client2025(PROFILE_2025, { send: peer(() => ({ result: {} })).send, onError: (e) => reported.push(e), onNotification: (l) => void listeners.push(l) });
    const heard: string[] = [];
    client.onTaskStatus((t) => heard.push(t.status));
    listeners[0]!({ jsonrpc: "2.0", method: "notifications/tasks/status", params: task("working") });
    listeners[0]!({ jsonrpc: "2.0", method: "notifications/tasks/status", params: "not an object" });
    listeners[0]!({ jsonrpc: "2.0", method: "notifications/other", params: task("failed") });
    expect(heard).toEqual(["working"]);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(InvalidResponseError);
  });

  it("close rejects pending waits and later requests", async () => {
    const { send } = peer(() => ({ result: task("working") }));
    const client = new Client2025(PROFILE_2025, { send, ...FAST });
    const waiting = client.waitForTask("t1");
    client.close();
    await expect(waiting).rejects.toBeInstanceOf(TasksClientClosedError);
    await expect(client.request("ping")).rejects.toBeInstanceOf(TasksClientClosedError);
  });
});

// ---------------------------------------------------------------------------------------------
// An extension-like profile: `_meta` and routing headers, resultType, flat and detailed results, input

type ExtTask = Task & { result?: JsonObject; error?: unknown; inputRequests?: Record<string, unknown> };
type Handlers = { readonly [method: string]: ((params: unknown, context: InputRequestContext) => unknown) | undefined };
type TypesExt = {
  snapshot: ExtTask;
  task: ExtTask;
  created: ExtTask;
  result: JsonObject;
  payload: never;
  answer: JsonObject;
  handlers: Handlers;
  augment: never;
};

class FailedExt extends TaskFailedErrorOf<ExtTask, never> {}
class CancelledExt extends TaskCancelledErrorOf<ExtTask> {}

const UPDATE = spec("tasks/update", (v) => (Object.values(objectOf(v.inputResponses)).every((a) => isObject(a) && typeof a.action === "string") ? undefined : "an answer needs an action"));
const objectOf = (value: unknown): JsonObject => (isObject(value) ? value : {});

/** Forms checked by a stand-in for `validateElicitationContent`: the content must have a `name`. */
class FormInvalid extends Error {
  constructor(
    readonly invalid: string,
    readonly errors: readonly string[],
  ) {
    super(`invalid ${invalid}: ${errors.join("; ")}`);
  }
}
const FORMS = formCheck("elicitation/create", (_schema, content) => (isObject(content) && typeof content.name === "string" ? { ok: true } : { ok: false, invalid: "content", errors: ["name is required"] }), FormInvalid);

const INPUT: ClientInput = {
  requestsField: "inputRequests",
  responsesField: "inputResponses",
  update: UPDATE,
  routing: { "elicitation/create": { params: true, cancelByDefault: true }, "roots/list": { params: false, cancelByDefault: false } },
  forms: FORMS,
};

const PROFILE_EXT: ClientProfile<TypesExt> = {
  methods: { get: spec<ExtTask>("tasks/get"), update: UPDATE, cancel: spec("tasks/cancel") },
  created: {
    check: check("CreateTaskResult", (v) => (Object.hasOwn(v, "result") ? "a created task inlines nothing" : undefined)),
    flat: true,
    detailed: {
      check: check("DetailedTask"),
      inlined: [{ status: "completed", field: "result" }, { status: "failed", field: "error" }],
      isSnapshot: (value): value is ExtTask => isObject(value) && typeof value.taskId === "string",
    },
  },
  isTerminalStatus,
  resultTag: "apart",
  fields: { ttl: "ttl", completed: "result", failed: "error" },
  extension: { id: "io.example/tasks", capabilitiesMeta: "io.example/clientCapabilities", taskMethods: ["tasks/get", "tasks/update", "tasks/cancel"] },
  payloadDeliversInput: false,
  input: INPUT,
  errors: { failed: FailedExt, cancelled: CancelledExt },
};

class ClientExt extends TasksClientEngine<TypesExt> {}

describe("client engine, extension-like profile", () => {
  it("declares the extension in every request's _meta, beside the client's meta and capabilities, with routing headers", async () => {
    const { send, sent } = peer(() => ({ result: { resultType: "complete" } }));
    const client = new ClientExt(PROFILE_EXT, { send, meta: { trace: 1 }, clientCapabilities: { extensions: { other: {} }, roots: {} } } as ClientOptions);
    await client.request("ping");
    await client.request("tasks/get", { taskId: "t9", _meta: { own: true } });
    await client.request("tools/call", { name: "echo" });
    const capabilities = { extensions: { other: {}, "io.example/tasks": {} }, roots: {} };
    expect(sent[0]!.request.params).toEqual({ _meta: { trace: 1, "io.example/clientCapabilities": capabilities } });
    expect(sent[1]!.request.params).toEqual({ taskId: "t9", _meta: { trace: 1, own: true, "io.example/clientCapabilities": capabilities } });
    expect(sent.map((s) => s.headers)).toEqual([
      { "Mcp-Method": "ping" },
      { "Mcp-Method": "tasks/get", "Mcp-Name": "t9" },
      { "Mcp-Method": "tools/call", "Mcp-Name": "echo" },
    ]);
  });

  it("tells a created task from a complete result by resultType, and checks a task that inlines its outcome as a snapshot", async () => {
    const answers: JsonObject[] = [{ resultType: "complete", content: [] }, { resultType: "task", ...task("working") }, { resultType: "task", ...task("completed", { result: { content: ["x"] } }) }];
    const { send } = peer(() => ({ result: answers.shift()! }));
    const client = new ClientExt(PROFILE_EXT, { send, ...FAST });
    expect(await client.startToolCall({ name: "a" })).toEqual({ kind: "complete", result: { content: [] } });
    expect(await client.startToolCall({ name: "b" })).toEqual({ kind: "task", task: task("working") });
    // CreateTaskResult would reject the inlined result: it was checked as the detailed task.
    expect(await client.callTool({ name: "c" })).toEqual({ content: ["x"] });
  });

  it("a task method answered with resultType task is an invalid response", async () => {
    const { send } = peer(() => ({ result: { resultType: "task", ...task("working") } }));
    const client = new ClientExt(PROFILE_EXT, { send });
    await expect(client.waitForTask("t1")).rejects.toThrow(/resultType is "task", expected "complete"/);
  });

  it("reads the outcome inlined in the snapshot: a result, or the JSON-RPC error of a failed task", async () => {
    const done = peer(() => ({ result: { resultType: "complete", ...task("completed", { result: { content: ["ok"] } }) } }));
    expect(await new ClientExt(PROFILE_EXT, { send: done.send, ...FAST }).waitForTask("t1")).toEqual({ content: ["ok"] });
    const failed = peer(() => ({ result: { resultType: "complete", ...task("failed", { error: { code: 7, message: "no" } }) } }));
    const error = (await new ClientExt(PROFILE_EXT, { send: failed.send, ...FAST }).waitForTask("t1").catch((e: unknown) => e)) as FailedExt;
    expect(error).toBeInstanceOf(FailedExt);
    expect(error.error).toEqual({ code: 7, message: "no" });
    expect(error.message).toBe("task t1 failed: no (7)");
  });

  it("answers input requests through tasks/update, cancelling an elicitation nobody handles", async () => {
    const snapshots = [task("input_required", { inputRequests: { k1: { method: "elicitation/create", params: { message: "?" } } } }), task("completed", { n: 1, result: {} })];
    const { send, sent } = peer((r) => (r.method === "tasks/get" ? { result: { resultType: "complete", ...snapshots[Math.min(sent.filter((s) => s.request.method === "tasks/get").length - 1, 1)]! } } : { result: { resultType: "complete" } }));
    const client = new ClientExt(PROFILE_EXT, { send, ...FAST });
    expect(await client.waitForTask("t1")).toEqual({});
    const update = sent.find((s) => s.request.method === "tasks/update")!;
    expect(update.request.params).toMatchObject({ taskId: "t1", inputResponses: { k1: { action: "cancel" } } });
  });

  it("an accepting answer that does not fit its form ends the wait, and nothing is sent", async () => {
    const request = { method: "elicitation/create", params: { message: "?", requestedSchema: { type: "object" } } };
    const { send, methods } = peer(() => ({ result: { resultType: "complete", ...task("input_required", { inputRequests: { k1: request } }) } }));
    const client = new ClientExt(PROFILE_EXT, { send, ...FAST });
    const error = (await client.waitForTask("t1", { inputHandlers: { "elicitation/create": () => ({ action: "accept", content: {} }) } }).catch((e: unknown) => e)) as TaskInputError;
    expect(error).toBeInstanceOf(TaskInputError);
    expect(error.cause).toBeInstanceOf(FormInvalid);
    expect(methods()).not.toContain("tasks/update");
  });
});

// ---------------------------------------------------------------------------------------------
// The pieces a profile selects, one by one

describe("input routing", () => {
  const context = (method: string): InputRequestContext => ({ taskId: "t1", key: "k", method, signal: new AbortController().signal });
  const echo = (params: unknown) => ({ got: params ?? "nothing" });

  it("typed: a handler gets the request's params where its request has them, undefined where not", async () => {
    const routing = INPUT.routing;
    expect(await runInputHandler(routing, { "elicitation/create": echo }, { method: "elicitation/create", params: { a: 1 } }, context("elicitation/create"))).toEqual({ got: { a: 1 } });
    expect(await runInputHandler(routing, { "roots/list": echo }, { method: "roots/list", params: { a: 1 } }, context("roots/list"))).toEqual({ got: "nothing" });
  });

  it("typed: without a handler an elicitation is cancelled, another routed method has no answer, and an unrouted method none even with a handler", async () => {
    const routing = INPUT.routing;
    expect(await runInputHandler(routing, {}, { method: "elicitation/create" }, context("elicitation/create"))).toEqual({ action: "cancel" });
    expect(runInputHandler(routing, {}, { method: "roots/list" }, context("roots/list"))).toBeUndefined();
    expect(runInputHandler(routing, { "sampling/createMessage": echo }, { method: "sampling/createMessage" }, context("sampling/createMessage"))).toBeUndefined();
  });

  it("untyped: any method with a handler, given its params as an object; only an elicitation is cancelled by default", async () => {
    expect(await runInputHandler(undefined, { "x/y": echo }, { method: "x/y", params: "odd" }, context("x/y"))).toEqual({ got: {} });
    expect(await runInputHandler(undefined, { "x/y": echo }, { method: "x/y", params: { b: 2 } }, context("x/y"))).toEqual({ got: { b: 2 } });
    expect(await runInputHandler(undefined, {}, { method: "elicitation/create" }, context("elicitation/create"))).toEqual({ action: "cancel" });
    expect(runInputHandler(undefined, {}, { method: "roots/list" }, context("roots/list"))).toBeUndefined();
  });

  it("a handler that throws rejects its answer instead of throwing", async () => {
    const thrown = runInputHandler(undefined, { "x/y": () => { throw new Error("handler broke"); } }, { method: "x/y" }, context("x/y"));
    await expect(thrown).rejects.toThrow("handler broke");
  });

  it("an answer is checked as part of tasks/update's params: an object, valid, under its key", () => {
    expect(checkAnswer(INPUT, "t1", "a/b", "yes")).toMatchObject({ ok: false, error: { errors: [{ path: "/inputResponses/a~1b" }] } });
    expect(checkAnswer(INPUT, "t1", "k", { nope: 1 })).toMatchObject({ ok: false, error: { message: expect.stringContaining("an answer needs an action") } });
    expect(checkAnswer(INPUT, "t1", "k", { action: "decline" })).toEqual({ ok: true, value: { action: "decline" } });
  });
});

describe("the id of a created task (to cancel one nobody waits for)", () => {
  it("flat with resultType: only a result tagged task created one", () => {
    expect(createdTaskId(PROFILE_EXT, { resultType: "task", taskId: "t1" })).toBe("t1");
    expect(createdTaskId(PROFILE_EXT, { resultType: "complete", taskId: "t1" })).toBeUndefined();
  });

  it("flat without resultType: the result's taskId; `{ task }`: the task's", () => {
    expect(createdTaskId<TypesExt>({ ...PROFILE_EXT, resultTag: "none" }, { taskId: "t1" })).toBe("t1");
    expect(createdTaskId(PROFILE_2025, { task: { taskId: "t2" } })).toBe("t2");
    expect(createdTaskId(PROFILE_2025, { taskId: "t2" })).toBeUndefined();
  });
});
