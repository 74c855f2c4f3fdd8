import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkConfig, resolveConfig } from "../../../generator/config/config.js";
import { GeneratorError } from "../../../generator/diagnostics.js";
import { PART_SPECS, RUNTIME_PARTS, type RuntimePart } from "../../../generator/emit/runtime-parts.js";
import { generate } from "../../../generator/generate.js";
import { BUNDLED_SET_NAMES, BUNDLED_SETS } from "../../../generator/init/bundled.js";
import { initConfigText } from "../../../generator/init/init.js";
import { beyondLint, runCli } from "../../support/cli.js";
import { STRICT_COMPILER_OPTIONS, typeCheckInMemory } from "../../support/typescript.js";

/**
 * Runtime parts (README, "Runtime parts"): a set's `runtime` option writes them into its folder,
 * each header naming what it needs; a part the set's stubs cannot carry is a located config error;
 * `"stubs": false` asks for types and validators only.
 */

/** A part's file in a set's folder (the static runtime's parts folder). */
const partFile = (part: string) => `runtime/parts/${part}.ts`;

const temps: string[] = [];
function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "mcp-tasks-gen-parts-")));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** Generates one bundled set from a config object; the files by name, or the error's one line. */
async function generateBundled(set: Record<string, unknown>): Promise<Map<string, string> | string> {
  const file = "mcp-tasks-gen.config.json";
  try {
    const config = resolveConfig(checkConfig({ sets: [set] }, file), tempDir(), file);
    const [generated] = (await generate(config)).sets;
    return new Map(generated!.files.map((f) => [f.name, f.contents]));
  } catch (e) {
    if (e instanceof GeneratorError) return e.message;
    throw e;
  }
}

describe("which sets take which parts", () => {
  it.each(BUNDLED_SET_NAMES)("%s takes exactly the parts its catalogue entry lists (init relies on the list)", async (name) => {
    const listed = BUNDLED_SETS[name]!.parts;
    if (listed.length > 0) {
      const files = await generateBundled({ bundled: name, runtime: listed });
      expect(typeof files).not.toBe("string");
      for (const part of listed) expect((files as Map<string, string>).has(partFile(part)), part).toBe(true);
    }
    for (const part of RUNTIME_PARTS.filter((p) => !listed.includes(p))) {
      const message = await generateBundled({ bundled: name, runtime: [part] });
      expect(message, `${name} with ${part}`).toMatch(new RegExp(`^mcp-tasks-gen\\.config\\.json#/sets/0/runtime/0: "${part}" needs `));
    }
  });

  it("the error points at the entry that asks (its index), and says what to do for a 2025-11-25 server", async () => {
    expect(await generateBundled({ bundled: "tasks-2025-11-25", runtime: ["stdio", "http-server"] })).toBe(
      'mcp-tasks-gen.config.json#/sets/0/runtime/1: "http-server" needs a Tasks server of the extension (stateless) revision; this set\'s server is the 2025-11-25 kind (sessions): mount it inside the MCP SDK instead (README, "Runtime parts")',
    );
  });

  it('with "stubs": false every part is refused, naming the option', async () => {
    expect(await generateBundled({ bundled: "ext-tasks-draft", stubs: false, runtime: ["http-client"] })).toBe(
      'mcp-tasks-gen.config.json#/sets/0/runtime/0: "http-client" needs a Tasks client, but the set says "stubs": false',
    );
  });
});

