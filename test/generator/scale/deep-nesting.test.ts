import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFromMemory } from "../../../generator/index.js";
import { MAIN_THREAD_JSON_DEPTH } from "../../../generator/cli/main.js";
import { nestingDepth } from "../../../generator/load/json-text.js";
import { MAX_NESTING_LEVELS } from "../../../generator/load/registry.js";
import { projectRoot } from "../../support/paths.js";
import { STRICT_COMPILER_OPTIONS } from "../../support/typescript.js";

/**
 * Deeply nested schemas: 500 levels of `properties`, `items` and `anyOf` generate
 * (exit 0), compile under the strict flag set and validate as ajv does, with output and names that
 * grow linearly with depth; past MAX_NESTING_LEVELS, a located error (exit 2, nothing written),
 * never a crash. The built bin runs in a child process, as a user runs it: the CLI gives itself the
 * stack deep schemas need (a vitest worker's stack is Node's default).
 */

const BIN = join(projectRoot, "dist", "generator", "cli", "main.js");
type Kind = "properties" | "items" | "anyOf";

/**
 * `Root` nested `depth` levels deep, ending in a string. properties: an object whose required `a`
 * is the next level (and an optional integer `n`); items: an array of the next level; anyOf: the
 * next level or the constant `i` (one per level).
 */
function deepSchema(kind: Kind, depth: number): object {
  let node: object = { type: "string" };
  for (let i = depth - 1; i >= 0; i--) {
    if (kind === "properties") node = { type: "object", properties: { a: node, n: { type: "integer" } }, required: ["a"] };
    else if (kind === "items") node = { type: "array", items: node };
    else node = { anyOf: [node, { const: i }] };
  }
  return { $schema: "http://json-schema.org/draft-07/schema#", definitions: { Root: node } };
}

/** A valid value for deepSchema(kind, depth); `leaf` replaces its innermost string. */
function deepValue(kind: Kind, depth: number, leaf: unknown = "leaf"): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) {
    if (kind === "properties") value = { a: value, n: i };
    else if (kind === "items") value = [value];
  }
  return value;
}

const temps: string[] = [];
afterAll(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

interface Run {
  code: number | null;
  stderr: string;
  out: string;
}

const runs = new Map<string, Run>();

/** Generates deepSchema(kind, depth) with the built bin, ad hoc, into a fresh folder (once per kind and depth). */
function generateDeep(kind: Kind, depth: number): Run {
  const key = `${kind} ${depth}`;
  if (!runs.has(key)) runs.set(key, runBin(kind, depth));
  return runs.get(key)!;
}

function runBin(kind: Kind, depth: number): Run {
  const dir = mkdtempSync(join(tmpdir(), `mcp-tasks-gen-deep-${kind}-`));
  temps.push(dir);
  writeFileSync(join(dir, "deep.json"), JSON.stringify(deepSchema(kind, depth)));
  const result = spawnSync(process.execPath, [BIN, "--schema", "deep.json", "--out", "out"], { cwd: dir, encoding: "utf8", timeout: 120_000 });
  if (result.error) throw result.error;
  return { code: result.status, stderr: result.stderr, out: join(dir, "out") };
}

/** Bytes of the files that depend on the schema (runtime.ts and index.ts are the same at any depth). */
function bytesOf(folder: string): number {
  return ["types.ts", "validators.ts"].reduce((sum, name) => sum + statSync(join(folder, name)).size, 0);
}

/** Diagnostics of type-checking a generated folder under the strict set and unused-code checks. */
function typeCheck(folder: string): string[] {
  writeFileSync(join(folder, "package.json"), JSON.stringify({ type: "module" }));
  const files = readdirSync(folder).filter((f) => f.endsWith(".ts")).map((f) => join(folder, f));
  const options = { ...STRICT_COMPILER_OPTIONS, noUnusedLocals: true, noUnusedParameters: true, lib: ["lib.es2022.d.ts"], noEmit: true };
  const program = ts.createProgram(files, options);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

interface Validators {
  isRoot(value: unknown): boolean;
  validateRoot(value: unknown): { ok: boolean; errors?: { path: string }[] };
}

/** The generated validators, transpiled to JavaScript beside the TypeScript and imported. */
async function importValidators(folder: string): Promise<Validators> {
  for (const name of ["runtime/protocol/json", "validators"]) {
    const source = readFileSync(join(folder, `${name}.ts`), "utf8");
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true } });
    writeFileSync(join(folder, `${name}.js`), js.outputText);
  }
  return (await import(pathToFileURL(join(folder, "validators.js")).href)) as Validators;
}

