import fc from "fast-check";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createTasksClient,
  InvalidResponseError,
  RequestTimeoutError,
  TaskCancelledError,
  TaskExpiredError,
  TaskFailedError,
  TaskInputError,
  ValidationFailed,
  type InputHandlers,
  type TasksClient,
  type TasksClientOptions,
  type TaskSnapshot,
} from "../../../generated/ext-tasks-draft/index.js";
import {
  CREATED_AT,
  FakePeer,
  RESULT,
  type NotificationFault,
  type RequestFault,
  type Script,
  type Step,
} from "../../support/client-ext-fake-peer.js";

/**
 * The generated ext-tasks client against a scripted peer that misbehaves on purpose: changing
 * poll intervals, duplicate, dropped and reordered notifications, stale answers, a terminal
 * status followed by lies, lost and hanging responses, input handlers that throw, and abort
 * while the task is being created. Time is faked, so every run is deterministic and fast.
 *
 * Invariants of every run: the wait settles exactly once; it reports nothing after the first
 * terminal snapshot and its outcome is that snapshot's; each input key's handler runs once and a
 * key is never sent again after an update carrying it succeeded; nothing is sent after the
 * outcome; and no promise rejection goes unhandled.
 */

type HandlerFault = "answer" | "throw" | "slow";

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => {
  process.on("unhandledRejection", onUnhandled);
});
afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(CREATED_AT);
  unhandled.length = 0;
});
afterEach(() => {
  vi.useRealTimers();
});

const CLIENT_OPTIONS = { minPollMs: 10, maxPollMs: 2_000, requestTimeoutMs: 1_000 } as const;

function script(overrides: Partial<Script> = {}): Script {
  return { steps: [], terminal: "completed", terminalDelayMs: 50, lies: [], requestFaults: [], notificationFaults: [], latencies: [], ...overrides };
}

interface Outcome {
  settled: number;
  value?: unknown;
  error?: unknown;
}

/** Follows a promise's outcome without ever leaving a rejection unhandled. */
function track(promise: Promise<unknown>): Outcome {
  const outcome: Outcome = { settled: 0 };
  promise.then(
    (value) => {
      outcome.settled++;
      outcome.value = value;
    },
    (error: unknown) => {
      outcome.settled++;
      outcome.error = error;
    },
  );
  return outcome;
}

/** A peer whose task exists already (its tools/call was sent outside any client). */
async function createdPeer(s: Script): Promise<FakePeer> {
  const peer = new FakePeer(s);
  const answer = peer.send({ id: 0, method: "tools/call", params: { name: "job" } }, {}, { signal: new AbortController().signal });
  await vi.advanceTimersByTimeAsync(s.createDelayMs ?? 1);
  await answer;
  return peer;
}

/** Advances fake time in steps until the outcome is in (or the budget runs out). */
async function until(outcome: Outcome, budgetMs = 300_000): Promise<void> {
  for (let spent = 0; spent < budgetMs && outcome.settled === 0; spent += 100) await vi.advanceTimersByTimeAsync(100);
}

