/**
 * A scripted SEP-2663 (ext-tasks) peer for the generated client's fault-injection tests. One
 * tool call creates one task, which then walks through a script of statuses (with input requests
 * that wait for their answers) to a terminal status. Faults come from lists the test supplies
 * (fast-check generates them): each request takes the next request fault, each change of the task
 * the next notification fault. Time is whatever `setTimeout`/`Date.now` are (the tests fake them).
 */

type JsonObject = { [key: string]: unknown };

export type Terminal = "completed" | "failed" | "cancelled";
export type RequestFault = "none" | "reject" | "processed-then-reject" | "hang" | "stale";
export type NotificationFault = "deliver" | "drop" | "duplicate" | "delay";

export interface Step {
  readonly status: "working" | "input_required";
  /** For input_required: how many new input requests the step opens (it waits for all of them). */
  readonly keys: number;
  readonly pollIntervalMs: number | undefined;
  readonly delayMs: number;
}

export interface Script {
  readonly steps: readonly Step[];
  readonly terminal: Terminal;
  readonly terminalDelayMs: number;
  /** Notifications sent after the terminal one, as a broken or racing server might. */
  readonly lies: readonly ("stale-working" | "other-terminal")[];
  /** Consumed by each tasks/get, tasks/update and tasks/cancel, in order ("none" when exhausted). */
  readonly requestFaults: readonly RequestFault[];
  /** Consumed by each change of the task ("deliver" when exhausted). */
  readonly notificationFaults: readonly NotificationFault[];
  /** Latency of each answer in milliseconds, consumed in order (1 when exhausted). */
  readonly latencies: readonly number[];
  /** Milliseconds before the tools/call answer. */
  readonly createDelayMs?: number;
  /** `ttlMs` of the task (null: unlimited). */
  readonly ttlMs?: number | null;
  /** Forget the task (answer -32602) once its ttl has passed. */
  readonly forgetAfterTtl?: boolean;
}

export interface SentRequest {
  readonly method: string;
  readonly params: JsonObject;
  readonly at: number;
}

const BASE = Date.UTC(2026, 0, 1);
export const RESULT = { content: [{ type: "text", text: "done" }] };
export const ERROR = { code: -32000, message: "scripted failure" };

/** Most transport faults in a row on tasks/get: the client gives up after three, and these tests are not about that. */
const MAX_GET_FAULTS_IN_A_ROW = 2;

export class FakePeer {
  readonly taskId = "task-1";
  readonly requests: SentRequest[] = [];
  /** Every answer the peer accepted, by input key, in order. */
  readonly accepted = new Map<string, unknown[]>();
  /** Every tasks/update in the order sent: the keys it carried, and whether the client was told it succeeded. */
  readonly updates: { readonly keys: readonly string[]; outcome: "pending" | "confirmed" | "failed" }[] = [];
  /** The first terminal status the task reached. */
  trueTerminal: Terminal | undefined;

  #script: Script;
  #listeners = new Set<(notification: unknown) => void>();
  #created = false;
  #version = 0;
  #status: "working" | "input_required" | Terminal = "working";
  #pollIntervalMs: number | undefined;
  #pending = new Map<string, JsonObject>();
  #history: JsonObject[] = [];
  #step = 0;
  #nextKey = 1;
  #faults = 0;
  #notificationFaults = 0;
  #latencies = 0;
  #getFaultsInARow = 0;
  #stepScheduled = false;

  constructor(script: Script) {
    this.#script = script;
    this.#pollIntervalMs = script.steps[0]?.pollIntervalMs;
  }

  subscribe = (listener: (notification: unknown) => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  send = async (request: { id: string | number; method: string; params?: JsonObject }, _headers: unknown, options: { signal: AbortSignalLike }): Promise<unknown> => {
    const params = request.params ?? {};
    this.requests.push({ method: request.method, params, at: Date.now() });
    if (request.method === "tools/call") return this.#create(request.id, options.signal);
    // The client looks the tool up first (for its x-mcp-header annotations): it lists none, so the call is plain.
    if (request.method === "tools/list") return { jsonrpc: "2.0", id: request.id, result: { resultType: "complete", tools: [] } };
    const update: FakePeer["updates"][number] | undefined =
      request.method === "tasks/update" ? { keys: Object.keys(params.inputResponses as JsonObject), outcome: "pending" } : undefined;
    if (update) this.updates.push(update);
    try {
      const answer = await this.#exchange(request.id, request.method, params, options.signal);
      if (update) update.outcome = "result" in answer ? "confirmed" : "failed";
      return answer;
    } catch (error) {
      if (update) update.outcome = "failed";
      throw error;
    }
  };

  async #exchange(id: string | number, method: string, params: JsonObject, signal: AbortSignalLike): Promise<JsonObject> {
    const fault = this.#nextFault(method);
    if (fault === "reject") {
      await this.#latency(signal);
      throw new Error(`connection reset (${method})`);
    }
    if (fault === "hang") return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    const answer = this.#answer(id, method, params, fault === "stale");
    await this.#latency(signal);
    if (fault === "processed-then-reject") throw new Error(`connection reset after ${method}`);
    return answer;
  }

