/**
 * Runtime part `sqlite-store`: a durable TaskStore on SQLite for the set's server (`server.ts`).
 *
 * Peer: `better-sqlite3` ^12 (version 13 needs Node 22), installed by the application, and Node's
 * typings. A set gets this file only when its config asks for it (`"runtime": ["sqlite-store"]`);
 * for another database, write the same ~150 lines against it. Pass an instance as
 * `createTasksServer({ store })`.
 *
 * Tasks, results, pending input requests and received answers are all in the task record, so
 * they survive a restart of the process: after it, `tasks/get` shows the same tasks, and
 * `server.resumeTask(...)` gives tool code a handle to pick an unfinished task up again.
 *
 * One table; every record is stored as JSON beside the columns the queries need. Writes are
 * compare-and-set on the record's version in a single UPDATE, which SQLite runs atomically, so
 * several processes may share the file.
 */
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";

/** What the store needs to know of a task record; the generated `StoredTask` of every set has it. */
export interface TaskRecord {
  readonly taskId: string;
  readonly owner: string;
  /** Epoch milliseconds after which the task is gone; null for never. */
  readonly expiresAt: number | null;
  readonly version: number;
}

export interface TaskRecordPage<T> {
  readonly tasks: readonly T[];
  readonly nextCursor?: string;
}

export interface SqliteTaskStoreOptions {
  /** Most tasks held at once (expired ones are deleted first). Default 100,000. */
  readonly maxTasks?: number;
  /**
   * SQLite's `synchronous` setting. "NORMAL" (the default, with the write-ahead log) keeps every
   * committed write through a crash of the process; "FULL" also through a power loss.
   */
  readonly synchronous?: "NORMAL" | "FULL";
  /** The clock, in epoch milliseconds (for tests). */
  readonly now?: () => number;
}

/** Thrown by `create` when the store holds as many tasks as it may (the generated TaskLimitError is its twin). */
export class SqliteTaskLimitError extends Error {
  override readonly name = "TaskLimitError";
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS tasks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL UNIQUE,
    owner TEXT NOT NULL,
    version INTEGER NOT NULL,
    expires_at INTEGER,
    record TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS tasks_by_owner ON tasks (owner, seq);
  CREATE INDEX IF NOT EXISTS tasks_by_expiry ON tasks (expires_at) WHERE expires_at IS NOT NULL;
`;

/**
 * A TaskStore in an SQLite file. `T` is the set's `StoredTask` (the ext-tasks and the
 * 2025-11-25 records differ; the store only reads the fields of TaskRecord).
 */
export class SqliteTaskStore<T extends TaskRecord> {
  readonly #db: Database.Database;
  readonly #maxTasks: number;
  readonly #now: () => number;
  readonly #statements;

  constructor(filename: string, options: SqliteTaskStoreOptions = {}) {
    this.#db = new Database(filename);
    this.#db.pragma("journal_mode = WAL");
    this.#db.pragma(`synchronous = ${options.synchronous ?? "NORMAL"}`);
    this.#db.pragma("busy_timeout = 5000");
    this.#db.exec(SCHEMA);
    this.#maxTasks = options.maxTasks ?? 100_000;
    this.#now = options.now ?? Date.now;
    const db = this.#db;
    this.#statements = {
      count: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM tasks"),
      dropExpired: db.prepare<[number]>("DELETE FROM tasks WHERE expires_at IS NOT NULL AND expires_at <= ?"),
      insert: db.prepare<[string, string, number | null, string]>(
        "INSERT INTO tasks (task_id, owner, version, expires_at, record) VALUES (?, ?, 0, ?, ?)",
      ),
      get: db.prepare<[string, string, number], { record: string }>(
        "SELECT record FROM tasks WHERE task_id = ? AND owner = ? AND (expires_at IS NULL OR expires_at > ?)",
      ),
      update: db.prepare<[number, number | null, string, string, string, number, number]>(
        `UPDATE tasks SET version = ?, expires_at = ?, record = ?
         WHERE task_id = ? AND owner = ? AND version = ? AND (expires_at IS NULL OR expires_at > ?)`,
      ),
      page: db.prepare<[string, number, number, number], { seq: number; record: string }>(
        `SELECT seq, record FROM tasks
         WHERE owner = ? AND seq > ? AND (expires_at IS NULL OR expires_at > ?)
         ORDER BY seq LIMIT ?`,
      ),
    };
  }

  async create(task: Omit<T, "taskId" | "version">): Promise<T> {
    const stored = { ...task, taskId: randomUUID(), version: 0 } as unknown as T;
    const { count, dropExpired, insert } = this.#statements;
    this.#db
      .transaction(() => {
        if (count.get()!.n >= this.#maxTasks) dropExpired.run(this.#now());
        if (count.get()!.n >= this.#maxTasks)
          throw new SqliteTaskLimitError(`the task store holds its maximum of ${this.#maxTasks} tasks`);
        insert.run(stored.taskId, stored.owner, stored.expiresAt, JSON.stringify(stored));
      })
      .immediate();
    return stored;
  }

  async get(owner: string, taskId: string): Promise<T | undefined> {
    const row = this.#statements.get.get(taskId, owner, this.#now());
    return row ? (JSON.parse(row.record) as T) : undefined;
  }

  async compareAndSet(current: T, next: T): Promise<boolean> {
    if (next.taskId !== current.taskId || next.owner !== current.owner || next.version !== current.version + 1) {
      throw new Error("compareAndSet: next must be the same task with the following version");
    }
    const { changes } = this.#statements.update.run(
      next.version,
      next.expiresAt,
      JSON.stringify(next),
      current.taskId,
      current.owner,
      current.version,
      this.#now(),
    );
    return changes === 1;
  }

  /** One page of the owner's live tasks, oldest first (for tasks/list); undefined for a cursor this store did not issue. */
  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskRecordPage<T> | undefined> {
    let after = 0;
    if (cursor !== undefined) {
      const match = /^s([0-9a-z]{1,11})$/.exec(cursor);
      if (!match) return undefined;
      after = parseInt(match[1]!, 36);
    }
    const rows = this.#statements.page.all(owner, after, this.#now(), limit + 1);
    const tasks = rows.slice(0, limit).map((row) => JSON.parse(row.record) as T);
    return rows.length > limit ? { tasks, nextCursor: `s${rows[limit - 1]!.seq.toString(36)}` } : { tasks };
  }

  /** Deletes expired tasks now (they are never returned either way); returns how many. */
  deleteExpired(): number {
    return this.#statements.dropExpired.run(this.#now()).changes;
  }

  close(): void {
    this.#db.close();
  }
}
