import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../generator/cli/main.js";
import { generate, readConfigFile, type GeneratedSet, type SchemaSetConfig, type UserConfig } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";

/**
 * Generated output is a pure function of the schemas, the options and the generator version:
 * byte-identical from run to run and from folder to folder, and each file's header says exactly
 * which version, which source bytes (sha256) and which options produced it.
 */

const CONFIG_NAME = "mcp-tasks-gen.config.json";
const REPO_CONFIG = join(projectRoot, CONFIG_NAME);
/** Every schema file the repository config reads, as text. */
const SCHEMA_TEXTS = readdirSync(join(projectRoot, "schemas"), { withFileTypes: true })
  .filter((entry) => entry.isFile()) // not meta/, the dialects' meta-schemas
  .map((entry) => readFileSync(join(projectRoot, "schemas", entry.name), "utf8"));
const VERSION = (JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as { version: string }).version;

const silent = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

/** Every file below `root`, by relative path, as text. */
function readTree(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
      else files[`${prefix}${entry.name}`] = readFileSync(join(dir, entry.name), "utf8");
    }
  };
  walk(root, "");
  return files;
}

/** `{ "set/file.ts": contents }` for a generation result. */
const contentsOf = (sets: readonly GeneratedSet[]) =>
  Object.fromEntries(sets.flatMap((set) => set.files.map((f) => [`${set.name}/${f.name}`, f.contents] as const)));

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** Copies the project's config and schemas to a fresh temp folder and runs the CLI there. */
async function generateInCopy(label: string): Promise<{ dir: string; files: Record<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), `mcp-tasks-gen-determinism-${label}-`));
  temps.push(dir);
  cpSync(REPO_CONFIG, join(dir, CONFIG_NAME));
  cpSync(join(projectRoot, "schemas"), join(dir, "schemas"), { recursive: true });
  const err: string[] = [];
  const stderr = new Writable({
    write(chunk, _encoding, done) {
      err.push(String(chunk));
      done();
    },
  });
  const code = await main(["--config", join(dir, CONFIG_NAME)], silent(), stderr);
  expect(code, err.join("")).toBe(0);
  return { dir, files: readTree(join(dir, "generated")) };
}

describe("byte-identical output", () => {
  it("generating twice in one process gives the same files", async () => {
    const first = contentsOf((await generate(readConfigFile(REPO_CONFIG))).sets);
    const second = contentsOf((await generate(readConfigFile(REPO_CONFIG))).sets);
    expect(Object.keys(first).length).toBeGreaterThan(0);
    expect(second).toEqual(first);
  });

  it("two copies of the project at different absolute paths generate the same files", async () => {
    const a = await generateInCopy("a");
    const b = await generateInCopy("b");
    expect(Object.keys(a.files).length).toBeGreaterThan(0);
    expect(b.files).toEqual(a.files);
    // Equal output could still embed a shared prefix such as the temp folder; it must not.
    for (const [name, contents] of Object.entries(a.files)) {
      expect(contents, name).not.toContain(a.dir);
      expect(contents, name).not.toContain(tmpdir());
      expect(contents, name).not.toContain(projectRoot);
      // No time of generation: a timestamp in the output is one a schema's own text holds (a doc example).
      for (const [stamp] of contents.matchAll(/\b20\d\d-\d\d-\d\dT\d\d:\d\d/g)) expect(SCHEMA_TEXTS.some((text) => text.includes(stamp)), `${name}: ${stamp}`).toBe(true);
    }
  });
});

