// `npm run bench:output-size [-- folder]`: the size of each generated set in a folder (default `generated/`),
// by kind of file: `types.ts`, `validators.ts`, the other modules generated for the set (index, client, server,
// status, elicitation, standard-schema), and the `runtime/` modules copied into it; files, lines and bytes of
// each and of all, and the count of private helper functions in `validators.ts` (`$is…`, `$check…` other than
// a definition's own `$checkX`). Reads only; generates nothing.
//
// Usage: node bench/output-size.mjs [folder] [--write]  (--write: README's table, see lib/results.mjs)
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generatedState } from "./lib/generated-state.mjs";
import { benchOptions, markdownTable, publishSection, usageError } from "./lib/results.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const folder = resolve(benchOptions({}, { positionals: 1 }).positionals[0] ?? join(root, "generated"));
if (!existsSync(folder)) usageError(`no folder ${folder}`);
const isDefaultFolder = folder === join(root, "generated");

/** The kinds of file a set holds, in the table's order; each file (a path inside the set) is of the first that takes it. */
const KINDS = [
  { label: "`types.ts`", takes: (path) => path === "types.ts" },
  { label: "`validators.ts`", takes: (path) => path === "validators.ts" },
  { label: "other generated modules", takes: (path) => !path.includes("/") },
  { label: "`runtime/` (copied)", takes: (path) => path.startsWith("runtime/") },
];

/** Files, lines and bytes of some files of a set. */
function measure(dir, paths) {
  let lines = 0;
  let bytes = 0;
  for (const path of paths) {
    const text = readFileSync(join(dir, path), "utf8");
    bytes += Buffer.byteLength(text);
    lines += text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  }
  return { files: paths.length, lines, bytes };
}

/** Private helpers: every `$is…` function, and `$check…` functions that are not a definition's own `$checkX`. */
function helperCount(validators) {
  const exported = new Set([...validators.matchAll(/^export function is(\w+)\(/gm)].map((m) => m[1]));
  const helpers = [...validators.matchAll(/^function (\$(?:is|check)\w+)\(/gm)].map((m) => m[1]);
  return helpers.filter((name) => !(name.startsWith("$check") && exported.has(name.slice("$check".length)))).length;
}

const number = (n) => n.toLocaleString("en-US");
const cell = ({ files, lines, bytes }) => (files === 0 ? "–" : `${number(files)} / ${number(lines)} / ${(bytes / 1000).toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 })} kB`);

const rows = [];
const total = [...KINDS, "all"].map(() => ({ files: 0, lines: 0, bytes: 0 }));
for (const set of readdirSync(folder).sort()) {
  const dir = join(folder, set);
  if (!statSync(dir).isDirectory() || !existsSync(join(dir, "validators.ts"))) continue;
  // Code only: the manifest (.mcp-tasks-gen.json) is the generator's bookkeeping, not output a program loads.
  const paths = readdirSync(dir, { recursive: true })
    .map((path) => relative(dir, join(dir, path)).split("\\").join("/"))
    .filter((path) => /\.(ts|js)$/.test(path) && statSync(join(dir, path)).isFile())
    .sort();
  const byKind = KINDS.map(() => []);
  for (const path of paths) byKind[KINDS.findIndex((kind) => kind.takes(path))].push(path);
  const sizes = [...byKind.map((kindPaths) => measure(dir, kindPaths)), measure(dir, paths)];
  sizes.forEach((size, i) => {
    for (const key of ["files", "lines", "bytes"]) total[i][key] += size[key];
  });
  rows.push([set, ...sizes.map(cell), number(helperCount(readFileSync(join(dir, "validators.ts"), "utf8")))]);
}
if (rows.length === 0) throw new Error(`${folder}: no generated set (a folder with validators.ts) in it`);
rows.push(["all sets", ...total.map(cell), ""]);

publishSection({
  name: "output-size",
  markdown: [
    `Each set in \`${relative(root, folder) || "."}/\`${isDefaultFolder ? ` (${generatedState(root)} by \`mcp-tasks-gen --check\`)` : ""}; a cell is files / lines / bytes.`,
    "",
    markdownTable(["Set", ...KINDS.map((kind) => kind.label), "all", "private helpers in `validators.ts`"], rows),
  ].join("\n"),
});
