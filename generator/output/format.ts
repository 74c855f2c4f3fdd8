/**
 * Formatting with prettier under fixed options: a user's prettier config must not change our bytes.
 * The babel-ts parser prints the same as the typescript parser for the code we emit (checked by
 * test/generator/output/format.test.ts) and parses it about twice as fast.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Worker } from "node:worker_threads";
import type { Options } from "prettier";
import { printedAsWritten } from "./canonical.js";
import { startHelpers, takeEarlyHelpers } from "./format-helpers.js";
import { fillSkeleton, joinStatements, placeholderSpans, skeletonOf, splitStatements, type Chunk, type Skeleton } from "./chunks.js";
import { exactLines, exactText, partOf, place, render, type Part, type PartsKnown, type Placed } from "./outline.js";

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

/**
 * prettier is loaded on first use: a run that reuses every file never pays for loading it. Its
 * standalone build with the two plugins babel-ts needs prints the same and loads faster than its
 * Node entry, which adds config files and plugins we do not use.
 */
let loaded: Promise<(code: string, options: Options) => Promise<string>> | undefined;

/** Formats a module under OPTIONS; `printWidth` other than OPTIONS' only for outlines (see outline.ts). */
export async function formatTypeScript(code: string, printWidth = WIDTH): Promise<string> {
  loaded ??= Promise.all([import("prettier/standalone"), import("prettier/plugins/babel"), import("prettier/plugins/estree")]).then(
    ([prettier, babel, estree]) =>
      (text: string, options: Options) => prettier.format(text, { ...options, plugins: [babel, estree] }),
  );
  return (await loaded)(code, printWidth === WIDTH ? OPTIONS : { ...OPTIONS, printWidth });
}

const WIDTH = OPTIONS.printWidth!;

/** No width limit: nothing breaks that prettier does not break at any width (see outline.ts). */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** Below this much code a second thread costs more than it saves. */
const PARALLEL_THRESHOLD = 64 * 1024;

/**
 * How much code one prettier call formats: a round's texts are cut into batches of about this
 * much as they are found, a 128th of the code to format within these bounds.
 */
const BATCH_SIZE = 32 * 1024;
const MIN_BATCH_SIZE = 4 * 1024;

/** A part of a statement to format whole at its indentation (see outline.ts). */
interface Whole {
  readonly skeleton: Skeleton;
  readonly job: number;
  readonly indent: number;
  readonly wrapper: string | undefined;
}

/**
 * Formats many modules. Each module is split into its top-level statements, each statement into
 * its outline and the statements of its blocks (see outline.ts). Outlines are formatted with no
 * width limit, once per short skeleton; what does not fit the width is formatted whole at its
 * indentation, once per skeleton (see chunks.ts). Both rounds stream their batches to a worker
 * thread as they are found (see Round), so it formats while this thread takes the rest apart. The
 * result is what prettier prints for each whole module; a module that cannot be split, or has a
 * statement that does not parse alone, is formatted whole.
 */
