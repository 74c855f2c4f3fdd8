import { afterEach, describe, expect, it } from "vitest";
import * as ext from "../../../generated/ext-tasks-draft/server.js";
import type { TaskChange } from "../../../generated/ext-tasks-draft/runtime/server/core.js";
import { eventually, extensionRequest as request } from "../../support/task-store-contract.js";

/**
 * A handle's final writes outlast a failing store, and changes missed while the event channel
 * was down are read again when it returns (README, "Task stores"; ARCHITECTURE.md, "Task stores"),
 * in process: one in-memory store seen by instances through views a test can break. The same on
 * real Redis and PostgreSQL servers is in durable-writes-servers.test.ts.
 */

const alice = { owner: "alice" };
const RESULT = { content: [{ type: "text", text: "42" }] };

type Call = "get" | "compareAndSet" | "renewLease" | "releaseLease" | "orphans";

/** A view of a shared in-memory store whose calls a test makes fail, whose answers it can lose, and whose event channel it can cut. */
class BreakableView extends ext.InMemoryTaskStore {
  /** Calls that reject, like a client whose database is unreachable. */
  readonly failing = new Set<Call>();
  /** Compare-and-sets that are stored, then reject (the answer lost on the way back). */
  loseAnswers = 0;
  /** Terminal compare-and-sets this view stored. */
  terminalWrites = 0;
  /** Reads and compare-and-sets asked of this view, failed or not (a retry asks again). */
  attempts = 0;
  readonly #listeners = new Set<{ change: (c: TaskChange) => void; channel?: ((up: boolean) => void) | undefined }>();
  #up = true;
  constructor(readonly shared: ext.InMemoryTaskStore) {
    super();
    shared.watch((change) => {
      if (this.#up) for (const l of this.#listeners) l.change(change);
    });
  }
  #check(call: Call): void {
    if (this.failing.has(call)) throw Object.assign(new Error(`connect ECONNREFUSED (${call})`), { code: "ECONNREFUSED" });
  }
  override create(task: ext.NewTask, lease?: { holder: string; until: number }) { return this.shared.create(task, lease); }
  override async get(owner: string, taskId: string) {
    this.attempts++;
    this.#check("get");
    return this.shared.get(owner, taskId);
  }
  override async compareAndSet(current: ext.StoredTask, next: ext.StoredTask) {
    this.attempts++;
    this.#check("compareAndSet");
    const stored = await this.shared.compareAndSet(current, next);
    if (stored && ["completed", "failed", "cancelled"].includes(next.status)) this.terminalWrites++;
    if (stored && this.loseAnswers > 0) {
      this.loseAnswers--;
      throw new Error("socket hang up (the write was stored, its answer lost)");
    }
    return stored;
  }
  override async renewLease(taskId: string, holder: string, until: number) {
    this.#check("renewLease");
    return this.shared.renewLease(taskId, holder, until);
  }
  override async releaseLease(taskId: string, holder: string) {
    this.#check("releaseLease");
    return this.shared.releaseLease(taskId, holder);
  }
  override async orphans(now: number, limit: number) {
    this.#check("orphans");
    return this.shared.orphans(now, limit);
  }
  override watch(change: (c: TaskChange) => void, channel?: (up: boolean) => void) {
    const entry = { change, channel };
    this.#listeners.add(entry);
    return () => this.#listeners.delete(entry);
  }
  /** Cuts (false) or restores (true) this view's event channel; events meanwhile are lost. */
  setChannel(up: boolean): void {
    this.#up = up;
    for (const l of this.#listeners) l.channel?.(up);
  }
  /** Every call fails (true) or none does (false). */
  setDown(down: boolean): void {
    for (const call of ["get", "compareAndSet", "renewLease", "releaseLease", "orphans"] as const) {
      if (down) this.failing.add(call);
      else this.failing.delete(call);
    }
  }
}

const servers: ext.TasksServer[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

function server(options: ext.TasksServerOptions): ext.TasksServer {
  const created = ext.createTasksServer(options);
  servers.push(created);
  return created;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a handle's final write while the store fails", () => {
  it("complete is retried until the store is back: resolves once stored, the task completed once with its result", async () => {
    const shared = new ext.InMemoryTaskStore();
    const view = new BreakableView(shared);
    const errors: unknown[] = [];
    const a = server({ store: view, onError: (e) => errors.push(e) });
    const task = await a.createTask(alice);
    view.setDown(true);
    let settled = false;
    const completing = task.complete(RESULT).finally(() => (settled = true));
    await settle(400);
    expect(settled).toBe(false); // still retrying, not rejected
    expect(errors.some((e) => String(e).includes("ECONNREFUSED"))).toBe(true); // each failed attempt is reported
    expect((await shared.get("alice", task.taskId))!.status).toBe("working");
    view.setDown(false);
    await completing;
    const stored = (await shared.get("alice", task.taskId))!;
    expect(stored).toMatchObject({ status: "completed", result: RESULT });
    expect(view.terminalWrites).toBe(1);
  });

  it("a write stored whose answer was lost resolves (its own write recognised), told once", async () => {
    const shared = new ext.InMemoryTaskStore();
    const view = new BreakableView(shared);
    const a = server({ store: view });
    const statuses: string[] = [];
    a.subscribe((notification) => statuses.push(notification.params.status));
    const task = await a.createTask(alice);
    view.loseAnswers = 1;
    await task.complete(RESULT); // not "Cannot complete: the task is already completed"
    expect((await shared.get("alice", task.taskId))!).toMatchObject({ status: "completed", result: RESULT });
    expect(view.terminalWrites).toBe(1);
    await settle(20);
    expect(statuses.filter((s) => s === "completed")).toHaveLength(1);
  });

  it("fail and requireInput are retried the same way", async () => {
    const shared = new ext.InMemoryTaskStore();
    const view = new BreakableView(shared);
    const a = server({ store: view, pollInterval: 50 });
    const asking = await a.createTask(alice);
    const failing = await a.createTask(alice);
    view.setDown(true);
    const answer = asking.requireInput("ok", { method: "elicitation/create", params: { message: "OK?", requestedSchema: { type: "object", properties: {} } } });
    const failed = failing.fail({ code: -32603, message: "Internal error" });
    await settle(300);
    view.setDown(false);
    await failed;
    expect((await shared.get("alice", failing.taskId))!).toMatchObject({ status: "failed", error: { code: -32603 } });
    await eventually(async () => (await shared.get("alice", asking.taskId))?.status === "input_required");
    await a.handle(request("tasks/update", { taskId: asking.taskId, inputResponses: { ok: { action: "accept" } } }), alice);
    await expect(answer).resolves.toEqual({ action: "accept" });
  });

  it("the lease is renewed while the write is retried; past finalWriteRetry the handle rejects, the lease goes and a sweeper fails the task", async () => {
    const shared = new ext.InMemoryTaskStore();
    const viewA = new BreakableView(shared);
    const viewB = new BreakableView(shared);
    const a = server({ store: viewA, leaseDuration: 200, leaseRenewInterval: 40, orphanSweepInterval: 0, finalWriteRetry: 900 });
    const b = server({ store: viewB, orphanSweepInterval: 50 });
    void b;
    const task = await a.createTask(alice);
    viewA.failing.add("compareAndSet"); // A cannot write; its lease renewals still work
    const started = Date.now();
    const completing = task.complete(RESULT);
    let rejected = false;
    void completing.catch(() => (rejected = true));
    // Well past the lease's duration, A's live retry keeps B's sweeper off the task.
    await settle(600);
    expect(rejected).toBe(false);
    expect((await shared.get("alice", task.taskId))!.status).toBe("working");
    await expect(completing).rejects.toThrow(/ECONNREFUSED \(compareAndSet\)/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    // Let go: the lease lapses and B fails the task instead of it staying working for good.
    await eventually(async () => (await shared.get("alice", task.taskId))?.status === "failed", 3000);
    expect((await shared.get("alice", task.taskId))!.error).toMatchObject({ code: -32603, message: expect.stringMatching(/lease expired/) });
    // A later write through the same handle is tried once, not for another bound.
    const attempts = viewA.attempts;
    await expect(task.fail({ code: -32603, message: "Internal error" })).rejects.toThrow();
    expect(viewA.attempts - attempts).toBe(1);
  });

  it("finalWriteRetry 0 never retries: the write rejects at once and the lease is let go", async () => {
    const shared = new ext.InMemoryTaskStore();
    const view = new BreakableView(shared);
    const a = server({ store: view, finalWriteRetry: 0, leaseDuration: 100, leaseRenewInterval: 20, orphanSweepInterval: 30 });
    const task = await a.createTask(alice);
    view.failing.add("compareAndSet");
    await expect(task.complete(RESULT)).rejects.toThrow(/ECONNREFUSED/);
    view.failing.delete("compareAndSet");
    // This instance no longer holds it: its own sweeper fails the task once the lease lapsed.
    await eventually(async () => (await shared.get("alice", task.taskId))?.status === "failed", 3000);
  });

  it("a refused change is not retried: a cancelled task's complete rejects with TaskStateError at once", async () => {
    const shared = new ext.InMemoryTaskStore();
    const viewA = new BreakableView(shared);
    const viewB = new BreakableView(shared);
    const a = server({ store: viewA });
    const b = server({ store: viewB });
    const task = await a.createTask(alice);
    await b.handle(request("tasks/cancel", { taskId: task.taskId }), alice);
    const attempts = viewA.attempts;
    await expect(task.complete(RESULT)).rejects.toBeInstanceOf(ext.TaskStateError);
    expect(viewA.attempts - attempts).toBe(1);
    expect((await shared.get("alice", task.taskId))!.status).toBe("cancelled");
  });

  it("a task cancelled elsewhere during the retries ends them with TaskStateError; the cancel stays", async () => {
    const shared = new ext.InMemoryTaskStore();
    const viewA = new BreakableView(shared);
    const viewB = new BreakableView(shared);
    const a = server({ store: viewA });
    const b = server({ store: viewB });
    const task = await a.createTask(alice);
    viewA.failing.add("compareAndSet");
    const completing = task.complete(RESULT);
    await settle(150);
    await b.handle(request("tasks/cancel", { taskId: task.taskId }), alice);
    await expect(completing).rejects.toBeInstanceOf(ext.TaskStateError);
    expect(task.signal.aborted).toBe(true);
    expect((await shared.get("alice", task.taskId))!.status).toBe("cancelled");
    expect(viewA.terminalWrites).toBe(0);
  });

  it("close ends the retries: the handle rejects with the store's error", async () => {
    const shared = new ext.InMemoryTaskStore();
    const view = new BreakableView(shared);
    const a = server({ store: view });
    const task = await a.createTask(alice);
    view.setDown(true);
    const completing = task.complete(RESULT);
    // Attempts at about 0, 100, 300 and 700 ms (pauses doubling from 100 ms): closing at 750 falls
    // in an 800 ms pause, which close must end at once (else the rejection comes 750 ms later).
    await settle(750);
    const closed = Date.now();
    a.close();
    await expect(completing).rejects.toThrow(/ECONNREFUSED/);
    expect(Date.now() - closed).toBeLessThan(500);
  });
});

describe("changes missed while the event channel was down", () => {
  it("reach A's listen subscription once the channel is back (once per version)", async () => {
    const shared = new ext.InMemoryTaskStore();
    const viewA = new BreakableView(shared);
    const viewB = new BreakableView(shared);
    // Polls a minute apart: only the channel's return can bring the change in time.
    const a = server({ store: viewA, pollInterval: 60_000 });
    const b = server({ store: viewB, pollInterval: 60_000 });
    const task = await b.createTask(alice);
    const written: { method?: string; params?: { status?: string } }[] = [];
    const outcome = await a.listen(
      request("subscriptions/listen", { notifications: { taskIds: [task.taskId] } }),
      alice,
      { send: (message) => void written.push(message), end: () => {} },
    );
    expect(outcome.kind).toBe("streaming");
    viewA.setChannel(false);
    await task.complete(RESULT);
    await settle(100);
    const statuses = () => written.filter((m) => m.method === "notifications/tasks").map((m) => m.params?.status);
    expect(statuses()).toEqual([]); // missed while down
    viewA.setChannel(true);
    await eventually(() => statuses().includes("completed"), 2000);
    // The channel dropping and returning again tells nothing new.
    viewA.setChannel(false);
    viewA.setChannel(true);
    await settle(100);
    expect(statuses()).toEqual(["completed"]);
  });

  it("reach A's status listeners for tasks A told them about before", async () => {
    const shared = new ext.InMemoryTaskStore();
    const viewA = new BreakableView(shared);
    const viewB = new BreakableView(shared);
    const a = server({ store: viewA, pollInterval: 60_000 });
    const b = server({ store: viewB, pollInterval: 60_000 });
    const seen: string[] = [];
    a.subscribe((notification) => seen.push(`${notification.params.taskId}:${notification.params.status}`));
    const task = await b.createTask(alice);
    await eventually(() => seen.includes(`${task.taskId}:working`));
    viewA.setChannel(false);
    await b.handle(request("tasks/cancel", { taskId: task.taskId }), alice);
    await settle(100);
    expect(seen).toEqual([`${task.taskId}:working`]);
    viewA.setChannel(true);
    await eventually(() => seen.includes(`${task.taskId}:cancelled`), 2000);
    expect(seen).toEqual([`${task.taskId}:working`, `${task.taskId}:cancelled`]);
  });
});
