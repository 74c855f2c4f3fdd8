import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Project, ts } from "ts-morph";
import { describe, expect, it } from "vitest";
import { STRICT_COMPILER_OPTIONS } from "../../support/typescript.js";
import { generate, generateFromMemory, readConfigFile } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";

/**
 * The server stub follows the schema, not the set's name: the two Tasks revisions get the
 * behaviour their shapes imply, and editing a schema changes the server accordingly.
 */

const { sets } = await generate(readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json")));
const serverOf = (name: string) => sets.find((s) => s.name === name)?.files.find((f) => f.name === "server.ts")?.contents;

const EXT_SCHEMA = JSON.parse(readFileSync(join(projectRoot, "schemas/ext-tasks-draft.schema.json"), "utf8"));

/** Generates the ext-tasks schema after `edit` changed its `$defs`; returns server.ts, or undefined when none was emitted. */
async function extServerAfter(edit: (defs: Record<string, any>) => void): Promise<string | undefined> {
  const schema = structuredClone(EXT_SCHEMA);
  edit(schema.$defs);
  const uri = "https://example.test/ext.json";
  const { files } = await generateFromMemory({
    documents: [{ uri, json: schema }],
    roots: Object.keys(schema.$defs).map((name) => ({ name, uri: `${uri}#/$defs/${name}` })),
    format: false,
  });
  return files.find((f) => f.name === "server.ts")?.contents;
}

/** The methods a generated server answers, read from its TASK_METHODS constant. */
function methodsOf(server: string): string[] {
  const list = /export const TASK_METHODS = \[([^\]]*)\]/.exec(server)?.[1] ?? "";
  return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

describe("server.ts per set", () => {
  it("is emitted for the Tasks sets only, importing nothing from outside its folder", () => {
    expect(serverOf("elicitation-codex")).toBeUndefined();
    for (const name of ["tasks-2025-11-25", "ext-tasks-draft"]) {
      const server = serverOf(name)!;
      const imports = [...server.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
      expect(imports.length).toBeGreaterThan(0);
      for (const specifier of imports) expect(specifier).toMatch(/^\.\/[a-z-]+\.js$/);
      // Export from index.ts, like the set's other modules.
      expect(sets.find((s) => s.name === name)!.files.find((f) => f.name === "index.ts")!.contents).toContain('export * from "./server.js";');
    }
  });

  it("routes the methods of each revision's method table", () => {
    expect(methodsOf(serverOf("tasks-2025-11-25")!)).toEqual(["tasks/get", "tasks/result", "tasks/cancel", "tasks/list"]);
    expect(methodsOf(serverOf("ext-tasks-draft")!)).toEqual(["tasks/cancel", "tasks/get", "tasks/update"]);
  });

  it("compiles under strict settings without DOM or Node typings", () => {
    for (const name of ["tasks-2025-11-25", "ext-tasks-draft"]) {
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
      for (const file of sets.find((s) => s.name === name)!.files) project.createSourceFile(`/${name}/${file.name}`, file.contents);
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
  });

  it("without an extension capability: no per-request -32021 gate and no routing-header check", async () => {
    const server = await extServerAfter((defs) => delete defs.TasksExtensionCapability);
    expect(server).not.toContain("hasTasksExtension");
    expect(server).not.toContain("-32021");
    expect(server).not.toContain("checkRoutingHeaders");
    // Everything else stays: results still carry resultType because CreateTaskResult is flat.
    expect(server).toContain('resultType: "task"');
  });

  it("a cancel result that carries the task: cancel answers it, and a finished task is an error", async () => {
    const server = await extServerAfter((defs) => {
      defs.CancelTaskResult = structuredClone(defs.CreateTaskResult);
    });
    expect(server).toContain("Cannot cancel a task that is already");
    expect(server).toMatch(/return \{ resultType: "complete", \.\.\.toTask\(change\.after\) \}/);
  });

  it("renamed fields are used as the schema names them", async () => {
    const server = await extServerAfter((defs) => {
      renameProperty(defs, "ttlMs", "ttlMillis", () => true);
      renameProperty(defs, "result", "payload", (object) => object.properties?.status?.const === "completed");
    });
    expect(server).not.toContain("ttlMs");
    expect(server).toContain("ttlMillis: task.ttl");
    expect(server).toContain('payload: stored(task.result, "result")');
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
