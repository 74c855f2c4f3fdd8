import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fixturePath, projectRoot } from "./support/paths.js";

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
    expect(files).toContain(join(projectRoot, "test", "json-schema-test-suite.test.ts"));
    const offending = files.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) => (READS_SHARED.some((pattern) => pattern.test(line)) ? [`${relative(projectRoot, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offending).toEqual([]);
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
