import { describe, expect, it } from "vitest";
import { InMemoryTaskStoreOf, TaskEngine, type TaskRecord } from "../../../templates/runtime/server/core.js";
import {
  MAX_WRITE_ATTEMPTS,
  WriteConflictError,
  writeTask,
  type StatusMachine,
  type TaskWrite,
} from "../../../templates/runtime/server/task-write.js";
import { sdkTaskStore, type SdkStoredTask } from "../../../templates/runtime/parts/sdk-server.js";
import * as status2025 from "../../../generated/tasks-2025-11-25/status.js";

/**
 * The one compare-and-set write (templates/runtime/server/task-write.ts) and its two users: the task
 * engine and the SDK store adapter (parts/sdk-server.ts). Each path refuses what the status machine
 * refuses, tells its change hook once per stored write, reads again after a lost race and gives up
 * after MAX_WRITE_ATTEMPTS lost races with a WriteConflictError.
 */

type Status = "working" | "input_required" | "completed" | "failed" | "cancelled";
interface Task extends TaskRecord {
  readonly status: Status;
  readonly note?: string;
}

const TERMINAL: readonly Status[] = ["completed", "failed", "cancelled"];
/** A stricter machine than the protocol's: a task waiting for input may only finish, never go back to working. */
const STRICT: StatusMachine<Status> = {
  isTerminalStatus: (status) => TERMINAL.includes(status),
  canTransition: (from, to) => !TERMINAL.includes(from) && !(from === "input_required" && to === "working"),
};

function record(status: Status, version = 0): Task {
  return { taskId: "t1", owner: "alice", status, version, lastUpdatedAt: "", expiresAt: null };
}

/** A write against one record in memory; `losses` compare-and-sets are refused first (another writer came first). */
function scripted(start: Task, losses = 0) {
  let stored = start;
  let lost = 0;
  const calls = { reads: 0, compareAndSets: 0, changed: [] as Task[], sent: [] as (Task | undefined)[] };
  const write: TaskWrite<Task> = {
    owner: "alice",
    taskId: "t1",
    read: async () => {
      calls.reads++;
      return stored;
    },
    compareAndSet: async (current, next) => {
      calls.compareAndSets++;
      if (lost < losses) {
        lost++;
        // The other writer's change: the record moved on.
        stored = { ...stored, version: stored.version + 1 };
        return false;
      }
      if (current.version !== stored.version) return false;
      stored = next;
      return true;
    },
    machine: STRICT,
    refused: (before, proposed) => new Error(`refused ${before.status} -> ${proposed.status}`),
    now: () => Date.UTC(2026, 0, 1),
    changed: (after) => calls.changed.push(after),
    sending: (after) => calls.sent.push(after),
  };
  return { write, calls, stored: () => stored };
}

