// `npm run bench`: speed and size of the generated validators against ajv.
//
// Speed, in one process and interleaved: the generated `isGetTaskResult` and
// `validateGetTaskResult` of the newest extension revision (ext-tasks-draft) and of the previous one
// (ext-tasks-2026-05-22), each against ajv compiled from the same seed schema (`#/$defs/GetTaskResult`;
// default options, and `allErrors: true` since ours reports every error), and for the previous one a
// small hand-written check, on valid messages of each status and on typical invalid ones; then `validate` and ajv on each invalid message alone. Goals: `is` at least 3× ajv on valid
// and 5× on invalid messages; `validate` at least on par with ajv while producing its richer errors.
// Then `unevaluatedProperties` (bench/lib/unevaluated.mjs): an event closed by composition, ours
// against Ajv2020 on the same inputs, the same tables (ratios only; the goals are GetTaskResult's).
// Size: the generated validators.ts + runtime/protocol/json.ts of every set (and the same transpiled to
// JavaScript) beside ajv's standalone code for the same schemas.
//
// Usage: node bench/validators.mjs [--seconds S]  (or BENCH_SECONDS=S: measured seconds per speed table, default 3)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { ajvStandalone } from "./lib/ajv-standalone.mjs";
import { transpileSet } from "./lib/generated.mjs";
import { measure } from "./lib/measure.mjs";
import { handIsGetTaskResult, inputsBySet } from "./lib/messages.mjs";
import { unevaluatedContenders, unevaluatedInputs } from "./lib/unevaluated.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const { values } = parseArgs({ options: { seconds: { type: "string" } } });
const seconds = Number(values.seconds ?? process.env.BENCH_SECONDS ?? 3);
if (!(seconds > 0)) throw new Error(`--seconds expects a positive number, got ${values.seconds ?? process.env.BENCH_SECONDS}`);

