import { afterEach, describe, expect, it } from "vitest";
import * as ext from "../../../generated/ext-tasks-draft/server.js";
import type { TaskChange } from "../../../generated/ext-tasks-draft/runtime/server/core.js";
import { PostgresTaskStore } from "../../../generated/ext-tasks-draft/runtime/parts/postgres-store.js";
import { RedisTaskStore } from "../../../generated/ext-tasks-draft/runtime/parts/redis-store.js";
import { eventually, extensionRequest as request } from "../../support/task-store-contract.js";
import { findRedisServer, freePort, startRedisServer } from "../../support/redis-server.js";

/**
 * The engine's side of coordination across instances (ARCHITECTURE.md, "Task stores"), where the
 * store's event channel misbehaves: down, or the store itself unreachable.
 */

const alice = { owner: "alice" };

/** One in-memory store seen by two instances through views whose event channel a test can cut. */
class ChannelView extends ext.InMemoryTaskStore {
  readonly #listeners = new Set<{ change: (c: TaskChange) => void; channel?: ((up: boolean) => void) | undefined }>();
  up = true;
  constructor(readonly shared: ext.InMemoryTaskStore) {
    super();
    shared.watch((change) => {
      if (this.up) for (const l of this.#listeners) l.change(change);
    });
  }
  override create(task: ext.NewTask, lease?: { holder: string; until: number }) { return this.shared.create(task, lease); }
  override get(owner: string, taskId: string) { return this.shared.get(owner, taskId); }
  override compareAndSet(current: ext.StoredTask, next: ext.StoredTask) { return this.shared.compareAndSet(current, next); }
  override renewLease(taskId: string, holder: string, until: number) { return this.shared.renewLease(taskId, holder, until); }
  override releaseLease(taskId: string, holder: string) { return this.shared.releaseLease(taskId, holder); }
  override orphans(now: number, limit: number) { return this.shared.orphans(now, limit); }
  override watch(change: (c: TaskChange) => void, channel?: (up: boolean) => void) {
    const entry = { change, channel };
    this.#listeners.add(entry);
    return () => this.#listeners.delete(entry);
  }
  setChannel(up: boolean): void {
    this.up = up;
    for (const l of this.#listeners) l.channel?.(up);
  }
}

const servers: ext.TasksServer[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

describe("the engine across instances when the event channel is down", () => {
  it("a waiter on A still sees B's answer, by polling the store at the poll interval", async () => {
    const shared = new ext.InMemoryTaskStore();
    const viewA = new ChannelView(shared);
    const viewB = new ChannelView(shared);
    const a = ext.createTasksServer({ store: viewA, pollInterval: 100 });
    const b = ext.createTasksServer({ store: viewB, pollInterval: 100 });
    servers.push(a, b);
    viewA.setChannel(false);
    const task = await a.createTask(alice);
    const answer = task.requireInput("ok", { method: "elicitation/create", params: { message: "OK?", requestedSchema: { type: "object", properties: {} } } });
    await eventually(async () => (await shared.get("alice", task.taskId))?.status === "input_required");
    const answered = Date.now();
    await b.handle(request("tasks/update", { taskId: task.taskId, inputResponses: { ok: { action: "accept" } } }), alice);
    await expect(answer).resolves.toEqual({ action: "accept" });
    // No event reached A: the poll did, within about one interval.
    expect(Date.now() - answered).toBeLessThan(1000);
  });

  it("a cancel on B aborts A's signal when A's lease renewal notices it, with the channel down", async () => {
    const shared = new ext.InMemoryTaskStore();
    const viewA = new ChannelView(shared);
    const viewB = new ChannelView(shared);
    const a = ext.createTasksServer({ store: viewA, leaseRenewInterval: 50 });
    const b = ext.createTasksServer({ store: viewB });
    servers.push(a, b);
    viewA.setChannel(false);
    const task = await a.createTask(alice);
    await b.handle(request("tasks/cancel", { taskId: task.taskId }), alice);
    await eventually(() => task.signal.aborted, 2000);
  });

  it("when the channel comes back, every waiter reads the store again at once (no poll needed)", async () => {
    const shared = new ext.InMemoryTaskStore();
    const viewA = new ChannelView(shared);
    const viewB = new ChannelView(shared);
    const a = ext.createTasksServer({ store: viewA, pollInterval: 60_000 });
    const b = ext.createTasksServer({ store: viewB, pollInterval: 60_000 });
    servers.push(a, b);
    const task = await a.createTask(alice);
    const answer = task.requireInput("ok", { method: "elicitation/create", params: { message: "OK?", requestedSchema: { type: "object", properties: {} } } });
    await eventually(async () => (await shared.get("alice", task.taskId))?.status === "input_required");
    viewA.setChannel(false);
    await b.handle(request("tasks/update", { taskId: task.taskId, inputResponses: { ok: { action: "accept" } } }), alice);
    let resolved = false;
    void answer.then(() => (resolved = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(resolved).toBe(false); // missed while down, and the poll is a minute away
    viewA.setChannel(true);
    await expect(answer).resolves.toEqual({ action: "accept" });
  });
});

const redisBinary = findRedisServer();

describe("an unreachable store", () => {
  it.skipIf(!redisBinary && process.env.CI !== "true")("Redis: the server answers -32603 while it is down and works again once it is back", async () => {
    if (!redisBinary) throw new Error("CI=true: redis-server not found; .ci/run installs it");
    const port = await freePort();
    const errors: unknown[] = [];
    const store = new RedisTaskStore<ext.StoredTask>(`redis://127.0.0.1:${port}`, { commandTimeout: 300 });
    const server = ext.createTasksServer({ store, onError: (e) => errors.push(e) });
    servers.push(server);
    const down = await server.handle(request("tasks/get", { taskId: "x" }), alice);
    expect(down).toMatchObject({ error: { code: -32603, message: "Internal error" } });
    expect(String(errors[0])).toMatch(/RedisTaskStoreError: the Redis task store is unreachable/);
    const redis = await startRedisServer(redisBinary, port);
    try {
      await eventually(async () => {
        const task = await server.createTask(alice).catch(() => undefined);
        return task !== undefined && (await server.handle(request("tasks/get", { taskId: task.taskId }), alice))?.hasOwnProperty("result") === true;
      }, 10_000);
    } finally {
      await store.close();
      await redis.stop();
    }
  });

  it.skipIf(!redisBinary && process.env.CI !== "true")("Redis: tool code awaiting input outlasts a Redis restart and gets the answer given after it", async () => {
    if (!redisBinary) throw new Error("CI=true: redis-server not found; .ci/run installs it");
    const redis = await startRedisServer(redisBinary);
    const storeA = new RedisTaskStore<ext.StoredTask>(redis.url, { commandTimeout: 300 });
    const storeB = new RedisTaskStore<ext.StoredTask>(redis.url, { commandTimeout: 300 });
    const errors: unknown[] = [];
    const a = ext.createTasksServer({ store: storeA, pollInterval: 50, onError: (e) => errors.push(e) });
    const b = ext.createTasksServer({ store: storeB });
    servers.push(a, b);
    try {
      const task = await a.createTask(alice);
      const answer = task.requireInput("ok", { method: "elicitation/create", params: { message: "OK?", requestedSchema: { type: "object", properties: {} } } });
      await eventually(async () => (await storeB.get("alice", task.taskId))?.status === "input_required");
      await redis.restart(500);
      await eventually(() => errors.length > 0); // the wait saw the outage (reported), and waits on
      await eventually(async () => (await b.handle(request("tasks/update", { taskId: task.taskId, inputResponses: { ok: { action: "accept" } } }), alice))?.hasOwnProperty("result") === true, 10_000);
      await expect(answer).resolves.toEqual({ action: "accept" });
    } finally {
      await storeA.close();
      await storeB.close();
      await redis.stop();
    }
  });

  it("PostgreSQL: the server answers -32603 when the database cannot be reached", async () => {
    const port = await freePort();
    const errors: unknown[] = [];
    const store = new PostgresTaskStore<ext.StoredTask>(`postgres://postgres@127.0.0.1:${port}/postgres`, { connectTimeout: 500 });
    const server = ext.createTasksServer({ store, onError: (e) => errors.push(e) });
    servers.push(server);
    const down = await server.handle(request("tasks/get", { taskId: "x" }), alice);
    expect(down).toMatchObject({ error: { code: -32603, message: "Internal error" } });
    expect(String(errors[0])).toMatch(/PostgresTaskStoreError: the PostgreSQL task store is unreachable/);
    await store.close();
  });
});

describe("leases on one instance", () => {
  it("an instance never fails a task it still runs, even when its renewal came late (a busy event loop)", async () => {
    let now = Date.now();
    const store = new ext.InMemoryTaskStore({ now: () => now });
    const server = ext.createTasksServer({ store, now: () => now, leaseRenewInterval: 60_000, orphanSweepInterval: 10 });
    servers.push(server);
    const task = await server.createTask(alice);
    now += 10 * 60 * 1000; // far past the lease, which no renewal extended (within the task's TTL)
    expect((await store.orphans(now, 10)).map((t) => t.taskId)).toEqual([task.taskId]);
    // The sweeps renew it instead: still working, no longer an orphan.
    await eventually(async () => (await store.orphans(now, 10)).length === 0);
    expect((await store.get("alice", task.taskId))!.status).toBe("working");
    await task.complete({ content: [] });
  });
});
