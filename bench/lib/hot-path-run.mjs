// The measuring process of `npm run bench` (started by bench/validators.mjs, one per definition or one for all).
// argv[2] is a JSON job: { root, work, definitions: ["set/Name", …], kinds, seconds, together, perInput }. For
// each definition: build the inputs (bench/lib/hot-path-inputs.mjs) and check that every contender gives ajv's
// verdict on every input (a contender that cannot express the definition or disagrees is reported, not timed).
// Then time `is` (ours, typia, TypeBox, ajv default; valid and invalid inputs) and `validate` on the invalid
// inputs (ours, ajv default and allErrors with their errors; with `perInput`, also each invalid input alone),
// contenders interleaved round by round — definition after definition, or with `together` all definitions'
// contenders interleaved in every round, in the order given (as in a server that sees every kind of message).
// Writes one JSON line to stdout.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ajvForSet, oursForSet, otherContenders } from "./contenders.mjs";
import { buildInputs } from "./hot-path-inputs.mjs";
import { measure, measureInterleaved, ratioSpread } from "./measure.mjs";

const job = JSON.parse(process.argv[2]);
// Short runs still warm each table long enough for V8 to optimize every contender (a tenth of 0.2 s is not).
const WARM_SECONDS = Math.max(0.15, job.seconds / 4);
const config = JSON.parse(readFileSync(join(job.root, "mcp-tasks-gen.config.json"), "utf8"));
const ajvBySet = new Map();
const oursBySet = new Map();

const prepared = [];
for (const id of job.definitions) {
  const [setName, name] = id.split("/");
  const set = config.sets.find((s) => s.name === setName);
  if (!ajvBySet.has(setName)) ajvBySet.set(setName, ajvForSet(set, job.root));
  if (!oursBySet.has(setName)) oursBySet.set(setName, await oursForSet(job.work, setName));
  const ajv = ajvBySet.get(setName);
  const ours = oursBySet.get(setName);
  const compiled = ajv.compile(name);
  const kind = job.kinds[id];
  const inputs = buildInputs({ schema: compiled.schema, doc: compiled.doc, kind, resolveRef: ajv.resolveRef, judge: (v) => compiled.standard(v) });
  const entry = { id, set: setName, name, inputs: { valid: inputs.valid.map((i) => i.label), invalid: inputs.invalid.map((i) => i.label) }, contenders: {}, problems: [] };
  prepared.push({ entry, inputs });
  if (inputs.problem) {
    entry.problems.push(inputs.problem);
    continue;
  }
  const all = [...inputs.valid, ...inputs.invalid];
  const candidates = [
    { name: "ours", is: ours[`is${name}`] },
    ...(await otherContenders({ job, set, name, compiled, ajv })),
    { name: "ajv", is: compiled.standard },
    { name: "ajv allErrors", is: compiled.allErrors },
  ];
  const is = [];
  for (const c of candidates) {
    if (c.refused) {
      entry.contenders[c.name] = { status: "cannot express", reason: c.refused };
      continue;
    }
    const wrong = all.filter((input) => c.is(input.value) !== input.valid).map((input) => `${input.label} (${input.valid ? "valid" : "invalid"})`);
    entry.contenders[c.name] = wrong.length ? { status: "disagrees", reason: `calls ${wrong.join(", ")} the other way` } : { status: "agrees" };
    if (!wrong.length && c.name !== "ajv allErrors") is.push(c);
  }
  // `validate`: ours must give ajv's verdict and at least one error for each invalid input, in both modes
  // (exactly one error when asked to stop at the first, as ajv's default does).
  const firstError = { abortEarly: true };
  const validateWrong = all.filter((input) => {
    const r = ours[`validate${name}`](input.value);
    const first = ours[`validate${name}`](input.value, firstError);
    return r.ok !== input.valid || (!r.ok && r.errors.length === 0) || first.ok !== input.valid || (!first.ok && first.errors.length !== 1);
  });
  if (validateWrong.length) entry.problems.push(`validate${name} disagrees on ${validateWrong.map((i) => i.label).join(", ")}`);
  prepared.at(-1).is = is;
  prepared.at(-1).validate = validateWrong.length
    ? []
    : [
        { name: "ours", call: ours[`validate${name}`], score: (r) => (r.ok ? 1 : r.errors.length) },
        { name: "ours first error", call: firstErrorOf(ours[`validate${name}`], firstError, id), score: (r) => (r.ok ? 1 : r.errors.length) },
        { name: "ajv", call: ajvErrorsOf(compiled.standard, `${id} default`), score: (e) => (e === null ? 1 : e.length) },
        { name: "ajv allErrors", call: ajvErrorsOf(compiled.allErrors, `${id} allErrors`), score: (e) => (e === null ? 1 : e.length) },
      ];
}

/**
 * A one-argument call with its own code per definition (`label`): a closure shared by every definition
 * would make its inner call site megamorphic in the one-process run, which no caller in a real program
 * has (bench/lib/measure.mjs `makeLoop` does the same for the loops). `body` reads `validate` and `options`.
 */
function ownCall(label, body, validate, options) {
  return new Function("validate", "options", `// ${JSON.stringify(label)}\nreturn (value) => ${body};`)(validate, options);
}

