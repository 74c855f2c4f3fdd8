/**
 * The task store contract (what a store keeps of a task, pages, limits, change events and leases) and
 * the in-memory store that meets it. Durable stores in `parts/` implement the same contract.
 */
import { host, JsonRpcError } from "./json-rpc.js";

// ---------------------------------------------------------------------------------------------
// Store

/** What the store and the engine read of a stored task; a set's `StoredTask` has this and its revision's fields. */
export interface TaskRecord {
  readonly taskId: string;
  /** Who created it; nobody else sees it. */
  readonly owner: string;
  readonly status: string;
  readonly lastUpdatedAt: string;
  /** When the store may forget the task (epoch milliseconds); null for never. */
  readonly expiresAt: number | null;
  /** Incremented by every write; compare-and-set compares it. */
  readonly version: number;
}

export interface TaskPageOf<Task> {
  readonly tasks: readonly Task[];
  /** Present when more tasks follow; opaque to callers. */
  readonly nextCursor?: string;
}

// ---------------------------------------------------------------------------------------------
// Limits

/**
 * The JSON-RPC codes of the server's limit errors: implementation-defined server errors
 * (-32000 to -32019; MCP reserves -32020 to -32099 for the protocol's own). Stable: clients may
 * branch on them. Each error's `data` is `{ limit, max }`: the option that sets the limit, its value.
 */
export const LIMIT_ERROR_CODES = {
  /** One owner holds as many live (non-terminal, unexpired) tasks as it may (`maxTasksPerOwner`). HTTP 429. */
  OwnerTaskLimit: -32011,
  /** The store holds as many tasks as it may, all owners together (`maxTasks`). HTTP 503. */
  TaskStoreFull: -32012,
  /** One owner holds as many open `subscriptions/listen` streams on this server as it may (`maxListenStreamsPerOwner`). HTTP 429. */
  OwnerListenLimit: -32013,
} as const;

/** Live tasks one owner may hold at once in every store, by default (`maxTasksPerOwner`). */
export const DEFAULT_MAX_TASKS_PER_OWNER = 100;

/**
 * A limit refused the request: a JsonRpcError (so the server, the router and the SDK answer it with
 * its code, never as -32603) whose `data` names the limit (`{ limit, max }`). Every limit error of
 * the runtime is one: `instanceof ServerLimitError` catches them all.
 */
export class ServerLimitError extends JsonRpcError {
  override readonly name: string = "ServerLimitError";
  constructor(
    code: number,
    message: string,
    /** The option that sets the limit (`maxTasks`, `maxTasksPerOwner`, `maxListenStreamsPerOwner`). */
    readonly limit: string,
    readonly max: number,
  ) {
    super(code, message, { limit, max });
  }
}

/**
 * Thrown by `TaskStore.create` when the store holds as many tasks as it may, all owners together
 * (`maxTasks`). Each store part's own name for it (`SqliteTaskLimitError`, ...) is a subclass.
 */
export class TaskLimitError extends ServerLimitError {
  override readonly name: string = "TaskLimitError";
  constructor(max: number) {
    super(
      LIMIT_ERROR_CODES.TaskStoreFull,
      `The task store is full: it holds its maximum of ${max} tasks (maxTasks)`,
      "maxTasks",
      max,
    );
  }
}

/**
 * Thrown by `TaskStore.create` when the new task's owner already holds as many live tasks (not
 * finished, not expired) as it may (`maxTasksPerOwner`); other owners create on. Every store checks
 * and inserts in one atomic step, so creates racing on several instances never pass the quota.
 */
export class TaskOwnerLimitError extends ServerLimitError {
  override readonly name: string = "TaskOwnerLimitError";
  constructor(max: number) {
    super(
      LIMIT_ERROR_CODES.OwnerTaskLimit,
      `Too many live tasks: this owner holds its maximum of ${max} (maxTasksPerOwner)`,
      "maxTasksPerOwner",
      max,
    );
  }
}

/** The per-owner quota a store's options ask for: a positive whole number, or null (no quota); the default otherwise. */
export function ownerQuota(option: number | null | undefined): number | null {
  if (option === null) return null;
  return option !== undefined && Number.isFinite(option) && option >= 1
    ? Math.floor(option)
    : DEFAULT_MAX_TASKS_PER_OWNER;
}

