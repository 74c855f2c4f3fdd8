import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * Every directory and file below `root` (dot entries included), files with their bytes, symbolic
 * links with what they point to (not followed): two snapshots are equal only if nothing was
 * written, removed or left behind.
 */
export function treeSnapshot(root: string): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const rel = `${prefix}${entry.name}`;
      if (entry.isDirectory()) {
        entries.set(`${rel}/`, "<dir>");
        walk(join(dir, entry.name), `${rel}/`);
      } else if (entry.isSymbolicLink()) {
        entries.set(rel, `<link> ${readlinkSync(join(dir, entry.name))}`);
      } else {
        entries.set(rel, readFileSync(join(dir, entry.name)).toString("base64"));
      }
    }
  };
  walk(root, "");
  return entries;
}