/** Lets pending rejections surface (unhandledRejection fires after the microtask queue drains). */
function drainRejections(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

interface Run {
  readonly peer: FakePeer;
  readonly updates: TaskSnapshot[];
  readonly handlerCalls: Map<string, number>;
  readonly threw: Set<string>;
  readonly outcome: Outcome;
  readonly sentAfterOutcome: string[];
}

async function runCallTool(s: Script, handlerFaults: readonly HandlerFault[], options: Partial<TasksClientOptions> = {}): Promise<Run> {
  const peer = new FakePeer(s);
  const client = createTasksClient({ send: peer.send, onNotification: peer.subscribe, ...CLIENT_OPTIONS, ...options });
  const updates: TaskSnapshot[] = [];
  const handlerCalls = new Map<string, number>();
  const threw = new Set<string>();
  let nextFault = 0;
  const handlers: InputHandlers = {
    "elicitation/create": async (_params, { key }) => {
      handlerCalls.set(key, (handlerCalls.get(key) ?? 0) + 1);
      const fault = handlerFaults[nextFault++] ?? "answer";
      if (fault === "throw") {
        threw.add(key);
        throw new Error(`handler for ${key} broke`);
      }
      if (fault === "slow") await new Promise((resolve) => setTimeout(resolve, 200));
      return { action: "accept", content: { key } };
    },
  };
  const outcome = track(client.callTool({ name: "job" }, { onUpdate: (t) => updates.push(t), inputHandlers: handlers }));
  await until(outcome);
  const sentBefore = peer.requests.length;
  // Time goes on after the outcome: a finished wait must not poll or answer any more.
  await vi.advanceTimersByTimeAsync(30_000);
  const sentAfterOutcome = peer.requests.slice(sentBefore).map((r) => r.method);
  client.close();
  await drainRejections();
  return { peer, updates, handlerCalls, threw, outcome, sentAfterOutcome };
}

const isTerminal = (status: string) => status === "completed" || status === "failed" || status === "cancelled";

/** The outcome a terminal snapshot stands for. */
function expectOutcomeOf(task: TaskSnapshot, outcome: Outcome): void {
  if (task.status === "completed") expect(outcome.value).toEqual(task.result);
  else if (task.status === "failed") {
    expect(outcome.error).toBeInstanceOf(TaskFailedError);
    expect((outcome.error as TaskFailedError).error).toEqual(task.error);
  } else expect(outcome.error).toBeInstanceOf(TaskCancelledError);
}

function checkInvariants(run: Run): void {
  const { peer, updates, handlerCalls, threw, outcome } = run;
  expect(outcome.settled).toBe(1);
  // Reports stay in order of change (a terminal status is final even when a lie came with a newer
  // timestamp), and nothing is reported after the first terminal snapshot.
  const times = updates.filter((u) => !isTerminal(u.status)).map((u) => Date.parse(u.lastUpdatedAt));
  expect(times).toEqual([...times].sort((a, b) => a - b));
  const firstTerminal = updates.findIndex((u) => isTerminal(u.status));
  if (firstTerminal >= 0) {
    expect(firstTerminal).toBe(updates.length - 1);
    expectOutcomeOf(updates[firstTerminal]!, outcome);
  } else {
    // Without a terminal snapshot only an input handler that failed ends the wait.
    expect(outcome.error).toBeInstanceOf(TaskInputError);
    expect(threw.size).toBeGreaterThan(0);
  }
  // Each key's handler ran once; a key is never sent again once an update carrying it succeeded.
  for (const calls of handlerCalls.values()) expect(calls).toBe(1);
  for (const key of handlerCalls.keys()) {
    const carrying = peer.updates.filter((u) => u.keys.includes(key));
    const confirmed = carrying.findIndex((u) => u.outcome === "confirmed");
    if (confirmed >= 0) expect(confirmed).toBe(carrying.length - 1);
  }
  for (const answers of peer.accepted.values()) expect(answers).toHaveLength(1);
  expect(run.sentAfterOutcome).toEqual([]);
  expect(unhandled).toEqual([]);
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  status: fc.constantFrom("working" as const, "input_required" as const),
  keys: fc.integer({ min: 1, max: 2 }),
  pollIntervalMs: fc.option(fc.integer({ min: 0, max: 3_000 }), { nil: undefined }),
  delayMs: fc.integer({ min: 0, max: 400 }),
});
const requestFaultArb = fc.constantFrom<RequestFault>("none", "none", "none", "reject", "processed-then-reject", "hang", "stale");
const notificationFaultArb = fc.constantFrom<NotificationFault>("deliver", "deliver", "drop", "duplicate", "delay");
const scriptArb: fc.Arbitrary<Script> = fc.record({
  steps: fc.array(stepArb, { maxLength: 5 }),
  terminal: fc.constantFrom("completed" as const, "failed" as const, "cancelled" as const),
  terminalDelayMs: fc.integer({ min: 0, max: 400 }),
  lies: fc.array(fc.constantFrom("stale-working" as const, "other-terminal" as const), { maxLength: 2 }),
  requestFaults: fc.array(requestFaultArb, { maxLength: 30 }),
  notificationFaults: fc.array(notificationFaultArb, { maxLength: 12 }),
  latencies: fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 30 }),
});
const handlerFaultsArb = fc.array(fc.constantFrom<HandlerFault>("answer", "answer", "answer", "throw", "slow"), { maxLength: 10 });

