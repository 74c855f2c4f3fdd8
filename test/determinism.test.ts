import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../generator/cli/main.js";
import { generate, readConfigFile, type GeneratedSet, type SchemaSetConfig, type UserConfig } from "../generator/index.js";
import { projectRoot } from "./support/paths.js";

/**
 * Generated output is a pure function of the schemas, the options and the generator version:
 * byte-identical from run to run and from folder to folder, and each file's header says exactly
 * which version, which source bytes (sha256) and which options produced it.
 */

const CONFIG_NAME = "mcp-tasks-gen.config.json";
const REPO_CONFIG = join(projectRoot, CONFIG_NAME);
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
      expect(contents, name).not.toMatch(/\b20\d\d-\d\d-\d\dT\d\d:\d\d/);
    }
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
    "ext-tasks-draft": ["schemas/mcp-input-requests-2025-11-25.schema.json", "schemas/codex-mcp-elicitation-request-params.schema.json"],
  };
  /** The source files a set reads, as the config names them (relative to the config file). */
  const sourcesOf = (set: SchemaSetConfig) => [...set.schemas, ...Object.values(set.remotes ?? {}), ...(BOUND_FILES[set.name] ?? [])];
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
