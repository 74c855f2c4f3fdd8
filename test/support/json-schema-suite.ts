/**
 * Helpers for running the official JSON Schema Test Suite through the generator: reading the
 * suite's files, registering the documents its schemas refer to, and turning a generated set
 * into modules that can be imported and called.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { GeneratedFile, MemoryDocument } from "../../generator/index.js";
import { importGeneratedModule } from "./generated-modules.js";

export interface SuiteCase {
  readonly description: string;
  readonly data: unknown;
  readonly valid: boolean;
}

export interface SuiteGroup {
  readonly description: string;
  readonly schema: unknown;
  readonly tests: readonly SuiteCase[];
}

/** The suite's keyword files of one draft folder (not `optional/`), sorted by name. */
export function keywordFiles(testsDir: string): string[] {
  return readdirSync(testsDir)
    .filter((name) => name.endsWith(".json") && statSync(join(testsDir, name)).isFile())
    .sort();
}

export function readGroups(path: string): SuiteGroup[] {
  return JSON.parse(readFileSync(path, "utf8")) as SuiteGroup[];
}

/**
 * The suite's remote documents as its README serves them, at `http://localhost:1234/<path>`:
 * the files at the top of `remotes/` and those of the given draft's own folder. Other drafts'
 * folders are left out unless named in `otherDrafts`: no test of this draft outside `optional/`
 * refers to them (its `cross-draft.json` does).
 */
export function remoteDocuments(remotesDir: string, draftFolder: string, otherDrafts: readonly string[] = []): MemoryDocument[] {
  const documents: MemoryDocument[] = [];
  const visit = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(remotesDir, path).split("\\").join("/");
      if (statSync(path).isDirectory()) {
        if (dir !== remotesDir || name === draftFolder || otherDrafts.includes(name) || !/^(draft|v\d)/.test(name)) visit(path);
      } else if (name.endsWith(".json")) {
        documents.push({ uri: `http://localhost:1234/${rel}`, json: readJson(path), display: `remotes/${rel}` });
      }
    }
  };
  visit(remotesDir);
  return documents;
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** The members a generated `validators.ts` exports for a root named `Root`. */
export interface RootValidators {
  isRoot(value: unknown): boolean;
  validateRoot(value: unknown): { ok: true; value: unknown } | { ok: false; errors: readonly Record<string, unknown>[] };
  parseRoot(value: unknown): unknown;
}

/** Writes a generated set's validators (and what they import) as ES modules into `dir`, and imports them. */
export async function importValidators(files: readonly GeneratedFile[], dir: string): Promise<RootValidators> {
  if (!files.some((f) => f.name === "validators.ts")) throw new Error("the generator produced no validators.ts");
  return importGeneratedModule<RootValidators>(files, dir);
}
