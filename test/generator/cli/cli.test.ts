import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { beyondLint, runCli } from "../../support/cli.js";
import { treeSnapshot } from "../../support/tree.js";
import { generate, MANIFEST_FILE, manifestOf, readConfigFile, type GeneratedSet } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";
import { filesBelow } from "../../support/pack.js";

/**
 * The `mcp-tasks-gen` command: flags, exit codes (0 done, 1 stale, 2 bad input, 3 internal) and
 * what it writes. Most tests call `main(argv, out, err)` in-process with absolute paths (a vitest
 * worker must not `chdir`); the last group spawns the built bin to prove the real command works.
 */

const CONFIG_NAME = "mcp-tasks-gen.config.json";
const REPO_CONFIG = join(projectRoot, CONFIG_NAME);
const ELICITATION_SCHEMA = join(projectRoot, "schemas", "codex-mcp-elicitation-request-params.schema.json");
const GOOD_FIXTURE = join(projectRoot, "test", "fixtures", "bad-input", "good.schema.json");
const BIN = join(projectRoot, "dist", "generator", "cli", "main.js");
const VERSION = (JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as { version: string }).version;
const FLAGS = ["--config", "--check", "--schema", "--out", "--remote", "--name", "--annotation", "--help", "--version"];
const STACK_FRAME = /^\s+at /m;


interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const run = runCli;


function runBin(argv: string[], cwd: string, bin = BIN): Run {
  const result = spawnSync(process.execPath, [bin, ...argv], { cwd, encoding: "utf8", timeout: 60_000 });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const snapshot = treeSnapshot;

const temps: string[] = [];
function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `mcp-tasks-gen-cli-${label}-`));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A copy of this project's config and schemas (no generated/) in a fresh temp folder. */
function copyProject(): { dir: string; config: string } {
  const dir = tempDir("project");
  cpSync(REPO_CONFIG, join(dir, CONFIG_NAME));
  cpSync(join(projectRoot, "schemas"), join(dir, "schemas"), { recursive: true });
  return { dir, config: join(dir, CONFIG_NAME) };
}

/** What the generator produces for a config, computed in-process (the reference for the CLI). */
async function expected(config: string): Promise<readonly GeneratedSet[]> {
  return (await generate(readConfigFile(config))).sets;
}

/** Asserts that each set's folder holds exactly the generated files and their manifest, byte for byte. */
function expectWritten(sets: readonly GeneratedSet[]): void {
  for (const set of sets) {
    expect(filesBelow(set.outDir).sort(), set.name).toEqual([...set.files.map((f) => f.name), MANIFEST_FILE].sort());
    for (const file of [...set.files, manifestOf(set)]) expect(readFileSync(join(set.outDir, file.name), "utf8"), `${set.name}/${file.name}`).toBe(file.contents);
  }
}