/**
 * ajv's verdicts (and first error's instance path) on `values`. ajv compiles nested schemas into
 * nested code, which overflows a default stack at a few hundred levels: it runs in a worker thread
 * with a large one.
 */
function ajvVerdicts(schema: object, values: readonly unknown[]): Promise<{ valid: boolean; path?: string }[]> {
  const ajvPath = createRequire(import.meta.url).resolve("ajv");
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const Ajv = require(${JSON.stringify(ajvPath)}).default;
    const ajv = new Ajv({ strict: false });
    ajv.addSchema(workerData.schema, "deep");
    const validate = ajv.getSchema("deep#/definitions/Root");
    parentPort.postMessage(workerData.values.map((v) => validate(v) ? { valid: true } : { valid: false, path: validate.errors[0].instancePath }));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { schema, values }, resourceLimits: { stackSizeMb: 256 } });
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}

beforeAll(() => {
  // The bin must be built from the current sources (npm test builds first; a lone run may not have).
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  const stale = walk(join(projectRoot, "generator")).some((source) => {
    const compiled = join(projectRoot, "dist", relative(projectRoot, source)).replace(/\.ts$/, ".js");
    return source.endsWith(".ts") && (!existsSync(compiled) || statSync(compiled).mtimeMs < statSync(source).mtimeMs);
  });
  if (!stale) return;
  const tsc = join(projectRoot, "node_modules", "typescript", "bin", "tsc");
  const build = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: projectRoot, encoding: "utf8" });
  expect(build.status, `build failed:\n${build.stdout}${build.stderr}`).toBe(0);
}, 120_000);

describe.each(["properties", "items", "anyOf"] as const)("%s nested 500 levels deep", (kind) => {
  const DEPTH = 500;
  let run: Run;
  beforeAll(() => {
    run = generateDeep(kind, DEPTH);
  }, 120_000);

  it("generates (exit 0, no error)", () => {
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });

  it("compiles under the strict flag set with noUnusedLocals and noUnusedParameters", () => {
    expect(typeCheck(run.out)).toEqual([]);
  }, 120_000);

  it("validates as ajv does, down to the innermost level", async () => {
    const validators = await importValidators(run.out);
    const values = [
      deepValue(kind, DEPTH),
      deepValue(kind, DEPTH, 42), // a number where the innermost string belongs (an anyOf constant takes it)
      deepValue(kind, DEPTH - 1, 7), // one level short: valid only where a constant stands for the rest
      deepValue(kind, DEPTH, null),
      kind === "anyOf" ? 250 : { a: 1 },
    ];
    const expected = await ajvVerdicts(deepSchema(kind, DEPTH), values);
    expect(expected.some((v) => v.valid) && expected.some((v) => !v.valid), "the values include valid and invalid ones").toBe(true);
    values.forEach((value, i) => {
      expect(validators.isRoot(value), `value ${i}`).toBe(expected[i]!.valid);
      const result = validators.validateRoot(value);
      expect(result.ok, `value ${i}`).toBe(expected[i]!.valid);
      // The innermost error is reported at the innermost path (ajv reports a single anyOf error at the top).
      if (!result.ok && kind !== "anyOf") expect(result.errors!.map((e) => e.path)).toContain(expected[i]!.path);
    });
  }, 120_000);
});

