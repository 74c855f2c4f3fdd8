import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { beyondLint, runCli } from "../../support/cli.js";
import { fixturePath } from "../../support/paths.js";

/**
 * Options that must not surprise: --verbose only ever says more, a misspelt option is
 * answered with the nearest one the command knows, and a set without stubs keeps its status helpers.
 */

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-cli-options-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The extension's newest revision with "input_required" gone from every status enum: task methods, but no status model. */
function withoutInputRequired(): string {
  const text = readFileSync(fixturePath("mcp-spec", "ext-tasks-e434597", "schema.json"), "utf8");
  const schema = JSON.parse(text, (_key, value: unknown) =>
    Array.isArray(value) ? value.filter((v) => !(v && typeof v === "object" && (v as { const?: unknown }).const === "input_required")) : value,
  );
  const path = join(work, "no-input-required.schema.json");
  writeFileSync(path, JSON.stringify(schema));
  return path;
}

describe("--verbose never changes an exit code", () => {
  it("a set generated without stubs whose stubs could not be made: exit 0 with and without --verbose, the reason as a note", async () => {
    const schema = withoutInputRequired();
    const quiet = await runCli(["--schema", schema, "--out", join(work, "quiet"), "--no-stubs"]);
    const verbose = await runCli(["--schema", schema, "--out", join(work, "verbose"), "--no-stubs", "--verbose"]);
    expect(quiet.code).toBe(0);
    expect(verbose.code).toBe(0);
    expect(beyondLint(verbose.stderr)).toMatch(/^note: .*has no task status definition: TaskStatus is the nearest, but it lacks "input_required"/);
  });

  it("says exactly what a status model lacks when stubs are asked for", async () => {
    const run = await runCli(["--schema", withoutInputRequired(), "--out", join(work, "stubs")]);
    expect(run.code).toBe(2);
    expect(beyondLint(run.stderr)).toMatch(
      /no-input-required\.schema\.json#\/\$defs\/TaskStatus: `tasks\/get` has no task status definition: TaskStatus is the nearest, but it lacks "input_required"; expected a definition whose values include working, input_required, completed, failed, cancelled \(a revision may add more\)$/,
    );
  });
});

describe("an unknown option", () => {
  it.each([
    [["--schem", "x.json"], "mcp-tasks-gen: Unknown option '--schem'; did you mean --schema?"],
    [["diff", "--jsn", "a", "b"], "mcp-tasks-gen diff: Unknown option '--jsn'; did you mean --json?"],
    [["lint", "--strct"], "mcp-tasks-gen lint: Unknown option '--strct'; did you mean --strict?"],
    [["--no-stub"], "mcp-tasks-gen: Unknown option '--no-stub'; did you mean --no-stubs?"],
  ])("%j gets the nearest known one", async (argv, message) => {
    const run = await runCli(argv);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`${message} (see mcp-tasks-gen --help)\n`);
  });

  it("far from every known option gets no guess", async () => {
    const run = await runCli(["--zzzzzzzz"]);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toMatch(/did you mean/);
  });
});

describe("--no-stubs", () => {
  it("keeps status.ts where the schema has a status model, also one that adds a status", async () => {
    const out = join(work, "paused");
    const run = await runCli(["--schema", fixturePath("revisions", "ext-tasks-e434597-paused.schema.json"), "--out", out, "--no-stubs", "--verbose"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/status\.ts/);
    expect(readFileSync(join(out, "status.ts"), "utf8")).toMatch(/"paused"/);
  });
});

describe("following an upstream revision with its schema alone (no core)", () => {
  it("lint and --verbose say that the flows fall back to structural checks, and name core", async () => {
    const schema = fixturePath("mcp-spec", "ext-tasks-e434597", "schema.json");
    const lint = await runCli(["lint", "--schema", schema]);
    const note =
      'note: set schema: has no "core" schema, so the stubs check subscriptions/listen params, the listen acknowledgement, InputRequiredResult (multi round-trip), tools/list pages, server/discover results, -32022 error data, -32021 error data structurally (no generated validator); name the revision\'s core MCP schema under "core" (as the bundled sets do) to generate and use them';
    expect(lint.code).toBe(0);
    expect(lint.stdout.split("\n").concat(lint.stderr.split("\n"))).toContain(note);
    const verbose = await runCli(["--schema", schema, "--out", join(work, "no-core"), "--verbose"]);
    expect(verbose.code).toBe(0);
    // Generating names the ad-hoc set after its output folder.
    expect(beyondLint(verbose.stderr).split("\n")).toContain(note.replace("set schema:", "set no-core:"));
  });
});

describe('"bundled" with "schemas": a newer revision followed early keeps the bundled set\'s core', () => {
  it("generates the core definitions the bundled set has, with no note, where the schema alone gets the note and fewer types", async () => {
    const dir = join(work, "early");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "upstream.schema.json"), readFileSync(fixturePath("revisions", "ext-tasks-e434597-paused.schema.json")));
    const config = join(dir, "mcp-tasks-gen.config.json");
    writeFileSync(config, JSON.stringify({ outDir: join(dir, "out"), sets: [{ bundled: "ext-tasks-draft", schemas: ["upstream.schema.json"] }, { name: "alone", schemas: ["upstream.schema.json"] }] }));
    const run = await runCli(["--config", config, "--verbose"]);
    expect(run.code).toBe(0);
    const notes = beyondLint(run.stderr).split("\n").filter((l) => l.startsWith("note:"));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^note: set alone: has no "core" schema, so the stubs check /);
    const types = (set: string) => readFileSync(join(dir, "out", set, "types.ts"), "utf8");
    expect(types("ext-tasks-draft")).toMatch(/^\/\/ {3}mcp-tasks-gen:schemas\/ext-tasks-draft\.core\.schema\.json sha256:/m);
    for (const core of ["CallToolResult", "InputRequiredResult", "SubscriptionsListenRequestParams"]) {
      expect(types("ext-tasks-draft"), core).toMatch(new RegExp(`export (type|interface) ${core}\\b`));
      expect(types("alone"), core).not.toMatch(new RegExp(`export (type|interface) ${core}\\b`));
    }
    expect(types("ext-tasks-draft")).toMatch(/"paused"/);
    // The bundled set's lint treatment: its findings are lint's to show, so --check --strict passes.
    expect((await runCli(["--config", config, "--check", "--strict"])).code).toBe(0);
  });
});
