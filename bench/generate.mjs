// `npm run bench:generate`: wall time of a cold `mcp-tasks-gen` run generating every set (all
// artifacts) against json-schema-to-typescript producing types alone for the same inputs.
// Goals: from scratch within 2× of jsts's time; with generated/ present (the build step, CI's --check) faster
// than jsts. Usage: node bench/generate.mjs [--runs N] [--write]  (or BENCH_RUNS=N; --write: README's table,
// see lib/results.mjs)
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { benchOptions, markdownTable, positiveInteger, publishSection } from "./lib/results.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { values } = benchOptions({ runs: { type: "string" } });
const runs = positiveInteger(values.runs ?? process.env.BENCH_RUNS ?? 15, "--runs");

// Both tools read a temp copy of the config and schemas, so nothing writes into the repo.
const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-bench-"));
cpSync(join(root, "mcp-tasks-gen.config.json"), join(work, "mcp-tasks-gen.config.json"));
cpSync(join(root, "schemas"), join(work, "schemas"), { recursive: true });
const configPath = join(work, "mcp-tasks-gen.config.json");
const config = JSON.parse(readFileSync(configPath, "utf8"));
const setNames = config.sets.map((s) => s.name);

const jstsVersion = createRequire(import.meta.url)("json-schema-to-typescript/package.json").version;
const ourOut = join(work, config.outDir ?? "generated");
const ourCli = join(root, "dist/generator/cli/main.js");
const tools = [
  {
    name: "mcp-tasks-gen",
    label: "mcp-tasks-gen, from scratch (all artifacts)",
    outDir: ourOut,
    args: [ourCli, "--config", configPath],
    times: [],
  },
  // The usual build step: generated/ is committed, the schemas did not change. Each file's
  // fingerprint lets the generator reuse its formatting instead of running prettier again.
  {
    name: "mcp-tasks-gen regenerate",
    label: "mcp-tasks-gen, regenerate with generated/ present (all artifacts)",
    outDir: ourOut,
    keepOutput: true,
    args: [ourCli, "--config", configPath],
    times: [],
  },
  {
    name: "mcp-tasks-gen --check",
    label: "mcp-tasks-gen --check with generated/ present (CI)",
    outDir: ourOut,
    keepOutput: true,
    args: [ourCli, "--check", "--config", configPath],
    times: [],
  },
  {
    name: `json-schema-to-typescript ${jstsVersion}`,
    outDir: join(work, "jsts-out"),
    args: [join(root, "bench/jsts-runner.mjs"), configPath, join(work, "jsts-out")],
    times: [],
  },
];

// One cold run: a fresh node process, so module loading and JIT warm-up count as in a user's
// build step. The output folder is emptied first, so no run profits from files already there.
function run(tool) {
  if (!tool.keepOutput) rmSync(tool.outDir, { recursive: true, force: true });
  const start = performance.now();
  const result = spawnSync(process.execPath, tool.args, { cwd: work, encoding: "utf8" });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`${tool.name} exited with ${result.status ?? result.signal}:\n${result.stderr}`);
  tool.output = outputOf(tool);
  return ms;
}

// Files each set produced, in every subfolder (the copied `runtime/` modules too); fails unless every set
// has non-empty files, so the benchmark cannot silently time an error path. Names: the top level's, a folder
// as `runtime/`.
function outputOf(tool) {
  const files = setNames.flatMap((set) => {
    const dir = join(tool.outDir, set);
    const names = readdirSync(dir, { recursive: true }).filter((name) => statSync(join(dir, name)).isFile());
    if (names.length === 0) throw new Error(`${tool.name} produced no files for set ${set}`);
    return names.map((name) => ({ name: name.split(sep)[0] + (name.includes(sep) ? "/" : ""), path: name, bytes: statSync(join(dir, name)).size }));
  });
  const empty = files.find((f) => f.bytes === 0);
  if (empty) throw new Error(`${tool.name} wrote an empty ${empty.path}`);
  return { files: files.length, names: [...new Set(files.map((f) => f.name))].sort(), bytes: files.reduce((n, f) => n + f.bytes, 0) };
}

try {
  // Interleaved (ours, jsts, ours, ...) so both sides share whatever noise the machine has.
  for (let i = 0; i <= runs; i++) {
    for (const tool of tools) {
      const ms = run(tool);
      if (i > 0) tool.times.push(ms); // run 0 is the warm-up (disk cache), not measured
    }
    process.stderr.write(i === 0 ? "warm-up done " : ".");
  }
  process.stderr.write("\n");
} finally {
  rmSync(work, { recursive: true, force: true });
}

const stats = (times) => {
  const s = [...times].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], p90: s[Math.ceil(0.9 * s.length) - 1] }; // nearest-rank p90
};
const measured = tools.map((t) => ({ ...t, ...stats(t.times) }));
const ours = measured[0];
const jsts = measured[measured.length - 1];
const ms = (x) => `${Math.round(x).toLocaleString("en-US")} ms`;
const kb = (bytes) => `${(bytes / 1000).toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 })} kB`;

// The goals: from scratch (every artifact, formatted) within 2× of jsts's types alone; with the output
// present (the build step and CI's --check) faster than jsts.
const goal = (t) => {
  const ratio = t.median / jsts.median;
  const fromScratch = t.label.includes("from scratch");
  const met = fromScratch ? ratio <= 2 : ratio < 1;
  return `${ratio.toFixed(2)}× (goal ${fromScratch ? "within 2×" : "under 1×"}: ${met ? "met" : "**not met**"})`;
};
const output = (t) => `${t.output.files} files, ${kb(t.output.bytes)}`;
const rows = [
  ...measured.slice(0, -1).map((t) => [t.label, output(t), ms(t.median), ms(t.min), ms(t.p90), goal(t)]),
  [`${jsts.name} (types only, always from scratch)`, output(jsts), ms(jsts.median), ms(jsts.min), ms(jsts.p90), "1.00×"],
];
publishSection({
  name: "generate",
  markdown: [
    `${runs} cold runs of each, interleaved, after one warm-up round; inputs: the ${setNames.length} sets of this repository's config (${setNames.join(", ")}). ` +
      `Files written per set (at most): ${ours.output.names.map((name) => `\`${name}\``).join(", ")}; json-schema-to-typescript's: ${jsts.output.names.map((name) => `\`${name}\``).join(", ")}.`,
    "",
    markdownTable(["Run", "Output", "Median", "Min", "p90", "ours / jsts (median)"], rows, ["l", "l", "r", "r", "r", "r"]),
  ].join("\n"),
});
