/**
 * What every command shares: exit codes, the preamble (flags parsed strictly, `--help`, a failure
 * as one line and its exit code), and how messages name files.
 */
import { resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { displayPath, type ResolvedConfig } from "../config/config.js";
import { formatDiagnostic, formatLocation, GeneratorError, remedyText, type Diagnostic, type SourceLocation } from "../diagnostics.js";
import { PACKAGE_PREFIX } from "../init/bundled.js";
import { DeeperThanThisStack, jsonDepthLimited } from "../load/json-text.js";
import { HELP } from "./help.js";
import { nearest } from "../config/suggest.js";

export { EXIT } from "./exit.js";
import { EXIT } from "./exit.js";

/** Where a command writes: its report to `out`, findings and failures to `err`. */
export interface CommandStreams {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
}

/**
 * What a failure message needs to name files as the user sees them, filled in by the command as it
 * learns it: the configuration once read, the `--out` flag.
 */
export interface FailureContext {
  config?: ResolvedConfig | undefined;
  out?: string | undefined;
}

/** The message for a GeneratorError a command throws (made one line when printed). */
export type DescribeError = (error: GeneratorError, context: FailureContext) => string;

/**
 * Runs a command: its flags parsed strictly (a mistake is one usage line, exit 2), `--help`
 * printed, else `run`; a GeneratorError it throws becomes one line on stderr and exit 2, anything
 * else (a bug) exit 3 with the stack.
 */
export async function runCommand<T extends ParseArgsConfig>(
  command: string,
  flags: T,
  { out, err }: CommandStreams,
  run: (args: ReturnType<typeof parseArgs<T>>, context: FailureContext) => number | Promise<number>,
  describe: DescribeError = messageFor,
): Promise<number> {
  const args = parseFlags(command, flags, err);
  if (!args) return EXIT.badInput;
  if ((args.values as { help?: boolean }).help) {
    out.write(HELP);
    return EXIT.ok;
  }
  const context: FailureContext = {};
  try {
    return await run(args, context);
  } catch (e) {
    return reportFailure(e, context, describe, err);
  }
}

/** A mistake in how a command was called: one line naming the command, and where to read more. */
export function usageError(command: string, message: string, err: NodeJS.WritableStream): void {
  err.write(`mcp-tasks-gen${command ? ` ${command}` : ""}: ${oneLine(message)} (see mcp-tasks-gen --help)\n`);
}

/** A command's flags, parsed strictly; undefined (after saying why) when they are wrong. */
function parseFlags<T extends ParseArgsConfig>(
  command: string,
  config: T,
  err: NodeJS.WritableStream,
): ReturnType<typeof parseArgs<T>> | undefined {
  try {
    return parseArgs(config);
  } catch (e) {
    usageError(command, withSuggestion(e as Error & { code?: string }, config), err);
    return undefined;
  }
}

/** An unknown option's message, with the nearest option the command knows (`--schem` → `--schema`). */
function withSuggestion(e: Error & { code?: string }, config: ParseArgsConfig): string {
  if (e.code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return e.message;
  const given = /'(-{1,2}[^']+)'/.exec(e.message)?.[1];
  if (!given) return e.message;
  const known = Object.keys(config.options ?? {});
  const word = given.replace(/^-+/, "").split("=")[0]!;
  const near = nearest(word, known, Math.max(2, Math.floor(word.length / 3)));
  return near ? `Unknown option '${given}'; did you mean --${near}?` : e.message;
}

/** Exit code and one line on stderr for a failure of a command. */
function reportFailure(e: unknown, context: FailureContext, describe: DescribeError, err: NodeJS.WritableStream): number {
  if (outgrewThisStack(e)) throw e; // run again on a larger stack (cli/main.ts), not a failure to report
  if (e instanceof GeneratorError) {
    err.write(`${oneLine(describe(e, context))}\n`);
    return EXIT.badInput;
  }
  err.write(`mcp-tasks-gen: internal error, please report it: ${(e as Error).stack ?? String(e)}\n`);
  return EXIT.internal;
}

/**
 * Whether a command stopped because its input is too deep for this thread's stack: text nested
 * past the limit the bin sets (see allowJsonDepth), or, on such a thread, a stack overflow anyway.
 */
export function outgrewThisStack(e: unknown): boolean {
  if (e instanceof DeeperThanThisStack) return true;
  return jsonDepthLimited() && e instanceof RangeError && /call stack/i.test(e.message);
}

/** Every error is one line, whatever text (a file name, a system message) went into it. */
function oneLine(message: string): string {
  return message.replace(/\s*[\r\n\u2028\u2029]+\s*/g, " ");
}

/**
 * The one-line message for an error. Schema files are named relative to the config (as in
 * generated headers); here they are named relative to the working folder, so a terminal or CI
 * log can open them.
 */
function messageFor(error: GeneratorError, { config, out }: FailureContext): string {
  if (error.kind === "output" && !error.location && out) return `--out ${out}: ${error.detail}`;
  if (!config) return error.message;
  const shown = (loc: SourceLocation) => formatLocation({ ...loc, file: shownSource(loc.file, config) });
  // Another place the message names is shown like the error's own place.
  const related = error.related;
  const withRelated = (text: string) => (related ? text.replace(formatLocation(related), shown(related)) : text);
  if (error.kind !== "input" || !error.location) return withRelated(error.message);
  // A config's `names` keys are relative to the config, as the error names files; `--name` is
  // relative to the working folder, as messages name them.
  const remedy = error.remedy
    ? `; ${remedyText(error.remedy, error.remedy.set ? error.remedy.target.file : shownSource(error.remedy.target.file, config))}`
    : "";
  return `${shown(error.location)}: ${withRelated(error.detail)}${remedy}`;
}

/** An output path as messages show it: relative to the working folder, the working folder itself by its absolute path. */
export function shownPath(path: string): string {
  const cwd = process.cwd();
  return resolve(path) === cwd ? cwd : displayPath(path, cwd);
}

/** A lint finding as one line, its file named relative to the working folder (like error messages). */
export function diagnosticLine(d: Diagnostic, config: ResolvedConfig): string {
  const file = shownSource(d.location.file, config);
  const shown = (loc: SourceLocation) => formatLocation({ ...loc, file: shownSource(loc.file, config) });
  const message = (d.places ?? []).reduce((text, place) => text.split(formatLocation(place)).join(shown(place)), d.message);
  return formatDiagnostic({ ...d, message, location: { ...d.location, file } });
}

/** A source file as messages name it: relative to the working folder; a bundled schema as `mcp-tasks-gen:schemas/<file>`. */
export function shownSource(file: string, config: ResolvedConfig): string {
  return file.startsWith(PACKAGE_PREFIX) ? file : displayPath(resolve(config.rootDir, file), process.cwd());
}