describe("what a part's file is", () => {
  const needsOf = (files: Map<string, string>, part: string) => /^\/\/ Needs: (.*)$/m.exec(files.get(partFile(part))!)?.[1];

  it("each part's header names what it needs: the peer and its range, or Node's typings", async () => {
    // sdk-server takes the 2025-11-25 kind of server; every other part goes into the extension's set.
    const files = (await generateBundled({ bundled: "ext-tasks-draft", runtime: RUNTIME_PARTS.filter((p) => p !== "sdk-server") })) as Map<string, string>;
    const v2025 = (await generateBundled({ bundled: "tasks-2025-11-25", runtime: ["sdk-server"] })) as Map<string, string>;
    files.set(partFile("sdk-server"), v2025.get(partFile("sdk-server"))!);
    expect(needsOf(v2025, "sdk-server")).toContain("@modelcontextprotocol/sdk ^1.24");
    const needs = Object.fromEntries(RUNTIME_PARTS.map((part) => [part, needsOf(files, part)]));
    expect(needs).toEqual(Object.fromEntries(RUNTIME_PARTS.map((part) => [part, PART_SPECS[part].needsLine])));
    expect(needs["sqlite-store"]).toContain("better-sqlite3 ^12");
    expect(needs["sdk-client"]).toContain("@modelcontextprotocol/sdk ^1.24");
    // The set's other files, and the module two parts share, have no such line: they need nothing from outside.
    for (const [name, contents] of files) {
      if (!RUNTIME_PARTS.some((part) => partFile(part) === name)) expect(contents, name).not.toMatch(/^\/\/ Needs:/m);
    }
  });

  it("parts are written only when asked: without runtime a set has none of them", async () => {
    const files = (await generateBundled({ bundled: "ext-tasks-draft" })) as Map<string, string>;
    const parts = [...RUNTIME_PARTS, "mcp-router"].filter((part) => files.has(partFile(part)));
    expect(parts).toEqual([]);
  });

  it("two parts share mcp-router.ts, written once", async () => {
    const files = (await generateBundled({ bundled: "ext-tasks-draft", runtime: ["http-server", "stdio"] })) as Map<string, string>;
    expect([...files.keys()].filter((n) => n === partFile("mcp-router"))).toEqual([partFile("mcp-router")]);
  });
});

describe("JavaScript output", () => {
  it('with "emit": "js" each part is a .js module and its .d.ts, both with the part\'s header line', async () => {
    const file = "mcp-tasks-gen.config.json";
    const config = resolveConfig(checkConfig({ emit: "js", sets: [{ bundled: "ext-tasks-draft", runtime: ["stdio", "sqlite-store"] }] }, file), tempDir(), file);
    const files = new Map((await generate(config)).sets[0]!.files.map((f) => [f.name, f.contents]));
    for (const name of ["stdio.js", "stdio.d.ts", "sqlite-store.js", "sqlite-store.d.ts"]) {
      expect(files.get(`runtime/parts/${name}`), name).toContain(`// Needs: ${PART_SPECS[name.startsWith("stdio") ? "stdio" : "sqlite-store"].needsLine}`);
    }
    expect(files.get("runtime/parts/sqlite-store.js")).toContain('import Database from "better-sqlite3";');
    expect(files.get("runtime/parts/mcp-router.js")).not.toContain("// Needs:");
    // Generates and compiles every part of three sets to JavaScript: ~20 s alone, over a minute on a loaded 2-core machine.
  }, 240_000);
});

describe('"stubs": false', () => {
  it("writes types and validators without client or server (the header records the option)", async () => {
    const files = (await generateBundled({ bundled: "ext-tasks-draft", stubs: false })) as Map<string, string>;
    expect([...files.keys()].sort()).toEqual(
      ["runtime/protocol/elicitation-forms.ts", "elicitation.ts", "index.ts", "runtime/protocol/json.ts", "standard-schema.ts", "status.ts", "types.ts", "validators.ts"].sort(),
    );
    expect(files.get("index.ts")).not.toMatch(/client|server/);
    // And it compiles on its own, strictly, with no Node or DOM typings.
    const diagnostics = typeCheckInMemory(files, { ...STRICT_COMPILER_OPTIONS, lib: ["lib.es2022.d.ts"] });
    expect(diagnostics.map((d) => `${d.file}:${d.line} TS${d.code}`)).toEqual([]);
    expect(files.get("types.ts")).toContain('// Options: {"allOf":"json-schema","defaultDialect":"2020-12","stubs":false}');
  });
});

