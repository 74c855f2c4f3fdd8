/** `mcp-tasks-gen lint`: load and lint every set, emit nothing. */
import type { ParseArgsConfig } from "node:util";
import type { ResolvedConfig } from "../config/config.js";
import { configFromFlags } from "../config/from-flags.js";
import { lintSets, type SetNote } from "../generate.js";
import { countBySeverity, strictly, type LintDiagnostic } from "../lint/lint.js";
import { diagnosticLine, EXIT, runCommand, shownSource, type CommandStreams } from "./command.js";

const OPTIONS = {
  config: { type: "string" },
  schema: { type: "string", multiple: true },
  remote: { type: "string", multiple: true },
  name: { type: "string", multiple: true },
  annotation: { type: "string", multiple: true },
  dialect: { type: "string" },
  allof: { type: "string" },
  json: { type: "boolean" },
  strict: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export function lintCommand(argv: readonly string[], streams: CommandStreams): Promise<number> {
  const { out } = streams;
  const flags = { args: [...argv], options: OPTIONS, allowPositionals: false, strict: true } satisfies ParseArgsConfig;
  return runCommand("lint", flags, streams, ({ values }, context) => {
    const config = (context.config = configFromFlags(values, { needsOut: false }));
    // `lint` shows the bundled sets' findings too (it is how to see them); rules set to "off" stay silent.
    const { diagnostics: found, notes } = lintSets(config);
    const diagnostics = values.strict ? strictly(found) : [...found];
    const counts = countBySeverity(diagnostics);
    if (values.json) {
      out.write(`${JSON.stringify(lintJson(diagnostics, notes, config, counts), null, 2)}\n`);
    } else {
      for (const d of diagnostics) out.write(`${diagnosticLine(d, config)}\n`);
      // Not findings: what the normal run does quietly, and why.
      for (const note of notes) out.write(`note: set ${note.set}: ${note.message}\n`);
      out.write(
        `mcp-tasks-gen lint: ${config.sets.length} set(s), ${counts.errors} error(s), ${counts.warnings} warning(s)\n`,
      );
    }
    return counts.errors > 0 ? EXIT.badInput : EXIT.ok;
  });
}

/** The JSON `lint --json` prints: one entry per finding, and the counts. */
function lintJson(
  diagnostics: readonly LintDiagnostic[],
  notes: readonly SetNote[],
  config: ResolvedConfig,
  counts: { errors: number; warnings: number },
) {
  return {
    diagnostics: diagnostics.map((d) => ({
      set: d.set,
      rule: d.rule,
      severity: d.severity,
      file: shownSource(d.location.file, config),
      pointer: d.location.pointer,
      message: d.message,
    })),
    notes,
    summary: { sets: config.sets.length, ...counts },
  };
}
