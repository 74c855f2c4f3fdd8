import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import * as nodeFs from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { treeSnapshot } from "../../support/tree.js";
import { projectRoot } from "../../support/paths.js";
import { generate, GeneratorError, MANIFEST_FILE, readConfigFile, writeSets, type GeneratedSet } from "../../../generator/index.js";
import type { OutputFs } from "../../../generator/output/files.js";
import { filesBelow } from "../../support/pack.js";

/**
 * Output ownership (README.md › What the tool may overwrite): mcp-tasks-gen replaces only what it wrote. Each generated
 * folder holds a manifest; a target holding anything else, or a file where a folder should be,
 * stops the run with exit 2, one line, and every byte on disk as it was. Writing is all or nothing
 * across the run. Paths are absolute (a vitest worker does not chdir): `--out <project>` is what
 * `--out .` means in the project.
 */

const FIXTURES = join(projectRoot, "test", "fixtures", "ownership");
/** The schema every run generates (defines Memo). */
const SCHEMA = join(FIXTURES, "notes.schema.json");
/** An earlier version (defines Note): the folders "an earlier run" generated. */
const SCHEMA_V1 = join(FIXTURES, "notes-v1.schema.json");
const CONFIG_NAME = "mcp-tasks-gen.config.json";

const temps: string[] = [];
function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `mcp-tasks-gen-own-${label}-`));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A folder generated from the v1 schema by the CLI (manifest included), copied wherever a test needs an earlier output. */
let earlier: string;
/** The same generated as JavaScript (it has a package.json without a header). */
let earlierJs: string;
beforeAll(async () => {
  const dir = tempDir("earlier");
  earlier = join(dir, "ts");
  earlierJs = join(dir, "js");
  for (const [out, extra] of [[earlier, []], [earlierJs, ["--emit", "js"]]] as const) {
    const { code, stderr } = await runCli(["--schema", SCHEMA_V1, "--out", out, ...extra]);
    expect(code, stderr).toBe(0);
  }
});

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** Writes `files` (relative path → text) below `root`, making folders as needed. */
function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** A project folder as a user has it: the schema, a git repository, hand-written sources. */
function userProject(): { root: string; project: string } {
  const root = tempDir("tree");
  const project = join(root, "project");
  writeTree(project, {
    "notes.schema.json": readFileSync(SCHEMA, "utf8"),
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/objects/ab/cdef0123": "blob\n",
    "README.md": "# my project\n",
    "src/main.ts": "export const main = 1;\n",
    "notes.txt": "a regular file\n",
  });
  return { root, project };
}

/** Runs the CLI and checks what every refusal must be: exit 2, one line on stderr, nothing on stdout, nothing changed below `root`. */
async function expectRefused(root: string, argv: string[]): Promise<string> {
  const before = treeSnapshot(root);
  const { code, stdout, stderr } = await runCli(argv);
  expect({ code, stdout }, stderr).toEqual({ code: 2, stdout: "" });
  expect(stderr).toMatch(/^[^\n]+\n$/);
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(treeSnapshot(root)).toEqual(before);
  return stderr.trimEnd();
}

/** The folder holds exactly the files its manifest lists (and the manifest), each with the listed hash. */
function expectGeneratedFolder(folder: string): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(folder, MANIFEST_FILE), "utf8")) as { generator: string; files: Record<string, string> };
  expect(manifest.generator).toBe("mcp-tasks-gen");
  expect(filesBelow(folder).sort()).toEqual([...Object.keys(manifest.files), MANIFEST_FILE].sort());
  for (const [name, hash] of Object.entries(manifest.files)) expect(`sha256:${sha256(readFileSync(join(folder, name)))}`, name).toBe(hash);
  return manifest.files;
}

