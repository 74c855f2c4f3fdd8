import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { checkConfig, generate, GeneratorError, readConfigFile, type GeneratedSet } from "../../../generator/index.js";
import { BUNDLED_SET_NAMES, BUNDLED_SETS, packageRoot } from "../../../generator/init/bundled.js";
import { ensureBuilt } from "../../support/pack.js";
import { projectRoot } from "../../support/paths.js";

/**
 * Using mcp-tasks-gen from another project: `mcp-tasks-gen init` writes a starting config, a
 * config set can name a schema set bundled with the package (`"bundled"`), and a project without
 * a config is told about `init`. In-process runs pass `--config` (a vitest worker must not
 * `chdir`); the runs that depend on the working folder spawn the built bin.
 */

const CONFIG_NAME = "mcp-tasks-gen.config.json";
const BIN = join(projectRoot, "dist", "generator", "cli", "main.js");
const STACK_FRAME = /^\s+at /m;
const CORE_URL = Object.keys(BUNDLED_SETS["tasks-2025-11-25"]!.remotes)[0]!;

const temps: string[] = [];
function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `mcp-tasks-gen-init-${label}-`));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});


const run = runCli;

function runBin(argv: string[], cwd: string): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...argv], { cwd, encoding: "utf8", timeout: 120_000 });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function writeJson(path: string, value: unknown): string {
  writeFileSync(path, JSON.stringify(value, null, 2));
  return path;
}

interface InitConfig {
  $comment: unknown;
  outDir: string;
  emit: string;
  sets: { $comment: unknown; name: string; bundled: string }[];
}
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as InitConfig;

/** The message checkConfig throws for a config, or "accepted". */
function configError(json: unknown): string {
  try {
    checkConfig(json, CONFIG_NAME);
    return "accepted";
  } catch (e) {
    if (e instanceof GeneratorError) return e.message;
    throw e;
  }
}

const withoutFingerprint = (contents: string) => contents.replace(/^\/\/ Fingerprint: .*\n/m, "");
/** Code without its layout (whitespace, and the trailing commas prettier adds where it breaks a line), a statement a line. */
const tokens = (code: string) =>
  code
    .replace(/\s+/g, "")
    .replace(/,([)\]}])/g, "$1")
    .split(";")
    .join(";\n");

/** The header's `Sources:` lines of a generated file. */
function sourceLines(contents: string): string[] {
  const header = contents.slice(0, contents.indexOf("// Options:"));
  return header.split("\n").filter((line) => line.startsWith("//   "));
}

