import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { displayPath } from "../../../generator/config/config.js";
import { LINT_RULES } from "../../../generator/lint/rules.js";
import { projectRoot } from "../../support/paths.js";
import { treeSnapshot } from "../../support/tree.js";

/**
 * Lint through the command: findings on stderr while generating (exit code unchanged),
 * `--strict` (exit 2, nothing written), and `mcp-tasks-gen lint [--json]`.
 */

const FIXTURES = join(projectRoot, "test", "fixtures", "lint");
const TWO_WARNINGS = join(FIXTURES, "unknown-format.schema.json");
const CLEAN = join(FIXTURES, "ref-siblings-2020.schema.json");
const NOT_JSON = join(projectRoot, "test", "fixtures", "bad-input", "not-json.schema.json");
/** How the CLI names the fixture: relative to the working folder, as in error messages. */
const SHOWN = displayPath(TWO_WARNINGS, process.cwd());
const EXPECTED_LINES = [
  `${SHOWN}#/$defs/FiresMadeUp/format: [unknown-format] format "colour" is not a JSON Schema format; it is kept as documentation and nothing checks it`,
  `${SHOWN}#/$defs/FiresOpenApi/format: [unknown-format] format "int32" is not a JSON Schema format ("int32" is an OpenAPI/schemars format, not a JSON Schema one); it is kept as documentation and nothing checks it`,
];

/** The fixture defines no task methods: lint says why it gets no stubs (generating does so quietly). */
const NO_STUBS_NOTE =
  "note: set unknown-format: gets no client.ts or server.ts: the schema defines no task methods (no JSON-RPC request whose `method` is a `tasks/` constant)";

const run = runCli;

const lines = (text: string) => text.split("\n").filter((l) => l !== "");

const temps: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-lint-cli-"));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function writeConfig(dir: string, config: unknown): string {
  const path = join(dir, "mcp-tasks-gen.config.json");
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

