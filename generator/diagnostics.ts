/**
 * Errors and warnings that point at a place in an input file. Every message a user sees reads
 * `file#/json/pointer: what is wrong`, so editors and CI logs can jump to the spot.
 */

/** A place in an input file: its display path and a JSON pointer into it. */
export interface SourceLocation {
  readonly file: string;
  readonly pointer: string;
}

export function formatLocation(loc: SourceLocation): string {
  return `${loc.file}#${loc.pointer}`;
}

/** Why generation stopped; each maps to one exit code of the CLI. */
export type ErrorKind = "input" | "config" | "output";

/**
 * The way out of a name clash: choose a name for the schema at `target`. How to say so depends on
 * the run, so the caller words it: an entry of the set's `names` in the config, or `--name`.
 */
export interface NameRemedy {
  /** The schema to name (a definition, a root or an inline shape). */
  readonly target: SourceLocation;
  readonly suggestion: string;
  /** The set in the config (`mcp-tasks-gen.config.json#/sets/0`); absent for an ad-hoc run. */
  readonly set?: SourceLocation;
}

/**
 * The remedy as the user types it: `to choose a name, add ... to "names" of config#/sets/0: "file#/ptr": "Name"`,
 * or `--name 'file#/ptr=Name'`; `targetFile` is the schema file as that form names it (relative to the
 * config, or to the working folder for a flag).
 */
export function remedyText(remedy: NameRemedy, targetFile = remedy.target.file): string {
  const key = `${targetFile}#${remedy.target.pointer}`;
  if (remedy.set) return `to choose a name, add to "names" in ${formatLocation(remedy.set)}: ${JSON.stringify(key)}: ${JSON.stringify(remedy.suggestion)}`;
  return `to choose a name, pass --name ${shellQuoted(`${key}=${remedy.suggestion}`)}`;
}

/** A word as a POSIX shell reads it back unchanged. */
function shellQuoted(word: string): string {
  return /^[A-Za-z0-9_./#=:@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Bad input or configuration: generation stops and nothing is written (CLI exit 2). */
export class GeneratorError extends Error {
  override readonly name = "GeneratorError";
  constructor(
    readonly location: SourceLocation | undefined,
    readonly detail: string,
    readonly kind: ErrorKind = "input",
    readonly remedy?: NameRemedy,
    /** Another place `detail` names (as `file#/pointer`), so a caller can show that file its own way too. */
    readonly related?: SourceLocation,
  ) {
    super(`${location ? `${formatLocation(location)}: ` : ""}${detail}${remedy ? `; ${remedyText(remedy)}` : ""}`);
  }
}

export interface Diagnostic {
  readonly severity: "warning" | "error";
  readonly rule: string;
  readonly location: SourceLocation;
  readonly message: string;
  /** Places the message names as `file#/pointer` (files as `location`'s), so a caller can show them its own way too. */
  readonly places?: readonly SourceLocation[];
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${formatLocation(d.location)}: [${d.rule}] ${d.message}`;
}
