import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startVitest, type Vitest } from "vitest/node";
import { slowestFiles, summarize, type SummaryCounts } from "../support/summary-reporter.js";

/**
 * The summary line CI reads (test/support/summary-reporter.ts), on real vitest runs of small test
 * files: a run that exits 1 never says "0 failed", whether a test, a hook or the file itself failed.
 */

const work = realpathSync(mkdtempSync(join(tmpdir(), "mcp-tasks-gen-summary-")));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs test files of these sources with vitest (no config file, no reporter output) and returns what the reporter reads. */
async function run<T>(sources: Record<string, string>, read: (modules: ReturnType<Vitest["state"]["getTestModules"]>) => T): Promise<T> {
  const files = Object.entries(sources).map(([name, source]) => {
    const file = join(work, `${name}.test.mjs`);
    writeFileSync(file, `import { afterAll, beforeAll, describe, it } from "vitest";\n${source}`);
    return file;
  });
  const exitCode = process.exitCode; // startVitest sets it for a failed run: that is the inner run's, not this one's
  const vitest = await startVitest("test", files, { root: work, config: false, watch: false, reporters: [{}], pool: "forks", maxWorkers: 1 });
  try {
    return read(vitest.state.getTestModules());
  } finally {
    await vitest.close();
    process.exitCode = exitCode;
  }
}

/** Runs one test file of that source and counts it. */
const countRun = (name: string, source: string): Promise<SummaryCounts> => run({ [name]: source }, summarize);

describe("the summary line's counts", () => {
  it("tests that pass, fail and are skipped count as such", async () => {
    const counts = await countRun("plain", `it("a", () => {}); it("b", () => { throw new Error("no"); }); it.skip("c", () => {});`);
    expect(counts).toEqual({ passed: 1, failed: 1, skipped: 1 });
  });

  it("the tests a failing beforeAll stopped count as failed, not skipped; a skip of its own stays skipped", async () => {
    const counts = await countRun(
      "before-all",
      `it("ran", () => {});
       describe("stopped", () => { beforeAll(() => { throw new Error("setup"); }); it("x", () => {}); it("y", () => {}); });
       it.skip("skipped", () => {});`,
    );
    expect(counts).toEqual({ passed: 1, failed: 2, skipped: 1 });
  });

  it("an afterAll that fails after its tests passed counts as one failure", async () => {
    const counts = await countRun("after-all", `describe("s", () => { afterAll(() => { throw new Error("teardown"); }); it("x", () => {}); });`);
    expect(counts).toEqual({ passed: 1, failed: 1, skipped: 0 });
  });

  it("a file that throws while loading counts as one failure", async () => {
    const counts = await countRun("load", `throw new Error("cannot load"); it("x", () => {});`);
    expect(counts).toEqual({ passed: 0, failed: 1, skipped: 0 });
  });

  it("the slowest files are listed slowest first, with their path from the root", async () => {
    const slowest = await run(
      { quick: `it("a", () => {});`, slow: `it("b", async () => { await new Promise((r) => setTimeout(r, 400)); });` },
      (modules) => slowestFiles(modules, 1),
    );
    expect(slowest.map((s) => s.file)).toEqual(["slow.test.mjs"]);
    expect(slowest[0]!.seconds).toBeGreaterThanOrEqual(0.4);
  });
});
