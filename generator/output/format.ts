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
import { fillSkeleton, joinStatements, placeholderSpans, skeletonOf, splitStatements, type Skeleton } from "./chunks.js";
import { exactLines, exactText, partOf, place, render, type Part } from "./outline.js";

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

/** Formats a module under OPTIONS; `printWidth` other than OPTIONS' only for outlines (see outline.ts). */
export async function formatTypeScript(code: string, printWidth = WIDTH): Promise<string> {
  loaded ??= import("prettier");
  return (await loaded).format(code, printWidth === WIDTH ? OPTIONS : { ...OPTIONS, printWidth });
}

const WIDTH = OPTIONS.printWidth!;

/** No width limit: nothing breaks that prettier does not break at any width (see outline.ts). */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** Below this much code a second thread costs more than it saves. */
const PARALLEL_THRESHOLD = 64 * 1024;

/**
 * How much code one prettier call formats at most (statements are batched up to this); a round of
 * less is cut into about 16 batches, so both threads have work to the end.
 */
const BATCH_SIZE = 32 * 1024;
const MIN_BATCH_SIZE = 4 * 1024;

/** Texts to format, each once. */
class Jobs {
  readonly texts: string[] = [];
  private readonly index = new Map<string, number>();

  add(text: string): number {
    let job = this.index.get(text);
    if (job === undefined) {
      job = this.texts.push(text) - 1;
      this.index.set(text, job);
    }
    return job;
  }
}

/** A part of a statement to format whole at its indentation (see outline.ts). */
interface Whole {
  readonly skeleton: Skeleton;
  readonly job: number;
  readonly indent: number;
}

/**
 * Formats many modules. Each module is split into its top-level statements, each statement into
 * its outline and the statements of its blocks (see outline.ts). Outlines are formatted with no
 * width limit, once per short skeleton; what does not fit the width is formatted whole at its
 * indentation, once per skeleton (see chunks.ts). Both rounds go in batches to a worker thread
 * (see formatStatements). The result is what prettier prints for each whole module; a
 * module that cannot be split, or has a statement that does not parse alone, is formatted whole.
 */
export async function formatAll(codes: readonly string[]): Promise<string[]> {
  const total = codes.reduce((sum, c) => sum + c.length, 0);
  // Started first, so it loads prettier while this thread finds the statements to format (or
  // earlier, by startFormattingEarly).
  const early = takeEarlyHelpers();
  if (total < PARALLEL_THRESHOLD) early.forEach((helper) => void helper.terminate());
  const helpers = total < PARALLEL_THRESHOLD ? [] : early.length > 0 ? early : startHelpers();
  try {
    // A module that cannot be split is one statement here: it is formatted whole, in the queue
    // with the rest. Statements that differ only in names and plain strings are one skeleton
    // (see chunks.ts), taken apart and formatted once.
    const modules = codes.map((code) => {
      const chunks = splitStatements(code) ?? [{ code, blankBefore: false }];
      return { code, chunks, skeletons: chunks.map((chunk) => skeletonOf(chunk.code)) };
    });
    const parts = new Map<string, Part>();
    for (const m of modules) for (const { text } of m.skeletons) if (!parts.has(text)) parts.set(text, partOf(text));

    const outlines = new Jobs();
    const outlineJob = new Map<Part, number>();
    const collect = (part: Part): void => {
      if (part.outline) outlineJob.set(part, outlines.add(part.outline.text));
      part.blocks.forEach((block) => block.parts.forEach(collect));
    };
    parts.forEach(collect);
    const flatOutlines = filled(await formatStatements(outlines.texts, helpers, NO_LIMIT));
    const flat = (part: Part) => {
      const job = outlineJob.get(part);
      return job === undefined ? undefined : flatOutlines(job, part.outline!);
    };

    const wholes = new Jobs();
    const whole = (code: string, indent: number): Whole | undefined => {
      const text = exactText(code, indent);
      if (text === undefined) return undefined;
      const skeleton = skeletonOf(text);
      return { skeleton, job: wholes.add(skeleton.text), indent };
    };
    const placed = new Map([...parts].map(([text, part]) => [text, place(part, 0, WIDTH, flat, whole)]));
    const formattedWholes = filled(await formatStatements(wholes.texts, helpers, WIDTH));
    const resolve = (w: Whole | undefined) => {
      const text = w && formattedWholes(w.job, w.skeleton);
      return text === undefined ? undefined : exactLines(text, w!.indent);
    };
    // Each skeleton's formatting, with the placeholder positions in it.
    const formatted = new Map<string, { text: string; spans: number[] | undefined } | undefined>();
    for (const [skeleton, p] of placed) {
      const lines = render(p, resolve);
      const text = lines && `${lines.join("\n")}\n`;
      formatted.set(skeleton, text === undefined ? undefined : { text, spans: placeholderSpans(text) });
    }

    return await Promise.all(
      modules.map(async (m) => {
        const statements = m.skeletons.map((skeleton) => {
          const f = formatted.get(skeleton.text);
          return f && fillSkeleton(f.text, f.spans, skeleton);
        });
        // A statement that did not parse alone (the split went wrong somewhere) or did not get its
        // tokens back: the module is formatted whole.
        if (statements.some((text) => text === undefined)) return formatTypeScript(m.code);
        return joinStatements(m.chunks, statements as string[]);
      }),
    );
  } finally {
    await Promise.all(helpers.map((helper) => helper.terminate()));
  }
}

