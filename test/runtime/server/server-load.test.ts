import { describe, expect, it } from "vitest";
import {
  createTasksServer,
  InMemoryTaskStore,
  TASKS_EXTENSION,
  TaskStateError,
  type StoredTask,
  type TaskHandle,
  type TaskStore,
} from "../../../generated/ext-tasks-draft/server.js";
import { canTransition, isTerminalStatus } from "../../../generated/ext-tasks-draft/status.js";
import type { InputRequest } from "../../../generated/ext-tasks-draft/types.js";

/** An elicitation asking for nothing in particular: what a task asks does not matter to the load. */
// Its fields are the ones the load answers: the server judges an accepted form's content by the form (form-answers.ts).
const ask = (message: string): InputRequest => ({ method: "elicitation/create", params: { message, requestedSchema: { type: "object", properties: { key: { type: "string" }, i: { type: "number" } } } } });

/**
 * 1,000 tasks at once against one ext-tasks server: tool code completing, failing and asking for
 * input; clients polling, answering (partially, twice, with unknown keys) and cancelling, all
 * interleaved. Every write is audited at the store, where an illegal transition or a second
 * terminal write would show.
 */

const TASKS = 1000;
const META = { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION]: {} } } };

type Plan = "complete" | "fail" | "one-input" | "two-inputs" | "cancel-working" | "cancel-waiting" | "race";
const PLANS: readonly Plan[] = ["complete", "fail", "one-input", "two-inputs", "cancel-working", "cancel-waiting", "race"];

/** A store that checks every write against the status machine and counts terminal writes per task. */
class AuditedStore implements TaskStore {
  readonly inner = new InMemoryTaskStore({ maxTasks: TASKS * 2 });
  readonly illegal: string[] = [];
  readonly terminalWrites = new Map<string, number>();
  /** Writes refused because another got in first: proof the test really races. */
  conflicts = 0;

  create(task: Parameters<TaskStore["create"]>[0]) {
    return this.inner.create(task);
  }
  get(owner: string, taskId: string) {
    return this.inner.get(owner, taskId);
  }
  async compareAndSet(current: StoredTask, next: StoredTask): Promise<boolean> {
    const written = await this.inner.compareAndSet(current, next);
    if (!written) {
      this.conflicts++;
      return false;
    }
    const legal = !isTerminalStatus(current.status) && (next.status === current.status || canTransition(current.status, next.status));
    if (!legal) this.illegal.push(`${current.taskId}: ${current.status} -> ${next.status}`);
    if (isTerminalStatus(next.status)) this.terminalWrites.set(next.taskId, (this.terminalWrites.get(next.taskId) ?? 0) + 1);
    return true;
  }
}

