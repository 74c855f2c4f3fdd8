/**
 * The TaskStore contract (ARCHITECTURE.md, "Task stores"), as one suite every store runs: the
 * in-memory store, SQLite, Redis and PostgreSQL. A backend gives the suite fresh, isolated
 * "spaces" (a new object, file, key prefix or table prefix per test) and, within one space, as
 * many store instances as a test wants: each is what one server instance would open (its own
 * connection), so races and events between them are races and events between instances.
 */
import { afterEach, describe, expect, it } from "vitest";
import * as ext from "../../generated/ext-tasks-draft/server.js";
import type { InputRequest } from "../../generated/ext-tasks-draft/types.js";
import type { TaskChange, TaskEventsOf, TaskLeasesOf } from "../../generated/ext-tasks-draft/runtime/server/core.js";
import type { TaskListingOf } from "../../generated/ext-tasks-draft/runtime/server/engine.js";

type StoredTask = ext.StoredTask;

/** A store instance under test: the whole contract, and a way to let go of its connections. */
export interface ContractStore extends ext.TaskStore, TaskListingOf<StoredTask>, TaskEventsOf, TaskLeasesOf<StoredTask> {
  close(): void | Promise<void>;
}

export interface StoreOptions {
  readonly maxTasks?: number;
  readonly now?: () => number;
}

/** One isolated place for tasks; every store opened in it sees the same tasks. */
export interface StoreSpace {
  /** A new store instance on the space (for the in-memory store: the one object, which all instances share). */
  open(options?: StoreOptions): Promise<ContractStore>;
  /** Durable stores: tasks outlive every instance being closed. */
  readonly durable: boolean;
  /** Drops the event channel of `store` (and lets it come back), where the backend can; undefined where it cannot drop. */
  readonly dropChannel?: (store: ContractStore) => Promise<void>;
}

export interface StoreBackend {
  space(): Promise<StoreSpace>;
}

/** A request's `_meta` as the stateless revision requires it, declaring the Tasks extension. */
export const EXTENSION_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { extensions: { [ext.TASKS_EXTENSION]: {} } },
};
let requestId = 1;

