/** Reading schema files: bytes, sha256 (for the file header), and JSON with a located error. */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { GeneratorError } from "../diagnostics.js";
import { describeJsonProblem, parseJsonText } from "./json-text.js";

export interface SchemaFile {
  readonly path: string;
  readonly display: string;
  readonly sha256: string;
  readonly json: unknown;
}

export function readSchemaFile(path: string, display: string): SchemaFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new GeneratorError({ file: display, pointer: "" }, code === "ENOENT" ? "file not found" : `cannot read: ${code ?? (e as Error).message}`);
  }
  const parsed = parseJsonText(bytes.toString("utf8"));
  if (!parsed.ok) throw new GeneratorError({ file: display, pointer: "" }, describeJsonProblem(parsed));
  const json = parsed.value;
  // A schema is an object or a boolean; anything else would lower to nothing and generate an empty set.
  if (json === null || (typeof json !== "object" && typeof json !== "boolean") || Array.isArray(json)) {
    throw new GeneratorError({ file: display, pointer: "" }, `the root is ${jsonKind(json)}, not a JSON Schema (object or boolean)`);
  }
  return { path, display, sha256: createHash("sha256").update(bytes).digest("hex"), json };
}

function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "number" ? "a number" : typeof value === "string" ? "a string" : typeof value;
}
