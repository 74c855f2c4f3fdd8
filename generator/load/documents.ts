/** Reading schema files: bytes, sha256 (for the file header), and JSON with a located error. */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { GeneratorError } from "../diagnostics.js";

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
  const text = bytes.toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new GeneratorError({ file: display, pointer: "" }, `not valid JSON: ${(e as Error).message}`);
  }
  return { path, display, sha256: createHash("sha256").update(bytes).digest("hex"), json };
}
