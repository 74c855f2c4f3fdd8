/**
 * One write of a task: read it, let the caller change it, check the change against the status
 * machine and store it with the store's compare-and-set, reading again after a lost race. The task
 * engine's writes (task-engine.ts) and the SDK store adapter's (parts/sdk-server.ts) are this one loop,
 * so both refuse what the set's status machine refuses and tell their change hook once per write.
 */
import type { TaskRecord } from "./store.js";

/** How many times a write reads the task again after losing a compare-and-set race before it gives up. */
export const MAX_WRITE_ATTEMPTS = 100;

/** The set's status machine: its `status.ts` exports both functions. */
export interface StatusMachine<Status extends string> {
  isTerminalStatus(status: Status): boolean;
  canTransition(from: Status, to: Status): boolean;
}

/** A write that lost MAX_WRITE_ATTEMPTS compare-and-set races in a row (other writers kept changing the task). */
export class WriteConflictError extends Error {
  override readonly name = "WriteConflictError";
  constructor(readonly taskId: string) {
    super(`task ${taskId}: gave up after ${MAX_WRITE_ATTEMPTS} conflicting writes`);
  }
}

/** A write's task before and after (the same record when the change left it as it was). */
export interface Change<Task> {
  readonly before: Task;
  readonly after: Task;
}

/** The task a write is about and what it works with. */
export interface TaskWrite<Task extends TaskRecord> {
  readonly owner: string;
  readonly taskId: string;
  /** The stored task; undefined when there is none. */
  read(): Promise<Task | undefined>;
  /** Stores `next` if the stored task is still `current` (the store's compare-and-set). */
  compareAndSet(current: Task, next: Task): Promise<boolean>;
  readonly machine: StatusMachine<Task["status"]>;
  /** The error to throw for a change the machine refuses: the task is finished, or the move is not allowed. */
  refused(before: Task, proposed: Task): Error;
  /** The clock, in epoch milliseconds (`lastUpdatedAt`). */
  now(): number;
  /** Told each record after it is stored: once per write that changed the task. */
  changed?(after: Task): void;
  /** Told each record before it is sent to the store, and undefined when the store refused it. */
  sending?(after: Task | undefined): void;
}

/**
 * Applies `change` to the task with compare-and-set: `change` returns the next record, or undefined
 * to leave the task as it is. The next version and `lastUpdatedAt` are set here. Undefined when the
 * task does not exist; throws `write.refused(...)` for a change the status machine refuses and a
 * WriteConflictError after MAX_WRITE_ATTEMPTS lost races.
 */
export async function writeTask<Task extends TaskRecord>(
  write: TaskWrite<Task>,
  change: (task: Task) => Task | undefined,
): Promise<Change<Task> | undefined> {
  const { isTerminalStatus, canTransition } = write.machine;
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const before = await write.read();
    if (!before) return undefined;
    const proposed = change(before);
    if (proposed === undefined) return { before, after: before };
    if (
      isTerminalStatus(before.status) ||
      (proposed.status !== before.status && !canTransition(before.status, proposed.status))
    ) {
      throw write.refused(before, proposed);
    }
    const after: Task = {
      ...proposed,
      taskId: write.taskId,
      owner: write.owner,
      version: before.version + 1,
      lastUpdatedAt: new Date(write.now()).toISOString(),
    };
    write.sending?.(after);
    if (await write.compareAndSet(before, after)) {
      write.changed?.(after);
      return { before, after };
    }
    // Refused (another write came first): not stored, whatever a retry finds.
    write.sending?.(undefined);
  }
  throw new WriteConflictError(write.taskId);
}
