import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  benchArgs,
  commandLine,
  markdownTable,
  parseStamp,
  publishSection,
  readSections,
  replaceSection,
  stamp,
  usageOf,
  writeRequested,
} from "../../bench/lib/results.mjs";
import { projectRoot } from "../support/paths.js";

/**
 * README's benchmark tables are written by the benchmarks themselves (`npm run bench:NAME -- --write`, through
 * bench/lib/results.mjs), so none can outlive what its script measures. These checks read README and
 * package.json only; nothing is measured. They hold that:
 * - every `bench` / `bench:*` npm script ends in `node bench/FILE.mjs` (so arguments after `--` reach it),
 *   and that file publishes its tables (`publishSection({ name: "NAME", … })`, NAME by convention FILE) and
 *   accepts `--write`;
 * - README has exactly one `<!-- bench:NAME -->` … `<!-- /bench:NAME -->` block per section a script
 *   publishes, and no block that no script writes;
 * - each block starts with a stamp whose command runs the script that publishes it (`node bench/FILE.mjs …`);
 * - in README › Benchmarks every subsection names an npm script in its heading, holds that script's block,
 *   and has no table (a line starting with `|`) outside it.
 * Scripts whose tables another part of the project still writes by hand are listed in NOT_YET_WRITTEN with
 * the reason; an entry whose script has since got its block fails, so the list cannot go stale.
 */

const README = readFileSync(join(projectRoot, "README.md"), "utf8");
const SCRIPTS: Record<string, string> = JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")).scripts;

/** npm scripts (by name) whose README tables are still hand-written, each with why. */
const NOT_YET_WRITTEN: Record<string, string> = {};

/**
 * Each benchmark npm script with the file it runs last and the sections that file publishes (the literal
 * names it passes to publishSection; a file that publishes none is taken to owe the one named after it).
 */