describe("writeTask", () => {
  it("stores the change as the next version, stamped, and tells the change hook once", async () => {
    const { write, calls, stored } = scripted(record("working", 3));
    const written = await writeTask(write, (task) => ({ ...task, status: "input_required" as const }));
    expect(written?.after).toMatchObject({ status: "input_required", version: 4, lastUpdatedAt: "2026-01-01T00:00:00.000Z" });
    expect(stored()).toBe(written?.after);
    expect(calls.changed).toEqual([written?.after]);
  });

  it("refuses a move the status machine does not allow, and any change to a finished task, storing nothing", async () => {
    const waiting = scripted(record("input_required"));
    await expect(writeTask(waiting.write, (task) => ({ ...task, status: "working" as const }))).rejects.toThrow("refused input_required -> working");
    expect(waiting.calls).toMatchObject({ compareAndSets: 0, changed: [] });
    const done = scripted(record("completed"));
    await expect(writeTask(done.write, (task) => ({ ...task, note: "late" }))).rejects.toThrow("refused completed -> completed");
    expect(done.calls).toMatchObject({ compareAndSets: 0, changed: [] });
  });

  it("leaves the task alone when the change returns undefined (no write, no hook)", async () => {
    const { write, calls } = scripted(record("working"));
    const written = await writeTask(write, () => undefined);
    expect(written?.after).toBe(written?.before);
    expect(calls).toMatchObject({ compareAndSets: 0, changed: [] });
  });

  it("is undefined for a task that does not exist", async () => {
    const { write } = scripted(record("working"));
    expect(await writeTask({ ...write, read: async () => undefined }, (task) => task)).toBeUndefined();
  });

  it("reads again after a lost race and writes over the newer record, the hook told once", async () => {
    const { write, calls } = scripted(record("working"), 3);
    const written = await writeTask(write, (task) => ({ ...task, note: "mine" }));
    expect(calls.reads).toBe(4);
    expect(written?.after).toMatchObject({ version: 4, note: "mine" });
    expect(calls.changed).toHaveLength(1);
    // Each refused record is withdrawn before the next attempt.
    expect(calls.sent.filter((sent) => sent === undefined)).toHaveLength(3);
  });

  it(`gives up after ${MAX_WRITE_ATTEMPTS} lost races with a WriteConflictError`, async () => {
    const { write, calls } = scripted(record("working"), Number.POSITIVE_INFINITY);
    const failure = writeTask(write, (task) => ({ ...task, note: "never" }));
    await expect(failure).rejects.toBeInstanceOf(WriteConflictError);
    await expect(failure).rejects.toThrow(`task t1: gave up after ${MAX_WRITE_ATTEMPTS} conflicting writes`);
    expect(calls.compareAndSets).toBe(MAX_WRITE_ATTEMPTS);
    expect(calls.changed).toEqual([]);
  });
});

/** The in-memory store with the first `losses` compare-and-sets refused, as if another instance wrote first. */
function racingStore<T extends TaskRecord>(losses: number) {
  const store = new InMemoryTaskStoreOf<T>();
  const compareAndSet = store.compareAndSet.bind(store);
  let lost = 0;
  store.compareAndSet = async (current, next) => {
    if (lost < losses) {
      lost++;
      return false;
    }
    return compareAndSet(current, next);
  };
  return store;
}

describe("the task engine writes through it", () => {
  function engine(losses = 0) {
    const store = racingStore<Task>(losses);
    const changed: Task[] = [];
    const tasks = new TaskEngine<Task>(
      { ...STRICT, stateError: (_id, status, message) => new Error(`${status}: ${message}`), changed: (task) => changed.push(task) },
      { store, pollInterval: 10_000, onError: () => {}, now: () => 0 },
    );
    return { store, tasks, changed };
  }

  it("refuses what the status machine refuses, tells its hook once per write, retries a lost race", async () => {
    const { store, tasks, changed } = engine(2);
    const { taskId } = await store.create({ owner: "alice", status: "input_required", lastUpdatedAt: "", expiresAt: null });
    await expect(tasks.write("alice", taskId, (task) => ({ ...task, status: "working" as const }))).rejects.toThrow(
      "input_required: Illegal transition from input_required to working",
    );
    const written = await tasks.write("alice", taskId, (task) => ({ ...task, status: "completed" }));
    expect(written?.after).toMatchObject({ status: "completed", version: 1 });
    expect(changed.map((task) => task.version)).toEqual([1]);
    tasks.close();
  });

  it(`gives up after ${MAX_WRITE_ATTEMPTS} lost races with a WriteConflictError`, async () => {
    const { store, tasks, changed } = engine(Number.POSITIVE_INFINITY);
    const { taskId } = await store.create({ owner: "alice", status: "working", lastUpdatedAt: "", expiresAt: null });
    await expect(tasks.write("alice", taskId, (task) => ({ ...task, note: "x" }))).rejects.toBeInstanceOf(WriteConflictError);
    expect(changed).toEqual([]);
    tasks.close();
  });
});