/** A JSON-RPC request of a client that declares the Tasks extension (a fresh id each). */
export function extensionRequest(method: string, params: object) {
  return { jsonrpc: "2.0" as const, id: requestId++, method, params: { ...params, _meta: EXTENSION_META } };
}
const ask = (message: string): InputRequest => ({
  method: "elicitation/create",
  // The form has the field the contract answers: the server judges an accepted form's content by the form.
  params: { message, requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
});

/** A new task record as the server would store it (ext-tasks-draft's StoredTask), created at `now`. */
export function newTask(owner: string, now: number, ttl: number | null = 60_000): ext.NewTask {
  const at = new Date(now).toISOString();
  return {
    owner,
    status: "working",
    createdAt: at,
    lastUpdatedAt: at,
    ttl,
    pollInterval: 1000,
    expiresAt: ttl === null ? null : now + ttl,
    inputRequests: {},
    inputResponses: {},
    inputKeys: [],
  };
}

/** The next version of a task with some fields changed, as the engine writes it. */
export function next(task: StoredTask, change: Partial<StoredTask>): StoredTask {
  return { ...task, ...change, version: task.version + 1 };
}

/** Resolves when `condition` holds, polling briefly; fails after `ms`. */
export async function eventually(condition: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Registers the contract suite for one store. `setup` gives the backend, or a string: the reason
 * the suite is skipped (printed; under CI=true the caller must fail instead).
 */
export function describeTaskStoreContract(name: string, setup: () => StoreBackend | string): void {
  const given = setup();
  if (typeof given === "string") {
    console.log(`${name} TaskStore contract skipped: ${given}`);
    describe.skip(`${name} TaskStore contract (skipped: ${given})`, () => {
      it("runs against a real server", () => {});
    });
    return;
  }
  const backend = given;
  describe(`${name} TaskStore contract`, () => {
    const opened: ContractStore[] = [];
    const servers: { close(): void }[] = [];
    afterEach(async () => {
      for (const server of servers.splice(0)) server.close();
      for (const store of opened.splice(0)) await store.close();
    });
    /**
     * Resolves once `store`'s channel listens, where it is a connection (Redis, PostgreSQL): a change
     * written before that reaches nobody (waiters then see it by polling). A listener of a test's own
     * keeps the channel open meanwhile; the channel stays open while any other listener remains.
     */
    async function listening(s: StoreSpace, store: ContractStore): Promise<void> {
      if (!s.dropChannel) return;
      let up = false;
      const stop = store.watch(
        () => {},
        (state) => (up = state),
      );
      try {
        await eventually(() => up);
      } finally {
        stop();
      }
    }
    async function space(): Promise<StoreSpace & { openTracked(options?: StoreOptions): Promise<ContractStore> }> {
      const s = await backend.space();
      return {
        ...s,
        openTracked: async (options?: StoreOptions) => {
          const store = await s.open(options);
          opened.push(store);
          return store;
        },
      };
    }

    it("creates a task under a fresh id at version 0 and gives it back only to its owner", async () => {
      const store = await (await space()).openTracked();
      const created = await store.create(newTask("alice", Date.now()));
      const other = await store.create(newTask("alice", Date.now()));
      expect(created.version).toBe(0);
      expect(created.taskId).toMatch(/^[0-9a-f-]{36}$/);
      expect(other.taskId).not.toBe(created.taskId);
      expect(await store.get("alice", created.taskId)).toEqual(created);
      expect(await store.get("bob", created.taskId)).toBeUndefined();
      expect(await store.get("alice", "no-such-task")).toBeUndefined();
    });

    it("keeps the whole record: input requests, answers, results and errors", async () => {
      const store = await (await space()).openTracked();
      const created = await store.create(newTask("alice", Date.now()));
      const asking = next(created, { status: "input_required", inputRequests: { approve: ask("Deploy?") }, inputKeys: ["approve"] });
      expect(await store.compareAndSet(created, asking)).toBe(true);
      const answered = next(asking, { status: "working", inputRequests: {}, inputResponses: { approve: { action: "accept", content: { ok: true } } } });
      expect(await store.compareAndSet(asking, answered)).toBe(true);
      const done = next(answered, { status: "completed", result: { content: [{ type: "text", text: "ünïcødé ✓" }], structuredContent: { n: 7 } } });
      expect(await store.compareAndSet(answered, done)).toBe(true);
      expect(await store.get("alice", created.taskId)).toEqual(done);
      const failing = await store.create(newTask("alice", Date.now()));
      const failed = next(failing, { status: "failed", error: { code: -32603, message: "crashed", data: { why: "disk" } } });
      expect(await store.compareAndSet(failing, failed)).toBe(true);
      expect(await store.get("alice", failing.taskId)).toEqual(failed);
    });

    it("compare-and-set writes only over the version it read, and only the owner's task", async () => {
      const store = await (await space()).openTracked();
      const created = await store.create(newTask("alice", Date.now()));
      const first = next(created, { statusMessage: "one" });
      expect(await store.compareAndSet(created, first)).toBe(true);
      // A writer that read version 0 loses now.
      expect(await store.compareAndSet(created, next(created, { statusMessage: "stale" }))).toBe(false);
      expect((await store.get("alice", created.taskId))!.statusMessage).toBe("one");
      // Someone else's task (same id, other owner) is never written.
      const foreign = { ...first, owner: "bob" };
      expect(await store.compareAndSet(foreign, next(foreign, { statusMessage: "bob's" }))).toBe(false);
      await expect(store.compareAndSet(first, { ...first, version: first.version + 2 })).rejects.toThrow(/following version/);
    });

    it("lets exactly one of many concurrent writers win each version, across store instances", async () => {
      const s = await space();
      const stores = await Promise.all(Array.from({ length: 4 }, () => s.openTracked()));
      const created = await stores[0]!.create(newTask("alice", Date.now()));
      let current = created;
      for (let round = 0; round < 5; round++) {
        const base = current;
        const writers = Array.from({ length: 12 }, (_, i) => next(base, { statusMessage: `round ${round} writer ${i}` }));
        const results = await Promise.all(writers.map((w, i) => stores[i % stores.length]!.compareAndSet(base, w)));
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = writers[results.indexOf(true)]!;
        const stored = await stores[round % stores.length]!.get("alice", created.taskId);
        expect(stored).toEqual(winner);
        current = stored!;
      }
      expect(current.version).toBe(5);
    });

    it("forgets a task when its TTL runs out (get, list and writes alike)", async () => {
      let now = Date.now();
      const store = await (await space()).openTracked({ now: () => now });
      const short = await store.create(newTask("alice", now, 1000));
      const kept = await store.create(newTask("alice", now, null));
      now += 999;
      expect(await store.get("alice", short.taskId)).toBeDefined();
      now += 1;
      expect(await store.get("alice", short.taskId)).toBeUndefined();
      expect(await store.compareAndSet(short, next(short, { statusMessage: "late" }))).toBe(false);
      expect((await store.list("alice", undefined, 10))!.tasks.map((t) => t.taskId)).toEqual([kept.taskId]);
      expect(await store.get("alice", kept.taskId)).toBeDefined();
      // The durable stores delete expired tasks on demand too (the in-memory one drops them on sight).
      const cleanup = (store as Partial<{ deleteExpired(): number | Promise<number> }>).deleteExpired;
      if (cleanup) {
        await store.create(newTask("bob", now, 10));
        now += 10;
        // Both expired tasks are gone; Redis may have deleted some already, a few with every create.
        expect(await cleanup.call(store)).toBeGreaterThanOrEqual(1);
        expect(await cleanup.call(store)).toBe(0);
        expect(await store.get("alice", short.taskId)).toBeUndefined();
        expect(await store.get("alice", kept.taskId)).toBeDefined();
      }
    });

    it("caps the live tasks it holds (TaskLimitError), expired ones making room", async () => {
      let now = Date.now();
      const store = await (await space()).openTracked({ maxTasks: 3, now: () => now });
      await store.create(newTask("alice", now, 500));
      await store.create(newTask("bob", now));
      await store.create(newTask("alice", now));
      const full = store.create(newTask("alice", now));
      await expect(full).rejects.toThrow(/maximum of 3 tasks/);
      await expect(full).rejects.toMatchObject({ name: "TaskLimitError" });
      now += 500;
      await expect(store.create(newTask("alice", now))).resolves.toMatchObject({ version: 0 });
    });

    it("lists an owner's live tasks oldest first, in pages with opaque cursors", async () => {
      const store = await (await space()).openTracked();
      const mine: string[] = [];
      for (let i = 0; i < 7; i++) {
        mine.push((await store.create(newTask("alice", Date.now()))).taskId);
        await store.create(newTask("bob", Date.now()));
      }
      const listed: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.list("alice", cursor, 3);
        expect(page).toBeDefined();
        expect(page!.tasks.length).toBeLessThanOrEqual(3);
        listed.push(...page!.tasks.map((t) => t.taskId));
        cursor = page!.nextCursor;
        pages++;
      } while (cursor !== undefined);
      expect(listed).toEqual(mine);
      expect(pages).toBe(3);
      expect(await store.list("alice", "not-a-cursor", 3)).toBeUndefined();
      expect((await store.list("carol", undefined, 3))!.tasks).toEqual([]);
    });

    it("tells every instance's watchers about a change made through another, with its version", async () => {
      const s = await space();
      const a = await s.openTracked();
      const b = await s.openTracked();
      const seen: TaskChange[] = [];
      const stop = b.watch((change) => seen.push(change));
      await listening(s, b);
      try {
        const created = await a.create(newTask("alice", Date.now()));
        const cancelled = next(created, { status: "cancelled" });
        expect(await a.compareAndSet(created, cancelled)).toBe(true);
        await eventually(() => seen.some((c) => c.taskId === created.taskId && c.version === 1));
        expect(seen.find((c) => c.version === 1)).toEqual({ taskId: created.taskId, owner: "alice", status: "cancelled", version: 1 });
        // A failed compare-and-set is no change.
        expect(await a.compareAndSet(created, next(created, { statusMessage: "stale" }))).toBe(false);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(seen.filter((c) => c.taskId === created.taskId).every((c) => c.version <= 1)).toBe(true);
      } finally {
        stop();
      }
    });

    it("keeps worker leases beside the record: renewing never bumps the version, a lapsed lease makes an orphan", async () => {
      let now = Date.now();
      const s = await space();
      const a = await s.openTracked({ now: () => now });
      const b = await s.openTracked({ now: () => now });
      const leased = await a.create(newTask("alice", now), { holder: "A", until: now + 1000 });
      const unleased = await a.create(newTask("alice", now));
      // Another holder cannot take a valid lease; the holder renews it.
      expect(await b.renewLease(leased.taskId, "B", now + 5000)).toBe(false);
      expect(await a.renewLease(leased.taskId, "A", now + 2000)).toBe(true);
      expect((await b.get("alice", leased.taskId))!.version).toBe(0);
      expect(await b.orphans(now + 1500, 10)).toEqual([]);
      // Lapsed: an orphan (a task never leased is none), and another holder may take it over.
      expect((await b.orphans(now + 2001, 10)).map((t) => t.taskId)).toEqual([leased.taskId]);
      now += 2001;
      expect(await b.renewLease(leased.taskId, "B", now + 1000)).toBe(true);
      expect(await a.renewLease(leased.taskId, "A", now + 1000)).toBe(false);
      expect(await a.orphans(now + 500, 10)).toEqual([]);
      // Released: no lease, no orphan; a finished task takes no lease and is never an orphan.
      await b.releaseLease(leased.taskId, "B");
      expect(await a.orphans(now + 5000, 10)).toEqual([]);
      expect(await a.renewLease(unleased.taskId, "A", now + 10)).toBe(true);
      const done = next(unleased, { status: "completed", result: { content: [] } });
      expect(await a.compareAndSet(unleased, done)).toBe(true);
      expect(await a.orphans(now + 5000, 10)).toEqual([]);
      expect(await a.renewLease(unleased.taskId, "A", now + 10)).toBe(false);
      expect(await a.renewLease("no-such-task", "A", now + 10)).toBe(false);
    });

    it("survives every instance closing, when durable (a restart)", async () => {
      const s = await space();
      if (!s.durable) return; // The in-memory store lives and dies with its process: nothing to survive.
      const first = await s.open();
      const created = await first.create(newTask("alice", Date.now()), { holder: "A", until: Date.now() - 1 });
      const done = next(created, { status: "completed", result: { structuredContent: { n: 1 }, content: [] } });
      expect(await first.compareAndSet(created, done)).toBe(true);
      const running = await first.create(newTask("alice", Date.now()), { holder: "A", until: Date.now() - 1 });
      await first.close();
      const second = await s.openTracked();
      expect(await second.get("alice", created.taskId)).toEqual(done);
      expect((await second.orphans(Date.now(), 10)).map((t) => t.taskId)).toEqual([running.taskId]);
    });

    it("says when its event channel drops and comes back, and delivers changes again after", async () => {
      const s = await space();
      if (!s.dropChannel) return; // In process (in-memory, SQLite) the channel cannot drop.
      const a = await s.openTracked();
      const b = await s.openTracked();
      const states: boolean[] = [];
      const seen: TaskChange[] = [];
      const stop = b.watch(
        (change) => seen.push(change),
        (up) => states.push(up),
      );
      const before = await a.create(newTask("alice", Date.now()));
      try {
        await eventually(() => states.at(-1) === true);
        await s.dropChannel(b);
        await eventually(() => states.includes(false));
        await eventually(() => states.at(-1) === true, 10_000);
        // The store answers again (an unreachable store rejects meanwhile; it recovers by itself).
        let created: StoredTask | undefined;
        await eventually(async () => {
          created = await a.create(newTask("alice", Date.now())).catch(() => undefined);
          return created !== undefined;
        }, 10_000);
        await eventually(() => seen.some((c) => c.taskId === created!.taskId));
        // What was stored before the drop is still there (Redis: restarted from its append-only file).
        expect(await b.get("alice", before.taskId)).toEqual(before);
      } finally {
        stop();
      }
    });

    describe("engine across instances (two servers on one store)", () => {
      async function twoServers(options: ext.TasksServerOptions = {}) {
        const s = await space();
        const storeA = await s.openTracked();
        const storeB = await s.openTracked();
        const a = ext.createTasksServer({ ...options, store: storeA, instanceId: "A" });
        const b = ext.createTasksServer({ ...options, store: storeB, instanceId: "B" });
        servers.push(a, b);
        await listening(s, storeA);
        await listening(s, storeB);
        return { a, b, s, storeA, storeB };
      }
      async function call(server: ext.TasksServer, method: string, params: object) {
        const response = await server.handle(extensionRequest(method, params), { owner: "alice" });
        if (!response || !("result" in response)) throw new Error(`${method} failed: ${JSON.stringify(response)}`);
        return response.result as Record<string, any>;
      }

      it("a cancel received by B aborts the signal of the worker on A, without waiting for a poll", async () => {
        const { a, b } = await twoServers({ pollInterval: 60_000 });
        const task = await a.createTask({ owner: "alice" });
        const started = Date.now();
        await call(b, "tasks/cancel", { taskId: task.taskId });
        await eventually(() => task.signal.aborted, 3000);
        expect(Date.now() - started).toBeLessThan(3000);
      });

      it("an answer received by B resolves requireInput awaiting on A, and A's listeners see B's change once", async () => {
        const { a, b } = await twoServers({ pollInterval: 60_000 });
        const notified: { status: string }[] = [];
        a.subscribe((notification) => notified.push(notification.params));
        const task = await a.createTask({ owner: "alice" });
        const answer = task.requireInput("name", ask("Name?"));
        await eventually(async () => (await call(b, "tasks/get", { taskId: task.taskId })).status === "input_required");
        await call(b, "tasks/update", { taskId: task.taskId, inputResponses: { name: { action: "accept", content: { name: "Ada" } } } });
        await expect(answer).resolves.toEqual({ action: "accept", content: { name: "Ada" } });
        await eventually(() => notified.length === 3);
        await new Promise((resolve) => setTimeout(resolve, 100));
        // Created, input_required (A's own writes), working again (B's, through the events): once each.
        expect(notified.map((n) => n.status)).toEqual(["working", "input_required", "working"]);
      });

      it("a completion on A racing a cancel on B: exactly one terminal write per task, and the loser is told", async () => {
        const { a, b, storeA } = await twoServers();
        const tasks = await Promise.all(Array.from({ length: 10 }, () => a.createTask({ owner: "alice" })));
        const outcomes = await Promise.all(
          tasks.map(async (task) => {
            const [completed] = await Promise.allSettled([
              task.complete({ content: [{ type: "text", text: `result of ${task.taskId}` }] }),
              call(b, "tasks/cancel", { taskId: task.taskId }),
            ]);
            return { task, completed: completed.status === "fulfilled" };
          }),
        );
        for (const { task, completed } of outcomes) {
          const stored = await storeA.get("alice", task.taskId);
          expect(stored!.version).toBe(1); // working → one terminal status, never two
          expect(stored!.status).toBe(completed ? "completed" : "cancelled");
          if (completed) expect(stored!.result).toEqual({ content: [{ type: "text", text: `result of ${task.taskId}` }] });
        }
      });

      it("fails a task whose worker's instance vanished once its lease lapses; a completed one never changes", async () => {
        const s = await space();
        const storeA = await s.openTracked();
        const storeB = await s.openTracked();
        const a = ext.createTasksServer({ store: storeA, instanceId: "A", leaseDuration: 200, leaseRenewInterval: 50, orphanSweepInterval: 0 });
        const b = ext.createTasksServer({ store: storeB, instanceId: "B", leaseDuration: 200, leaseRenewInterval: 50, orphanSweepInterval: 50 });
        servers.push(b);
        const lost = await a.createTask({ owner: "alice" });
        const finished = await a.createTask({ owner: "alice" });
        await finished.complete({ content: [{ type: "text", text: "kept" }] });
        const alive = await b.createTask({ owner: "alice" });
        a.close(); // A stops renewing: as good as killed, for the store.
        await eventually(async () => (await call(b, "tasks/get", { taskId: lost.taskId })).status === "failed", 5000);
        expect(await call(b, "tasks/get", { taskId: lost.taskId })).toMatchObject({
          status: "failed",
          error: { code: -32603, message: "The worker running this task stopped (lease expired)" },
        });
        expect(await call(b, "tasks/get", { taskId: finished.taskId })).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "kept" }] } });
        // B's own running task keeps its lease alive through many sweeps.
        await new Promise((resolve) => setTimeout(resolve, 400));
        expect((await call(b, "tasks/get", { taskId: alive.taskId })).status).toBe("working");
        await alive.complete({ content: [] });
      });

      it("two instances sweeping the same orphan fail it exactly once", async () => {
        let now = Date.now();
        const s = await space();
        const storeA = await s.openTracked({ now: () => now });
        const storeB = await s.openTracked({ now: () => now });
        const storeC = await s.openTracked({ now: () => now });
        const options = { now: () => now, orphanSweepInterval: 0, leaseDuration: 100 };
        const dead = ext.createTasksServer({ ...options, store: storeA, instanceId: "dead" });
        const b = ext.createTasksServer({ ...options, store: storeB, instanceId: "B" });
        servers.push(b);
        const tasks = await Promise.all(Array.from({ length: 5 }, () => dead.createTask({ owner: "alice" })));
        dead.close();
        now += 1000;
        const notified: string[] = [];
        b.subscribe((n) => n.params.status === "failed" && notified.push(n.params.taskId));
        // Sweeping is exposed only through the timer; a 1 ms interval server is the way to run it now.
        const sweepers = [storeB, storeC].map((store, i) =>
          ext.createTasksServer({ ...options, store, instanceId: `sweeper-${i}`, orphanSweepInterval: 1 }),
        );
        servers.push(...sweepers);
        for (const t of tasks) {
          await eventually(async () => (await call(b, "tasks/get", { taskId: t.taskId })).status === "failed");
          const stored = await storeB.get("alice", t.taskId);
          expect(stored!.version).toBe(1); // one write: working → failed, by one sweeper
        }
      });
    });
  });
}
