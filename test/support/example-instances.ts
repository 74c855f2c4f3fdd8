import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { projectRoot } from "./paths.js";

/** One example server process (`examples/ext-tasks-server/run.mjs`), started the way users start it. */
export interface ExampleInstance {
  /** Its MCP endpoint, http://127.0.0.1:PORT/mcp. */
  readonly url: string;
  /** Its origin, http://127.0.0.1:PORT (what a proxy forwards to). */
  readonly origin: string;
  readonly child: ChildProcess;
  /** Everything it printed so far (for failure messages). */
  output(): string;
  /** Stops it (SIGTERM, or the signal given) and resolves once it exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Every instance still running, killed when the test process exits (a failed beforeAll must not leak servers). */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** How long an instance may take to start: run.mjs transpiles the example and the generated set first, slow on a loaded machine. */
const START_TIMEOUT_MS = 60_000;

/** Starts the example with `npm run example:ext-tasks-server`'s launcher (PORT=0 unless `env` says otherwise); resolves once it listens. */
export function startExampleInstance(env: Record<string, string> = {}): Promise<ExampleInstance> {
  const child = spawn(process.execPath, [join(projectRoot, "examples/ext-tasks-server/run.mjs")], {
    cwd: projectRoot,
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let output = "";
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      running.delete(child);
      resolve();
    }),
  );
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the example server did not start within ${START_TIMEOUT_MS / 1000} s:\n${output}`));
    }, START_TIMEOUT_MS);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url && timer) {
        clearTimeout(timer);
        resolve({ url, origin: new URL(url).origin, child, output: () => output, stop });
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
