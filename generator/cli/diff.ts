/** `mcp-tasks-gen diff OLD NEW`: the changes of the generated API between two revisions of a set. */
import type { ParseArgsConfig } from "node:util";
import { allOfFlag, revisionFrom, type Revision } from "../config/from-flags.js";
import { diffSets, hasBreaking, renderDiffJson, renderDiffText } from "../diff/index.js";
import { EXIT, runCommand, usageError, type CommandStreams } from "./command.js";

const OPTIONS = {
  config: { type: "string" },
  remote: { type: "string", multiple: true },
  annotation: { type: "string", multiple: true },
  dialect: { type: "string" },
  allof: { type: "string" },
  json: { type: "boolean" },
  "fail-on-breaking": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export function diffCommand(argv: readonly string[], streams: CommandStreams): Promise<number> {
  const { out, err } = streams;
  const flags = { args: [...argv], options: OPTIONS, allowPositionals: true, strict: true } satisfies ParseArgsConfig;
  return runCommand("diff", flags, streams, ({ values, positionals }) => {
    if (positionals.length !== 2) {
      usageError(
        "diff",
        `expected two revisions, OLD and NEW (schema files, folders or set names), got ${positionals.length}`,
        err,
      );
      return EXIT.badInput;
    }
    const mode = allOfFlag(values.allof);
    const [before, after] = positionals.map((arg) => revisionFrom(arg, values, mode)) as [Revision, Revision];
    const diff = diffSets(before.set, after.set, process.cwd(), { old: before.label, new: after.label });
    out.write(values.json ? renderDiffJson(diff) : renderDiffText(diff));
    return values["fail-on-breaking"] && hasBreaking(diff) ? EXIT.differences : EXIT.ok;
  });
}
