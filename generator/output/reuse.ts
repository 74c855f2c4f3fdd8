/**
 * Reusing formatted output. Formatting is a pure function of the emitted code, prettier's version
 * and our options, so each generated file records a fingerprint of that input and of its own
 * formatted body. When the code to format has the fingerprint an existing file records, and that
 * file's body is intact, the file is exactly what prettier would print again: it is reused as is.
 * That makes regenerating unchanged schemas, and `--check` in CI, cost no formatting at all; a
 * file that was edited by hand fails its body fingerprint and is formatted afresh.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { FORMATTER_ID } from "./format.js";

const MARK = "// Fingerprint: ";

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The fingerprint of the code to format (with the formatter's identity). */
export function inputFingerprint(code: string): string {
  return sha256(`${FORMATTER_ID}\u0000${code}`);
}

/** The header with its fingerprint line, followed by the body. */
export function withFingerprint(header: string, input: string, body: string): string {
  return `${header.trimEnd()}\n${MARK}${input} ${sha256(body)}\n\n${body}`;
}

/** The formatted body of an existing file, when it can stand for formatting `input` again. */
export function reusableBody(path: string, input: string): string | undefined {
  let contents: string;
  try {
    contents = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const at = contents.indexOf(MARK);
  if (at < 0) return undefined;
  const lineEnd = contents.indexOf("\n", at);
  const [recordedInput, recordedBody] = contents.slice(at + MARK.length, lineEnd).split(" ");
  if (recordedInput !== input || contents.slice(lineEnd, lineEnd + 2) !== "\n\n") return undefined;
  const body = contents.slice(lineEnd + 2);
  return sha256(body) === recordedBody ? body : undefined;
}
