import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import * as ext from "../../../generated/ext-tasks-draft/server.js";
import pg from "pg";
import { PostgresTaskStore, PostgresTaskStoreError } from "../../../generated/ext-tasks-draft/runtime/parts/postgres-store.js";
import { RedisTaskStore } from "../../../generated/ext-tasks-draft/runtime/parts/redis-store.js";
import { SqliteTaskStore } from "../../../generated/ext-tasks-draft/runtime/parts/sqlite-store.js";
import { nodeHttpHandler, STATELESS_PROTOCOL_VERSION } from "../../../generated/ext-tasks-draft/runtime/parts/http-server.js";
import { skipReason, startStoreServer, type StoreServer } from "../../support/store-servers.js";
import type { TaskListingOf } from "../../../generated/ext-tasks-draft/runtime/server/engine.js";
import { EXTENSION_META, newTask, next } from "../../support/task-store-contract.js";

/**
 * A greedy tenant against every store: one owner may hold at most `maxTasksPerOwner` live
 * (non-terminal, unexpired) tasks, checked and inserted atomically, also by creates racing on two
 * instances that share the store; everyone else keeps working; the total cap keeps its own error.
 * Redis and PostgreSQL run against private servers (skipped without their binaries, failing under
 * CI=true, as the other store tests).
 */

type Store = ext.TaskStore & TaskListingOf<ext.StoredTask> & { close(): void | Promise<void> };
interface Options {
  readonly maxTasks?: number;
  readonly maxTasksPerOwner?: number | null;
  readonly now?: () => number;
}
/** A fresh, isolated place for tasks: every store opened on it is one more instance sharing its tasks. */
type Space = (options?: Options) => Store;

const sqliteDir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-quotas-"));
let spaces = 0;
const servers: Partial<Record<"redis" | "postgres", Promise<StoreServer>>> = {};
afterAll(async () => {
  rmSync(sqliteDir, { recursive: true, force: true });
  for (const server of Object.values(servers)) await (await server).stop();
});
const server = (kind: "redis" | "postgres") => (servers[kind] ??= startStoreServer(kind));

const BACKENDS: readonly { name: string; skip: string | undefined; space(): Promise<Space> }[] = [
  {
    name: "in-memory",
    skip: undefined,
    // One process, one object: every "instance" is the same store.
    space: async () => {
      let store: Store | undefined;
      return (options = {}) => (store ??= Object.assign(new ext.InMemoryTaskStore(options), { close() {} }));
    },
  },
  {
    name: "SQLite",
    skip: undefined,
    // Each instance its own connection to one file.
    space: async () => {
      const file = join(sqliteDir, `tasks-${++spaces}.db`);
      return (options = {}) => new SqliteTaskStore<ext.StoredTask>(file, options);
    },
  },
  {
    name: "Redis",
    skip: skipReason("redis"),
    space: async () => {
      const { url } = await server("redis");
      const keyPrefix = `{quotas-${++spaces}}:`;
      return (options = {}) => new RedisTaskStore<ext.StoredTask>(url, { ...options, keyPrefix });
    },
  },
  {
    name: "PostgreSQL",
    skip: skipReason("postgres"),
    space: async () => {
      const { url } = await server("postgres");
      const table = `quotas_${++spaces}`;
      return (options = {}) => new PostgresTaskStore<ext.StoredTask>(url, { ...options, table });
    },
  },
];