describe("a target holding what mcp-tasks-gen did not write: exit 2, one line, nothing changed", () => {
  it("--out . in a project root (the .git folder, the schema and sources there)", async () => {
    const { root, project } = userProject();
    const line = await expectRefused(root, ["--schema", join(project, "notes.schema.json"), "--out", project]);
    expect(line).toContain(project);
    expect(line).toMatch(/holds 5 entries \(\.git\/, README\.md, notes\.schema\.json, notes\.txt, src\/\) that mcp-tasks-gen did not write/);
    expect(line).toContain("choose a new or empty folder");
  });

  it("--out src, a folder of hand-written files; --force does not change that", async () => {
    const { root, project } = userProject();
    const src = join(project, "src");
    const line = await expectRefused(root, ["--schema", SCHEMA, "--out", src]);
    expect(line).toMatch(/src holds 1 entry \(main\.ts\) that mcp-tasks-gen did not write/);
    const forced = await expectRefused(root, ["--schema", SCHEMA, "--out", src, "--force"]);
    expect(forced).toContain(`--force does not apply: the folder has no ${MANIFEST_FILE}`);
  });

  it("--out naming a regular file, a symbolic link, or a path below a regular file", async () => {
    const { root, project } = userProject();
    const file = join(project, "notes.txt");
    expect(await expectRefused(root, ["--schema", SCHEMA, "--out", file])).toMatch(/notes\.txt is a regular file, not a folder/);
    expect(await expectRefused(root, ["--schema", SCHEMA, "--out", file, "--force"])).toMatch(/is a regular file/);
    const link = join(project, "link");
    symlinkSync(join(project, "src"), link);
    expect(await expectRefused(root, ["--schema", SCHEMA, "--out", link])).toMatch(/link is a symbolic link, not a folder/);
    expect(await expectRefused(root, ["--schema", SCHEMA, "--out", join(file, "out")])).toMatch(/cannot write .*notes\.txt is a regular file/);
  });

  it('a config with "outDir": "." and a set named src: the message points into the config', async () => {
    const { root, project } = userProject();
    const config = join(project, CONFIG_NAME);
    writeFileSync(config, JSON.stringify({ outDir: ".", sets: [{ name: "src", schemas: ["notes.schema.json"] }] }));
    const line = await expectRefused(root, ["--config", config]);
    expect(line.startsWith(`${config}#/outDir: `)).toBe(true);
    expect(line).toContain("(main.ts)");
  });

  it("a set folder that is a parent of the schema, or the folder holding it", async () => {
    const { root, project } = userProject();
    const config = join(project, CONFIG_NAME);
    writeFileSync(config, JSON.stringify({ outDir: "..", sets: [{ name: "project", schemas: ["notes.schema.json"] }] }));
    expect(await expectRefused(root, ["--config", config])).toContain(CONFIG_NAME);
    expect(await expectRefused(root, ["--schema", SCHEMA, "--out", root])).toContain("project/");
  });

  it("many foreign entries: the first five by name, then how many more", async () => {
    const root = tempDir("many");
    const out = join(root, "out");
    writeTree(out, Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}.txt`, `${i}\n`])));
    const line = await expectRefused(root, ["--schema", SCHEMA, "--out", out]);
    expect(line).toMatch(/8 entries \(f0\.txt, f1\.txt, f2\.txt, f3\.txt, f4\.txt and 3 more\)/);
  });

  it("a name that would break the line is quoted", async () => {
    const root = tempDir("odd-name");
    const out = join(root, "out");
    writeTree(out, { "two\nlines": "x\n" });
    expect(await expectRefused(root, ["--schema", SCHEMA, "--out", out])).toContain('"two\\nlines"');
  });
});

describe("inside a generated folder", () => {
  /** A project with an earlier generated folder at gen/ (optionally JavaScript, optionally without its manifest). */
  function withEarlier(options: { js?: boolean; manifest?: boolean } = {}): { root: string; gen: string } {
    const root = tempDir("gen");
    const gen = join(root, "gen");
    cpSync(options.js ? earlierJs : earlier, gen, { recursive: true });
    if (options.manifest === false) rmSync(join(gen, MANIFEST_FILE));
    return { root, gen };
  }

  it("an earlier output is replaced: exit 0, the folder holds the new files and their manifest", async () => {
    const { root, gen } = withEarlier();
    writeFileSync(join(root, "beside.txt"), "mine\n");
    const { code, stderr } = await runCli(["--schema", SCHEMA, "--out", gen]);
    expect(code, stderr).toBe(0);
    expect(Object.keys(expectGeneratedFolder(gen))).toContain("types.ts");
    expect(readFileSync(join(gen, "types.ts"), "utf8")).toMatch(/export interface Memo\b/);
    expect(readFileSync(join(gen, "types.ts"), "utf8")).not.toMatch(/\bNote\b/);
    expect(readdirSync(root).sort()).toEqual(["beside.txt", "gen"]);
  });

  it("a folder generated before manifests existed (headers with fingerprints) is known by its headers and replaced", async () => {
    for (const js of [false, true]) {
      const { gen } = withEarlier({ js, manifest: false });
      const { code, stderr } = await runCli(["--schema", SCHEMA, "--out", gen, ...(js ? ["--emit", "js"] : [])]);
      expect(code, stderr).toBe(0);
      expectGeneratedFolder(gen);
    }
  });

  it("a file added by hand: exit 2 naming it; --force deletes it and regenerates", async () => {
    const { root, gen } = withEarlier();
    writeFileSync(join(gen, "helpers.ts"), "export const mine = 1;\n");
    const line = await expectRefused(root, ["--schema", SCHEMA, "--out", gen]);
    expect(line).toMatch(/gen holds 1 entry \(helpers\.ts\) that mcp-tasks-gen did not write: nothing was written .*--force to delete them/);
    const forced = await runCli(["--schema", SCHEMA, "--out", gen, "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(existsSync(join(gen, "helpers.ts"))).toBe(false);
    expectGeneratedFolder(gen);
  });

  it("without a manifest --force does not apply: a generated file copied into src, or an old output with a file added", async () => {
    const { root, project } = userProject();
    const src = join(project, "src");
    cpSync(join(earlier, "types.ts"), join(src, "types.ts"));
    expect(await expectRefused(root, ["--schema", SCHEMA, "--out", src, "--force"])).toMatch(/1 entry \(main\.ts\).*--force does not apply/);
    const { root: oldRoot, gen } = withEarlier({ manifest: false });
    writeFileSync(join(gen, "helpers.ts"), "export {};\n");
    expect(await expectRefused(oldRoot, ["--schema", SCHEMA, "--out", gen, "--force"])).toMatch(/1 entry \(helpers\.ts\).*--force does not apply/);
  });

  it("a generated file edited by hand (with or without a manifest): exit 2 naming it as edited", async () => {
    for (const manifest of [true, false]) {
      const { root, gen } = withEarlier({ manifest });
      writeFileSync(join(gen, "types.ts"), `${readFileSync(join(gen, "types.ts"), "utf8")}export type Mine = 1;\n`);
      const line = await expectRefused(root, ["--schema", SCHEMA, "--out", gen]);
      expect(line).toContain("1 entry (types.ts (edited))");
      expect(line).toContain("edited since it wrote them");
    }
  });

  it("a manifest that is not mcp-tasks-gen's does not vouch for anything", async () => {
    const { root, gen } = withEarlier();
    const manifest = JSON.parse(readFileSync(join(gen, MANIFEST_FILE), "utf8")) as Record<string, unknown>;
    writeFileSync(join(gen, MANIFEST_FILE), JSON.stringify({ ...manifest, generator: "someone-else" }));
    writeFileSync(join(gen, "extra.ts"), "export {};\n");
    const line = await expectRefused(root, ["--schema", SCHEMA, "--out", gen]);
    expect(line).toContain(`(${MANIFEST_FILE}, extra.ts)`);
  });

  it("an empty folder is fine, and keeps its own mode", async () => {
    const root = tempDir("empty");
    const out = join(root, "out");
    mkdirSync(out);
    chmodSync(out, 0o750);
    const { code, stderr } = await runCli(["--schema", SCHEMA, "--out", out]);
    expect(code, stderr).toBe(0);
    expectGeneratedFolder(out);
    expect(statSync(out).mode & 0o777).toBe(0o750);
  });

  it("a temporary folder left by a run that was killed is the tool's own: the next run removes it", async () => {
    const { gen } = withEarlier();
    writeTree(join(gen, ".mcp-tasks-gen-new-0123456789ab"), { "types.ts": "// half-written\n" });
    const { code, stderr } = await runCli(["--schema", SCHEMA, "--out", gen]);
    expect(code, stderr).toBe(0);
    expectGeneratedFolder(gen);
  });
});

describe("created folders and files get normal modes", () => {
  it("under umask 022: folders 0755 (the target and the parents made for it), files 0644", async () => {
    const previous = process.umask(0o022);
    try {
      const root = tempDir("modes");
      const out = join(root, "a", "b", "out");
      const { code, stderr } = await runCli(["--schema", SCHEMA, "--out", out]);
      expect(code, stderr).toBe(0);
      for (const folder of [join(root, "a"), join(root, "a", "b"), out]) expect((statSync(folder).mode & 0o777).toString(8), folder).toBe("755");
      for (const name of filesBelow(out)) expect((statSync(join(out, name)).mode & 0o777).toString(8), name).toBe("644");
    } finally {
      process.umask(previous);
    }
  });
});

describe("all or nothing across the run", () => {
  /**
   * Two sets: `a` over an earlier output, `b` in folders that do not exist yet. The generated sets
   * (from the current schema) are returned with those targets.
   */
  async function twoSets(): Promise<{ root: string; sets: GeneratedSet[] }> {
    const root = tempDir("atomic");
    cpSync(earlier, join(root, "gen", "a"), { recursive: true });
    writeFileSync(join(root, "gen", "mine.txt"), "a user's file beside the sets\n");
    const config = join(root, CONFIG_NAME);
    writeFileSync(config, JSON.stringify({ sets: [{ name: "x", schemas: [SCHEMA] }] }));
    const [set] = (await generate(readConfigFile(config))).sets;
    return {
      root,
      sets: [
        { ...set!, name: "a", outDir: join(root, "gen", "a") },
        { ...set!, name: "b", outDir: join(root, "new", "deeper", "b") },
      ],
    };
  }

  /** node:fs, with the `fail`-th mutating call (mkdir, write, rename) throwing EIO instead. */
  function failingFs(fail: number): { fs: OutputFs; calls: () => number } {
    let calls = 0;
    const mutating = <A extends unknown[], R>(real: (...args: A) => R) => (...args: A): R => {
      calls += 1;
      if (calls === fail) throw Object.assign(new Error("injected failure"), { code: "EIO", syscall: "injected" });
      return real(...args);
    };
    const fs: OutputFs = {
      lstatSync: (p) => nodeFs.lstatSync(p),
      statSync: (p) => nodeFs.statSync(p),
      readdirSync: (p, o) => nodeFs.readdirSync(p, o) as nodeFs.Dirent[],
      readFileSync: (p) => nodeFs.readFileSync(p),
      mkdirSync: mutating((p: string, o?: nodeFs.MakeDirectoryOptions) => nodeFs.mkdirSync(p, o)),
      writeFileSync: mutating((p: string, d: string, o?: { flag?: string }) => nodeFs.writeFileSync(p, d, o)),
      renameSync: mutating((a: string, b: string) => nodeFs.renameSync(a, b)),
      rmSync: (p, o) => nodeFs.rmSync(p, o),
      rmdirSync: (p) => nodeFs.rmdirSync(p),
    };
    return { fs, calls: () => calls };
  }

  it("a failure when the second set is swapped in puts the first set back, byte for byte", async () => {
    const { root, sets } = await twoSets();
    const before = treeSnapshot(root);
    const b = sets[1]!.outDir;
    let failed = false;
    const fs: OutputFs = {
      ...failingFs(0).fs,
      renameSync: (from, to) => {
        // The first staged file of set b moving into its folder: set a has been swapped in by then.
        if (!failed && dirname(to) === b && from.includes(".mcp-tasks-gen-new-")) {
          failed = true;
          expect(readFileSync(join(sets[0]!.outDir, "types.ts"), "utf8")).toMatch(/\bMemo\b/);
          throw Object.assign(new Error("injected"), { code: "EIO", syscall: "rename" });
        }
        nodeFs.renameSync(from, to);
      },
    };
    expect(() => writeSets(sets, { fs })).toThrow(GeneratorError);
    expect(failed).toBe(true);
    expect(treeSnapshot(root)).toEqual(before);
    expect(readFileSync(join(sets[0]!.outDir, "types.ts"), "utf8")).toMatch(/\bNote\b/);
  });

  it("a failure at any single step, staging or swapping, leaves every target as it was", async () => {
    // Count the steps of a successful run, then fail each one in turn on a fresh copy.
    const counted = await twoSets();
    const counter = failingFs(0);
    writeSets(counted.sets, { fs: counter.fs });
    const steps = counter.calls();
    expect(steps).toBeGreaterThan(2 * 6);
    for (let fail = 1; fail <= steps; fail++) {
      const { root, sets } = await twoSets();
      const before = treeSnapshot(root);
      let error: unknown;
      try {
        writeSets(sets, { fs: failingFs(fail).fs });
      } catch (e) {
        error = e;
      }
      expect(error, `step ${fail}`).toBeInstanceOf(GeneratorError);
      expect((error as GeneratorError).detail, `step ${fail}`).toMatch(/^cannot write .*: EIO \(injected\); every output folder is as it was$/);
      expect(treeSnapshot(root), `step ${fail}`).toEqual(before);
    }
  });

  it("two sets writing into the same folder, or one inside the other's, are refused before anything is written", async () => {
    const { root, sets } = await twoSets();
    const before = treeSnapshot(root);
    const a = sets[0]!;
    for (const outDir of [a.outDir, join(a.outDir, "inner")]) {
      expect(() => writeSets([a, { ...sets[1]!, outDir }])).toThrow(/overlapping folders/);
      expect(treeSnapshot(root)).toEqual(before);
    }
  });

  it("a second set whose target is refused stops the run before the first is written", async () => {
    const root = tempDir("refuse-second");
    const config = join(root, CONFIG_NAME);
    writeTree(root, { "out/second/mine.ts": "export {};\n" });
    writeFileSync(config, JSON.stringify({ outDir: "out", sets: [{ name: "first", schemas: [SCHEMA] }, { name: "second", schemas: [SCHEMA] }] }));
    expect(await expectRefused(root, ["--config", config])).toMatch(/#\/outDir: .*second holds 1 entry \(mine\.ts\)/);
    expect(existsSync(join(root, "out", "first"))).toBe(false);
  });
});

describe("--check", () => {
  /** A project generated by the CLI from its config. */
  async function generatedProject(): Promise<{ root: string; config: string; gen: string }> {
    const root = tempDir("check");
    const config = join(root, CONFIG_NAME);
    writeFileSync(config, JSON.stringify({ sets: [{ name: "notes", schemas: [SCHEMA] }] }));
    const { code, stderr } = await runCli(["--config", config]);
    expect(code, stderr).toBe(0);
    return { root, config, gen: join(root, "generated", "notes") };
  }

  it("passes on a checkout with CRLF line ends (git's core.autocrlf), and a run then replaces it", async () => {
    const { config, gen } = await generatedProject();
    for (const name of filesBelow(gen)) writeFileSync(join(gen, name), readFileSync(join(gen, name), "utf8").replace(/\n/g, "\r\n"));
    expect(readFileSync(join(gen, "types.ts"), "utf8")).toContain("\r\n");
    const check = await runCli(["--config", config, "--check"]);
    expect({ code: check.code, stderr: check.stderr }).toEqual({ code: 0, stderr: "" });
    // The CRLF files are still the tool's own: a run may replace them without --force.
    const again = await runCli(["--config", config]);
    expect(again.code, again.stderr).toBe(0);
    expectGeneratedFolder(gen);
  });

  it("names a foreign file in a generated folder as extra, and says generating would refuse", async () => {
    const { root, config, gen } = await generatedProject();
    writeFileSync(join(gen, "mine.ts"), "export {};\n");
    const before = treeSnapshot(root);
    const { code, stderr } = await runCli(["--config", config, "--check"]);
    expect(code).toBe(1);
    const lines = stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^extra +.*generated\/notes\/mine\.ts$/);
    expect(lines[1]).toMatch(/1 file\(s\) differ.*1 of them \(extra\) were not written by mcp-tasks-gen.*refuses.*--force deletes them/);
    expect(treeSnapshot(root)).toEqual(before);
  });

  it("a regular file where the set folder should be: exit 2, one line", async () => {
    const root = tempDir("check-file");
    const config = join(root, CONFIG_NAME);
    writeFileSync(config, JSON.stringify({ sets: [{ name: "notes", schemas: [SCHEMA] }] }));
    writeTree(root, { "generated/notes": "not a folder\n" });
    expect(await expectRefused(root, ["--config", config, "--check"])).toMatch(/generated\/notes is a regular file/);
  });

  it("--force with --check is a usage error (it would do nothing); --help explains --force and the manifest", async () => {
    const { code, stderr } = await runCli(["--check", "--force"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--force");
    const help = await runCli(["--help"]);
    expect(help.stdout).toMatch(/^ {2}--force +\(generating\)/m);
    expect(help.stdout).toContain(MANIFEST_FILE);
  });
});

describe("init writes only its config, whole", () => {
  it("refuses an existing config without --force, and a folder in the config's place even with --force", async () => {
    const root = tempDir("init");
    const config = join(root, CONFIG_NAME);
    writeFileSync(config, "{}\n");
    await expectRefused(root, ["init", "--config", config]);
    rmSync(config);
    mkdirSync(config);
    writeFileSync(join(config, "keep.txt"), "x\n");
    expect(await expectRefused(root, ["init", "--config", config, "--force"])).toMatch(/is a folder|not a config file/);
  });

  it("--force replaces a regular config and leaves no temporary file", async () => {
    const root = tempDir("init-force");
    const config = join(root, CONFIG_NAME);
    writeFileSync(config, "{}\n");
    const { code, stderr } = await runCli(["init", "--config", config, "--force"]);
    expect(code, stderr).toBe(0);
    expect(readdirSync(root)).toEqual([CONFIG_NAME]);
    expect(JSON.parse(readFileSync(config, "utf8"))).toHaveProperty("sets");
  });
});

/**
 * The property: random pre-existing trees × random `--out`, config `outDir` and set names. After
 * every run, every file the tool did not write is byte-identical, and the exit code is 0 exactly
 * when nothing foreign was in the way (2 otherwise, and then nothing at all changed).
 */
describe("property: nothing the tool did not write is ever changed", () => {
  /** What an earlier output folder looks like. */
  const EARLIER = ["manifest", "headers-only", "js-headers-only", "added-file", "added-folder", "edited-file", "edited-no-manifest"] as const;
  type Earlier = (typeof EARLIER)[number];
  /** Folders of the project that may exist, and what they hold. */
  const treeArb = fc.record({
    git: fc.boolean(),
    readme: fc.boolean(),
    src: fc.constantFrom("none", "files", "files-and-git"),
    notesFile: fc.boolean(),
    /** A folder that is empty, or holds only a folder (a `.git` with a file in it). */
    empty: fc.constantFrom("none", "empty", "only-a-git-folder"),
    prev: fc.option(fc.constantFrom(...EARLIER), { nil: undefined }),
    gen: fc.option(fc.constantFrom(...EARLIER), { nil: undefined }),
  });
  /** Where a set goes, relative to the project folder (`..` is the folder holding it). */
  const OUT_CHOICES = [".", "..", "src", "notes.txt", "notes.txt/x", "empty", "prev", "gen", "fresh", "fresh/deeper", ".git"];
  const runArb = fc.oneof(
    fc.record({ mode: fc.constant("adhoc" as const), out: fc.constantFrom(...OUT_CHOICES), force: fc.boolean() }),
    fc.record({
      mode: fc.constant("config" as const),
      outDir: fc.constantFrom(".", "..", "src", "notes.txt", "prev", "fresh"),
      names: fc.uniqueArray(fc.constantFrom("src", "prev", "gen", "fresh", "empty", "notes.txt", "project", ".", ".git"), { minLength: 1, maxLength: 2 }),
      force: fc.boolean(),
    }),
  );

  /** Every entry made, by absolute path: a file or folder, and whether mcp-tasks-gen wrote it. */
  type Made = Map<string, { kind: "file" | "dir"; ours: boolean }>;

  type Tree = typeof treeArb extends fc.Arbitrary<infer T> ? T : never;

  function build(tree: Tree): { root: string; project: string; made: Made; generated: Set<string> } {
    const root = tempDir("prop");
    const project = join(root, "project");
    const made: Made = new Map();
    const generated = new Set<string>();
    const dir = (path: string) => {
      mkdirSync(path, { recursive: true });
      for (let p = path; p !== root; p = dirname(p)) if (!made.has(p)) made.set(p, { kind: "dir", ours: false });
    };
    const file = (path: string, text: string, ours = false) => {
      dir(dirname(path));
      writeFileSync(path, text);
      made.set(path, { kind: "file", ours });
    };
    dir(project);
    file(join(root, "other.txt"), "beside the project\n");
    file(join(project, "notes.schema.json"), readFileSync(SCHEMA, "utf8"));
    if (tree.git) file(join(project, ".git", "HEAD"), "ref: refs/heads/main\n");
    if (tree.readme) file(join(project, "README.md"), "# readme\n");
    if (tree.src !== "none") {
      dir(join(project, "src"));
      file(join(project, "src", "main.ts"), "export const main = 1;\n");
      if (tree.src === "files-and-git") file(join(project, "src", ".git", "config"), "[core]\n");
    }
    if (tree.notesFile) file(join(project, "notes.txt"), "a file\n");
    if (tree.empty !== "none") dir(join(project, "empty"));
    if (tree.empty === "only-a-git-folder") file(join(project, "empty", ".git", "HEAD"), "ref: refs/heads/main\n");
    for (const [name, kind] of [["prev", tree.prev], ["gen", tree.gen]] as const) {
      if (kind) earlierOutput(join(project, name), kind, file, dir, generated, made);
    }
    return { root, project, made, generated };
  }

  /** Copies an earlier output into `folder`, marking each file ours unless the variant adds or edits it. */
  function earlierOutput(folder: string, kind: Earlier, file: (p: string, t: string, ours?: boolean) => void, dir: (p: string) => void, generated: Set<string>, made: Made): void {
    dir(folder);
    const source = kind === "js-headers-only" ? earlierJs : earlier;
    const withManifest = kind === "manifest" || kind === "added-file" || kind === "added-folder" || kind === "edited-file";
    // Only a manifest lets --force delete what is foreign in a folder.
    if (withManifest) generated.add(folder);
    for (const name of filesBelow(source)) {
      if (name === MANIFEST_FILE && !withManifest) continue;
      const text = readFileSync(join(source, name), "utf8");
      const edit = name === "types.ts" && (kind === "edited-file" || kind === "edited-no-manifest");
      file(join(folder, name), edit ? `${text}export type Mine = 1;\n` : text, !edit);
    }
    if (kind === "added-file") file(join(folder, "mine.ts"), "export {};\n");
    if (kind === "added-folder") file(join(folder, "notes", "todo.md"), "- a user's notes\n");
    // A subfolder the tool wrote (the set's runtime/ and its layers) is ours when every file below it is.
    for (const [path, entry] of made) {
      if (entry.kind !== "dir" || path === folder || !path.startsWith(`${folder}${sep}`)) continue;
      const below = [...made.entries()].filter(([p, e]) => e.kind === "file" && p.startsWith(`${path}${sep}`));
      if (below.length > 0 && below.every(([, e]) => e.ours)) made.set(path, { kind: "dir", ours: true });
    }
  }

  /** What stands at a target in the made tree: a file on the way, or the entries of a folder there. */
  function expectation(target: string, made: Made, generated: Set<string>, force: boolean): "ok" | "refused" {
    for (let path = target; path !== dirname(path); path = dirname(path)) {
      if (made.get(path)?.kind === "file") return "refused";
    }
    const children = [...made.entries()].filter(([path]) => dirname(path) === target);
    const foreign = children.some(([, entry]) => !entry.ours);
    if (!foreign) return "ok";
    return force && generated.has(target) ? "ok" : "refused";
  }

  const isWithin = (path: string, folder: string) => path === folder || path.startsWith(`${folder}${sep}`);

  it("holds for random trees and targets", async () => {
    const outcomes = { written: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(treeArb, runArb, async (tree, run) => {
        const { root, project, made, generated } = build(tree);
        let argv: string[];
        let targets: string[];
        let validNames = true;
        if (run.mode === "adhoc") {
          const out = join(project, run.out);
          argv = ["--schema", join(project, "notes.schema.json"), "--out", out];
          targets = [out];
        } else {
          const config = join(project, CONFIG_NAME);
          writeFileSync(config, JSON.stringify({ outDir: run.outDir, sets: run.names.map((name) => ({ name, schemas: ["notes.schema.json"] })) }));
          made.set(config, { kind: "file", ours: false });
          argv = ["--config", config];
          targets = run.names.map((name) => join(project, run.outDir, name));
          validNames = run.names.every((name) => /^[A-Za-z0-9]/.test(name));
        }
        if (run.force) argv.push("--force");

        const before = treeSnapshot(root);
        const { code, stderr } = await runCli(argv);
        const refused = !validNames || targets.some((t) => expectation(t, made, generated, run.force) === "refused");
        expect(code, `${JSON.stringify({ tree, run })}\n${stderr}`).toBe(refused ? 2 : 0);
        outcomes[refused ? "refused" : "written"] += 1;
        const after = treeSnapshot(root);
        if (refused) {
          expect(stderr).toMatch(/^[^\n]+\n$/);
          expect(after).toEqual(before);
          return;
        }
        // Outside the targets every entry is as it was; new entries are the targets and the folders made for them.
        const rel = (path: string) => relative(root, path).split(sep).join("/");
        const inTarget = (key: string) => targets.some((t) => isWithin(join(root, key.replace(/\/$/, "")), t));
        for (const [key, value] of before) if (!inTarget(key)) expect(after.get(key), key).toBe(value);
        for (const key of after.keys()) {
          if (before.has(key) || inTarget(key)) continue;
          expect(key.endsWith("/") && targets.some((t) => rel(t).startsWith(key)), `unexpected ${key}`).toBe(true);
        }
        for (const target of targets) expectGeneratedFolder(target);
      }),
      { numRuns: 70 },
    );
    // Both sides of the property were exercised, not only refusals.
    expect(outcomes.written).toBeGreaterThanOrEqual(10);
    expect(outcomes.refused).toBeGreaterThanOrEqual(10);
  }, 300_000);
});