describe("mcp-tasks-gen init", () => {
  it("writes a commented config naming every bundled set and the output folder, and says what to run next", async () => {
    const dir = tempDir("write");
    const config = join(dir, CONFIG_NAME);
    const { code, stdout, stderr } = await run(["init", "--config", config, "--out", join(dir, "src", "gen")]);
    expect(stderr).toBe("");
    expect(code).toBe(0);

    const written = readJson(config);
    expect(typeof written.$comment === "string" && written.$comment.includes("npx mcp-tasks-gen --check")).toBe(true);
    // The output folder is stored relative to the config, so the config means the same on every machine.
    expect(written.outDir).toBe("src/gen");
    expect(written.emit).toBe("ts");
    expect(written.sets.map((s) => [s.name, s.bundled])).toEqual(BUNDLED_SET_NAMES.map((n) => [n, n]));
    for (const set of written.sets) expect(set.$comment).toBe(BUNDLED_SETS[set.name]!.description);

    const resolved = readConfigFile(config);
    expect(resolved.sets.map((s) => s.outDir)).toEqual(BUNDLED_SET_NAMES.map((n) => join(dir, "src", "gen", n)));
    for (const set of resolved.sets) {
      expect(set.schemas).toEqual(BUNDLED_SETS[set.name]!.schemas.map((f) => join(packageRoot(), f)));
    }

    expect(stdout).toContain(`npx mcp-tasks-gen --config ${config}`);
    expect(stdout).toContain(`npx mcp-tasks-gen --config ${config} --check`);
    expect(stdout).toContain("git add");
    expect(stdout).not.toContain("npm install"); // no runtime parts, no peers
  });

  it("with runtime parts, says which packages to install for them: each once, dependencies apart from typings", async () => {
    const dir = tempDir("peers");
    const config = join(dir, CONFIG_NAME);
    const http = await run(["init", "--config", config, "--set", "ext-tasks-draft", "--runtime", "http-server,http-client"]);
    expect([http.code, http.stderr]).toEqual([0, ""]);
    expect(http.stdout.split("\n").filter((line) => line.includes("npm install")).map((line) => line.trim())).toEqual(["npm install --save-dev @types/node"]);
    const stores = await run(["init", "--force", "--config", config, "--runtime", "sqlite-store,redis-store,postgres-store,sdk-server,stdio"]);
    expect([stores.code, stores.stderr]).toEqual([0, ""]);
    expect(stores.stdout.split("\n").filter((line) => line.includes("npm install")).map((line) => line.trim())).toEqual([
      "npm install better-sqlite3@^12 ioredis@^5 pg@^8 @modelcontextprotocol/sdk@^1.24",
      "npm install --save-dev @types/better-sqlite3 @types/node @types/pg",
    ]);
    // A part no chosen set takes asks for nothing: sdk-server is for 2025-11-25 sets only.
    const none = await run(["init", "--force", "--config", config, "--set", "ext-tasks-draft", "--runtime", "sdk-server"]);
    expect([none.code, none.stderr]).toEqual([0, ""]);
    expect(none.stdout).not.toContain("@modelcontextprotocol/sdk");
  });

  it("refuses to replace an existing config (exit 2, file untouched) unless --force", async () => {
    const dir = tempDir("exists");
    const config = join(dir, CONFIG_NAME);
    writeFileSync(config, '{ "sets": "mine" }\n');
    const refused = await run(["init", "--config", config]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/already exists.*--force/);
    expect(refused.stderr).not.toMatch(STACK_FRAME);
    expect(readFileSync(config, "utf8")).toBe('{ "sets": "mine" }\n');

    const forced = await run(["init", "--config", config, "--force", "--out", join(dir, "lib")]);
    expect(forced.code).toBe(0);
    expect(readJson(config).outDir).toBe("lib");
  });

  it("--set picks bundled sets and --emit js asks for JavaScript; an unknown set or language writes nothing", async () => {
    const dir = tempDir("options");
    const config = join(dir, CONFIG_NAME);
    const picked = await run(["init", "--config", config, "--set", "ext-tasks-draft", "--set", "elicitation-codex", "--emit", "js"]);
    expect(picked.code).toBe(0);
    const written = readJson(config);
    expect(written.sets.map((s) => s.bundled)).toEqual(["ext-tasks-draft", "elicitation-codex"]);
    expect(written.emit).toBe("js");
    expect(written.outDir).toBe("src/generated/mcp-tasks");
    expect(picked.stdout).toContain("JavaScript");

    for (const argv of [
      ["--set", "tasks-2099"],
      ["--emit", "python"],
    ]) {
      const other = join(tempDir("bad-option"), CONFIG_NAME);
      const { code, stderr } = await run(["init", "--config", other, ...argv]);
      expect(code, argv.join(" ")).toBe(2);
      expect(stderr, argv.join(" ")).toContain(argv[1]);
      expect(existsSync(other), argv.join(" ")).toBe(false);
    }
  });

  it("will not make the config's own folder the output folder", async () => {
    const dir = tempDir("out-here");
    const { code, stderr } = await run(["init", "--config", join(dir, CONFIG_NAME), "--out", dir]);
    expect(code).toBe(2);
    expect(stderr).toContain("--out");
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("the bin in a project folder (spawned: it works in the working folder)", () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it("without a config: exit 2, a short message pointing at init and --help, no stack trace", () => {
    const dir = tempDir("no-config");
    for (const argv of [[], ["--check"], ["lint"]]) {
      const { code, stdout, stderr } = runBin(argv, dir);
      expect(code, argv.join(" ")).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toContain(CONFIG_NAME);
      expect(stderr).toContain("npx mcp-tasks-gen init");
      expect(stderr).toContain("--help");
      expect(stderr).not.toMatch(STACK_FRAME);
      expect(stderr.trim().split("\n")).toHaveLength(1);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it("init with no options, then generate, then --check: the default config and output folder", () => {
    const dir = tempDir("defaults");
    const init = runBin(["init"], dir);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("npx mcp-tasks-gen --check");
    expect(init.stdout).not.toContain("--config");
    expect(readJson(join(dir, CONFIG_NAME)).outDir).toBe("src/generated/mcp-tasks");

    // --strict, as README suggests for CI: the bundled schemas' lint findings are not the user's to
    // fix, so they are not printed and do not fail it.
    const generated = runBin(["--strict"], dir);
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stderr).toBe("");
    expect(readdirSync(join(dir, "src", "generated", "mcp-tasks")).sort()).toEqual([...BUNDLED_SET_NAMES].sort());
    const check = runBin(["--check", "--strict"], dir);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toBe("");
    expect(check.stdout).toContain(`${BUNDLED_SET_NAMES.length} set(s) up to date`);
    // `lint` is where they are shown.
    const lint = runBin(["lint"], dir);
    expect(lint.code, lint.stderr).toBe(0);
    expect(lint.stdout).toMatch(/\[unreachable-property\]/);
    // Four spawned runs over every bundled set, one of them generating all from scratch: a budget of its own
    // (it took over 60 s with three test files at once on a loaded 2-core machine).
  }, 240_000);
});

describe('a config set naming a bundled set ("bundled")', () => {
  let byPathSets: readonly GeneratedSet[];
  let bundledSets: readonly GeneratedSet[];
  let elsewhereSets: readonly GeneratedSet[];

  beforeAll(async () => {
    // The reference: the same schema files copied into a project and named by path, as a user's own schemas are.
    const copy = tempDir("by-path");
    cpSync(join(packageRoot(), "schemas"), join(copy, "schemas"), { recursive: true });
    const byPath = BUNDLED_SET_NAMES.map((name) => {
      const { schemas, remotes, bindings, core } = BUNDLED_SETS[name]!;
      return { name, schemas, remotes, ...(bindings ? { bindings } : {}), ...(core ? { core: { schema: core } } : {}) };
    });
    byPathSets = (await generate(readConfigFile(writeJson(join(copy, CONFIG_NAME), { sets: byPath })))).sets;
    const config = { outDir: "out", sets: BUNDLED_SET_NAMES.map((bundled) => ({ bundled })) };
    bundledSets = (await generate(readConfigFile(writeJson(join(tempDir("bundled"), CONFIG_NAME), config)))).sets;
    const deeper = join(tempDir("elsewhere"), "a", "b");
    mkdirSync(deeper, { recursive: true });
    elsewhereSets = (await generate(readConfigFile(writeJson(join(deeper, CONFIG_NAME), config)))).sets;
  }, 120_000);

  it("generates the code its schema files generate when named by path, its sources named mcp-tasks-gen:schemas/...", () => {
    expect(bundledSets.map((s) => s.name)).toEqual(byPathSets.map((s) => s.name));
    for (const [i, set] of bundledSets.entries()) {
      const repo = byPathSets[i]!;
      expect(set.files.map((f) => f.name), set.name).toEqual(repo.files.map((f) => f.name));
      for (const [k, file] of set.files.entries()) {
        // Headers and the validators' schemaPath strings name the files (longer names may wrap
        // lines differently); the fingerprint covers the code.
        const expected = withoutFingerprint(repo.files[k]!.contents).replace(/(^\/\/ {3}|")schemas\//gm, "$1mcp-tasks-gen:schemas/");
        expect(tokens(withoutFingerprint(file.contents)), `${set.name}/${file.name}`).toBe(tokens(expected));
      }
    }
    // The 2025-11-25 set's remote $refs into the MCP core schema resolve to the bundled copy.
    const tasks = bundledSets.find((s) => s.name === "tasks-2025-11-25")!;
    expect(sourceLines(tasks.files[0]!.contents).map((l) => l.split(" sha256:")[0])).toEqual([
      "//   mcp-tasks-gen:schemas/tasks-2025-11-25.schema.json",
      "//   mcp-tasks-gen:schemas/mcp-2025-11-25.schema.json",
    ]);
  });

  it("writes the same bytes wherever the config and the package are: no machine path in the output", () => {
    expect(elsewhereSets.map((s) => s.files)).toEqual(bundledSets.map((s) => s.files));
    for (const set of bundledSets) {
      for (const file of set.files) {
        expect(file.contents, file.name).not.toContain(tmpdir());
        expect(file.contents, file.name).not.toContain(projectRoot);
      }
    }
  });

  it("takes the set's own remotes over the bundled mapping, relative to the config (the core schema mapped there too)", async () => {
    const dir = tempDir("remote-override");
    const core = JSON.parse(readFileSync(join(projectRoot, "schemas", "mcp-core-2025-11-25.schema.json"), "utf8")) as {
      $defs: { RequestId: { description: string } };
    };
    core.$defs.RequestId.description = "A request id, as our copy of the core schema describes it.";
    mkdirSync(join(dir, "vendor"));
    writeJson(join(dir, "vendor", "core.json"), core);
    const config = writeJson(join(dir, CONFIG_NAME), {
      sets: [{ name: "tasks", bundled: "tasks-2025-11-25", remotes: { [CORE_URL]: "vendor/core.json" } }],
    });
    const [set] = (await generate(readConfigFile(config))).sets;
    expect(set!.outDir).toBe(join(dir, "generated", "tasks"));
    const types = set!.files.find((f) => f.name === "types.ts")!.contents;
    expect(sourceLines(types).map((l) => l.split(" sha256:")[0])).toEqual([
      "//   mcp-tasks-gen:schemas/tasks-2025-11-25.schema.json",
      "//   vendor/core.json",
    ]);
    expect(types).toContain("/** A request id, as our copy of the core schema describes it. */");
  });

  it("bundles the schema files and remote mappings this repository's own config generates from", () => {
    const own = JSON.parse(readFileSync(join(projectRoot, CONFIG_NAME), "utf8")) as {
      sets: { name: string; schemas: string[]; remotes?: Record<string, string>; bindings?: Record<string, unknown>; core?: { schema?: string } }[];
    };
    expect(own.sets.map((s) => s.name)).toEqual(BUNDLED_SET_NAMES);
    for (const set of own.sets) {
      const { $comment: _note, ...bindings } = set.bindings ?? {};
      expect({ schemas: set.schemas, remotes: set.remotes ?? {}, bindings, core: set.core?.schema }, set.name).toEqual({
        schemas: BUNDLED_SETS[set.name]!.schemas,
        remotes: BUNDLED_SETS[set.name]!.remotes,
        bindings: BUNDLED_SETS[set.name]!.bindings ?? {},
        core: BUNDLED_SETS[set.name]!.core,
      });
    }
  });

  it("rejects a mistaken bundled set with the location of the mistake", () => {
    const one = (set: unknown, extra: object = {}) => ({ sets: [set], ...extra });
    const names = BUNDLED_SET_NAMES.map((n) => `"${n}"`).join(", ");
    expect(configError(one({ bundled: "tasks-2099" }))).toBe(`${CONFIG_NAME}#/sets/0/bundled: unknown bundled set "tasks-2099"; the bundled sets are ${names}`);
    expect(configError(one({ bundled: 7 }))).toBe(`${CONFIG_NAME}#/sets/0/bundled: expected a non-empty string, got number`);
    // "bundled" with "schemas" is no mistake: a newer revision followed with the bundled set's core.
    expect(configError(one({ bundled: "ext-tasks-draft", schemas: ["mine.json"] }))).toBe("accepted");
    expect(configError(one({ name: "x" }))).toBe(
      `${CONFIG_NAME}#/sets/0: missing field "schemas" (your schema files, relative to the config) or "bundled" (a set that ships with mcp-tasks-gen: ${names})`,
    );
    expect(configError({ sets: [{ bundled: "ext-tasks-draft" }, { bundled: "ext-tasks-draft" }] })).toBe(
      `${CONFIG_NAME}#/sets/1/name: two sets are named "ext-tasks-draft"`,
    );
    expect(configError({ sets: [{ bundled: "ext-tasks-draft" }, { name: "draft-again", bundled: "ext-tasks-draft" }] })).toBe("accepted");
    expect(configError(one({ bundled: "ext-tasks-draft" }, { emit: "py" }))).toBe(
      `${CONFIG_NAME}#/emit: expected "ts" or "js" (TypeScript, or JavaScript ES modules with .d.ts declarations), got the string "py"`,
    );
  });

  it("lint names a bundled schema mcp-tasks-gen:schemas/... wherever it runs", async () => {
    const config = writeJson(join(tempDir("lint"), CONFIG_NAME), { sets: [{ bundled: "ext-tasks-draft" }] });
    const { code, stdout } = await run(["lint", "--json", "--config", config]);
    expect(code).toBe(0);
    const files = (JSON.parse(stdout) as { diagnostics: { file: string }[] }).diagnostics.map((d) => d.file);
    expect(files.length).toBeGreaterThan(0);
    // The bound input shapes reach the Codex elicitation schema too: every file is named the bundled way.
    expect(files).toContain("mcp-tasks-gen:schemas/ext-tasks-draft.schema.json");
    for (const file of files) expect(file).toMatch(/^mcp-tasks-gen:schemas\/[\w.-]+\.json$/);
  });
});
