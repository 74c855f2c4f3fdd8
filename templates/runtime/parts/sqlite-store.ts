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
 *
 * The whole TaskStore contract (server/store.ts): worker leases in columns beside the record
 * (renewing never bumps the version), and change events. SQLite has no notification channel, so
 * events are in process (every server sharing this object sees a change at once) plus polling:
 * every write also appends to a `task_events` table that watchers read every `eventPollInterval`
 * (other processes on the same file see a change within that). One file is one machine; for
 * several machines use the Redis or PostgreSQL store.
 */
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import {
  ownerQuota,
  TaskLimitError,
  TaskOwnerLimitError,
  TERMINAL_TASK_STATUSES,
  type TaskChange,
  type TaskEventsOf,
  type TaskLease,
  type TaskLeasesOf,
  type TaskPageOf,
  type TaskRecord,
  type TaskStoreOptions,
} from "../server/core.js";

/** What the store reads of a task record: the store contract's (server/store.ts); every set's `StoredTask` has it. */
export type { TaskRecord };

/** One page of tasks/list: the store contract's page. */
export type TaskRecordPage<T> = TaskPageOf<T>;

export interface SqliteTaskStoreOptions extends TaskStoreOptions {
  /**
   * SQLite's `synchronous` setting. "NORMAL" (the default, with the write-ahead log) keeps every
   * committed write through a crash of the process; "FULL" also through a power loss.
   */
  readonly synchronous?: "NORMAL" | "FULL";
  /** How often watchers read the changes other processes made to the file, in milliseconds. Default 200. */
  readonly eventPollInterval?: number;
}

/** Thrown by `create` when the store holds as many tasks as it may: the contract's TaskLimitError, from this store. */
export class SqliteTaskLimitError extends TaskLimitError {}

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
  CREATE TABLE IF NOT EXISTS task_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    status TEXT NOT NULL,
    version INTEGER NOT NULL,
    at INTEGER NOT NULL
  );
`;

/** Columns files written before leases lack, added on open (the status is read back from the record). */
const LEASE_COLUMNS = `
  ALTER TABLE tasks ADD COLUMN status TEXT;
  ALTER TABLE tasks ADD COLUMN lease_holder TEXT;
  ALTER TABLE tasks ADD COLUMN lease_until INTEGER;
  UPDATE tasks SET status = json_extract(record, '$.status');
