// `npm run bench`: speed and size of the generated validators against the best peers.
//
// Speed: every definition a generated client or server checks per message (bench/lib/hot-path.mjs derives them
// from the generated client.ts/server.ts of each bundled set: results, requests, notifications), on inputs built
// from its schema (bench/lib/hot-path-inputs.mjs: valid samples, one per status where a status chooses, and the
// typical mistakes — null, a string at the root, a required member missing, a member of the wrong type, a wrong
// `method` or status constant, params null). Contenders (bench/lib/contenders.mjs): ours, ajv (default and
// allErrors, compiled from the same seed schema), TypeBox's compiler and typia where they can express the
// definition; each must give ajv's verdict on every input before it is timed. Two orders:
// (a) each definition in a fresh process of its own, (b) all definitions in one process, every definition's
// contenders run in every round in a seeded shuffled order (bench/lib/hot-path-run.mjs).
// Then `unevaluatedProperties` (bench/lib/unevaluated.mjs) and the size of the generated validators beside ajv's
// standalone code for the same schemas.
//
// Usage: node bench/validators.mjs [--seconds S] [--processes N] [--only set/Definition[,…]] [--seed N] [--per-input] [--write]
//   --seconds: measured seconds per definition for `is` and again for `validate`, default 0.4
//   --processes: fresh processes per definition for the own-process tables, default 3 (each number their median)
//   --only: the definitions to measure (a set name alone: all of its definitions)
//   --seed: the shuffled order of the one-process run (printed; default from the clock)
//   --per-input: also `validate` on each invalid input alone, in ns per call (own processes)
//   --write: also put the tables into README.md (bench/lib/results.mjs)
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { ajvStandalone } from "./lib/ajv-standalone.mjs";
import { prepareContenders } from "./lib/contenders.mjs";
import { transpileSet } from "./lib/generated.mjs";
import { allHotPathDefinitions } from "./lib/hot-path.mjs";
import { measure, medianOfRuns } from "./lib/measure.mjs";
import { benchOptions, positiveInteger, publishSection, usageError } from "./lib/results.mjs";
import { unevaluatedContenders, unevaluatedInputs } from "./lib/unevaluated.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { values } = benchOptions({ seconds: { type: "string" }, processes: { type: "string" }, only: { type: "string" }, seed: { type: "string" }, "per-input": { type: "boolean" } });
const seconds = Number(values.seconds ?? process.env.BENCH_SECONDS ?? 0.4);
if (!(seconds > 0)) usageError(`--seconds expects a positive number, got ${values.seconds ?? process.env.BENCH_SECONDS}`);
const processes = positiveInteger(values.processes ?? 3, "--processes");
const seed = values.seed === undefined ? Date.now() % 1_000_000 : Number(values.seed);
if (!Number.isInteger(seed)) usageError(`--seed expects an integer, got ${values.seed}`);

const config = JSON.parse(readFileSync(join(root, "mcp-tasks-gen.config.json"), "utf8"));
const outDir = resolve(root, config.outDir ?? "generated");
const hotPath = selectDefinitions(allHotPathDefinitions(config, root), values.only);
// A contender beats ours in a row when ours is below it; the goals (ratios of ours to it) are the issue's.
const OTHERS = ["typia", "TypeBox", "ajv"];

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-bench-validators-"));
const md = [];
try {
  const transpiled = new Map(config.sets.map((set) => [set.name, transpileSet(join(outDir, set.name), join(work, set.name))]));
  // Read from node_modules directly: TypeBox's package exports no ./package.json.
  const versions = ["ajv", "@sinclair/typebox", "typia"].map((p) => `${p} ${JSON.parse(readFileSync(join(root, "node_modules", p, "package.json"), "utf8")).version}`).join(", ");
  md.push(`Generated code: \`${relative(root, outDir)}/\` (${generatedState()}); ${versions}.`);
  const prepared = await prepareContenders({ root, work, config, definitions: hotPath });
  for (const note of prepared.notes) md.push("", note);

  const kinds = Object.fromEntries(hotPath.map((d) => [`${d.set}/${d.name}`, d.kind]));
  const job = (definitions, together) => JSON.stringify({ root, work, definitions, kinds, seconds, together, perInput: !together && values["per-input"] === true });
  // Each definition in `processes` fresh processes, one pass over all definitions after another (so one
  // definition's runs do not share a moment of load), merged by medians (`medianOfRuns`).
  const runs = hotPath.map(() => []);
  for (let pass = 0; pass < processes; pass++) {
    hotPath.forEach((d, i) => {
      runs[i].push(...runChild(job([`${d.set}/${d.name}`], false), [`${d.set}/${d.name}`]));
      process.stderr.write(`own processes: ${pass * hotPath.length + i + 1}/${processes * hotPath.length}\r`);
    });
  }
  const own = runs.map(mergeRuns);
  const order = shuffled(hotPath.map((d) => `${d.set}/${d.name}`), seed);
  const together = runChild(job(order, true), order);
  process.stderr.write("\n");

  hotPathTables(own, new Map(together.map((r) => [r.id, r])));
  await unevaluatedTable();
  sizeTable(transpiled);
} finally {
  rmSync(work, { recursive: true, force: true });
}
publishSection({ name: "validators", markdown: md.join("\n") });

