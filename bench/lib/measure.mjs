// Interleaved throughput measurement for `npm run bench` (bench/validators.mjs).

/**
 * A loop calling `call(input)` over `inputs`, `times` over, returning a number derived from every
 * result (so no call can be dropped as dead code). Each contender gets its own compiled loop
 * (distinct source, hence its own type feedback): one shared loop would make the call site
 * megamorphic and keep V8 from inlining any contender into it.
 */
export function makeLoop(name, call) {
  const source = `// loop for ${JSON.stringify(name)}
    let sink = 0;
    for (let t = 0; t < times; t++) {
      for (let i = 0; i < inputs.length; i++) sink += score(call(inputs[i]));
    }
    return sink;`;
  const loop = new Function("call", "score", "inputs", "times", source);
  return (score, inputs, times) => loop(call, score, inputs, times);
}

const median = (xs) => quantile(xs, 0.5);

/** The `q` quantile of `xs` (linear between the two nearest ranks; 0.5 is the median). */
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const at = (s.length - 1) * q;
  const low = Math.floor(at);
  return s[low] + (s[Math.min(low + 1, s.length - 1)] - s[low]) * (at - low);
}

/**
 * How one contender's speed compares with another's, round by round: `a[i] / b[i]` for each round `i`
 * (both timed in the same round, so they shared its noise), as the quartiles of those ratios. A goal a
 * median ratio misses while `high` reaches it is within what the rounds of this run varied by.
 */
export function ratioSpread(a, b) {
  if (a.length !== b.length || a.length === 0) throw new Error(`ratioSpread: ${a.length} rounds against ${b.length}`);
  const ratios = a.map((x, i) => x / b[i]);
  return { low: quantile(ratios, 0.25), high: quantile(ratios, 0.75) };
}

/**
 * Measures every contender on every input group. A contender is `{ name, call, score }` (`score`
 * turns a result into a number for the sink). In each round every contender runs one batch per
 * group, in an order rotated from round to round, so all of them share the machine's noise; the
 * rounds continue until `seconds` have passed (after a warm-up of `warmSeconds`, by default a tenth of that) and at least
 * `minRounds` were run. Returns per contender and group the median ops/s across rounds and each
 * round's ops/s (`samples`, for `ratioSpread`), and the sink.
 */
export function measure(contenders, groups, { seconds, minRounds = 15, batchMs = 4, warmSeconds = seconds / 10 }) {
  const loops = contenders.map((c) => makeLoop(c.name, c.call));
  const groupNames = Object.keys(groups);
  let sink = 0;
  const runBatch = (ci, group, times) => {
    const start = process.hrtime.bigint();
    sink += loops[ci](contenders[ci].score, groups[group], times);
    return Number(process.hrtime.bigint() - start) / 1e6; // ms
  };

  // Warm-up (lets V8 optimize every loop) and calibration: each group gets a repeat count that
  // makes one batch of the slowest contender take about `batchMs`, judged on the median of the
  // warm-up passes (a single pass may have hit a GC or another process).
  const times = {};
  const msPerRepeat = {};
  for (const group of groupNames) [times[group], msPerRepeat[group]] = [1, []];
  const warmUntil = performance.now() + warmSeconds * 1000;
  do {
    for (const group of groupNames) {
      let slowest = 0;
      for (let ci = 0; ci < loops.length; ci++) slowest = Math.max(slowest, runBatch(ci, group, times[group]));
      msPerRepeat[group].push(slowest / times[group]);
      times[group] = Math.max(1, Math.round(batchMs / 4 / median(msPerRepeat[group].slice(-5)))); // short passes while warming
    }
  } while (performance.now() < warmUntil);
  for (const group of groupNames) times[group] = Math.max(1, Math.round(batchMs / median(msPerRepeat[group].slice(-9))));

  const samples = contenders.map(() => Object.fromEntries(groupNames.map((g) => [g, []])));
  const until = performance.now() + seconds * 1000;
  let rounds = 0;
  while (rounds < minRounds || performance.now() < until) {
    for (let k = 0; k < loops.length; k++) {
      const ci = (k + rounds) % loops.length;
      for (const group of groupNames) {
        const ms = runBatch(ci, group, times[group]);
        samples[ci][group].push((times[group] * groups[group].length * 1000) / ms);
      }
    }
    rounds++;
  }
  const results = contenders.map((c, ci) => ({
    name: c.name,
    opsPerSec: Object.fromEntries(groupNames.map((g) => [g, median(samples[ci][g])])),
    samples: samples[ci],
  }));
  return { results, rounds, sink, times };
}

/**
 * Measures many loops in one process, all interleaved: a task is `{ name, call, score, inputs }`, and each round
 * runs one batch of every task in the order given (starting one task further each round), so every task is
 * timed amid all the others — the call sites they share see every shape in every round. After a warm-up of
 * `warmSeconds` (which also sets each task's repeat count so one batch takes about `batchMs`), rounds continue
 * until `seconds` have passed and at least `minRounds` were run. Returns per task the median ops/s and each round's
 * (`samples`), and the sink.
 */
export function measureInterleaved(tasks, { seconds, minRounds = 9, batchMs = 1, warmSeconds = seconds / 10 }) {
  const loops = tasks.map((t) => makeLoop(t.name, t.call));
  let sink = 0;
  const runBatch = (i, times) => {
    const start = process.hrtime.bigint();
    sink += loops[i](tasks[i].score, tasks[i].inputs, times);
    return Number(process.hrtime.bigint() - start) / 1e6; // ms
  };
  const times = tasks.map(() => 1);
  const msPerRepeat = tasks.map(() => []);
  const warmUntil = performance.now() + warmSeconds * 1000;
  do {
    for (let i = 0; i < tasks.length; i++) {
      msPerRepeat[i].push(runBatch(i, times[i]) / times[i]);
      times[i] = Math.max(1, Math.round(batchMs / 4 / median(msPerRepeat[i].slice(-5))));
    }
  } while (performance.now() < warmUntil);
  for (let i = 0; i < tasks.length; i++) times[i] = Math.max(1, Math.round(batchMs / median(msPerRepeat[i].slice(-9))));

  const samples = tasks.map(() => []);
  const until = performance.now() + seconds * 1000;
  let rounds = 0;
  while (rounds < minRounds || performance.now() < until) {
    for (let k = 0; k < tasks.length; k++) {
      const i = (k + rounds) % tasks.length;
      samples[i].push((times[i] * tasks[i].inputs.length * 1000) / runBatch(i, times[i]));
    }
    rounds++;
  }
  return { opsPerSec: samples.map(median), samples, rounds, sink };
}

/**
 * Several measurements of the same thing (`trees`: each a nested object of numbers, as one measuring process
 * reports them) as one: each number the median of that number over the trees that have it. A fresh process
 * can settle on different optimized code for one contender (a call inlined or not), which moves that
 * contender's speed by a fifth or more in that process alone; the median of three processes leaves such an
 * outlier out, where a single process reports it. A key missing from every tree is left out.
 */
export function medianOfRuns(trees) {
  const present = trees.filter((t) => t !== undefined && t !== null);
  if (present.length === 0) return undefined;
  if (present.every((t) => typeof t === "number")) return median(present);
  if (present.some((t) => typeof t !== "object")) throw new Error(`medianOfRuns: mixed ${[...new Set(present.map((t) => typeof t))].join(" and ")}`);
  const keys = [...new Set(present.flatMap((t) => Object.keys(t)))];
  return Object.fromEntries(keys.map((k) => [k, medianOfRuns(present.map((t) => t[k]))]).filter(([, v]) => v !== undefined));
}
