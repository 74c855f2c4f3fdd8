// `npm run bench:formats`: the format checks of form elicitations (`email`, `uri`, `date`,
// `date-time`) on growing adversarial strings, to show their time grows linearly with the input.
//
// Each case is a string built to make a backtracking check work hard (the `uri` case is the one a
// regular expression of earlier versions took quadratic time on: 16 s at 40 kB), grown ×4 per
// step up to 10 MB, and checked as an accepting answer's field through the generated
// `validateElicitationContent` of the elicitation-codex set, as a host would. Printed per length:
// the median time of a few checks and the time per character. Linear means the time per
// character stays flat (it steps up once the string no longer fits the processor's caches), and
// the last column, how much the time grew over the last step against how much the length grew,
// shows the two near equal (a quadratic check would grow its time by the square, 15×).
//
// Usage: node bench/formats.mjs [--max-length N]  (default 10,000,000 characters)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { transpileSet } from "./lib/generated.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { values } = parseArgs({ options: { "max-length": { type: "string" } } });
const maxLength = Number(values["max-length"] ?? 10_000_000);
if (!(maxLength >= 10_000)) throw new Error(`--max-length expects a number of at least 10000, got ${values["max-length"]}`);

const config = JSON.parse(readFileSync(join(root, "mcp-tasks-gen.config.json"), "utf8"));
const outDir = resolve(root, config.outDir ?? "generated");

/** Adversarial strings by format: `make(n)` gives one of about n characters. */
const CASES = [
  { format: "uri", name: "authority then '#' and a newline (quadratic before)", make: (n) => `a://${"x".repeat(n)}#\n` },
  { format: "uri", name: "long valid path", make: (n) => `https://example.com/${"a".repeat(n)}`, valid: true },
  { format: "uri", name: "percent signs without digits", make: (n) => `a:${"%4".repeat(n / 2)}` },
  { format: "uri", name: "scheme without a colon", make: (n) => "a".repeat(n) },
  { format: "email", name: "dot-string, then no domain", make: (n) => `${"a.".repeat(n / 2)}a@` },
  { format: "email", name: "quoted local part of escapes, unclosed", make: (n) => `"${"\\a".repeat(n / 2)}@example.com` },
  { format: "email", name: "host name of many labels, last one bad", make: (n) => `a@${"a.".repeat(n / 2)}-` },
  { format: "email", name: "long valid local part", make: (n) => `${"a".repeat(n)}@example.com`, valid: true },
  { format: "date", name: "date and trailing digits", make: (n) => `2024-02-29${"0".repeat(n)}` },
  { format: "date-time", name: "fraction of digits, bad zone", make: (n) => `2024-02-29T12:00:00.${"1".repeat(n)}x` },
];

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-bench-formats-"));
try {
  transpileSet(join(outDir, "elicitation-codex"), join(work, "elicitation-codex"));
  const { validateElicitationContent } = await import(pathToFileURL(join(work, "elicitation-codex", "elicitation.js")).href);
  const lengths = [];
  for (let n = 10_000; n <= maxLength; n *= 4) lengths.push(n);
  if (lengths.at(-1) !== maxLength) lengths.push(maxLength);

  console.log(`Node ${process.version}; format checks through validateElicitationContent (elicitation-codex); median of 5 checks per length`);
  // The bench reads the generated folder as it is: say whether it matches what the generator makes now.
  const check = spawnSync(process.execPath, [join(root, "dist/generator/cli/main.js"), "--check"], { cwd: root, encoding: "utf8" });
  const state = check.status === 0 ? "up to date" : check.status === 1 ? "STALE (run `npm run generate`)" : `not checked (exit ${check.status})`;
  console.log(`Generated code: ${relative(root, outDir)}/ (mcp-tasks-gen --check: ${state})`);
  console.log("");
  console.log(`| Format | Case | ${lengths.map((n) => `${chars(n)}: ms (ns/char)`).join(" | ")} | last step: time × / length × |`);
  console.log(`| --- | --- |${" ---: |".repeat(lengths.length + 1)}`);
  let wrong = 0;
  for (const c of CASES) {
    const schema = { type: "object", properties: { field: { type: "string", format: c.format } } };
    const cells = [];
    const perChar = [];
    for (const n of lengths) {
      const text = c.make(n);
      const times = [];
      let verdict;
      for (let run = 0; run < 5; run++) {
        const start = process.hrtime.bigint();
        verdict = validateElicitationContent(schema, { field: text }).ok;
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      if (verdict !== (c.valid === true)) wrong++;
      const ms = median(times);
      perChar.push((ms * 1e6) / text.length);
      cells.push(`${ms.toFixed(2)} (${perChar.at(-1).toFixed(2)})`);
    }
    const [before, last] = [lengths.length - 2, lengths.length - 1].map((i) => ({ ms: (perChar[i] * c.make(lengths[i]).length) / 1e6, chars: c.make(lengths[i]).length }));
    const growth = `${(last.ms / before.ms).toFixed(1)}× / ${(last.chars / before.chars).toFixed(1)}×`;
    console.log(`| ${c.format} | ${c.name} | ${cells.join(" | ")} | ${growth} |`);
  }
  if (wrong > 0) {
    console.error(`${wrong} case(s) got the wrong verdict`);
    process.exitCode = 1;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function chars(n) {
  return n >= 1e6 ? `${n / 1e6} M` : `${n / 1e3} k`;
}