/** `validate(value, options)` as a one-argument call, the function and options bound once. */
function firstErrorOf(validate, options, label) {
  return ownCall(`ours first error: ${label}`, "validate(value, options)", validate, options);
}

/** ajv's verdict and `.errors`. */
function ajvErrorsOf(validate, label) {
  return ownCall(`ajv errors: ${label}`, "(validate(value) ? null : validate.errors)", validate, undefined);
}

/**
 * Round-by-round spread of ours ÷ each other contender (`ratioSpread`), per input group, from each contender's
 * per-round ops/s by group.
 */
function isSpreads(samples) {
  const spreads = {};
  for (const [name, groups] of Object.entries(samples)) {
    if (name === "ours") continue;
    spreads[name] = Object.fromEntries(Object.keys(groups).map((g) => [g, ratioSpread(samples.ours[g], groups[g])]));
  }
  return spreads;
}

/** The same for `validate` on invalid inputs: ours first error ÷ ajv default, ours every error ÷ ajv allErrors. */
function validateSpreads(samples) {
  return {
    first: ratioSpread(samples["ours first error"].invalid, samples.ajv.invalid),
    every: ratioSpread(samples.ours.invalid, samples["ajv allErrors"].invalid),
  };
}

let sink = 0;
if (job.together) measureTogether();
for (const p of job.together ? [] : prepared) {
  if (!p.is || p.is.length === 0) continue;
  const bool = (b) => (b ? 1 : 0);
  const groups = { valid: p.inputs.valid.map((i) => i.value), invalid: p.inputs.invalid.map((i) => i.value) };
  const isRun = measure(
    p.is.map((c) => ({ name: c.name, call: c.is, score: bool })),
    groups,
    { seconds: job.seconds, minRounds: 9, batchMs: 1, warmSeconds: WARM_SECONDS },
  );
  p.entry.is = Object.fromEntries(isRun.results.map((r) => [r.name, r.opsPerSec]));
  p.entry.isSpread = isSpreads(Object.fromEntries(isRun.results.map((r) => [r.name, r.samples])));
  p.entry.isRounds = isRun.rounds;
  sink += isRun.sink;
  if (p.validate.length) {
    const validateRun = measure(p.validate, { invalid: groups.invalid }, { seconds: job.seconds, minRounds: 9, batchMs: 1, warmSeconds: WARM_SECONDS });
    p.entry.validate = Object.fromEntries(validateRun.results.map((r) => [r.name, r.opsPerSec]));
    p.entry.validateSpread = validateSpreads(Object.fromEntries(validateRun.results.map((r) => [r.name, r.samples])));
    p.entry.validateRounds = validateRun.rounds;
    sink += validateRun.sink;
    if (job.perInput) {
      // Where `validate` spends its time: each invalid input alone.
      const perInput = measure(p.validate, Object.fromEntries(p.inputs.invalid.map((i) => [i.label, [i.value]])), { seconds: job.seconds / 2, minRounds: 9, batchMs: 1, warmSeconds: WARM_SECONDS });
      p.entry.perInput = Object.fromEntries(perInput.results.map((r) => [r.name, r.opsPerSec]));
      sink += perInput.sink;
    }
  }
}
/**
 * All definitions at once: every definition's `is` and `validate` contenders, on each input group, in the job's
 * (shuffled) order, one batch each per round (bench/lib/measure.mjs `measureInterleaved`).
 */
function measureTogether() {
  const bool = (b) => (b ? 1 : 0);
  const tasks = [];
  for (const p of prepared) {
    if (!p.is || p.is.length === 0) continue;
    const groups = { valid: p.inputs.valid.map((i) => i.value), invalid: p.inputs.invalid.map((i) => i.value) };
    for (const group of ["valid", "invalid"]) {
      for (const c of p.is) tasks.push({ p, table: "is", contender: c.name, group, name: `${p.entry.id} is ${c.name} ${group}`, call: c.is, score: bool, inputs: groups[group] });
    }
    for (const c of p.validate) tasks.push({ p, table: "validate", contender: c.name, group: "invalid", name: `${p.entry.id} validate ${c.name}`, call: c.call, score: c.score, inputs: groups.invalid });
  }
  const defs = prepared.filter((p) => p.is?.length).length;
  const run = measureInterleaved(tasks, { seconds: job.seconds * defs, warmSeconds: Math.max(1, (job.seconds * defs) / 8) });
  const samples = new Map(prepared.map((p) => [p, { is: {}, validate: {} }]));
  tasks.forEach((t, i) => {
    const table = (t.p.entry[t.table] ??= {});
    (table[t.contender] ??= {})[t.group] = run.opsPerSec[i];
    (samples.get(t.p)[t.table][t.contender] ??= {})[t.group] = run.samples[i];
  });
  for (const [p, s] of samples) {
    if (p.entry.is) p.entry.isSpread = isSpreads(s.is);
    if (p.entry.validate) p.entry.validateSpread = validateSpreads(s.validate);
  }
  for (const p of prepared) p.entry.rounds = run.rounds;
  sink += run.sink;
}

process.stdout.write(`${JSON.stringify({ results: prepared.map((p) => p.entry), sink })}\n`);
