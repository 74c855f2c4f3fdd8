/**
 * Runtime part `redis-store`: a TaskStore on Redis, shared by every instance of the set's server
 * (`server.ts`) that connects to the same Redis.
 *
 * Peer: `ioredis` ^5, installed by the application. A set gets this file only when its config asks
 * for it (`"runtime": ["redis-store"]`). Pass an instance as `createTasksServer({ store })`.
 *
 * The whole TaskStore contract (server/store.ts): every write is one Lua script, so compare-and-set,
 * the cap on live tasks and leases are atomic across instances; every write publishes the change
 * on a channel that each store watching it reads on a second connection (the engine wakes its
 * waiters, aborts cancelled work and sends notifications from it). Keys are created on first use,
 * all under one hash tag (`{mcp-tasks}:` by default), so a Redis Cluster keeps them in one slot:
 *
 * - `<prefix>task:<id>`: a hash of the record (JSON) and the fields the scripts read, expiring
 *   (PEXPIREAT) with the task;
 * - `<prefix>owner:<owner>`: the owner's task ids by creation sequence (tasks/list pages);
 * - `<prefix>active:<owner>`: the owner's non-terminal task ids by expiry (the per-owner quota);
 * - `<prefix>live`: every task as `<id> <owner>` by expiry (the cap, and deleting expired tasks: each
 *   create deletes a few, `deleteExpired()` all);
 * - `<prefix>leases`: leased task ids by lease expiry (orphans); `<prefix>seq`: the sequence.
 *
 * Time is the application's clock (`now`), passed to every script, never Redis's, except for
 * PEXPIREAT, which only deletes what the scripts already treat as gone.
 *
 * When Redis is unreachable, calls reject with RedisTaskStoreError (the server answers -32603)
 * after `commandTimeout`; when it is back, the store works again, and the channel reconnects
 * (`onChannel(false)`, then `onChannel(true)`: waiters poll the store meanwhile).
 */
