// `npm run bench:scale`: time and peak memory of generating a synthetic draft-07 schema of 100,
// 1,000 and 5,000 definitions (see lib/scale-schema.mjs), mcp-tasks-gen (every artifact, ad-hoc
// `--schema` into a temp folder) against json-schema-to-typescript 16 (`--unreachableDefinitions`,
// types only). Each run is a fresh child process; peak RSS is read inside it (lib/report-rss.mjs).
// Goal (README.md › Scale): at 5,000 definitions within 3× jsts's time, under 1 GB, and linear: time per
// definition at 5,000 within 1.3× of that at 1,000.
// Usage: node bench/scale.mjs [--runs N] [--sizes 100,1000,5000] [--cli path/to/main.js] [--write]
// (--write: README's table, see lib/results.mjs)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { benchOptions, markdownTable, positiveInteger, publishSection, usageError } from "./lib/results.mjs";
import { scaleSchema } from "./lib/scale-schema.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { values } = benchOptions({ runs: { type: "string" }, sizes: { type: "string" }, cli: { type: "string" } });
const runs = positiveInteger(values.runs ?? process.env.BENCH_RUNS ?? 3, "--runs");
const sizes = (values.sizes ?? "100,1000,5000").split(",").map(Number);
if (sizes.some((n) => !Number.isInteger(n) || n < 5 || n % 5 !== 0)) usageError(`--sizes expects multiples of 5, got ${values.sizes}`);
const ourCli = resolve(values.cli ?? join(root, "dist/generator/cli/main.js"));
const jstsVersion = createRequire(import.meta.url)("json-schema-to-typescript/package.json").version;
const rssPreload = join(root, "bench/lib/report-rss.mjs");

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-scale-"));

/** One cold run in a child process: wall time and CPU time (ms), peak RSS (kB), output bytes. */
function run(args, outDir) {
  rmSync(outDir, { recursive: true, force: true });
  const rssFile = join(work, "rss");
  rmSync(rssFile, { force: true });
  const start = performance.now();
  const result = spawnSync(process.execPath, ["--import", rssPreload, ...args], {
    cwd: work,
    encoding: "utf8",
    env: { ...process.env, BENCH_RSS_FILE: rssFile },
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited with ${result.status ?? result.signal}:\n${result.stderr}`);
  return { ms, ...JSON.parse(readFileSync(rssFile, "utf8")), bytes: folderBytes(outDir) };
}

/** Bytes written under a folder; fails on an empty output, so no error path is ever timed. */
function folderBytes(dir) {
  const sizes = readdirSync(dir, { recursive: true }).map((name) => statSync(join(dir, name))).filter((s) => s.isFile()).map((s) => s.size);
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total === 0) throw new Error(`nothing written to ${dir}`);
  return total;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

const rows = [];
try {
  for (const size of sizes) {
    const schemaPath = join(work, `scale-${size}.json`);
    writeFileSync(schemaPath, JSON.stringify(scaleSchema(size), null, 2));
    const configPath = join(work, `jsts-${size}.config.json`);
    writeFileSync(configPath, JSON.stringify({ sets: [{ name: "scale", schemas: [schemaPath] }] }));
    const tools = [
      { name: "mcp-tasks-gen", out: join(work, "ours"), args: [ourCli, "--schema", schemaPath, "--out", join(work, "ours")] },
      { name: "jsts", out: join(work, "jsts"), args: [join(root, "bench/jsts-runner.mjs"), configPath, join(work, "jsts")] },
    ];
    const samples = tools.map(() => []);
    // Interleaved, so both tools share whatever noise the machine has.
    for (let i = 0; i < runs; i++) tools.forEach((tool, t) => samples[t].push(run(tool.args, tool.out)));
    const [ours, jsts] = samples.map((s) => ({
      ms: median(s.map((x) => x.ms)),
      cpuMs: median(s.map((x) => x.cpuMs)),
      rssKb: Math.max(...s.map((x) => x.rssKb)),
      bytes: s[0].bytes,
    }));
    rows.push({ size, ours, jsts });
    process.stderr.write(`${size} definitions done\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const mb = (kb) => `${Math.round(kb / 1024)} MB`;
const size = (bytes) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(0)} kB`);
const rowsMarkdown = rows.map((r) => [
  r.size.toLocaleString("en-US"),
  `${s(r.ours.ms)} (${s(r.ours.cpuMs)})`,
  mb(r.ours.rssKb),
  size(r.ours.bytes),
  `${s(r.jsts.ms)} (${s(r.jsts.cpuMs)})`,
  mb(r.jsts.rssKb),
  size(r.jsts.bytes),
  `${(r.ours.ms / r.jsts.ms).toFixed(2)}×`,
  (r.ours.ms / r.size).toFixed(2),
]);
const header = ["Definitions", "mcp-tasks-gen time (CPU)", "peak RSS", "output", `jsts ${jstsVersion} time (CPU)`, "peak RSS", "output", "time ours / jsts", "ms per definition (ours)"];
// The goals, each with the figure it judges, as table rows (a number in prose would outlive its run).
const goals = [];
const at = (n) => rows.find((r) => r.size === n);
const [big, mid] = [at(5000), at(1000)];
if (big) {
  const ratio = big.ours.ms / big.jsts.ms;
  goals.push(["time ours / jsts at 5,000 definitions", `${ratio.toFixed(2)}×`, "≤ 3×", ratio <= 3 ? "met" : "**not met**"]);
  goals.push(["peak RSS (ours) at 5,000 definitions", mb(big.ours.rssKb), "< 1 GB", big.ours.rssKb < 1024 * 1024 ? "met" : "**not met**"]);
  if (mid) {
    const growth = big.ours.ms / 5000 / (mid.ours.ms / 1000);
    goals.push(["time per definition, 5,000 against 1,000", `${growth.toFixed(2)}×`, "≤ 1.3×", growth <= 1.3 ? "met" : "**not met**"]);
  }
}
publishSection({
  name: "scale",
  markdown: [
    `Median of ${runs} cold run${runs > 1 ? "s" : ""} of each, interleaved; CPU: user + system time of every thread; peak RSS: the largest of the runs.`,
    "",
    markdownTable(header, rowsMarkdown),
    ...(goals.length > 0 ? ["", markdownTable(["Goal", "measured", "goal", "verdict"], goals, ["l", "r", "r", "l"])] : []),
  ].join("\n"),
});
