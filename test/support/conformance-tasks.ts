import { join } from "node:path";
import { runConformance, type Check } from "./conformance.js";

export type { Check };

/**
 * The official conformance suite's SEP-2663 Tasks scenarios, as run against the example server by
 * server-conformance.test.ts (one instance) and scale/three-instances.test.ts (three behind a proxy);
 * `runScenarios` runs any server scenarios (server-conformance-mrtr.test.ts runs its own list).
 */
export const TASKS_SCENARIOS = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
] as const;

/** The suite's own SKIPPED check: it cannot observe status notifications yet (pending its subscriptions/listen rewrite). */
export const TASKS_EXPECTED_SKIPS: readonly string[] = ["tasks-status-notifications"];
export const TASKS_EXPECTED_PASSING = 44;

/** Runs one server scenario with the suite's CLI against `url`; its checks are saved under `work`. */
export async function runScenario(scenario: string, url: string, work: string): Promise<Check[]> {
  const run = { args: ["server", "--url", url, "--scenario", scenario], outDir: join(work, scenario), label: scenario, cwd: work };
  return (await runConformance(run)).checks;
}

/** Runs `scenarios` against `url`, `concurrency` at a time (they are independent; most of their time is waiting). */
export async function runScenarios(scenarios: readonly string[], url: string, work: string, concurrency = 2): Promise<Map<string, Check[]>> {
  const results = new Map<string, Check[]>();
  const queue = [...scenarios];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let scenario = queue.shift(); scenario; scenario = queue.shift()) results.set(scenario, await runScenario(scenario, url, work));
    }),
  );
  return results;
}

/** One line per scenario: passed, failed, skipped. */
export function summarize(scenarios: readonly string[], results: Map<string, Check[]>): string[] {
  return scenarios.map((s) => {
    const checks = results.get(s) ?? [];
    const count = (status: Check["status"]) => checks.filter((c) => c.status === status).length;
    return `${s}: ${count("SUCCESS")} passed, ${count("FAILURE")} failed${count("SKIPPED") ? `, ${count("SKIPPED")} skipped` : ""}`;
  });
}

/** The checks that neither passed nor are the suite's own expected SKIPPED ones, as readable lines. */
export function notPassing(scenario: string, checks: readonly Check[]): string[] {
  return checks
    .filter((c) => c.status !== "SUCCESS" && !(c.status === "SKIPPED" && TASKS_EXPECTED_SKIPS.includes(scenario)))
    .map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ""}`);
}