export async function formatAll(codes: readonly string[]): Promise<string[]> {
  const total = codes.reduce((sum, c) => sum + c.length, 0);
  // Started first, so it loads prettier while this thread finds the statements to format (or
  // earlier, by startFormattingEarly).
  const early = takeEarlyHelpers();
  if (total < PARALLEL_THRESHOLD) early.forEach((helper) => void helper.terminate());
  const workers = total < PARALLEL_THRESHOLD ? [] : early.length > 0 ? early : startHelpers();
  const helpers = workers.map((worker) => new Helper(worker));
  const batchSize = Math.min(BATCH_SIZE, Math.max(MIN_BATCH_SIZE, Math.ceil(total / 128)));
  try {
    // A module that cannot be split is one statement here: it is formatted whole, in the queue
    // with the rest. A statement is taken apart once however often the sets repeat it, each block
    // once however often statements repeat it (see partOf), and outlines that differ only in names
    // and strings are one short skeleton (see chunks.ts), formatted once. Each new outline goes to
    // the helper as soon as its batch is full.
    const outlines = new Round(helpers, NO_LIMIT, batchSize);
    const outlineJob = new Map<Part, number>();
    // Outlines prettier prints as written need no prettier call (see canonical.ts).
    const asWritten = new Map<Part, string>();
    const collected = new Set<Part>();
    const collect = (part: Part): void => {
      // A part repeated (see partOf) is collected once, with the parts inside it.
      if (collected.has(part)) return;
      collected.add(part);
      const printed = part.outline && printedAsWritten(part.outline.text);
      if (printed !== undefined) asWritten.set(part, printed);
      else if (part.outline) outlineJob.set(part, outlines.add(part.outline.text));
      part.blocks.forEach((block) => block.parts.forEach(collect));
    };
    // Each distinct statement, taken apart (see outline.ts): sets share many statements word for word.
    const parts = new Map<string, Part>();
    const known: PartsKnown = new Map();
    const modules: { code: string; chunks: Chunk[] }[] = [];
    for (const code of codes) {
      const chunks = splitStatements(code) ?? [{ code, blankBefore: false }];
      modules.push({ code, chunks });
      for (const chunk of chunks) {
        if (parts.has(chunk.code)) continue;
        const part = partOf(chunk.code, undefined, known);
        parts.set(chunk.code, part);
        collect(part);
      }
      await outlines.yieldToHelpers();
    }
    // Each statement is placed as soon as its outlines are formatted, so the whole parts it finds
    // go out while the helper still formats outlines.
    const outlinesDone = outlines.finish();
    const flatOutlines = filled(outlines.formatted);
    const flat = (part: Part) => {
      const printed = asWritten.get(part);
      if (printed !== undefined) return fillSkeleton(printed, placeholderSpans(printed), part.outline!);
      const job = outlineJob.get(part);
      return job === undefined ? undefined : flatOutlines(job, part.outline!);
    };

    const wholes = new Round(helpers, WIDTH, batchSize);
    const whole = (code: string, indent: number, wrapper: string | undefined): Whole | undefined => {
      const text = exactText(code, indent, wrapper);
      if (text === undefined) return undefined;
      const skeleton = skeletonOf(text);
      return { skeleton, job: wholes.add(skeleton.text), indent, wrapper };
    };
    const placed = new Map<string, Placed<Whole | undefined>>();
    const placedParts = new Map<Part, Map<number, Placed<Whole | undefined>>>();
    for (const [code, part] of parts) {
      for (const job of jobsOf(part, outlineJob)) await outlines.answer(job);
      placed.set(code, place(part, 0, WIDTH, flat, whole, placedParts));
    }
    await outlinesDone;
    const formattedWholes = filled(await wholes.finish());
    const resolve = (w: Whole | undefined) => {
      const text = w && formattedWholes(w.job, w.skeleton);
      return text === undefined ? undefined : exactLines(text, w!.indent, w!.wrapper);
    };
    // Each statement's formatting.
    const formatted = new Map<string, string | undefined>();
    const rendered = new Map<Placed<Whole | undefined>, readonly string[] | undefined>();
    for (const [code, p] of placed) {
      const lines = render(p, resolve, rendered);
      formatted.set(code, lines && `${lines.join("\n")}\n`);
    }

    return await Promise.all(
      modules.map(async (m) => {
        const statements = m.chunks.map((chunk) => formatted.get(chunk.code));
        // A statement that did not parse alone (the split went wrong somewhere) or a part that did
        // not get its tokens back: the module is formatted whole.
        if (statements.some((text) => text === undefined)) return formatTypeScript(m.code);
        return joinStatements(m.chunks, statements as string[]);
      }),
    );
  } finally {
    // Not waited for: the results are all here, and the thread ends on its own time.
    workers.forEach((worker) => void worker.terminate());
  }
}

/** The outline jobs of a part and of the parts in its blocks (added to `jobs`, which it returns). */
function jobsOf(part: Part, outlineJob: ReadonlyMap<Part, number>, jobs: number[] = []): number[] {
  const own = outlineJob.get(part);
  if (own !== undefined) jobs.push(own);
  for (const block of part.blocks) for (const p of block.parts) jobsOf(p, outlineJob, jobs);
  return jobs;
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


/**
 * A helper thread formatting batches: each batch it is sent is answered by id (see
 * format-worker.ts). One that fails (no thread could be made, out of memory) hands its batches back.
 */
class Helper {
  alive = true;
  /** Code sent and not answered yet. */
  pendingSize = 0;
  private nextId = 0;
  private readonly pending = new Map<number, (formatted: (string | undefined)[] | undefined) => void>();

  constructor(private readonly worker: Worker) {
    worker.on("message", ({ id, formatted }: { id: number; formatted: (string | undefined)[] }) => {
      this.pending.get(id)?.(formatted);
      this.pending.delete(id);
    });
    worker.on("error", () => {
      this.alive = false;
      this.pending.forEach((answer) => answer(undefined));
      this.pending.clear();
    });
  }

  /** The batch formatted, or undefined when the helper failed (this thread formats it then). */
  format(batch: Batch, printWidth: number): Promise<(string | undefined)[] | undefined> {
    const id = this.nextId++;
    this.pendingSize += batch.size;
    return new Promise<(string | undefined)[] | undefined>((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, texts: batch.texts, printWidth });
    }).finally(() => (this.pendingSize -= batch.size));
  }
}