describe("the runtime option as written", () => {
  const verdict = (set: Record<string, unknown>) => {
    try {
      checkConfig({ sets: [set] }, "c.json");
      return "accepted";
    } catch (e) {
      return (e as Error).message;
    }
  };

  it("a misspelt part is reported where it is, with the nearest name; a repeated one too", () => {
    expect(verdict({ bundled: "ext-tasks-draft", runtime: ["stdio", "http-sever"] })).toBe('c.json#/sets/0/runtime/1: unknown runtime part "http-sever"; did you mean "http-server"?');
    expect(verdict({ bundled: "ext-tasks-draft", runtime: ["stdio", "stdio"] })).toBe('c.json#/sets/0/runtime/1: "stdio" is listed twice');
    expect(verdict({ bundled: "ext-tasks-draft", stubs: "no" })).toMatch(/^c\.json#\/sets\/0\/stubs: expected true or false/);
  });

  it("init --runtime gives each set the asked-for parts it can take, and none to a set that takes none", () => {
    const text = initConfigText({ schema: "./s.json", outDir: "out", sets: [...BUNDLED_SET_NAMES], emit: "ts", extension: ".ts", runtime: ["http-server", "sqlite-store"] });
    const config = JSON.parse(text) as { sets: { name: string; runtime?: RuntimePart[] }[] };
    expect(Object.fromEntries(config.sets.map((s) => [s.name, s.runtime]))).toEqual({
      "tasks-2025-11-25": ["sqlite-store"],
      "ext-tasks-draft": ["http-server", "sqlite-store"],
      "ext-tasks-2026-05-22": ["http-server", "sqlite-store"],
      "elicitation-codex": undefined,
    });
    expect(verdict(config.sets[1]!)).toBe("accepted");
  });
});

describe("CLI", () => {
  it("--schema with --runtime writes the parts; a part the set cannot take is one line, exit 2, nothing written", async () => {
    const dir = tempDir();
    const schema = join(dir, "tasks.schema.json");
    writeFileSync(schema, readFileSync(join(import.meta.dirname, "../../../schemas/ext-tasks-draft.schema.json"), "utf8"));
    const ok = await runCli(["--schema", schema, "--out", join(dir, "ok"), "--runtime", "stdio,http-server", "--runtime", "http-client"]);
    expect([ok.code, beyondLint(ok.stderr)]).toEqual([0, ""]);
    for (const part of ["stdio", "http-server", "http-client", "mcp-router"]) expect(existsSync(join(dir, "ok", partFile(part))), part).toBe(true);

    const refused = await runCli(["--schema", schema, "--out", join(dir, "no"), "--no-stubs", "--runtime", "stdio"]);
    expect([refused.code, beyondLint(refused.stderr)]).toEqual([2, '--runtime stdio: "stdio" needs a Tasks server, but the set says "stubs": false']);
    expect(existsSync(join(dir, "no"))).toBe(false);
  });

  it("init --runtime writes a config whose sets generate with those parts (and without them where a set cannot take them)", async () => {
    const dir = tempDir();
    const config = join(dir, "mcp-tasks-gen.config.json");
    const init = await runCli(["init", "--config", config, "--out", join(dir, "gen"), "--set", "ext-tasks-draft", "--set", "tasks-2025-11-25", "--runtime", "http-server,stdio"]);
    expect([init.code, init.stderr]).toEqual([0, ""]);
    const generated = await runCli(["--config", config]);
    expect([generated.code, beyondLint(generated.stderr)]).toEqual([0, ""]);
    const has = (set: string, file: string) => existsSync(join(dir, "gen", set, file));
    expect(["http-server", "stdio", "mcp-router"].map((f) => has("ext-tasks-draft", partFile(f)))).toEqual([true, true, true]);
    expect(["http-server", "stdio"].map((f) => has("tasks-2025-11-25", partFile(f)))).toEqual([false, true]);
  });

  it("--runtime names known parts, and goes with --schema (a config says it per set)", async () => {
    const dir = tempDir();
    const schema = join(dir, "x.json");
    writeFileSync(schema, JSON.stringify({ $defs: { A: { type: "string" } } }));
    const unknown = await runCli(["--schema", schema, "--out", join(dir, "o"), "--runtime", "stdio,sqlite-stor"]);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([2, '--runtime sqlite-stor: unknown runtime part "sqlite-stor"; did you mean "sqlite-store"?']);
    expect(existsSync(join(dir, "o"))).toBe(false);
    const config = await runCli(["--config", join(dir, "c.json"), "--runtime", "stdio"]);
    expect([config.code, config.stderr.trim()]).toEqual([2, '--runtime goes with --schema; in a config, list the parts under "runtime" of the set']);
  });
});
