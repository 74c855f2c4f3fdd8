/**
 * The task engine: compare-and-set writes under the status machine, waiting for a change, abort on
 * cancel, leases and the sweep of expired tasks. None of it depends on the schemas; the set's
 * `server.ts` passes the status machine in (`TaskEngineProfile`).
 */
import { isObject } from "../protocol/json.js";
import {
  host,
  JSON_RPC_ERROR_CODES,
  JsonRpcError,
  unknownTask,
  type AbortSignalLike,
  type JsonRpcErrorObject,
  type TaskAbortSignal,
} from "./json-rpc.js";
import {
  type TaskChange,
  type TaskEventsOf,
  type TaskLease,
  type TaskLeasesOf,
  type TaskRecord,
  type TaskStoreOf,
} from "./store.js";
import { writeTask, type Change, type StatusMachine } from "./task-write.js";

/** The schema-dependent part the engine runs with, passed in by the set's `server.ts`. */
export interface TaskEngineProfile<Task extends TaskRecord> extends StatusMachine<Task["status"]> {
  /** The set's `TaskStateError`, for a change the status machine refuses (`status` undefined: the task is gone). */
  stateError(taskId: string, status: Task["status"] | undefined, message: string): Error;
  /** Told about every task a write changed, after it is stored (status notifications), once per version: this instance's writes and, through the store's events, every other's. */
  changed(task: Task): void;
  /** Whether `changed` has anyone to tell now (otherwise another instance's change is not read back for it). */
  watching?(): boolean;
  /** The record a task whose worker's lease lapsed is failed with (a JSON-RPC error saying so). */
  orphaned?(task: Task): Task;
  /** Tasks someone here listens to (open `subscriptions/listen` streams), read again when the event channel comes back. */
  listenedTo?(): Iterable<{ readonly owner: string; readonly taskId: string }>;
}

/** How an engine keeps the leases of the tasks this instance runs, and sweeps orphans. */
export interface TaskLeaseSettings<Task> {
  readonly store: TaskLeasesOf<Task>;
  /** This instance's name as a lease holder (unique per instance). */
  readonly holder: string;
  /** How long a lease lasts from its last renewal, in milliseconds. */
  readonly duration: number;
  /** How often this instance renews the leases it holds. */
  readonly renewInterval: number;
  /** How often this instance looks for orphaned tasks to fail; 0 never. */
  readonly sweepInterval: number;
}

export interface TaskEngineOptions<Task extends TaskRecord> {
  readonly store: TaskStoreOf<Task>;
  /** How often a waiting request reads the store again, for changes by other processes sharing it. */
  readonly pollInterval: number;
  readonly onError: (error: unknown) => void;
  readonly now: () => number;
  /** The store's change events, where it has them: other instances' changes then reach this one at once. */
  readonly events?: TaskEventsOf;
  /** Worker leases, where the store keeps them. */
  readonly leases?: TaskLeaseSettings<Task>;
}

interface Waiter {
  readonly changed: Promise<void>;
  cancel(): void;
}

/** The wake-ups of code waiting on one task, and whose task it is (to read it again). */
interface Waiters {
  readonly owner: string;
  readonly wakes: Set<() => void>;
}

/** What the engine remembers of a task it told the profile about. */
interface Seen {
  readonly owner: string;
  readonly version: number;
  /** Not terminal at that version: a later change may still come. */
  readonly open: boolean;
}

/** The first and the longest pause between retries of a final write while the store fails. */
const FIRST_RETRY_DELAY = 100;
const LONGEST_RETRY_DELAY = 2_000;
/** How many recently told, unfinished tasks are read again when the event channel comes back. */
const RESYNC_SEEN_LIMIT = 1_000;
/** Store reads at once while reading tasks again. */
const RESYNC_BATCH = 20;
/** How many tasks' last notified versions an engine remembers (to tell each version once). */
const SEEN_VERSIONS = 10_000;
/** Orphans failed per sweep. */
const SWEEP_BATCH = 100;

/** A lease this instance holds on a task it runs. */
interface HeldLease {
  readonly owner: string;
  timer: unknown;
}