describe("the SDK store adapter writes through it", () => {
  const request = { method: "tools/call", params: {} };

  it("refuses a move the set's status machine does not allow (the SDK's own rule allows it)", async () => {
    const store = new InMemoryTaskStoreOf<SdkStoredTask>();
    const strict = sdkTaskStore(store, { statusMachine: STRICT });
    const task = await strict.createTask({}, 1, request, "s1");
    await strict.updateTaskStatus(task.taskId, "input_required", "asking", "s1");
    await expect(strict.updateTaskStatus(task.taskId, "working", undefined, "s1")).rejects.toThrow(
      `Cannot update task ${task.taskId}: illegal transition from input_required to working`,
    );
    expect(await store.get("s1", task.taskId)).toMatchObject({ status: "input_required", version: 1 });
    // Without a machine, the SDK's rule: only a finished task is refused.
    await sdkTaskStore(store).updateTaskStatus(task.taskId, "working", undefined, "s1");
    expect(await store.get("s1", task.taskId)).toMatchObject({ status: "working", version: 2 });
  });

  it("tells onChange once per write: the created task, then each change", async () => {
    const store = new InMemoryTaskStoreOf<SdkStoredTask>();
    const changed: SdkStoredTask[] = [];
    const bridge = sdkTaskStore(store, { statusMachine: STRICT, onChange: (task) => changed.push(task) });
    const task = await bridge.createTask({}, 1, request, "s1");
    await bridge.updateTaskStatus(task.taskId, "input_required", "asking", "s1");
    await bridge.storeTaskResult(task.taskId, "completed", { content: [] }, "s1");
    await expect(bridge.updateTaskStatus(task.taskId, "cancelled", undefined, "s1")).rejects.toThrow("already completed");
    expect(changed.map((t) => [t.status, t.version])).toEqual([
      ["working", 0],
      ["input_required", 1],
      ["completed", 2],
    ]);
  });

  it("reads again after a lost race, and gives up after too many with a WriteConflictError", async () => {
    const racing = racingStore<SdkStoredTask>(5);
    const changed: SdkStoredTask[] = [];
    const bridge = sdkTaskStore(racing, { onChange: (task) => changed.push(task) });
    const task = await bridge.createTask({}, 1, request, "s1");
    await bridge.storeTaskResult(task.taskId, "completed", { content: [] }, "s1");
    expect(changed.map((t) => t.version)).toEqual([0, 1]);
    const hopeless = sdkTaskStore(racingStore<SdkStoredTask>(Number.POSITIVE_INFINITY));
    const other = await hopeless.createTask({}, 1, request, "s1");
    await expect(hopeless.updateTaskStatus(other.taskId, "input_required", undefined, "s1")).rejects.toBeInstanceOf(WriteConflictError);
  });

  it("without a machine, decides every move as the 2025-11-25 set's status machine does", async () => {
    const outcome = async (bridge: ReturnType<typeof sdkTaskStore>, store: InMemoryTaskStoreOf<SdkStoredTask>, from: Status, to: Status) => {
      const created = await bridge.createTask({}, 1, request, "s1");
      const stored = (await store.get("s1", created.taskId))!;
      await store.compareAndSet(stored, { ...stored, status: from, version: 1 });
      return bridge.updateTaskStatus(created.taskId, to, undefined, "s1").then(
        () => "stored",
        (error: Error) => error.message.replace(created.taskId, "<id>"),
      );
    };
    const store = new InMemoryTaskStoreOf<SdkStoredTask>();
    const byDefault = sdkTaskStore(store);
    const bySet = sdkTaskStore(store, { statusMachine: status2025 });
    for (const from of status2025.TASK_STATUSES) {
      for (const to of status2025.TASK_STATUSES) {
        expect(await outcome(byDefault, store, from, to), `${from} -> ${to}`).toBe(await outcome(bySet, store, from, to));
      }
    }
    expect(await outcome(byDefault, store, "cancelled", "working")).toBe("Cannot update task <id>: it is already cancelled");
  });
});
