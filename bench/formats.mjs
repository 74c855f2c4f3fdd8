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
// Usage: node bench/formats.mjs [--max-length N] [--write]  (default 10,000,000 characters; --write: README's
// table, see lib/results.mjs)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { transpileSet } from "./lib/generated.mjs";
import { generatedState } from "./lib/generated-state.mjs";
import { benchOptions, markdownTable, publishSection, usageError } from "./lib/results.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { values } = benchOptions({ "max-length": { type: "string" } });
const maxLength = Number(values["max-length"] ?? 10_000_000);
if (!(maxLength >= 10_000)) usageError(`--max-length expects a number of at least 10000, got ${values["max-length"]}`);

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

  // The bench reads the generated folder as it is: say whether it matches what the generator makes now.
  const state = generatedState(root);
  const rows = [];
  const wrong = [];
  for (const c of CASES) {
    const schema = { type: "object", properties: { field: { type: "string", format: c.format } } };
    const measured = lengths.map((n) => {
      const text = c.make(n);
      const times = [];
      let verdict;
      for (let run = 0; run < 5; run++) {
        const start = process.hrtime.bigint();
        verdict = validateElicitationContent(schema, { field: text }).ok;
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      if (verdict !== (c.valid === true)) wrong.push(`${c.format} "${c.name}" at ${chars(n)} characters`);
      return { ms: median(times), chars: text.length };
    });
    const [before, last] = measured.slice(-2);
    rows.push([
      c.format,
      c.name,
      ...measured.map(({ ms, chars }) => ((ms * 1e6) / chars).toFixed(1)),
      last.ms.toFixed(1),
      `${(last.ms / before.ms).toFixed(1)}× / ${(last.chars / before.chars).toFixed(1)}×`,
    ]);
    process.stderr.write(".");
  }
  process.stderr.write("\n");
  const table = markdownTable(
    ["Format", "Case", ...lengths.map((n) => `${chars(n)}: ns/char`), `${chars(lengths.at(-1))}: ms`, "last step: time × / length ×"],
    rows,
    ["l", "l", ...lengths.map(() => "r"), "r", "r"],
  );
  if (wrong.length > 0) {
    console.log(table);
    throw new Error(`wrong verdicts (README left as it was): ${wrong.join("; ")}`);
  }
  publishSection({
    name: "formats",
    markdown: [
      `Median of 5 checks per length through \`validateElicitationContent\` (elicitation-codex); the generated code was ${state} (\`mcp-tasks-gen --check\`). Every verdict as expected.`,
      "",
      table,
    ].join("\n"),
  });
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
