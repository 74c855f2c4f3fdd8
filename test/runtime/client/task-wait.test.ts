import { describe, expect, it } from "vitest";
import { JsonRpcResponseError, TaskExpiredError, TaskInputError, TasksClientClosedError } from "../../../templates/runtime/client/core.js";
import { TaskWait, type TaskWaitProfile, type WaitClient, type WaitSettings } from "../../../templates/runtime/client/task-wait.js";

/**
 * The task-wait state machine of generated Tasks clients, tested as source
 * (templates/runtime/client/task-wait.ts) against a scripted client and a small profile standing in for a
 * set's: snapshots are a per-status union that inlines `result`, `error` and `inputRequests`.
 */

type Snapshot =
  | { taskId: string; status: "working"; lastUpdatedAt: string; statusMessage?: string; pollInterval?: number }
  | { taskId: string; status: "input_required"; lastUpdatedAt: string; statusMessage?: string; inputRequests: Record<string, unknown> }
  | { taskId: string; status: "completed"; lastUpdatedAt: string; statusMessage?: string; result: { value: number } }
  | { taskId: string; status: "failed"; lastUpdatedAt: string; statusMessage?: string; error: { code: number; message: string } }
  | { taskId: string; status: "cancelled"; lastUpdatedAt: string; statusMessage?: string };
type Result = { value: number };
type Payload = { value: number };
type Answer = { action: string };
type Handlers = { readonly [method: string]: ((params: unknown) => unknown) | undefined };

const TERMINAL = new Set(["completed", "failed", "cancelled"]);
const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();

function profile(options: { inline?: boolean; expiresAt?: number } = {}): TaskWaitProfile<Snapshot, Result, Payload, Answer, Handlers> {
  return {
    isTerminalStatus: (status) => TERMINAL.has(status),
    pollInterval: (task) => (task.status === "working" ? task.pollInterval : undefined),
    expiry: () => options.expiresAt,
    completed: (task, payload) => (options.inline === false ? payload() : task.result),
    failed: (task) => new Error(`failed: ${task.error.message}`),
    cancelled: (task) => new Error(`cancelled ${task.taskId}`),
    payloadDeliversInput: false,
    input: {
      requests: (task) => task.inputRequests,
      run: (handlers, request, context) => {
        const handler = handlers[context.method];
        return handler ? new Promise((resolve) => resolve(handler((request as { params?: unknown }).params))) : undefined;
      },
      check: (_taskId, _key, _method, _request, answer) =>
        typeof answer === "object" && answer !== null && typeof (answer as Answer).action === "string"
          ? { ok: true, value: answer as Answer }
          : { ok: false, error: new Error("an answer must be { action }") },
    },
  };
}

/** A client whose polls answer the scripted snapshots (or errors) in turn, the last one forever. */
function scripted(polls: readonly (Snapshot | Error)[], extra: Partial<WaitClient<Snapshot, Result, Payload, Answer, Handlers>> = {}) {
  const calls = { polls: 0, cancels: [] as string[], answers: [] as [string, Answer][], reported: [] as unknown[], finished: 0 };
  const client: WaitClient<Snapshot, Result, Payload, Answer, Handlers> = {
    getTask: async () => {
      const next = polls[Math.min(calls.polls++, polls.length - 1)]!;
      if (next instanceof Error) throw next;
      return next;
    },
    answer: async (_taskId, key, answer) => {
      calls.answers.push([key, answer]);
    },
    cancel: (taskId) => calls.cancels.push(taskId),
    report: (error) => calls.reported.push(error),
    finished: () => calls.finished++,
    ...extra,
  };
  return { client, calls };
}

const SETTINGS: WaitSettings<Snapshot, Handlers> = { minPollMs: 1, maxPollMs: 5, cancelOnAbort: true, signal: undefined, onUpdate: undefined, inputHandlers: {} };

function wait(
  p: TaskWaitProfile<Snapshot, Result, Payload, Answer, Handlers>,
  client: WaitClient<Snapshot, Result, Payload, Answer, Handlers>,
  settings: Partial<WaitSettings<Snapshot, Handlers>> = {},
) {
  return new TaskWait(p, client, "t1", { ...SETTINGS, ...settings });
}

