#!/usr/bin/env node
/**
 * The `mcp-tasks-gen` command, and its `lint` and `diff` subcommands. Exit codes: 0 done,
 * 1 `--check` found differences (or `diff --fail-on-breaking` a breaking change), 2 bad input,
 * configuration or output folder (or lint findings with `--strict`), 3 a bug in mcp-tasks-gen.
 */
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import {
  ALL_OF_MODES,
  DEFAULT_CONFIG_FILE,
  displayPath,
  EMIT_LANGUAGES,
  readConfigFile,
  splitNameKey,
  unusableName,
  type AllOfMode,
  type ChosenName,
  type EmitLanguage,
  type ResolvedConfig,
  type ResolvedSet,
} from "../config/config.js";
import { BUNDLED_SET_NAMES, PACKAGE_PREFIX } from "../init/bundled.js";
import { DEFAULT_INIT_OUT_DIR, initProject, initReport } from "../init/init.js";
import { formatDiagnostic, formatLocation, GeneratorError, remedyText, type Diagnostic, type SourceLocation } from "../diagnostics.js";
import { diffSets, hasBreaking, renderDiffJson, renderDiffText } from "../diff/index.js";
import { generate, lint } from "../generate.js";
import { countBySeverity, strictly, userFindings, type LintDiagnostic } from "../lint/lint.js";
import { compareSets, inspectTargets, refusalFor, writeSets } from "../output/files.js";
import { VERSION } from "../version.js";

export const EXIT = { ok: 0, differences: 1, badInput: 2, internal: 3 } as const;

const HELP = `mcp-tasks-gen ${VERSION}: TypeScript bindings for the MCP Tasks protocol and elicitation, from their JSON Schemas.

Usage:
  mcp-tasks-gen init [--out DIR] [--emit js] [--set NAME]... [--force]
                                      write a ${DEFAULT_CONFIG_FILE} naming the bundled
                                      schema sets (${BUNDLED_SET_NAMES.join(", ")});
                                      --out: where the generated folders go
                                      (default ${DEFAULT_INIT_OUT_DIR}); --set: only these sets;
                                      --force: replace an existing config; --config FILE: write
                                      the config there instead
  mcp-tasks-gen [--force]             generate every set of ${DEFAULT_CONFIG_FILE}
  mcp-tasks-gen --check               write nothing; exit 1 if generated files are stale
  mcp-tasks-gen --schema FILE --out DIR [--force]
                                      generate one ad-hoc set from schema files
  mcp-tasks-gen lint [--json] [--strict] [--config FILE | --schema FILE...]
                                      report schema problems without generating
  mcp-tasks-gen diff OLD NEW [--json] [--fail-on-breaking]
                                      list the changes of the generated API between two
                                      revisions; OLD and NEW are each a schema file, a folder
                                      of schema files, or the name of a set of the config

Options:
  --config FILE     config file (default: ./${DEFAULT_CONFIG_FILE})
  --check           compare instead of writing; lists each differing file
  --schema FILE     a schema file (repeatable); its definitions and titled root are generated
  --out DIR         output folder for --schema
  --remote URL=FILE map a remote $ref URL to a local file (repeatable; with --schema, or
                    with schema files and folders given to diff)
  --name FILE#/POINTER=Name
                    with --schema: the TypeScript name of the schema at that JSON pointer
                    (repeatable; the way out of a name clash); in a config: "names"
  --annotation KEYWORD
                    with --schema: keep a non-standard keyword as an annotation
                    (repeatable); in a config: "annotations"
  --allof MODE      how allOf of objects is read: json-schema (default: JSON Schema's
                    meaning) or merged (the TypeScript intersection); overrides the config
  --emit LANG       ts (default): TypeScript; js: JavaScript ES modules with .d.ts
                    declarations, for projects without a TypeScript build step;
                    overrides the config's "emit"
  --strict          lint warnings are errors: exit 2 and write nothing
  --force           (generating) delete what a user added to, or edited in, a generated
                    folder (one holding .mcp-tasks-gen.json) instead of refusing; it never
                    replaces another folder, nor a file in the place of a folder
  --json            (lint, diff) print JSON instead of text
  --fail-on-breaking
                    (diff) exit 1 when a change breaks clients or servers
  --help            show this help
  --version         show the version

mcp-tasks-gen replaces only what it wrote: each generated folder holds a manifest
(.mcp-tasks-gen.json) listing its files and their sha256. A target holding anything else (or
a file where a folder should be) stops the run with exit 2, nothing written.

Lint findings print as file#/json/pointer: [rule-id] message on stderr while generating; they
are warnings and do not change the exit code unless --strict is given. Findings about bundled
sets are shown by \`mcp-tasks-gen lint\` only; a set's "lint": { "RULE-ID": "off" } silences a rule.

Exit codes: 0 done, 1 --check found differences (diff: a breaking change, with --fail-on-breaking),
2 bad input or configuration, an output folder in the way (or lint findings with --strict),
3 internal error.
`;

