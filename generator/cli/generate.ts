/** `mcp-tasks-gen` without a subcommand: generate every set of the config, or one `--schema` set; `--check` compares instead. */
import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { displayPath, type ResolvedSet } from "../config/config.js";
import { configFromFlags } from "../config/from-flags.js";
import { GeneratorError } from "../diagnostics.js";
import { generate } from "../generate.js";
import { countBySeverity, strictly, userFindings } from "../lint/lint.js";
import { compareSets, inspectTargets, refusalFor, writeSets } from "../output/files.js";
import { VERSION } from "../version.js";
import { diagnosticLine, EXIT, runCommand, shownPath, usageError, type CommandStreams } from "./command.js";

const OPTIONS = {
  config: { type: "string" },
  check: { type: "boolean" },
  schema: { type: "string", multiple: true },
  out: { type: "string" },
  remote: { type: "string", multiple: true },
  name: { type: "string", multiple: true },
  annotation: { type: "string", multiple: true },
  dialect: { type: "string" },
  allof: { type: "string" },
  emit: { type: "string" },
  extension: { type: "string" },
  runtime: { type: "string", multiple: true },
  "no-stubs": { type: "boolean" },
  strict: { type: "boolean" },
  verbose: { type: "boolean" },
  force: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

export function generateCommand(argv: readonly string[], streams: CommandStreams): Promise<number> {
  const { out, err } = streams;
  const flags = { args: [...argv], options: OPTIONS, allowPositionals: false, strict: true } satisfies ParseArgsConfig;
  return runCommand("", flags, streams, async ({ values }, context) => {
    context.out = values.out;
    if (values.version) {
      out.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    if (values.force && values.check) {
      usageError("", "--force goes with generating, not with --check (which writes nothing)", err);
      return EXIT.badInput;
    }
    const config = (context.config = configFromFlags(values));
    // Refuse a target in the way before spending time on generating (writeSets checks again when writing).
    refuseTargetsInTheWay(config.sets, values.check === true ? "check" : values.force === true ? "force" : "write");
    // What the normal run does quietly, said when asked: why a set gets no stubs (lint says it too),
    // from the analysis generating makes (each set's protocol facts computed once).
    // --verbose only says more: what it cannot work out is said too, and never changes the exit code.
    const result = await generate(config, { notes: values.verbose === true });
    for (const note of result.notes ?? []) err.write(`note: set ${note.set}: ${note.message}\n`);
    // Bundled sets' findings are left to `mcp-tasks-gen lint` (rules set to "off" are gone already).
    const reported = userFindings(result.diagnostics, config.sets);
    const diagnostics = values.strict ? strictly(reported) : reported;
    for (const d of diagnostics) err.write(`${diagnosticLine(d, config)}\n`);
    if (countBySeverity(diagnostics).errors > 0) {
      err.write(`mcp-tasks-gen --strict: ${diagnostics.length} lint finding(s) are errors; nothing written\n`);
      return EXIT.badInput;
    }
    if (values.check) {
      const differences = compareSets(result.sets);
      if (differences.length === 0) {
        out.write(`mcp-tasks-gen: ${result.sets.length} set(s) up to date\n`);
        return EXIT.ok;
      }
      for (const d of differences) {
        const set = result.sets.find((s) => s.name === d.set)!;
        err.write(`${d.change.padEnd(8)} ${displayPath(resolve(set.outDir, d.file), process.cwd())}\n`);
      }
      const extra = differences.filter((d) => d.change === "extra").length;
      const foreign =
        extra === 0
          ? ""
          : `; ${extra} of them (extra) were not written by mcp-tasks-gen: move them out of the generated folders first, as generating refuses to replace a folder holding them (--force deletes them)`;
      err.write(
        `mcp-tasks-gen --check: ${differences.length} file(s) differ from what the schemas generate; run mcp-tasks-gen and commit the result${foreign}\n`,
      );
      return EXIT.differences;
    }
    writeSets(result.sets, { force: values.force === true, show: shownPath });
    for (const set of result.sets) {
      out.write(`wrote ${displayPath(set.outDir, process.cwd())}/ (${set.files.map((f) => f.name).join(", ")})\n`);
    }
    return EXIT.ok;
  });
}

/**
 * Stops the run (GeneratorError) when a set's target holds what mcp-tasks-gen did not write, as
 * writing would. `--check` writes nothing, so there only a target that is not a folder stops it
 * (foreign files inside a folder are listed as `extra`).
 */
function refuseTargetsInTheWay(sets: readonly ResolvedSet[], mode: "write" | "force" | "check"): void {
  const states = inspectTargets(sets);
  for (const [i, set] of sets.entries()) {
    const state = states[i]!;
    if (mode === "check" && state.kind !== "blocked") continue;
    const refusal = refusalFor(set.outDir, state, mode === "force", shownPath);
    if (refusal) throw new GeneratorError(set.outDirOrigin, refusal, "output");
  }
}
