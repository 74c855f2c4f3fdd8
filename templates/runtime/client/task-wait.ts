/**
 * The task-wait state machine of the generated Tasks client, copied unchanged into every set that
 * has a client (as `task-wait.ts`): one `waitForTask` follows a task through polls and status
 * notifications to its outcome, answers its input requests where the revision has them, and
 * settles exactly once. What differs between revisions (where a finished task's outcome is read,
 * how input requests look and are answered, the poll-interval field) comes from the set's
 * `client.ts` as a `TaskWaitProfile`; the requests it needs go through a `WaitClient`.
 */
import {
  abortReason,
  DEFAULT_POLL_MS,
  host,
  InvalidResponseError,
  LISTEN_HEALTHY_MS,
  LISTEN_RETRY_MAX_MS,
  LISTEN_RETRY_MIN_MS,
  JsonRpcResponseError,
  MAX_POLL_FAILURES,
  TaskEndedError,
  TaskExpiredError,
  TaskInputError,
  TasksClientClosedError,
  waitEnded,
  type TasksClientSignal,
} from "./core.js";
import { isObject, ownValue, ValidationFailed } from "../protocol/json.js";
import { JSON_RPC_ERROR_CODES } from "../protocol/constants.js";

/** What a wait reads of every snapshot of a task. */
export interface WaitSnapshot {
  readonly taskId: string;
  readonly status: string;
  readonly statusMessage?: string;
  readonly lastUpdatedAt: string;
}

/**
 * The snapshots of one status: that variant of a per-status union, or the whole snapshot type
 * when it is not a union by status.
 */
export type SnapshotWithStatus<Snapshot, Status extends string> = [
  Extract<Snapshot, { readonly status: Status }>,
] extends [never]
  ? Snapshot
  : Extract<Snapshot, { readonly status: Status }>;

/** Where an input request comes from, for its handler (the set's `InputRequestContext`). */
export interface InputContext {
  readonly taskId: string;
  readonly key: string;
  readonly method: string;
  readonly signal: TasksClientSignal;
}

/** How a revision whose tasks show their input requests has them answered. */
export interface InputProfile<Snapshot, Answer, Handlers> {
  /** The input requests an `input_required` snapshot shows, by key. */
  requests(task: SnapshotWithStatus<Snapshot, "input_required">): { readonly [key: string]: unknown };
  /** Starts answering one request with the caller's handlers; undefined when nothing answers its method. */
  run(handlers: Handlers, request: unknown, context: InputContext): Promise<unknown> | undefined;
  /** The answer as the revision sends it, or why it cannot be sent. */
  check(
    taskId: string,
    key: string,
    method: string,
    request: unknown,
    answer: unknown,
  ): { readonly ok: true; readonly value: Answer } | { readonly ok: false; readonly error: Error };
}

/** The schema-dependent part of a wait, built by the set's `client.ts`. */
export interface TaskWaitProfile<Snapshot extends WaitSnapshot, Result, Payload, Answer, Handlers> {
  /** The set's status machine (`status.ts`). */
  isTerminalStatus(status: Snapshot["status"]): boolean;
  /** The poll interval the task suggests, in milliseconds (undefined: the default). */
  pollInterval(task: Snapshot): number | undefined;
  /** When the task's retention ends (epoch milliseconds); undefined when unlimited or unreadable. */
  expiry(task: Snapshot): number | undefined;
  /** A completed task's result: from the snapshot, or (a promise) from `payload`, which asks `tasks/result` once. */
  completed(task: SnapshotWithStatus<Snapshot, "completed">, payload: () => Promise<Payload>): Result | Promise<Result>;
  /** The error a failed task ends the wait with (or a promise of it, read through `payload`). */
  failed(task: SnapshotWithStatus<Snapshot, "failed">, payload: () => Promise<Payload>): Error | Promise<Error>;
  /** The error a cancelled task ends the wait with. */
  cancelled(task: SnapshotWithStatus<Snapshot, "cancelled">): Error;
  /** `tasks/result` delivers the task's input requests: ask for it as soon as the task needs input. */
  readonly payloadDeliversInput: boolean;
  /** Present when tasks show their input requests and the client answers them. */
  readonly input?: InputProfile<Snapshot, Answer, Handlers>;
}

