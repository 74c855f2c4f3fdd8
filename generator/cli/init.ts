/** `mcp-tasks-gen init`: a starting config naming the bundled sets; never replaces one unless --force. */
import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { DEFAULT_CONFIG_FILE } from "../config/config.js";
import { emitFlag, extensionFlag, runtimeFrom } from "../config/from-flags.js";
import type { GeneratorError } from "../diagnostics.js";
import { initProject, initReport } from "../init/init.js";
import { EXIT, runCommand, type CommandStreams } from "./command.js";

const OPTIONS = {
  config: { type: "string" },
  out: { type: "string" },
  emit: { type: "string" },
  extension: { type: "string" },
  set: { type: "string", multiple: true },
  runtime: { type: "string", multiple: true },
  force: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export function initCommand(argv: readonly string[], streams: CommandStreams): Promise<number> {
  const { out } = streams;
  const flags = { args: [...argv], options: OPTIONS, allowPositionals: false, strict: true } satisfies ParseArgsConfig;
  return runCommand(
    "init",
    flags,
    streams,
    ({ values }) => {
      const cwd = process.cwd();
      const emit = emitFlag(values.emit);
      const extension = extensionFlag(values.extension);
      const runtime = runtimeFrom(values.runtime);
      const result = initProject({
        configPath: resolve(cwd, values.config ?? DEFAULT_CONFIG_FILE),
        cwd,
        ...(values.out !== undefined ? { outDir: values.out } : {}),
        ...(values.set ? { sets: values.set } : {}),
        ...(emit ? { emit } : {}),
        ...(extension ? { extension } : {}),
        ...(runtime.length > 0 ? { runtime } : {}),
        ...(values.force ? { force: true } : {}),
      });
      out.write(initReport(result, cwd));
      return EXIT.ok;
    },
    initFailure,
  );
}

/** init reads no schema: its errors are about the config it writes, so they name the command instead of a file. */
function initFailure(error: GeneratorError): string {
  return `mcp-tasks-gen init: ${error.message}`;
}
