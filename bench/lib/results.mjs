// Where a benchmark's tables reach README.md. Every bench script prints its section; run with `--write`, it
// also replaces README's block between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` with a stamp (date,
// machine, load, the exact command) and the same tables, so a table in README is always the last thing that
// script measured and cannot drift from it. NAME is by convention the script's file name without `.mjs`
// (bench/scale.mjs writes `scale`); test/package/readme-bench.test.ts holds README and the scripts to it.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, arch } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
// Read when the script starts (the first import), before the benchmark itself loads the machine.
const loadAtStart = loadavg()[0];

/** True when the script was asked to write its tables into README.md. */
export function writeRequested(argv = process.argv) {
  return argv.slice(2).includes("--write");
}

/** The arguments a script should parse, without `--write` (which this module handles). */
export function benchArgs(argv = process.argv) {
  return argv.slice(2).filter((arg) => arg !== "--write");
}

/**
 * A script's command line: `parseArgs` over `benchArgs` (`{ values, positionals }`), `options` as `node:util`
 * takes them, at most `positionals` arguments that are no option. `--help` prints the script's usage (the
 * `Usage:` lines of its opening comment) and exits 0; a mistake (an unknown option, a missing value, one
 * argument too many) ends the script as `usageError` does, one line and exit 2, as the CLI answers one.
 */
export function benchOptions(options, { positionals = 0, argv = process.argv } = {}) {
  const args = benchArgs(argv);
  if (args.includes("--help")) {
    process.stdout.write(`${usageOf(argv[1])}\n`);
    process.exit(0);
  }
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: positionals > 0 });
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error), argv);
  }
  if (parsed.positionals.length > positionals) usageError(`unexpected argument ${JSON.stringify(parsed.positionals[positionals])}`, argv);
  return parsed;
}

/** Ends a script on a command-line mistake: `bench/x.mjs: <message>` and its usage on stderr, exit 2, no stack trace. */
export function usageError(message, argv = process.argv) {
  const script = relative(root, argv[1] ?? "").split("\\").join("/");
  // One line: node's own messages may run over two (`…is ambiguous.\nDid you forget…`).
  process.stderr.write(`${script}: ${message.replace(/\s*\n\s*/g, " ")}\n${usageOf(argv[1])}\n`);
  process.exit(2);
}

/** An option's value as a whole number of at least 1, else `usageError`. */
export function positiveInteger(value, flag) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) usageError(`${flag} expects a positive integer, got ${value}`);
  return n;
}

/** The `Usage:` part of a script's opening comment: from `Usage:` to the comment's next blank line or its end. */
export function usageOf(scriptPath) {
  let text;
  try {
    text = readFileSync(scriptPath ?? "", "utf8");
  } catch {
    return "";
  }
  const lines = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("//")) break;
    const comment = line.replace(/^\/\/ ?/, "");
    if (lines.length === 0) {
      const at = comment.indexOf("Usage:");
      if (at >= 0) lines.push(comment.slice(at));
    } else if (comment.trim() === "") break;
    else lines.push(comment);
  }
  return lines.join("\n");
}

/** One line naming the machine: what every absolute number in a table depends on. */
export function machineLine() {
  const cores = cpus();
  const model = (cores[0]?.model ?? "unknown CPU").replace(/\s+/g, " ").trim();
  return `Node ${process.version}, ${platform()} ${arch()}, ${cores.length} cores (${model})`;
}

/** The command that reproduces this run, as a reader would type it. */
export function commandLine(argv = process.argv) {
  const script = relative(root, argv[1] ?? "").split("\\").join("/");
  return ["node", script, ...argv.slice(2).filter((arg) => arg !== "--write")].join(" ");
}

/** The stamp above a section's tables: when, where, under what load, by which command. */
export function stamp({ command = commandLine(), now = new Date() } = {}) {
  const date = now.toISOString().slice(0, 16).replace("T", " ");
  const load = `load average ${loadAtStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end`;
  return `Measured ${date} UTC by \`${command}\` on ${machineLine()}; ${load}.`;
}