/** A change to a task written through any instance sharing the store (what the store's event channel carries). */
export interface TaskChange {
  readonly taskId: string;
  readonly owner: string;
  readonly status: string;
  /** The version the write stored; a listener has seen a change when it has seen this version. */
  readonly version: number;
}

/**
 * Implemented by stores shared between instances (Redis pub/sub, PostgreSQL LISTEN/NOTIFY; the
 * in-memory store in process; SQLite in process plus polling of the file), so that a change made on
 * one instance wakes waiters, aborts cancelled work and sends notifications on every other.
 */
export interface TaskEventsOf {
  /**
   * Calls `listener` for every change stored through any instance (own ones included, possibly
   * more than once) while the channel is up; `onChannel(true)` once it listens (at once when it
   * already does), `onChannel(false)` when it drops (waiters then poll the store), `onChannel(true)`
   * when it is back. A store whose channel cannot drop (in process) never calls it. Returns the
   * unsubscribe function.
   */
  watch(listener: (change: TaskChange) => void, onChannel?: (up: boolean) => void): () => void;
}

/** A worker lease: who runs the task, until when (epoch milliseconds). */
export interface TaskLease {
  readonly holder: string;
  readonly until: number;
}

/**
 * Worker leases: the instance running a task holds a lease it renews; a non-terminal task whose
 * lease lapsed is orphaned (its instance died) and the sweeper fails it. Leases live beside the
 * record, not in it: renewing never bumps the version, so it never races a compare-and-set.
 * The store knows which statuses are terminal from its `terminalStatuses` option (default
 * `TERMINAL_TASK_STATUSES`, the terminal statuses of every revision, the set's `TERMINAL_STATUSES`).
 */
export interface TaskLeasesOf<Task> {
  /** Takes or renews the lease on a live, non-terminal task for `holder` until `until`; false when another holder's lease is still valid or the task is gone or finished. */
  renewLease(taskId: string, holder: string, until: number): Promise<boolean>;
  /** Gives the lease up if `holder` has it (the task finished or its handle was dropped). */
  releaseLease(taskId: string, holder: string): Promise<void>;
  /** Live non-terminal tasks whose lease expired before `now` (at most `limit`), for the sweeper that fails them. */
  orphans(now: number, limit: number): Promise<readonly Task[]>;
}

/** The terminal statuses of every revision (`completed`, `failed`, `cancelled`): a store's default. */
export const TERMINAL_TASK_STATUSES: readonly string[] = ["completed", "failed", "cancelled"];

/** A fresh, unique name for this instance as a lease holder. */
export function newInstanceId(): string {
  return host.crypto.randomUUID();
}

/** Whether a store has the event channel of TaskEventsOf. */
export function hasTaskEvents(store: object): store is TaskEventsOf {
  return typeof (store as Partial<TaskEventsOf>).watch === "function";
}

/** Whether a store keeps worker leases (TaskLeasesOf). */
export function hasTaskLeases<Task>(store: object): store is TaskLeasesOf<Task> {
  const leases = store as Partial<TaskLeasesOf<Task>>;
  return (
    typeof leases.renewLease === "function" &&
    typeof leases.releaseLease === "function" &&
    typeof leases.orphans === "function"
  );
}

/** What every task store takes: its caps, its final statuses and its clock (the parts add their own options). */
export interface TaskStoreOptions {
  /** Most tasks held at once (expired ones are dropped first). Default 10,000 in memory, 100,000 in the SQLite, Redis and PostgreSQL stores. */
  readonly maxTasks?: number;
  /**
   * Most live (non-terminal, unexpired) tasks one owner holds at once; null for no quota. Default 100
   * (DEFAULT_MAX_TASKS_PER_OWNER). Counted and taken in one atomic step, so processes or instances sharing
   * a store never pass it (SQLite: one write transaction; Redis: one script; PostgreSQL: a per-owner advisory lock).
   */
  readonly maxTasksPerOwner?: number | null;
  /** The statuses after which a task never changes (no lease, never an orphan). Default TERMINAL_TASK_STATUSES. */
  readonly terminalStatuses?: readonly string[];
  /** The clock, in epoch milliseconds (for tests). */
  readonly now?: () => number;
}