/** How much code a helper holds unanswered at most: beyond it, batches wait here, for this thread to share large rounds. */
const HELPER_BACKLOG = 128 * 1024;

/**
 * From this much code in a round, this thread formats too: loading prettier here (about 100 ms)
 * pays off. Below it, the helper, warm since generation began, formats alone.
 */
const SHARE_THRESHOLD = 256 * 1024;

interface Batch {
  readonly jobs: number[];
  readonly texts: string[];
  size: number;
}

/**
 * One round of prettier calls at one width, streamed: each text is added as it is found (once:
 * the same text is the same job), batches are cut as they fill and sent to a helper at once, so it
 * formats while this thread finds the rest (which lets the helper's answers in now and then, see
 * yieldToHelpers). finish() gives each job's formatting, undefined for a text prettier cannot
 * parse alone; this thread formats too when there is no helper, for a large round
 * (SHARE_THRESHOLD), and what a failed helper handed back.
 */
class Round {
  private readonly index = new Map<string, number>();
  private readonly results: (string | undefined)[] = [];
  private readonly queue: Batch[] = [];
  private readonly answers = new Set<Promise<void>>();
  private current: Batch = { jobs: [], texts: [], size: 0 };
  private size = 0;

  constructor(
    private readonly helpers: readonly Helper[],
    private readonly printWidth: number,
    private readonly batchSize: number,
  ) {}

  add(text: string): number {
    let job = this.index.get(text);
    if (job === undefined) {
      job = this.results.push(undefined) - 1;
      this.index.set(text, job);
      this.current.jobs.push(job);
      this.current.texts.push(text);
      this.current.size += text.length;
      this.size += text.length;
      if (this.current.size >= this.batchSize) this.cut();
    }
    return job;
  }

  /** Lets the helpers' answers in, so the next batches go out (prettier's awaits are microtasks). */
  async yieldToHelpers(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
  }

  async finish(): Promise<(string | undefined)[]> {
    this.cut();
    for (;;) {
      this.send();
      const alone = !this.helpers.some((helper) => helper.alive);
      const batch = alone || this.size >= SHARE_THRESHOLD ? this.queue.shift() : undefined;
      if (batch) {
        this.place(batch, await formatBatch(batch.texts, this.printWidth));
        await this.yieldToHelpers();
      } else if (this.answers.size > 0) {
        await Promise.race(this.answers);
      } else if (this.queue.length === 0) {
        return this.results;
      }
    }
  }

  private cut(): void {
    if (this.current.texts.length === 0) return;
    this.queue.push(this.current);
    this.current = { jobs: [], texts: [], size: 0 };
    this.send();
  }

  /** Hands waiting batches to the helpers with room for them, in order. */
  private send(): void {
    for (;;) {
      const helper = this.helpers.find((h) => h.alive && h.pendingSize < HELPER_BACKLOG);
      const batch = helper && this.queue.shift();
      if (!batch) return;
      const answer: Promise<void> = helper.format(batch, this.printWidth).then((formatted) => {
        this.answers.delete(answer);
        if (formatted) this.place(batch, formatted);
        else this.queue.unshift(batch); // this thread formats it
        this.send();
      });
      this.answers.add(answer);
    }
  }

  private place(batch: Batch, formatted: readonly (string | undefined)[]): void {
    batch.jobs.forEach((job, k) => {
      this.results[job] = formatted[k];
      this.answered[job] = true;
    });
    const waiting = this.waiting;
    this.waiting = [];
    for (const waiter of waiting) {
      if (this.answered[waiter.job]) waiter.resolve();
      else this.waiting.push(waiter);
    }
  }

  /** Jobs whose answer came (results holds it). */
  private readonly answered: boolean[] = [];
  private waiting: { job: number; resolve: () => void }[] = [];

  /** The answer of a job added, when it comes (while finish() runs): its text's formatting so far, by the live results array. */
  async answer(job: number): Promise<void> {
    if (!this.answered[job]) await new Promise<void>((resolve) => this.waiting.push({ job, resolve }));
  }

  /** Each job's formatting so far (the array finish() gives in the end), to read as answers come. */
  get formatted(): readonly (string | undefined)[] {
    return this.results;
  }
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
