import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExampleServer, type ExampleServer } from "../../../examples/ext-tasks-server/server.js";
import { InMemoryTaskStore, type StoredTask, type TaskStore } from "../../../generated/ext-tasks-draft/server.js";
import { createdTaskId, post } from "../../support/stateless-client.js";

/**
 * The store going away, in process and whatever the store (README, Scaling out): while every store call
 * fails, the example answers -32603 at once (no hang, no stack, no detail of the failure), and once the
 * store answers again the same server serves the same tasks. The real Redis and PostgreSQL outages are
 * in instance-failure.test.ts.
 */

/** An in-memory store whose every call rejects, like a client whose database is down, while `down` is set. */
class OutageStore implements TaskStore {
  down = false;
  readonly #inner = new InMemoryTaskStore();
  #check(): void {
    if (this.down) throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379 (password hunter2)"), { code: "ECONNREFUSED" });
  }
  async create(task: Omit<StoredTask, "taskId" | "version">) {
    this.#check();
    return this.#inner.create(task);
  }
  async get(owner: string, taskId: string) {
    this.#check();
    return this.#inner.get(owner, taskId);
  }
  async compareAndSet(current: StoredTask, next: StoredTask) {
    this.#check();
    return this.#inner.compareAndSet(current, next);
  }
  async list(owner: string, cursor: string | undefined, limit: number) {
    this.#check();
    return this.#inner.list(owner, cursor, limit);
  }
}

let server: ExampleServer;
const store = new OutageStore();
const logged: unknown[] = [];
beforeAll(async () => {
  server = await startExampleServer({ store, log: (_message, error) => logged.push(error) });
});
afterAll(() => server.close());

describe("example server: store outage", () => {
  it("answers -32603 while the store is down and serves the same tasks once it is back", async () => {
    const before = createdTaskId(await post(server.url, "tools/call", { name: "slow_compute", arguments: { seconds: 0, label: "x" } }, "erin"));
    expect(before).toBeDefined();
    store.down = true;
    for (const [method, params] of [
      ["tasks/get", { taskId: before! }],
      ["tasks/cancel", { taskId: before! }],
      ["tools/call", { name: "slow_compute", arguments: { seconds: 0 } }],
    ] as const) {
      const started = Date.now();
      const answer = await post(server.url, method, params, "erin", 5_000);
      expect(answer.body?.error, `${method}: ${JSON.stringify(answer)}`).toMatchObject({ code: -32603 });
      // The client learns nothing of the failure: no address, no credentials, no stack.
      expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|hunter2|at .*\.js/);
      expect(Date.now() - started).toBeLessThan(2_000);
    }
    expect(logged.length).toBeGreaterThan(0);

    store.down = false;
    const got = await post(server.url, "tasks/get", { taskId: before! }, "erin");
    expect(got.body?.result).toMatchObject({ taskId: before, status: "completed" });
    const again = await post(server.url, "tools/call", { name: "slow_compute", arguments: { seconds: 0 } }, "erin");
    expect(createdTaskId(again), JSON.stringify(again.body)).toBeDefined();
  });
});
