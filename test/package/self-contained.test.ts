import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fixturePath, projectRoot } from "../support/paths.js";

/**
 * The repository is self-contained: a clone of it alone passes `npm install && npm test`. On the
 * developers' machines a read-only `../shared` folder sits beside the project, and data once read from
 * it at test time now lives in test/fixtures, each folder with a SOURCE.md naming its upstream,
 * revision and licence. These checks fail if code reaches for that folder again, or if a test reads
 * copied data whose folder says nowhere where it came from.
 */

/** Folders that hold no code of the project's own: installed, built, or copied test data. */
const NOT_SCANNED = new Set(["node_modules", ".git", "dist", ".vitest-tmp", "test/fixtures"]);
/** Files that run: sources, scripts, configuration (documentation may cite where data came from). */
const CODE = /\.(?:[cm]?[jt]s|json)$/;
/** This file, which spells out what it looks for. */
const THIS_FILE = fileURLToPath(import.meta.url);
/** `../shared` written as a path, or as path segments (`resolve(root, "..", "shared")`). */
const READS_SHARED = [/\.\.[\\/]+shared\b/, /["'`]\.\.["'`]\s*,\s*["'`]shared["'`]/];
/**
 * A citation a reader of the repository cannot follow: the design notes kept beside it, or an issue
 * of its tracker (`issue-6`, `issue 11`). Comments say the reason itself, or cite README.md or
 * ARCHITECTURE.md.
 */
const CITES_OUTSIDE = [/\b(?:design|style)\.md\b/i, /\bissues?[- ]#?\d+/i];
/** Where code and its comments live (test/fixtures is copied data, with its own SOURCE.md). */
const CITING_FOLDERS = ["generator", "templates", "test", "bench", "examples"];

/** Every text file under a folder, but what NOT_SCANNED leaves out and this file. */
function textFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const rel = relative(projectRoot, path).split("\\").join("/");
    if (NOT_SCANNED.has(entry.name) || NOT_SCANNED.has(rel) || path === THIS_FILE) return [];
    if (entry.isDirectory()) return textFiles(path);
    return entry.isFile() && !readFileSync(path).includes(0) ? [path] : [];
  });
}

/** `file:line: text` of each line matching one of the patterns. */
function linesMatching(files: readonly string[], patterns: readonly RegExp[]): string[] {
  return files.flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) => (patterns.some((pattern) => pattern.test(line)) ? [`${relative(projectRoot, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
}

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const rel = relative(projectRoot, path).split("\\").join("/");
    if (NOT_SCANNED.has(entry.name) || NOT_SCANNED.has(rel) || path === THIS_FILE) return [];
    if (entry.isDirectory()) return codeFiles(path);
    // `.ci/run` and the like are scripts without an extension.
    return entry.isFile() && (CODE.test(entry.name) || rel.startsWith(".ci/")) ? [path] : [];
  });
}

describe("a self-contained repository", () => {
  it("no code or script reads ../shared", () => {
    const files = codeFiles(projectRoot);
    // The walk must reach the tests themselves, or it proves nothing.
    expect(files).toContain(join(projectRoot, "test", "oracles", "json-schema-test-suite.test.ts"));
    expect(linesMatching(files, READS_SHARED)).toEqual([]);
  });

  it("no code, template, test, benchmark or example cites a document or an issue outside the repository", () => {
    const files = CITING_FOLDERS.flatMap((folder) => textFiles(join(projectRoot, folder)));
    // The walk must reach comments in each kind of file, or it proves nothing.
    for (const file of ["generator/analyze/status.ts", "templates/client.ts.hbs", "test/support/typescript.ts", "bench/scale.mjs"]) {
      expect(files).toContain(join(projectRoot, file));
    }
    expect(files.some((file) => relative(projectRoot, file).startsWith("test/fixtures"))).toBe(false);
    expect(linesMatching(files, CITES_OUTSIDE)).toEqual([]);
  });

  it("the citation patterns catch the ways they were written before, and not the repository's own documents", () => {
    for (const line of ["the status machine (design.md): working", "against the issue-6 example server", "Goal (issue 11): at 5,000", "see ../shared/style.md"]) {
      expect(CITES_OUTSIDE.some((pattern) => pattern.test(line)), line).toBe(true);
    }
    for (const line of ["(README.md › The generated API)", "ARCHITECTURE.md › Naming", "a cursor it did not issue", "an issued id 12"]) {
      expect(CITES_OUTSIDE.some((pattern) => pattern.test(line)), line).toBe(false);
    }
  });

  it("the patterns catch the ways ../shared was read before", () => {
    for (const line of ['readFileSync("../shared/seeds/x.json")', 'resolve(projectRoot, "..", "shared")', "join(root, '..', 'shared', 'mcp-spec')"]) {
      expect(READS_SHARED.some((pattern) => pattern.test(line)), line).toBe(true);
    }
    expect(READS_SHARED.some((pattern) => pattern.test('fixturePath("mcp-spec", "tasks-examples.json")'))).toBe(false);
  });

  it("every fixture folder a test reads through fixturePath names its source in a SOURCE.md", () => {
    const folders = new Set(
      codeFiles(join(projectRoot, "test"))
        .filter((file) => file.endsWith(".ts"))
        .flatMap((file) => [...readFileSync(file, "utf8").matchAll(/fixturePath\(\s*"([^"]+)"/g)].map((m) => m[1]!)),
    );
    expect([...folders].sort()).toEqual(expect.arrayContaining(["json-schema-test-suite", "mcp-spec", "seeds"]));
    for (const folder of folders) expect(existsSync(join(fixturePath(folder), "SOURCE.md")), `test/fixtures/${folder}/SOURCE.md`).toBe(true);
  });

  it("fixturePath fails loudly, naming the missing path, instead of letting a test skip", () => {
    expect(() => fixturePath("mcp-spec", "no-such-file.json")).toThrow(/^test data missing: test[\\/]fixtures[\\/]mcp-spec[\\/]no-such-file\.json \(copy it/);
  });
});
