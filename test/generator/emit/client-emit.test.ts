import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { STRICT_COMPILER_OPTIONS } from "../../support/typescript.js";
import { clientFeatures } from "../../../generator/analyze/protocol/client-features.js";
import { checkConfig, generate, loadSet, readConfigFile, resolveConfig, type SchemaSetConfig } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";
import { writeGeneratedSources } from "../../support/generated-modules.js";

/**
 * How `client.ts` is emitted: what it offers comes from the schema (never from the set's name),
 * the allOf mode does not change it, it is byte-stable, and a schema with fewer task methods
 * gets a smaller client that still compiles under the strict settings.
 */

const CONFIG = readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json"));
const setConfig = (name: string) => CONFIG.sets.find((s) => s.name === name)!;
const CORE_URL = Object.keys(setConfig("tasks-2025-11-25").remotes)[0]!;
/** A set's `bindings` as the repository config writes them (they belong with its schema, whatever the set is called). */
const bindingsOf = (name: string): Pick<SchemaSetConfig, "bindings"> => {
  const written = checkConfig(JSON.parse(readFileSync(join(projectRoot, "mcp-tasks-gen.config.json"), "utf8")), "mcp-tasks-gen.config.json");
  const bindings = written.sets.find((s) => s.name === name)?.bindings;
  return bindings ? { bindings } : {};
};
const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-client-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The generated files of each set, by set name and file name. */
async function generateSets(sets: readonly SchemaSetConfig[]): Promise<Map<string, Map<string, string>>> {
  const { sets: generated } = await generate(resolveConfig({ outDir: join(work, "out"), sets }, projectRoot));
  return new Map(generated.map((set) => [set.name, new Map(set.files.map((f) => [f.name, f.contents]))]));
}

/** A file without its header comment lines (which name the options and sources). */
const body = (contents: string | undefined) => contents?.replace(/^(\/\/.*\n)+/, "");

const committed = (set: string) => readFileSync(join(projectRoot, "generated", set, "client.ts"), "utf8");

