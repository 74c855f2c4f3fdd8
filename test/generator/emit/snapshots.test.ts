import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { beyondLint, runCli } from "../../support/cli.js";
import { readConfigFile } from "../../../generator/index.js";
import { BUNDLED_SET_NAMES } from "../../../generator/init/bundled.js";
import { STATIC_MODULES, staticFileName } from "../../../generator/emit/templates.js";
import { projectRoot } from "../../support/paths.js";
import { firstSchemaOf, generateRevisions, REVISIONS, sha256Of } from "../../support/revisions.js";

/**
 * Snapshots across schema revisions: every revision the project has (test/support/revisions.ts) is
 * generated once, in memory, and each file it generates is compared with the snapshot stored for
 * that revision (`__snapshots__/revisions/<revision>/<file>.snap`). A change to the generator shows
 * its effect on every revision in one review, as plain diffs of generated TypeScript. Update them
 * deliberately with `npx vitest run test/generator/emit/snapshots.test.ts -u` and read the diff.
 *
 * The static modules (templates/runtime/, a set's runtime/ folder) are not snapshotted per revision: a test below proves
 * each revision holds them byte for byte as written below the header, so their diff is the diff of
 * their source. The committed generated/ folder is guarded by `--check` (last test), not copied here.
 */

const SNAPSHOT_DIR = join(import.meta.dirname, "__snapshots__", "revisions");
/** A set's `runtime/` folder mirrors `templates/runtime/`: `runtime/client/engine.ts` is `templates/runtime/client/engine.ts`. */
const TEMPLATES_DIR = join(projectRoot, "templates");
const STATIC_FILES: ReadonlySet<string> = new Set(STATIC_MODULES.map(staticFileName));

const generated = await generateRevisions();

/** A generated file's body: what follows its header and fingerprint line. */
function bodyOf(contents: string): string {
  const fingerprint = contents.indexOf("\n// Fingerprint: ");
  return contents.slice(contents.indexOf("\n\n", fingerprint) + 2);
}

/** A revision's generated files, by kind: the static modules it copies and the files generated from its schema. */
function filesOf(revision: string) {
  const set = generated.get(revision);
  if (!set) throw new Error(`revision ${revision} was not generated`);
  return {
    statics: set.files.filter((f) => STATIC_FILES.has(f.name)),
    fromSchema: set.files.filter((f) => !STATIC_FILES.has(f.name)),
  };
}

describe("the revisions the tests generate", () => {
  it("include every set bundled with the tool", () => {
    const bundled = REVISIONS.flatMap((r) => (r.set.bundled ? [r.set.bundled] : []));
    expect([...bundled].sort()).toEqual([...BUNDLED_SET_NAMES].sort());
  });

  it.each(REVISIONS.map((r) => [r.id, r] as const))("%s reads the schema file it is pinned to", (_id, revision) => {
    // A bundled name that comes to mean another revision fails here: move or add a row of the table.
    expect(sha256Of(firstSchemaOf(revision))).toBe(revision.sha256);
  });

  it("have distinct schema files, so no revision is snapshotted twice", () => {
    expect(new Set(REVISIONS.map((r) => r.sha256)).size).toBe(REVISIONS.length);
  });
});

describe.each(REVISIONS.map((r) => [r.id] as const))("revision %s", (revision) => {
  const { statics, fromSchema } = filesOf(revision);

  it.each(fromSchema.map((file) => [file.name, file.contents] as const))("%s matches its snapshot", async (fileName, contents) => {
    await expect(contents).toMatchFileSnapshot(join(SNAPSHOT_DIR, revision, `${fileName}.snap`));
  });

  it(`holds its static modules (${statics.map((f) => f.name).join(", ")}) byte for byte as templates/runtime/ has them, below the header`, () => {
    expect(statics.length).toBeGreaterThan(0);
    for (const file of statics) expect(bodyOf(file.contents), file.name).toBe(readFileSync(join(TEMPLATES_DIR, file.name), "utf8"));
    // The header is the one every other file of the revision has (and its snapshots show).
    const headerOf = (contents: string) => contents.slice(0, contents.indexOf("\n// Fingerprint: "));
    expect(new Set(statics.map((f) => headerOf(f.contents)))).toEqual(new Set([headerOf(fromSchema[0]!.contents)]));
  });

  it("has no snapshot left over from a file it no longer generates", () => {
    // Missing snapshots are toMatchFileSnapshot's business (it fails in CI, writes with -u);
    // stale ones it never notices, so a file the generator stopped emitting is caught here.
    const folder = join(SNAPSHOT_DIR, revision);
    const expected = new Set(fromSchema.map((f) => `${f.name}.snap`));
    const snapshots = existsSync(folder) ? readdirSync(folder) : [];
    expect(snapshots.filter((name) => !expected.has(name))).toEqual([]);
  });
});

describe("the snapshot folder", () => {
  it("holds a folder for each revision and nothing else", () => {
    const folders = existsSync(SNAPSHOT_DIR) ? readdirSync(SNAPSHOT_DIR) : [];
    expect(folders.filter((name) => !REVISIONS.some((r) => r.id === name))).toEqual([]);
  });
});

describe("mcp-tasks-gen --check", () => {
  it("finds the committed generated/ folder up to date (exit 0)", async () => {
    const config = join(projectRoot, "mcp-tasks-gen.config.json");
    const { code, stdout, stderr } = await runCli(["--check", "--config", config]);
    // Printing stderr on failure names the stale files; lint findings (`[rule-id]` lines) are expected.
    expect({ code, stderr: beyondLint(stderr) }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain(`${readConfigFile(config).sets.length} set(s) up to date`);
  });
});
