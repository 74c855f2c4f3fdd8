/**
 * The manifest every generated folder holds (`.mcp-tasks-gen.json`): the files mcp-tasks-gen wrote
 * there, each with the sha256 of its bytes. It is how the tool knows, on the next run, that
 * everything in the folder is its own and may be replaced; a file it does not list, or a listed
 * file whose bytes changed, belongs to someone else (see ownership.ts). It is deterministic (no
 * time, no version, names sorted) so committing it causes no churn.
 */
import { createHash } from "node:crypto";

export const MANIFEST_FILE = ".mcp-tasks-gen.json";

/** Who wrote the folder: a manifest naming another generator is not ours. */
export const GENERATOR_NAME = "mcp-tasks-gen";

export function sha256(bytes: string | Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The manifest listing `files` (name and contents), as the text written to disk. */
export function manifestText(files: readonly { readonly name: string; readonly contents: string }[]): string {
  const listed: Record<string, string> = {};
  for (const file of [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    listed[file.name] = `sha256:${sha256(file.contents)}`;
  }
  const manifest = {
    "//": `Written by ${GENERATOR_NAME} with the files it lists; it replaces this folder only while every file in it is listed here, unchanged.`,
    generator: GENERATOR_NAME,
    files: listed,
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The sha256 of each file a manifest lists, by name; undefined when the text is not a manifest of ours. */
export function readManifest(text: string): Map<string, string> | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== "object" || json === null) return undefined;
  const { generator, files } = json as { generator?: unknown; files?: unknown };
  if (generator !== GENERATOR_NAME || typeof files !== "object" || files === null || Array.isArray(files)) return undefined;
  const hashes = new Map<string, string>();
  for (const [name, value] of Object.entries(files)) {
    const hash = typeof value === "string" ? /^sha256:([0-9a-f]{64})$/.exec(value)?.[1] : undefined;
    if (hash === undefined) return undefined;
    hashes.set(name, hash);
  }
  return hashes;
}

/** Text with CRLF line ends turned into LF: what git's `core.autocrlf` checkout undoes. */
export function withLfLineEnds(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

/**
 * Whether `bytes` are the bytes hashed as `hash`, as written or with each CRLF read as LF (a checkout
 * with `core.autocrlf` does not make a generated file someone else's).
 */
export function bytesMatch(bytes: Buffer, hash: string): boolean {
  if (sha256(bytes) === hash) return true;
  if (!bytes.includes("\r\n")) return false;
  // latin1 maps each byte to one char and back, so only the CR bytes change.
  return sha256(Buffer.from(withLfLineEnds(bytes.toString("latin1")), "latin1")) === hash;
}
