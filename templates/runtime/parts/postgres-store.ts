/**
 * Runtime part `postgres-store`: a TaskStore on PostgreSQL, shared by every instance of the set's
 * server (`server.ts`) that connects to the same database.
 *
 * Peer: `pg` ^8, installed by the application. A set gets this file only when its config asks for
 * it (`"runtime": ["postgres-store"]`). Pass an instance as `createTasksServer({ store })`.
 *
 * The whole TaskStore contract (server/store.ts). One table (`mcp_tasks` by default; the `table`
 * option names another, schema-qualified if you like), created on first use by an idempotent
 * migration that concurrent instances may all run (an advisory lock serialises them). Each record
 * is JSON beside the columns the queries need; compare-and-set is one `UPDATE … WHERE version = $n`,
 * leases are columns beside the record (renewing never bumps the version), and every write sends
 * `NOTIFY` on a channel that each store watching it `LISTEN`s to on a dedicated connection.
 *
 * Time is the application's clock (`now`), passed to every query. The per-owner quota is exact: a
 * create takes a transaction-scoped advisory lock on (table, owner), so one owner's creates take
 * turns across every instance, and counts and inserts under it. The cap on live tasks (all owners)
 * is checked by the INSERT itself; creates racing for the last free places may overshoot it by the
 * number of concurrent creators (it is a safety limit, not an exact quota).
 *
 * When PostgreSQL is unreachable, calls reject with PostgresTaskStoreError (the server answers
 * -32603); the pool reconnects when it is back. The listening connection reconnects too
 * (`onChannel(false)`, then `onChannel(true)`: waiters poll the store meanwhile).
 */
import { randomUUID } from "node:crypto";
import { Pool, type Notification, type PoolClient } from "pg";
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

/** What the store reads of a task record: the store contract's TaskRecord (server/store.ts), under this part's old name. */
export type PostgresTaskRecord = TaskRecord;

/** One page of tasks/list: the store contract's page, under this part's old name. */
export type PostgresTaskRecordPage<T> = TaskPageOf<T>;

export interface PostgresTaskStoreOptions extends TaskStoreOptions {
  /** The table, `name` or `schema.name` (letters, digits, `_`). Default `mcp_tasks`. */
  readonly table?: string;
  /** The NOTIFY channel. Default `<table>_changes` (dots as `_`). */
  readonly channel?: string;
  /** How long connecting to an unreachable server may take before a call rejects, in milliseconds. Default 5000. */
  readonly connectTimeout?: number;
}

/** Thrown by `create` when the store holds as many live tasks as it may: the contract's TaskLimitError, from this store. */
export class PostgresTaskLimitError extends TaskLimitError {}

/** A call the store could not complete because PostgreSQL is unreachable or failed. */
export class PostgresTaskStoreError extends Error {
  override readonly name = "PostgresTaskStoreError";
}

/** How a create's transaction starts (one round trip, simple protocol): bounded lock waits and idle time. */
const TRANSACTION = "BEGIN; SET LOCAL lock_timeout = '10s'; SET LOCAL idle_in_transaction_session_timeout = '10s'";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;

