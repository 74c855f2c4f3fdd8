import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformanceRunner, runConformance, type Check } from "../../support/conformance.js";
import { projectRoot } from "../../support/paths.js";

/**
 * The official MCP conformance suite's client scenarios (@modelcontextprotocol/conformance
 * 0.2.0-alpha.12, in tools/conformance with the Node 22 it needs) against
 * examples/conformance-client/run.mjs, the client built from the generated sets `ext-tasks-draft`
 * and `tasks-2025-11-25` with their `http-client` part. The suite starts a mock server per scenario,
 * runs the client against it and records its checks. Every check must be SUCCESS; INFO entries are
 * the suite's log, and the SKIPPED checks listed below are the suite's own (what the scenario
 * cannot observe of a client that does not do that thing), reported as such. Scenarios run one at a
 * time. When the suite or Node 22 is missing this test fails: it never skips.
 */

const RUNNER = join(projectRoot, "examples", "conformance-client", "run.mjs");

interface Run {
  readonly scenario: string;
  readonly specVersion?: string;
  /** Checks the suite itself reports SKIPPED for this client, by name: why they are not run. */
  readonly skipped?: { readonly [name: string]: string };
}

const RUNS: readonly Run[] = [
  { scenario: "initialize" },
  { scenario: "tools_call" },
  { scenario: "tools_call", specVersion: "2026-07-28" },
  { scenario: "sep-2322-client-request-state" },
  {
    scenario: "request-metadata",
    skipped: {
      ClientDeclaresRootsCapability: "the client declares no roots capability (it has no roots to list)",
      ClientDeclaresSamplingCapability: "the client declares no sampling capability (it runs no model)",
    },
  },
  {
    scenario: "http-standard-headers",
    skipped: {
      ClientMcpMethodHeader_initialize: "the stateless revision has no initialize",
      ClientMcpMethodHeader_notifications_initialized: "the stateless revision has no initialize",
    },
  },
  { scenario: "http-custom-headers" },
  { scenario: "http-invalid-tool-headers" },
  { scenario: "sse-retry" },
  { scenario: "elicitation-sep1034-client-defaults" },
];

const label = (run: Run) => (run.specVersion ? `${run.scenario} --spec-version ${run.specVersion}` : run.scenario);

let work: string;
const results = new Map<string, { checks: Check[]; output: string }>();

beforeAll(async () => {
  conformanceRunner(); // fails loudly when the suite or its Node 22 is missing
  work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-client-conformance-"));
  for (const run of RUNS) results.set(label(run), await runScenario(run));
  const summary = RUNS.map((run) => {
    const checks = results.get(label(run))!.checks;
    const count = (status: Check["status"]) => checks.filter((c) => c.status === status).length;
    return `${label(run)}: ${count("SUCCESS")} passed, ${count("FAILURE") + count("WARNING")} failed${count("SKIPPED") ? `, ${count("SKIPPED")} skipped` : ""}`;
  });
  console.log(`conformance (client scenarios):\n  ${summary.join("\n  ")}`);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("official MCP conformance, client scenarios, against examples/conformance-client/run.mjs", () => {
  it.each(RUNS.map((run) => [label(run), run] as const))("%s: every check passes", (name, run) => {
    const { checks, output } = results.get(name)!;
    const verdicts = checks.filter((c) => c.status !== "INFO");
    expect(verdicts.length, `${name} reported no checks:\n${output}`).toBeGreaterThan(0);
    const expectedSkips = Object.keys(run.skipped ?? {});
    const notPassing = verdicts.filter((c) => c.status !== "SUCCESS" && !(c.status === "SKIPPED" && expectedSkips.includes(c.name)));
    expect(notPassing.map((c) => `${c.name}: ${c.status} ${c.errorMessage ?? ""}`), output).toEqual([]);
    expect(verdicts.filter((c) => c.status === "SKIPPED").map((c) => c.name).sort()).toEqual([...expectedSkips].sort());
  });
});

/** Runs one client scenario with the suite's CLI against the runner, and reads the checks it saved. */
function runScenario(run: Run): Promise<{ checks: Check[]; output: string }> {
  const args = ["client", "--command", `${process.execPath} ${RUNNER}`, "--scenario", run.scenario];
  if (run.specVersion) args.push("--spec-version", run.specVersion);
  return runConformance({
    args,
    outDir: join(work, label(run).replace(/\W+/g, "-")),
    label: label(run),
    cwd: projectRoot,
    // The runner transpiles the generated sets once into this folder and reuses them.
    env: { ...process.env, MCP_TASKS_GEN_CLIENT_BUILD: join(work, "build") },
  });
}
