import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { consumerJavaScript, consumerTypeScript, EXPECTED_SUMMARY, runnerScript, type ConsumerStyle } from "../support/consumer.js";
import { projectRoot } from "../support/paths.js";

/**
 * The generated sets in every kind of host project (README › Module formats): `init` in the project
 * (which picks the file extension from its package.json), generation, the project's own strict
 * `tsc` over the generated code and an app that uses it, then the compiled output run under `node`:
 * validators, status helpers and a client ↔ server task round trip (test/support/consumer.ts).
 *
 * - ESM (`"type": "module"`, NodeNext, verbatimModuleSyntax): `.ts` files.
 * - CommonJS as `npm init -y` leaves it (`"type": "commonjs"`), NodeNext, with verbatimModuleSyntax:
 *   `.mts` files, reached with `import x = require(...)` (require of an ES module: Node 20.19+).
 * - The same CommonJS project without verbatimModuleSyntax: ES import syntax, which tsc compiles to `require`.
 * - A bundler project (`moduleResolution: "Bundler"`, `module: "ESNext"`).
 * - A CommonJS project without a TypeScript build (`--emit js`): `.mjs` + `.d.mts`.
 *
 * The tool runs from this repository's build (dist/) and the hosts use its TypeScript; the packed
 * package in fresh installs is test/package/consumer-e2e.test.ts's job.
 */

const CLI = join(projectRoot, "dist", "generator", "cli", "main.js");
const TSC = join(projectRoot, "node_modules", "typescript", "bin", "tsc");
const STEP_TIMEOUT = 120_000;