/** A small seeded PRNG, so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("load: 1,000 concurrent tasks", () => {
  it("loses no result, duplicates none, makes no illegal transition, and ends every task exactly once", async () => {
    const rand = random(20260728);
    const store = new AuditedStore();
    const server = createTasksServer({ store });
    const terminalNotifications = new Map<string, number>();
    server.subscribe((n) => {
      if (isTerminalStatus(n.params.status)) terminalNotifications.set(n.params.taskId, (terminalNotifications.get(n.params.taskId) ?? 0) + 1);
    });
    let nextId = 1;
    const call = async (method: string, params: object, owner: string) => {
      const response = await server.handle({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: META } }, { owner });
      if (!response || "error" in response) throw new Error(`${method}: ${JSON.stringify(response)}`);
      return response.result as Record<string, any>;
    };

    /** The tool code of task i: what it does is decided by its plan. */
    async function work(task: TaskHandle, i: number, plan: Plan): Promise<void> {
      await pause(rand() * 5);
      try {
        if (plan === "fail") return await task.fail({ code: -32000 - (i % 10), message: `failure ${i}` });
        if (plan === "one-input" || plan === "cancel-waiting") {
          const answer = await task.requireInput(`q${i}`, ask(`q${i}`));
          return await task.complete({ n: i, answers: [answer] });
        }
        if (plan === "two-inputs") {
          const answers = await Promise.all([task.requireInput("a", ask(`a${i}`)), task.requireInput("b", ask(`b${i}`))]);
          return await task.complete({ n: i, answers });
        }
        if (plan === "cancel-working") await pause(20 + rand() * 20); // long enough for the cancel to land first
        await task.complete({ n: i });
      } catch (error) {
        // Losing to a cancel is the one expected refusal; anything else is a bug.
        if (!(error instanceof TaskStateError && error.status === "cancelled")) throw error;
      }
    }

    /** The client side of task i: polls, answers what is asked, cancels when its plan says so. */
    async function client(taskId: string, i: number, plan: Plan, owner: string): Promise<Record<string, any>> {
      if (plan === "cancel-working" || plan === "race") {
        await pause(plan === "race" ? rand() * 5 : 0);
        await call("tasks/cancel", { taskId }, owner);
      }
      for (;;) {
        const task = await call("tasks/get", { taskId }, owner);
        if (isTerminalStatus(task.status)) return task;
        if (task.status === "input_required") {
          if (plan === "cancel-waiting") {
            await call("tasks/cancel", { taskId }, owner);
            continue;
          }
          const keys = Object.keys(task.inputRequests);
          // Answer one key at a time, with an unknown key and a repeat mixed in.
          await call("tasks/update", { taskId, inputResponses: { [keys[0]!]: { action: "accept", content: { key: keys[0], i } }, bogus: { action: "decline" } } }, owner);
          await call("tasks/update", { taskId, inputResponses: { [keys[0]!]: { action: "decline" } } }, owner);
        }
        await pause(rand() * 3);
      }
    }

    const plans = Array.from({ length: TASKS }, (_, i) => PLANS[i % PLANS.length]!);
    const owners = plans.map((_, i) => `owner-${i % 17}`);
    const handles = await Promise.all(plans.map((_, i) => server.createTask({ owner: owners[i]! })));
    const workers = handles.map((task, i) => work(task, i, plans[i]!));
    const finals = await Promise.all(handles.map((task, i) => client(task.taskId, i, plans[i]!, owners[i]!)));
    await Promise.all(workers);

    expect(store.conflicts).toBeGreaterThan(0);
    expect(store.illegal).toEqual([]);
    for (const task of handles) {
      expect(store.terminalWrites.get(task.taskId), task.taskId).toBe(1);
      expect(terminalNotifications.get(task.taskId), task.taskId).toBe(1);
    }
    const completedResults: number[] = [];
    finals.forEach((final, i) => {
      const plan = plans[i]!;
      const expected = { complete: "completed", fail: "failed", "one-input": "completed", "two-inputs": "completed", "cancel-working": "cancelled", "cancel-waiting": "cancelled" }[plan as Exclude<Plan, "race">];
      if (plan === "race") expect(["completed", "cancelled"]).toContain(final.status);
      else expect(final.status, `task ${i} (${plan})`).toBe(expected);
      if (final.status === "completed") {
        expect(final.result.n).toBe(i);
        completedResults.push(final.result.n);
        if (plan === "one-input") expect(final.result.answers).toEqual([{ action: "accept", content: { key: `q${i}`, i } }]);
        if (plan === "two-inputs") {
          expect(final.result.answers).toEqual([
            { action: "accept", content: { key: "a", i } },
            { action: "accept", content: { key: "b", i } },
          ]);
        }
      }
      if (final.status === "failed") expect(final.error).toEqual({ code: -32000 - (i % 10), message: `failure ${i}` });
    });
    // Each completed task carries its own result, once.
    expect(new Set(completedResults).size).toBe(completedResults.length);
    expect(completedResults.length).toBeGreaterThan(TASKS / 2);
  }, 60_000);
});