describe.each(BACKENDS)("per-owner quota: $name store", ({ skip, space }) => {
  const opened: Store[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });
  /** One instance on a fresh space. */
  const open = async (options?: Options) => {
    const instance = (await space())(options);
    opened.push(instance);
    return { instance };
  };
  async function openPair(options: Options): Promise<[Store, Store]> {
    const s = await space();
    const pair: [Store, Store] = [s(options), s(options)];
    opened.push(...pair);
    return pair;
  }
  const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

  it.skipIf(skip)("refuses an owner past its quota with TaskOwnerLimitError (-32011, naming maxTasksPerOwner); the owner's own tasks and other owners work on", async () => {
    const { instance: store } = await open({ maxTasksPerOwner: 3 });
    const now = Date.now();
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push(await store.create(newTask("alice", now)));
    const refused = (await refusal(store.create(newTask("alice", now)))) as ext.TaskOwnerLimitError;
    expect(refused).toBeInstanceOf(ext.TaskOwnerLimitError);
    expect(refused).toBeInstanceOf(ext.ServerLimitError);
    expect(refused).toBeInstanceOf(ext.JsonRpcError);
    expect(refused).not.toBeInstanceOf(ext.TaskLimitError);
    expect(refused.name).toBe("TaskOwnerLimitError");
    expect(refused.toJSON()).toEqual({
      code: ext.LIMIT_ERROR_CODES.OwnerTaskLimit,
      message: "Too many live tasks: this owner holds its maximum of 3 (maxTasksPerOwner)",
      data: { limit: "maxTasksPerOwner", max: 3 },
    });
    expect(ext.LIMIT_ERROR_CODES.OwnerTaskLimit).toBe(-32011);
    // Other owners are not touched by alice's quota.
    for (let i = 0; i < 3; i++) await expect(store.create(newTask("bob", now))).resolves.toMatchObject({ owner: "bob", version: 0 });
    // Alice still reads, writes and lists what she has.
    expect(await store.get("alice", mine[0]!.taskId)).toEqual(mine[0]);
    expect(await store.compareAndSet(mine[0]!, next(mine[0]!, { statusMessage: "still going" }))).toBe(true);
    expect((await store.list("alice", undefined, 10))!.tasks.map((t) => t.taskId)).toEqual(mine.map((t) => t.taskId));
  });

  it.skipIf(skip)("a finished or expired task gives its place back; a write that keeps a task running does not", async () => {
    let now = Date.now();
    const { instance: store } = await open({ maxTasksPerOwner: 2, now: () => now });
    const short = await store.create(newTask("alice", now, 1000));
    const running = await store.create(newTask("alice", now));
    const updated = next(running, { statusMessage: "half way" });
    expect(await store.compareAndSet(running, updated)).toBe(true);
    await expect(store.create(newTask("alice", now))).rejects.toBeInstanceOf(ext.TaskOwnerLimitError);
    expect(await store.compareAndSet(updated, next(updated, { status: "completed", result: { content: [] } }))).toBe(true);
    const third = await store.create(newTask("alice", now));
    await expect(store.create(newTask("alice", now))).rejects.toBeInstanceOf(ext.TaskOwnerLimitError);
    now += 1000; // `short` expires now.
    await store.create(newTask("alice", now));
    await expect(store.create(newTask("alice", now))).rejects.toBeInstanceOf(ext.TaskOwnerLimitError);
    expect(await store.compareAndSet(third, next(third, { status: "cancelled" }))).toBe(true);
    await store.create(newTask("alice", now));
    expect(short.taskId).not.toBe(third.taskId);
  });

  it.skipIf(skip)("parallel creates by one owner on two instances never pass the quota: exactly the quota succeeds, the rest are refused", async () => {
    const [a, b] = await openPair({ maxTasksPerOwner: 5 });
    for (const owner of ["carol", "dave", "erin"]) {
      const attempts = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).create(newTask(owner, Date.now())));
      const settled = await Promise.allSettled(attempts);
      const created = settled.filter((s) => s.status === "fulfilled");
      const refused = settled.flatMap((s) => (s.status === "rejected" ? [s.reason] : []));
      expect(created).toHaveLength(5);
      expect(refused).toHaveLength(25);
      for (const reason of refused) expect(reason).toBeInstanceOf(ext.TaskOwnerLimitError);
      expect((await b.list(owner, undefined, 50))!.tasks).toHaveLength(5);
    }
  });

  it.skipIf(skip)("the total cap keeps its own error (TaskLimitError, -32012, naming maxTasks), whatever each owner's quota", async () => {
    const { instance: store } = await open({ maxTasks: 4, maxTasksPerOwner: 3 });
    const now = Date.now();
    for (let i = 0; i < 3; i++) await store.create(newTask("alice", now));
    await store.create(newTask("bob", now));
    const refused = (await refusal(store.create(newTask("carol", now)))) as ext.TaskLimitError;
    expect(refused).toBeInstanceOf(ext.TaskLimitError);
    expect(refused).not.toBeInstanceOf(ext.TaskOwnerLimitError);
    expect(refused.name).toBe("TaskLimitError");
    expect(refused.toJSON()).toEqual({
      code: ext.LIMIT_ERROR_CODES.TaskStoreFull,
      message: "The task store is full: it holds its maximum of 4 tasks (maxTasks)",
      data: { limit: "maxTasks", max: 4 },
    });
    expect(ext.LIMIT_ERROR_CODES.TaskStoreFull).toBe(-32012);
    // Alice at her quota with the store full hears of her own limit first: it is the one she can act on.
    await expect(store.create(newTask("alice", now))).rejects.toBeInstanceOf(ext.TaskOwnerLimitError);
  });

  it.skipIf(skip)(`the default quota is ${ext.DEFAULT_MAX_TASKS_PER_OWNER} live tasks per owner; null turns it off`, async () => {
    expect(ext.DEFAULT_MAX_TASKS_PER_OWNER).toBe(100);
    const createMany = async (store: Store, owner: string, count: number) => {
      for (let i = 0; i < count; i += 10)
        await Promise.all(Array.from({ length: Math.min(10, count - i) }, () => store.create(newTask(owner, Date.now()))));
    };
    const { instance: store } = await open();
    await createMany(store, "alice", 100);
    const refused = (await refusal(store.create(newTask("alice", Date.now())))) as ext.TaskOwnerLimitError;
    expect(refused).toBeInstanceOf(ext.TaskOwnerLimitError);
    expect(refused.max).toBe(100);
    const { instance: unlimited } = await open({ maxTasksPerOwner: null });
    await createMany(unlimited, "alice", 120);
    expect((await unlimited.list("alice", undefined, 200))!.tasks).toHaveLength(120);
  });
});

