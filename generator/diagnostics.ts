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

/** Bad input or configuration: generation stops and nothing is written (CLI exit 2). */
export class GeneratorError extends Error {
  override readonly name = "GeneratorError";
  constructor(
    readonly location: SourceLocation | undefined,
    readonly detail: string,
    readonly kind: ErrorKind = "input",
  ) {
    super(location ? `${formatLocation(location)}: ${detail}` : detail);
  }
}

export interface Diagnostic {
  readonly severity: "warning" | "error";
  readonly rule: string;
  readonly location: SourceLocation;
  readonly message: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${formatLocation(d.location)}: [${d.rule}] ${d.message}`;
}