describe("output grows linearly with depth", () => {
  // Growth, not size: the bytes added from depth 200 to 400 against those added from 100 to 200
  // (2 when linear, 4 when quadratic), so the part of the output that does not depend on depth
  // (the definition's own is/validate/parse, shared helpers) does not bend the ratio.
  it.each(["properties", "items", "anyOf"] as const)("%s: bytes added from depth 200 to 400 / from 100 to 200 is about 2", (kind) => {
    const [shallowest, shallow, deep] = [generateDeep(kind, 100), generateDeep(kind, 200), generateDeep(kind, 400)];
    expect([shallowest.code, shallow.code, deep.code]).toEqual([0, 0, 0]);
    const ratio = (bytesOf(deep.out) - bytesOf(shallow.out)) / (bytesOf(shallow.out) - bytesOf(shallowest.out));
    expect(ratio).toBeGreaterThan(1.85);
    expect(ratio).toBeLessThan(2.15);
  }, 120_000);

  it("names of nested anonymous objects stay short at depth 500", () => {
    const run = generateDeep("properties", 500);
    expect(run.code).toBe(0);
    const names = [...readFileSync(join(run.out, "types.ts"), "utf8").matchAll(/^export interface (\w+)/gm)].map((m) => m[1]!);
    expect(names).toHaveLength(500); // Root and one per nested object
    expect(new Set(names).size).toBe(names.length);
    // The first levels spell out their path; deeper ones name the definition, the last two places and the level.
    expect(names.slice(0, 6)).toEqual(["Root", "RootA", "RootAA", "RootAAA", "RootAAAA", "RootAALevel5"]);
    expect(Math.max(...names.map((n) => n.length))).toBeLessThanOrEqual("RootAALevel499".length);
  }, 120_000);
});

describe("names of nested anonymous objects", () => {
  it("spell out the path up to four levels deep, then take the definition's name and the last two places", async () => {
    let node: object = { type: "object", properties: { size: { type: "integer" } } };
    for (const place of ["key", "primary", "certificates", "tls", "server"]) node = { type: "object", properties: { [place]: node } };
    const uri = "file:///virtual/config.json";
    const json = { definitions: { Config: node } };
    const { model } = await generateFromMemory({ documents: [{ uri, json }], roots: [{ name: "Config", uri: `${uri}#/definitions/Config` }], format: false });
    expect(model.definitions.map((d) => d.name)).toEqual([
      "Config",
      "ConfigServer",
      "ConfigServerTls",
      "ConfigServerTlsCertificates",
      "ConfigServerTlsCertificatesPrimary",
      "ConfigPrimaryKey",
    ]);
  });
});

describe(`the main thread's share (input nested up to ${MAIN_THREAD_JSON_DEPTH} levels of JSON)`, () => {
  // Deeper input moves to a thread with a large stack (cli/main.ts); the deepest input the bin
  // keeps on its main thread, with Node's default stack, must generate there.
  it.each(["properties", "items", "anyOf"] as const)("%s: the deepest schema kept on the main thread generates", (kind) => {
    let depth = 1;
    while (nestingDepth(JSON.stringify(deepSchema(kind, depth + 1))) <= MAIN_THREAD_JSON_DEPTH) depth++;
    expect(nestingDepth(JSON.stringify(deepSchema(kind, depth)))).toBeGreaterThan(MAIN_THREAD_JSON_DEPTH - 3);
    const run = generateDeep(kind, depth);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  }, 120_000);
});

describe(`nesting limit (${MAX_NESTING_LEVELS} levels)`, () => {
  it.each(["properties", "items"] as const)("%s: exactly at the limit generates", (kind) => {
    // Root is level 1 under `definitions`: depth LIMIT - 1 puts the innermost schema at the limit.
    const run = generateDeep(kind, MAX_NESTING_LEVELS - 1);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  }, 120_000);

  it.each(["properties", "items", "anyOf"] as const)("%s: one level deeper is a located error, exit 2, nothing written", (kind) => {
    const run = generateDeep(kind, MAX_NESTING_LEVELS);
    const step = { properties: "/properties/a", items: "/items", anyOf: "/anyOf/0" }[kind];
    expect(run.stderr).toBe(`deep.json#/definitions/Root${step.repeat(MAX_NESTING_LEVELS)}: nesting deeper than ${MAX_NESTING_LEVELS} levels\n`);
    expect(run.code).toBe(2);
    expect(existsSync(run.out)).toBe(false);
  }, 120_000);
});