describe("main() in-process: generating and checking", () => {
  it("--check passes against the committed generated/ of this repository", async () => {
    const { code, stdout, stderr } = await run(["--config", REPO_CONFIG, "--check"]);
    expect(beyondLint(stderr)).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/up to date/);
  });

  it("a normal run writes every generated file, and a second run with --check passes", async () => {
    const { dir, config } = copyProject();
    const sets = await expected(config);
    const first = await run(["--config", config]);
    expect(beyondLint(first.stderr)).toBe("");
    expect(first.code).toBe(0);
    expectWritten(sets);
    for (const set of sets) expect(first.stdout).toContain(`generated/${set.name}/`);

    const before = snapshot(dir);
    const check = await run(["--config", config, "--check"]);
    expect(check).toMatchObject({ code: 0 });
    expect(beyondLint(check.stderr)).toBe("");
    expect(snapshot(dir)).toEqual(before);
  });

  it("--check names each modified, missing and extra file, exits 1 and writes nothing", async () => {
    const { dir, config } = copyProject();
    expect((await run(["--config", config])).code).toBe(0);
    const sets = await expected(config);
    expect(sets.length).toBeGreaterThanOrEqual(2);
    const [first, second] = [sets[0]!, sets[1]!];
    const last = sets[sets.length - 1]!;
    const modified = { set: first.name, file: first.files[0]!.name };
    const missing = { set: second.name, file: second.files[second.files.length - 1]!.name };
    const extra = { set: last.name, file: "hand-written.ts" };
    writeFileSync(join(first.outDir, modified.file), `${first.files[0]!.contents}// edited by hand\n`);
    unlinkSync(join(second.outDir, missing.file));
    writeFileSync(join(last.outDir, extra.file), "export const x = 1;\n");

    const before = snapshot(dir);
    const { code, stdout, stderr } = await run(["--config", config, "--check"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).not.toMatch(STACK_FRAME);
    const fileLines = stderr.split("\n").filter((line) => /\/generated\//.test(line));
    expect(fileLines).toHaveLength(3);
    for (const [change, { set, file }] of Object.entries({ modified, missing, extra })) {
      const line = fileLines.find((l) => l.endsWith(`/generated/${set}/${file}`));
      expect(line, `a line for ${set}/${file}`).toBeDefined();
      expect(line).toMatch(new RegExp(`^${change}\\b`));
    }
    expect(stderr).toMatch(/\b3 file\(s\) differ/);
    expect(snapshot(dir)).toEqual(before);
  });

  it("--check with no generated folder at all lists every file as missing and creates nothing", async () => {
    const { dir, config } = copyProject();
    const sets = await expected(config);
    const { code, stderr } = await run(["--config", config, "--check"]);
    expect(code).toBe(1);
    const missing = stderr.split("\n").filter((line) => line.startsWith("missing"));
    // Each set's files and its manifest.
    expect(missing).toHaveLength(sets.reduce((n, s) => n + s.files.length + 1, 0));
    expect(existsSync(join(dir, "generated"))).toBe(false);
  });
});

describe("main() in-process: --schema with --out", () => {
  it("generates every definition and the titled root of a schema file into DIR/types.ts", async () => {
    const out = join(tempDir("schema"), "elicitation");
    const { code, stderr } = await run(["--schema", ELICITATION_SCHEMA, "--out", out]);
    expect(beyondLint(stderr)).toBe("");
    expect(code).toBe(0);
    const types = readFileSync(join(out, "types.ts"), "utf8");
    const schema = JSON.parse(readFileSync(ELICITATION_SCHEMA, "utf8")) as { title: string; definitions: Record<string, unknown> };
    expect(schema.title).toBe("McpServerElicitationRequestParams");
    for (const name of [schema.title, ...Object.keys(schema.definitions)]) {
      expect(types, name).toMatch(new RegExp(`^export (type|interface) ${name}\\b`, "m"));
    }
    // Ad-hoc mode reads the schema as a config's set of it does: the same files, byte for byte,
    // when the schema lies at the same relative path from the output folder as from the config.
    const dir = tempDir("same-as-config");
    const copy = join(dir, "schemas", basename(ELICITATION_SCHEMA));
    cpSync(ELICITATION_SCHEMA, copy);
    const config = join(dir, "config", CONFIG_NAME);
    mkdirSync(dirname(config));
    writeFileSync(config, JSON.stringify({ sets: [{ name: "elicitation-codex", schemas: [`../schemas/${basename(copy)}`] }] }));
    const adHocOut = join(dir, "elicitation");
    expect((await run(["--schema", copy, "--out", adHocOut])).code).toBe(0);
    const [viaConfig] = await expected(config);
    expect(filesBelow(adHocOut).sort()).toEqual([...viaConfig!.files.map((f) => f.name), MANIFEST_FILE].sort());
    expect(viaConfig!.files.find((f) => f.name === "validators.ts")!.contents).toContain(`"../schemas/${basename(copy)}#/definitions/`);
    for (const file of viaConfig!.files) expect(readFileSync(join(adHocOut, file.name), "utf8"), file.name).toBe(file.contents);
  });

  it("takes --schema more than once and puts every file's definitions into one set", async () => {
    const out = join(tempDir("schemas"), "mixed");
    const { code, stderr } = await run(["--schema", ELICITATION_SCHEMA, "--schema", GOOD_FIXTURE, "--out", out]);
    expect(beyondLint(stderr)).toBe("");
    expect(code).toBe(0);
    const types = readFileSync(join(out, "types.ts"), "utf8");
    expect(types).toMatch(/^export (type|interface) McpServerElicitationRequestParams\b/m);
    expect(types).toMatch(/^export (type|interface) Note\b/m);
  });
});

describe("main() in-process: --name and --annotation, the ad-hoc ways out", () => {
  /** A schema file with the given JSON in a fresh folder, and the output folder beside it. */
  function schemaFile(fileName: string, json: unknown): { schema: string; out: string; dir: string } {
    const dir = tempDir("adhoc");
    const schema = join(dir, fileName);
    writeFileSync(schema, JSON.stringify(json, null, 2));
    return { schema, out: join(dir, "out"), dir };
  }
  const exported = (out: string) => [...readFileSync(join(out, "types.ts"), "utf8").matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]);
  const separatorClash = { $defs: { "a b": { type: "string" }, "a-b": { type: "number" } } };

  it("a name clash generates with a warning printing the --name flag that chooses; passing the flags silences it", async () => {
    const { schema, out } = schemaFile("clash.schema.json", separatorClash);
    const warned = await run(["--schema", schema, "--out", out]);
    expect(warned.code, warned.stderr).toBe(0);
    expect(exported(out)).toEqual(["ASpaceB", "ADashB"]);
    // The flag is printed shell-quoted, its file as given from the working folder (here: absolute).
    const printed = [...warned.stderr.matchAll(/\[name-clash\] .*pass --name '([^']+)' \(or a better name\)\n/g)].map((m) => m[1]!);
    expect(printed, warned.stderr).toEqual([`${schema}#/$defs/a b=ASpaceB`, `${schema}#/$defs/a-b=ADashB`]);
    const chosen = await run(["--schema", schema, "--out", out, ...printed.flatMap((flag) => ["--name", flag])]);
    expect(chosen.stderr).toBe("");
    expect(chosen.code).toBe(0);
    expect(exported(out)).toEqual(["ASpaceB", "ADashB"]);
  });

  it("--name names both sides of a clash, and an inline object by its JSON pointer", async () => {
    const json = { ...separatorClash, $defs: { ...separatorClash.$defs, Box: { type: "object", properties: { inner: { type: "object", properties: { x: { type: "string" } } } } } } };
    const { schema, out } = schemaFile("clash.schema.json", json);
    const names = [`${schema}#/$defs/a b=ASpaceB`, `${schema}#/$defs/a-b=ADashB`, `${schema}#/$defs/Box/properties/inner=Content`];
    const { code, stderr } = await run(["--schema", schema, "--out", out, ...names.flatMap((n) => ["--name", n])]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(exported(out)).toEqual(["ASpaceB", "ADashB", "Box", "Content"]);
    expect(readFileSync(join(out, "types.ts"), "utf8")).toMatch(/inner\?: Content;/);
  });

  it("--name that names nothing, or no identifier, or goes with a config: exit 2, one line naming the flag", async () => {
    const { schema, out, dir } = schemaFile("clash.schema.json", separatorClash);
    const before = snapshot(dir);
    const cases: [string[], string | RegExp][] = [
      [["--name", `${schema}#/$defs/ab=X`], `--name ${schema}#/$defs/ab=X: names nothing: the file has nothing at #/$defs/ab\n`],
      [["--name", `${schema}#/$defs/a b=1st`], /^--name [^\n]*: "1st" is not a usable TypeScript name/],
      [["--name", `${schema}=X`], /^--name [^\n]*=X: expected FILE#\/json\/pointer=Name/],
    ];
    for (const [flags, message] of cases) {
      const { code, stderr } = await run(["--schema", schema, "--out", out, ...flags]);
      expect(code, flags.join(" ")).toBe(2);
      expect(stderr).toMatch(/^[^\n]+\n$/);
      if (typeof message === "string") expect(stderr).toBe(message);
      else expect(stderr).toMatch(message);
    }
    const withConfig = await run(["--config", REPO_CONFIG, "--name", `${schema}#/$defs/a b=X`]);
    expect(withConfig.code).toBe(2);
    expect(withConfig.stderr).toMatch(/^--name goes with --schema; in a config, choose names under "names"/);
    expect(snapshot(dir)).toEqual(before);
  });

  it("--annotation KEYWORD keeps an unknown keyword as an annotation; without it the error names the flag", async () => {
    const json = { $defs: { Note: { type: "string", tsType: "Branded", allowTrailingCommas: true } } };
    const { schema, out } = schemaFile("vendor.schema.json", json);
    const failed = await run(["--schema", schema, "--out", out]);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/#\/\$defs\/Note\/tsType: unknown keyword "tsType" .*pass --annotation tsType with --schema/);
    const kept = await run(["--schema", schema, "--out", out, "--annotation", "tsType", "--annotation", "allowTrailingCommas"]);
    expect(kept.stderr).toBe("");
    expect(kept.code).toBe(0);
    expect(exported(out)).toEqual(["Note"]);
    const lintKept = await run(["lint", "--schema", schema, "--annotation", "tsType", "--annotation", "allowTrailingCommas"]);
    expect(lintKept.code).toBe(0);
  });

  it("an untitled root without definitions is one type named from its file name", async () => {
    const { schema, out } = schemaFile("user-profile.schema.json", { type: "object", properties: { name: { type: "string" } }, required: ["name"] });
    const { code, stderr } = await run(["--schema", schema, "--out", out]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(exported(out)).toEqual(["UserProfile"]);
    expect(readFileSync(join(out, "validators.ts"), "utf8")).toMatch(/export function validateUserProfile\b/);
  });

  it("a boolean root and an empty root are types too (unknown, never), never an empty types.ts", async () => {
    const always = schemaFile("anything.json", {});
    const never = schemaFile("nothing.json", false);
    for (const [{ schema, out }, name, type] of [[always, "Anything", "unknown"], [never, "Nothing", "never"]] as const) {
      const { code, stderr } = await run(["--schema", schema, "--out", out]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(readFileSync(join(out, "types.ts"), "utf8")).toContain(`export type ${name} = ${type};`);
    }
  });

  it("--schema naming a missing file: the flag, and the folder it was looked for in", async () => {
    const out = join(tempDir("missing"), "out");
    const { code, stderr } = await run(["--schema", "no/such.schema.json", "--out", out]);
    expect(code).toBe(2);
    expect(stderr).toBe(`--schema no/such.schema.json: not found (resolved against ${process.cwd()})\n`);
    expect(existsSync(out)).toBe(false);
  });
});

describe("main() in-process: usage and configuration errors exit 2", () => {
  it("an unknown flag", async () => {
    const { code, stdout, stderr } = await run(["--bogus"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^[^\n]+\n$/);
    expect(stderr).toContain("--bogus");
    expect(stderr).toContain("--help");
  });

  it("--schema without --out", async () => {
    const { code, stderr } = await run(["--schema", ELICITATION_SCHEMA]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^[^\n]*--out[^\n]*\n$/);
  });

  it("--out without --schema, and --schema together with --config", async () => {
    const out = join(tempDir("flags"), "out");
    const outOnly = await run(["--out", out]);
    expect(outOnly.code).toBe(2);
    expect(outOnly.stderr).toContain("--schema");
    const both = await run(["--config", REPO_CONFIG, "--schema", ELICITATION_SCHEMA, "--out", out]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--config");
    expect(existsSync(out)).toBe(false);
  });

  it("--config naming a file that does not exist", async () => {
    const config = join(tempDir("no-config"), CONFIG_NAME);
    const { code, stderr } = await run(["--config", config]);
    expect(code).toBe(2);
    expect(stderr).toBe(`${config}#: config file not found (resolved against ${process.cwd()})\n`);
    expect(stderr).not.toMatch(STACK_FRAME);
  });

  it("--out below a regular file: exit 2, no stack trace, the file untouched", async () => {
    const dir = tempDir("blocked");
    const blocker = join(dir, "blocker");
    writeFileSync(blocker, "not a folder\n");
    const { code, stderr } = await run(["--schema", GOOD_FIXTURE, "--out", join(blocker, "out")]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^[^\n]+\n$/);
    expect(stderr).toMatch(/cannot write/);
    expect(stderr).not.toMatch(STACK_FRAME);
    expect(readdirSync(dir)).toEqual(["blocker"]);
    expect(readFileSync(blocker, "utf8")).toBe("not a folder\n");
  });

  it("--help and --version print and exit 0", async () => {
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    for (const flag of FLAGS) expect(help.stdout, flag).toContain(flag);
    expect(await run(["--version"])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });
});

/** Whether dist/ holds a compiled file at least as new as every generator source. */
function distIsFresh(): boolean {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  return walk(join(projectRoot, "generator"))
    .filter((f) => f.endsWith(".ts"))
    .every((source) => {
      const compiled = join(projectRoot, "dist", relative(projectRoot, source)).replace(/\.ts$/, ".js");
      return existsSync(compiled) && statSync(compiled).mtimeMs >= statSync(source).mtimeMs;
    });
}

describe("the built bin (dist/generator/cli/main.js), spawned", () => {
  beforeAll(() => {
    if (distIsFresh()) return;
    const build = spawnSync(process.execPath, [join(projectRoot, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], {
      cwd: projectRoot,
      encoding: "utf8",
    });
    expect(build.status, `npm run build failed:\n${build.stdout}${build.stderr}`).toBe(0);
  });

  it("--version prints package.json's version", () => {
    expect(runBin(["--version"], tempDir("bin-version"))).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("--help exits 0 and mentions every flag", () => {
    const { code, stdout } = runBin(["--help"], tempDir("bin-help"));
    expect(code).toBe(0);
    for (const flag of FLAGS) expect(stdout, flag).toContain(flag);
  });

  it("runs through a symlink, as npm installs bins", () => {
    const dir = tempDir("bin-link");
    const link = join(dir, "mcp-tasks-gen");
    symlinkSync(BIN, link);
    expect(runBin(["--version"], dir, link)).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("in a folder without a config file: exit 2, a message pointing to --help, no stack trace", () => {
    const { code, stdout, stderr } = runBin([], tempDir("bin-empty"));
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(CONFIG_NAME);
    expect(stderr).toContain("--help");
    expect(stderr).not.toMatch(STACK_FRAME);
  });

  it("end to end in a project folder: generate, then --check passes", async () => {
    const { dir, config } = copyProject();
    const generated = runBin([], dir);
    expect(beyondLint(generated.stderr)).toBe("");
    expect(generated.code).toBe(0);
    expectWritten(await expected(config));
    const check = runBin(["--check"], dir);
    expect(check.code).toBe(0);
    expect(beyondLint(check.stderr)).toBe("");
  });

  it("reports a config mistake as mcp-tasks-gen.config.json#/pointer relative to the working folder", () => {
    const dir = tempDir("bin-bad-config");
    writeFileSync(join(dir, CONFIG_NAME), JSON.stringify({ sets: [{ name: "x", schemas: "x.json" }] }));
    const { code, stdout, stderr } = runBin([], dir);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(`${CONFIG_NAME}#/sets/0/schemas: expected an array of strings, got the string "x.json"\n`);
  });
});