describe("output does not depend on the working folder or where the project lies", () => {
  const REPO_SETS = (JSON.parse(readFileSync(REPO_CONFIG, "utf8")) as UserConfig).sets;
  const tasks = REPO_SETS.find((set) => set.name === "tasks-2025-11-25")!;
  const [remoteUrl, remoteFile] = Object.entries(tasks.remotes!)[0]!;

  /**
   * Runs the CLI with `cwd` as the working folder. The test worker is a forked process of its own
   * (vitest.config.ts: pool "forks"), and the folder is put back before anything else runs.
   */
  async function runIn(cwd: string, argv: string[]): Promise<void> {
    const previous = process.cwd();
    const err: string[] = [];
    const stderr = new Writable({
      write(chunk, _encoding, done) {
        err.push(String(chunk));
        done();
      },
    });
    process.chdir(cwd);
    try {
      const code = await main(argv, silent(), stderr);
      expect(code, err.join("")).toBe(0);
    } finally {
      process.chdir(previous);
    }
  }

  /** A fresh folder holding a copy of this repository's schemas under `schemas/`. */
  function workspace(label: string): string {
    const dir = mkdtempSync(join(tmpdir(), `mcp-tasks-gen-paths-${label}-`));
    temps.push(dir);
    cpSync(join(projectRoot, "schemas"), join(dir, "schemas"), { recursive: true });
    return dir;
  }

  /** The generated files of `out`, after checking that none names an absolute path of this machine. */
  function outputOf(out: string, ...roots: string[]): Record<string, string> {
    const files = readTree(out);
    expect(Object.keys(files).length).toBeGreaterThan(0);
    for (const [name, contents] of Object.entries(files)) {
      for (const root of [...roots, tmpdir(), projectRoot]) expect(contents, name).not.toContain(root);
    }
    return files;
  }

  it("ad hoc: the same --schema/--remote/--out run from two working folders, and in a copy elsewhere, writes the same bytes", async () => {
    const schema = tasks.schemas[0]!;
    const argsFrom = (base: string) => {
      // Paths as a user would type them, relative to the working folder.
      const rel = (path: string) => relative(base, path) || ".";
      return (dir: string) => ["--schema", rel(join(dir, schema)), "--remote", `${remoteUrl}=${rel(join(dir, remoteFile))}`, "--out", rel(join(dir, "src", "gen"))];
    };
    const a = workspace("adhoc-a");
    await runIn(a, argsFrom(a)(a));
    const first = outputOf(join(a, "src", "gen"), a);
    rmSync(join(a, "src"), { recursive: true });
    await runIn(join(a, "schemas"), argsFrom(join(a, "schemas"))(a));
    expect(outputOf(join(a, "src", "gen"), a)).toEqual(first);
    const b = workspace("adhoc-b");
    await runIn(b, argsFrom(b)(b));
    expect(outputOf(join(b, "src", "gen"), b)).toEqual(first);
    // The header names the schema relative to the output folder.
    expect(first["types.ts"]).toContain(`//   ../../${schema} sha256:`);
  });

  it("config: a set with a schema outside the config's folder writes the same bytes from any working folder and any location", async () => {
    const project = (dir: string) => {
      // The config lives in project/, the schemas beside it in schemas/ (outside the config's folder).
      const config = join(dir, "project", CONFIG_NAME);
      mkdirSync(join(dir, "project", "nested"), { recursive: true });
      const set = { name: "tasks", schemas: tasks.schemas.map((f) => `../${f}`), remotes: { [remoteUrl]: `../${remoteFile}` } };
      writeFileSync(config, JSON.stringify({ outDir: "generated", sets: [set] }, null, 2));
      return config;
    };
    const a = workspace("config-a");
    const configA = project(a);
    await runIn(a, ["--config", relative(a, configA)]);
    const out = join(a, "project", "generated", "tasks");
    const first = outputOf(out, a);
    rmSync(join(a, "project", "generated"), { recursive: true });
    await runIn(join(a, "project", "nested"), ["--config", join("..", CONFIG_NAME)]);
    expect(outputOf(out, a)).toEqual(first);
    const b = workspace("config-b");
    const configB = project(b);
    await runIn(join(b, "project"), ["--config", relative(join(b, "project"), configB)]);
    expect(outputOf(join(b, "project", "generated", "tasks"), b)).toEqual(first);
    expect(first["validators.ts"]).toContain(`"../${tasks.schemas[0]}#/`);
    expect(first["types.ts"]).toContain(`//   ../${remoteFile} sha256:`);
  });
});

describe("file headers and layout", () => {
  const userConfig = JSON.parse(readFileSync(REPO_CONFIG, "utf8")) as UserConfig;
  let sets: readonly GeneratedSet[];
  beforeAll(async () => {
    sets = (await generate(readConfigFile(REPO_CONFIG))).sets;
  });

  /** Files a set also reads because its `bindings` reach them (the bound file, and the file it refers to in turn). */
  const BOUND_FILES: Readonly<Record<string, readonly string[]>> = {
    "ext-tasks-2026-05-22": ["schemas/mcp-input-requests-2025-11-25.schema.json", "schemas/codex-mcp-elicitation-request-params.schema.json"],
  };
  /** The source files a set reads, as the config names them (relative to the config file). */
  const sourcesOf = (set: SchemaSetConfig) => {
    const remotes = Object.values(set.remotes ?? {});
    // A core schema that is not also a mapped remote is a source of its own (README › Core definitions).
    const core = set.core?.schema !== undefined && !remotes.includes(set.core.schema) ? [set.core.schema] : [];
    return [...set.schemas, ...remotes, ...(BOUND_FILES[set.name] ?? []), ...core];
  };
  const sha256 = (path: string) => createHash("sha256").update(readFileSync(resolve(projectRoot, path))).digest("hex");

  it("every file starts with a header naming the version, each source with its sha256, and the options", () => {
    expect(sets.map((s) => s.name)).toEqual(userConfig.sets.map((s) => s.name));
    for (const [i, set] of sets.entries()) {
      const expectedSources = sourcesOf(userConfig.sets[i]!).map((path) => `${path} sha256:${sha256(path)}`).sort();
      for (const file of set.files) {
        const where = `${set.name}/${file.name}`;
        const header = file.contents.slice(0, file.contents.indexOf("\n\n")).split("\n");
        expect(header.every((line) => line.startsWith("//")), where).toBe(true);
        expect(header[0], where).toMatch(new RegExp(`^// Generated by mcp-tasks-gen ${VERSION.replace(/\./g, "\\.")}\\b`));
        const sources = header.filter((line) => /sha256:/.test(line)).map((line) => line.replace(/^\/\/\s*/, ""));
        expect(sources.sort(), where).toEqual(expectedSources);
        const options = header.find((line) => line.startsWith("// Options: "));
        expect(options, where).toBeDefined();
        // The options are recorded as JSON, so they can be read back.
        expect(() => JSON.parse(options!.slice("// Options: ".length)), where).not.toThrow();
      }
    }
  });

  it("every file ends with exactly one newline and has no CRLF", () => {
    for (const set of sets) {
      for (const file of set.files) {
        const where = `${set.name}/${file.name}`;
        expect(file.contents.endsWith("\n"), where).toBe(true);
        expect(file.contents.endsWith("\n\n"), where).toBe(false);
        expect(file.contents.includes("\r"), where).toBe(false);
      }
    }
  });
});
