import { afterAll, afterEach, describe, expect, it } from "vitest";
import * as ext from "../../../generated/ext-tasks-draft/server.js";
import type { TaskChange } from "../../../generated/ext-tasks-draft/runtime/server/core.js";
import { PostgresTaskStore } from "../../../generated/ext-tasks-draft/runtime/parts/postgres-store.js";
import { RedisTaskStore } from "../../../generated/ext-tasks-draft/runtime/parts/redis-store.js";
import { findPostgresBinaries, startPostgresServer, type PostgresServer } from "../../support/postgres-server.js";
import { findRedisServer, startRedisServer, type RedisServer } from "../../support/redis-server.js";
import { eventually, extensionRequest as request } from "../../support/task-store-contract.js";
import { startTcpGate, type TcpGate } from "../../support/tcp-gate.js";

/**
 * Durable final writes and changes missed while the event channel was down (README, "Task
 * stores"), on real Redis and PostgreSQL servers (private, on free loopback ports). The in-process
 * cases are in durable-writes.test.ts. Without the servers these are skipped with the reason
 * printed, except under CI=true, where they must run.
 */

const alice = { owner: "alice" };
const RESULT = { content: [{ type: "text", text: "42" }] };

type Store = ext.TaskStore & { watch: RedisTaskStore<ext.StoredTask>["watch"]; close(): Promise<void> };

const redisBinary = findRedisServer();
const postgresBinaries = findPostgresBinaries();
const skipRedis = !redisBinary && process.env.CI !== "true";
const skipPostgres = !postgresBinaries && process.env.CI !== "true";
if (skipRedis) console.log("durable-writes-servers: Redis cases skipped: redis-server not found (apt-get install redis-server)");
if (skipPostgres) console.log("durable-writes-servers: PostgreSQL cases skipped: initdb/pg_ctl not found (apt-get install postgresql)");

const cleanups: (() => unknown)[] = [];
// Cleanups stop servers and close pools whose reconnect timers may be waiting out a cut store: slow on a loaded machine.
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}, 180_000);
let postgres: Promise<PostgresServer> | undefined;
afterAll(async () => (await postgres)?.stop());

async function redisServer(): Promise<RedisServer> {
  if (!redisBinary) throw new Error("CI=true: redis-server not found; .ci/run installs it");
  const server = await startRedisServer(redisBinary);
  cleanups.push(() => server.stop());
  return server;
}

async function postgresUrl(): Promise<string> {
  if (!postgresBinaries) throw new Error("CI=true: PostgreSQL's initdb and pg_ctl not found; .ci/run installs them");
  return (await (postgres ??= startPostgresServer(postgresBinaries))).url;
}

let tables = 0;
/** A Redis or PostgreSQL store on `url` (its close registered); two stores of one test share `space`. */
function openStore(kind: "redis" | "postgres", url: string, space: string): Store {
  const store: Store =
    kind === "redis"
      ? new RedisTaskStore<ext.StoredTask>(url, { commandTimeout: 300, keyPrefix: `{${space}}:` })
      : new PostgresTaskStore<ext.StoredTask>(url, { connectTimeout: 500, table: space });
  cleanups.push(() => store.close());
  return store;
}

/** The store's event channel as the engine hears it (onChannel), watched before any server opens it. */
function channelOf(store: Store): { up: boolean } {
  const state = { up: false };
  const watch = store.watch.bind(store);
  store.watch = (listener: (change: TaskChange) => void, onChannel?: (up: boolean) => void) =>
    watch(listener, (up) => {
      state.up = up;
      onChannel?.(up);
    });
  return state;
}

function server(options: ext.TasksServerOptions): ext.TasksServer {
  const created = ext.createTasksServer(options);
  cleanups.push(() => created.close());
  return created;
}

/** A gate between instance A and the store's port (the store's URL rewritten to go through it). */
async function gateTo(url: string): Promise<{ gate: TcpGate; url: string }> {
  const port = Number(new URL(url).port);
  const gate = await startTcpGate(port);
  cleanups.push(() => gate.close());
  return { gate, url: url.replace(`:${port}`, `:${gate.port}`) };
}

