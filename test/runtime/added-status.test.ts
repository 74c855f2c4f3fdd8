import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import ts from "typescript";
import { generate, lintSets, resolveConfig, type GeneratedSet } from "../../generator/index.js";
import { loadGeneratedModules, type LoadedModules } from "../support/generated-modules.js";
import { fixturePath, projectRoot } from "../support/paths.js";
import { STRICT_COMPILER_OPTIONS, typeCheckInMemory } from "../support/typescript.js";

/**
 * A revision that adds a status: the extension's newest revision with `"paused"` added to
 * every status enum and a `PausedTask` variant beside `WorkingTask` (test/fixtures/revisions/SOURCE.md).
 * The status model comes from the schema (analyze/status.ts): the new status gets its variant, guard,
 * matchStatus branch and place in the union, is not final, the server's handle can set it, the
 * client's wait goes on through it and listeners see it.
 */

type Any = any;

const configWith = (stubs: boolean) =>
  resolveConfig(
    {
      outDir: "test/.revisions-not-written",
      sets: [
        {
          name: "paused",
          schemas: [fixturePath("revisions", "ext-tasks-e434597-paused.schema.json")],
          core: { schema: fixturePath("mcp-spec", "ext-tasks-e434597", "spec.schema.json") },
          lint: { "unknown-format": "off" },
          ...(stubs ? {} : { stubs: false }),
        },
      ],
    },
    projectRoot,
  );
const config = configWith(true);

let set: GeneratedSet;
let modules: LoadedModules;
let server: Any;
let client: Any;
let serverModule: Any;
let clientModule: Any;
let statusModule: Any;
beforeAll(async () => {
  set = (await generate(config)).sets[0]!;
  modules = loadGeneratedModules(set.files, "added-status");
  serverModule = await modules.import("server.ts");
  clientModule = await modules.import("client.ts");
  statusModule = await modules.import("status.ts");
});
afterAll(() => modules?.remove());

const fileOf = (name: string) => set.files.find((f) => f.name === name)?.contents ?? "";