describe("lint findings while generating", () => {
  it("prints each finding as file#/pointer: [rule-id] message on stderr, exits 0 and writes the files", async () => {
    const out = join(tempDir(), "formats");
    const { code, stderr } = await run(["--schema", TWO_WARNINGS, "--out", out]);
    expect(lines(stderr)).toEqual(EXPECTED_LINES);
    expect(code).toBe(0);
    expect(existsSync(join(out, "types.ts"))).toBe(true);
  });

  it("--strict: the findings are errors, exit 2, and nothing is written (no new folder)", async () => {
    const out = join(tempDir(), "formats");
    const { code, stdout, stderr } = await run(["--schema", TWO_WARNINGS, "--out", out, "--strict"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(lines(stderr)).toEqual([...EXPECTED_LINES, "mcp-tasks-gen --strict: 2 lint finding(s) are errors; nothing written"]);
    expect(existsSync(out)).toBe(false);
  });

  it("--strict leaves existing output exactly as it was", async () => {
    const dir = tempDir();
    const out = join(dir, "formats");
    expect((await run(["--schema", TWO_WARNINGS, "--out", out])).code).toBe(0);
    const before = treeSnapshot(dir);
    expect((await run(["--schema", TWO_WARNINGS, "--out", out, "--strict"])).code).toBe(2);
    expect(treeSnapshot(dir)).toEqual(before);
  });

  it("--strict on a schema without findings generates as usual", async () => {
    const out = join(tempDir(), "clean");
    const { code, stderr } = await run(["--schema", CLEAN, "--out", out, "--strict"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(existsSync(join(out, "types.ts"))).toBe(true);
  });
});

describe("mcp-tasks-gen lint", () => {
  it("prints the findings and a summary on stdout, exits 0 and writes nothing", async () => {
    const dir = tempDir();
    const before = treeSnapshot(dir);
    const { code, stdout, stderr } = await run(["lint", "--schema", TWO_WARNINGS]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(lines(stdout)).toEqual([...EXPECTED_LINES, NO_STUBS_NOTE, "mcp-tasks-gen lint: 1 set(s), 0 error(s), 2 warning(s)"]);
    expect(treeSnapshot(dir)).toEqual(before);
  });

  it("--json: one object per finding (set, rule, severity, file, pointer, message) and a summary", async () => {
    const { code, stdout } = await run(["lint", "--json", "--schema", TWO_WARNINGS]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      diagnostics: [
        {
          set: "unknown-format",
          rule: "unknown-format",
          severity: "warning",
          file: SHOWN,
          pointer: "/$defs/FiresMadeUp/format",
          message: 'format "colour" is not a JSON Schema format; it is kept as documentation and nothing checks it',
        },
        {
          set: "unknown-format",
          rule: "unknown-format",
          severity: "warning",
          file: SHOWN,
          pointer: "/$defs/FiresOpenApi/format",
          message: expect.stringContaining('format "int32"'),
        },
      ],
      notes: [{ set: "unknown-format", message: expect.stringMatching(/^gets no client\.ts or server\.ts: the schema defines no task methods/) }],
      summary: { sets: 1, errors: 0, warnings: 2 },
    });
  });

  it("--strict counts warnings as errors: exit 2", async () => {
    const { code, stdout } = await run(["lint", "--json", "--strict", "--schema", TWO_WARNINGS]);
    expect(code).toBe(2);
    const report = JSON.parse(stdout) as { diagnostics: { severity: string }[]; summary: unknown };
    expect(report.diagnostics.map((d) => d.severity)).toEqual(["error", "error"]);
    expect(report.summary).toEqual({ sets: 1, errors: 2, warnings: 0 });
    expect((await run(["lint", "--strict", "--schema", CLEAN])).code).toBe(0);
  });

  it("lints every set of a config, bundled ones too; the ext-tasks draft's unreachable _meta is among the findings", async () => {
    const config = writeConfig(tempDir(), { sets: [{ bundled: "tasks-2025-11-25" }, { bundled: "ext-tasks-2026-05-22" }, { bundled: "elicitation-codex" }] });
    const { code, stdout } = await run(["lint", "--json", "--config", config]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { diagnostics: { set: string; rule: string; pointer: string }[]; summary: { sets: number } };
    expect(report.summary.sets).toBe(3);
    expect(report.diagnostics).toContainEqual(
      expect.objectContaining({ set: "ext-tasks-2026-05-22", rule: "unreachable-property", pointer: "/$defs/CreateTaskResult/allOf/0/properties/_meta" }),
    );
  });

  it("bad input is exit 2 with one located line, as when generating", async () => {
    const { code, stdout, stderr } = await run(["lint", "--schema", NOT_JSON]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^[^\n]*not-json\.schema\.json#: not valid JSON[^\n]*\n$/);
  });

  it("an unknown flag is a usage error", async () => {
    const { code, stderr } = await run(["lint", "--out", "x"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--out");
  });
});

describe("bundled sets are quiet; a set's \"lint\" silences a rule", () => {
  /** A project with the bundled sets that have findings (the draft's unreachable _meta, Codex's schemars formats). */
  function bundledProject(sets: unknown[] = [{ bundled: "ext-tasks-2026-05-22" }, { bundled: "elicitation-codex" }]): string {
    return writeConfig(tempDir(), { outDir: "out", sets });
  }

  it("generating, --strict and --check --strict print no finding about a bundled set and exit 0; lint still lists them", async () => {
    const config = bundledProject();
    const generated = await run(["--config", config, "--strict"]);
    expect(generated.stderr).toBe("");
    expect(generated.code).toBe(0);
    const check = await run(["--config", config, "--check", "--strict"]);
    expect(check.stderr).toBe("");
    expect(check.code).toBe(0);
    const { code, stdout } = await run(["lint", "--json", "--config", config]);
    expect(code).toBe(0);
    const rules = new Set((JSON.parse(stdout) as { diagnostics: { rule: string }[] }).diagnostics.map((d) => d.rule));
    expect(rules).toEqual(new Set(["unreachable-property", "unknown-format"]));
    expect((await run(["lint", "--strict", "--config", config])).code).toBe(2);
  });

  it('"warn" shows a bundled set\'s findings of that rule while generating (and --strict fails on them)', async () => {
    const config = bundledProject([{ bundled: "ext-tasks-2026-05-22", lint: { "unreachable-property": "warn" } }]);
    const { code, stderr } = await run(["--config", config, "--check"]);
    expect(code).toBe(1); // nothing generated yet
    const found = lines(stderr).filter((l) => / \[[a-z-]+\] /.test(l));
    expect(found.length).toBe(4);
    expect(found.every((l) => l.includes("[unreachable-property]"))).toBe(true);
    const strict = await run(["--config", config, "--strict"]);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain("mcp-tasks-gen --strict: 4 lint finding(s) are errors; nothing written");
  });

  it('"off" silences a rule of the user\'s own set everywhere (lint too) and leaves the other rules alone', async () => {
    const dir = tempDir();
    copyFileSync(TWO_WARNINGS, join(dir, "formats.schema.json"));
    copyFileSync(join(FIXTURES, "unsatisfiable.schema.json"), join(dir, "unsatisfiable.schema.json"));
    const own = (lint?: unknown) => writeConfig(dir, { outDir: "out", sets: [{ name: "own", schemas: ["formats.schema.json", "unsatisfiable.schema.json"], ...(lint ? { lint } : {}) }] });
    const rulesOf = async () => (JSON.parse((await run(["lint", "--json", "--config", join(dir, "mcp-tasks-gen.config.json")])).stdout) as { diagnostics: { rule: string }[] }).diagnostics.map((d) => d.rule);

    own();
    const before = await rulesOf();
    expect(new Set(before)).toEqual(new Set(["unknown-format", "unsatisfiable"]));
    const config = own({ $comment: "why: the schema comes from elsewhere", "unknown-format": "off" });
    expect(await rulesOf()).toEqual(before.filter((r) => r !== "unknown-format"));
    const { code, stderr } = await run(["--config", config]);
    expect(code).toBe(0);
    const shown = lines(stderr);
    expect(shown.length).toBe(before.length - 2);
    expect(shown.every((l) => l.includes("[unsatisfiable]"))).toBe(true);
  });

  it("a finding two sets share stays for the set that did not silence it", async () => {
    const dir = tempDir();
    copyFileSync(TWO_WARNINGS, join(dir, "formats.schema.json"));
    const config = writeConfig(dir, {
      outDir: "out",
      sets: [
        { name: "quiet", schemas: ["formats.schema.json"], lint: { "unknown-format": "off" } },
        { name: "loud", schemas: ["formats.schema.json"] },
      ],
    });
    const report = JSON.parse((await run(["lint", "--json", "--config", config])).stdout) as { diagnostics: { set: string }[] };
    expect(report.diagnostics.map((d) => d.set)).toEqual(["loud", "loud"]);
  });

  it("a mistyped rule id, an unknown one and a wrong setting are config errors at their place (exit 2, nothing written)", async () => {
    const cases: [unknown, string][] = [
      [{ "unreachable-propery": "off" }, 'mcp-tasks-gen.config.json#/sets/0/lint/unreachable-propery: unknown lint rule "unreachable-propery"; did you mean "unreachable-property"?'],
      [{ "no-such-rule": "off" }, `mcp-tasks-gen.config.json#/sets/0/lint/no-such-rule: unknown lint rule "no-such-rule"; the rules are ${LINT_RULES.map((r) => `"${r.id}"`).join(", ")}`],
      [{ "unknown-format": "error" }, 'mcp-tasks-gen.config.json#/sets/0/lint/unknown-format: expected "off" or "warn" (off: never report this rule for the set), got the string "error"'],
      [["unknown-format"], "mcp-tasks-gen.config.json#/sets/0/lint: expected an object, got an array"],
    ];
    for (const [lint, message] of cases) {
      const dir = tempDir();
      writeConfig(dir, { outDir: "out", sets: [{ bundled: "elicitation-codex", lint }] });
      const cwd = process.cwd();
      // Messages name the config relative to the working folder; the config is given by its absolute path here.
      const { code, stderr } = await run(["--config", join(dir, "mcp-tasks-gen.config.json")]);
      expect(code, message).toBe(2);
      expect(stderr.trim(), message).toBe(message.replace("mcp-tasks-gen.config.json", displayPath(join(dir, "mcp-tasks-gen.config.json"), cwd)));
      expect(existsSync(join(dir, "out")), message).toBe(false);
    }
  });
});