/** The definitions `--only` names (`set/Definition` or `set`, comma-separated), or all. */
function selectDefinitions(all, only) {
  if (!only) return all;
  const wanted = only.split(",").map((s) => s.trim()).filter(Boolean);
  const picked = all.filter((d) => wanted.some((w) => w === d.set || w === `${d.set}/${d.name}`));
  const unknown = wanted.filter((w) => !all.some((d) => w === d.set || w === `${d.set}/${d.name}`));
  if (unknown.length) usageError(`--only: no hot-path definition ${unknown.join(", ")} (known: ${all.map((d) => `${d.set}/${d.name}`).join(", ")})`);
  return picked;
}

/** Whether the generated folder matches what the generator makes now, so stale numbers cannot pass unnoticed. */
function generatedState() {
  const check = spawnSync(process.execPath, [join(root, "dist/generator/cli/main.js"), "--check"], { cwd: root, encoding: "utf8" });
  return check.status === 0 ? "`mcp-tasks-gen --check`: up to date" : check.status === 1 ? "STALE: run `npm run generate`" : `not checked: exit ${check.status}`;
}

/**
 * One definition's own-process results from several processes: its inputs and contenders as the first reports
 * them, every problem any reports, and each measured number (ops/s, round-by-round quartiles of ratios) the
 * median over the processes (ratios in the tables are then of those medians).
 */