describe("a revision that adds the status paused", () => {
  it("gets it everywhere the status model reaches: the list, the union by status, the variant type, the machine", () => {
    expect(statusModule.TASK_STATUSES).toEqual(["working", "input_required", "completed", "failed", "cancelled", "paused"]);
    expect(statusModule.TERMINAL_STATUSES).toEqual(["completed", "failed", "cancelled"]);
    expect(statusModule.isTerminalStatus("paused")).toBe(false);
    expect(statusModule.canTransition("working", "paused")).toBe(true);
    expect(statusModule.canTransition("paused", "working")).toBe(true);
    expect(statusModule.canTransition("completed", "paused")).toBe(false);
    expect(fileOf("types.ts")).toMatch(/export type DetailedTask =[^;]*\bPausedTask\b/);
    expect(fileOf("types.ts")).toMatch(/export type TaskStatus =[^;]*"paused"/);
    expect(fileOf("validators.ts")).toMatch(/export function isPausedTask\(/);
    expect(statusModule.matchStatus({ status: "paused" }, Object.fromEntries(statusModule.TASK_STATUSES.map((s: string) => [s, () => s])))).toBe("paused");
  });

  it("compiles under strict settings, and a matchStatus without a paused branch does not", () => {
    const files = new Map(set.files.map((f) => [f.name, f.contents]));
    const handlers = (extra: string) =>
      `import { matchStatus } from "./status.js";\nimport type { DetailedTask } from "./types.js";\n` +
      `export const describe = (t: DetailedTask): string => matchStatus(t, { working: () => "w", input_required: () => "i", completed: () => "c", failed: () => "f", cancelled: () => "x"${extra} });\n`;
    const check = (consumer: string) =>
      typeCheckInMemory(new Map([...files, ["consumer.ts", consumer]]), STRICT_COMPILER_OPTIONS).map(
        (d) => `${d.file ?? ""}:${d.line ?? ""} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.message, "\n")}`,
      );
    expect(check(handlers(', paused: (t) => t.status'))).toEqual([]);
    const missing = check(handlers(""));
    expect(missing.length).toBe(1);
    expect(missing[0]).toMatch(/^consumer\.ts:3 TS2345: [^]*Property 'paused' is missing/);
  });

  it("keeps status.ts without stubs (the set still has a status model), and lint has no note on the stubs", async () => {
    const [bare] = (await generate(configWith(false))).sets;
    expect(bare!.files.map((f) => f.name)).toContain("status.ts");
    expect(bare!.files.map((f) => f.name)).not.toContain("server.ts");
    // The same module but for its header (whose options line says stubs: false).
    const body = (text: string) => text.slice(text.indexOf("\nimport "));
    expect(body(bare!.files.find((f) => f.name === "status.ts")!.contents)).toBe(body(fileOf("status.ts")));
    expect(lintSets(config).notes).toEqual([]);
  });
});

describe("round trip create → paused → working → completed with the generated client and server", () => {
  const OWNER = "";
  const text = (value: string) => ({ content: [{ type: "text", text: value }] });
  let handle: Any;
  let notified: string[];

  async function send(request: Any): Promise<Any> {
    if (request.method === "tools/call") {
      handle = await server.createTask({});
      return { jsonrpc: "2.0", id: request.id, result: { ...handle.createResult } };
    }
    return server.handle(request);
  }

  afterEach(() => {
    client?.close();
    server?.close();
  });

  it("the handle sets paused and working again, the wait goes on through both, tasks/get and listeners show each", async () => {
    const store = new serverModule.InMemoryTaskStore();
    server = serverModule.createTasksServer({ store, pollInterval: 10 });
    notified = [];
    server.subscribe((n: Any) => notified.push(n.params.status));
    client = clientModule.createTasksClient({ send, minPollMs: 5 });

    const started = await client.startToolCall({ name: "slow" }, {});
    expect(started.kind).toBe("task");
    const { taskId } = started.task;
    const updates: string[] = [];
    const waiting = client.waitForTask(taskId, { onUpdate: (t: Any) => updates.push(t.status) });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 40));

    await handle.setStatus("paused", "Waiting for a quota");
    await settle();
    const paused = await client.getTask({ taskId });
    expect(paused).toMatchObject({ taskId, status: "paused", statusMessage: "Waiting for a quota" });
    expect((await store.get(OWNER, taskId)).status).toBe("paused");

    await handle.setStatus("working");
    await settle();
    await handle.complete(text("done"));
    expect(await waiting).toMatchObject(text("done"));

    expect(updates.filter((s, i) => s !== updates[i - 1])).toEqual(["working", "paused", "working", "completed"]);
    expect(notified).toEqual(["working", "paused", "working", "completed"]);
  });

  it("the status machine refuses what the handle may not do: a final status, input_required, or any move once finished", async () => {
    server = serverModule.createTasksServer({ store: new serverModule.InMemoryTaskStore(), pollInterval: 10 });
    client = clientModule.createTasksClient({ send, minPollMs: 5 });
    await client.startToolCall({ name: "slow" }, {});
    await expect(handle.setStatus("completed")).rejects.toThrow(/complete, fail or cancellation/);
    await expect(handle.setStatus("input_required")).rejects.toThrow(/requireInput/);
    await handle.complete(text("done"));
    await expect(handle.setStatus("paused")).rejects.toBeInstanceOf(serverModule.TaskStateError);
  });
});

