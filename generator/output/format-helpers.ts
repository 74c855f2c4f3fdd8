/**
 * The thread that formats (format-worker.ts), started as early as possible: loading prettier there
 * takes longer than anything before formatting on this thread, so the command starts it before it
 * has even loaded the generator (cli/main.ts) when output is sure to need formatting, and formatAll
 * takes it over. Kept apart from format.ts so that starting it loads nothing else.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/** Helpers started before the code to format was known (see startFormattingEarly). */
let earlyHelpers: Worker[] = [];

/**
 * Starts formatAll's helper threads now, when formatting is sure to come (nothing generated before
 * to reuse): they load and warm up prettier on other cores while this thread generates the code.
 * stopEarlyHelpers ends them if formatAll did not take them.
 */
export function startFormattingEarly(): void {
  if (earlyHelpers.length === 0) earlyHelpers = startHelpers();
}

export async function stopEarlyHelpers(): Promise<void> {
  await Promise.all(takeEarlyHelpers().map((helper) => helper.terminate()));
}

export function takeEarlyHelpers(): Worker[] {
  const helpers = earlyHelpers;
  earlyHelpers = [];
  return helpers;
}

/**
 * The worker thread that formats batches (see format-worker.ts); none where it cannot run
 * (from the TypeScript sources, in tests, there is no compiled worker: this thread formats).
 */
export function startHelpers(): Worker[] {
  const workerFile = new URL("./format-worker.js", import.meta.url);
  if (!existsSync(fileURLToPath(workerFile))) return [];
  // One: measured on two cores, a second helper (or this thread, for a round under
  // SHARE_THRESHOLD) costs more in loading prettier than it saves.
  return Array.from({ length: 1 }, () => {
    // As much stack as the CLI's deep-input thread (cli/main.ts): prettier recurses along the code's nesting.
    const worker = new Worker(workerFile, { resourceLimits: { stackSizeMb: 512 } });
    // A helper that fails (no thread could be made, out of memory) leaves its work to this thread.
    worker.on("error", () => undefined);
    return worker;
  });
}