const STAMP = /^Measured (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) UTC by `([^`]+)` on (.+); load average (\d+\.\d) at start, (\d+\.\d) at end\.$/;

/** The parts of a stamp line (what `stamp` writes), or undefined when the line is not one. */
export function parseStamp(line) {
  const m = STAMP.exec(line);
  return m ? { date: m[1], command: m[2], machine: m[3], loadAtStart: Number(m[4]), loadAtEnd: Number(m[5]) } : undefined;
}

/**
 * A Markdown table. `align` gives each column's alignment, "l" or "r" (default: the first column left, the
 * others right, as numbers read). A `|` inside a cell is escaped, so a cell cannot split its row.
 */
export function markdownTable(header, rows, align = header.map((_, i) => (i === 0 ? "l" : "r"))) {
  for (const row of rows) {
    if (row.length !== header.length) throw new Error(`a table row has ${row.length} cells, its header ${header.length}: ${row.join(", ")}`);
  }
  const line = (cells) => `| ${cells.map((cell) => String(cell).replaceAll("|", "\\|")).join(" | ")} |`;
  return [line(header), `|${align.map((a) => (a === "r" ? " ---: " : " --- ")).join("|")}|`, ...rows.map(line)].join("\n");
}

/**
 * Prints a section's markdown and, with `--write`, puts it (under its stamp) into README.md between the
 * section's markers. Missing or repeated markers are an error that writes nothing.
 */
export function publishSection({ name, markdown, command, readmePath = join(root, "README.md"), argv = process.argv }) {
  const body = `${stamp({ command: command ?? commandLine(argv) })}\n\n${markdown.trim()}\n`;
  console.log("");
  console.log(body);
  if (!writeRequested(argv)) return;
  const readme = readFileSync(readmePath, "utf8");
  const updated = replaceSection(readme, name, body);
  const temp = `${readmePath}.${process.pid}.tmp`;
  writeFileSync(temp, updated);
  renameSync(temp, readmePath);
  console.log(`(written to ${relative(root, readmePath)} between <!-- bench:${name} --> markers)`);
}

/** The markers around section `name`'s block. */
export function markers(name) {
  if (!/^[\w-]+$/.test(name)) throw new Error(`a section name is letters, digits, - and _: got "${name}"`);
  return { open: `<!-- bench:${name} -->`, close: `<!-- /bench:${name} -->` };
}

/** Where `marker` stands on a line of its own in `text` (a marker quoted in prose is not one). */
function markerLines(text, marker) {
  const escaped = marker.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return [...text.matchAll(new RegExp(`^${escaped}$`, "gm"))].map((m) => m.index);
}

/**
 * README text with the block of section `name` replaced by `body`; throws (naming the markers) unless the
 * text has exactly one opening and one closing marker of that name, each on a line of its own, in that order,
 * and the body holds none.
 */
export function replaceSection(readme, name, body) {
  const { open, close } = markers(name);
  const opens = markerLines(readme, open);
  const closes = markerLines(readme, close);
  if (opens.length !== 1 || closes.length !== 1 || closes[0] < opens[0]) {
    throw new Error(`README.md: expected exactly one "${open}" … "${close}" block to write the ${name} tables into`);
  }
  if (body.includes("<!-- bench:") || body.includes("<!-- /bench:")) {
    throw new Error(`the ${name} tables contain a bench marker; README.md left as it was`);
  }
  return `${readme.slice(0, opens[0] + open.length)}\n${body}${readme.slice(closes[0])}`;
}

/** Every block in a README text, in order: its name, its body (between the markers) and the line it opens on. */
export function readSections(readme) {
  return [...readme.matchAll(/^<!-- bench:([\w-]+) -->\n([\s\S]*?)^<!-- \/bench:\1 -->$/gm)].map((m) => ({
    name: m[1],
    body: m[2],
    line: readme.slice(0, m.index).split("\n").length,
  }));
}
