import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Project, ts } from "ts-morph";
import { afterAll, describe, expect, it } from "vitest";
import { STRICT_COMPILER_OPTIONS } from "../../support/typescript.js";
import { generate, readConfigFile, type GeneratedSet } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";
import { writeGeneratedSources } from "../../support/generated-modules.js";

/**
 * The generated `status.ts` of both Tasks sets: run for real (the set's files written to a temp
 * folder and imported), and type-checked with probe files, against the status machine of the
 * design: working ↔ input_required; either → completed | failed | cancelled; those three are final.
 */

const { sets } = await generate(readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json")));
const TASK_SETS = ["tasks-2025-11-25", "ext-tasks-draft", "ext-tasks-2026-05-22"] as const;

const STATUSES = ["working", "input_required", "completed", "failed", "cancelled"] as const;
type Status = (typeof STATUSES)[number];
const TERMINAL: readonly Status[] = ["completed", "failed", "cancelled"];

/** Written from the design, independently of the generator: ALLOWED[from] lists every legal `to`. */
const ALLOWED: Record<Status, readonly Status[]> = {
  working: ["input_required", "completed", "failed", "cancelled"],
  input_required: ["working", "completed", "failed", "cancelled"],
  completed: [],
  failed: [],
  cancelled: [],
};
const ALL_PAIRS = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const));

/** What the generated status module is expected to export at runtime (loosely typed: it is checked, not trusted). */
interface StatusModule {
  TASK_STATUSES: readonly string[];
  TERMINAL_STATUSES: readonly string[];
  isTaskStatus(value: unknown): boolean;
  isTerminalStatus(status: string): boolean;
  canTransition(from: string, to: string): boolean;
  hasStatus(task: object, ...statuses: string[]): boolean;
  isTerminalTask(task: object): boolean;
  matchStatus<R>(task: object, handlers: Record<string, (task: object) => R>): R;
}

const generatedSet = (name: string): GeneratedSet => {
  const set = sets.find((s) => s.name === name);
  if (!set) throw new Error(`the generator produced no set named ${name}`);
  return set;
};

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** Writes a set's files to a fresh temp folder (an ESM package) and imports its index.ts, as a user would. */
async function importSet(name: string): Promise<StatusModule> {
  const dir = mkdtempSync(join(tmpdir(), `mcp-tasks-gen-status-${name}-`));
  tempDirs.push(dir);
  writeGeneratedSources(generatedSet(name).files, dir);
  // vitest resolves the generated `./status.js` specifiers to the .ts files beside them.
  return (await import(join(dir, "index.ts"))) as StatusModule;
}

/** A minimal task of each status, shaped as the set's Task expects (the helpers only read `status`). */
function taskWith(status: Status): { taskId: string; status: Status } {
  return { taskId: `task-${status}`, status };
}

describe("the status machine table of this test", () => {
  it("is the design's: 8 legal moves of 25, only from the two active statuses", () => {
    // A check on the oracle itself, so a typo in ALLOWED cannot make every set look right.
    expect(ALL_PAIRS).toHaveLength(25);
    expect(ALL_PAIRS.filter(([from, to]) => ALLOWED[from].includes(to))).toHaveLength(8);
    for (const s of TERMINAL) expect(ALLOWED[s]).toEqual([]);
  });
});

describe.each(TASK_SETS)("%s status.ts at runtime", (name) => {
  // Imported on first use, inside a test, so an import failure fails tests instead of collection.
  let loaded: Promise<StatusModule> | undefined;
  const load = () => (loaded ??= importSet(name));

  it("is generated for this set (and not for elicitation-codex, which has no tasks)", () => {
    expect(generatedSet(name).files.map((f) => f.name)).toContain("status.ts");
    expect(generatedSet("elicitation-codex").files.map((f) => f.name)).not.toContain("status.ts");
  });

  it("lists every status once, and exactly the three final ones as terminal", async () => {
    const { TASK_STATUSES, TERMINAL_STATUSES } = await load();
    expect([...TASK_STATUSES].sort()).toEqual([...STATUSES].sort());
    expect([...TERMINAL_STATUSES].sort()).toEqual([...TERMINAL].sort());
  });

  it("isTaskStatus accepts the five statuses and nothing else", async () => {
    const { isTaskStatus } = await load();
    for (const s of STATUSES) expect(isTaskStatus(s), s).toBe(true);
    for (const v of ["done", "", "Working", "working ", "input-required", "terminal", null, undefined, 0, {}, ["working"], new String("working")]) {
      expect(isTaskStatus(v), String(v)).toBe(false);
    }
  });

  it("isTerminalStatus is true exactly for completed, failed, cancelled", async () => {
    const { isTerminalStatus } = await load();
    for (const s of STATUSES) expect(isTerminalStatus(s), s).toBe(TERMINAL.includes(s));
  });

  it.each(ALL_PAIRS)("canTransition(%s → %s) follows the design", async (from, to) => {
    expect((await load()).canTransition(from, to)).toBe(ALLOWED[from].includes(to));
  });

  it("hasStatus is true when the task's status is among the given ones", async () => {
    const { hasStatus } = await load();
    for (const s of STATUSES) {
      expect(hasStatus(taskWith(s), s), s).toBe(true);
      expect(hasStatus(taskWith(s), ...STATUSES.filter((o) => o !== s)), `not ${s}`).toBe(false);
    }
    expect(hasStatus(taskWith("failed"), "completed", "failed")).toBe(true);
    expect(hasStatus(taskWith("failed"))).toBe(false);
  });

  it("isTerminalTask follows the task's status", async () => {
    const { isTerminalTask } = await load();
    for (const s of STATUSES) expect(isTerminalTask(taskWith(s)), s).toBe(TERMINAL.includes(s));
  });

  it("matchStatus calls the handler of the task's status, with the task, and returns its result", async () => {
    const { matchStatus } = await load();
    for (const s of STATUSES) {
      const calls: [Status, object][] = [];
      const handlers = Object.fromEntries(STATUSES.map((h) => [h, (task: object) => (calls.push([h, task]), `handled ${h}`)]));
      const task = taskWith(s);
      expect(matchStatus(task, handlers)).toBe(`handled ${s}`);
      expect(calls).toHaveLength(1);
      expect(calls[0]![0]).toBe(s);
      expect(calls[0]![1]).toBe(task);
    }
  });
});

