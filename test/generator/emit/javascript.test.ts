import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { compareSets, generate, MANIFEST_FILE, readConfigFile, writeSets, type GeneratedSet, type ResolvedConfig } from "../../../generator/index.js";
import { BUNDLED_SET_NAMES } from "../../../generator/init/bundled.js";
import { formatTypeScript } from "../../../generator/output/format.js";
import { consumerJavaScript, consumerTypeScript, EXPECTED_SUMMARY, runnerScript } from "../../support/consumer.js";
import { STRICT_COMPILER_OPTIONS } from "../../support/typescript.js";
import { filesBelow } from "../../support/pack.js";

/**
 * `"emit": "js"` (`--emit js`): every set as JavaScript ES modules with `.d.ts` declarations, for
 * projects without a TypeScript build step. One generation of the bundled sets in both languages
 * (beforeAll) is read by every test: the files, their headers and formatting, determinism and
 * `--check`, plain `node` running validators and a client/server task round trip, and a strict
 * type-check of a consumer against the declarations.
 */

const CONFIG_NAME = "mcp-tasks-gen.config.json";

const temps: string[] = [];
function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `mcp-tasks-gen-js-${label}-`));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});


const run = runCli;

/** The config every test reads: the bundled sets, as JavaScript, into `out/`. */
const CONFIG = { outDir: "out", emit: "js", sets: BUNDLED_SET_NAMES.map((bundled) => ({ bundled })) };

let project: string;
let configPath: string;
let config: ResolvedConfig;
let jsSets: readonly GeneratedSet[];
let tsSets: readonly GeneratedSet[];

beforeAll(async () => {
  project = tempDir("project");
  // A project whose package.json leaves .js files CommonJS: the generated folders must say they are ES modules.
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  configPath = join(project, CONFIG_NAME);
  writeFileSync(configPath, JSON.stringify(CONFIG, null, 2));
  config = readConfigFile(configPath);
  jsSets = (await generate(config)).sets;
  writeSets(jsSets);
  tsSets = (await generate({ ...config, sets: config.sets.map(({ emit: _emit, ...set }) => ({ ...set, outDir: join(project, "ts", set.name) })) })).sets;
  writeSets(tsSets);
  writeFileSync(join(project, "ts", "package.json"), JSON.stringify({ type: "module" }));
}, 180_000);

const file = (set: GeneratedSet, name: string) => {
  const found = set.files.find((f) => f.name === name);
  if (!found) throw new Error(`${set.name} has no ${name} (${set.files.map((f) => f.name).join(", ")})`);
  return found.contents;
};
const header = (contents: string) => contents.slice(0, contents.indexOf("// Fingerprint: "));
const body = (contents: string) => contents.slice(contents.indexOf("\n\n", contents.indexOf("// Fingerprint: ")) + 2);
const codeFiles = (set: GeneratedSet) => set.files.filter((f) => f.name.endsWith(".js") || f.name.endsWith(".d.ts"));