describe("waitForTask under fault injection (property)", () => {
  it("settles once, with the first terminal snapshot's outcome, answering each input key once", async () => {
    await fc.assert(
      fc.asyncProperty(scriptArb, handlerFaultsArb, async (s, handlerFaults) => {
        const run = await runCallTool(s, handlerFaults);
        checkInvariants(run);
        // Handlers that never throw and a server that never lies: the outcome is the task's own terminal status.
        if (run.threw.size === 0 && s.lies.length === 0) expect(run.updates.at(-1)?.status).toBe(run.peer.trueTerminal);
      }),
      // CLIENT_FAULT_RUNS=5000 searches longer.
      { numRuns: Number(process.env.CLIENT_FAULT_RUNS ?? 150) },
    );
  });

  it("abort while the task is being created rejects with the reason, and the created task is cancelled", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 0, max: 800 }),
        fc.array(requestFaultArb, { maxLength: 4 }),
        async (createDelayMs, abortAtMs, requestFaults) => {
          // The task keeps working: only the abort ends the call.
          const peer = new FakePeer(script({ steps: [{ status: "working", keys: 0, pollIntervalMs: 50, delayMs: 1e9 }], requestFaults, createDelayMs }));
          const client = createTasksClient({ send: peer.send, onNotification: peer.subscribe, ...CLIENT_OPTIONS });
          const controller = new AbortController();
          const reason = new Error("user abort");
          setTimeout(() => controller.abort(reason), abortAtMs);
          const outcome = track(client.callTool({ name: "job" }, { signal: controller.signal }));
          await until(outcome);
          await vi.advanceTimersByTimeAsync(5_000);
          expect(outcome).toMatchObject({ settled: 1, error: reason });
          // Before or after the answer came, the task the request created belongs to nobody: it is cancelled.
          expect(peer.requests.filter((r) => r.method === "tasks/cancel").map((r) => r.params.taskId)).toContain(peer.taskId);
          // And nothing keeps polling it.
          const sent = peer.requests.length;
          await vi.advanceTimersByTimeAsync(10_000);
          expect(peer.requests.length).toBe(sent);
          client.close();
          await drainRejections();
          expect(unhandled).toEqual([]);
        },
      ),
      { numRuns: Number(process.env.CLIENT_FAULT_RUNS ?? 100) },
    );
  });
});

