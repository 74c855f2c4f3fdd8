import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Project, ts } from "ts-morph";
import { afterAll, describe, expect, it } from "vitest";
import { STRICT_COMPILER_OPTIONS } from "../../support/typescript.js";
import { generate, generateFromMemory, readConfigFile } from "../../../generator/index.js";
import { importGeneratedModule } from "../../support/generated-modules.js";
import { projectRoot } from "../../support/paths.js";
import { EXTENSION_META } from "../../support/task-store-contract.js";
import { RUNTIME_PART_FILES } from "../../../generator/emit/templates.js";

/**
 * The server stub follows the schema, not the set's name: the two Tasks revisions get the
 * behaviour their shapes imply, and editing a schema changes the server accordingly.
 */

const { sets } = await generate(readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json")));
const serverOf = (name: string) => sets.find((s) => s.name === name)?.files.find((f) => f.name === "server.ts")?.contents;

const EXT_SCHEMA = JSON.parse(readFileSync(join(projectRoot, "schemas/ext-tasks-2026-05-22.schema.json"), "utf8"));

/** Generates the ext-tasks schema after `edit` changed its `$defs`. */
async function extSetAfter(edit: (defs: Record<string, any>) => void): Promise<readonly { name: string; contents: string }[]> {
  const schema = structuredClone(EXT_SCHEMA);
  edit(schema.$defs);
  const uri = "https://example.test/ext.json";
  const { files } = await generateFromMemory({
    documents: [{ uri, json: schema }],
    roots: Object.keys(schema.$defs).map((name) => ({ name, uri: `${uri}#/$defs/${name}` })),
    format: false,
  });
  return files;
}

/** server.ts of the ext-tasks schema after `edit`, or undefined when none was emitted. */
async function extServerAfter(edit: (defs: Record<string, any>) => void): Promise<string | undefined> {
  return (await extSetAfter(edit)).find((f) => f.name === "server.ts")?.contents;
}

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** The server module of the ext-tasks schema after `edit`, run for real: the set written to a temp folder and imported. */
async function extServerModuleAfter(edit: (defs: Record<string, any>) => void): Promise<any> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-server-emit-"));
  tempDirs.push(dir);
  return importGeneratedModule(await extSetAfter(edit), dir, "server.ts");
}


/** Calls a method on a generated server; the answer's result or error. */
async function call(server: any, method: string, params: object, meta: object = EXTENSION_META): Promise<any> {
  return server.handle({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }, { owner: "alice" });
}

/** The methods a generated server answers, read from its TASK_METHODS constant. */
function methodsOf(server: string): string[] {
  const list = /export const TASK_METHODS = \[([^\]]*)\]/.exec(server)?.[1] ?? "";
  return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

