import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { GeneratedFile } from "../../generator/index.js";

/** A generated set made importable from a scratch folder. */
export interface LoadedModules {
  /** Imports one module of the set by file name (`server.ts`). */
  import<T = Record<string, unknown>>(file: string): Promise<T>;
  /** Removes the scratch folder. */
  remove(): void;
}

/**
 * Writes a generated set held in memory to a scratch folder and imports its modules from there,
 * through the test runner's own TypeScript transform (types erased, nothing checked:
 * test/support/typescript.ts type-checks). The modules import only each other (`./types.js`,
 * `./runtime/protocol/json.js`), so the folder needs nothing else. For tests run by vitest only.
 */
export function loadGeneratedModules(files: readonly GeneratedFile[], label: string): LoadedModules {
  const dir = mkdtempSync(join(tmpdir(), `mcp-tasks-gen-${label}-`));
  for (const file of files) writeGeneratedFile(dir, file);
  return {
    import: async <T>(file: string) => (await import(/* @vite-ignore */ join(dir, file))) as T,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Writes one generated file below `dir` at its name, which may name a subfolder (`runtime/client/engine.ts`). */
export function writeGeneratedFile(dir: string, file: { readonly name: string; readonly contents: string }): void {
  const path = join(dir, file.name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, file.contents);
}