/** Lets Node exit while a timer is pending (a no-op elsewhere). */
function unref(timer: unknown): unknown {
  (timer as { unref?: () => void } | undefined)?.unref?.();
  return timer;
}

/** Whether the stored record is the one a write sent (its answer lost): the same version and content. */
function isSameWrite(stored: TaskRecord, sent: TaskRecord): boolean {
  return stored.version === sent.version && canonicalJson(stored) === canonicalJson(sent);
}

/** JSON with object keys sorted (a store may give the keys back in another order). */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    isObject(item)
      ? Object.fromEntries(
          Object.keys(item)
            .sort()
            .map((key) => [key, item[key]]),
        )
      : item,
  );
}

/**
 * Every state change of every task goes through `write`: compare-and-set against the store,
 * retried on conflict, refused when the status machine forbids it. Code waiting on a task
 * (`waitFor`) is woken by this process's changes at once, by other instances' changes through the
 * store's events where it has them, and polls the store at the poll interval either way (so a
 * dropped event channel delays, never hangs). A cancelled task aborts the signals of this
 * process's handles on it, wherever it was cancelled. Where the store keeps leases, the engine
 * renews the leases of the tasks this instance runs and fails other instances' orphans.
 */
export class TaskEngine<Task extends TaskRecord> {
  readonly #store: TaskStoreOf<Task>;
  readonly #profile: TaskEngineProfile<Task>;
  readonly #pollInterval: number;
  readonly #onError: (error: unknown) => void;
  readonly #now: () => number;
  /** Wake-ups for code waiting on a task's next change, by task id. */
  readonly #waiters = new Map<string, Waiters>();
  /** Abort controllers of this process's handles on unfinished tasks, by task id. */
  readonly #controllers = new Map<string, Set<{ abort(): void }>>();
  /** The last version of each task told to the profile (insertion order: the oldest is forgotten first). */
  readonly #seen = new Map<string, Seen>();
  /** Errors a store call threw (not a refused change): what a final write retries on. */
  readonly #storeFailures = new WeakSet<object>();
  /** Wake-ups of final writes pausing between retries (close ends the pauses). */
  readonly #pauses = new Set<() => void>();
  /** The event channel dropped and has not come back yet. */
  #channelDown = false;
  readonly #leases: TaskLeaseSettings<Task> | undefined;
  /** The leases this instance holds, by task id. */
  readonly #held = new Map<string, HeldLease>();
  #unwatch: (() => void) | undefined;
  #sweeper: unknown;
  #closed = false;

