#!/usr/bin/env node
/**
 * The `mcp-tasks-gen` command, and its `init`, `lint` and `diff` subcommands (one file each beside
 * this one). Exit codes: 0 done, 1 `--check` found differences (or `diff --fail-on-breaking` a
 * breaking change), 2 bad input, configuration or output folder (or lint findings with `--strict`),
 * 3 a bug in mcp-tasks-gen.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { allowJsonDepth } from "../load/json-text.js";
import { startFormattingEarly, stopEarlyHelpers } from "../output/format-helpers.js";
import { formattingIsSure } from "./early-format.js";
import { EXIT } from "./exit.js";

export { EXIT };

/**
 * Runs `mcp-tasks-gen ...argv` with its report on `out` and findings and failures on `err`; resolves to the
 * exit code. The commands are loaded when run, so the bin can start the formatting thread first.
 */
export async function main(
  argv: readonly string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  if (argv[0] === "lint") return (await import("./lint.js")).lintCommand(argv.slice(1), { out, err });
  if (argv[0] === "diff") return (await import("./diff.js")).diffCommand(argv.slice(1), { out, err });
  if (argv[0] === "init") return (await import("./init.js")).initCommand(argv.slice(1), { out, err });
  return (await import("./generate.js")).generateCommand(argv, { out, err });
}

/**
 * How deep the input's JSON may nest for the command to run on the main thread, with Node's
 * default stack (under 1 MB). Lowering, analysis, emission and formatting recurse along the
 * schema's nesting, and that stack overflowed at about 1,200 levels of JSON (schemas nested 400 to
 * 600 deep): a fifth of that leaves room for keywords that recurse more per level. Deeper input
 * runs on a thread with STACK_SIZE_MB (see test/generator/scale/deep-nesting.test.ts). Decided by
 * the input alone, so a given input always runs the same way.
 */
export const MAIN_THREAD_JSON_DEPTH = 256;

/**
 * How much stack the command's thread gets for deeper input: this holds MAX_NESTING_LEVELS with
 * room to spare. Only the pages used are ever touched, so it costs no memory; starting the thread
 * and loading the generator again in it costs about 70 ms, which is why shallow input does not.
 */
export const STACK_SIZE_MB = 512;

/**
 * The command as the bin runs it: on this thread while its input nests at most
 * MAIN_THREAD_JSON_DEPTH levels; once input turns out deeper (or the stack overflows anyway, before
 * anything was written), from the start again on a thread with a large stack.
 */
async function runBin(argv: readonly string[]): Promise<number> {
  // Before anything else loads: prettier takes longer to load on its thread than the generator here.
  if (formattingIsSure(argv)) startFormattingEarly();
  allowJsonDepth(MAIN_THREAD_JSON_DEPTH);
  try {
    return await main(argv);
  } catch (e) {
    if ((await import("./command.js")).outgrewThisStack(e)) {
      await stopEarlyHelpers();
      return runWithLargeStack(argv);
    }
    process.stderr.write(`mcp-tasks-gen: internal error, please report it: ${(e as Error).stack ?? String(e)}\n`);
    return EXIT.internal;
  } finally {
    // A run that failed before formatting (a config error, say) must not be kept alive by the thread.
    await stopEarlyHelpers();
  }
}

/**
 * The command, run in a worker thread with STACK_SIZE_MB of stack; resolves to its exit code. Where
 * no such thread can be made (a system that will not reserve the stack), it runs on this thread
 * with no depth limit, as far as its stack goes.
 */
function runWithLargeStack(argv: readonly string[]): Promise<number> {
  return new Promise((resolveCode) => {
    let code: number = EXIT.internal;
    let started = false;
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { [WORKER_MARK]: [...argv] },
      resourceLimits: { stackSizeMb: STACK_SIZE_MB },
    });
    worker.on("online", () => (started = true));
    worker.on("message", (c: number) => (code = c));
    worker.on("error", (e) => {
      if (!started) {
        allowJsonDepth(Number.POSITIVE_INFINITY);
        return void main(argv).then(resolveCode);
      }
      process.stderr.write(`mcp-tasks-gen: internal error, please report it: ${e.stack ?? String(e)}\n`);
      code = EXIT.internal;
    });
    worker.on("exit", () => started && resolveCode(code));
  });
}

const WORKER_MARK = "mcp-tasks-gen argv";

// Run when executed as the bin (through npm's symlink too), not when imported by tests; in the
// large-stack worker, run the command it was handed and report the code.
const invokedAs = process.argv[1] ? realpathSync(resolve(process.argv[1])) : "";
const workerArgv = isMainThread ? undefined : (workerData as Record<string, string[]> | null)?.[WORKER_MARK];
if (workerArgv) {
  main(workerArgv).then((code) => parentPort!.postMessage(code));
} else if (isMainThread && invokedAs === realpathSync(fileURLToPath(import.meta.url))) {
  runBin(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