export type InMemoryTaskStoreOptions = TaskStoreOptions;

/**
 * A task store in process memory: TTL expiry, a cap on held tasks, ids from `crypto.randomUUID()`,
 * pages in creation order, worker leases and in-process change events (every server sharing this
 * object sees every change). A set's `InMemoryTaskStore` is this for its `StoredTask`.
 */
export class InMemoryTaskStoreOf<Task extends TaskRecord> implements TaskEventsOf, TaskLeasesOf<Task> {
  readonly #tasks = new Map<string, Task>();
  readonly #leases = new Map<string, TaskLease>();
  readonly #maxTasks: number;
  readonly #maxPerOwner: number | null;
  readonly #terminal: ReadonlySet<string>;
  readonly #now: () => number;
  readonly #listeners = new Set<(change: TaskChange) => void>();
  /** Each owner's non-terminal task ids (expired ones pruned when counted): what the per-owner quota counts. */
  readonly #active = new Map<string, Set<string>>();
  /** Creation order, for tasks/list cursors. */
  readonly #sequence = new Map<string, number>();
  #nextSequence = 1;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.#maxTasks = options.maxTasks ?? 10_000;
    this.#maxPerOwner = ownerQuota(options.maxTasksPerOwner);
    this.#terminal = new Set(options.terminalStatuses ?? TERMINAL_TASK_STATUSES);
    this.#now = options.now ?? Date.now;
  }

  /** How many tasks the store holds, expired ones included until they are dropped. */
  get size(): number {
    return this.#tasks.size;
  }

  /**
   * Stores a new task under a fresh, unguessable id (version 0), with its first lease; rejects with
   * TaskOwnerLimitError when its owner holds its quota of live tasks, TaskLimitError when the store is full.
   */
  async create(task: Omit<Task, "taskId" | "version">, lease?: TaskLease): Promise<Task> {
    if (this.#maxPerOwner !== null && this.#liveCount(task.owner, this.#maxPerOwner) >= this.#maxPerOwner)
      throw new TaskOwnerLimitError(this.#maxPerOwner);
    if (this.#tasks.size >= this.#maxTasks) this.#dropExpired();
    if (this.#tasks.size >= this.#maxTasks) throw new TaskLimitError(this.#maxTasks);
    // A Task without its id and version, given both back: TypeScript cannot see that through Omit.
    const stored = {
      ...task,
      taskId: host.crypto.randomUUID(),
      version: 0,
    } as unknown as Task;
    this.#tasks.set(stored.taskId, stored);
    this.#sequence.set(stored.taskId, this.#nextSequence++);
    this.#track(stored);
    if (lease)
      this.#leases.set(stored.taskId, {
        holder: lease.holder,
        until: lease.until,
      });
    this.#emit(stored);
    return stored;
  }

  /** The owner's task, or undefined when unknown, expired or someone else's. */
  async get(owner: string, taskId: string): Promise<Task | undefined> {
    const task = this.#live(taskId);
    return task?.owner === owner ? task : undefined;
  }

  /** Replaces `current` by `next` (whose version is current's + 1) only if the stored version is still current's; says whether it did. */
  async compareAndSet(current: Task, next: Task): Promise<boolean> {
    if (next.taskId !== current.taskId || next.owner !== current.owner || next.version !== current.version + 1) {
      throw new Error("compareAndSet: next must be the same task with the following version");
    }
    const stored = this.#live(current.taskId);
    if (stored?.owner !== current.owner || stored.version !== current.version) return false;
    this.#tasks.set(next.taskId, next);
    if (this.#terminal.has(next.status)) this.#leases.delete(next.taskId);
    this.#track(next);
    this.#emit(next);
    return true;
  }

  /** One page of the owner's live tasks, oldest first; undefined when the cursor is not one this store issued. */
  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPageOf<Task> | undefined> {
    let after = 0;
    if (cursor !== undefined) {
      const match = /^t([0-9a-z]{1,11})$/.exec(cursor);
      if (!match) return undefined;
      after = parseInt(match[1]!, 36);
    }
    const tasks: Task[] = [];
    let last = after;
    for (const [taskId, sequence] of this.#sequence) {
      if (sequence <= after) continue;
      const task = this.#live(taskId);
      if (task?.owner !== owner) continue;
      if (tasks.length === limit) return { tasks, nextCursor: `t${last.toString(36)}` };
      tasks.push(task);
      last = sequence;
    }
    return { tasks };
  }

  watch(listener: (change: TaskChange) => void, onChannel?: (up: boolean) => void): () => void {
    // In process the channel never drops: onChannel is never called.
    void onChannel;
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async renewLease(taskId: string, holder: string, until: number): Promise<boolean> {
    const task = this.#live(taskId);
    if (!task || this.#terminal.has(task.status)) return false;
    const lease = this.#leases.get(taskId);
    if (lease && lease.holder !== holder && lease.until > this.#now()) return false;
    this.#leases.set(taskId, { holder, until });
    return true;
  }

  async releaseLease(taskId: string, holder: string): Promise<void> {
    if (this.#leases.get(taskId)?.holder === holder) this.#leases.delete(taskId);
  }

  async orphans(now: number, limit: number): Promise<readonly Task[]> {
    const found: Task[] = [];
    for (const [taskId, lease] of this.#leases) {
      if (found.length >= limit) break;
      if (lease.until >= now) continue;
      const task = this.#live(taskId);
      if (task && !this.#terminal.has(task.status)) found.push(task);
    }
    return found;
  }

  /** Tells the watchers after the write returns (a listener never runs inside a store call). */
  #emit(task: Task): void {
    if (this.#listeners.size === 0) return;
    const change: TaskChange = {
      taskId: task.taskId,
      owner: task.owner,
      status: task.status,
      version: task.version,
    };
    host.queueMicrotask(() => {
      for (const listener of this.#listeners) listener(change);
    });
  }

  /** The task unless it has expired (an expired task is dropped on sight). */
  #live(taskId: string): Task | undefined {
    const task = this.#tasks.get(taskId);
    if (task?.expiresAt != null && task.expiresAt <= this.#now()) {
      this.#delete(taskId);
      return undefined;
    }
    return task;
  }

  #dropExpired(): void {
    const now = this.#now();
    for (const [taskId, task] of this.#tasks) {
      if (task.expiresAt !== null && task.expiresAt <= now) this.#delete(taskId);
    }
  }

  /** Keeps the owner's set of non-terminal tasks in step with a write. */
  #track(task: Task): void {
    let active = this.#active.get(task.owner);
    if (this.#terminal.has(task.status)) {
      active?.delete(task.taskId);
      if (active?.size === 0) this.#active.delete(task.owner);
      return;
    }
    if (!active) this.#active.set(task.owner, (active = new Set()));
    active.add(task.taskId);
  }

  /** How many live non-terminal tasks the owner holds, counted exactly once it may be `atLeast` (expired ones pruned then). */
  #liveCount(owner: string, atLeast: number): number {
    const active = this.#active.get(owner);
    if (!active) return 0;
    // The set's size bounds the count from above: below the quota there is nothing to prune.
    if (active.size < atLeast) return active.size;
    // #live drops an expired task, and #delete takes it out of this set.
    for (const taskId of active) this.#live(taskId);
    return active.size;
  }

  #delete(taskId: string): void {
    const owner = this.#tasks.get(taskId)?.owner;
    const active = owner === undefined ? undefined : this.#active.get(owner);
    if (active?.delete(taskId) && active.size === 0) this.#active.delete(owner!);
    this.#tasks.delete(taskId);
    this.#sequence.delete(taskId);
    this.#leases.delete(taskId);
  }
}

// ---------------------------------------------------------------------------------------------
// The task engine

/** What the engine needs of a store: a set's `TaskStore` has this (and `list` where its revision lists). */
export interface TaskStoreOf<Task extends TaskRecord> {
  get(owner: string, taskId: string): Promise<Task | undefined>;
  compareAndSet(current: Task, next: Task): Promise<boolean>;
}