describe("per-owner quota on the wire (the http-server part, real HTTP)", () => {
  let http: Server | undefined;
  let tasks: ext.TasksServer | undefined;
  afterEach(async () => {
    tasks?.close();
    await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
    http = undefined;
  });

  async function start(
    store: ext.InMemoryTaskStore,
    reported: unknown[],
    httpOptions: { retryAfterSeconds?: number | null } = {},
  ): Promise<string> {
    const server = (tasks = ext.createTasksServer({ store, onError: (error) => void reported.push(error) }));
    const handler = nodeHttpHandler({
      ...httpOptions,
      tasks: server,
      onError: (error) => void reported.push(error),
      methods: {
        "tools/call": async (_params, context) => (await server.createTask(context)).createResult,
      },
    });
    http = createServer(handler);
    await new Promise<void>((resolve) => http!.listen(0, "127.0.0.1", () => resolve()));
    return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  }

  async function callTool(url: string, who: string) {
    const response = await postToolCall(url, who);
    return { status: response.status, body: (await response.json()) as { result?: { status?: string }; error?: object } };
  }

  function postToolCall(url: string, who: string): Promise<Response> {
    return fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": STATELESS_PROTOCOL_VERSION,
        "mcp-method": "tools/call",
        "mcp-name": "work",
        authorization: `Bearer ${who}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "work", _meta: EXTENSION_META } }),
    });
  }

  /** Status and Retry-After of alice's three calls at a quota of 1 (200, 429) and bob's at a full store (503). */
  async function retryAfters(httpOptions: { retryAfterSeconds?: number | null }) {
    const url = await start(new ext.InMemoryTaskStore({ maxTasksPerOwner: 1, maxTasks: 2 }), [], httpOptions);
    const seen: [number, string | null][] = [];
    for (const who of ["alice", "alice", "bob", "carol"]) {
      const response = await postToolCall(url, who);
      await response.arrayBuffer();
      seen.push([response.status, response.headers.get("retry-after")]);
    }
    // Each call starts its own server: closed here, so the next one does not replace it unclosed.
    await tasks?.close();
    tasks = undefined;
    await new Promise<void>((resolve) => http!.close(() => resolve()));
    http = undefined;
    return seen;
  }

  it("an owner at its quota gets 429 with -32011 naming the limit, others still 200; a full store answers 503 with -32012 and tells onError", async () => {
    const reported: unknown[] = [];
    const url = await start(new ext.InMemoryTaskStore({ maxTasksPerOwner: 2, maxTasks: 3 }), reported);
    for (let i = 0; i < 2; i++) expect((await callTool(url, "alice")).status).toBe(200);
    expect(await callTool(url, "alice")).toEqual({
      status: 429,
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32011, message: "Too many live tasks: this owner holds its maximum of 2 (maxTasksPerOwner)", data: { limit: "maxTasksPerOwner", max: 2 } },
      },
    });
    // A caller's own quota is no fault of the server's: nothing reported.
    expect(reported).toEqual([]);
    const bob = await callTool(url, "bob");
    expect(bob.status).toBe(200);
    expect(bob.body.result).toMatchObject({ status: "working" });
    expect(await callTool(url, "carol")).toEqual({
      status: 503,
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32012, message: "The task store is full: it holds its maximum of 3 tasks (maxTasks)", data: { limit: "maxTasks", max: 3 } },
      },
    });
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(ext.TaskLimitError);
  });

  it("a 429 or 503 refusal says when to come back (Retry-After, 5 s by default, retryAfterSeconds, null for none); other answers do not", async () => {
    expect(await retryAfters({})).toEqual([[200, null], [429, "5"], [200, null], [503, "5"]]);
    expect(await retryAfters({ retryAfterSeconds: 30 })).toEqual([[200, null], [429, "30"], [200, null], [503, "30"]]);
    expect(await retryAfters({ retryAfterSeconds: null })).toEqual([[200, null], [429, null], [200, null], [503, null]]);
  });

  it("refuses a Retry-After that is no whole number of seconds when the handler is made", () => {
    const server = (tasks = ext.createTasksServer({ store: new ext.InMemoryTaskStore() }));
    for (const retryAfterSeconds of [-1, 1.5, Number.NaN, Infinity]) {
      expect(() => nodeHttpHandler({ tasks: server, retryAfterSeconds, owner: () => "x" })).toThrow(
        /retryAfterSeconds: expected a whole number of seconds ≥ 0 or null/,
      );
    }
  });
});

describe.skipIf(skipReason("postgres"))("per-owner quota in PostgreSQL: a creator that hangs holding its owner's lock", () => {
  it("blocks that owner's creates for at most lock_timeout (then PostgresTaskStoreError), never other owners'", async () => {
    const { url } = await server("postgres");
    const table = `quotas_lock_${++spaces}`;
    const store = new PostgresTaskStore<ext.StoredTask>(url, { table, maxTasksPerOwner: 5 });
    // A creator frozen inside its transaction: it holds alice's lock and says nothing more.
    const frozen = new pg.Client({ connectionString: url });
    try {
      await store.create(newTask("bob", Date.now())); // the table exists
      await frozen.connect();
      await frozen.query("BEGIN");
      await frozen.query("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))", [table, "alice"]);
      const started = Date.now();
      const waiting = store.create(newTask("alice", Date.now())).then(
        () => "created",
        (error: unknown) => error,
      );
      await expect(store.create(newTask("bob", Date.now()))).resolves.toMatchObject({ owner: "bob" });
      const outcome = await waiting;
      expect(outcome).toBeInstanceOf(PostgresTaskStoreError);
      expect((outcome as Error).message).toMatch(/lock timeout/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
    } finally {
      await frozen.end();
      await store.close();
    }
  }, 60_000);
});