import { randomUUID } from "node:crypto";
import { Redis, type RedisOptions } from "ioredis";
import {
  ownerQuota,
  ServerLimitError,
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
export type RedisTaskRecord = TaskRecord;

/** One page of tasks/list: the store contract's page, under this part's old name. */
export type RedisTaskRecordPage<T> = TaskPageOf<T>;

export interface RedisTaskStoreOptions extends TaskStoreOptions {
  /** Prefix of every key (keep a `{hash tag}` in it for Redis Cluster). Default `{mcp-tasks}:`. */
  readonly keyPrefix?: string;
  /** The channel changes are published on. Default `<keyPrefix>changes`. */
  readonly channel?: string;
  /** How long a call waits for an unreachable Redis before it rejects, in milliseconds. Default 5000. */
  readonly commandTimeout?: number;
}

/** Thrown by `create` when the store holds as many live tasks as it may: the contract's TaskLimitError, from this store. */
export class RedisTaskLimitError extends TaskLimitError {}

/** A call the store could not complete because Redis is unreachable or failed. */
export class RedisTaskStoreError extends Error {
  override readonly name = "RedisTaskStoreError";
}

/** Deletes up to `limit` expired tasks (live members `<id> <owner>` scored at or below `now`), all their keys. */
const PURGE_FUNCTION = `
local function purge(live, leases, prefix, now, limit)
  local members = redis.call('ZRANGEBYSCORE', live, '-inf', now, 'LIMIT', 0, limit)
  for _, member in ipairs(members) do
    local space = string.find(member, ' ', 1, true)
    local id = string.sub(member, 1, space - 1)
    redis.call('ZREM', prefix .. 'owner:' .. string.sub(member, space + 1), id)
    redis.call('ZREM', prefix .. 'active:' .. string.sub(member, space + 1), id)
    redis.call('DEL', prefix .. 'task:' .. id)
    redis.call('ZREM', leases, id)
    redis.call('ZREM', live, member)
  end
  return #members
end
`;

// Keys: 1 live, 2 leases. Args: prefix, now, limit.
const PURGE = `${PURGE_FUNCTION}
return purge(KEYS[1], KEYS[2], ARGV[1], ARGV[2], tonumber(ARGV[3]))
`;

// Keys: 1 the task hash, 2 live, 3 the owner's zset, 4 leases, 5 seq, 6 the owner's active zset.
// Args: id, owner, status, expiresAt ("" for never), record, holder ("" for none), until, maxTasks, now, prefix,
// channel, change, maxTasksPerOwner (0 for none), terminal ("1": the new task is already finished).
// Returns 1 created, 0 the store is full, -1 the owner holds its quota.
const CREATE = `${PURGE_FUNCTION}
local now = tonumber(ARGV[9])
-- A few expired tasks go with every create, so expired data never piles up; all of them when full.
purge(KEYS[2], KEYS[4], ARGV[10], now, 10)
local quota = tonumber(ARGV[13])
if quota > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)
  if redis.call('ZCARD', KEYS[6]) >= quota then return -1 end
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[8]) then
  while purge(KEYS[2], KEYS[4], ARGV[10], now, 1000) > 0 do end
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[8]) then return 0 end
end
local seq = redis.call('INCR', KEYS[5])
redis.call('HSET', KEYS[1], 'record', ARGV[5], 'owner', ARGV[2], 'status', ARGV[3], 'version', 0, 'expiresAt', ARGV[4], 'seq', seq)
redis.call('ZADD', KEYS[2], ARGV[4] == '' and '+inf' or ARGV[4], ARGV[1] .. ' ' .. ARGV[2])
redis.call('ZADD', KEYS[3], seq, ARGV[1])
if ARGV[14] ~= '1' then redis.call('ZADD', KEYS[6], ARGV[4] == '' and '+inf' or ARGV[4], ARGV[1]) end
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[1], 'holder', ARGV[6], 'until', ARGV[7])
  redis.call('ZADD', KEYS[4], ARGV[7], ARGV[1])
end
if ARGV[4] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[4]) end
redis.call('PUBLISH', ARGV[11], ARGV[12])
return 1
`;

// Keys: 1 the task hash, 2 live, 3 leases, 4 the owner's active zset. Args: id, owner, current version, next
// version, status, expiresAt, record, terminal ("1" ends the lease and leaves the quota), now, channel, change.
const COMPARE_AND_SET = `
local stored = redis.call('HMGET', KEYS[1], 'owner', 'version', 'expiresAt')
if not stored[1] or stored[1] ~= ARGV[2] or stored[2] ~= ARGV[3] then return 0 end
if stored[3] ~= '' and tonumber(stored[3]) <= tonumber(ARGV[9]) then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[7], 'status', ARGV[5], 'version', ARGV[4], 'expiresAt', ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[6] == '' and '+inf' or ARGV[6], ARGV[1] .. ' ' .. ARGV[2])
if ARGV[6] == '' then redis.call('PERSIST', KEYS[1]) else redis.call('PEXPIREAT', KEYS[1], ARGV[6]) end
if ARGV[8] == '1' then
  redis.call('HDEL', KEYS[1], 'holder', 'until')
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[4], ARGV[1])
else
  redis.call('ZADD', KEYS[4], ARGV[6] == '' and '+inf' or ARGV[6], ARGV[1])
end
redis.call('PUBLISH', ARGV[10], ARGV[11])
return 1
`;

// Keys: 1 the task hash, 2 leases. Args: id, holder, until, now, terminal statuses (JSON).
const RENEW = `
local stored = redis.call('HMGET', KEYS[1], 'status', 'expiresAt', 'holder', 'until')
if not stored[1] then return 0 end
local now = tonumber(ARGV[4])
if stored[2] ~= '' and tonumber(stored[2]) <= now then return 0 end
for _, status in ipairs(cjson.decode(ARGV[5])) do
  if status == stored[1] then return 0 end
end
if stored[3] and stored[3] ~= ARGV[2] and tonumber(stored[4]) > now then return 0 end
redis.call('HSET', KEYS[1], 'holder', ARGV[2], 'until', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
`;

// Keys: 1 the task hash, 2 leases. Args: id, holder.
const RELEASE = `
if redis.call('HGET', KEYS[1], 'holder') == ARGV[2] then
  redis.call('HDEL', KEYS[1], 'holder', 'until')
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return 1
`;

interface Scripts {
  mcpTasksPurge(...args: (string | number)[]): Promise<number>;
  mcpTasksCreate(...args: (string | number)[]): Promise<number>;
  mcpTasksCompareAndSet(...args: (string | number)[]): Promise<number>;
  mcpTasksRenew(...args: (string | number)[]): Promise<number>;
  mcpTasksRelease(...args: (string | number)[]): Promise<number>;
}

/**
 * A TaskStore in Redis. `T` is the set's `StoredTask` (the store only reads the fields of
 * TaskRecord). Give it a URL (`redis://host:6379/0`: the store opens and closes its
 * connections) or an ioredis client (yours to close; the store only duplicates it for the channel;
 * without ioredis's own `keyPrefix`, which the scripts' derived keys would not get: use the
 * store's `keyPrefix` option instead).
 */
export class RedisTaskStore<T extends TaskRecord> implements TaskEventsOf, TaskLeasesOf<T> {
  readonly #redis: Redis & Scripts;
  readonly #ownsClient: boolean;
  readonly #prefix: string;
  readonly #channel: string;
  readonly #maxTasks: number;
  readonly #maxPerOwner: number | null;
  readonly #terminal: ReadonlySet<string>;
  readonly #terminalJson: string;
  readonly #now: () => number;
  readonly #listeners = new Set<{ change(change: TaskChange): void; channel?: ((up: boolean) => void) | undefined }>();
  #subscriber: Redis | undefined;
  #channelUp = false;

  constructor(redis: string | Redis, options: RedisTaskStoreOptions = {}) {
    const timeout = options.commandTimeout ?? 5000;
    this.#ownsClient = typeof redis === "string";
    const client =
      typeof redis === "string" ? new Redis(redis, { ...connectionOptions(timeout), lazyConnect: false }) : redis;
    // An owned client must not crash the process on a connection error: calls reject instead.
    if (this.#ownsClient) client.on("error", () => {});
    for (const [name, lua, keys] of [
      ["mcpTasksPurge", PURGE, 2],
      ["mcpTasksCreate", CREATE, 6],
      ["mcpTasksCompareAndSet", COMPARE_AND_SET, 4],
      ["mcpTasksRenew", RENEW, 2],
      ["mcpTasksRelease", RELEASE, 2],
    ] as const) {
      if (!(name in client)) client.defineCommand(name, { lua, numberOfKeys: keys });
    }
    this.#redis = client as Redis & Scripts;
    this.#prefix = options.keyPrefix ?? "{mcp-tasks}:";
    this.#channel = options.channel ?? `${this.#prefix}changes`;
    this.#maxTasks = options.maxTasks ?? 100_000;
    this.#maxPerOwner = ownerQuota(options.maxTasksPerOwner);
    this.#terminal = new Set(options.terminalStatuses ?? TERMINAL_TASK_STATUSES);
    this.#terminalJson = JSON.stringify([...this.#terminal]);
    this.#now = options.now ?? Date.now;
  }

  /**
   * Stores a new task (version 0) with its worker's first lease in one script; TaskOwnerLimitError
   * when its owner holds its quota of live tasks, RedisTaskLimitError when the store is full.
   */
  async create(task: Omit<T, "taskId" | "version">, lease?: TaskLease): Promise<T> {
    const stored = { ...task, taskId: randomUUID(), version: 0 } as unknown as T;
    const created = await this.#call(() =>
      this.#redis.mcpTasksCreate(
        this.#task(stored.taskId),
        this.#key("live"),
        this.#key(`owner:${stored.owner}`),
        this.#key("leases"),
        this.#key("seq"),
        this.#key(`active:${stored.owner}`),
        stored.taskId,
        stored.owner,
        stored.status,
        stored.expiresAt ?? "",
        JSON.stringify(stored),
        lease?.holder ?? "",
        lease?.until ?? 0,
        this.#maxTasks,
        this.#now(),
        this.#prefix,
        this.#channel,
        changeOf(stored),
        this.#maxPerOwner ?? 0,
        this.#terminal.has(stored.status) ? "1" : "0",
      ),
    );
    if (created === -1) throw new TaskOwnerLimitError(this.#maxPerOwner!);
    if (created !== 1) throw new RedisTaskLimitError(this.#maxTasks);
    return stored;
  }

  async get(owner: string, taskId: string): Promise<T | undefined> {
    const record = await this.#call(() => this.#redis.hget(this.#task(taskId), "record"));
    return record === null ? undefined : this.#visible(JSON.parse(record) as T, owner);
  }

  async compareAndSet(current: T, next: T): Promise<boolean> {
    if (next.taskId !== current.taskId || next.owner !== current.owner || next.version !== current.version + 1) {
      throw new Error("compareAndSet: next must be the same task with the following version");
    }
    const written = await this.#call(() =>
      this.#redis.mcpTasksCompareAndSet(
        this.#task(current.taskId),
        this.#key("live"),
        this.#key("leases"),
        this.#key(`active:${current.owner}`),
        current.taskId,
        current.owner,
        current.version,
        next.version,
        next.status,
        next.expiresAt ?? "",
        JSON.stringify(next),
        this.#terminal.has(next.status) ? "1" : "0",
        this.#now(),
        this.#channel,
        changeOf(next),
      ),
    );
    return written === 1;
  }

  /** One page of the owner's live tasks, oldest first (for tasks/list); undefined for a cursor this store did not issue. */
  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPageOf<T> | undefined> {
    let after = 0;
    if (cursor !== undefined) {
      const match = /^r([0-9a-z]{1,11})$/.exec(cursor);
      if (!match) return undefined;
      after = parseInt(match[1]!, 36);
    }
    const tasks: T[] = [];
    const ownerKey = this.#key(`owner:${owner}`);
    // Expired ids are skipped (and forgotten) until a page holds `limit` live tasks and one more exists.
    for (;;) {
      const ids = await this.#call(() =>
        this.#redis.zrangebyscore(ownerKey, `(${after}`, "+inf", "WITHSCORES", "LIMIT", 0, limit + 1),
      );
      if (ids.length === 0) return { tasks };
      const records = await this.#call(() => {
        const pipeline = this.#redis.pipeline();
        for (let i = 0; i < ids.length; i += 2) pipeline.hget(this.#task(ids[i]!), "record");
        return pipeline.exec();
      });
      for (let i = 0; i < ids.length; i += 2) {
        const [error, record] = records?.[i / 2] ?? [new Error("no reply"), null];
        if (error) throw new RedisTaskStoreError(`the Redis task store failed: ${error.message}`);
        const task = typeof record === "string" ? this.#visible(JSON.parse(record) as T, owner) : undefined;
        if (!task) {
          if (record === null) void this.#redis.zrem(ownerKey, ids[i]!).catch(() => {});
        } else if (tasks.length === limit) {
          return { tasks, nextCursor: `r${after.toString(36)}` };
        } else {
          tasks.push(task);
        }
        after = Number(ids[i + 1]);
      }
    }
  }

  async renewLease(taskId: string, holder: string, until: number): Promise<boolean> {
    const renewed = await this.#call(() =>
      this.#redis.mcpTasksRenew(
        this.#task(taskId),
        this.#key("leases"),
        taskId,
        holder,
        until,
        this.#now(),
        this.#terminalJson,
      ),
    );
    return renewed === 1;
  }

  async releaseLease(taskId: string, holder: string): Promise<void> {
    await this.#call(() => this.#redis.mcpTasksRelease(this.#task(taskId), this.#key("leases"), taskId, holder));
  }

  async orphans(now: number, limit: number): Promise<readonly T[]> {
    const leases = this.#key("leases");
    const ids = await this.#call(() => this.#redis.zrangebyscore(leases, "-inf", `(${now}`, "LIMIT", 0, limit));
    const found: T[] = [];
    for (const id of ids) {
      const record = await this.#call(() => this.#redis.hget(this.#task(id), "record"));
      const task = record === null ? undefined : (JSON.parse(record) as T);
      if (task && (task.expiresAt === null || task.expiresAt > now) && !this.#terminal.has(task.status))
        found.push(task);
      else if (!task) void this.#redis.zrem(leases, id).catch(() => {});
    }
    return found;
  }

  /**
   * Every change published by any store on the channel, read on a second connection (opened on
   * the first watch). `onChannel(false)` when that connection drops, `onChannel(true)` when it is
   * subscribed again.
   */
  watch(listener: (change: TaskChange) => void, onChannel?: (up: boolean) => void): () => void {
    const entry = { change: listener, channel: onChannel };
    this.#listeners.add(entry);
    // A listener joining a channel that is already up hears so at once.
    if (this.#channelUp) queueMicrotask(() => this.#listeners.has(entry) && onChannel?.(true));
    this.#subscribe();
    return () => {
      this.#listeners.delete(entry);
      if (this.#listeners.size === 0) this.#unsubscribe();
    };
  }

  /** Deletes every expired task now (they are never returned either way); returns how many. */
  async deleteExpired(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const purged = await this.#call(() =>
        this.#redis.mcpTasksPurge(this.#key("live"), this.#key("leases"), this.#prefix, this.#now(), 1000),
      );
      deleted += purged;
      if (purged < 1000) return deleted;
    }
  }

  /** Closes the channel's connection, and the store's own connection when the store opened it. */
  async close(): Promise<void> {
    this.#listeners.clear();
    this.#unsubscribe();
    if (this.#ownsClient) this.#redis.disconnect();
  }

  #subscribe(): void {
    if (this.#subscriber) return;
    // Not ioredis's own autoResubscribe: it sends SUBSCRIBE without handling its failure, so closing the store
    // while that is in flight would leave an unhandled rejection. This store subscribes on every `ready` itself.
    const subscriber = this.#redis.duplicate({
      ...connectionOptions(5000),
      enableOfflineQueue: true,
      autoResubscribe: false,
    });
    this.#subscriber = subscriber;
    subscriber.on("error", () => {});
    subscriber.on("message", (channel: string, message: string) => {
      if (channel !== this.#channel) return;
      const change = parseChange(message);
      if (change) for (const listener of this.#listeners) listener.change(change);
    });
    subscriber.on("close", () => this.#subscriber === subscriber && this.#setChannel(false));
    // Subscribed again on every (re)connection; the channel is up once that is done.
    subscriber.on("ready", () => {
      subscriber.subscribe(this.#channel).then(
        () => this.#subscriber === subscriber && this.#setChannel(true),
        () => {},
      );
    });
  }

  #unsubscribe(): void {
    this.#subscriber?.disconnect();
    this.#subscriber = undefined;
    this.#channelUp = false;
  }

  #setChannel(up: boolean): void {
    if (up === this.#channelUp || !this.#subscriber) return;
    this.#channelUp = up;
    for (const listener of this.#listeners) listener.channel?.(up);
  }

  /** The task unless it is someone else's or expired (Redis may keep it a moment past its expiry). */
  #visible(task: T, owner: string): T | undefined {
    if (task.owner !== owner) return undefined;
    return task.expiresAt !== null && task.expiresAt <= this.#now() ? undefined : task;
  }

  #key(name: string): string {
    return `${this.#prefix}${name}`;
  }

  #task(taskId: string): string {
    return this.#key(`task:${taskId}`);
  }

  /** Runs a call, turning a connection failure into RedisTaskStoreError. */
  async #call<R>(call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof ServerLimitError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new RedisTaskStoreError(`the Redis task store is unreachable or failed: ${message}`);
    }
  }
}

/** Connections that give up on a call after `timeout` instead of queueing it forever, and keep reconnecting. */
function connectionOptions(timeout: number): RedisOptions {
  return {
    maxRetriesPerRequest: 1,
    connectTimeout: timeout,
    commandTimeout: timeout,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
  };
}

function changeOf(task: TaskRecord): string {
  const change: TaskChange = { taskId: task.taskId, owner: task.owner, status: task.status, version: task.version };
  return JSON.stringify(change);
}

function parseChange(message: string): TaskChange | undefined {
  try {
    const change = JSON.parse(message) as Partial<TaskChange>;
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
