// `node bench/output-size.mjs [folder]`: the size of each generated set in a folder (default
// `generated/`): lines and bytes of all its files, of `types.ts` and of `validators.ts`, and the
// count of private helper functions in `validators.ts` (`$is…`, `$check…` other than a
// definition's own `$checkX`). Prints a Markdown table. Reads only; generates nothing.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const folder = process.argv[2] ?? join(root, "generated");

/** Lines and bytes of some files of a set. */
function measure(dir, names) {
  let lines = 0;
  let bytes = 0;
  for (const name of names) {
    const text = readFileSync(join(dir, name), "utf8");
    bytes += Buffer.byteLength(text);
    lines += text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  }
  return { lines, bytes };
}

/** Private helpers: every `$is…` function, and `$check…` functions that are not a definition's own `$checkX`. */
function helperCount(validators) {
  const exported = new Set([...validators.matchAll(/^export function is(\w+)\(/gm)].map((m) => m[1]));
  const helpers = [...validators.matchAll(/^function (\$(?:is|check)\w+)\(/gm)].map((m) => m[1]);
  return helpers.filter((name) => !(name.startsWith("$check") && exported.has(name.slice("$check".length)))).length;
}

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
const rows = [];
for (const set of readdirSync(folder).sort()) {
  const dir = join(folder, set);
  if (!statSync(dir).isDirectory() || !existsSync(join(dir, "validators.ts"))) continue;
  const files = readdirSync(dir).filter((f) => /\.(ts|js)$/.test(f));
  const all = measure(dir, files);
  const types = measure(dir, ["types.ts"]);
  const validators = measure(dir, ["validators.ts"]);
  const helpers = helperCount(readFileSync(join(dir, "validators.ts"), "utf8"));
  rows.push(`| ${set} | ${all.lines} / ${kB(all.bytes)} | ${types.lines} / ${kB(types.bytes)} | ${validators.lines} / ${kB(validators.bytes)} | ${helpers} |`);
}
console.log("| Set | all files (lines / bytes) | `types.ts` | `validators.ts` | private helpers in `validators.ts` |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const row of rows) console.log(row);