describe("TaskWait", () => {
  it("polls until the task finishes and resolves once with the inlined result", async () => {
    const { client, calls } = scripted([
      { taskId: "t1", status: "working", lastUpdatedAt: at(1) },
      { taskId: "t1", status: "working", lastUpdatedAt: at(2) },
      { taskId: "t1", status: "completed", lastUpdatedAt: at(3), result: { value: 42 } },
    ]);
    const w = wait(profile(), client);
    w.start(undefined);
    await expect(w.promise).resolves.toEqual({ value: 42 });
    expect(calls.polls).toBe(3);
    expect(calls.finished).toBe(1);
  });

  it("reads the result through tasks/result where the snapshot does not inline it", async () => {
    const { client } = scripted([{ taskId: "t1", status: "completed", lastUpdatedAt: at(1), result: { value: 0 } }], {
      getTaskPayload: async () => ({ value: 7 }),
    });
    const w = wait(profile({ inline: false }), client);
    w.start(undefined);
    await expect(w.promise).resolves.toEqual({ value: 7 });
  });

  it("ignores a snapshot older than one seen, reports each change once, and sees nothing after the first terminal snapshot", async () => {
    const seen: string[] = [];
    const { client } = scripted([{ taskId: "t1", status: "working", lastUpdatedAt: at(9) }]);
    const w = wait(profile(), client, { onUpdate: (task: Snapshot) => seen.push(`${task.status}@${task.lastUpdatedAt.slice(17, 19)}`) });
    w.start({ taskId: "t1", status: "working", lastUpdatedAt: at(5), statusMessage: "a" });
    w.observe({ taskId: "t1", status: "working", lastUpdatedAt: at(5), statusMessage: "a" });
    w.observe({ taskId: "t1", status: "working", lastUpdatedAt: at(4), statusMessage: "older" });
    w.observe({ taskId: "t1", status: "failed", lastUpdatedAt: at(3), error: { code: 1, message: "boom" } });
    w.observe({ taskId: "t1", status: "completed", lastUpdatedAt: at(6), result: { value: 1 } });
    await expect(w.promise).rejects.toThrow("failed: boom");
    expect(seen).toEqual(["working@05", "failed@03"]);
  });

  it("retries a lost poll, but gives up after three in a row", async () => {
    const lost = new Error("socket hang up");
    const recovered = scripted([lost, lost, { taskId: "t1", status: "cancelled", lastUpdatedAt: at(1) }]);
    const w1 = wait(profile(), recovered.client);
    w1.start(undefined);
    await expect(w1.promise).rejects.toThrow("cancelled t1");
    const broken = scripted([lost]);
    const w2 = wait(profile(), broken.client);
    w2.start(undefined);
    await expect(w2.promise).rejects.toBe(lost);
    expect(broken.calls.polls).toBe(3);
  });

  it("fails at once on a JSON-RPC error, and calls an unknown task after its (known) expiry expired", async () => {
    const unknown = new JsonRpcResponseError("tasks/get", -32602, "Task not found");
    const early = scripted([unknown]);
    const w1 = wait(profile({ expiresAt: Date.now() + 60_000 }), early.client);
    w1.start(undefined);
    await expect(w1.promise).rejects.toBe(unknown);
    const late = scripted([unknown]);
    const w2 = wait(profile({ expiresAt: Date.now() - 1 }), late.client);
    // The expiry is known from the first snapshot; the poll due at once finds the task gone.
    w2.start({ taskId: "t1", status: "working", lastUpdatedAt: at(1) });
    const error = await w2.promise.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskExpiredError);
    expect((error as TaskExpiredError).cause).toBe(unknown);
  });

  it("rejects with the signal's reason when aborted, and cancels the unfinished task", async () => {
    const { client, calls } = scripted([{ taskId: "t1", status: "working", lastUpdatedAt: at(1) }]);
    const controller = new AbortController();
    const w = wait(profile(), client, { signal: controller.signal });
    w.start(undefined);
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(w.promise).rejects.toBe(reason);
    expect(calls.cancels).toEqual(["t1"]);
    expect(calls.finished).toBe(1);
  });

  it("close rejects with TasksClientClosedError", async () => {
    const { client } = scripted([{ taskId: "t1", status: "working", lastUpdatedAt: at(1) }]);
    const w = wait(profile(), client);
    w.start(undefined);
    w.close();
    await expect(w.promise).rejects.toBeInstanceOf(TasksClientClosedError);
  });

  it("answers each input request once with its handler, and sends an answer again after a failed delivery", async () => {
    const asking: Snapshot = { taskId: "t1", status: "input_required", lastUpdatedAt: at(1), inputRequests: { k1: { method: "elicitation/create", params: { q: 1 } } } };
    let deliveries = 0;
    const answers: [string, Answer][] = [];
    const asked: unknown[] = [];
    const { client } = scripted([asking, { ...asking, lastUpdatedAt: at(2) }, { taskId: "t1", status: "completed", lastUpdatedAt: at(3), result: { value: 1 } }], {
      answer: async (_taskId, key, answer) => {
        if (deliveries++ === 0) throw new Error("lost");
        answers.push([key, answer]);
      },
    });
    const w = wait(profile(), client, { inputHandlers: { "elicitation/create": (params: unknown) => (asked.push(params), { action: "accept" }) } });
    w.start(undefined);
    await expect(w.promise).resolves.toEqual({ value: 1 });
    expect(asked).toEqual([{ q: 1 }]);
    expect(answers).toEqual([["k1", { action: "accept" }]]);
  });

  it("ends with TaskInputError when nothing handles a request, or its answer does not pass the check", async () => {
    const asking = (method: string): Snapshot => ({ taskId: "t1", status: "input_required", lastUpdatedAt: at(1), inputRequests: { k: { method } } });
    const none = scripted([asking("roots/list")]);
    const w1 = wait(profile(), none.client);
    w1.start(undefined);
    await expect(w1.promise).rejects.toMatchObject({ name: "TaskInputError", key: "k", method: "roots/list", message: 'task t1, input "k" (roots/list): no input handler for this method' });
    const bad = scripted([asking("roots/list")]);
    const w2 = wait(profile(), bad.client, { inputHandlers: { "roots/list": () => 3 } });
    w2.start(undefined);
    const error = await w2.promise.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskInputError);
    expect(((error as TaskInputError).cause as Error).message).toBe("an answer must be { action }");
    expect(bad.calls.answers).toEqual([]);
  });
});