  /** The task as tasks/get shows it now. */
  snapshot(): JsonObject {
    const task: JsonObject = {
      taskId: this.taskId,
      status: this.#status,
      createdAt: new Date(BASE).toISOString(),
      lastUpdatedAt: new Date(BASE + this.#version * 1000).toISOString(),
      ttlMs: this.#script.ttlMs ?? null,
      ...(this.#pollIntervalMs === undefined ? {} : { pollIntervalMs: this.#pollIntervalMs }),
    };
    if (this.#status === "input_required") task.inputRequests = Object.fromEntries(this.#pending);
    if (this.#status === "completed") task.result = RESULT;
    if (this.#status === "failed") task.error = ERROR;
    return task;
  }

  async #create(id: string | number, signal: AbortSignalLike): Promise<unknown> {
    // The task exists as soon as the request arrives, whatever happens to the answer.
    this.#created = true;
    this.#record();
    this.#scheduleStep();
    await sleep(this.#script.createDelayMs ?? 1);
    void signal;
    const { inputRequests: _, ...task } = this.snapshot();
    return { jsonrpc: "2.0", id, result: { resultType: "task", ...task } };
  }

  #answer(id: string | number, method: string, params: JsonObject, stale: boolean): JsonObject {
    if (!this.#created || params.taskId !== this.taskId || this.#forgotten()) {
      return { jsonrpc: "2.0", id, error: { code: -32602, message: "Task not found" } };
    }
    switch (method) {
      case "tasks/get": {
        const older = this.#history[this.#history.length - 2];
        return { jsonrpc: "2.0", id, result: { resultType: "complete", ...(stale && older ? older : this.snapshot()) } };
      }
      case "tasks/update":
        this.#acceptAnswers(params.inputResponses as JsonObject);
        return { jsonrpc: "2.0", id, result: { resultType: "complete" } };
      case "tasks/cancel":
        if (!isTerminal(this.#status)) this.#enter("cancelled");
        return { jsonrpc: "2.0", id, result: { resultType: "complete" } };
      default:
        return { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } };
    }
  }

  #acceptAnswers(responses: JsonObject): void {
    let answered = false;
    for (const [key, answer] of Object.entries(responses)) {
      if (!this.#pending.has(key)) continue; // unknown or answered before: ignored, as SEP-2663 says
      this.#pending.delete(key);
      this.accepted.set(key, [...(this.accepted.get(key) ?? []), answer]);
      answered = true;
    }
    if (!answered || this.#status !== "input_required") return;
    if (this.#pending.size === 0) {
      this.#status = "working";
      this.#record();
      this.#scheduleStep();
    } else {
      this.#record();
    }
  }

  /** The next scripted step, once the task is not waiting for answers. */
  #scheduleStep(): void {
    if (this.#stepScheduled || isTerminal(this.#status) || this.#pending.size > 0) return;
    const step = this.#script.steps[this.#step];
    this.#stepScheduled = true;
    setTimeout(
      () => {
        this.#stepScheduled = false;
        if (isTerminal(this.#status)) return;
        if (!step) {
          this.#enter(this.#script.terminal);
          return;
        }
        this.#step++;
        this.#pollIntervalMs = step.pollIntervalMs;
        if (step.status === "input_required" && step.keys > 0) {
          for (let i = 0; i < step.keys; i++) {
            const key = `k${this.#nextKey++}`;
            this.#pending.set(key, { method: "elicitation/create", params: { message: `answer ${key}`, requestedSchema: { type: "object", properties: { key: { type: "string" } } } } });
          }
          this.#status = "input_required";
        } else {
          this.#status = "working";
        }
        this.#record();
        this.#scheduleStep();
      },
      step ? step.delayMs : this.#script.terminalDelayMs,
    );
  }

  #enter(terminal: Terminal): void {
    this.#status = terminal;
    this.#pending.clear();
    this.trueTerminal ??= terminal;
    this.#record();
    this.#script.lies.forEach((lie, i) => {
      setTimeout(() => {
        const version = this.#version + i + 1;
        const liar: JsonObject = { ...this.snapshot(), lastUpdatedAt: new Date(BASE + version * 1000).toISOString() };
        delete liar.result;
        delete liar.error;
        if (lie === "stale-working") liar.status = "working";
        else Object.assign(liar, terminal === "completed" ? { status: "failed", error: ERROR } : { status: "completed", result: RESULT });
        this.#notify(liar);
      }, 5 * (i + 1));
    });
  }

  /** A new version of the task: kept for stale answers, and notified. */
  #record(): void {
    this.#version++;
    const snapshot = this.snapshot();
    this.#history.push(snapshot);
    this.#notify(snapshot, this.#script.notificationFaults[this.#notificationFaults++] ?? "deliver");
  }

  #notify(params: JsonObject, fault: NotificationFault = "deliver"): void {
    const notification = { jsonrpc: "2.0", method: "notifications/tasks", params };
    const deliver = () => this.#listeners.forEach((listener) => listener(notification));
    if (fault === "drop") return;
    if (fault === "delay") {
      setTimeout(deliver, 300);
      return;
    }
    setTimeout(deliver, 0);
    if (fault === "duplicate") setTimeout(deliver, 1);
  }

  #nextFault(method: string): RequestFault {
    const fault = this.#script.requestFaults[this.#faults++] ?? "none";
    if (method !== "tasks/get") return fault;
    const transport = fault === "reject" || fault === "processed-then-reject" || fault === "hang";
    if (transport && this.#getFaultsInARow >= MAX_GET_FAULTS_IN_A_ROW) {
      this.#getFaultsInARow = 0;
      return "none";
    }
    this.#getFaultsInARow = transport ? this.#getFaultsInARow + 1 : 0;
    return fault;
  }

  #forgotten(): boolean {
    const ttl = this.#script.ttlMs;
    return this.#script.forgetAfterTtl === true && typeof ttl === "number" && Date.now() >= BASE + ttl;
  }

  async #latency(signal: AbortSignalLike): Promise<void> {
    await sleep(this.#script.latencies[this.#latencies++] ?? 1);
    if (signal.aborted) throw signal.reason;
  }
}

interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { readonly once?: boolean }): void;
}

function isTerminal(status: string): status is Terminal {
  return status === "completed" || status === "failed" || status === "cancelled";
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Epoch milliseconds at which the scripted task was created. */
export const CREATED_AT = BASE;
