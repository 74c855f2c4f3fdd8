import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./support/cli.js";
import { treeSnapshot } from "./support/tree.js";
import { displayPath } from "../generator/config/config.js";
import { projectRoot } from "./support/paths.js";

/**
 * Bad input stops generation with exit 2 and one line `file#/json/pointer: what is wrong`, and
 * leaves everything on disk as it was. Each case runs in a temp project whose `generated/` was
 * first filled by a good run, so "nothing written" is checked against real existing output.
 */

const FIXTURES = join(projectRoot, "test", "fixtures", "bad-input");
const SCHEMA = "schemas/input.schema.json";
const CONFIG = "mcp-tasks-gen.config.json";


const run = runCli;

const snapshot = treeSnapshot;

let project: string;
let configPath: string;

const writeConfig = (config: unknown) => writeFileSync(configPath, JSON.stringify(config, null, 2));
const goodConfig = { outDir: "generated", sets: [{ name: "notes", schemas: [SCHEMA] }] };

beforeEach(async () => {
  project = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-bad-input-"));
  configPath = join(project, CONFIG);
  mkdirSync(join(project, "schemas"));
  copyFileSync(join(FIXTURES, "good.schema.json"), join(project, SCHEMA));
  writeConfig(goodConfig);
  // Existing output that a failed run must leave untouched.
  const good = await run(["--config", configPath]);
  expect(good, good.stderr).toMatchObject({ code: 0 });
  expect(readdirSync(join(project, "generated", "notes"))).toContain("types.ts");
});

afterEach(() => {
  rmSync(project, { recursive: true, force: true });
});

/**
 * Runs the generator on the project as it is now and checks the failure contract: exit 2, exactly
 * one line on stderr starting with `where: `, containing `phrase`, and the project tree unchanged
 * (no file rewritten or removed, no staging folder left beside `generated/`).
 */
async function expectRejected(where: string, phrase: string | RegExp): Promise<void> {
  const before = snapshot(project);
  const { code, stdout, stderr } = await run(["--config", configPath]);
  expect(stderr).toMatch(/^[^\n]+\n$/);
  expect(stderr.slice(0, where.length + 2), `stderr: ${stderr}`).toBe(`${where}: `);
  expect(stderr.slice(where.length + 2)).toMatch(phrase);
  expect(code).toBe(2);
  expect(stdout).toBe("");
  expect(snapshot(project)).toEqual(before);
}

/**
 * Replaces the project's schema with a bad fixture, then expects the run to be rejected. The
 * CLI names schema files relative to the working folder (so a terminal can open them), which for
 * this temporary project is its absolute path.
 */
async function expectSchemaRejected(fixture: string, pointer: string, phrase: string | RegExp): Promise<void> {
  copyFileSync(join(FIXTURES, fixture), join(project, SCHEMA));
  await expectRejected(`${displayPath(join(project, SCHEMA), process.cwd())}#${pointer}`, phrase);
}

describe("bad schema input: exit 2, one located line, nothing written", () => {
  it("a schema file that is not JSON", async () => {
    await expectSchemaRejected("not-json.schema.json", "", /^not valid JSON/);
  });

  it("an unknown $schema dialect", async () => {
    await expectSchemaRejected(
      "unknown-dialect.schema.json",
      "/$schema",
      'unknown $schema dialect "http://json-schema.org/draft-04/schema#"',
    );
  });

  it("a local $ref to a missing definition", async () => {
    await expectSchemaRejected("unresolved-ref.schema.json", "/$defs/Note/properties/author/$ref", '$ref "#/$defs/Author" does not resolve');
  });

  it("a remote $ref with no local mapping says to map it under remotes", async () => {
    await expectSchemaRejected(
      "unmapped-remote-ref.schema.json",
      "/$defs/Note/properties/id/$ref",
      /https:\/\/example\.com\/schemas\/common\.json.*under "remotes"/,
    );
  });

  it("unevaluatedProperties (2020-12), which the generator does not support", async () => {
    await expectSchemaRejected(
      "unevaluated-properties.schema.json",
      "/$defs/Note/unevaluatedProperties",
      'keyword "unevaluatedProperties" is not supported',
    );
  });

  it("$dynamicRef, which the generator does not support", async () => {
    await expectSchemaRejected(
      "dynamic-ref.schema.json",
      "/$defs/Tree/properties/children/items/$dynamicRef",
      'keyword "$dynamicRef" is not supported',
    );
  });

  it("an unknown non-standard keyword", async () => {
    await expectSchemaRejected("unknown-keyword.schema.json", "/$defs/Note/properties/text/foo", 'unknown keyword "foo"');
  });

  it("two definitions that would get the same name (task-status PascalCases to TaskStatus)", async () => {
    // The later definition is reported, and the message points at the one it clashes with.
    await expectSchemaRejected(
      "name-clash.schema.json",
      "/$defs/TaskStatus",
      `two definitions would get the same name "TaskStatus": this one and ${SCHEMA}#/$defs/task-status`,
    );
  });
});

describe("bad configuration or output folder: exit 2, one located line, nothing written", () => {
  // Config problems name the config file as shown from the working folder; the temp project is
  // outside the repository (the working folder of the tests), so that is its absolute path.
  const configAt = (pointer: string) => `${configPath}#${pointer}`;

  it("an output folder below a regular file cannot be written", async () => {
    writeFileSync(join(project, "notes.txt"), "a regular file, not a folder\n");
    writeConfig({ ...goodConfig, outDir: "notes.txt/generated" });
    await expectRejected(configAt("/outDir"), /cannot write/);
  });

  it("a config file with an unknown field", async () => {
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: [SCHEMA], remote: {} }] });
    await expectRejected(configAt("/sets/0/remote"), 'unknown field "remote"');
  });

  it("a config file with a mistyped field (schemas as a string)", async () => {
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: SCHEMA }] });
    await expectRejected(configAt("/sets/0/schemas"), `expected an array of strings, got the string "${SCHEMA}"`);
  });
});