describe("JavaScript output: files, headers, formatting", () => {
  it("each module becomes .js and .d.ts (types only: .d.ts), beside a package.json; no .ts is written", () => {
    expect(jsSets.map((s) => s.name)).toEqual(tsSets.map((s) => s.name));
    for (const [i, set] of jsSets.entries()) {
      const expected = tsSets[i]!.files.flatMap((f) => {
        const base = f.name.replace(/\.ts$/, "");
        return base === "types" ? [`${base}.d.ts`] : [`${base}.js`, `${base}.d.ts`];
      });
      expect(set.files.map((f) => f.name), set.name).toEqual([...expected, "package.json"]);
      expect(filesBelow(set.outDir).sort(), set.name).toEqual([...set.files.map((f) => f.name), MANIFEST_FILE].sort());
      expect(JSON.parse(file(set, "package.json"))).toMatchObject({ type: "module" });
    }
  });

  it("every file carries the TypeScript output's header, its options recording emit js", () => {
    for (const [i, set] of jsSets.entries()) {
      const tsHeader = header(tsSets[i]!.files[0]!.contents);
      const expected = tsHeader.replace(/^(\/\/ Options: \{.*)\}$/m, '$1,"emit":"js"}');
      expect(expected, "the TypeScript header records no emit").not.toBe(tsHeader);
      for (const f of codeFiles(set)) expect(header(f.contents), `${set.name}/${f.name}`).toBe(expected);
    }
  });

  it("is formatted by prettier with the generator's options (formatting again changes nothing)", async () => {
    for (const set of jsSets) {
      for (const f of codeFiles(set)) {
        const code = body(f.contents);
        expect(await formatTypeScript(code), `${set.name}/${f.name}`).toBe(code);
        expect(code, `${set.name}/${f.name}`).not.toContain("mcp-tasks-gen:blank-line");
      }
    }
  });

  it("keeps each module's documentation comment and the blank lines between declarations", () => {
    for (const [i, set] of jsSets.entries()) {
      for (const tsFile of tsSets[i]!.files) {
        const source = body(tsFile.contents);
        const doc = moduleComment(source);
        const blankBefore = declarationsAfterBlankLine(source);
        for (const f of codeFiles(set).filter((c) => c.name.replace(/\.(js|d\.ts)$/, ".ts") === tsFile.name)) {
          const emitted = body(f.contents);
          if (doc) expect(emitted.startsWith(doc), `${set.name}/${f.name} starts with the module comment`).toBe(true);
          // Declarations the output keeps are spaced as in the source (types are gone from .js).
          const kept = declarationsAfterBlankLine(emitted);
          const present = declaredNames(emitted);
          expect(kept, `${set.name}/${f.name}`).toEqual(new Set([...blankBefore].filter((name) => present.has(name))));
        }
      }
    }
  });
});

describe("JavaScript output: determinism and --check", () => {
  // Each of these two generates every bundled set as JavaScript again (about 20 s on a quiet 2-core
  // machine, three times that under load): each has a budget of its own, not a share of the default 60 s.
  const FULL_GENERATION_BUDGET = 180_000;

  it("generating again gives the same bytes (reusing the formatted files on disk)", async () => {
    const again = (await generate(config)).sets;
    expect(again.map((s) => s.files)).toEqual(jsSets.map((s) => s.files));
    expect(compareSets(again)).toEqual([]);
  }, FULL_GENERATION_BUDGET);

  it("--check passes on what was generated", async () => {
    const check = await run(["--config", configPath, "--check"]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain(`${BUNDLED_SET_NAMES.length} set(s) up to date`);
  }, FULL_GENERATION_BUDGET);

  it("--check fails on an edited .js, a stray .ts, and when --emit ts asks for TypeScript instead", async () => {
    const dir = tempDir("check");
    const copyConfig = join(dir, CONFIG_NAME);
    writeFileSync(copyConfig, JSON.stringify({ ...CONFIG, sets: [{ bundled: "elicitation-codex" }] }));
    expect((await run(["--config", copyConfig])).code).toBe(0);
    const folder = join(dir, "out", "elicitation-codex");
    const validators = join(folder, "validators.js");
    writeFileSync(validators, readFileSync(validators, "utf8").replace("return false;", "return true;"));
    writeFileSync(join(folder, "types.ts"), "export {};\n");
    const stale = await run(["--config", copyConfig, "--check"]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^modified +.*validators\.js$/m);
    expect(stale.stderr).toMatch(/^extra +.*types\.ts$/m);

    const asTypeScript = await run(["--config", copyConfig, "--check", "--emit", "ts"]);
    expect(asTypeScript.code).toBe(1);
    expect(asTypeScript.stderr).toMatch(/^missing +.*validators\.ts$/m);
    expect(asTypeScript.stderr).toMatch(/^extra +.*validators\.d\.ts$/m);

    const unknown = await run(["--config", copyConfig, "--emit", "wasm"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--emit");
  });
});

describe("JavaScript output in use", () => {
  it("runs in plain node: validators of every set, and a task from the generated client to the generated server and back", () => {
    writeFileSync(join(project, "app.mjs"), consumerJavaScript("./out"));
    writeFileSync(join(project, "main.mjs"), runnerScript("./app.mjs"));
    const result = spawnSync(process.execPath, ["main.mjs"], { cwd: project, encoding: "utf8", timeout: 60_000 });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(EXPECTED_SUMMARY);
  });

  it("exports at run time every value the TypeScript modules export", async () => {
    for (const [i, set] of jsSets.entries()) {
      const script = `const m = await import(${JSON.stringify(join(set.outDir, "index.js"))}); console.log(JSON.stringify(Object.keys(m).sort()));`;
      const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, encoding: "utf8" });
      expect(result.status, result.stderr).toBe(0);
      const fromJs = JSON.parse(result.stdout) as string[];
      const fromTs = valueExports(tsSets[i]!);
      expect(fromTs.length, set.name).toBeGreaterThan(0);
      expect(fromJs, set.name).toEqual(fromTs);
    }
  });

  it("its declarations type-check a consumer under strict settings, and reject what the schema forbids", () => {
    const consumer = join(project, "consumer.mts");
    writeFileSync(consumer, consumerTypeScript("./out"));
    const program = ts.createProgram([consumer], STRICT_COMPILER_OPTIONS);
    const diagnostics = ts.getPreEmitDiagnostics(program);
    expect(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => project, getNewLine: () => "\n" })).toBe("");
    // The check read the generated declarations (an unresolved import would have been an error, but say so).
    const loaded = program.getSourceFiles().map((f) => f.fileName);
    const imported = jsSets.filter((set) => consumerTypeScript("./out").includes(`/${set.name}/`));
    expect(imported.length).toBeGreaterThan(1);
    for (const set of imported) for (const name of ["index.d.ts", "types.d.ts", "validators.d.ts"]) expect(loaded).toContain(join(set.outDir, name).split("\\").join("/"));
  });
});

