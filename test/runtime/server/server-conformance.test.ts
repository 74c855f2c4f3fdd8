import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformanceRunner } from "../../support/conformance.js";
import {
  notPassing,
  runScenarios,
  summarize,
  TASKS_EXPECTED_PASSING as EXPECTED_PASSING,
  TASKS_SCENARIOS as SCENARIOS,
  type Check,
} from "../../support/conformance-tasks.js";
import { startExampleInstance, type ExampleInstance } from "../../support/example-instances.js";

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, its
 * SEP-2663 Tasks scenarios) against the example server built on the generated ext-tasks server,
 * started the way users start it (`examples/ext-tasks-server/run.mjs`, PORT=0). The suite needs
 * Node 22; both live in tools/conformance (installed by tools/conformance/install.mjs). When either is missing
 * this test fails: it never skips.
 */

let server: ExampleInstance | undefined;
let work: string;
let results = new Map<string, Check[]>();

beforeAll(async () => {
  conformanceRunner(); // fails loudly when the suite or its Node 22 is missing
  work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-conformance-"));
  server = await startExampleInstance();
  // Two at a time: the server is stateless, the scenarios independent, and most of their time is waiting.
  results = await runScenarios(SCENARIOS, server.url, work);
  const summary = summarize(SCENARIOS, results);
  console.log(`conformance (Tasks, SEP-2663):\n  ${summary.join("\n  ")}`);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("official MCP conformance, Tasks scenarios, against examples/ext-tasks-server", () => {
  it.each(SCENARIOS)("%s: every check passes", (scenario) => {
    const checks = results.get(scenario)!;
    expect(checks.length, `${scenario} reported no checks`).toBeGreaterThan(0);
    expect(notPassing(scenario, checks)).toEqual([]);
  });

  it(`passes ${EXPECTED_PASSING} checks in all, besides the suite's one SKIPPED check`, () => {
    const all = [...results.values()].flat();
    expect(all.filter((c) => c.status === "SUCCESS")).toHaveLength(EXPECTED_PASSING);
    expect(all.filter((c) => c.status === "SKIPPED").map((c) => c.id)).toEqual(["tasks-status-notifications"]);
    expect(all).toHaveLength(EXPECTED_PASSING + 1);
  });
});
