import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
 * test/support/typescript.ts type-checks). The modules import only each other (`./types.js`), so
 * the folder needs nothing else. For tests run by vitest only.
 */
export function loadGeneratedModules(files: readonly GeneratedFile[], label: string): LoadedModules {
  const dir = mkdtempSync(join(tmpdir(), `mcp-tasks-gen-${label}-`));
  for (const file of files) writeFileSync(join(dir, file.name), file.contents);
  return {
    import: async <T>(file: string) => (await import(/* @vite-ignore */ join(dir, file))) as T,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