describe("TaskWait with a status stream (subscriptions/listen)", () => {
  /** A stream the test drives: `ack()` acknowledges it, `drop(end)` ends it; each `openStream` call is one stream. */
  function streams() {
    const opened: { signal: { aborted: boolean }; ack: () => void; end: (how: "ended" | "dropped" | "unsupported") => void }[] = [];
    const openStream: NonNullable<WaitClient<Snapshot, Result, Payload, Answer, Handlers>["openStream"]> = (_taskId, signal, acknowledged) =>
      new Promise((resolve) => {
        opened.push({ signal, ack: acknowledged, end: resolve });
        signal.addEventListener("abort", () => resolve("ended"), { once: true });
      });
    return { opened, openStream };
  }
  const until = async (test: () => boolean) => {
    for (let i = 0; i < 200 && !test(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(test()).toBe(true);
  };
  const working = { taskId: "t1", status: "working", lastUpdatedAt: at(1) } as const;

  it("stops polling once acknowledged, reads the task once then, and settles from a notification; the stream is closed with the wait", async () => {
    const s = streams();
    const { client, calls } = scripted([working], { openStream: s.openStream });
    const w = wait(profile(), client, { minPollMs: 10, maxPollMs: 10 });
    w.start(working);
    await until(() => s.opened.length === 1);
    await until(() => calls.polls >= 2);
    const beforeAck = calls.polls;
    s.opened[0]!.ack();
    const afterAck = beforeAck + 1;
    await until(() => calls.polls === afterAck);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(calls.polls).toBe(afterAck);
    w.observe({ taskId: "t1", status: "completed", lastUpdatedAt: at(2), result: { value: 5 } });
    await expect(w.promise).resolves.toEqual({ value: 5 });
    expect(s.opened[0]!.signal.aborted).toBe(true);
  });

  it("a terminal status reached before the subscription took is found by the read after the acknowledgement", async () => {
    const s = streams();
    const { client } = scripted([{ taskId: "t1", status: "completed", lastUpdatedAt: at(2), result: { value: 9 } }], { openStream: s.openStream });
    // A minute between polls: only the read after the acknowledgement can find it.
    const w = wait(profile(), client, { minPollMs: 60_000, maxPollMs: 60_000 });
    w.start(working);
    await until(() => s.opened.length === 1);
    s.opened[0]!.ack();
    await expect(w.promise).resolves.toEqual({ value: 9 });
  });

  it("a read asked while a poll is in flight follows it (the poll in flight may predate the subscription)", async () => {
    const s = streams();
    let release: (task: Snapshot) => void = () => {};
    let polls = 0;
    const { client } = scripted([], {
      openStream: s.openStream,
      getTask: () => (++polls === 1 ? new Promise<Snapshot>((resolve) => (release = resolve)) : Promise.resolve({ taskId: "t1", status: "completed", lastUpdatedAt: at(3), result: { value: 3 } })),
    });
    const w = wait(profile(), client, { minPollMs: 60_000, maxPollMs: 60_000 });
    w.start(undefined);
    await until(() => s.opened.length === 1 && polls === 1);
    s.opened[0]!.ack();
    release(working);
    await expect(w.promise).resolves.toEqual({ value: 3 });
    expect(polls).toBe(2);
  });

  it("polls while the stream is down and reopens it after a pause; an unsupported stream is not reopened", async () => {
    const s = streams();
    const { client, calls } = scripted([working], { openStream: s.openStream });
    const w = wait(profile(), client, { minPollMs: 10, maxPollMs: 10 });
    w.start(working);
    await until(() => s.opened.length === 1);
    s.opened[0]!.ack();
    s.opened[0]!.end("dropped");
    const afterDrop = calls.polls;
    await until(() => calls.polls >= afterDrop + 3);
    await until(() => s.opened.length === 2);
    s.opened[1]!.end("unsupported");
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(s.opened).toHaveLength(2);
    w.observe({ taskId: "t1", status: "cancelled", lastUpdatedAt: at(5) });
    await expect(w.promise).rejects.toThrow("cancelled t1");
  });

  it("keeps the poll at the task's expiry while the stream is up", async () => {
    const s = streams();
    const expiresAt = Date.now() + 300;
    const { client, calls } = scripted([working], { openStream: s.openStream });
    const w = wait(profile({ expiresAt }), client, { minPollMs: 60_000, maxPollMs: 60_000 });
    w.start(working);
    await until(() => s.opened.length === 1);
    // Counted from the acknowledgement: on a loaded machine the expiry may come before it, and its poll with it.
    const beforeAck = calls.polls;
    s.opened[0]!.ack();
    // The 60 s interval never comes: the wait ends by the poll at the expiry.
    await expect(w.promise).rejects.toBeInstanceOf(TaskExpiredError);
    // The read after the acknowledgement and the one at the expiry, no more.
    expect(calls.polls - beforeAck).toBeLessThanOrEqual(2);
  });
});

describe("TaskWait with a status stream: a failed read after the acknowledgement", () => {
  it("is retried at the usual interval, so a terminal status reached before the subscription is still found", async () => {
    let polls = 0;
    let acknowledged = () => {};
    const client: WaitClient<Snapshot, Result, Payload, Answer, Handlers> = {
      getTask: async () => {
        polls++;
        if (polls === 1) throw new Error("socket hang up");
        return { taskId: "t1", status: "completed", lastUpdatedAt: at(2), result: { value: 4 } };
      },
      openStream: (_taskId, signal, ack) =>
        new Promise((resolve) => {
          acknowledged = ack;
          signal.addEventListener("abort", () => resolve("ended"), { once: true });
        }),
      cancel: () => {},
      report: () => {},
      finished: () => {},
    };
    const w = new TaskWait(profile(), client, "t1", { ...SETTINGS, minPollMs: 20, maxPollMs: 20 });
    w.start({ taskId: "t1", status: "working", lastUpdatedAt: at(1) });
    await new Promise((resolve) => setTimeout(resolve, 5));
    acknowledged();
    await expect(w.promise).resolves.toEqual({ value: 4 });
    expect(polls).toBe(2);
  });
});