const config = JSON.parse(readFileSync(join(root, "mcp-tasks-gen.config.json"), "utf8"));
const outDir = resolve(root, config.outDir ?? "generated");
// The newest revision first, then the previous one (its hand-written check is for its closed shape only).
const benchedSets = [
  { name: "ext-tasks-draft", subject: "GetTaskResult", inputs: inputsBySet["ext-tasks-draft"] },
  { name: "ext-tasks-2026-05-22", subject: "GetTaskResult", inputs: inputsBySet["ext-tasks-2026-05-22"], hand: handIsGetTaskResult },
];

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-bench-validators-"));
try {
  const transpiled = new Map(config.sets.map((set) => [set.name, transpileSet(join(outDir, set.name), join(work, set.name))]));
  printMachine(require("ajv/package.json").version);
  for (const bench of benchedSets) {
    const ours = await import(pathToFileURL(join(work, bench.name, "validators.js")).href);
    const ajv = compileAjv(config.sets.find((s) => s.name === bench.name));
    console.log("");
    console.log(`## ${bench.name}`);
    if (checkAgreement(bench, ours, ajv)) {
      printErrors(bench, ours, ajv);
      speedTables(bench, ours, ajv);
    } else {
      process.exitCode = 1;
    }
  }
  await unevaluatedBench();
  sizeTable(transpiled);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** The `unevaluatedProperties` row: `Event` of bench/lib/unevaluated.mjs, ours against Ajv2020. */
async function unevaluatedBench() {
  const { ours, ajv } = await unevaluatedContenders(root, work);
  const bench = { name: "bench/lib/unevaluated.mjs", subject: "Event", inputs: unevaluatedInputs };
  console.log("");
  console.log("## unevaluatedProperties");
  if (checkAgreement(bench, ours, ajv)) {
    printErrors(bench, ours, ajv);
    speedTables(bench, ours, ajv);
  } else {
    process.exitCode = 1;
  }
}

/** `GetTaskResult` compiled by ajv from the seed schema, with default options and with allErrors. */
function compileAjv(set) {
  const Ajv2020 = require("ajv/dist/2020").default;
  const schema = JSON.parse(readFileSync(resolve(root, set.schemas[0]), "utf8"));
  const compile = (options) => {
    // validateFormats: false keeps `format` an annotation, as the generator does (and as in bench/lib/ajv-standalone.mjs).
    const ajv = new Ajv2020({ strict: false, validateFormats: false, ...options });
    ajv.addSchema(schema);
    const validate = ajv.getSchema(`${schema.$id}#/$defs/GetTaskResult`);
    if (!validate) throw new Error(`ajv found no GetTaskResult in ${set.schemas[0]}`);
    return validate;
  };
  return { standard: compile({}), allErrors: compile({ allErrors: true }) };
}

function printMachine(ajvVersion) {
  console.log(
    `Machine: Node ${process.version}, ${cpus()[0]?.model.trim() ?? "unknown CPU"}, ${cpus().length} cores, ${process.platform} ${process.arch}; ajv ${ajvVersion}`,
  );
  console.log(`Command: npm run bench (node bench/validators.mjs --seconds ${seconds})`);
  // The bench reads the generated folder as it is; say whether it matches what the generator
  // makes now, so stale numbers cannot pass unnoticed.
  const check = spawnSync(process.execPath, [join(root, "dist/generator/cli/main.js"), "--check"], { cwd: root, encoding: "utf8" });
  const state = check.status === 0 ? "up to date" : check.status === 1 ? "STALE (run `npm run generate`)" : `not checked (exit ${check.status}: ${check.stderr.trim()})`;
  console.log(`Generated code: ${relative(root, outDir)}/ (mcp-tasks-gen --check: ${state})`);
}

/**
 * Whether every contender gives every input its expected verdict (printing any disagreement):
 * without that the timings would compare different work, so nothing is measured.
 */
function checkAgreement({ name, subject, inputs, hand }, ours, ajv) {
  const verdicts = {
    [`is${subject}`]: (v) => ours[`is${subject}`](v),
    [`validate${subject}`]: (v) => ours[`validate${subject}`](v).ok,
    ...(hand ? { "hand-written": hand } : {}),
    "ajv (default)": (v) => ajv.standard(v),
    "ajv (allErrors)": (v) => ajv.allErrors(v),
  };
  const wrong = [];
  for (const input of [...inputs.valid, ...inputs.invalid]) {
    for (const [name, verdict] of Object.entries(verdicts)) {
      if (verdict(input.value) !== input.valid) wrong.push(`${name} calls "${input.label}" ${input.valid ? "invalid" : "valid"}`);
    }
    const result = ours[`validate${subject}`](input.value);
    if (!result.ok && result.errors.length === 0) wrong.push(`validate${subject} gives no error for "${input.label}"`);
  }
  if (wrong.length > 0) {
    console.error(`Contenders disagree on the inputs, so nothing is measured:\n  ${wrong.join("\n  ")}`);
    return false;
  }
  console.log(`Inputs: ${subject} (${name}), ${inputs.valid.length} valid${subject === "GetTaskResult" ? " (one per status)" : ""}, ${inputs.invalid.length} invalid; all contenders agree on every verdict.`);
  return true;
}

/** What each side reports for the invalid inputs: the "richer errors" `validate` pays for. */
function printErrors({ subject, inputs }, ours, ajv) {
  console.log("");
  console.log(`Errors reported per invalid input (ours: validate${subject}; ajv: allErrors):`);
  for (const { label, value } of inputs.invalid) {
    const result = ours[`validate${subject}`](value);
    ajv.allErrors(value);
    const ajvErrors = ajv.allErrors.errors ?? [];
    const oursText = result.errors.map((e) => `${e.path || "(root)"}: ${e.message}`).join("; ");
    const ajvText = ajvErrors.map((e) => `${e.instancePath || "(root)"} ${e.message}`).join("; ");
    console.log(`- ${label}: ours ${result.errors.length} [${oursText}]; ajv ${ajvErrors.length} [${clip(ajvText, 160)}]`);
  }
}

function speedTables({ subject, inputs, hand }, ours, ajv) {
  const bool = (b) => (b ? 1 : 0);
  const ajvErrors = (validate) => (v) => (validate(v) ? null : validate.errors);
  const errorCount = (errors) => (errors === null ? 1 : errors.length);

  const is = measure(
    [
      { name: `is${subject} (ours)`, call: ours[`is${subject}`], score: bool },
      ...(hand ? [{ name: "hand-written", call: hand, score: bool }] : []),
      { name: "ajv (default)", call: ajv.standard, score: bool },
    ],
    { valid: inputs.valid.map((i) => i.value), invalid: inputs.invalid.map((i) => i.value) },
    { seconds },
  );
  const validateContenders = [
    { name: `validate${subject} (ours)`, call: ours[`validate${subject}`], score: (r) => (r.ok ? 1 : r.errors.length) },
    { name: "ajv (default) + .errors", call: ajvErrors(ajv.standard), score: errorCount },
    { name: "ajv (allErrors) + .errors", call: ajvErrors(ajv.allErrors), score: errorCount },
  ];
  const validate = measure(
    validateContenders,
    { valid: inputs.valid.map((i) => i.value), invalid: inputs.invalid.map((i) => i.value) },
    { seconds },
  );

  // Where `validate` spends its time on invalid messages: each input alone (shorter run).
  const perInput = measure(
    validateContenders,
    Object.fromEntries(inputs.invalid.map((i) => [i.label, [i.value]])),
    { seconds: seconds / 2, batchMs: 1 },
  );

  console.log("");
  console.log(`Speed: boolean verdict (median ops/s over ${is.rounds} interleaved rounds; ratio = contender / ajv default)`);
  speedTable(is, "ajv (default)");
  console.log("");
  console.log(`Speed: verdict with errors (median ops/s over ${validate.rounds} interleaved rounds; ratios vs each ajv)`);
  speedTable(validate, "ajv (default) + .errors", "ajv (allErrors) + .errors");

  console.log("");
  console.log(`Invalid messages one by one, verdict with errors (median ns per call over ${perInput.rounds} interleaved rounds)`);
  console.log(`| Input | ${perInput.results.map((r) => r.name.replace(/ \+ \.errors$/, "")).join(" | ")} | ours speed / ajv (default) |`);
  console.log(`| --- |${" ---: |".repeat(perInput.results.length + 1)}`);
  for (const { label } of inputs.invalid) {
    const ns = perInput.results.map((r) => 1e9 / r.opsPerSec[label]);
    console.log(`| ${label} | ${ns.map((n) => n.toFixed(0)).join(" | ")} | ${times(ns[1] / ns[0])} |`);
  }

  // The goals are GetTaskResult's; other rows report their ratios only.
  if (subject !== "GetTaskResult") {
    console.log(`(sink ${is.sink + validate.sink + perInput.sink})`);
    return;
  }
  const isOurs = is.results.find((r) => r.name === `is${subject} (ours)`);
  const isAjv = is.results.find((r) => r.name === "ajv (default)");
  const [valOurs, valAjv, valAjvAll] = validate.results;
  const x = (a, b, group) => a.opsPerSec[group] / b.opsPerSec[group];
  const goals = [
    [`is${subject} ≥ 3× ajv (default), valid messages`, x(isOurs, isAjv, "valid"), 3],
    [`is${subject} ≥ 5× ajv (default), invalid messages`, x(isOurs, isAjv, "invalid"), 5],
    [`validate${subject} ≥ 1× ajv (allErrors), valid messages`, x(valOurs, valAjvAll, "valid"), 1],
    [`validate${subject} ≥ 1× ajv (allErrors), invalid messages`, x(valOurs, valAjvAll, "invalid"), 1],
    [`validate${subject} ≥ 1× ajv (default), valid messages`, x(valOurs, valAjv, "valid"), 1],
    [`validate${subject} ≥ 1× ajv (default), invalid messages`, x(valOurs, valAjv, "invalid"), 1],
  ];
  console.log("");
  console.log("Goals:");
  for (const [goal, ratio, target] of goals) console.log(`- ${ratio >= target ? "met" : "NOT met"}: ${goal} (measured ${ratio.toFixed(2)}×)`);
  // Printed so no result can be optimized away; the value itself means nothing.
  console.log(`(sink ${is.sink + validate.sink + perInput.sink})`);
}

function speedTable({ results }, ...baselines) {
  const base = baselines.map((name) => results.find((r) => r.name === name));
  const ratioHeads = baselines.map((b) => ` valid/${b.replace(/ \+ \.errors$/, "")} | invalid/${b.replace(/ \+ \.errors$/, "")} |`).join("");
  console.log(`| Contender | valid ops/s | invalid ops/s |${ratioHeads}`);
  console.log(`| --- | ---: | ---: |${" ---: | ---: |".repeat(baselines.length)}`);
  for (const r of results) {
    const ratios = base.map((b) => ` ${times(r.opsPerSec.valid / b.opsPerSec.valid)} | ${times(r.opsPerSec.invalid / b.opsPerSec.invalid)} |`).join("");
    console.log(`| ${r.name} | ${ops(r.opsPerSec.valid)} | ${ops(r.opsPerSec.invalid)} |${ratios}`);
  }
}

function sizeTable(transpiled) {
  const kinds = ["ts", "js", "jsBare", "ajv"];
  const size = (text) => ({ bytes: Buffer.byteLength(text), gzip: gzipSync(text).length });
  const rows = config.sets.map((set) => {
    const files = transpiled.get(set.name);
    const pick = (kind) => ["validators.ts", "runtime/protocol/json.ts"].map((name) => files.get(name)?.[kind] ?? "").join("\n");
    const exportedNames = new Set([...(files.get("validators.ts")?.ts.matchAll(/^export function is([A-Z]\w*)/gm) ?? [])].map((m) => m[1]));
    const ajvOut = ajvStandalone(set, root, (name) => exportedNames.has(name));
    const exported = exportedNames.size;
    return { name: set.name, exports: `${exported} / ${ajvOut.exports}`, ts: size(pick("ts")), js: size(pick("js")), jsBare: size(pick("jsBare")), ajv: size(ajvOut.code) };
  });
  // Sets ship separately, so the total adds their sizes (and their gzip sizes).
  const sum = (kind, field) => rows.reduce((n, r) => n + r[kind][field], 0);
  const total = { name: "total", exports: "", ...Object.fromEntries(kinds.map((k) => [k, { bytes: sum(k, "bytes"), gzip: sum(k, "gzip") }])) };

  const cell = (s) => `${kb(s.bytes)} (${kb(s.gzip)})`;
  console.log("");
  console.log("Size: bytes (gzip) of the generated validators.ts + runtime/protocol/json.ts, the same transpiled to JS, and ajv standalone (ESM) for the same schemas");
  console.log("| Set | Validators ours / ajv | Ours TS | Ours JS | Ours JS, no comments | ajv standalone | JS / ajv | JS gzip / ajv gzip |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of [...rows, total]) {
    console.log(
      `| ${r.name} | ${r.exports} | ${cell(r.ts)} | ${cell(r.js)} | ${cell(r.jsBare)} | ${cell(r.ajv)} | ${times(r.js.bytes / r.ajv.bytes)} | ${times(r.js.gzip / r.ajv.gzip)} |`,
    );
  }
  console.log("(Validators: exported `isX` of ours (every definition plus named inline parts) / exported ajv functions (every definition, a titled root, and the core definitions ours generates).)");
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
function clip(text, n) {
  return text.length > n ? `${text.slice(0, n)}…` : text;
}