/** The SQL of one table's store, its names quoted. */
function statements(table: string) {
  const t = table
    .split(".")
    .map((part) => `"${part}"`)
    .join(".");
  const index = (suffix: string) => `"${table.replace(".", "_")}_${suffix}"`;
  const live = "(expires_at IS NULL OR expires_at > $now)";
  return {
    migrate: [
      `CREATE TABLE IF NOT EXISTS ${t} (
        seq BIGSERIAL PRIMARY KEY,
        task_id TEXT NOT NULL UNIQUE,
        owner TEXT NOT NULL,
        status TEXT NOT NULL,
        version INTEGER NOT NULL,
        expires_at BIGINT,
        record TEXT NOT NULL,
        lease_holder TEXT,
        lease_until BIGINT
      )`,
      `CREATE INDEX IF NOT EXISTS ${index("by_owner")} ON ${t} (owner, seq)`,
      `CREATE INDEX IF NOT EXISTS ${index("by_expiry")} ON ${t} (expires_at) WHERE expires_at IS NOT NULL`,
      `CREATE INDEX IF NOT EXISTS ${index("by_lease")} ON ${t} (lease_until) WHERE lease_until IS NOT NULL`,
    ],
    // $1 id, $2 owner, $3 status, $4 expires_at, $5 record, $6 holder, $7 until, $8 max, $9 now, $10 channel, $11 change.
    insert: `WITH inserted AS (
        INSERT INTO ${t} (task_id, owner, status, version, expires_at, record, lease_holder, lease_until)
        SELECT $1, $2, $3, 0, $4::bigint, $5, $6::text, $7::bigint
        WHERE (SELECT count(*) FROM ${t} WHERE ${live.replace("$now", "$9")}) < $8
        RETURNING task_id
      ) SELECT pg_notify($10, $11) FROM inserted`,
    dropExpired: `DELETE FROM ${t} WHERE expires_at IS NOT NULL AND expires_at <= $1`,
    // One owner's creates take turns: $1 the table, $2 the owner (two 32-bit keys; the migration's lock is a one-key lock).
    ownerLock: `SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))`,
    // $1 owner, $2 terminal statuses, $3 now.
    ownerLive: `SELECT count(*) AS n FROM ${t} WHERE owner = $1 AND status <> ALL($2::text[]) AND ${live.replace("$now", "$3")}`,
    get: `SELECT record FROM ${t} WHERE task_id = $1 AND owner = $2 AND ${live.replace("$now", "$3")}`,
    // $1 version, $2 status, $3 expires_at, $4 record, $5 terminal, $6 id, $7 owner, $8 current, $9 now, $10 channel, $11 change.
    update: `WITH updated AS (
        UPDATE ${t} SET version = $1, status = $2, expires_at = $3, record = $4,
          lease_holder = CASE WHEN $5 THEN NULL ELSE lease_holder END,
          lease_until = CASE WHEN $5 THEN NULL ELSE lease_until END
        WHERE task_id = $6 AND owner = $7 AND version = $8 AND ${live.replace("$now", "$9")}
        RETURNING task_id
      ) SELECT pg_notify($10, $11) FROM updated`,
    page: `SELECT seq, record FROM ${t} WHERE owner = $1 AND seq > $2 AND ${live.replace("$now", "$3")} ORDER BY seq LIMIT $4`,
    // $1 id, $2 holder, $3 until, $4 now, $5 terminal statuses.
    renew: `UPDATE ${t} SET lease_holder = $2, lease_until = $3
      WHERE task_id = $1 AND status <> ALL($5::text[]) AND ${live.replace("$now", "$4")}
        AND (lease_holder IS NULL OR lease_holder = $2 OR lease_until <= $4)`,
    release: `UPDATE ${t} SET lease_holder = NULL, lease_until = NULL WHERE task_id = $1 AND lease_holder = $2`,
    orphans: `SELECT record FROM ${t}
      WHERE lease_until IS NOT NULL AND lease_until < $1 AND status <> ALL($2::text[]) AND ${live.replace("$now", "$1")}
      ORDER BY lease_until LIMIT $3`,
  };
}

/**
 * A TaskStore in PostgreSQL. `T` is the set's `StoredTask` (the store only reads the fields of
 * TaskRecord). Give it a connection string (`postgres://user@host:5432/db`: the store
 * opens and ends its pool) or a `pg.Pool` (yours to end; the store borrows one client from it to
 * listen while anyone watches).
 */
