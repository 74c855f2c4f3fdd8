// Whether the committed generated/ folder is what the generator makes now. Benchmarks that read generated/ as
// it is (output sizes, format checks) say so beside their tables, since a stale folder measures old code.
import { spawnSync } from "node:child_process";
import { join } from "node:path";

/** `mcp-tasks-gen --check` (the built CLI in dist/) in the project root, as a phrase for a table's method line. */
export function generatedState(root) {
  const check = spawnSync(process.execPath, [join(root, "dist/generator/cli/main.js"), "--check"], { cwd: root, encoding: "utf8" });
  if (check.status === 0) return "up to date";
  if (check.status === 1) return "STALE (run `npm run generate`)";
  return `not checked (\`mcp-tasks-gen --check\` exited ${check.status ?? check.signal}; run \`npm run build\`)`;
}
