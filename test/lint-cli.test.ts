import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./support/cli.js";
import { displayPath } from "../generator/config/config.js";
import { projectRoot } from "./support/paths.js";
import { treeSnapshot } from "./support/tree.js";

/**
 * Lint through the command: findings on stderr while generating (exit code unchanged),
 * `--strict` (exit 2, nothing written), and `mcp-tasks-gen lint [--json]`.
 */

const FIXTURES = join(projectRoot, "test", "fixtures", "lint");
const TWO_WARNINGS = join(FIXTURES, "unknown-format.schema.json");
const CLEAN = join(FIXTURES, "ref-siblings-2020.schema.json");
const NOT_JSON = join(projectRoot, "test", "fixtures", "bad-input", "not-json.schema.json");
const REPO_CONFIG = join(projectRoot, "mcp-tasks-gen.config.json");
/** How the CLI names the fixture: relative to the working folder, as in error messages. */
const SHOWN = displayPath(TWO_WARNINGS, process.cwd());
const EXPECTED_LINES = [
  `${SHOWN}#/$defs/FiresMadeUp/format: [unknown-format] format "colour" is not a JSON Schema format; it is kept as documentation and nothing checks it`,
  `${SHOWN}#/$defs/FiresOpenApi/format: [unknown-format] format "int32" is not a JSON Schema format ("int32" is an OpenAPI/schemars format, not a JSON Schema one); it is kept as documentation and nothing checks it`,
];


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
    expect(lines(stdout)).toEqual([...EXPECTED_LINES, "mcp-tasks-gen lint: 1 set(s), 0 error(s), 2 warning(s)"]);
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

  it("lints every set of a config; the ext-tasks draft's unreachable _meta is among the findings", async () => {
    const { code, stdout } = await run(["lint", "--json", "--config", REPO_CONFIG]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { diagnostics: { set: string; rule: string; pointer: string }[]; summary: { sets: number } };
    expect(report.summary.sets).toBe(3);
    expect(report.diagnostics).toContainEqual(
      expect.objectContaining({ set: "ext-tasks-draft", rule: "unreachable-property", pointer: "/$defs/CreateTaskResult/allOf/0/properties/_meta" }),
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