/** A mistake in how a command was called: one line naming the command, and where to read more. */
function usageError(command: string, message: string, err: NodeJS.WritableStream): void {
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
    usageError(command, (e as Error).message, err);
    return undefined;
  }
}

export async function main(
  argv: readonly string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  if (argv[0] === "lint") return lintCommand(argv.slice(1), out, err);
  if (argv[0] === "diff") return diffCommand(argv.slice(1), out, err);
  if (argv[0] === "init") return initCommand(argv.slice(1), out, err);
  const args = parseFlags(
    "",
    {
      args: [...argv],
      options: {
        config: { type: "string" },
        check: { type: "boolean" },
        schema: { type: "string", multiple: true },
        out: { type: "string" },
        remote: { type: "string", multiple: true },
        name: { type: "string", multiple: true },
        annotation: { type: "string", multiple: true },
        allof: { type: "string" },
        emit: { type: "string" },
        strict: { type: "boolean" },
        force: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
      allowPositionals: false,
      strict: true,
    },
    err,
  );
  if (!args) return EXIT.badInput;
  const { values } = args;
  let config: ResolvedConfig | undefined;
  if (values.help) {
    out.write(HELP);
    return EXIT.ok;
  }
  if (values.version) {
    out.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  if (values.force && values.check) {
    usageError("", "--force goes with generating, not with --check (which writes nothing)", err);
    return EXIT.badInput;
  }
  try {
    config = configFrom(values);
    // Refuse a target in the way before spending time on generating (writeSets checks again when writing).
    refuseTargetsInTheWay(config.sets, values.check === true ? "check" : values.force === true ? "force" : "write");
    const result = await generate(config);
    // Bundled sets' findings are left to `mcp-tasks-gen lint` (rules set to "off" are gone already).
    const reported = userFindings(result.diagnostics, config.sets);
    const diagnostics = values.strict ? strictly(reported) : reported;
    for (const d of diagnostics) err.write(`${diagnosticLine(d, config)}\n`);
    if (countBySeverity(diagnostics).errors > 0) {
      err.write(`mcp-tasks-gen --strict: ${diagnostics.length} lint finding(s) are errors; nothing written\n`);
      return EXIT.badInput;
    }
    if (values.check) {
      const differences = compareSets(result.sets);
      if (differences.length === 0) {
        out.write(`mcp-tasks-gen: ${result.sets.length} set(s) up to date\n`);
        return EXIT.ok;
      }
      for (const d of differences) {
        const set = result.sets.find((s) => s.name === d.set)!;
        err.write(`${d.change.padEnd(8)} ${displayPath(resolve(set.outDir, d.file), process.cwd())}\n`);
      }
      const extra = differences.filter((d) => d.change === "extra").length;
      const foreign =
        extra === 0
          ? ""
          : `; ${extra} of them (extra) were not written by mcp-tasks-gen: move them out of the generated folders first, as generating refuses to replace a folder holding them (--force deletes them)`;
      err.write(
        `mcp-tasks-gen --check: ${differences.length} file(s) differ from what the schemas generate; run mcp-tasks-gen and commit the result${foreign}\n`,
      );
      return EXIT.differences;
    }
    writeSets(result.sets, { force: values.force === true, show: shownPath });
    for (const set of result.sets) {
      out.write(`wrote ${displayPath(set.outDir, process.cwd())}/ (${set.files.map((f) => f.name).join(", ")})\n`);
    }
    return EXIT.ok;
  } catch (e) {
    return reportFailure(e, config, values.out, err);
  }
}

/**
 * The one-line message for an error. Schema files are named relative to the config (as in
 * generated headers); here they are named relative to the working folder, so a terminal or CI
 * log can open them.
 */
function messageFor(error: GeneratorError, config: ResolvedConfig | undefined, out: string | undefined): string {
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

/**
 * Stops the run (GeneratorError) when a set's target holds what mcp-tasks-gen did not write, as
 * writing would. `--check` writes nothing, so there only a target that is not a folder stops it
 * (foreign files inside a folder are listed as `extra`).
 */
function refuseTargetsInTheWay(sets: readonly ResolvedSet[], mode: "write" | "force" | "check"): void {
  const states = inspectTargets(sets);
  for (const [i, set] of sets.entries()) {
    const state = states[i]!;
    if (mode === "check" && state.kind !== "blocked") continue;
    const refusal = refusalFor(set.outDir, state, mode === "force", shownPath);
    if (refusal) throw new GeneratorError(set.outDirOrigin, refusal, "output");
  }
}

/** An output path as messages show it: relative to the working folder, the working folder itself by its absolute path. */
function shownPath(path: string): string {
  const cwd = process.cwd();
  return resolve(path) === cwd ? cwd : displayPath(path, cwd);
}

/** A lint finding as one line, its file named relative to the working folder (like error messages). */
function diagnosticLine(d: Diagnostic, config: ResolvedConfig): string {
  const file = shownSource(d.location.file, config);
  return formatDiagnostic({ ...d, location: { ...d.location, file } });
}

/** A source file as messages name it: relative to the working folder; a bundled schema as `mcp-tasks-gen:schemas/<file>`. */
function shownSource(file: string, config: ResolvedConfig): string {
  return file.startsWith(PACKAGE_PREFIX) ? file : displayPath(resolve(config.rootDir, file), process.cwd());
}

/** `mcp-tasks-gen lint`: load and lint every set, emit nothing. */
async function lintCommand(
  argv: readonly string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  const parsed = parseFlags(
    "lint",
    {
      args: [...argv],
      options: {
        config: { type: "string" },
        schema: { type: "string", multiple: true },
        remote: { type: "string", multiple: true },
        name: { type: "string", multiple: true },
        annotation: { type: "string", multiple: true },
        allof: { type: "string" },
        json: { type: "boolean" },
        strict: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: false,
      strict: true,
    },
    err,
  );
  if (!parsed) return EXIT.badInput;
  const { values } = parsed;
  if (values.help) {
    out.write(HELP);
    return EXIT.ok;
  }
  let config: ResolvedConfig | undefined;
  try {
    config = configFrom(values, { needsOut: false });
    // `lint` shows the bundled sets' findings too (it is how to see them); rules set to "off" stay silent.
    const found = lint(config);
    const diagnostics = values.strict ? strictly(found) : [...found];
    const counts = countBySeverity(diagnostics);
    if (values.json) {
      out.write(`${JSON.stringify(lintJson(diagnostics, config, counts), null, 2)}\n`);
    } else {
      for (const d of diagnostics) out.write(`${diagnosticLine(d, config)}\n`);
      out.write(
        `mcp-tasks-gen lint: ${config.sets.length} set(s), ${counts.errors} error(s), ${counts.warnings} warning(s)\n`,
      );
    }
    return counts.errors > 0 ? EXIT.badInput : EXIT.ok;
  } catch (e) {
    return reportFailure(e, config, undefined, err);
  }
}

/** The JSON `lint --json` prints: one entry per finding, and the counts. */
function lintJson(
  diagnostics: readonly LintDiagnostic[],
  config: ResolvedConfig,
  counts: { errors: number; warnings: number },
) {
  return {
    diagnostics: diagnostics.map((d) => ({
      set: d.set,
      rule: d.rule,
      severity: d.severity,
      file: shownSource(d.location.file, config),
      pointer: d.location.pointer,
      message: d.message,
    })),
    summary: { sets: config.sets.length, ...counts },
  };
}

/** `mcp-tasks-gen diff OLD NEW`. */
async function diffCommand(
  argv: readonly string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  const parsed = parseFlags(
    "diff",
    {
      args: [...argv],
      options: {
        config: { type: "string" },
        remote: { type: "string", multiple: true },
        annotation: { type: "string", multiple: true },
        allof: { type: "string" },
        json: { type: "boolean" },
        "fail-on-breaking": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    },
    err,
  );
  if (!parsed) return EXIT.badInput;
  const { values, positionals } = parsed;
  if (values.help) {
    out.write(HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 2) {
    usageError(
      "diff",
      `expected two revisions, OLD and NEW (schema files, folders or set names), got ${positionals.length}`,
      err,
    );
    return EXIT.badInput;
  }
  try {
    const mode = allOfFlag(values.allof);
    const [before, after] = positionals.map((arg) => revisionFrom(arg, values, mode)) as [Revision, Revision];
    const diff = diffSets(before.set, after.set, process.cwd(), { old: before.label, new: after.label });
    out.write(values.json ? renderDiffJson(diff) : renderDiffText(diff));
    return values["fail-on-breaking"] && hasBreaking(diff) ? EXIT.differences : EXIT.ok;
  } catch (e) {
    return reportFailure(e, undefined, undefined, err);
  }
}

interface Revision {
  readonly set: ResolvedSet;
  readonly label: string;
}

/**
 * One side of a diff: an existing file is a schema file, an existing folder holds the schema
 * files of one revision (every `*.json` in it), anything else names a set of the config.
 */
function revisionFrom(
  arg: string,
  values: { config?: string; remote?: string[]; annotation?: string[] },
  mode: AllOfMode | undefined,
): Revision {
  const path = resolve(arg);
  if (existsSync(path)) {
    const schemas = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => name.endsWith(".json"))
          .sort()
          .map((name) => join(path, name))
      : [path];
    if (schemas.length === 0)
      throw new GeneratorError(undefined, `${arg}: the folder holds no .json schema files`, "config");
    return {
      set: adHocSet(basename(path), "", schemas, remotesFrom(values.remote), mode ?? "json-schema", values),
      label: arg,
    };
  }
  const configPath = resolve(values.config ?? DEFAULT_CONFIG_FILE);
  if (!values.config && !existsSync(configPath)) {
    throw new GeneratorError(
      undefined,
      `"${arg}" is not a schema file or folder, and there is no ${DEFAULT_CONFIG_FILE} here to find a set of that name in`,
      "config",
    );
  }
  const config = readConfigFile(configPath);
  const set = config.sets.find((s) => s.name === arg);
  if (!set) {
    throw new GeneratorError(
      undefined,
      `"${arg}" is not a schema file or folder, nor a set of ${displayPath(configPath, process.cwd())} (sets: ${config.sets.map((s) => s.name).join(", ")})`,
      "config",
    );
  }
  // Schema paths of a config set are shown relative to the working folder, like a file operand.
  return { set: mode ? { ...set, allOf: mode } : set, label: arg };
}

function adHocSet(
  name: string,
  outDir: string,
  schemas: readonly string[],
  remotes: Record<string, string>,
  allOf: AllOfMode,
  values: { annotation?: string[]; name?: string[] } = {},
): ResolvedSet {
  const names = namesFrom(values.name);
  return {
    name,
    outDir,
    schemas,
    remotes,
    defaultDialect: "2020-12",
    annotations: values.annotation ?? [],
    allOf,
    ...(names.length > 0 ? { names } : {}),
  };
}

/** `--name FILE#/POINTER=Name` flags: the file relative to the working folder, the name an identifier. */
function namesFrom(entries: readonly string[] | undefined): ChosenName[] {
  return (entries ?? []).map((entry) => {
    const flag = `--name ${entry}`;
    // A name has no "=", a JSON pointer may: the last one separates them.
    const eq = entry.lastIndexOf("=");
    const key = eq > 0 ? splitNameKey(entry.slice(0, eq)) : undefined;
    if (!key) throw new GeneratorError(undefined, `${flag}: expected FILE#/json/pointer=Name, such as "schemas/x.json#/$defs/a b=ASpaceB"`, "config");
    const name = entry.slice(eq + 1);
    const problem = unusableName(name);
    if (problem) throw new GeneratorError(undefined, `${flag}: ${problem}`, "config");
    return { file: resolve(key[0]), pointer: key[1], name, origin: { flag } };
  });
}

/** Each `--schema`/`--remote` file exists: one line naming the flag and the folder it was looked for in. */
function checkFlagFile(flag: string, given: string): string {
  const path = resolve(given);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat || !stat.isFile()) {
    throw new GeneratorError(undefined, `${flag} ${given}: ${stat ? "not a file" : "not found"} (resolved against ${process.cwd()})`, "config");
  }
  return path;
}

function remotesFrom(entries: readonly string[] | undefined): Record<string, string> {
  const remotes: Record<string, string> = {};
  for (const entry of entries ?? []) {
    const eq = entry.lastIndexOf("=");
    if (eq <= 0) throw new GeneratorError(undefined, `--remote expects URL=FILE, got "${entry}"`, "config");
    remotes[entry.slice(0, eq)] = checkFlagFile("--remote", entry.slice(eq + 1));
  }
  return remotes;
}

function allOfFlag(allOf: string | undefined): AllOfMode | undefined {
  if (allOf !== undefined && !ALL_OF_MODES.includes(allOf as AllOfMode)) {
    throw new GeneratorError(undefined, `--allof expects one of ${ALL_OF_MODES.join(", ")}, got "${allOf}"`, "config");
  }
  return allOf as AllOfMode | undefined;
}

/** Every error is one line, whatever text (a file name, a system message) went into it. */
function oneLine(message: string): string {
  return message.replace(/\s*[\r\n\u2028\u2029]+\s*/g, " ");
}

/** Exit code and one line on stderr for a failure of a subcommand. */
function reportFailure(
  e: unknown,
  config: ResolvedConfig | undefined,
  out: string | undefined,
  err: NodeJS.WritableStream,
): number {
  if (e instanceof GeneratorError) {
    err.write(`${oneLine(messageFor(e, config, out))}\n`);
    return EXIT.badInput;
  }
  err.write(`mcp-tasks-gen: internal error, please report it: ${(e as Error).stack ?? String(e)}\n`);
  return EXIT.internal;
}

function configFrom(
  values: { config?: string; schema?: string[]; out?: string; remote?: string[]; name?: string[]; annotation?: string[]; allof?: string; emit?: string },
  options: { needsOut: boolean } = { needsOut: true },
): ResolvedConfig {
  const allOf = allOfFlag(values.allof);
  const emit = emitFlag(values.emit);
  const config = configWithoutMode(values, options.needsOut);
  if (allOf === undefined && emit === undefined) return config;
  return {
    ...config,
    sets: config.sets.map((set) => ({ ...set, ...(allOf ? { allOf } : {}), ...(emit ? { emit } : {}) })),
  };
}

function emitFlag(emit: string | undefined): EmitLanguage | undefined {
  if (emit !== undefined && !EMIT_LANGUAGES.includes(emit as EmitLanguage)) {
    throw new GeneratorError(undefined, `--emit expects ${EMIT_LANGUAGES.join(" or ")}, got "${emit}"`, "config");
  }
  return emit as EmitLanguage | undefined;
}

/** `mcp-tasks-gen init`: a starting config naming the bundled sets; never replaces one unless --force. */
async function initCommand(
  argv: readonly string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  const parsed = parseFlags(
    "init",
    {
      args: [...argv],
      options: {
        config: { type: "string" },
        out: { type: "string" },
        emit: { type: "string" },
        set: { type: "string", multiple: true },
        force: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: false,
      strict: true,
    },
    err,
  );
  if (!parsed) return EXIT.badInput;
  const { values } = parsed;
  if (values.help) {
    out.write(HELP);
    return EXIT.ok;
  }
  try {
    const cwd = process.cwd();
    const emit = emitFlag(values.emit);
    const result = initProject({
      configPath: resolve(cwd, values.config ?? DEFAULT_CONFIG_FILE),
      cwd,
      ...(values.out !== undefined ? { outDir: values.out } : {}),
      ...(values.set ? { sets: values.set } : {}),
      ...(emit ? { emit } : {}),
      ...(values.force ? { force: true } : {}),
    });
    out.write(initReport(result, cwd));
    return EXIT.ok;
  } catch (e) {
    if (e instanceof GeneratorError) {
      err.write(`mcp-tasks-gen init: ${e.message}\n`);
      return EXIT.badInput;
    }
    return reportFailure(e, undefined, undefined, err);
  }
}

function configWithoutMode(
  values: { config?: string; schema?: string[]; out?: string; remote?: string[]; name?: string[]; annotation?: string[] },
  needsOut: boolean,
): ResolvedConfig {
  if (values.schema) {
    if (!values.out && needsOut)
      throw new GeneratorError(undefined, "--schema needs --out DIR: the folder to write into", "config");
    if (values.config) throw new GeneratorError(undefined, "use either --config or --schema, not both", "config");
    const outDir = resolve(values.out ?? basename(values.schema[0]!).replace(/(\.schema)?\.json$/, ""));
    const schemas = values.schema.map((s) => checkFlagFile("--schema", s));
    // Output names schema files relative to the output folder: the same from any working folder.
    return {
      rootDir: outDir,
      sets: [adHocSet(basename(outDir), outDir, schemas, remotesFrom(values.remote), "json-schema", values)],
    };
  }
  if (values.out) throw new GeneratorError(undefined, "--out only goes with --schema", "config");
  // A config says these per set; two places to say them would be two places to look.
  if (values.name) throw new GeneratorError(undefined, '--name goes with --schema; in a config, choose names under "names" of the set', "config");
  if (values.annotation) {
    throw new GeneratorError(undefined, '--annotation goes with --schema; in a config, list the keyword under "annotations" of the set', "config");
  }
  const path = resolve(values.config ?? DEFAULT_CONFIG_FILE);
  if (!values.config && !existsSync(path)) {
    throw new GeneratorError(
      undefined,
      `mcp-tasks-gen: no ${DEFAULT_CONFIG_FILE} in ${process.cwd()}. Create one with \`npx mcp-tasks-gen init\` (the bundled schema sets; --out DIR picks the output folder), or pass --config FILE; see \`npx mcp-tasks-gen --help\`.`,
      "config",
    );
  }
  return readConfigFile(path);
}

/**
 * How much stack the command's thread gets. Lowering, analysis and emission recurse along the
 * schema's nesting; Node's default (under 1 MB) overflows at a few hundred levels, this holds
 * MAX_NESTING_LEVELS with room to spare (see test/deep-nesting.test.ts). Only the pages used are
 * ever touched, so it costs no memory.
 */
export const STACK_SIZE_MB = 512;

/**
 * The command, run in a worker thread with STACK_SIZE_MB of stack; resolves to its exit code. Where
 * no such thread can be made (a system that will not reserve the stack), it runs on this thread.
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
      if (!started) return void main(argv).then(resolveCode);
      process.stderr.write(`mcp-tasks-gen: internal error, please report it: ${e.stack ?? String(e)}\n`);
      code = EXIT.internal;
    });
    worker.on("exit", () => started && resolveCode(code));
  });
}

const WORKER_MARK = "mcp-tasks-gen argv";

// Run when executed as the bin (through npm's symlink too), not when imported by tests: the bin
// hands the command to a worker thread with a large stack, which runs it and reports the code.
const invokedAs = process.argv[1] ? realpathSync(resolve(process.argv[1])) : "";
const workerArgv = isMainThread ? undefined : (workerData as Record<string, string[]> | null)?.[WORKER_MARK];
if (workerArgv) {
  main(workerArgv).then((code) => parentPort!.postMessage(code));
} else if (isMainThread && invokedAs === realpathSync(fileURLToPath(import.meta.url))) {
  runWithLargeStack(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