describe("waitForTask, scenario by scenario", () => {
  /** The times of the tasks/get requests a run sent, relative to the first. */
  const pollTimes = (peer: FakePeer) => {
    const times = peer.requests.filter((r) => r.method === "tasks/get").map((r) => r.at);
    return times.map((t) => t - times[0]!);
  };

  it("re-reads pollIntervalMs from every snapshot", async () => {
    // 100 ms at first, 400 ms from 650 ms on; notifications dropped, so only polls see the change.
    const s = script({
      steps: [
        { status: "working", keys: 0, pollIntervalMs: 100, delayMs: 0 },
        { status: "working", keys: 0, pollIntervalMs: 400, delayMs: 650 },
      ],
      terminalDelayMs: 2_000,
      notificationFaults: Array(10).fill("drop"),
    });
    const run = await runCallTool(s, [], { minPollMs: 1, requestTimeoutMs: 0 });
    checkInvariants(run);
    const times = pollTimes(run.peer);
    // Each poll goes out one interval after the previous answer (which takes 1 ms).
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    const switchAt = gaps.indexOf(401);
    expect(switchAt).toBeGreaterThanOrEqual(5);
    expect(gaps.slice(0, switchAt).every((g) => g === 101)).toBe(true);
    expect(gaps.slice(switchAt)).toEqual(Array(gaps.length - switchAt).fill(401));
    expect(gaps.length - switchAt).toBeGreaterThanOrEqual(4);
  });

  it("clamps the interval into [minPollMs, maxPollMs]", async () => {
    const s = script({ steps: [{ status: "working", keys: 0, pollIntervalMs: 0, delayMs: 1_000 }], notificationFaults: Array(5).fill("drop") });
    const fast = await runCallTool(s, [], { minPollMs: 250, maxPollMs: 300 });
    checkInvariants(fast);
    expect(pollTimes(fast.peer).slice(1, 4).every((t, i) => t >= 250 * (i + 1))).toBe(true);
    const slow = await runCallTool(script({ steps: [{ status: "working", keys: 0, pollIntervalMs: 60_000, delayMs: 5_000 }], notificationFaults: Array(5).fill("drop") }), [], {
      minPollMs: 10,
      maxPollMs: 1_000,
    });
    checkInvariants(slow);
    expect(pollTimes(slow.peer).length).toBeGreaterThanOrEqual(5);
  });

  it("ignores duplicate notifications, a stale working after the terminal, and a second terminal", async () => {
    const s = script({
      steps: [{ status: "input_required", keys: 1, pollIntervalMs: 5_000, delayMs: 10 }],
      notificationFaults: ["duplicate", "duplicate", "duplicate", "duplicate"],
      lies: ["stale-working", "other-terminal"],
    });
    const run = await runCallTool(s, []);
    checkInvariants(run);
    expect(run.outcome.value).toEqual(RESULT);
    expect(run.updates.map((u) => u.status)).toEqual(["working", "input_required", "working", "completed"]);
  });

  it("an older snapshot arriving late (reordered notification, stale poll) is not reported", async () => {
    const s = script({
      steps: [
        { status: "working", keys: 0, pollIntervalMs: 20, delayMs: 50 },
        { status: "working", keys: 0, pollIntervalMs: 20, delayMs: 50 },
      ],
      notificationFaults: ["deliver", "delay", "deliver", "delay"],
      requestFaults: ["stale", "stale", "stale", "stale"],
    });
    const run = await runCallTool(s, []);
    checkInvariants(run);
    expect(run.outcome.value).toEqual(RESULT);
  });

  it("a lost tasks/update response: the answer is sent again, the handler is not asked again", async () => {
    const s = script({
      steps: [{ status: "input_required", keys: 1, pollIntervalMs: 50, delayMs: 10 }],
      // The first task request is the update (the first poll is due after 50 ms): it is lost.
      requestFaults: ["reject"],
      notificationFaults: ["deliver", "deliver", "drop"],
    });
    const run = await runCallTool(s, []);
    checkInvariants(run);
    expect(run.outcome.value).toEqual(RESULT);
    expect(run.handlerCalls.get("k1")).toBe(1);
    expect(run.peer.updates.map((u) => [u.keys, u.outcome])).toEqual([
      [["k1"], "failed"],
      [["k1"], "confirmed"],
    ]);
  });

  it("a handler that throws ends the wait with TaskInputError carrying the cause", async () => {
    const run = await runCallTool(script({ steps: [{ status: "input_required", keys: 1, pollIntervalMs: 50, delayMs: 10 }] }), ["throw"]);
    checkInvariants(run);
    const error = run.outcome.error as TaskInputError;
    expect(error).toBeInstanceOf(TaskInputError);
    expect(error).toMatchObject({ key: "k1", method: "elicitation/create" });
    expect((error.cause as Error).message).toBe("handler for k1 broke");
  });

  it("an input request for a method without a handler (other than elicitation) ends the wait with TaskInputError", async () => {
    const peer = await createdPeer(script({ steps: [{ status: "working", keys: 0, pollIntervalMs: 60_000, delayMs: 1e9 }] }));
    const client = createTasksClient({ send: peer.send, ...CLIENT_OPTIONS });
    // A notification saying the task asks for sampling: no handler, so the wait cannot go on.
    const outcome = track(client.waitForTask(peer.taskId));
    client.handleNotification({
      jsonrpc: "2.0",
      method: "notifications/tasks",
      params: { ...peer.snapshot(), status: "input_required", lastUpdatedAt: new Date(CREATED_AT + 1).toISOString(), inputRequests: { s1: { method: "sampling/createMessage", params: { messages: [], maxTokens: 1 } } } },
    });
    await until(outcome);
    expect(outcome.error).toMatchObject({ name: "TaskInputError", key: "s1", method: "sampling/createMessage" });
    client.close();
  });

  it("an answer that is not an object is refused before sending", async () => {
    const peer = new FakePeer(script({ steps: [{ status: "input_required", keys: 1, pollIntervalMs: 50, delayMs: 10 }] }));
    const client = createTasksClient({ send: peer.send, onNotification: peer.subscribe, ...CLIENT_OPTIONS });
    const outcome = track(client.callTool({ name: "job" }, { inputHandlers: { "elicitation/create": () => "yes" as never } }));
    await until(outcome);
    expect(outcome.error).toBeInstanceOf(TaskInputError);
    expect((outcome.error as TaskInputError).cause).toBeInstanceOf(ValidationFailed);
    expect(peer.updates).toEqual([]);
    client.close();
  });

  it("three lost polls in a row end the wait with the last transport error", async () => {
    const peer = new FakePeer(script({ steps: [{ status: "working", keys: 0, pollIntervalMs: 10, delayMs: 1e9 }] }));
    let polls = 0;
    const client = createTasksClient({
      ...CLIENT_OPTIONS,
      send: (request, headers, options) => (request.method === "tasks/get" && ++polls > 1 ? Promise.reject(new Error(`lost ${polls}`)) : peer.send(request, headers, options)),
    });
    const outcome = track(client.callTool({ name: "job" }));
    await until(outcome);
    expect((outcome.error as Error).message).toBe("lost 4");
    client.close();
  });

  it("a hanging poll times out and the next one goes through", async () => {
    const run = await runCallTool(script({ steps: [{ status: "working", keys: 0, pollIntervalMs: 10, delayMs: 100 }], requestFaults: ["hang"], notificationFaults: Array(5).fill("drop") }), []);
    checkInvariants(run);
    expect(run.outcome.value).toEqual(RESULT);
  });

  it("a single request that hangs rejects with RequestTimeoutError", async () => {
    const client = createTasksClient({ send: () => new Promise(() => {}), requestTimeoutMs: 500 });
    const outcome = track(client.getTask({ taskId: "t" }));
    await until(outcome);
    expect(outcome.error).toBeInstanceOf(RequestTimeoutError);
    client.close();
  });

  it("createdAt + ttlMs is a backstop: a task still working at its expiry ends the wait with TaskExpiredError", async () => {
    const run = await runCallTool(script({ steps: [{ status: "working", keys: 0, pollIntervalMs: 5_000, delayMs: 1e9 }], ttlMs: 12_000 }), []);
    expect(run.outcome.error).toBeInstanceOf(TaskExpiredError);
    expect((run.outcome.error as TaskExpiredError).expiredAt).toBe(CREATED_AT + 12_000);
    expect(Date.now()).toBeGreaterThan(CREATED_AT + 12_000);
  });

  it("a task the server forgot after its ttl (-32602) is TaskExpiredError too", async () => {
    const run = await runCallTool(script({ steps: [{ status: "working", keys: 0, pollIntervalMs: 5_000, delayMs: 1e9 }], ttlMs: 7_000, forgetAfterTtl: true }), []);
    expect(run.outcome.error).toBeInstanceOf(TaskExpiredError);
    expect(((run.outcome.error as TaskExpiredError).cause as { code: number }).code).toBe(-32602);
  });

  it("an unknown task before any ttl is the JSON-RPC error itself", async () => {
    const client = createTasksClient({ send: new FakePeer(script()).send, ...CLIENT_OPTIONS });
    const outcome = track(client.waitForTask("no-such-task"));
    await until(outcome);
    expect(outcome.error).toMatchObject({ name: "JsonRpcResponseError", code: -32602 });
    client.close();
  });

  it("an already aborted signal sends nothing", async () => {
    const peer = new FakePeer(script());
    const client = createTasksClient({ send: peer.send, ...CLIENT_OPTIONS });
    const controller = new AbortController();
    controller.abort(new Error("too late"));
    await expect(client.callTool({ name: "job" }, { signal: controller.signal })).rejects.toThrow("too late");
    await expect(client.waitForTask(peer.taskId, { signal: controller.signal })).rejects.toThrow("too late");
    expect(peer.requests.filter((r) => r.method !== "tasks/cancel")).toEqual([]);
    client.close();
  });

  it("invalid notifications are dropped and reported, valid ones still count", async () => {
    const errors: unknown[] = [];
    const peer = await createdPeer(script({ steps: [{ status: "working", keys: 0, pollIntervalMs: 60_000, delayMs: 1e9 }] }));
    const client = createTasksClient({ send: peer.send, onError: (e) => errors.push(e), ...CLIENT_OPTIONS, maxPollMs: 60_000 });
    const outcome = track(client.waitForTask(peer.taskId));
    await vi.advanceTimersByTimeAsync(10);
    client.handleNotification({ jsonrpc: "2.0", method: "notifications/tasks", params: { taskId: peer.taskId, status: "done" } });
    expect(outcome.settled).toBe(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ValidationFailed);
    client.handleNotification({
      jsonrpc: "2.0",
      method: "notifications/tasks",
      params: { ...peer.snapshot(), status: "completed", result: { ok: true }, lastUpdatedAt: new Date(CREATED_AT + 99_000).toISOString(), _meta: { trace: 1 } },
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(outcome).toMatchObject({ settled: 1, value: { ok: true } });
    client.close();
  });

  it("a created task that already inlines its outcome (as SEP-2663's examples show) needs no poll", async () => {
    const send = async (request: { id: string | number; method: string }) => {
      if (request.method !== "tools/call") throw new Error(`unexpected ${request.method}`);
      const task = { taskId: "t9", createdAt: new Date(CREATED_AT).toISOString(), lastUpdatedAt: new Date(CREATED_AT).toISOString(), ttlMs: 3_600_000 };
      return { jsonrpc: "2.0", id: request.id, result: { resultType: "task", ...task, status: "failed", statusMessage: "rate limit", error: { code: -32603, message: "API rate limit exceeded" } } };
    };
    const client = createTasksClient({ send, ...CLIENT_OPTIONS });
    const outcome = track(client.callTool({ name: "job" }));
    await until(outcome);
    expect(outcome.error).toBeInstanceOf(TaskFailedError);
    expect((outcome.error as TaskFailedError).error).toEqual({ code: -32603, message: "API rate limit exceeded" });
    client.close();
  });

  it("results with an unknown resultType, or a task where a task method expects a plain result, are invalid responses", async () => {
    let tag = "incomplete";
    const client = createTasksClient({ send: async (request) => ({ jsonrpc: "2.0", id: request.id, result: { resultType: tag } }), ...CLIENT_OPTIONS });
    await expect(client.startToolCall({ name: "x" })).rejects.toBeInstanceOf(InvalidResponseError);
    tag = "task";
    await expect(client.cancelTask({ taskId: "t" })).rejects.toThrow('tasks/cancel: resultType is "task", expected "complete"');
    client.close();
  });

  it("a response for another request id is an invalid response", async () => {
    const client = createTasksClient({ send: async () => ({ jsonrpc: "2.0", id: 999, result: {} }), ...CLIENT_OPTIONS });
    await expect(client.cancelTask({ taskId: "t" })).rejects.toThrow(/answer is for id 999, not 1/);
    client.close();
  });

  it("validateResults: false passes results through unchecked", async () => {
    const odd = { resultType: "complete", taskId: "t", status: "working", createdAt: "yesterday", lastUpdatedAt: "now", ttlMs: "forever" };
    const send = async (request: { id: string | number }) => ({ jsonrpc: "2.0", id: request.id, result: odd });
    const strict = createTasksClient({ send, ...CLIENT_OPTIONS });
    await expect(strict.getTask({ taskId: "t" })).rejects.toBeInstanceOf(ValidationFailed);
    const loose = createTasksClient({ send, validateResults: false, ...CLIENT_OPTIONS });
    expect(await loose.getTask({ taskId: "t" })).toMatchObject({ ttlMs: "forever" });
    strict.close();
    loose.close();
  });

  it("closing the client rejects pending waits with TasksClientClosedError and sends nothing more", async () => {
    const peer = new FakePeer(script({ steps: [{ status: "working", keys: 0, pollIntervalMs: 10, delayMs: 1e9 }] }));
    const client: TasksClient = createTasksClient({ send: peer.send, onNotification: peer.subscribe, ...CLIENT_OPTIONS });
    const outcome = track(client.callTool({ name: "job" }));
    await vi.advanceTimersByTimeAsync(100);
    client.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(outcome.error).toMatchObject({ name: "TasksClientClosedError" });
    const sent = peer.requests.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(peer.requests.length).toBe(sent);
    await expect(client.getTask({ taskId: "t" })).rejects.toMatchObject({ name: "TasksClientClosedError" });
  });
});