/** What a wait needs from its client. */
export interface WaitClient<Snapshot extends WaitSnapshot, Result, Payload, Answer, Handlers> {
  getTask(taskId: string, signal: TasksClientSignal): Promise<Snapshot>;
  /** `tasks/result`, where the revision has it. */
  readonly getTaskPayload?: (taskId: string, signal: TasksClientSignal) => Promise<Payload>;
  /** Sends the answer to one input request, where the revision has answers. */
  readonly answer?: (taskId: string, key: string, answer: Answer, signal: TasksClientSignal) => Promise<void>;
  /**
   * Follows the task on a status stream (`subscriptions/listen`), where the client has one: its
   * notifications reach the wait through the client (`observe`); `acknowledged` is called once the
   * server agreed to send this task's. Resolves when the stream ends: "unsupported" (the server
   * has none, or refused: poll only), "ended" (closed by the server, or by the signal), "dropped"
   * (lost without an answer). Never rejects.
   */
  readonly openStream?: (taskId: string, signal: TasksClientSignal, acknowledged: () => void) => Promise<StreamEnd>;
  /** A best-effort `tasks/cancel`; never rejects. */
  cancel(taskId: string): void;
  report(error: unknown): void;
  /** The wait has settled. */
  finished(wait: TaskWait<Snapshot, Result, Payload, Answer, Handlers>): void;
}

export interface WaitSettings<Snapshot, Handlers> {
  readonly minPollMs: number;
  readonly maxPollMs: number;
  readonly cancelOnAbort: boolean;
  readonly signal: TasksClientSignal | undefined;
  readonly onUpdate: ((task: Snapshot) => void) | undefined;
  readonly inputHandlers: Handlers;
}

/** How a status stream ended (see `WaitClient.openStream`). */
export type StreamEnd = "unsupported" | "ended" | "dropped";

/** Where the answer to one input request stands: its handler runs, it is being sent, it was delivered, or its delivery failed (the answer waits to be sent again). */
type InputState<Answer> = "asking" | "sending" | "delivered" | { readonly retry: Answer };

/**
 * One `waitForTask`. Snapshots come from polls and notifications in any order; the newest one
 * (by `lastUpdatedAt`) wins, the first terminal one ends the wait, and nothing after it is seen.
 * The promise settles exactly once.
 */
export class TaskWait<Snapshot extends WaitSnapshot, Result, Payload, Answer, Handlers> {
  readonly promise: Promise<Result>;
  #resolve: (result: Result) => void = () => {};
  #reject: (error: unknown) => void = () => {};
  /** Settled: nothing more happens. */
  #settled = false;
  /** A terminal snapshot was seen: later snapshots are ignored (the outcome may still be fetched). */
  #terminal = false;
  #timer: unknown;
  #polling = false;
  #failures = 0;
  #intervalMs = DEFAULT_POLL_MS;
  /** `lastUpdatedAt` of the newest snapshot, in epoch milliseconds. */
  #newest = -Infinity;
  /** What the last `onUpdate` call showed, so a snapshot repeated by a poll or a duplicate notification is not reported twice. */
  #reported: string | undefined;
  /** When the task's retention ends, once known; undefined while unknown or unlimited. */
  #expiresAt: number | undefined;
  /** Aborted when the wait ends: stops its requests and tells input handlers. */
  readonly #controller = new host.AbortController();
  readonly #inputs = new Map<string, InputState<Answer>>();
  /** The `tasks/result` request, once asked. */
  #fetching: Promise<Payload> | undefined;
  /** A status stream is acknowledged: notifications replace polls (but for the one at the task's expiry). */
  #streaming = false;
  /** A read was asked for while a poll was in flight (sent before a subscription took): read again when it returns. */
  #pollAgain = false;

  readonly #profile: TaskWaitProfile<Snapshot, Result, Payload, Answer, Handlers>;
  readonly #client: WaitClient<Snapshot, Result, Payload, Answer, Handlers>;
  readonly #settings: WaitSettings<Snapshot, Handlers>;

