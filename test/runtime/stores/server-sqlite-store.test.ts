import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as ext from "../../../generated/ext-tasks-draft/server.js";
import type { InputRequest } from "../../../generated/ext-tasks-draft/types.js";
import * as v2025 from "../../../generated/tasks-2025-11-25/server.js";
import { SqliteTaskStore } from "../../../generated/ext-tasks-draft/runtime/parts/sqlite-store.js";
import { extensionRequest } from "../../support/task-store-contract.js";

/**
 * The durable store: tasks, results and outstanding input survive the process that made them.
 * "Restart" here means the store and the server are thrown away (the database closed, or just
 * abandoned as a crash would) and new ones are opened on the same file.
 */

const alice = { owner: "alice" };

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-sqlite-"));
  file = join(dir, "tasks.db");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An ext-tasks server on the database file; the annotation proves the store implements the generated interface. */
function extServer(options: { now?: () => number } = {}) {
  const store: ext.TaskStore = new SqliteTaskStore<ext.StoredTask>(file, options);
  return { store: store as SqliteTaskStore<ext.StoredTask>, server: ext.createTasksServer({ store, ...options }) };
}

async function call(server: ext.TasksServer | v2025.TasksServer, method: string, params: object, transport = alice) {
  const response = await server.handle(extensionRequest(method, params), transport);
  if (!response || !("result" in response)) throw new Error(`${method} failed: ${JSON.stringify(response)}`);
  return response.result as Record<string, any>;
}

// The form has the field the test answers: the server judges an accepted form's content by the form (form-answers.ts).
const ask = (message: string): InputRequest => ({ method: "elicitation/create", params: { message, requestedSchema: { type: "object", properties: { name: { type: "string" } } } } });

describe("SqliteTaskStore", () => {
  it("keeps tasks, results and outstanding input across a restart", async () => {
    // --- the first process ---
    const first = extServer();
    const waiting = await first.server.createTask(alice);
    void waiting.requireInput("approve", ask("Deploy?")).catch(() => {}); // this process dies before the answer
    const answered = await first.server.createTask(alice);
    void answered.requireInput("name", ask("Name?")).catch(() => {});
    const finished = await first.server.createTask(alice);
    await finished.complete({ content: [{ type: "text", text: "all done" }], structuredContent: { n: 7 } });
    const broken = await first.server.createTask(alice);
    await broken.fail({ code: -32603, message: "crashed" });
    await waitUntil(async () => (await call(first.server, "tasks/get", { taskId: answered.taskId })).status === "input_required");
    // An answer arrives, and the process goes away before the tool code consumed it.
    await call(first.server, "tasks/update", { taskId: answered.taskId, inputResponses: { name: { action: "accept", content: { name: "Ada" } } } });
    await waitUntil(async () => (await call(first.server, "tasks/get", { taskId: waiting.taskId })).status === "input_required");
    first.server.close();
    first.store.close();

    // --- the next process ---
    const second = extServer();
    expect(await call(second.server, "tasks/get", { taskId: waiting.taskId })).toMatchObject({
      status: "input_required",
      inputRequests: { approve: ask("Deploy?") },
    });
    expect(await call(second.server, "tasks/get", { taskId: finished.taskId })).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "all done" }], structuredContent: { n: 7 } },
    });
    expect(await call(second.server, "tasks/get", { taskId: broken.taskId })).toMatchObject({ status: "failed", error: { code: -32603 } });
    // Owner scoping survives too.
    const bob = await second.server.handle(extensionRequest("tasks/get", { taskId: finished.taskId }), { owner: "bob" });
    expect(bob).toMatchObject({ error: { code: -32602 } });

    // The answer given before the restart is waiting for the resumed tool code.
    const resumedAnswered = await second.server.resumeTask(alice, answered.taskId);
    await expect(resumedAnswered!.input("name")).resolves.toEqual({ action: "accept", content: { name: "Ada" } });
    await resumedAnswered!.complete({ content: [{ type: "text", text: "Hello, Ada" }] });

    // The outstanding request is answered after the restart, and the resumed code gets it.
    const resumedWaiting = await second.server.resumeTask(alice, waiting.taskId);
    const answer = resumedWaiting!.input("approve");
    await call(second.server, "tasks/update", { taskId: waiting.taskId, inputResponses: { approve: { action: "accept" } } });
    await expect(answer).resolves.toEqual({ action: "accept" });
    await resumedWaiting!.complete({ content: [] });
    expect((await call(second.server, "tasks/get", { taskId: waiting.taskId })).status).toBe("completed");
    // Finished tasks have no handle to resume.
    expect(await second.server.resumeTask(alice, finished.taskId)).toBeUndefined();
    second.server.close();
    second.store.close();
  });

  it("has every committed write on disk even when the process never closed the database", async () => {
    const crashed = extServer();
    const task = await crashed.server.createTask(alice);
    await task.update("step 3 of 5");
    // No close: a second connection reads the file as a restarted process would after a crash.
    const reopened = extServer();
    expect(await call(reopened.server, "tasks/get", { taskId: task.taskId })).toMatchObject({ status: "working", statusMessage: "step 3 of 5" });
    crashed.store.close();
    reopened.store.close();
  });

  it("lets two processes share the file without losing an update (compare-and-set)", async () => {
    const a = extServer();
    const b = extServer();
    const task = await a.server.createTask(alice);
    const onB = await b.server.resumeTask(alice, task.taskId);
    // Interleaved writes through two connections: each read-modify-write that loses a race retries.
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? task : onB!).update(`update ${i}`)));
    const stored = await a.store.get("alice", task.taskId);
    expect(stored!.version).toBe(40);
    a.store.close();
    b.store.close();
  });

  it("lists an owner's live tasks in pages for the 2025-11-25 server, and expires tasks by TTL", async () => {
    let now = 1_000_000;
    const store: v2025.TaskStore = new SqliteTaskStore<v2025.StoredTask>(file, { now: () => now });
    const server = v2025.createTasksServer({ store, now: () => now, pageSize: 2 });
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) {
      mine.push((await server.createTask(alice, { ttl: i === 0 ? 10 : 60_000 })).taskId);
      await server.createTask({ owner: "bob" });
    }
    now += 10; // the first task expires
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call(server, "tasks/list", cursor ? { cursor } : {});
      listed.push(...page.tasks.map((t: { taskId: string }) => t.taskId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(listed).toEqual(mine.slice(1));
    const gone = await server.handle({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: mine[0] } }, alice);
    expect(gone).toMatchObject({ error: { code: -32602 } });
    expect((store as SqliteTaskStore<v2025.StoredTask>).deleteExpired()).toBe(1);
    (store as SqliteTaskStore<v2025.StoredTask>).close();
  });

  it("caps the tasks it holds, deleting expired ones to make room", async () => {
    let now = 0;
    const store = new SqliteTaskStore<ext.StoredTask>(file, { maxTasks: 2, now: () => now });
    const server = ext.createTasksServer({ store, now: () => now, defaultTtl: 50 });
    await server.createTask(alice);
    await server.createTask(alice);
    await expect(server.createTask(alice)).rejects.toThrow(/maximum of 2 tasks/);
    now = 50;
    await expect(server.createTask(alice)).resolves.toBeDefined();
    store.close();
  });
});

