import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { beyondLint, runCli } from "../../support/cli.js";
import { generate, readConfigFile } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";

/**
 * One file snapshot per generated file, so any change of generator or schema shows up in review
 * as a plain diff of the generated TypeScript. Update them deliberately with
 * `npx vitest run test/generator/emit/snapshots.test.ts -u` and read the diff before committing.
 */

const CONFIG = join(projectRoot, "mcp-tasks-gen.config.json");
const SNAPSHOT_DIR = join(import.meta.dirname, "__snapshots__", "generated");

// Generated once at collection time: the file list per set comes from the generator, not from here.
const { sets } = await generate(readConfigFile(CONFIG));

describe.each(sets.map((set) => [set.name, set] as const))("generated/%s", (setName, set) => {
  it.each(set.files.map((file) => [file.name, file.contents] as const))("%s matches its snapshot", async (fileName, contents) => {
    await expect(contents).toMatchFileSnapshot(`./__snapshots__/generated/${setName}/${fileName}.snap`);
  });

  it("has no snapshot left over from a file it no longer generates", () => {
    // Missing snapshots are toMatchFileSnapshot's business (it fails in CI, writes with -u);
    // stale ones it never notices, so a file the generator stopped emitting is caught here.
    const folder = join(SNAPSHOT_DIR, setName);
    const expected = new Set(set.files.map((f) => `${f.name}.snap`));
    const snapshots = existsSync(folder) ? readdirSync(folder) : [];
    expect(snapshots.filter((name) => !expected.has(name))).toEqual([]);
  });
});

describe("mcp-tasks-gen --check", () => {
  it("finds the committed generated/ folder up to date (exit 0)", async () => {
    const { code, stdout, stderr } = await runCli(["--check", "--config", CONFIG]);
    // Printing stderr on failure names the stale files; lint findings (`[rule-id]` lines) are expected.
    expect({ code, stderr: beyondLint(stderr) }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain(`${sets.length} set(s) up to date`);
  });
});
