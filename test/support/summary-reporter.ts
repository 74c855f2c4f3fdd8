import type { Reporter, TestCase, TestModule, TestSuite } from "vitest/node";

/** The counts of the summary line. */
export interface SummaryCounts {
  passed: number;
  failed: number;
  skipped: number;
}

/** The suites and the module around a test, innermost first. */
function enclosing(test: TestCase): (TestSuite | TestModule)[] {
  const chain: (TestSuite | TestModule)[] = [];
  for (let at: TestSuite | TestModule = test.parent; ; at = at.parent) {
    chain.push(at);
    if (at.type === "module") return chain;
  }
}

/**
 * Counts a run. A failure outside a test (a `beforeAll` or `afterAll` hook that throws, a file that
 * does not load) leaves the tests it stopped as skipped and makes the run exit 1: those tests count as
 * failed, and a suite or module whose error stopped no test (an `afterAll` after its tests passed, a
 * file with no test collected) counts as one failed, so the line never says "0 failed" of a failed run.
 */
export function summarize(testModules: ReadonlyArray<TestModule>): SummaryCounts {
  const count: SummaryCounts = { passed: 0, failed: 0, skipped: 0 };
  const blamed = new Set<TestSuite | TestModule>();
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === "passed") count.passed++;
      else if (state === "failed") count.failed++;
      else {
        const stoppedBy = enclosing(test).find((scope) => scope.errors().length > 0);
        if (stoppedBy) {
          count.failed++;
          blamed.add(stoppedBy);
        } else count.skipped++;
      }
    }
    for (const scope of [module, ...module.children.allSuites()]) {
      if (scope.errors().length > 0 && !blamed.has(scope)) count.failed++;
    }
    if (module.state() === "failed" && module.errors().length === 0 && [...module.children.allTests()].length === 0) count.failed++;
  }
  return count;
}

/** The `limit` test files that took longest, slowest first: their path from the project root and seconds. */
export function slowestFiles(testModules: ReadonlyArray<TestModule>, limit: number): { file: string; seconds: number }[] {
  return testModules
    .map((module) => ({ file: module.relativeModuleId, seconds: module.diagnostic().duration / 1000 }))
    .sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file))
    .slice(0, limit);
}

/** How many of the slowest files a run of several files lists (where the time of `npm test` goes). */
const SLOWEST_LISTED = 10;

/**
 * Ends a run with the plain line `N passed, N failed, N skipped`, which CI reads as the count of
 * tests run regardless of the runner; a run of several files lists its slowest ones just before it.
 */
export default class SummaryLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const count = summarize(testModules);
    const slowest = testModules.length > 1 ? slowestFiles(testModules, SLOWEST_LISTED) : [];
    const listing = slowest.length > 0 ? `\nslowest test files:\n${slowest.map(({ file, seconds }) => `  ${seconds.toFixed(1).padStart(7)} s  ${file}`).join("\n")}\n` : "";
    process.stdout.write(`${listing}\n${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped\n`);
  }
}