export class PostgresTaskStore<T extends TaskRecord> implements TaskEventsOf, TaskLeasesOf<T> {
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #sql: ReturnType<typeof statements>;
  readonly #table: string;
  readonly #channel: string;
  readonly #maxTasks: number;
  readonly #maxPerOwner: number | null;
  readonly #terminal: readonly string[];
  readonly #now: () => number;
  readonly #listeners = new Set<{ change(change: TaskChange): void; channel?: ((up: boolean) => void) | undefined }>();
  #migrated: Promise<void> | undefined;
  #listener: PoolClient | undefined;
  #listening = false;
  #reconnect: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(database: string | Pool, options: PostgresTaskStoreOptions = {}) {
    const table = options.table ?? "mcp_tasks";
    if (!IDENTIFIER.test(table)) throw new Error(`PostgresTaskStore: table "${table}" is not a name or schema.name`);
    this.#table = table;
    this.#sql = statements(table);
    this.#channel = options.channel ?? `${table.replace(".", "_")}_changes`;
    if (!IDENTIFIER.test(this.#channel) || this.#channel.includes("."))
      throw new Error(`PostgresTaskStore: channel "${this.#channel}" is not a name`);
    this.#ownsPool = typeof database === "string";
    this.#pool =
      typeof database === "string"
        ? new Pool({ connectionString: database, connectionTimeoutMillis: options.connectTimeout ?? 5000 })
        : database;
    // An idle client's error (the server restarted) must not crash the process: the next call reconnects.
    if (this.#ownsPool) this.#pool.on("error", () => {});
    this.#maxTasks = options.maxTasks ?? 100_000;
    this.#maxPerOwner = ownerQuota(options.maxTasksPerOwner);
    this.#terminal = [...(options.terminalStatuses ?? TERMINAL_TASK_STATUSES)];
    this.#now = options.now ?? Date.now;
  }

  /**
   * Stores a new task (version 0) with its worker's first lease in one transaction; TaskOwnerLimitError
   * when its owner holds its quota of live tasks, PostgresTaskLimitError when the store is full.
   */
  async create(task: Omit<T, "taskId" | "version">, lease?: TaskLease): Promise<T> {
    const stored = { ...task, taskId: randomUUID(), version: 0 } as unknown as T;
    await this.#migrate();
    const client = await this.#pool.connect().catch((error: unknown) => {
      throw unreachable(error);
    });
    const query = async (text: string, values: unknown[]) => {
      try {
        return await client.query(text, values);
      } catch (error) {
        throw unreachable(error);
      }
    };
    const insert = () =>
      query(this.#sql.insert, [
        stored.taskId,
        stored.owner,
        stored.status,
        stored.expiresAt,
        JSON.stringify(stored),
        lease?.holder ?? null,
        lease?.until ?? null,
        this.#maxTasks,
        this.#now(),
        this.#channel,
        changeOf(stored),
      ]);
    try {
      // A creator cut off mid-transaction (a network partition, no FIN) must not hold its owner's lock for
      // good: the server ends its idle transaction, and a waiter gives up with an error rather than hang.
      await query(TRANSACTION, []);
      const quota = this.#maxPerOwner;
      if (quota !== null) {
        // Under the lock (taken before the count's snapshot) every create of this owner that went first is committed and counted.
        await query(this.#sql.ownerLock, [this.#table, stored.owner]);
        const { rows } = await query(this.#sql.ownerLive, [stored.owner, this.#terminal, this.#now()]);
        if (Number((rows[0] as { n: string }).n) >= quota) throw new TaskOwnerLimitError(quota);
      }
      let inserted = (await insert()).rowCount === 1;
      if (!inserted) {
        await query(this.#sql.dropExpired, [this.#now()]);
        inserted = (await insert()).rowCount === 1;
      }
      if (!inserted) throw new PostgresTaskLimitError(this.#maxTasks);
      await query("COMMIT", []);
      client.release();
      return stored;
    } catch (error) {
      // A refused create rolls back and keeps its connection; a failed one drops it (its state is unknown).
      const refused = error instanceof TaskOwnerLimitError || error instanceof TaskLimitError;
      const clean =
        refused &&
        (await client.query("ROLLBACK").then(
          () => true,
          () => false,
        ));
      client.release(clean ? undefined : true);
      throw error;
    }
  }

  async get(owner: string, taskId: string): Promise<T | undefined> {
    const { rows } = await this.#query<{ record: string }>(this.#sql.get, [taskId, owner, this.#now()]);
    return rows[0] ? (JSON.parse(rows[0].record) as T) : undefined;
  }

  async compareAndSet(current: T, next: T): Promise<boolean> {
    if (next.taskId !== current.taskId || next.owner !== current.owner || next.version !== current.version + 1) {
      throw new Error("compareAndSet: next must be the same task with the following version");
    }
    const { rowCount } = await this.#query(this.#sql.update, [
      next.version,
      next.status,
      next.expiresAt,
      JSON.stringify(next),
      this.#terminal.includes(next.status),
      current.taskId,
      current.owner,
      current.version,
      this.#now(),
      this.#channel,
      changeOf(next),
    ]);
    return rowCount === 1;
  }

  /** One page of the owner's live tasks, oldest first (for tasks/list); undefined for a cursor this store did not issue. */
  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPageOf<T> | undefined> {
    let after = 0;
    if (cursor !== undefined) {
      const match = /^p([0-9a-z]{1,11})$/.exec(cursor);
      if (!match) return undefined;
      after = parseInt(match[1]!, 36);
    }
    const { rows } = await this.#query<{ seq: string; record: string }>(this.#sql.page, [
      owner,
      after,
      this.#now(),
      limit + 1,
    ]);
    const tasks = rows.slice(0, limit).map((row) => JSON.parse(row.record) as T);
    return rows.length > limit ? { tasks, nextCursor: `p${Number(rows[limit - 1]!.seq).toString(36)}` } : { tasks };
  }

  async renewLease(taskId: string, holder: string, until: number): Promise<boolean> {
    const { rowCount } = await this.#query(this.#sql.renew, [taskId, holder, until, this.#now(), this.#terminal]);
    return rowCount === 1;
  }

  async releaseLease(taskId: string, holder: string): Promise<void> {
    await this.#query(this.#sql.release, [taskId, holder]);
  }

  async orphans(now: number, limit: number): Promise<readonly T[]> {
    const { rows } = await this.#query<{ record: string }>(this.#sql.orphans, [now, this.#terminal, limit]);
    return rows.map((row) => JSON.parse(row.record) as T);
  }

  /**
   * Every change any store on the database makes, from NOTIFY on a dedicated connection (opened on
   * the first watch). `onChannel(false)` when that connection drops, `onChannel(true)` when it
   * listens again (it reconnects with a growing delay, at most a second).
   */
  watch(listener: (change: TaskChange) => void, onChannel?: (up: boolean) => void): () => void {
    const entry = { change: listener, channel: onChannel };
    this.#listeners.add(entry);
    // A listener joining a channel that is already up hears so at once.
    if (this.#listening) queueMicrotask(() => this.#listeners.has(entry) && onChannel?.(true));
    if (this.#listeners.size === 1) void this.#listen(0);
    return () => {
      this.#listeners.delete(entry);
      if (this.#listeners.size === 0) this.#stopListening();
    };
  }

  /** Deletes every expired task now (they are never returned either way); returns how many. */
  async deleteExpired(): Promise<number> {
    return (await this.#query(this.#sql.dropExpired, [this.#now()])).rowCount;
  }

  /** Stops listening; ends the pool when the store made it. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    this.#stopListening();
    if (this.#ownsPool) await this.#pool.end();
  }

  async #listen(attempt: number): Promise<void> {
    if (this.#closed || this.#listeners.size === 0 || this.#listener) return;
    let client: PoolClient | undefined;
    try {
      await this.#migrate();
      client = await this.#pool.connect();
      const current = client;
      this.#listener = current;
      current.on("notification", (message: Notification) => {
        const change = message.channel === this.#channel ? parseChange(message.payload) : undefined;
        if (change) for (const listener of this.#listeners) listener.change(change);
      });
      const dropped = (error?: Error) => {
        if (this.#listener !== current) return;
        this.#listener = undefined;
        current.release(error ?? true);
        this.#setChannel(false);
        this.#retry(0);
      };
      current.on("error", dropped);
      current.on("end", () => dropped());
      await current.query(`LISTEN "${this.#channel}"`);
      this.#setChannel(true);
    } catch {
      if (client && this.#listener === client) {
        this.#listener = undefined;
        client.release(true);
      }
      this.#setChannel(false);
      this.#retry(attempt + 1);
    }
  }

  #retry(attempt: number): void {
    if (this.#closed || this.#listeners.size === 0) return;
    this.#reconnect = setTimeout(() => void this.#listen(attempt), Math.min(50 * 2 ** attempt, 1000));
    this.#reconnect.unref();
  }

  #stopListening(): void {
    clearTimeout(this.#reconnect);
    const client = this.#listener;
    this.#listener = undefined;
    this.#listening = false;
    // The connection is dropped rather than returned: it still LISTENs.
    client?.release(true);
  }

  #setChannel(up: boolean): void {
    if (up === this.#listening) return;
    this.#listening = up;
    for (const listener of this.#listeners) listener.channel?.(up);
  }

  /** Creates the table and its indexes once (again after a failure); concurrent instances take turns. */
  #migrate(): Promise<void> {
    this.#migrated ??= this.#runMigration().catch((error: unknown) => {
      this.#migrated = undefined;
      throw error;
    });
    return this.#migrated;
  }

  async #runMigration(): Promise<void> {
    const client = await this.#pool.connect().catch((error: unknown) => {
      throw unreachable(error);
    });
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`mcp-tasks-gen migrate ${this.#table}`]);
      for (const statement of this.#sql.migrate) await client.query(statement);
      await client.query("COMMIT");
      client.release();
    } catch (error) {
      client.release(true);
      throw unreachable(error);
    }
  }

  async #query<R extends object = object>(text: string, values: unknown[]): Promise<{ rows: R[]; rowCount: number }> {
    await this.#migrate();
    try {
      const result = await this.#pool.query<R & Record<string, unknown>>(text, values);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    } catch (error) {
      throw unreachable(error);
    }
  }
}

function unreachable(error: unknown): PostgresTaskStoreError {
  if (error instanceof PostgresTaskStoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new PostgresTaskStoreError(`the PostgreSQL task store is unreachable or failed: ${message}`);
}

function changeOf(task: TaskRecord): string {
  const change: TaskChange = { taskId: task.taskId, owner: task.owner, status: task.status, version: task.version };
  return JSON.stringify(change);
}

function parseChange(payload: string | undefined): TaskChange | undefined {
  try {
    const change = JSON.parse(payload ?? "") as Partial<TaskChange>;
    if (
      typeof change.taskId === "string" &&
      typeof change.owner === "string" &&
      typeof change.status === "string" &&
      typeof change.version === "number"
    ) {
      return { taskId: change.taskId, owner: change.owner, status: change.status, version: change.version };
    }
  } catch {
    // Not ours: ignored.
  }
  return undefined;
}