describe("SqliteTaskStore on a file written before leases and events", () => {
  it("adds the lease columns and the events table on open, the records intact", async () => {
    // The table as the store created it before it kept leases (no status, lease_holder, lease_until).
    const old = new Database(file);
    old.exec(`CREATE TABLE tasks (seq INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL UNIQUE, owner TEXT NOT NULL,
      version INTEGER NOT NULL, expires_at INTEGER, record TEXT NOT NULL)`);
    const record = { taskId: "t-1", owner: "alice", status: "working", createdAt: "2026-01-01T00:00:00.000Z", lastUpdatedAt: "2026-01-01T00:00:00.000Z", ttl: null, expiresAt: null, version: 3, inputRequests: {}, inputResponses: {}, inputKeys: [] };
    old.prepare("INSERT INTO tasks (task_id, owner, version, expires_at, record) VALUES (?, ?, ?, ?, ?)").run("t-1", "alice", 3, null, JSON.stringify(record));
    old.close();
    const store = new SqliteTaskStore<ext.StoredTask>(file);
    expect(await store.get("alice", "t-1")).toEqual(record);
    expect(await store.renewLease("t-1", "A", 1000)).toBe(true); // the status column was filled from the record
    expect((await store.orphans(2000, 10)).map((t) => t.taskId)).toEqual(["t-1"]);
    const done = { ...record, status: "completed" as const, result: { content: [] }, version: 4 };
    expect(await store.compareAndSet(record as ext.StoredTask, done as ext.StoredTask)).toBe(true);
    expect(await store.orphans(2000, 10)).toEqual([]);
    store.close();
    // Opening it again migrates nothing twice.
    const again = new SqliteTaskStore<ext.StoredTask>(file);
    expect(await again.get("alice", "t-1")).toEqual(done);
    again.close();
  });
});

async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error("condition never held");
}