function mergeRuns(results) {
  const [first] = results;
  const merged = { ...first, problems: [...new Set(results.flatMap((r) => r.problems))] };
  for (const key of ["is", "isSpread", "validate", "validateSpread", "perInput"]) {
    const value = medianOfRuns(results.map((r) => r[key]));
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** The results of one measuring process; one that fails leaves its definitions unmeasured, with its error. */
function runChild(jobText, ids) {
  try {
    const out = execFileSync(process.execPath, [join(root, "bench/lib/hot-path-run.mjs"), jobText], { encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "inherit"] });
    return JSON.parse(out.trim().split("\n").at(-1)).results;
  } catch (error) {
    process.exitCode = 1;
    const reason = `the measuring process failed (exit ${error.status ?? error.code}; its error is printed above the tables)`;
    return ids.map((id) => ({ id, set: id.split("/")[0], name: id.split("/")[1], inputs: { valid: [], invalid: [] }, contenders: {}, problems: [reason] }));
  }
}

/** A seeded Fisher–Yates shuffle (mulberry32), so an order can be run again with `--seed`. */
function shuffled(items, seedValue) {
  let a = seedValue >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function hotPathTables(own, together) {
  // Per goal: how many rows meet it, and the worst row (ratio of ours to what the goal compares with).
  // A row's `cells`: every ratio the goal asks of it, each `{ ratio, spread }` with the round-by-round quartiles of
  // that ratio (bench/lib/measure.mjs `ratioSpread`). A row that misses, where the upper quartile of every missed
  // cell reaches the target, is counted apart: it missed by less than this run's rounds varied by.
  const goals = new Map();
  const tally = (goal, id, cells, target) => {
    const g = goals.get(goal) ?? goals.set(goal, { met: 0, withinSpread: 0, rows: 0, worst: undefined }).get(goal);
    const missed = cells.filter((c) => c.ratio < target);
    const ratio = Math.min(...cells.map((c) => c.ratio));
    g.rows++;
    if (missed.length === 0) g.met++;
    else if (missed.every((c) => c.spread !== undefined && c.spread.high >= target)) g.withinSpread++;
    if (!g.worst || ratio / target < g.worst.ratio / g.worst.target) g.worst = { id, ratio, target };
    return ratio;
  };
  md.push("", "#### Definitions and inputs", "");
  md.push("Every definition a generated client or server checks per message; inputs built from its schema, the same for every contender. A contender is timed only where it gives ajv's verdict on every input.", "");
  md.push("| Definition | Kind | Valid inputs | Invalid inputs | Not timed |", "| --- | --- | --- | --- | --- |");
  const kindOf = Object.fromEntries(hotPath.map((d) => [`${d.set}/${d.name}`, d.kind]));
  for (const r of own) {
    const notTimed = Object.entries(r.contenders)
      .filter(([, c]) => c.status !== "agrees")
      .map(([name, c]) => `${name}: ${c.status} (${c.reason})`);
    const problems = r.problems.map((p) => `PROBLEM: ${p}`);
    md.push(`| ${r.id} | ${kindOf[r.id]} | ${r.inputs.valid.join(", ")} | ${r.inputs.invalid.join(", ")} | ${[...problems, ...notTimed].join("; ") || "—"} |`);
  }

  for (const [title, rows] of [
    ["each definition in its own process", own],
    [
      `all definitions in one process, interleaved in a shuffled order (seed ${seed}; ${[...together.values()][0]?.rounds ?? 0} rounds)`,
      hotPath.map((d) => together.get(`${d.set}/${d.name}`)),
    ],
  ]) {
    md.push("", `#### \`is\`: ${title}`, "");
    const over = rows === own ? `, and the median of that over ${processes} fresh process${processes === 1 ? "" : "es"}` : "";
    md.push(`Ours in ops/s (median over interleaved rounds${over}), then ours ÷ each contender; ✓ when ours ≥ 1× the fastest other on both valid and invalid inputs.`, "");
    md.push(`| Definition | ours valid | ${OTHERS.map((o) => `÷ ${o}`).join(" | ")} | ours invalid | ${OTHERS.map((o) => `÷ ${o}`).join(" | ")} | goal |`);
    md.push(`| --- |${" ---: |".repeat(2 + 2 * OTHERS.length)} :---: |`);
    for (const r of rows) {
      if (!r?.is?.ours) {
        md.push(`| ${r?.id ?? "?"} | not measured |${" |".repeat(2 * OTHERS.length + 1)} — |`);
        continue;
      }
      const cells = (group) => OTHERS.map((o) => (r.is[o] ? times(r.is.ours[group] / r.is[o][group]) : "—"));
      const cellsOf = OTHERS.filter((o) => r.is[o]).flatMap((o) => ["valid", "invalid"].map((g) => ({ ratio: r.is.ours[g] / r.is[o][g], spread: r.isSpread?.[o]?.[g] })));
      const worst = tally(`\`is\` ≥ 1× the fastest other, valid and invalid: ${title.split(",")[0]}`, r.id, cellsOf, 1);
      md.push(`| ${r.id} | ${ops(r.is.ours.valid)} | ${cells("valid").join(" | ")} | ${ops(r.is.ours.invalid)} | ${cells("invalid").join(" | ")} | ${worst >= 1 ? "✓" : "✗"} |`);
    }
  }

  md.push("", "#### `validate` on invalid inputs (verdict with errors)", "");
  md.push(
    `Like for like: ours asked for the first error (\`validateX(value, { abortEarly: true })\`) against ajv's default (first error), and ours by default (every error: the first 50 and their count) against ajv \`allErrors\`; ajv's time includes reading \`.errors\`. Ours in ops/s (own process: the median over ${processes} fresh process${processes === 1 ? "" : "es"}), then ours ÷ ajv in its own process and in the shuffled one-process run. ✓ when the first-error ratio is ≥ 1× in both orders (≥ 3× for GetTaskResult).`,
    "",
  );
  md.push("| Definition | first error: ours | ÷ ajv, own process | ÷ ajv, one process | every error: ours | ÷ ajv allErrors, own process | ÷ ajv allErrors, one process | goal |");
  md.push("| --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: |");
  for (const r of own) {
    const t = together.get(r.id);
    if (!r.validate || !t?.validate) {
      md.push(`| ${r.id} | not measured | | | | | | — |`);
      continue;
    }
    const target = r.name === "GetTaskResult" ? 3 : 1;
    const first = (v) => v["ours first error"].invalid / v.ajv.invalid;
    const every = (v) => v.ours.invalid / v["ajv allErrors"].invalid;
    const worstFirst = tally(
      "`validate`, first error, on invalid inputs ≥ 1× ajv default (3× for GetTaskResult), both orders",
      r.id,
      [r, t].map((x) => ({ ratio: first(x.validate), spread: x.validateSpread?.first })),
      target,
    );
    tally(
      "`validate`, every error, on invalid inputs ≥ 1× ajv allErrors, both orders",
      r.id,
      [r, t].map((x) => ({ ratio: every(x.validate), spread: x.validateSpread?.every })),
      1,
    );
    md.push(
      `| ${r.id} | ${ops(r.validate["ours first error"].invalid)} | ${times(first(r.validate))} | ${times(first(t.validate))} | ${ops(r.validate.ours.invalid)} | ${times(every(r.validate))} | ${times(every(t.validate))} | ${worstFirst >= target ? "✓" : "✗"} |`,
    );
  }
  if (values["per-input"]) perInputTable(own);
  md.push("", "#### Speed goals in this run", "");
  md.push(
    "A definition meets a goal when its median ratio does. Each ratio is also taken round by round (both contenders timed in the same round; in the own-process tables, the quartiles are the median over the processes of each process's); a definition that misses the goal while the upper quartile of its rounds' ratios reaches it is counted in the third column: it missed by less than this run's rounds varied by.",
    "",
  );
  md.push("| Goal | Definitions meeting it | Missing it within the rounds' spread | Furthest from it |", "| --- | ---: | ---: | --- |");
  for (const [goal, g] of goals) {
    md.push(`| ${goal} | ${g.met} of ${g.rows} | ${g.withinSpread} | ${g.worst ? `${g.worst.id} ${times(g.worst.ratio)}${g.worst.target === 1 ? "" : ` (goal ${g.worst.target}×)`}` : "—"} |`);
  }
}

/** `--per-input`: `validate` on each invalid input alone (own process), in ns per call. */
function perInputTable(own) {
  md.push("", "#### `validate` per invalid input (each definition in its own process; ns per call)", "");
  md.push(
    "| Definition | Input | ours, first error | ajv | ours, every error | ajv allErrors | first error: ours speed ÷ ajv | every error: ours speed ÷ ajv allErrors |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const r of own) {
    if (!r.perInput) continue;
    for (const label of r.inputs.invalid) {
      const ns = ["ours first error", "ajv", "ours", "ajv allErrors"].map((c) => 1e9 / r.perInput[c][label]);
      md.push(`| ${r.id} | ${label} | ${ns.map((n) => n.toFixed(0)).join(" | ")} | ${times(ns[1] / ns[0])} | ${times(ns[3] / ns[2])} |`);
    }
  }
}

/** The `unevaluatedProperties` row: `Event` of bench/lib/unevaluated.mjs, ours against Ajv2020 (ratios only). */
async function unevaluatedTable() {
  const { ours, ajv } = await unevaluatedContenders(root, work);
  const inputs = unevaluatedInputs;
  const wrong = [...inputs.valid, ...inputs.invalid].filter((i) => ours.isEvent(i.value) !== i.valid || ajv.standard(i.value) !== i.valid || ours.validateEvent(i.value).ok !== i.valid);
  md.push("", "#### `unevaluatedProperties`: an event closed by composition (bench/lib/unevaluated.mjs)", "");
  if (wrong.length) {
    md.push(`Not measured: the contenders disagree on ${wrong.map((i) => i.label).join(", ")}.`);
    process.exitCode = 1;
    return;
  }
  const groups = { valid: inputs.valid.map((i) => i.value), invalid: inputs.invalid.map((i) => i.value) };
  const bool = (b) => (b ? 1 : 0);
  const errs = (validate) => (v) => (validate(v) ? null : validate.errors);
  const count = (e) => (e === null ? 1 : e.length);
  const is = measure(
    [
      { name: "isEvent (ours)", call: ours.isEvent, score: bool },
      { name: "ajv (default)", call: ajv.standard, score: bool },
    ],
    groups,
    { seconds },
  );
  const validate = measure(
    [
      { name: "validateEvent (ours)", call: ours.validateEvent, score: (r) => (r.ok ? 1 : r.errors.length) },
      { name: "ajv (default) + .errors", call: errs(ajv.standard), score: count },
      { name: "ajv (allErrors) + .errors", call: errs(ajv.allErrors), score: count },
    ],
    groups,
    { seconds },
  );
  md.push("| Contender | valid ops/s | invalid ops/s | valid ÷ ajv default | invalid ÷ ajv default |", "| --- | ---: | ---: | ---: | ---: |");
  for (const run of [is, validate]) {
    const base = run.results[1];
    for (const r of run.results) md.push(`| ${r.name} | ${ops(r.opsPerSec.valid)} | ${ops(r.opsPerSec.invalid)} | ${times(r.opsPerSec.valid / base.opsPerSec.valid)} | ${times(r.opsPerSec.invalid / base.opsPerSec.invalid)} |`);
  }
  md.push(`(${inputs.valid.length} valid, ${inputs.invalid.length} invalid inputs; sink ${is.sink + validate.sink})`);
}

function sizeTable(transpiled) {
  const kinds = ["ts", "js", "jsBare", "ajv"];
  const size = (text) => ({ bytes: Buffer.byteLength(text), gzip: gzipSync(text).length });
  const rows = config.sets.map((set) => {
    const files = transpiled.get(set.name);
    const pick = (kind) => ["validators.ts", "runtime/protocol/json.ts"].map((name) => files.get(name)?.[kind] ?? "").join("\n");
    const exportedNames = new Set([...(files.get("validators.ts")?.ts.matchAll(/^export function is([A-Z]\w*)/gm) ?? [])].map((m) => m[1]));
    const ajvOut = ajvStandalone(set, root, (name) => exportedNames.has(name));
    return { name: set.name, exports: `${exportedNames.size} / ${ajvOut.exports}`, ts: size(pick("ts")), js: size(pick("js")), jsBare: size(pick("jsBare")), ajv: size(ajvOut.code) };
  });
  // Sets ship separately, so the total adds their sizes (and their gzip sizes).
  const sum = (kind, field) => rows.reduce((n, r) => n + r[kind][field], 0);
  const total = { name: "total", exports: "", ...Object.fromEntries(kinds.map((k) => [k, { bytes: sum(k, "bytes"), gzip: sum(k, "gzip") }])) };
  const cell = (s) => `${kb(s.bytes)} (${kb(s.gzip)})`;
  md.push("", "#### Size: the generated validators.ts + runtime/protocol/json.ts beside ajv standalone (ESM) for the same schemas", "");
  md.push("Bytes (gzip). Goal: ours as JavaScript ≤ 0.5× ajv standalone over all sets (the total).", "");
  md.push("| Set | Validators ours / ajv | Ours TS | Ours JS | Ours JS, no comments | ajv standalone | JS ÷ ajv | JS, no comments ÷ ajv | JS gzip ÷ ajv gzip |");
  md.push("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of [...rows, total]) {
    md.push(`| ${r.name} | ${r.exports} | ${cell(r.ts)} | ${cell(r.js)} | ${cell(r.jsBare)} | ${cell(r.ajv)} | ${times(r.js.bytes / r.ajv.bytes)}${r === total ? (r.js.bytes / r.ajv.bytes <= 0.5 ? " ✓" : " ✗") : ""} | ${times(r.jsBare.bytes / r.ajv.bytes)} | ${times(r.js.gzip / r.ajv.gzip)} |`);
  }
  md.push("", "(Validators: exported `isX` of ours (every definition plus named inline parts) / exported ajv functions (every definition, a titled root, and the core definitions ours generates).)");
}

function ops(n) {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : `${(n / 1e3).toFixed(0)} k`;
}
function kb(bytes) {
  return `${(bytes / 1000).toFixed(1)} kB`;
}
function times(r) {
  return `${r.toFixed(2)}×`;
}
