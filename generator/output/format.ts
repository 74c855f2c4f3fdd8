/**
 * Formatting with prettier under fixed options: a user's prettier config must not change our bytes.
 * The babel-ts parser prints the same as the typescript parser for the code we emit (checked by
 * test/format.test.ts) and parses it about twice as fast.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Options } from "prettier";

const OPTIONS: Options = {
  parser: "babel-ts",
  printWidth: 120,
  tabWidth: 2,
  useTabs: false,
  semi: true,
  singleQuote: false,
  trailingComma: "all",
  bracketSpacing: true,
  arrowParens: "always",
  endOfLine: "lf",
};

const prettierVersion = (
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve("prettier/package.json"), "utf8")) as { version: string }
).version;

/** Who formats, exactly: part of every output fingerprint (see reuse.ts). */
export const FORMATTER_ID = `prettier ${prettierVersion} ${JSON.stringify(OPTIONS)}`;

/** prettier is loaded on first use: a run that reuses every file never pays for loading it. */
let loaded: Promise<typeof import("prettier")> | undefined;

export async function formatTypeScript(code: string): Promise<string> {
  loaded ??= import("prettier");
  return (await loaded).format(code, OPTIONS);
}

/** Below this much code a second thread costs more than it saves. */
const PARALLEL_THRESHOLD = 64 * 1024;

/**
 * Formats many modules, splitting the work between this thread and one worker thread when there
 * is enough of it (prettier is single-threaded and formatting is most of a generation's time).
 * The result is the same either way: each module is formatted on its own, with the same options.
 */
export async function formatAll(codes: readonly string[]): Promise<string[]> {
  const total = codes.reduce((sum, c) => sum + c.length, 0);
  const workerFile = new URL("./format-worker.js", import.meta.url);
  // From the TypeScript sources (tests) there is no compiled worker: format in this thread.
  if (total < PARALLEL_THRESHOLD || !existsSync(fileURLToPath(workerFile))) return Promise.all(codes.map(formatTypeScript));

  // Largest first, each to the lighter side, so both threads finish at about the same time.
  const order = codes.map((_, i) => i).sort((a, b) => codes[b]!.length - codes[a]!.length);
  const mine: number[] = [];
  const theirs: number[] = [];
  let mineSize = 0;
  let theirsSize = 0;
  for (const i of order) {
    if (theirsSize < mineSize) {
      theirs.push(i);
      theirsSize += codes[i]!.length;
    } else {
      mine.push(i);
      mineSize += codes[i]!.length;
    }
  }
  // As much stack as the CLI's own thread (cli/main.ts): prettier recurses along the code's nesting.
  const worker = new Worker(workerFile, { workerData: theirs.map((i) => codes[i]!), resourceLimits: { stackSizeMb: 512 } });
  const fromWorker = new Promise<string[]>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  const results: string[] = new Array<string>(codes.length);
  const local = await Promise.all(mine.map((i) => formatTypeScript(codes[i]!)));
  mine.forEach((i, k) => (results[i] = local[k]!));
  const remote = await fromWorker;
  theirs.forEach((i, k) => (results[i] = remote[k]!));
  await worker.terminate();
  return results;
}
