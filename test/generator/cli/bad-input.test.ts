import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { treeSnapshot } from "../../support/tree.js";
import { displayPath } from "../../../generator/config/config.js";
import { projectRoot } from "../../support/paths.js";
import { importGeneratedModule, readGeneratedSet } from "../../support/generated-modules.js";

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
  it("a schema file that is not JSON: the line and column of the mistake", async () => {
    // not-json.schema.json has a trailing comma at the end of line 4.
    await expectSchemaRejected("not-json.schema.json", "", 'not valid JSON at line 4, column 33: a trailing comma before "}" (JSON allows none)');
  });

  it.each([
    ["an array", "root-array.schema.json"],
    ["a number", "root-number.schema.json"],
    ["a string", "root-string.schema.json"],
    ["null", "root-null.schema.json"],
  ])("a root that is %s, not a schema", async (kind, fixture) => {
    await expectSchemaRejected(fixture, "", `the root is ${kind}, not a JSON Schema (object or boolean)`);
  });

  it("an unknown $schema dialect", async () => {
    await expectSchemaRejected(
      "unknown-dialect.schema.json",
      "/$schema",
      'unknown $schema dialect "https://example.test/my-dialect/schema"',
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

  it("an unknown non-standard keyword: both ways to keep it as an annotation", async () => {
    await expectSchemaRejected(
      "unknown-keyword.schema.json",
      "/$defs/Note/properties/text/foo",
      /^unknown keyword "foo" .*list it under "annotations" of the set in the config, or pass --annotation foo with --schema/,
    );
  });
});

describe("name clashes: a fallback name and a warning with the names entry to add, exit 0", () => {
  async function generatedWith(fixture: string): Promise<{ stderr: string; types: string }> {
    copyFileSync(join(FIXTURES, fixture), join(project, SCHEMA));
    const { code, stderr } = await run(["--config", configPath]);
    expect(code, stderr).toBe(0);
    return { stderr, types: readFileSync(join(project, "generated", "notes", "types.ts"), "utf8") };
  }
  const declared = (types: string) => [...types.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]!);

  it("task-status PascalCases to TaskStatus, which the schema's own TaskStatus keeps: task-status spells its dash out", async () => {
    const { stderr, types } = await generatedWith("name-clash.schema.json");
    expect(declared(types)).toEqual(["TaskDashStatus", "TaskStatus"]);
    // The warning names the other place as the working folder shows it and the config entry (its file relative to the config).
    expect(stderr).toContain(
      `${displayPath(join(project, SCHEMA), process.cwd())}#/$defs/task-status: [name-clash] named "TaskDashStatus": "TaskStatus" is also the name of ` +
        `${displayPath(join(project, SCHEMA), process.cwd())}#/$defs/TaskStatus; to choose a name, add to "names" in ${configPath}#/sets/0: "${SCHEMA}#/$defs/task-status": "TaskDashStatus" (or a better name)\n`,
    );
  });

  it("two names that differ only by separators (a b, a-b) each spell their separator out", async () => {
    const { stderr, types } = await generatedWith("separator-clash.schema.json");
    expect(declared(types)).toEqual(["ASpaceB", "ADashB"]);
    expect(stderr.match(/\[name-clash\]/g)).toHaveLength(2);
  });
});