/** The strict settings README promises generated code compiles under, without the module settings. */
const STRICT = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  target: "ES2022",
  lib: ["ES2022"],
  types: [],
  skipLibCheck: false,
};

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function host(label: string, packageJson: object): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `mcp-tasks-gen-host-${label}-`)));
  temps.push(dir);
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(packageJson, null, 2)}\n`);
  return dir;
}

function run(command: string, args: readonly string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout: STEP_TIMEOUT });
  const transcript = `$ ${[command, ...args].join(" ")}\n${result.stdout}${result.stderr}${result.error ? String(result.error) : ""}`;
  return { ...result, transcript };
}

function expectOk(result: ReturnType<typeof run>): void {
  expect(result.status, result.transcript).toBe(0);
}

/** `init` (extension chosen by init unless given), generate, `--check --strict`; returns what init printed. */
function initAndGenerate(dir: string, initArgs: readonly string[] = []): string {
  const init = run(process.execPath, [CLI, "init", "--out", "src/generated", ...initArgs], dir);
  expectOk(init);
  expectOk(run(process.execPath, [CLI], dir));
  expectOk(run(process.execPath, [CLI, "--check", "--strict"], dir));
  return init.stdout;
}

function compileAndRun(dir: string, compilerOptions: object, runner: string): void {
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...STRICT, ...compilerOptions, rootDir: "src", outDir: "dist" }, include: ["src"] }, null, 2));
  expectOk(run(process.execPath, [TSC, "-p", "tsconfig.json"], dir));
  writeFileSync(join(dir, "main.mjs"), runner);
  const ran = run(process.execPath, ["main.mjs"], dir);
  expect(ran.stderr, ran.transcript).toBe("");
  expect(JSON.parse(ran.stdout)).toEqual(EXPECTED_SUMMARY);
}

function generatedFiles(dir: string, set = "ext-tasks-2026-05-22"): string[] {
  return readdirSync(join(dir, "src", "generated", set)).filter((f) => !f.startsWith(".")).sort();
}

const NODE_NEXT = { module: "NodeNext", moduleResolution: "NodeNext" };

describe("module formats: the generated sets compile and run in every kind of host", () => {
  it(
    "an ES module project gets .ts files and imports them as .js",
    () => {
      const dir = host("esm", { name: "esm-app", type: "module" });
      initAndGenerate(dir);
      expect(generatedFiles(dir)).toContain("index.ts");
      writeFileSync(join(dir, "src", "app.ts"), consumerTypeScript("./generated"));
      compileAndRun(dir, { ...NODE_NEXT, verbatimModuleSyntax: true }, runnerScript("./dist/app.js"));
    },
    STEP_TIMEOUT * 3,
  );

  it(
    "a CommonJS project as npm init leaves it, under verbatimModuleSyntax: init picks .mts, the app requires them",
    () => {
      const dir = host("cjs-verbatim", { name: "cjs-app", version: "1.0.0", main: "index.js", type: "commonjs" });
      expect(initAndGenerate(dir)).toContain('"extension": ".mts": package.json says "type": "commonjs"');
      const files = generatedFiles(dir);
      expect(files).toContain("index.mts");
      expect(files.filter((f) => f.endsWith(".ts"))).toEqual([]);
      const style: ConsumerStyle = { host: "commonjs-verbatim", extension: ".mjs" };
      writeFileSync(join(dir, "src", "app.ts"), consumerTypeScript("./generated", style));
      compileAndRun(dir, { ...NODE_NEXT, verbatimModuleSyntax: true }, runnerScript("./dist/app.js", { commonJs: true }));
    },
    STEP_TIMEOUT * 3,
  );

  it(
    "a CommonJS project without verbatimModuleSyntax (no \"type\" at all): the app's ES imports compile to require",
    () => {
      const dir = host("cjs", { name: "cjs-app", version: "1.0.0" });
      expect(initAndGenerate(dir)).toContain('"extension": ".mts": package.json has no "type"');
      writeFileSync(join(dir, "src", "app.ts"), consumerTypeScript("./generated", { host: "esm", extension: ".mjs" }));
      compileAndRun(dir, NODE_NEXT, runnerScript("./dist/app.js", { commonJs: true }));
    },
    STEP_TIMEOUT * 3,
  );

  it(
    "a bundler project (moduleResolution Bundler): .ts files, its compiled output runs",
    () => {
      const dir = host("bundler", { name: "bundler-app", type: "module" });
      initAndGenerate(dir);
      writeFileSync(join(dir, "src", "app.ts"), consumerTypeScript("./generated"));
      compileAndRun(dir, { module: "ESNext", moduleResolution: "Bundler", verbatimModuleSyntax: true }, runnerScript("./dist/app.js"));
    },
    STEP_TIMEOUT * 3,
  );

  it(
    "a CommonJS project without a build step (--emit js): .mjs with .d.mts, no package.json in the set folder",
    () => {
      const dir = host("cjs-js", { name: "cjs-js-app", version: "1.0.0", type: "commonjs" });
      initAndGenerate(dir, ["--emit", "js"]);
      const files = generatedFiles(dir);
      expect(files).toEqual(expect.arrayContaining(["index.mjs", "index.d.mts", "validators.mjs", "validators.d.mts", "types.d.mts"]));
      expect(files.filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith(".d.mts"))).toEqual([]);
      expect(files).not.toContain("package.json");
      mkdirSync(join(dir, "app"));
      writeFileSync(join(dir, "app", "app.mjs"), consumerJavaScript("../src/generated").replaceAll("/index.js", "/index.mjs"));
      writeFileSync(join(dir, "main.mjs"), runnerScript("./app/app.mjs"));
      const ran = run(process.execPath, ["main.mjs"], dir);
      expect(ran.stderr, ran.transcript).toBe("");
      expect(JSON.parse(ran.stdout)).toEqual(EXPECTED_SUMMARY);
      // The declarations type the same consumer (in a .mts file, the way a CommonJS project writes ESM).
      writeFileSync(join(dir, "app", "consumer.mts"), consumerTypeScript("../src/generated", { host: "esm", extension: ".mjs" }));
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...STRICT, ...NODE_NEXT, verbatimModuleSyntax: true, noEmit: true }, files: ["app/consumer.mts"] }, null, 2));
      expectOk(run(process.execPath, [TSC, "-p", "tsconfig.json"], dir));
    },
    STEP_TIMEOUT * 3,
  );
});