`;

/** How long change events stay in the file for slow watchers, in milliseconds. */
const EVENT_RETENTION = 60_000;

/**
 * A TaskStore in an SQLite file. `T` is the set's `StoredTask` (the ext-tasks and the
 * 2025-11-25 records differ; the store only reads the fields of TaskRecord).
 */
export class SqliteTaskStore<T extends TaskRecord> implements TaskEventsOf, TaskLeasesOf<T> {
  readonly #db: Database.Database;
  readonly #maxTasks: number;
  readonly #maxPerOwner: number | null;
  readonly #terminal: string;
  readonly #eventPollInterval: number;
  readonly #now: () => number;
  readonly #statements;
  readonly #listeners = new Set<(change: TaskChange) => void>();
  #lastEvent = 0;
  #writes = 0;
  #poller: ReturnType<typeof setInterval> | undefined;

  constructor(filename: string, options: SqliteTaskStoreOptions = {}) {
    this.#db = new Database(filename);
    this.#db.pragma("journal_mode = WAL");
    this.#db.pragma(`synchronous = ${options.synchronous ?? "NORMAL"}`);
    this.#db.pragma("busy_timeout = 5000");
    this.#db.exec(SCHEMA);
    const columns = this.#db.pragma("table_info(tasks)") as { name: string }[];
    if (!columns.some((column) => column.name === "lease_until")) this.#db.exec(LEASE_COLUMNS);
    this.#db.exec("CREATE INDEX IF NOT EXISTS tasks_by_lease ON tasks (lease_until) WHERE lease_until IS NOT NULL");
    // The per-owner quota counts an owner's rows by status.
    this.#db.exec("CREATE INDEX IF NOT EXISTS tasks_by_owner_status ON tasks (owner, status)");
    this.#maxTasks = options.maxTasks ?? 100_000;
    this.#maxPerOwner = ownerQuota(options.maxTasksPerOwner);
    this.#terminal = JSON.stringify(options.terminalStatuses ?? TERMINAL_TASK_STATUSES);
    this.#eventPollInterval = options.eventPollInterval ?? 200;
    this.#now = options.now ?? Date.now;
    const db = this.#db;
    this.#statements = {
      count: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM tasks"),
      ownerLive: db.prepare<[string, string, number], { n: number }>(
        `SELECT COUNT(*) AS n FROM tasks
         WHERE owner = ? AND status NOT IN (SELECT value FROM json_each(?)) AND (expires_at IS NULL OR expires_at > ?)`,
      ),
      dropExpired: db.prepare<[number]>("DELETE FROM tasks WHERE expires_at IS NOT NULL AND expires_at <= ?"),
      insert: db.prepare<[Row]>(
        `INSERT INTO tasks (task_id, owner, status, version, expires_at, record, lease_holder, lease_until)
         VALUES (@taskId, @owner, @status, 0, @expiresAt, @record, @holder, @until)`,
      ),
      get: db.prepare<[string, string, number], { record: string }>(
        "SELECT record FROM tasks WHERE task_id = ? AND owner = ? AND (expires_at IS NULL OR expires_at > ?)",
      ),
      // A terminal status ends the lease with the write that stores it.
      update: db.prepare<[Update]>(
        `UPDATE tasks SET version = @version, status = @status, expires_at = @expiresAt, record = @record,
           lease_holder = CASE WHEN @status IN (SELECT value FROM json_each(@terminal)) THEN NULL ELSE lease_holder END,
           lease_until = CASE WHEN @status IN (SELECT value FROM json_each(@terminal)) THEN NULL ELSE lease_until END
         WHERE task_id = @taskId AND owner = @owner AND version = @current AND (expires_at IS NULL OR expires_at > @now)`,
      ),
      page: db.prepare<[string, number, number, number], { seq: number; record: string }>(
        `SELECT seq, record FROM tasks
         WHERE owner = ? AND seq > ? AND (expires_at IS NULL OR expires_at > ?)
         ORDER BY seq LIMIT ?`,
      ),
      renew: db.prepare<[{ taskId: string; holder: string; until: number; now: number; terminal: string }]>(
        `UPDATE tasks SET lease_holder = @holder, lease_until = @until
         WHERE task_id = @taskId AND status NOT IN (SELECT value FROM json_each(@terminal))
           AND (expires_at IS NULL OR expires_at > @now)
           AND (lease_holder IS NULL OR lease_holder = @holder OR lease_until <= @now)`,
      ),
      release: db.prepare<[string, string]>(
        "UPDATE tasks SET lease_holder = NULL, lease_until = NULL WHERE task_id = ? AND lease_holder = ?",
      ),
      orphans: db.prepare<[{ now: number; terminal: string; limit: number }], { record: string }>(
        `SELECT record FROM tasks
         WHERE lease_until IS NOT NULL AND lease_until < @now AND status NOT IN (SELECT value FROM json_each(@terminal))
           AND (expires_at IS NULL OR expires_at > @now)
         ORDER BY lease_until LIMIT @limit`,
      ),
      event: db.prepare<[string, string, string, number, number]>(
        "INSERT INTO task_events (task_id, owner, status, version, at) VALUES (?, ?, ?, ?, ?)",
      ),
      lastEvent: db.prepare<[], { id: number | null }>("SELECT MAX(id) AS id FROM task_events"),
      events: db.prepare<[number], { id: number; task_id: string; owner: string; status: string; version: number }>(
        "SELECT id, task_id, owner, status, version FROM task_events WHERE id > ? ORDER BY id LIMIT 1000",
      ),
      dropEvents: db.prepare<[number]>("DELETE FROM task_events WHERE at < ?"),
    };
  }

  /**
   * Stores a new task (version 0) with its worker's first lease in the same transaction;
   * TaskOwnerLimitError when its owner holds its quota of live tasks, SqliteTaskLimitError when full.
   */
  async create(task: Omit<T, "taskId" | "version">, lease?: TaskLease): Promise<T> {
    const stored = { ...task, taskId: randomUUID(), version: 0 } as unknown as T;
    const { count, dropExpired, insert, ownerLive } = this.#statements;
    this.#db
      .transaction(() => {
        // An immediate transaction holds the file's write lock: no other process inserts between count and insert.
        const quota = this.#maxPerOwner;
        if (quota !== null && ownerLive.get(stored.owner, this.#terminal, this.#now())!.n >= quota)
          throw new TaskOwnerLimitError(quota);
        if (count.get()!.n >= this.#maxTasks) dropExpired.run(this.#now());
        if (count.get()!.n >= this.#maxTasks) throw new SqliteTaskLimitError(this.#maxTasks);
        insert.run({
          taskId: stored.taskId,
          owner: stored.owner,
          status: stored.status,
          expiresAt: stored.expiresAt,
          record: JSON.stringify(stored),
          holder: lease?.holder ?? null,
          until: lease?.until ?? null,
        });
        this.#recordEvent(stored);
      })
      .immediate();
    this.#emit(stored);
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
    const written = this.#db.transaction(() => {
      const { changes } = this.#statements.update.run({
        version: next.version,
        status: next.status,
        expiresAt: next.expiresAt,
        record: JSON.stringify(next),
        terminal: this.#terminal,
        taskId: current.taskId,
        owner: current.owner,
        current: current.version,
        now: this.#now(),
      });
      if (changes === 1) this.#recordEvent(next);
      return changes === 1;
    })();
    if (written) this.#emit(next);
    return written;
  }

  /** One page of the owner's live tasks, oldest first (for tasks/list); undefined for a cursor this store did not issue. */
  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPageOf<T> | undefined> {
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

  async renewLease(taskId: string, holder: string, until: number): Promise<boolean> {
    const now = this.#now();
    return this.#statements.renew.run({ taskId, holder, until, now, terminal: this.#terminal }).changes === 1;
  }

  async releaseLease(taskId: string, holder: string): Promise<void> {
    this.#statements.release.run(taskId, holder);
  }

  async orphans(now: number, limit: number): Promise<readonly T[]> {
    return this.#statements.orphans
      .all({ now, terminal: this.#terminal, limit })
      .map((row) => JSON.parse(row.record) as T);
  }

  /**
   * Changes through this object at once, and other processes' (other objects on the file) within
   * `eventPollInterval`; some arrive twice. A file cannot drop its channel: `onChannel` is never called.
   */
  watch(listener: (change: TaskChange) => void, onChannel?: (up: boolean) => void): () => void {
    void onChannel;
    if (this.#listeners.size === 0) this.#startPolling();
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stopPolling();
    };
  }

  /** Deletes expired tasks now (they are never returned either way); returns how many. */
  deleteExpired(): number {
    return this.#statements.dropExpired.run(this.#now()).changes;
  }

  close(): void {
    this.#stopPolling();
    this.#listeners.clear();
    this.#db.close();
  }

  #recordEvent(task: T): void {
    this.#statements.event.run(task.taskId, task.owner, task.status, task.version, Date.now());
    // Now and then, forget events every watcher has long read (also where nobody watches this file).
    if (++this.#writes % 1000 === 0) this.#statements.dropEvents.run(Date.now() - EVENT_RETENTION);
  }

  #emit(task: T): void {
    if (this.#listeners.size === 0) return;
    this.#tell({ taskId: task.taskId, owner: task.owner, status: task.status, version: task.version });
  }

  #tell(change: TaskChange): void {
    queueMicrotask(() => {
      for (const listener of this.#listeners) listener(change);
    });
  }

  #startPolling(): void {
    this.#lastEvent = this.#statements.lastEvent.get()?.id ?? 0;
    this.#poller = setInterval(() => {
      try {
        for (const row of this.#statements.events.all(this.#lastEvent)) {
          this.#lastEvent = row.id;
          this.#tell({ taskId: row.task_id, owner: row.owner, status: row.status, version: row.version });
        }
      } catch {
        // The file is busy or closing: the next poll reads on from the same event.
      }
    }, this.#eventPollInterval);
    this.#poller.unref();
  }

  #stopPolling(): void {
    clearInterval(this.#poller);
    this.#poller = undefined;
  }
}

interface Row {
  readonly taskId: string;
  readonly owner: string;
  readonly status: string;
  readonly expiresAt: number | null;
  readonly record: string;
  readonly holder: string | null;
  readonly until: number | null;
}

interface Update {
  readonly version: number;
  readonly status: string;
  readonly expiresAt: number | null;
  readonly record: string;
  readonly terminal: string;
  readonly taskId: string;
  readonly owner: string;
  readonly current: number;
  readonly now: number;
}