describe("server.ts per set", () => {
  it("is emitted for the Tasks sets only, importing nothing from outside its folder", () => {
    expect(serverOf("elicitation-codex")).toBeUndefined();
    for (const name of ["tasks-2025-11-25", "ext-tasks-draft", "ext-tasks-2026-05-22"]) {
      const server = serverOf(name)!;
      const imports = [...server.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
      expect(imports.length).toBeGreaterThan(0);
      for (const specifier of imports) expect(specifier).toMatch(/^\.\/(?:runtime\/[a-z-]+\/)?[a-z-]+\.js$/);
      // Export from index.ts, like the set's other modules.
      expect(sets.find((s) => s.name === name)!.files.find((f) => f.name === "index.ts")!.contents).toContain('export * from "./server.js";');
    }
  });

  it("routes the methods of each revision's method table", () => {
    expect(methodsOf(serverOf("tasks-2025-11-25")!)).toEqual(["tasks/get", "tasks/result", "tasks/cancel", "tasks/list"]);
    expect(methodsOf(serverOf("ext-tasks-2026-05-22")!)).toEqual(["tasks/cancel", "tasks/get", "tasks/update"]);
    expect(methodsOf(serverOf("ext-tasks-draft")!)).toEqual(["tasks/cancel", "tasks/get", "tasks/update"]);
  });

  it("validates params without _meta only where the params schema would reject it (the 2026-05-22 revision's closed params)", () => {
    expect(serverOf("ext-tasks-draft")).not.toMatch(/stripMeta: true/);
    expect(serverOf("ext-tasks-2026-05-22")).toMatch(/stripMeta: true/);
  });

  it("takes resultType from the schema where CreateTaskResult declares it, and adds it where it does not", () => {
    expect(serverOf("ext-tasks-draft")).toMatch(/^export type TaskCreatedResult = CreateTaskResult;$/m);
    expect(serverOf("ext-tasks-2026-05-22")).toMatch(/^export type TaskCreatedResult = CreateTaskResult & \{ readonly resultType: "task" \};$/m);
  });

  it("compiles under strict settings without DOM or Node typings", () => {
    for (const name of ["tasks-2025-11-25", "ext-tasks-draft", "ext-tasks-2026-05-22"]) {
      const project = new Project({
        useInMemoryFileSystem: true,
        compilerOptions: {
          ...STRICT_COMPILER_OPTIONS,
          skipLibCheck: false,
          noUnusedLocals: true,
          noUnusedParameters: true,
          noImplicitReturns: true,
          lib: ["lib.es2022.d.ts"],
        },
      });
      project.createSourceFile("/package.json", '{ "type": "module" }');
      // Runtime parts need Node or a peer package (compile-generated.test.ts checks them with those); without them the set needs neither.
      for (const file of sets.find((s) => s.name === name)!.files.filter((f) => !RUNTIME_PART_FILES.has(f.name))) {
        project.createSourceFile(`/${name}/${file.name}`, file.contents);
      }
      // The unused-code flags go beyond STRICT_COMPILER_OPTIONS (test/support/typescript.ts); they are held to server.ts only.
      const diagnostics = project
        .getPreEmitDiagnostics()
        .filter((d) => d.getSourceFile()?.getBaseName() === "server.ts" || d.getCategory() === ts.DiagnosticCategory.Error && ![6133, 6196].includes(d.getCode()))
        .map((d) => `${d.getSourceFile()?.getBaseName()}: ${ts.flattenDiagnosticMessageText(d.getMessageText() as string, "\n")}`);
      expect(diagnostics).toEqual([]);
    }
  });
});

describe("server.ts follows schema edits", () => {
  it("without tasks/update: no input handling", async () => {
    const server = await extServerAfter((defs) => {
      delete defs.UpdateTaskRequest;
      delete defs.UpdateTaskResult;
    });
    expect(methodsOf(server!)).toEqual(["tasks/cancel", "tasks/get"]);
    expect(server).not.toContain("requireInput");
    expect(server).not.toContain("inputResponses");
    // At run time too: handles cannot ask for input, and tasks/update is an unknown method.
    const { createTasksServer } = await extServerModuleAfter((defs) => {
      delete defs.UpdateTaskRequest;
      delete defs.UpdateTaskResult;
    });
    const tasks = createTasksServer();
    const handle = await tasks.createTask({ owner: "alice" });
    expect(handle.requireInput).toBeUndefined();
    expect(handle.input).toBeUndefined();
    expect(await call(tasks, "tasks/update", { taskId: handle.taskId, inputResponses: {} })).toMatchObject({ error: { code: -32601 } });
    tasks.close();
  });

  it("without an extension capability: no per-request -32021 gate and no routing-header check", async () => {
    const server = await extServerAfter((defs) => delete defs.TasksExtensionCapability);
    expect(server).not.toContain("hasTasksExtension");
    expect(server).not.toContain("-32021");
    expect(server).not.toContain("checkRoutingHeaders");
    // Everything else stays: results still carry resultType because CreateTaskResult is flat.
    expect(server).toContain('resultType: "task"');
    // At run time too: a request without the extension's capability and with mismatched headers is answered.
    const { createTasksServer } = await extServerModuleAfter((defs) => delete defs.TasksExtensionCapability);
    const tasks = createTasksServer();
    const handle = await tasks.createTask({ owner: "alice" });
    const response = await tasks.handle(
      { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: handle.taskId } },
      { owner: "alice", headers: { "mcp-name": "another-task" } },
    );
    expect(response).toMatchObject({ result: { resultType: "complete", taskId: handle.taskId, status: "working" } });
    expect(handle.createResult).toMatchObject({ resultType: "task", taskId: handle.taskId });
    tasks.close();
  });

  it("a cancel result that carries the task: cancel answers it, and a finished task is an error", async () => {
    const server = await extServerAfter((defs) => {
      defs.CancelTaskResult = structuredClone(defs.CreateTaskResult);
    });
    expect(server).toContain("cancelAck: false");
    // Run for real: cancel answers the cancelled task (tagged), and cancelling it again is -32602.
    const { createTasksServer } = await extServerModuleAfter((defs) => {
      defs.CancelTaskResult = structuredClone(defs.CreateTaskResult);
    });
    const tasks = createTasksServer();
    const handle = await tasks.createTask({ owner: "alice" });
    const cancelled = await call(tasks, "tasks/cancel", { taskId: handle.taskId });
    expect(cancelled.result).toMatchObject({ resultType: "complete", taskId: handle.taskId, status: "cancelled", ttlMs: expect.any(Number) });
    const again = await call(tasks, "tasks/cancel", { taskId: handle.taskId });
    expect(again.error).toMatchObject({ code: -32602, message: "Cannot cancel a task that is already cancelled" });
    tasks.close();
  });

  it("renamed fields are used as the schema names them", async () => {
    const server = await extServerAfter((defs) => {
      renameProperty(defs, "ttlMs", "ttlMillis", () => true);
      renameProperty(defs, "result", "payload", (object) => object.properties?.status?.const === "completed");
    });
    expect(server).not.toContain("ttlMs");
    expect(server).toContain('ttl: "ttlMillis"');
    expect(server).toContain('completed: "payload"');
    // Run for real: tasks/get shows the retention and the result under the schema's names.
    const { createTasksServer } = await extServerModuleAfter((defs) => {
      renameProperty(defs, "ttlMs", "ttlMillis", () => true);
      renameProperty(defs, "result", "payload", (object) => object.properties?.status?.const === "completed");
    });
    const tasks = createTasksServer();
    const handle = await tasks.createTask({ owner: "alice" }, { ttl: 60_000 });
    await handle.complete({ content: [] });
    const { result } = await call(tasks, "tasks/get", { taskId: handle.taskId });
    expect(result).toMatchObject({ status: "completed", ttlMillis: 60_000, payload: { content: [] } });
    expect(result).not.toHaveProperty("ttlMs");
    expect(result).not.toHaveProperty("result");
    tasks.close();
  });

  it("a schema with task methods but no tasks/get is an error naming what is missing, not a set without a server", async () => {
    await expect(
      extServerAfter((defs) => {
        delete defs.GetTaskRequest;
        delete defs.GetTaskResult;
      }),
    ).rejects.toThrow(/CancelTaskRequest: the set defines task methods \(`tasks\/cancel`, `tasks\/update`\) but no `tasks\/get` request/);
  });
});

/** Renames a property (and its `required` entry) in every object schema below `node` that `where` accepts. */
function renameProperty(node: any, from: string, to: string, where: (object: any) => boolean): void {
  if (Array.isArray(node)) return node.forEach((child) => renameProperty(child, from, to, where));
  if (typeof node !== "object" || node === null) return;
  if (node.properties && Object.hasOwn(node.properties, from) && where(node)) {
    node.properties[to] = node.properties[from];
    delete node.properties[from];
    node.required = node.required?.map((name: string) => (name === from ? to : name));
  }
  for (const child of Object.values(node)) renameProperty(child, from, to, where);
}
