import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { checkConfig, generate, resolveConfig, type GeneratedSet, type ResolvedConfig, type SchemaSetConfig } from "../../generator/index.js";
import { projectRoot } from "./paths.js";

/**
 * Every revision of a schema the project generates: the bundled sets (by their bundled name, so
 * they read exactly what `"bundled"` users get), and any revision kept only as test data (copied
 * under test/fixtures/ with a SOURCE.md; none today). The revision snapshots and the round trip
 * over every revision's stubs read this list; a revision added here is snapshotted and, once it
 * has stubs, round-tripped.
 *
 * `sha256` pins the revision's first schema file: when a bundled name comes to mean another
 * revision (as `ext-tasks-draft` moved from the 2026-05-22 revision to the 2026-08-21 one), the pin fails and says which
 * row to move, instead of the snapshots silently changing what they are about.
 */
export interface Revision {
  /** The revision's name: its snapshot folder and its set's name. */
  readonly id: string;
  /** What it is and where it comes from. */
  readonly about: string;
  /** The config set that generates it (paths relative to the project root; `name` is the id): `bundled`, or `schemas` and the options it needs. */
  readonly set: Partial<Omit<SchemaSetConfig, "name">>;
  /** sha256 of its first schema file. */
  readonly sha256: string;
}

export const REVISIONS: readonly Revision[] = [
  {
    id: "tasks-2025-11-25",
    about: "MCP 2025-11-25 Tasks (schemas/tasks-2025-11-25.schema.json with its core schema as a remote)",
    set: { bundled: "tasks-2025-11-25" },
    sha256: "9844b3b7007dcbcb24e29fdfc19e7108f5173be7cc108e551376e6a6119dce7e",
  },
  {
    id: "ext-tasks-29f83d5",
    about: "Tasks extension (SEP-2663) at ext-tasks commit 29f83d5, 2026-05-22 (schemas/ext-tasks-2026-05-22.schema.json, input placeholders bound)",
    set: { bundled: "ext-tasks-2026-05-22" },
    sha256: "b17cb4a2534379c214b17770bd5d3d54f69fde16a953bfb542c58235a61274bb",
  },
  {
    id: "ext-tasks-e434597",
    about: "Tasks extension (SEP-2663) at ext-tasks commit e434597, 2026-08-21, the newest (schemas/ext-tasks-draft.schema.json)",
    set: { bundled: "ext-tasks-draft" },
    sha256: "10933a5003097bbccb03d964e6a5f7a2819cc4d7a1d07e27c6765cbf5da35c5c",
  },
  {
    id: "elicitation-codex",
    about: "MCP elicitation request params as the Codex host emits them (schemas/codex-mcp-elicitation-request-params.schema.json)",
    set: { bundled: "elicitation-codex" },
    sha256: "7de0afbcacd209d594e79d36e2ce9966228238152ae195ae94c4a1daf754bfe4",
  },
];

/** Where a revision's generated files would go: never written, only named (generation stays in memory). */
const UNWRITTEN_OUT_DIR = "test/.revisions-not-written";

/** The config that generates every revision, one set each, resolved against the project root. */
export function revisionsConfig(revisions: readonly Revision[] = REVISIONS): ResolvedConfig {
  const user = checkConfig({ outDir: UNWRITTEN_OUT_DIR, sets: revisions.map((r) => ({ name: r.id, ...r.set })) }, "(revisions)");
  return resolveConfig(user, projectRoot);
}

/** Every revision generated once, in memory, formatted as the CLI writes it; by revision id. */
export async function generateRevisions(revisions: readonly Revision[] = REVISIONS): Promise<Map<string, GeneratedSet>> {
  const { sets } = await generate(revisionsConfig(revisions));
  return new Map(sets.map((set) => [set.name, set]));
}

/** sha256 of a file, hex. */
export function sha256Of(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Absolute path of a revision's first schema file, as the config resolves it. */
export function firstSchemaOf(revision: Revision): string {
  const [schema] = revisionsConfig([revision]).sets[0]!.schemas;
  if (schema === undefined) throw new Error(`revision ${revision.id} names no schema file`);
  return schema;
}