/** Compiles probe files beside a set's generated files, in memory, under the project's strict settings. */
function prober(name: string): (code: string) => string[] {
  const project = new Project({
    useInMemoryFileSystem: true,
    compilerOptions: STRICT_COMPILER_OPTIONS,
  });
  project.createSourceFile("/package.json", '{ "type": "module" }');
  for (const file of generatedSet(name).files) project.createSourceFile(`/set/${file.name}`, file.contents);
  return (code) => {
    const probe = project.createSourceFile("/set/probe.ts", code, { overwrite: true });
    try {
      return probe.getPreEmitDiagnostics().map((d) => `TS${d.getCode()}: ${ts.flattenDiagnosticMessageText(d.compilerObject.messageText, " ")}`);
    } finally {
      project.removeSourceFile(probe);
    }
  };
}

/** The task type each set's helpers work on. */
const TASK_TYPE: Record<(typeof TASK_SETS)[number], string> = { "tasks-2025-11-25": "Task", "ext-tasks-draft": "DetailedTask", "ext-tasks-2026-05-22": "DetailedTask" };

describe.each(TASK_SETS)("%s status.ts at the type level", (name) => {
  let probeOf: ((code: string) => string[]) | undefined;
  const probe = (code: string) => (probeOf ??= prober(name))(code);
  const header = `import { hasStatus, matchStatus } from "./index.js";\nimport type { ${TASK_TYPE[name]} as T } from "./index.js";\ndeclare const task: T;\n`;
  const handlersWithout = (missing?: Status) =>
    STATUSES.filter((s) => s !== missing)
      .map((s) => `${s}: (t) => t.status`)
      .join(", ");

  it("matchStatus compiles with a handler for every status", () => {
    expect(probe(`${header}export const r: string = matchStatus(task, { ${handlersWithout()} });\n`)).toEqual([]);
  });

  it.each(STATUSES)("matchStatus without a %s handler fails to compile", (missing) => {
    const diagnostics = probe(`${header}export const r: string = matchStatus(task, { ${handlersWithout(missing)} });\n`);
    expect(diagnostics.join("\n")).toMatch(new RegExp(`TS2345: .*Property '${missing}' is missing`));
  });

  it("hasStatus narrows the status", () => {
    expect(probe(`${header}if (hasStatus(task, "failed")) { const s: "failed" = task.status; void s; }\n`)).toEqual([]);
    // Control: without the guard the same line does not compile.
    expect(probe(`${header}const s: "failed" = task.status; void s;\n`).join("\n")).toMatch(/TS2322: .*not assignable to type '"failed"'/);
  });
});

describe("ext-tasks-2026-05-22 status.ts: variants carry their status's fields", () => {
  let probeOf: ((code: string) => string[]) | undefined;
  const probe = (code: string) => (probeOf ??= prober("ext-tasks-2026-05-22"))(code);
  const imports = `import { hasStatus, type TaskWithStatus } from "./index.js";\nimport type { DetailedTask } from "./index.js";\n`;

  it('TaskWithStatus<"completed"> has a required result (and TaskWithStatus<"working"> has none)', () => {
    expect(probe(`${imports}export const f = (t: TaskWithStatus<"completed">): { [key: string]: unknown } => t.result;\n`)).toEqual([]);
    expect(probe(`${imports}export const f = (t: TaskWithStatus<"working">) => t.result;\n`).join("\n")).toMatch(/TS2339: Property 'result' does not exist/);
  });

  it('hasStatus(task, "failed") gives access to task.error', () => {
    const use = "const e: { [key: string]: unknown } = task.error; void e;";
    expect(probe(`${imports}declare const task: DetailedTask;\nif (hasStatus(task, "failed")) { ${use} }\n`)).toEqual([]);
    // Controls: unnarrowed, or narrowed to another status, `error` is not there.
    const noError = /TS2339: Property 'error' does not exist/;
    expect(probe(`${imports}declare const task: DetailedTask;\n${use}\n`).join("\n")).toMatch(noError);
    expect(probe(`${imports}declare const task: DetailedTask;\nif (hasStatus(task, "completed")) { ${use} }\n`).join("\n")).toMatch(noError);
  });
});
