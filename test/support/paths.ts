import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The project root (the folder holding package.json). */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The folder of the test data copied from elsewhere, each subfolder with a SOURCE.md naming its origin. */
export const fixturesRoot = join(projectRoot, "test", "fixtures");

/**
 * Path of a file or folder under test/fixtures. Tests read their external data (the JSON Schema Test
 * Suite, the MCP specification's schema and examples) only through this, so a clone of the repository
 * alone passes `npm test`. A missing path fails loudly (never skips): a test that needs more data must
 * have it copied in, with its source noted.
 */
export function fixturePath(...parts: string[]): string {
  const path = join(fixturesRoot, ...parts);
  if (!existsSync(path)) {
    throw new Error(`test data missing: ${relative(projectRoot, path)} (copy it from its upstream into test/fixtures and note the source in that folder's SOURCE.md)`);
  }
  return path;
}