/** The comment block above a module's first statement, or undefined. */
function moduleComment(code: string): string | undefined {
  const source = ts.createSourceFile("m.ts", code, ts.ScriptTarget.ES2022, true);
  const first = source.statements[0];
  const comment = first ? code.slice(0, first.getStart(source)).trim() : "";
  return comment === "" ? undefined : comment;
}

/** Names of top-level declarations (functions, classes, variables, types). */
function declaredNames(code: string): Set<string> {
  return new Set(topLevel(code).map((d) => d.name));
}

/** Names of top-level declarations separated from what precedes them (their comments included) by a blank line. */
function declarationsAfterBlankLine(code: string): Set<string> {
  return new Set(topLevel(code).filter((d) => /\n[ \t]*\n/.test(d.trivia)).map((d) => d.name));
}

function topLevel(code: string): { name: string; trivia: string }[] {
  const source = ts.createSourceFile("m.ts", code, ts.ScriptTarget.ES2022, true);
  return source.statements.flatMap((statement, i) => {
    const named = ts.isVariableStatement(statement) ? statement.declarationList.declarations[0]?.name : (statement as { name?: ts.Node }).name;
    // The first statement's trivia is the module comment, not a gap between declarations.
    if (i === 0 || !named || !ts.isIdentifier(named)) return [];
    return [{ name: named.text, trivia: code.slice(statement.getFullStart(), statement.getStart(source)) }];
  });
}

/** The value (not type) exports of a TypeScript set's index (written to disk), read with the compiler. */
function valueExports(set: GeneratedSet): string[] {
  const index = join(set.outDir, "index.ts");
  const program = ts.createProgram([index], STRICT_COMPILER_OPTIONS);
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(index)!)!;
  return checker
    .getExportsOfModule(module)
    .filter((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return (target.flags & ts.SymbolFlags.Value) !== 0;
    })
    .map((s) => s.name)
    .sort();
}
