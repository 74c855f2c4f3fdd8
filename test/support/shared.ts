import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The project root (the folder holding package.json). */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Path of the read-only `../shared` folder beside the project. Tests that read external
 * test data call this: when the folder is missing they fail loudly (never skip), so a CI run
 * without the data cannot pass by accident.
 */
export function sharedPath(...parts: string[]): string {
  const root = process.env.MCP_TASKS_GEN_SHARED ?? resolve(projectRoot, "..", "shared");
  const path = join(root, ...parts);
  if (!existsSync(path)) {
    throw new Error(
      `test data missing: ${path} (the ../shared folder must sit beside the project; set MCP_TASKS_GEN_SHARED to point elsewhere)`,
    );
  }
  return path;
}
