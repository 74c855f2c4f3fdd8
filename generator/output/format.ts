/**
 * Formatting with prettier under fixed options: a user's prettier config must not change our bytes.
 * The babel-ts parser prints the same as the typescript parser for the code we emit (checked by
 * test/generator/output/format.test.ts) and parses it about twice as fast.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Options } from "prettier";
import { fillSkeleton, joinStatements, placeholderSpans, skeletonOf, splitStatements } from "./chunks.js";

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

/** About how much code one prettier call formats (statements are batched up to this). */
const BATCH_SIZE = 32 * 1024;

/**
 * Formats many modules. Each module is split into its top-level statements; statements that
 * differ only in names and plain strings are formatted once (see chunks.ts), in batches shared
 * between this thread and one worker thread (prettier is single-threaded and formatting is most of
 * a generation's time). The result is what prettier prints for each whole module; a module that
 * cannot be split, or has a statement that does not parse alone, is formatted whole.
 */
export async function formatAll(codes: readonly string[]): Promise<string[]> {
  const total = codes.reduce((sum, c) => sum + c.length, 0);
  // Started first, so it loads prettier while this thread finds the statements to format.
  const helper = total >= PARALLEL_THRESHOLD ? startHelper() : undefined;
  try {
    const jobs = new Map<string, number>();
    const jobTexts: string[] = [];
    // A module that cannot be split is one statement here: it is formatted whole, in the queue
    // with the rest (so both threads share it).
    const plans = codes.map((code) =>
      (splitStatements(code) ?? [{ code, blankBefore: false }]).map((chunk) => {
        const skeleton = skeletonOf(chunk.code);
        let job = jobs.get(skeleton.text);
        if (job === undefined) {
          job = jobTexts.push(skeleton.text) - 1;
          jobs.set(skeleton.text, job);
        }
        return { chunk, skeleton, job };
      }),
    );
    const formatted = await formatStatements(jobTexts, helper);
    const spans = formatted.map((f) => (f === undefined ? undefined : placeholderSpans(f)));
    return await Promise.all(
      codes.map(async (code, m) => {
        const plan = plans[m]!;
        if (plan.some((p) => formatted[p.job] === undefined)) return formatTypeScript(code);
        const statements = await Promise.all(
          plan.map((p) => fillSkeleton(formatted[p.job]!, spans[p.job], p.skeleton) ?? formatTypeScript(p.chunk.code)),
        );
        return joinStatements(
          plan.map((p) => p.chunk),
          statements,
        );
      }),
    );
  } finally {
    await helper?.terminate();
  }
}

/** The worker thread that formats batches alongside this one (see format-worker.ts). */
function startHelper(): Worker | undefined {
  const workerFile = new URL("./format-worker.js", import.meta.url);
  // From the TypeScript sources (tests) there is no compiled worker: format in this thread.
  if (!existsSync(fileURLToPath(workerFile))) return undefined;
  // As much stack as the CLI's own thread (cli/main.ts): prettier recurses along the code's nesting.
  const worker = new Worker(workerFile, { resourceLimits: { stackSizeMb: 512 } });
  // A helper that fails (no thread could be made, out of memory) leaves its work to this thread.
  worker.on("error", () => undefined);
  return worker;
}

/**
 * Formats statements (each a complete program) in batches, on this thread and on the helper
 * thread if there is one, each taking the next batch when done with one; undefined for a
 * statement prettier cannot parse alone.
 */
async function formatStatements(texts: readonly string[], helper: Worker | undefined): Promise<(string | undefined)[]> {
  const results = new Array<string | undefined>(texts.length);
  // Largest first, so neither thread is left with a large batch at the end.
  const queue = batchesOf(texts).sort((a, b) => b.size - a.size);
  const place = (batch: Batch, formatted: readonly (string | undefined)[]) =>
    batch.indices.forEach((index, k) => (results[index] = formatted[k]));
  const helped = new Promise<void>((resolve) => {
    if (!helper || queue.length < 2) return resolve();
    // The helper always holds a batch beyond the one it formats: it answers while this thread is
    // busy with a batch of its own, and must not wait for this thread to hand it the next one.
    const sent: Batch[] = [];
    const send = () => {
      const batch = queue.shift();
      if (batch) [sent.push(batch), helper.postMessage(batch.texts)];
    };
    helper.on("message", (formatted: (string | undefined)[]) => {
      place(sent.shift()!, formatted);
      send();
      if (sent.length === 0) resolve();
    });
    helper.once("error", () => {
      queue.push(...sent.splice(0)); // this thread formats them
      resolve();
    });
    send();
    send();
  });
  const formatQueue = async () => {
    for (let batch = queue.shift(); batch; batch = queue.shift()) {
      place(batch, await formatBatch(batch.texts));
      // prettier's awaits are microtasks: let the helper's answer in, so it gets its next batch now.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await formatQueue();
  await helped;
  await formatQueue(); // what a failed helper handed back
  return results;
}

interface Batch {
  readonly indices: number[];
  readonly texts: string[];
  size: number;
}

function batchesOf(texts: readonly string[]): Batch[] {
  const batches: Batch[] = [];
  let current: Batch | undefined;
  texts.forEach((text, index) => {
    if (!current || current.size >= BATCH_SIZE) batches.push((current = { indices: [], texts: [], size: 0 }));
    current.indices.push(index);
    current.texts.push(text);
    current.size += text.length;
  });
  return batches;
}

/**
 * A line between statements of a batch, so one prettier call formats many of them: an own-line
 * comment changes nothing in how the statement after it is printed.
 */
const SEPARATOR = "// @mcp-tasks-gen-statement-boundary";

/** Formats statements in one prettier call, one by one when the batch does not come apart cleanly. */
export async function formatBatch(texts: readonly string[]): Promise<(string | undefined)[]> {
  if (!texts.some((t) => t.includes(SEPARATOR))) {
    try {
      // Split only at separators prettier printed at column 0, between top-level statements: one
      // it printed elsewhere was taken into a statement, and the batch is formatted one by one.
      // Trimmed: a blank line beside a separator would be kept, and end up in a statement's text.
      const joined = texts.map((t) => t.trim()).join(`\n${SEPARATOR}\n`);
      const parts = (await formatTypeScript(joined)).split(`\n${SEPARATOR}\n`);
      if (parts.length === texts.length) return parts.map((part, i) => (i < parts.length - 1 ? `${part}\n` : part));
    } catch {
      // Some statement does not parse alone: find which, below.
    }
  }
  return Promise.all(texts.map((t) => formatTypeScript(t).catch(() => undefined)));
}