  constructor(profile: TaskEngineProfile<Task>, options: TaskEngineOptions<Task>) {
    this.#profile = profile;
    this.#store = options.store;
    this.#pollInterval = options.pollInterval;
    this.#onError = options.onError;
    this.#now = options.now;
    this.#leases = options.leases;
    this.#unwatch = options.events?.watch(
      (change) => this.#remoteChange(change),
      (up) => this.#channel(up),
    );
    const sweepInterval = this.#leases?.sweepInterval ?? 0;
    if (sweepInterval > 0) this.#scheduleSweep(sweepInterval);
  }

  /** This instance's name as a lease holder; undefined where the store keeps no leases. */
  get holder(): string | undefined {
    return this.#leases?.holder;
  }

  /** After this instance created a task: the profile is told (once: the store's event for it is then a repeat). */
  created(task: Task): void {
    this.#markSeen(task);
    this.#profile.changed(task);
  }

  /** The first lease of a task this instance is about to create, for the store's `create`. */
  newLease(): TaskLease | undefined {
    const leases = this.#leases;
    return leases ? { holder: leases.holder, until: this.#now() + leases.duration } : undefined;
  }

  /**
   * Applies a change to a task with compare-and-set, retrying on conflict. `change` returns the
   * next record, or undefined to leave the task as it is. Undefined when the task does not exist.
   */
  async write(
    owner: string,
    taskId: string,
    change: (task: Task) => Task | undefined,
    sending?: (after: Task | undefined) => void,
  ): Promise<Change<Task> | undefined> {
    const profile = this.#profile;
    return writeTask(
      {
        owner,
        taskId,
        read: () => this.#fromStore(this.#store.get(owner, taskId)),
        compareAndSet: (before, after) => this.#fromStore(this.#store.compareAndSet(before, after)),
        machine: profile,
        refused: (before, proposed) =>
          profile.stateError(taskId, before.status, `Illegal transition from ${before.status} to ${proposed.status}`),
        now: this.#now,
        changed: (after) => this.#changed(after),
        ...(sending ? { sending } : {}),
      },
      change,
    );
  }

  /** `write` to a task that must exist: the "Task not found" error when it does not. */
  async writeExisting(owner: string, taskId: string, change: (task: Task) => Task | undefined): Promise<Change<Task>> {
    const written = await this.write(owner, taskId, change);
    if (!written) throw unknownTask();
    return written;
  }

  /**
   * A change made through a task's handle: refused (the set's TaskStateError) once the task is
   * finished or gone. `sent` remembers the record of a compare-and-set whose answer was lost (the
   * store failed), so that a retry recognises its own write (stored after all) instead of refusing it.
   */
  async change(
    owner: string,
    taskId: string,
    describe: string,
    next: (task: Task) => Task,
    sent?: { last?: Task },
  ): Promise<void> {
    // Set when the store already has the record a lost answer hid (a retry found its own write).
    const own: { write?: Task } = {};
    const written = await this.write(
      owner,
      taskId,
      (current) => {
        if (sent?.last && isSameWrite(current, sent.last)) {
          own.write = current;
          return undefined;
        }
        if (this.#profile.isTerminalStatus(current.status)) {
          throw this.#profile.stateError(
            taskId,
            current.status,
            `Cannot ${describe}: the task is already ${current.status}`,
          );
        }
        return next(current);
      },
      sent &&
        ((after) => {
          if (after) sent.last = after;
          else delete sent.last;
        }),
    );
    if (!written) throw this.#profile.stateError(taskId, undefined, `Cannot ${describe}: the task no longer exists`);
    // Its event may have been missed (the channel was down too): told now, once per version as always.
    if (own.write) this.#reread(own.write);
  }

  /**
   * `change` for a write the task's outcome depends on (complete, fail, ask for input): when the
   * STORE fails (not a refused change), retried with growing pauses for up to `retryFor`
   * milliseconds, this instance renewing the task's lease meanwhile. Resolves once stored. Past the
   * bound (or when the server closes) it rejects with the store's error and lets the lease go
   * (`#letGo`), so that a sweeper fails the task: a task never stays working for good.
   * A task seen cancelled meanwhile ends the retries with the set's TaskStateError.
   */
  async changeDurably(
    owner: string,
    taskId: string,
    describe: string,
    next: (task: Task) => Task,
    retryFor: number,
    signal?: AbortSignalLike,
  ): Promise<void> {
    // Real time (not the engine's clock, which tests may stop): the pauses are real timers.
    const giveUpAt = Date.now() + retryFor;
    const sent: { last?: Task } = {};
    for (let delay = FIRST_RETRY_DELAY; ; delay = Math.min(delay * 2, LONGEST_RETRY_DELAY)) {
      try {
        return await this.change(owner, taskId, describe, next, sent);
      } catch (error) {
        if (!this.isStoreFailure(error)) throw error;
        if (signal?.aborted) {
          const cancelled = "cancelled" as Task["status"];
          throw this.#profile.stateError(taskId, cancelled, `Cannot ${describe}: the task was cancelled`);
        }
        if (this.#closed || Date.now() + delay > giveUpAt) {
          this.#letGo(taskId);
          throw error;
        }
        this.report(error);
        await this.#pause(delay);
      }
    }
  }

  /** Whether an error is a store call's failure (as opposed to a refused change or a bug in the change). */
  isStoreFailure(error: unknown): boolean {
    return typeof error === "object" && error !== null && this.#storeFailures.has(error);
  }

  /** The owner's task, or the "Task not found" error. */
  async find(owner: string, taskId: string): Promise<Task> {
    const task = await this.#store.get(owner, taskId);
    if (!task) throw unknownTask();
    return task;
  }

  /**
   * Waits until `pick` finds what it wants in the task. Changes made by this process wake the
   * wait at once; changes by other processes sharing the store are seen at the poll interval.
   */
  async waitFor<T>(
    owner: string,
    taskId: string,
    pick: (task: Task) => T | undefined,
    signal?: AbortSignalLike,
    options: { readonly outlastStoreErrors?: boolean } = {},
  ): Promise<T> {
    for (;;) {
      if (this.#closed) throw new JsonRpcError(JSON_RPC_ERROR_CODES.InternalError, "The server is closing");
      if (signal?.aborted) throw new JsonRpcError(JSON_RPC_ERROR_CODES.InternalError, "The request was abandoned");
      // Listen before reading, so a change between the read and the wait is not missed.
      const waiter = this.#nextChange(owner, taskId, signal);
      try {
        let task: Task | undefined;
        try {
          task = await this.#store.get(owner, taskId);
        } catch (error) {
          // A long wait (tool code awaiting input) outlasts a store that is briefly unreachable: reported, read again at the next poll.
          if (!options.outlastStoreErrors) throw error;
          this.report(error);
          await waiter.changed;
          continue;
        }
        if (!task) throw unknownTask();
        const found = pick(task);
        if (found !== undefined) return found;
        await waiter.changed;
      } finally {
        waiter.cancel();
      }
    }
  }

  /** `waitFor` for tool code's long waits (an answer to its input request): outlasts a briefly unreachable store. */
  waitOut<T>(owner: string, taskId: string, pick: (task: Task) => T | undefined): Promise<T> {
    return this.waitFor(owner, taskId, pick, undefined, {
      outlastStoreErrors: true,
    });
  }

  /** A signal for a new handle on the task, aborted when the task is cancelled. */
  signalFor(taskId: string): TaskAbortSignal {
    const controller = new host.AbortController();
    let controllers = this.#controllers.get(taskId);
    if (!controllers) this.#controllers.set(taskId, (controllers = new Set()));
    controllers.add(controller);
    return controller.signal;
  }

  /**
   * Keeps this instance's lease on a task it runs, renewing it until the task finishes (then
   * released). Renewal also notices a task finished elsewhere while the event channel was down.
   */
  hold(owner: string, taskId: string): void {
    const leases = this.#leases;
    if (!leases || this.#closed || this.#held.has(taskId)) return;
    const held: HeldLease = { owner, timer: undefined };
    this.#held.set(taskId, held);
    const renew = async (): Promise<void> => {
      if (this.#held.get(taskId) !== held) return;
      try {
        const renewed = await leases.store.renewLease(taskId, leases.holder, this.#now() + leases.duration);
        if (!renewed) {
          const task = await this.#store.get(owner, taskId);
          // Gone or finished (perhaps while this instance missed the event): stop holding it.
          if (!task || this.#profile.isTerminalStatus(task.status)) return this.#finished(taskId, task?.status);
          // Another holder's lease is still valid (a previous process's, after a restart): try again later.
        }
      } catch (error) {
        this.report(error);
      }
      if (this.#held.get(taskId) === held) held.timer = unref(host.setTimeout(renew, leases.renewInterval));
    };
    held.timer = unref(host.setTimeout(renew, leases.renewInterval));
  }

  /** Ends every wait (they fail with "The server is closing"), stops watching, renewing and sweeping. */
  close(): void {
    this.#closed = true;
    this.#unwatch?.();
    this.#unwatch = undefined;
    host.clearTimeout(this.#sweeper);
    // Leases are left to lapse, not released: an unfinished task must become an orphan unless resumed.
    for (const held of this.#held.values()) host.clearTimeout(held.timer);
    this.#held.clear();
    for (const taskId of [...this.#waiters.keys()]) this.#wake(taskId);
    for (const resume of [...this.#pauses]) resume();
  }

  /** Fails the orphans (non-terminal tasks whose lease lapsed) the store knows of now; how many this instance failed. */
  async sweep(): Promise<number> {
    const leases = this.#leases;
    const orphaned = this.#profile.orphaned;
    if (!leases || !orphaned) return 0;
    let failed = 0;
    for (const orphan of await leases.store.orphans(this.#now(), SWEEP_BATCH)) {
      // This instance is alive, so a task it holds is no orphan (its renewal was late: a busy event loop).
      if (this.#held.has(orphan.taskId)) {
        await leases.store.renewLease(orphan.taskId, leases.holder, this.#now() + leases.duration);
        continue;
      }
      // Through compare-and-set: of several sweeping instances exactly one wins, and a task that finished meanwhile stays as it is.
      const written = await this.write(orphan.owner, orphan.taskId, (task) =>
        this.#profile.isTerminalStatus(task.status) ? undefined : orphaned(task),
      );
      if (written && written.before !== written.after) failed++;
    }
    return failed;
  }

  /** The JSON-RPC error to answer for what a handler threw: its own, or -32603 for anything unexpected (reported). */
  errorObject(error: unknown): JsonRpcErrorObject {
    if (error instanceof JsonRpcError) return error.toJSON();
    this.report(error);
    return {
      code: JSON_RPC_ERROR_CODES.InternalError,
      message: "Internal error",
    };
  }

  /** Tells the error hook, which must not turn an answer into an exception. */
  report(error: unknown): void {
    try {
      this.#onError(error);
    } catch {
      // A failing error hook must not turn an answer into an exception.
    }
  }

  /** After this instance stored a change. */
  #changed(task: Task): void {
    // Its own event, read back, may have told this version already (the store's answer came later).
    if (this.#seenVersion(task.taskId) < task.version) {
      this.#markSeen(task);
      this.#profile.changed(task);
    }
    this.#wake(task.taskId);
    if (this.#profile.isTerminalStatus(task.status)) this.#finished(task.taskId, task.status);
  }

  /** A change stored by any instance (this one's come back too): wake, abort, notify once per version. */
  #remoteChange(change: TaskChange): void {
    this.#wake(change.taskId);
    if (this.#seenVersion(change.taskId) >= change.version) return;
    if (this.#profile.isTerminalStatus(change.status)) this.#finished(change.taskId, change.status);
    if (!(this.#profile.watching?.() ?? true)) return;
    this.#store.get(change.owner, change.taskId).then(
      (task) => {
        // This instance may have told a newer version meanwhile (its own write, or a later event).
        if (!task || this.#seenVersion(task.taskId) >= task.version) return;
        this.#markSeen(task);
        this.#profile.changed(task);
      },
      (error: unknown) => this.report(error),
    );
  }

  /**
   * The event channel dropped (waiters keep polling) or came back: everyone waiting reads the store
   * again, and the tasks someone here cares about are read again, so that a change made elsewhere
   * while the channel was down is told (once per version) instead of lost.
   */
  #channel(up: boolean): void {
    if (!up) {
      this.#channelDown = true;
      return;
    }
    for (const taskId of [...this.#waiters.keys()]) this.#wake(taskId);
    if (!this.#channelDown) return;
    this.#channelDown = false;
    this.#resync().catch((error: unknown) => this.report(error));
  }

  /** Reads again the tasks of open listens, waits and held leases, and the recently told unfinished ones. */
  async #resync(): Promise<void> {
    const tasks = new Map<string, string>();
    for (const { owner, taskId } of this.#profile.listenedTo?.() ?? []) tasks.set(taskId, owner);
    for (const [taskId, { owner }] of this.#waiters) tasks.set(taskId, owner);
    for (const [taskId, { owner }] of this.#held) tasks.set(taskId, owner);
    const recent = [...this.#seen].filter(([, seen]) => seen.open).slice(-RESYNC_SEEN_LIMIT);
    for (const [taskId, { owner }] of recent) tasks.set(taskId, owner);
    const wanted = [...tasks];
    for (let start = 0; start < wanted.length && !this.#closed && !this.#channelDown; start += RESYNC_BATCH) {
      await Promise.all(
        wanted.slice(start, start + RESYNC_BATCH).map(async ([taskId, owner]) => {
          try {
            const task = await this.#store.get(owner, taskId);
            if (task) this.#reread(task);
          } catch (error) {
            this.report(error);
          }
        }),
      );
    }
  }

  /** A task read from the store: what an event for its version would have done, unless that version was told already. */
  #reread(task: Task): void {
    this.#wake(task.taskId);
    if (this.#seenVersion(task.taskId) >= task.version) return;
    if (this.#profile.isTerminalStatus(task.status)) this.#finished(task.taskId, task.status);
    this.#markSeen(task);
    this.#profile.changed(task);
  }

  /**
   * Stops holding a task whose final write gave up. Its lease is not released (a task without a
   * lease is no orphan: nobody would fail it) but made to lapse now, where the store answers, and
   * otherwise lapses by itself.
   */
  #letGo(taskId: string): void {
    const held = this.#held.get(taskId);
    const leases = this.#leases;
    if (!held || !leases) return;
    this.#held.delete(taskId);
    host.clearTimeout(held.timer);
    leases.store.renewLease(taskId, leases.holder, this.#now()).catch((error: unknown) => this.report(error));
  }

  /** Resolves after `ms`, or at once when the server closes. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const resume = () => {
        host.clearTimeout(timer);
        this.#pauses.delete(resume);
        resolve();
      };
      const timer = host.setTimeout(resume, ms);
      this.#pauses.add(resume);
    });
  }

  /** A store call: its failure is remembered as the store's (a final write retries on those). */
  async #fromStore<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      const failure = typeof error === "object" && error !== null ? error : new Error(String(error));
      this.#storeFailures.add(failure);
      throw failure;
    }
  }

  /** A task ended: its handles' signals abort when it was cancelled, and this instance's lease on it is released. */
  #finished(taskId: string, status: string | undefined): void {
    const controllers = this.#controllers.get(taskId);
    this.#controllers.delete(taskId);
    if (status === "cancelled") for (const controller of controllers ?? []) controller.abort();
    const held = this.#held.get(taskId);
    const leases = this.#leases;
    if (!held || !leases) return;
    this.#held.delete(taskId);
    host.clearTimeout(held.timer);
    leases.store.releaseLease(taskId, leases.holder).catch((error: unknown) => this.report(error));
  }

  #seenVersion(taskId: string): number {
    return this.#seen.get(taskId)?.version ?? -1;
  }

  #markSeen(task: Task): void {
    const { taskId, owner, version } = task;
    this.#seen.delete(taskId);
    this.#seen.set(taskId, {
      owner,
      version,
      open: !this.#profile.isTerminalStatus(task.status),
    });
    if (this.#seen.size > SEEN_VERSIONS) this.#seen.delete(this.#seen.keys().next().value as string);
  }

  #scheduleSweep(interval: number): void {
    this.#sweeper = unref(
      host.setTimeout(() => {
        if (this.#closed) return;
        this.sweep()
          .catch((error: unknown) => this.report(error))
          .finally(() => {
            if (!this.#closed) this.#scheduleSweep(interval);
          });
      }, interval),
    );
  }

  #nextChange(owner: string, taskId: string, signal?: AbortSignalLike): Waiter {
    let waiters = this.#waiters.get(taskId);
    if (!waiters) this.#waiters.set(taskId, (waiters = { owner, wakes: new Set() }));
    const entry = waiters;
    const set = waiters.wakes;
    let wake = () => {};
    const changed = new Promise<void>((resolve) => (wake = resolve));
    const timer = host.setTimeout(wake, this.#pollInterval);
    const cancel = () => {
      host.clearTimeout(timer);
      signal?.removeEventListener("abort", wake);
      set.delete(wake);
      if (set.size === 0 && this.#waiters.get(taskId) === entry) this.#waiters.delete(taskId);
    };
    set.add(wake);
    signal?.addEventListener("abort", wake, { once: true });
    return { changed, cancel };
  }

  #wake(taskId: string): void {
    const waiters = this.#waiters.get(taskId);
    if (!waiters) return;
    this.#waiters.delete(taskId);
    for (const wake of waiters.wakes) wake();
  }
}

// ---------------------------------------------------------------------------------------------