describe("keywords once refused now generate (exit 0)", () => {
  it("unevaluatedProperties (2020-12): a property no keyword evaluates is rejected, a declared one accepted", async () => {
    copyFileSync(join(FIXTURES, "unevaluated-properties.schema.json"), join(project, SCHEMA));
    const { code, stderr } = await run(["--config", configPath]);
    expect(code, stderr).toBe(0);
    const validators = await importGeneratedModule<Record<string, (value: unknown) => boolean>>(
      readGeneratedSet(join(project, "generated", "notes")),
      join(project, "imported"),
    );
    expect(validators.isNote!({ text: "a" })).toBe(true);
    expect(validators.isNote!({ text: "a", extra: 1 })).toBe(false);
  });

  it("$dynamicRef (2020-12): a tree's children, reached through the dynamic anchor, are trees", async () => {
    copyFileSync(join(FIXTURES, "dynamic-ref.schema.json"), join(project, SCHEMA));
    const { code, stderr } = await run(["--config", configPath]);
    expect(code, stderr).toBe(0);
    const validators = await importGeneratedModule<Record<string, (value: unknown) => boolean>>(
      readGeneratedSet(join(project, "generated", "notes")),
      join(project, "imported"),
    );
    expect(validators.isTree!({ children: [{ children: [] }, {}] })).toBe(true);
    expect(validators.isTree!({ children: [{ children: [1] }] })).toBe(false);
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

  it("a config file with an unknown field in a set, and the field it probably meant", async () => {
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: [SCHEMA], remote: {} }] });
    await expectRejected(configAt("/sets/0/remote"), 'unknown field "remote"; did you mean "remotes"?');
  });

  it("a misspelt top-level field (two letters swapped), and the field it probably meant", async () => {
    writeConfig({ ...goodConfig, otuDir: "out" });
    await expectRejected(configAt("/otuDir"), 'unknown field "otuDir"; did you mean "outDir"?');
  });

  it("an unknown field like no known one lists the known ones", async () => {
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: [SCHEMA], typescriptOptions: {} }] });
    await expectRejected(configAt("/sets/0/typescriptOptions"), /^unknown field "typescriptOptions"; expected one of "\$comment", "name", "schemas"/);
  });

  it("a config file that is not JSON: one line with the line and column of the mistake", async () => {
    writeFileSync(configPath, '{\n  "outDir": "generated",\n  "sets": [\n    { "name": "notes", "schemas": ["x.json"], }\n  ]\n}\n');
    await expectRejected(configAt(""), 'not valid JSON at line 4, column 45: a trailing comma before "}" (JSON allows none)');
  });

  it("a schema file the config names that does not exist: the entry, and the folder it was looked for in", async () => {
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: [SCHEMA, "schemas/x.json"] }] });
    await expectRejected(configAt("/sets/0/schemas/1"), `schemas/x.json not found (resolved against ${project})`);
  });

  it("a remote file the config names that does not exist", async () => {
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: [SCHEMA], remotes: { "https://example.com/a.json": "schemas/a.json" } }] });
    await expectRejected(configAt("/sets/0/remotes/https:~1~1example.com~1a.json"), `schemas/a.json not found (resolved against ${project})`);
  });

  it("names at the top level, where it would apply to no set in particular", async () => {
    writeConfig({ ...goodConfig, names: { [`${SCHEMA}#/$defs/Note`]: "Memo" } });
    await expectRejected(configAt("/names"), '"names" belongs to a set: move it into the set it is about (sets[i].names)');
  });

  it("a names entry whose key is not file#/pointer", async () => {
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: [SCHEMA], names: { Note: "Memo" } }] });
    await expectRejected(configAt("/sets/0/names/Note"), /^expected a key of the form "file#\/json\/pointer"/);
  });

  it("a names entry whose name is not a TypeScript identifier", async () => {
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: [SCHEMA], names: { [`${SCHEMA}#/$defs/Note`]: "my-note" } }] });
    await expectRejected(configAt(`/sets/0/names/${SCHEMA.replace(/\//g, "~1")}#~1$defs~1Note`), /^"my-note" is not a usable TypeScript name/);
  });

  it("a names entry pointing at nothing in the file (a typo)", async () => {
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: [SCHEMA], names: { [`${SCHEMA}#/$defs/Nte`]: "Memo" } }] });
    await expectRejected(configAt(`/sets/0/names/${SCHEMA.replace(/\//g, "~1")}#~1$defs~1Nte`), "names nothing: the file has nothing at #/$defs/Nte");
  });

  it("a names entry naming a file that is not in the set", async () => {
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: [SCHEMA], names: { "schemas/other.json#/$defs/Note": "Memo" } }] });
    await expectRejected(configAt("/sets/0/names/schemas~1other.json#~1$defs~1Note"), "names nothing: that file is not one of this set's schema files");
  });

  it("a names entry pointing at a schema that is no type of its own (a string property)", async () => {
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: [SCHEMA], names: { [`${SCHEMA}#/$defs/Note/properties/text`]: "Text" } }] });
    await expectRejected(
      configAt(`/sets/0/names/${SCHEMA.replace(/\//g, "~1")}#~1$defs~1Note~1properties~1text`),
      /^the schema at #\/\$defs\/Note\/properties\/text does not become a type of its own/,
    );
  });

  it("a chosen name that another definition already has", async () => {
    copyFileSync(join(FIXTURES, "separator-clash.schema.json"), join(project, SCHEMA));
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: [SCHEMA], names: { [`${SCHEMA}#/$defs/a-b`]: "AB" } }] });
    await expectRejected(
      configAt(`/sets/0/names/${SCHEMA.replace(/\//g, "~1")}#~1$defs~1a-b`),
      `the name "AB" is already the name of ${displayPath(join(project, SCHEMA), process.cwd())}#/$defs/a b; choose another`,
    );
  });

  it("one name chosen twice", async () => {
    copyFileSync(join(FIXTURES, "separator-clash.schema.json"), join(project, SCHEMA));
    const names = { [`${SCHEMA}#/$defs/a b`]: "Same", [`${SCHEMA}#/$defs/a-b`]: "Same" };
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: [SCHEMA], names }] });
    await expectRejected(configAt(`/sets/0/names/${SCHEMA.replace(/\//g, "~1")}#~1$defs~1a-b`), `the name "Same" is already chosen for "${SCHEMA}#/$defs/a b"`);
  });

  it("a config file with a mistyped field (schemas as a string)", async () => {
    writeConfig({ ...goodConfig, sets: [{ name: "notes", schemas: SCHEMA }] });
    await expectRejected(configAt("/sets/0/schemas"), `expected an array of strings, got the string "${SCHEMA}"`);
  });
});