function typeCheck(files: ReadonlyMap<string, string>, extra: ts.CompilerOptions = {}): string[] {
  const dir = mkdtempSync(join(work, "check-"));
  writeGeneratedSources(files, join(dir, "set"));
  const program = ts.createProgram({
    rootNames: [...files.keys()].map((name) => join(dir, "set", name)),
    options: { ...STRICT_COMPILER_OPTIONS, skipLibCheck: false, lib: ["lib.es2022.d.ts"], noEmit: true, ...extra },
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("client.ts emission", () => {
  it("is emitted for the Tasks sets and not for the elicitation set", async () => {
    const sets = await generateSets(CONFIG.sets.map((s) => ({ name: s.name, schemas: s.schemas, remotes: s.remotes })));
    expect(sets.get("tasks-2025-11-25")?.has("client.ts")).toBe(true);
    expect(sets.get("ext-tasks-2026-05-22")?.has("client.ts")).toBe(true);
    expect(sets.get("elicitation-codex")?.has("client.ts")).toBe(false);
    expect(sets.get("ext-tasks-2026-05-22")?.get("index.ts")).toContain('export * from "./client.js";');
  });

  it("takes the revision from the schema, not from the set's name", async () => {
    // Each schema generated under the other's name (with its own core schema) gives the client its own schema implies.
    const swapped = await generateSets([
      { name: "ext-tasks-2026-05-22", schemas: setConfig("tasks-2025-11-25").schemas, remotes: setConfig("tasks-2025-11-25").remotes, core: { schema: "schemas/mcp-2025-11-25.schema.json" } },
      { name: "tasks-2025-11-25", schemas: setConfig("ext-tasks-2026-05-22").schemas, ...bindingsOf("ext-tasks-2026-05-22") },
    ]);
    expect(body(swapped.get("ext-tasks-2026-05-22")?.get("client.ts"))).toBe(body(committed("tasks-2025-11-25")));
    expect(body(swapped.get("tasks-2025-11-25")?.get("client.ts"))).toBe(body(committed("ext-tasks-2026-05-22")));
  });

  it("is the same client in merged allOf mode (its _meta handling does not depend on the mode)", async () => {
    const merged = await generateSets([{ name: "ext-tasks-2026-05-22", schemas: setConfig("ext-tasks-2026-05-22").schemas, ...bindingsOf("ext-tasks-2026-05-22"), allOf: "merged" }]);
    const files = merged.get("ext-tasks-2026-05-22")!;
    expect(body(files.get("client.ts"))).toBe(body(committed("ext-tasks-2026-05-22")));
    // ...while the validators do differ: merged mode accepts _meta beside the task.
    expect(body(files.get("validators.ts"))).not.toBe(body(readFileSync(join(projectRoot, "generated/ext-tasks-2026-05-22/validators.ts"), "utf8")));
    expect(typeCheck(files)).toEqual([]);
  });

  it("is byte-identical from run to run", async () => {
    const sets = [{ name: "ext-tasks-2026-05-22", schemas: setConfig("ext-tasks-2026-05-22").schemas, ...bindingsOf("ext-tasks-2026-05-22") }];
    const first = await generateSets(sets);
    const second = await generateSets(sets);
    expect(second.get("ext-tasks-2026-05-22")?.get("client.ts")).toBe(first.get("ext-tasks-2026-05-22")?.get("client.ts"));
    expect(first.get("ext-tasks-2026-05-22")?.get("client.ts")).toBe(committed("ext-tasks-2026-05-22"));
  });

  it("a 2025-11-25 schema without tasks/list and tasks/cancel gets a client without them, which still compiles", async () => {
    const schema = JSON.parse(readFileSync(setConfig("tasks-2025-11-25").schemas[0]!, "utf8")) as { $defs: Record<string, unknown> };
    for (const name of ["ListTasksRequest", "ListTasksResult", "CancelTaskRequest", "CancelTaskResult"]) delete schema.$defs[name];
    const file = join(work, "tasks-without-list.schema.json");
    writeFileSync(file, JSON.stringify(schema));
    const sets = await generateSets([{ name: "smaller", schemas: [file], remotes: { [CORE_URL]: setConfig("tasks-2025-11-25").remotes[CORE_URL]! } }]);
    const files = sets.get("smaller")!;
    const client = files.get("client.ts")!;
    expect(client).toContain("getTask(params: GetTaskRequestParams");
    expect(client).toContain("getTaskPayload(");
    expect(client).not.toMatch(/listTasks|allTasks|cancelTask|tasks\/cancel"/);
    expect(typeCheck(files)).toEqual([]);
  });
});

describe("client.ts over client-engine.ts: each part the schema decides still compiles", () => {
  it("input requests not bound to their methods: untyped handlers by method name", async () => {
    const ext = setConfig("ext-tasks-2026-05-22");
    const sets = await generateSets([{ name: "untyped", schemas: ext.schemas, remotes: ext.remotes }]);
    const files = sets.get("untyped")!;
    expect(files.get("client.ts")).toContain("readonly [method: string]: InputHandler | undefined;");
    expect(files.get("client.ts")).not.toContain("routing:");
    // Unused imports count too: the template imports only what this client uses.
    expect(typeCheck(files, { noUnusedLocals: true })).toEqual([]);
  });
});

describe("client features read from the model", () => {
  const features = (name: string) => clientFeatures(loadSet(setConfig(name), CONFIG.rootDir).model)!;

  it("ext-tasks: results tagged with resultType, _meta checked apart where the schema closes the task", () => {
    const f = features("ext-tasks-2026-05-22");
    expect(f.resultTag).toBe("apart");
    const apart = Object.fromEntries(f.routes.map((r) => [r.result, r.resultCheck.metaApart ?? null]));
    expect(apart).toEqual({
      CancelTaskResult: null,
      GetTaskResult: { kind: "validator", name: "validateResultMeta", type: "ResultMeta" },
      UpdateTaskResult: null,
    });
    expect(f.createResult.metaApart).toEqual({ kind: "validator", name: "validateResultMeta", type: "ResultMeta" });
    expect(f.notification).toMatchObject({ method: "notifications/tasks", detailed: true, metaApart: { kind: "object" } });
    expect(f.augment).toBeUndefined();
    expect(f.taskSupport).toBeUndefined();
  });

  it("ext-tasks-draft (2026-08-21): resultType read from the schema's own constants; its open intersections need no _meta apart", () => {
    const f = features("ext-tasks-draft");
    expect(f.server.flatCreate).toBe(true);
    expect(f.resultTag).toBe("modeled");
    expect(f.routes.map((r) => [r.result, r.resultCheck.metaApart ?? null])).toEqual([
      ["CancelTaskResult", null],
      ["GetTaskResult", null],
      ["UpdateTaskResult", null],
    ]);
    expect(f.createResult.metaApart).toBeUndefined();
    expect(f.notification).toMatchObject({ method: "notifications/tasks", detailed: true });
    expect(f.notification?.metaApart).toBeUndefined();
  });

  it("2025-11-25: no tag, nothing apart, task augmentation and per-tool taskSupport", () => {
    const f = features("tasks-2025-11-25");
    expect(f.resultTag).toBe("none");
    expect(f.routes.every((r) => r.resultCheck.metaApart === undefined)).toBe(true);
    expect(f.notification).toMatchObject({ method: "notifications/tasks/status", detailed: false });
    expect(f.notification?.metaApart).toBeUndefined();
    expect(f.augment).toEqual({ field: "task", type: "TaskMetadata", validate: "validateTaskMetadata" });
    expect(f.taskSupport).toEqual({ type: "ToolTaskSupport" });
    expect(f.listFields).toEqual({ items: "tasks", nextCursor: "nextCursor" });
  });
});