const BENCH_SCRIPTS = Object.entries(SCRIPTS)
  .filter(([script]) => script === "bench" || script.startsWith("bench:"))
  .map(([script, command]) => {
    const file = /(?:^|&& )node (bench\/([\w-]+)\.mjs)$/.exec(command);
    if (file === undefined || file === null) return { script, command, file: undefined, source: "", names: [] };
    const source = readFileSync(join(projectRoot, file[1]!), "utf8");
    const published = [...source.matchAll(/publishSection\(\{\s*name: "([\w-]+)"/g)].map((m) => m[1]!);
    return { script, command, file: file[1], source, names: published.length > 0 ? published : [file[2]!] };
  });

/** README › Benchmarks: from its heading to the next second-level heading. */
const BENCHMARKS = (() => {
  const start = README.indexOf("\n## Benchmarks\n");
  const end = README.indexOf("\n## ", start + 1);
  return README.slice(start + 1, end < 0 ? undefined : end);
})();

/** Subsections of README › Benchmarks: heading and text. */
const SUBSECTIONS = BENCHMARKS.split(/^(?=### )/m)
  .slice(1)
  .map((text) => ({ heading: text.slice(0, text.indexOf("\n")), text }));

/** How many lines of a text are exactly `line` (a marker quoted in prose is not one). */
const count = (text: string, line: string) => text.split("\n").filter((each) => each === line).length;

describe("README's benchmark tables are written by the benchmarks", () => {
  it("finds the benchmark scripts and README › Benchmarks (or it proves nothing)", () => {
    expect(BENCH_SCRIPTS.map(({ script }) => script)).toEqual(expect.arrayContaining(["bench", "bench:generate", "bench:scale", "bench:output-size"]));
    expect(SUBSECTIONS.length).toBeGreaterThanOrEqual(7);
    expect(readSections(README).length).toBeGreaterThanOrEqual(6);
  });

  it("every benchmark script ends in `node bench/NAME.mjs`, which publishes NAME and accepts --write", () => {
    const wrong: string[] = [];
    for (const { script, command, file, source } of BENCH_SCRIPTS) {
      if (file === undefined) {
        wrong.push(`${script}: "${command}" does not end in node bench/FILE.mjs (arguments after -- would not reach it)`);
        continue;
      }
      if (script in NOT_YET_WRITTEN) continue;
      if (!/publishSection\(\{\s*name: "[\w-]+"/.test(source)) wrong.push(`${file}: no publishSection({ name: "…", … })`);
      if (source.includes("parseArgs(") && !source.includes("benchArgs()")) wrong.push(`${file}: parseArgs without benchArgs() rejects --write`);
    }
    expect(wrong).toEqual([]);
  });

  it("README has exactly one block per benchmark script, and none that no script writes", () => {
    const wrong: string[] = [];
    for (const { script, names } of BENCH_SCRIPTS) {
      for (const name of names) {
        const opens = count(README, `<!-- bench:${name} -->`);
        const closes = count(README, `<!-- /bench:${name} -->`);
        if (script in NOT_YET_WRITTEN) {
          if (opens + closes > 0) wrong.push(`${script} has its block now: remove it from NOT_YET_WRITTEN`);
        } else if (opens !== 1 || closes !== 1) {
          wrong.push(`${script}: ${opens} "<!-- bench:${name} -->" and ${closes} "<!-- /bench:${name} -->" in README (expected one each)`);
        }
      }
    }
    const written = new Set(BENCH_SCRIPTS.flatMap(({ names }) => names));
    const blocks = [...README.matchAll(/^<!-- \/?bench:([\w-]+) -->$/gm)].map((m) => m[1]!);
    for (const name of new Set(blocks)) if (!written.has(name)) wrong.push(`README has a bench:${name} block that no npm script writes`);
    // Every marker belongs to a well-formed block (open, body, close on lines of their own).
    if (readSections(README).length * 2 !== blocks.length) wrong.push("README has a bench marker outside a well-formed block");
    expect(wrong).toEqual([]);
  });

  it("each block starts with a stamp naming a command that runs its script", () => {
    const wrong: string[] = [];
    for (const { name, body, line } of readSections(README)) {
      const file = BENCH_SCRIPTS.find(({ names }) => names.includes(name))?.file;
      const first = body.split("\n")[0] ?? "";
      const parsed = parseStamp(first);
      if (body === "") wrong.push(`README.md:${line}: bench:${name} is empty (fill it with its script's --write)`);
      else if (parsed === undefined) wrong.push(`README.md:${line + 1}: bench:${name} starts with "${first}", not a stamp`);
      else if (file === undefined || !(parsed.command === `node ${file}` || parsed.command.startsWith(`node ${file} `))) {
        wrong.push(`README.md:${line + 1}: bench:${name} was written by \`${parsed.command}\`, not by ${file ?? "a bench script"}`);
      } else if (body.trim() === first) wrong.push(`README.md:${line + 1}: bench:${name} has a stamp and nothing under it`);
    }
    expect(wrong).toEqual([]);
  });

  it("in README › Benchmarks every table sits in a block of the script its subsection names", () => {
    const wrong: string[] = [];
    const scripts = new Map(BENCH_SCRIPTS.map((entry) => [entry.script, entry]));
    for (const { heading, text } of SUBSECTIONS) {
      const named = /`npm run ([\w:-]+)`/.exec(heading)?.[1];
      const entry = named === undefined ? undefined : scripts.get(named);
      if (entry === undefined) {
        wrong.push(`"${heading}" names no benchmark script (\`npm run bench…\`) of package.json`);
        continue;
      }
      if (entry.script in NOT_YET_WRITTEN) continue;
      for (const name of entry.names) {
        if (!readSections(text).some((section) => section.name === name)) wrong.push(`"${heading}" does not hold the bench:${name} block`);
      }
      const outside = readSections(text).reduce((rest, { body }) => rest.replace(body, ""), text);
      const tableLines = outside.split("\n").filter((line) => line.startsWith("|"));
      if (tableLines.length > 0) wrong.push(`"${heading}" has a table outside its block: ${tableLines[0]}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe("a bench script's command line", () => {
  // Every script that publishes a block, found as the checks above find them (package.json's bench scripts).
  const scripts = [...new Set(Object.entries(SCRIPTS).filter(([name]) => /^bench(:|$)/.test(name)).map(([, command]) => /node (bench\/[\w-]+\.mjs)$/.exec(command)?.[1]))].filter(
    (s): s is string => s !== undefined,
  );
  const run = (script: string, ...args: string[]) => spawnSync(process.execPath, [script, ...args], { cwd: projectRoot, encoding: "utf8", timeout: 60_000 });

  it("finds the scripts", () => {
    expect(scripts).toEqual(expect.arrayContaining(["bench/validators.mjs", "bench/server.mjs", "bench/stores.mjs", "bench/generate.mjs"]));
  });

  it.each(scripts)("%s: an unknown option is one located line and its usage, exit 2, no stack trace and nothing run", (script) => {
    const result = run(script, "--no-such-option");
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    const [first, ...usage] = result.stderr.trimEnd().split("\n");
    expect(first?.startsWith(`${script}: Unknown option '--no-such-option'`), first).toBe(true);
    expect(usage[0]).toMatch(new RegExp(`^Usage: node ${script.replace(".", "\\.")} `));
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it.each(scripts)("%s: --help prints the usage of its opening comment and exits 0", (script) => {
    const result = run(script, "--help");
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${usageOf(join(projectRoot, script))}\n`);
    expect(result.stdout).toMatch(/^Usage: node bench\/[\w-]+\.mjs .*\[--write\]/);
  });

  it("a bad value is refused the same way, before anything is measured", () => {
    const runs = run("bench/generate.mjs", "--runs", "0");
    expect([runs.status, runs.stderr.split("\n")[0]]).toEqual([2, "bench/generate.mjs: --runs expects a positive integer, got 0"]);
    const stores = run("bench/stores.mjs", "--only", "memory,bogus");
    expect([stores.status, stores.stderr.split("\n")[0]]).toEqual([2, "bench/stores.mjs: --only: unknown store bogus (memory, sqlite, redis, postgres)"]);
    // node's own message spans two lines: joined into one.
    const seconds = run("bench/validators.mjs", "--seconds", "-1");
    expect(seconds.status).toBe(2);
    expect(seconds.stderr.split("\n")[0]).toMatch(/^bench\/validators\.mjs: Option '--seconds' argument is ambiguous\. Did you forget/);
  });

  it("usageOf reads from `Usage:` to the comment's end or its next blank line", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-usage-"));
    try {
      const path = join(dir, "x.mjs");
      writeFileSync(path, "// What it does.\n//\n// Usage: node bench/x.mjs [--n N]\n//   --n: how many\n//\n// More prose.\nimport x from 'y';\n");
      expect(usageOf(path)).toBe("Usage: node bench/x.mjs [--n N]\n  --n: how many");
      writeFileSync(path, "// No usage here.\nconst x = 1; // Usage: not in the opening comment\n");
      expect(usageOf(path)).toBe("");
      expect(usageOf(join(dir, "absent.mjs"))).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("bench/lib/results.mjs", () => {
  const readme = ["# Title", "", "<!-- bench:a -->", "old a", "<!-- /bench:a -->", "", "<!-- bench:b -->", "<!-- /bench:b -->", ""].join("\n");

  it("replaces only the named block, keeping its markers", () => {
    const updated = replaceSection(readme, "a", "new a\n");
    expect(updated).toBe(readme.replace("old a", "new a"));
    expect(replaceSection(updated, "b", "b body\n")).toContain("<!-- bench:b -->\nb body\n<!-- /bench:b -->");
    expect(readSections(replaceSection(updated, "b", "b body\n"))).toEqual([
      { name: "a", body: "new a\n", line: 3 },
      { name: "b", body: "b body\n", line: 7 },
    ]);
  });

  it.each([
    ["no opening marker", readme.replace("<!-- bench:a -->", "")],
    ["no closing marker", readme.replace("<!-- /bench:a -->", "")],
    ["a repeated opening marker", `${readme}<!-- bench:a -->\n`],
    ["a repeated closing marker", `${readme}<!-- /bench:a -->\n`],
    ["the closing marker first", "<!-- /bench:a -->\n<!-- bench:a -->\n"],
    ["no block at all", "# Title\n"],
  ])("refuses a README with %s, naming the markers", (_, text) => {
    expect(() => replaceSection(text, "a", "x\n")).toThrow('expected exactly one "<!-- bench:a -->" … "<!-- /bench:a -->" block');
  });

  it("takes a marker only on a line of its own, and a name only of letters, digits, - and _", () => {
    const quoted = `Prose quoting \`<!-- bench:a -->\` and \`<!-- /bench:a -->\`.\n${readme}`;
    expect(replaceSection(quoted, "a", "new a\n")).toBe(quoted.replace("old a", "new a"));
    expect(() => replaceSection(readme, "a b", "x\n")).toThrow('a section name is letters, digits, - and _: got "a b"');
  });

  it("refuses a body that holds a marker", () => {
    expect(() => replaceSection(readme, "a", "<!-- /bench:a -->\n")).toThrow("contain a bench marker");
  });

  describe("publishSection", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-results-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const quiet = () => vi.spyOn(console, "log").mockImplementation(() => {});

    it("with --write puts the stamp and the tables into the block", () => {
      const log = quiet();
      const path = join(dir, "README.md");
      writeFileSync(path, readme);
      const argv = [process.execPath, join(projectRoot, "bench", "a.mjs"), "--runs", "3", "--write"];
      publishSection({ name: "a", markdown: "| x |\n| --- |\n| 1 |\n", readmePath: path, argv });
      log.mockRestore();
      const [section] = readSections(readFileSync(path, "utf8"));
      const [first, blank, ...rest] = section!.body.split("\n");
      expect(parseStamp(first!)).toMatchObject({ command: "node bench/a.mjs --runs 3" });
      expect([blank, ...rest]).toEqual(["", "| x |", "| --- |", "| 1 |", ""]);
    });

    it("without --write prints and leaves README alone", () => {
      const log = quiet();
      const path = join(dir, "README-untouched.md");
      writeFileSync(path, readme);
      publishSection({ name: "a", markdown: "table", readmePath: path, argv: ["node", "bench/a.mjs"] });
      const printed = log.mock.calls.flat().join("\n");
      log.mockRestore();
      expect(readFileSync(path, "utf8")).toBe(readme);
      expect(printed).toContain("table");
    });

    it("with --write and no block for the section writes nothing", () => {
      const log = quiet();
      const path = join(dir, "README-without.md");
      writeFileSync(path, readme);
      const argv = ["node", "bench/c.mjs", "--write"];
      expect(() => publishSection({ name: "c", markdown: "table", readmePath: path, argv })).toThrow("<!-- bench:c -->");
      log.mockRestore();
      expect(readFileSync(path, "utf8")).toBe(readme);
    });
  });

  it("stamps date, command, machine and load in one line that parseStamp reads back", () => {
    const line = stamp({ command: "node bench/scale.mjs --runs 1", now: new Date("2026-12-01T23:04:59Z") });
    expect(line).toMatch(/^Measured 2026-12-01 23:04 UTC by `node bench\/scale\.mjs --runs 1` on Node v\d+\.\d+\.\d+, \w+ \w+, \d+ cores \(.+\); load average \d+\.\d at start, \d+\.\d at end\.$/);
    expect(parseStamp(line)).toMatchObject({ date: "2026-12-01 23:04", command: "node bench/scale.mjs --runs 1" });
    expect(parseStamp("Measured 2026-12-01 by hand.")).toBeUndefined();
  });

  it("names the command without --write, relative to the project, and hands the script its other arguments", () => {
    const argv = [process.execPath, join(projectRoot, "bench", "generate.mjs"), "--write", "--runs", "3"];
    expect(commandLine(argv)).toBe("node bench/generate.mjs --runs 3");
    expect(benchArgs(argv)).toEqual(["--runs", "3"]);
    expect(writeRequested(argv)).toBe(true);
    expect(writeRequested(argv.filter((arg) => arg !== "--write"))).toBe(false);
  });

  it("builds a Markdown table, escaping pipes and refusing a row of the wrong width", () => {
    expect(markdownTable(["Set", "kB"], [["a|b", 1]])).toBe("| Set | kB |\n| --- | ---: |\n| a\\|b | 1 |");
    expect(markdownTable(["x", "y"], [], ["r", "l"])).toBe("| x | y |\n| ---: | --- |");
    expect(() => markdownTable(["x", "y"], [["1"]])).toThrow("a table row has 1 cells, its header 2");
  });
});