  constructor(
    profile: TaskWaitProfile<Snapshot, Result, Payload, Answer, Handlers>,
    client: WaitClient<Snapshot, Result, Payload, Answer, Handlers>,
    readonly taskId: string,
    settings: WaitSettings<Snapshot, Handlers>,
  ) {
    this.#profile = profile;
    this.#client = client;
    this.#settings = settings;
    this.promise = new Promise<Result>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** Starts from a snapshot already in hand (a created task), or with a poll. */
  start(initial: Snapshot | undefined): void {
    const { signal } = this.#settings;
    if (signal?.aborted) {
      this.#onAbort();
      return;
    }
    signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (initial) this.observe(initial);
    else this.#poll();
    if (this.#client.openStream)
      this.#follow(this.#client.openStream).catch((error: unknown) => this.#client.report(error));
  }

  /** A snapshot of the task, from a poll or a notification. */
  observe(task: Snapshot): void {
    if (this.#terminal || this.#settled) return;
    const { isTerminalStatus } = this.#profile;
    const changedAt = Date.parse(task.lastUpdatedAt);
    // An older snapshot than one already seen (a late poll answer, a reordered notification) says
    // nothing new; but a terminal status is final whatever its timestamp says.
    if (changedAt < this.#newest && !isTerminalStatus(task.status)) return;
    if (!Number.isNaN(changedAt)) this.#newest = changedAt;
    this.#expiresAt ??= this.#profile.expiry(task);
    this.#intervalMs = this.#profile.pollInterval(task) ?? DEFAULT_POLL_MS;
    this.#update(task);
    if (isTerminalStatus(task.status)) {
      this.#finish(task);
      return;
    }
    const requests = this.#inputRequests(task);
    if (requests) this.#answer(requests);
    // The server delivers a task's requests for input through `tasks/result` (as requests to the
    // client, answered by the transport's request handlers): ask for it now rather than at the end.
    if (this.#profile.payloadDeliversInput && task.status === "input_required") void this.#payload();
    this.#schedule();
  }

  close(): void {
    this.#settle(() => this.#reject(new TasksClientClosedError()));
  }

  readonly #onAbort = (): void => {
    if (this.#settled) return;
    const unfinished = !this.#terminal;
    this.#settle(() => this.#reject(abortReason(this.#settings.signal!)));
    if (unfinished && this.#settings.cancelOnAbort) this.#client.cancel(this.taskId);
  };

  /** The input requests the task shows, where it shows them. */
  #inputRequests(task: Snapshot): { readonly [key: string]: unknown } | undefined {
    const input = this.#profile.input;
    // The status says which variant the snapshot is; TypeScript cannot narrow a type parameter.
    return input && task.status === "input_required"
      ? input.requests(task as unknown as SnapshotWithStatus<Snapshot, "input_required">)
      : undefined;
  }

  #update(task: Snapshot): void {
    const onUpdate = this.#settings.onUpdate;
    if (!onUpdate) return;
    const pending = Object.keys(this.#inputRequests(task) ?? {});
    const shown = JSON.stringify([task.status, task.statusMessage, task.lastUpdatedAt, pending]);
    if (shown === this.#reported) return;
    this.#reported = shown;
    try {
      onUpdate(task);
    } catch (error) {
      this.#client.report(error);
    }
  }

  /**
   * Plans the next poll: after the task's interval (clamped), and no later than its expiry. While a
   * status stream is up, only the poll at the expiry (a task the store forgets sends no notification),
   * unless the last read failed.
   */
  #schedule(): void {
    if (this.#settled || this.#terminal) return;
    host.clearTimeout(this.#timer);
    // A failed read (the one after an acknowledgement included) is retried at the usual interval.
    const streaming = this.#streaming && this.#failures === 0;
    if (streaming && this.#expiresAt === undefined) return;
    let delay = streaming
      ? Infinity
      : Math.min(Math.max(this.#intervalMs, this.#settings.minPollMs), this.#settings.maxPollMs);
    if (this.#expiresAt !== undefined) delay = Math.max(0, Math.min(delay, this.#expiresAt - Date.now()));
    this.#timer = host.setTimeout(() => this.#poll(), delay);
  }

  /**
   * Keeps a status stream open while the wait lasts: after each acknowledgement the task is read
   * once (what changed before the subscription took is not notified, so a terminal status is never
   * missed); while the stream is down the wait polls, and reopens it after a pause that doubles
   * (from LISTEN_RETRY_MIN_MS to LISTEN_RETRY_MAX_MS) until a stream stays open LISTEN_HEALTHY_MS
   * after its acknowledgement: a server that acknowledges and hangs up at once cannot make the
   * client reopen at the shortest pause forever.
   */
  async #follow(
    open: NonNullable<WaitClient<Snapshot, Result, Payload, Answer, Handlers>["openStream"]>,
  ): Promise<void> {
    let pause = LISTEN_RETRY_MIN_MS;
    while (!this.#settled && !this.#terminal) {
      let acknowledgedAt: number | undefined;
      const end = await open(this.taskId, this.#controller.signal, () => {
        if (this.#settled || this.#terminal) return;
        this.#streaming = true;
        acknowledgedAt = Date.now();
        this.#readNow();
      });
      this.#streaming = false;
      if (acknowledgedAt !== undefined && Date.now() - acknowledgedAt >= LISTEN_HEALTHY_MS) pause = LISTEN_RETRY_MIN_MS;
      // Polling takes over (again) at the task's interval.
      this.#schedule();
      if (end === "unsupported" || this.#settled || this.#terminal) return;
      await this.#pause(pause);
      pause = Math.min(pause * 2, LISTEN_RETRY_MAX_MS);
    }
  }

  /** Waits `ms`, or less when the wait ends. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.#controller.signal;
      const done = () => {
        host.clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = host.setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  /** Reads the task now; a poll in flight was sent too early, so another follows it. */
  #readNow(): void {
    if (this.#polling) this.#pollAgain = true;
    else this.#poll();
  }

  /** Sends the read asked for while a poll was in flight. */
  #pollDeferred(): void {
    if (!this.#pollAgain) return;
    this.#pollAgain = false;
    this.#poll();
  }

  #poll(): void {
    // One poll at a time; the one in flight plans the next when it returns.
    if (this.#settled || this.#terminal || this.#polling) return;
    this.#polling = true;
    // A poll at or after the task's expiry is the last: it must find the task finished.
    const expiredAt = this.#expiresAt !== undefined && Date.now() >= this.#expiresAt ? this.#expiresAt : undefined;
    this.#client.getTask(this.taskId, this.#controller.signal).then(
      (task) => {
        this.#polling = false;
        this.#failures = 0;
        if (expiredAt !== undefined && !this.#profile.isTerminalStatus(task.status) && !this.#terminal) {
          this.#fail(new TaskExpiredError(this.taskId, expiredAt));
          return;
        }
        this.observe(task);
        // A stale answer is ignored, but polling goes on.
        this.#schedule();
        this.#pollDeferred();
      },
      (error: unknown) => {
        this.#polling = false;
        this.#pollFailed(error, expiredAt);
        this.#pollDeferred();
      },
    );
  }

  #pollFailed(error: unknown, expiredAt: number | undefined): void {
    if (this.#settled || this.#terminal) return;
    if (error instanceof JsonRpcResponseError) {
      // After its retention the server may forget the task: "unknown task" then means it expired.
      this.#fail(
        expiredAt !== undefined && error.code === JSON_RPC_ERROR_CODES.InvalidParams
          ? new TaskExpiredError(this.taskId, expiredAt, { cause: error })
          : error,
      );
      return;
    }
    // An answer that breaks the protocol will not get better; a lost one (transport, timeout) might.
    if (
      error instanceof ValidationFailed ||
      error instanceof InvalidResponseError ||
      error instanceof TasksClientClosedError
    ) {
      this.#fail(error);
      return;
    }
    if (++this.#failures >= MAX_POLL_FAILURES) {
      this.#fail(error);
      return;
    }
    this.#schedule();
  }

  /** The first terminal snapshot: its outcome settles the wait. */
  #finish(task: Snapshot): void {
    this.#terminal = true;
    host.clearTimeout(this.#timer);
    const payload = () => this.#payload();
    // Each case has checked the status; TypeScript cannot narrow a type parameter.
    switch (task.status) {
      case "completed": {
        const result = this.#profile.completed(task as unknown as SnapshotWithStatus<Snapshot, "completed">, payload);
        if (result instanceof Promise) {
          result.then(
            (value: Result) => this.#settle(() => this.#resolve(value)),
            (error: unknown) => this.#fail(error),
          );
        } else {
          this.#settle(() => this.#resolve(result));
        }
        return;
      }
      case "failed": {
        const error = this.#profile.failed(task as unknown as SnapshotWithStatus<Snapshot, "failed">, payload);
        if (error instanceof Promise) error.then((reason: Error) => this.#fail(reason));
        else this.#fail(error);
        return;
      }
      case "cancelled":
        this.#fail(this.#profile.cancelled(task as unknown as SnapshotWithStatus<Snapshot, "cancelled">));
        return;
      default:
        // A final status the schema adds (status.ts says which): the wait ends here too, never hangs.
        this.#fail(new TaskEndedError(task));
    }
  }

  /** Answers every input request not answered yet; each key's handler runs once for the task's lifetime. */
  #answer(requests: { readonly [key: string]: unknown }): void {
    for (const key of Object.keys(requests)) {
      const state = this.#inputs.get(key);
      if (state === undefined) this.#ask(key, requests[key]);
      // The task still asks, and the last delivery failed: send the same answer again.
      else if (typeof state === "object") this.#deliver(key, state.retry);
    }
  }

  #ask(key: string, request: unknown): void {
    const input = this.#profile.input!;
    this.#inputs.set(key, "asking");
    const method = isObject(request) ? ownValue(request, "method") : undefined;
    if (typeof method !== "string") {
      this.#fail(new TaskInputError(this.taskId, key, undefined, "the input request has no method"));
      return;
    }
    const context: InputContext = { taskId: this.taskId, key, method, signal: this.#controller.signal };
    const answering = input.run(this.#settings.inputHandlers, request, context);
    if (!answering) {
      this.#fail(new TaskInputError(this.taskId, key, method, "no input handler for this method"));
      return;
    }
    answering.then(
      (answer) => {
        if (this.#settled) return;
        const checked = input.check(this.taskId, key, method, request, answer);
        if (!checked.ok) {
          this.#fail(new TaskInputError(this.taskId, key, method, checked.error.message, { cause: checked.error }));
          return;
        }
        this.#deliver(key, checked.value);
      },
      (error: unknown) =>
        this.#fail(new TaskInputError(this.taskId, key, method, "the input handler failed", { cause: error })),
    );
  }

  #deliver(key: string, answer: Answer): void {
    const send = this.#client.answer;
    if (!send) throw new Error("task-wait: the client cannot send answers to input requests");
    this.#inputs.set(key, "sending");
    send(this.taskId, key, answer, this.#controller.signal).then(
      () => {
        this.#inputs.set(key, "delivered");
        // The task moves on once answered: look now rather than at the next planned poll.
        this.#poll();
      },
      (error: unknown) => {
        // Released: the next snapshot that still asks for this key sends the answer again.
        if (this.#settled) return;
        this.#inputs.set(key, { retry: answer });
        this.#client.report(error);
      },
    );
  }

  /**
   * `tasks/result`, asked once: the server answers it when the task is finished. An attempt lost
   * to the transport (or a timeout) is forgotten, so the next call asks again.
   */
  #payload(): Promise<Payload> {
    if (this.#fetching) return this.#fetching;
    const fetch = this.#client.getTaskPayload;
    if (!fetch) return Promise.reject(new Error("task-wait: this revision has no tasks/result"));
    const fetching = fetch(this.taskId, this.#controller.signal);
    this.#fetching = fetching;
    fetching.then(undefined, (error: unknown) => {
      if (!(error instanceof JsonRpcResponseError) && this.#fetching === fetching) this.#fetching = undefined;
    });
    return fetching;
  }

  #fail(error: unknown): void {
    this.#settle(() => this.#reject(error));
  }

  #settle(outcome: () => void): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#terminal = true;
    host.clearTimeout(this.#timer);
    this.#settings.signal?.removeEventListener("abort", this.#onAbort);
    this.#controller.abort(waitEnded(this.taskId));
    this.#client.finished(this);
    outcome();
  }
}