describe('an added status the config makes final ("statuses": { "paused": { "terminal": true } })', () => {
  const finalConfig = resolveConfig(
    {
      outDir: "test/.revisions-not-written",
      sets: [
        {
          name: "paused-final",
          schemas: [fixturePath("revisions", "ext-tasks-e434597-paused.schema.json")],
          core: { schema: fixturePath("mcp-spec", "ext-tasks-e434597", "spec.schema.json") },
          lint: { "unknown-format": "off" },
          statuses: { paused: { terminal: true } },
        },
      ],
    },
    projectRoot,
  );
  let finalSet: GeneratedSet;
  let finalModules: LoadedModules;
  let finalServer: Any;
  let finalClient: Any;
  let finalServerModule: Any;
  let finalClientModule: Any;
  let finalStatusModule: Any;
  let finalHandle: Any;
  beforeAll(async () => {
    finalSet = (await generate(finalConfig)).sets[0]!;
    finalModules = loadGeneratedModules(finalSet.files, "added-status-final");
    finalServerModule = await finalModules.import("server.ts");
    finalClientModule = await finalModules.import("client.ts");
    finalStatusModule = await finalModules.import("status.ts");
  });
  afterAll(() => finalModules?.remove());
  afterEach(() => {
    finalClient?.close();
    finalServer?.close();
  });

  it("is final in the status model: no move out of it, and it compiles under strict settings", () => {
    expect(finalStatusModule.TERMINAL_STATUSES).toEqual(["completed", "failed", "cancelled", "paused"]);
    expect(finalStatusModule.isTerminalStatus("paused")).toBe(true);
    expect(finalStatusModule.canTransition("working", "paused")).toBe(true);
    expect(finalStatusModule.canTransition("paused", "working")).toBe(false);
    const files = new Map(finalSet.files.map((f) => [f.name, f.contents]));
    expect(typeCheckInMemory(files, STRICT_COMPILER_OPTIONS).map((d) => `${d.file}:${d.line} TS${d.code}`)).toEqual([]);
  });

  it("the handle ends the task there, and the client's wait ends on it with TaskEndedError carrying the task", async () => {
    const store = new finalServerModule.InMemoryTaskStore();
    finalServer = finalServerModule.createTasksServer({ store, pollInterval: 10 });
    const send = async (request: Any): Promise<Any> => {
      if (request.method === "tools/call") {
        finalHandle = await finalServer.createTask({});
        return { jsonrpc: "2.0", id: request.id, result: { ...finalHandle.createResult } };
      }
      return finalServer.handle(request);
    };
    finalClient = finalClientModule.createTasksClient({ send, minPollMs: 5 });
    const started = await finalClient.startToolCall({ name: "slow" }, {});
    const { taskId } = started.task;
    const updates: string[] = [];
    const waiting = finalClient.waitForTask(taskId, { onUpdate: (t: Any) => updates.push(t.status) });
    const outcome = waiting.then(
      () => "resolved",
      (error: Any) => error,
    );
    await finalHandle.setStatus("paused", "Archived by the operator");
    const error = await outcome;
    expect(error).toBeInstanceOf(finalClientModule.TaskEndedError);
    expect(error.task).toMatchObject({ taskId, status: "paused", statusMessage: "Archived by the operator" });
    expect(error.message).toBe(`task ${taskId} ended paused: Archived by the operator`);
    expect(updates.at(-1)).toBe("paused");
    // Final: no move out of it, and the store holds no lease on it (it is no orphan for the sweeper).
    await expect(finalHandle.setStatus("working")).rejects.toBeInstanceOf(finalServerModule.TaskStateError);
    await expect(finalHandle.complete({ content: [] })).rejects.toBeInstanceOf(finalServerModule.TaskStateError);
    expect(await store.renewLease(taskId, "someone", Date.now() + 60_000)).toBe(false);
  });

  it("the protocol's own final statuses are still reached only through complete, fail or cancellation", async () => {
    finalServer = finalServerModule.createTasksServer({ store: new finalServerModule.InMemoryTaskStore(), pollInterval: 10 });
    finalHandle = await finalServer.createTask({});
    await expect(finalHandle.setStatus("completed")).rejects.toThrow(/complete, fail or cancellation/);
  });

  it("a status the schema does not add is a located config error", async () => {
    const config = resolveConfig(
      {
        outDir: "test/.revisions-not-written",
        sets: [{ name: "typo", schemas: [fixturePath("revisions", "ext-tasks-e434597-paused.schema.json")], core: { schema: fixturePath("mcp-spec", "ext-tasks-e434597", "spec.schema.json") }, statuses: { pasued: { terminal: true } } }],
      },
      projectRoot,
      "mcp-tasks-gen.config.json",
    );
    await expect(generate(config)).rejects.toThrow('mcp-tasks-gen.config.json#/sets/0/statuses/pasued: the schema has no status "pasued"; the statuses it adds are "paused"');
  });
});