/** Opens a listen subscription on `tasks` for one task; the statuses of its task notifications, as they come. */
async function listenTo(tasks: ext.TasksServer, taskId: string): Promise<() => string[]> {
  const written: { method?: string; params?: { status?: string } }[] = [];
  const outcome = await tasks.listen(request("subscriptions/listen", { notifications: { taskIds: [taskId] } }), alice, {
    send: (message) => void written.push(message),
    end: () => {},
  });
  expect(outcome.kind).toBe("streaming");
  expect(written[0]).toMatchObject({ params: { notifications: { taskIds: [taskId] } } });
  return () => written.filter((m) => m.method === "notifications/tasks").map((m) => m.params?.status ?? "");
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Redis: a task whose work ends while Redis is down", () => {
  it.skipIf(skipRedis)("completes once with its result when Redis is back on the same port (stopped and started)", async () => {
    const redis = await redisServer();
    const storeA = openStore("redis", redis.url, "durable-1");
    const storeB = openStore("redis", redis.url, "durable-1");
    const channelB = channelOf(storeB);
    const a = server({ store: storeA });
    const b = server({ store: storeB });
    const told: string[] = [];
    b.subscribe((notification) => told.push(notification.params.status));
    await eventually(() => channelB.up, 5000);
    const task = await a.createTask(alice);
    await eventually(() => told.includes("working"));
    const restarted = redis.restart(1500);
    await eventually(async () => (await storeA.get("alice", task.taskId).then(() => false, () => true)), 5000);
    let settled = false;
    const completing = task.complete(RESULT).finally(() => (settled = true));
    await settle(300);
    expect(settled).toBe(false);
    await restarted;
    await completing;
    // B's connection comes back on its own schedule, and a loaded machine can pass its 300 ms command
    // timeout: read once B answers (a refusal is no answer), then judge what it read.
    let stored: unknown;
    await eventually(async () => (stored = await storeB.get("alice", task.taskId).catch(() => undefined)) !== undefined, 5000);
    expect(stored).toMatchObject({ status: "completed", result: RESULT });
    // Told on B once: by the event, or by B's reading again when its channel returned; never twice.
    await eventually(() => told.includes("completed"), 5000);
    await settle(300);
    expect(told.filter((status) => status === "completed")).toHaveLength(1);
  });
});

for (const kind of ["redis", "postgres"] as const) {
  const skip = kind === "redis" ? skipRedis : skipPostgres;
  const name = kind === "redis" ? "Redis" : "PostgreSQL";
  describe(`${name}: a change made on B while A's event channel is down`, () => {
    it.skipIf(skip)("reaches A's listen subscription when A's channel is back (once)", async () => {
      const url = kind === "redis" ? (await redisServer()).url : await postgresUrl();
      const space = `missed_${kind}_${++tables}`;
      // A reaches the store through a gate: closing it cuts A's channel (and A's other connections) alone.
      const { gate, url: gatedUrl } = await gateTo(url);
      const storeA = openStore(kind, gatedUrl, space);
      const storeB = openStore(kind, url, space);
      const channel = channelOf(storeA);
      // Polls a minute apart: only the channel's return can bring the change in time.
      const a = server({ store: storeA, pollInterval: 60_000 });
      const b = server({ store: storeB, pollInterval: 60_000 });
      await eventually(() => channel.up, 5000);
      const heardOnA: string[] = [];
      a.subscribe((notification) => heardOnA.push(notification.params.taskId));
      const task = await b.createTask(alice);
      // The creation event reaches A over its channel some time after createTask returns: wait for it, so
      // that it cannot arrive after listenTo and be counted as the change A was to miss.
      await eventually(() => heardOnA.includes(task.taskId), 5000);
      const statuses = await listenTo(a, task.taskId);
      await gate.close();
      await eventually(() => !channel.up, 5000);
      await task.complete(RESULT);
      await settle(300);
      expect(statuses()).toEqual([]); // missed: A heard nothing
      await gate.open();
      await eventually(() => statuses().includes("completed"), 10_000);
      await settle(300);
      expect(statuses()).toEqual(["completed"]);
    });

    it.skipIf(skip)("a final write on A outlasts A's cut-off store and ends the task once", async () => {
      const url = kind === "redis" ? (await redisServer()).url : await postgresUrl();
      const space = `final_${kind}_${++tables}`;
      const { gate, url: gatedUrl } = await gateTo(url);
      const storeA = openStore(kind, gatedUrl, space);
      const storeB = openStore(kind, url, space);
      const a = server({ store: storeA });
      const task = await a.createTask(alice);
      await gate.close();
      let settled = false;
      const completing = task.complete(RESULT).finally(() => (settled = true));
      await settle(1000);
      expect(settled).toBe(false);
      expect((await storeB.get("alice", task.taskId))!.status).toBe("working");
      await gate.open();
      await completing;
      expect(await storeB.get("alice", task.taskId)).toMatchObject({ status: "completed", result: RESULT, version: 1 });
    });

    it.skipIf(skip)("a final write stored whose answer was lost is recognised in the record the store gives back", async () => {
      const url = kind === "redis" ? (await redisServer()).url : await postgresUrl();
      const store = openStore(kind, url, `lost_${kind}_${++tables}`);
      const compareAndSet = store.compareAndSet.bind(store);
      let lose = 0;
      store.compareAndSet = async (current, next) => {
        const stored = await compareAndSet(current, next);
        if (stored && lose-- > 0) throw new Error("socket hang up (stored, the answer lost)");
        return stored;
      };
      const a = server({ store });
      const task = await a.createTask(alice);
      await task.update("halfway"); // a record with more fields than a fresh one
      lose = 1;
      await task.complete(RESULT); // not "Cannot complete: the task is already completed"
      expect(await store.get("alice", task.taskId)).toMatchObject({ status: "completed", result: RESULT, version: 2 });
    });
  });
}