/** Formatted skeletons with a statement's tokens put back (placeholder positions worked out once per skeleton). */
function filled(formatted: readonly (string | undefined)[]): (job: number, skeleton: Skeleton) => string | undefined {
  const spans = new Map<number, number[] | undefined>();
  return (job, skeleton) => {
    const text = formatted[job];
    if (text === undefined) return undefined;
    if (!spans.has(job)) spans.set(job, placeholderSpans(text));
    return fillSkeleton(text, spans.get(job), skeleton);
  };
}

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

function takeEarlyHelpers(): Worker[] {
  const helpers = earlyHelpers;
  earlyHelpers = [];
  return helpers;
}


/**
 * The worker thread that formats batches (see format-worker.ts); none where it cannot run
 * (from the TypeScript sources, in tests, there is no compiled worker: this thread formats).
 */
function startHelpers(): Worker[] {
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

/**
 * Formats statements (each a complete program) in batches: on the helper threads when there are
 * any (warm, and this thread need not load prettier), each taking the next batch when done with
 * one, and on this thread too for a large round (SHARE_THRESHOLD); on this thread alone when
 * there is no helper, and for what a failed helper hands back. Undefined for a statement prettier
 * cannot parse alone.
 */
async function formatStatements(texts: readonly string[], helpers: readonly Worker[], printWidth: number): Promise<(string | undefined)[]> {
  const results = new Array<string | undefined>(texts.length);
  // Largest first, so no thread is left with a large batch at the end.
  const queue = batchesOf(texts).sort((a, b) => b.size - a.size);
  const place = (batch: Batch, formatted: readonly (string | undefined)[]) =>
    batch.indices.forEach((index, k) => (results[index] = formatted[k]));
  const helped = (helper: Worker) =>
    new Promise<void>((resolve) => {
      // A helper always holds a batch beyond the one it formats, so it never waits to be handed one.
      const sent: Batch[] = [];
      const send = () => {
        const batch = queue.shift();
        if (batch) [sent.push(batch), helper.postMessage({ texts: batch.texts, printWidth })];
      };
      const done = () => [helper.off("message", answered), helper.off("error", failed), resolve()];
      const answered = (formatted: (string | undefined)[]) => {
        place(sent.shift()!, formatted);
        send();
        if (sent.length === 0) done();
      };
      const failed = () => {
        queue.push(...sent.splice(0)); // this thread formats them
        done();
      };
      helper.on("message", answered);
      helper.once("error", failed);
      send();
      send();
      if (sent.length === 0) done();
    });
  const formatQueue = async () => {
    for (let batch = queue.shift(); batch; batch = queue.shift()) {
      place(batch, await formatBatch(batch.texts, printWidth));
      // prettier's awaits are microtasks: let a helper's answer in, so it gets its next batch now.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const size = texts.reduce((sum, t) => sum + t.length, 0);
  await Promise.all([...helpers.map(helped), ...(size >= SHARE_THRESHOLD ? [formatQueue()] : [])]);
  await formatQueue(); // no helper, or what a failed one handed back
  return results;
}

/**
 * From this much code in a round, this thread formats too: loading prettier here (about 100 ms)
 * pays off. Below it, the helper, warm since generation began, formats alone.
 */
const SHARE_THRESHOLD = 256 * 1024;

interface Batch {
  readonly indices: number[];
  readonly texts: string[];
  size: number;
}

function batchesOf(texts: readonly string[]): Batch[] {
  const total = texts.reduce((sum, t) => sum + t.length, 0);
  const size = Math.min(BATCH_SIZE, Math.max(MIN_BATCH_SIZE, Math.ceil(total / 16)));
  const batches: Batch[] = [];
  let current: Batch | undefined;
  texts.forEach((text, index) => {
    if (!current || current.size >= size) batches.push((current = { indices: [], texts: [], size: 0 }));
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
export async function formatBatch(texts: readonly string[], printWidth = WIDTH): Promise<(string | undefined)[]> {
  if (!texts.some((t) => t.includes(SEPARATOR))) {
    try {
      // Split only at separators prettier printed at column 0, between top-level statements: one
      // it printed elsewhere was taken into a statement, and the batch is formatted one by one.
      // Trimmed: a blank line beside a separator would be kept, and end up in a statement's text.
      const joined = texts.map((t) => t.trim()).join(`\n${SEPARATOR}\n`);
      const parts = (await formatTypeScript(joined, printWidth)).split(`\n${SEPARATOR}\n`);
      if (parts.length === texts.length) return parts.map((part, i) => (i < parts.length - 1 ? `${part}\n` : part));
    } catch {
      // Some statement does not parse alone: find which, below.
    }
  }
  return Promise.all(texts.map((t) => formatTypeScript(t, printWidth).catch(() => undefined)));
}
