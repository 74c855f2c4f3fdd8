#!/usr/bin/env node
/**
 * The `mcp-tasks-gen` command. Exit codes: 0 done, 1 `--check` found differences,
 * 2 bad input, configuration or output folder, 3 a bug in mcp-tasks-gen.
 */
import { existsSync, realpathSync } from "node:fs";
import { basename, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ALL_OF_MODES, DEFAULT_CONFIG_FILE, displayPath, readConfigFile, type AllOfMode, type ResolvedConfig } from "../config/config.js";
import { formatLocation, GeneratorError } from "../diagnostics.js";
import { generate } from "../generate.js";
import { compareSets, writeSets } from "../output/files.js";
import { VERSION } from "../version.js";

export const EXIT = { ok: 0, differences: 1, badInput: 2, internal: 3 } as const;

const HELP = `mcp-tasks-gen ${VERSION}: TypeScript bindings for the MCP Tasks protocol and elicitation, from their JSON Schemas.

Usage:
  mcp-tasks-gen                       generate every set of ${DEFAULT_CONFIG_FILE}
  mcp-tasks-gen --check               write nothing; exit 1 if generated files are stale
  mcp-tasks-gen --schema FILE --out DIR
                                      generate one ad-hoc set from schema files

Options:
  --config FILE     config file (default: ./${DEFAULT_CONFIG_FILE})
  --check           compare instead of writing; lists each differing file
  --schema FILE     a schema file (repeatable); its definitions and titled root are generated
  --out DIR         output folder for --schema
  --remote URL=FILE map a remote $ref URL to a local file (repeatable, with --schema)
  --allof MODE      how allOf of objects is read: json-schema (default: JSON Schema's
                    meaning) or merged (the TypeScript intersection); overrides the config
  --help            show this help
  --version         show the version

Exit codes: 0 done, 1 --check found differences, 2 bad input or configuration, 3 internal error.
`;

export async function main(argv: readonly string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: [...argv],
      options: {
        config: { type: "string" },
        check: { type: "boolean" },
        schema: { type: "string", multiple: true },
        out: { type: "string" },
        remote: { type: "string", multiple: true },
        allof: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
      allowPositionals: false,
      strict: true,
    });
  } catch (e) {
    err.write(`mcp-tasks-gen: ${(e as Error).message}\nRun mcp-tasks-gen --help for usage.\n`);
    return EXIT.badInput;
  }
  const { values } = args;
  let config: ResolvedConfig | undefined;
  if (values.help) {
    out.write(HELP);
    return EXIT.ok;
  }
  if (values.version) {
    out.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  try {
    config = configFrom(values);
    const result = await generate(config);
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
      err.write(`mcp-tasks-gen --check: ${differences.length} file(s) differ from what the schemas generate; run mcp-tasks-gen and commit the result\n`);
      return EXIT.differences;
    }
    writeSets(result.sets);
    for (const set of result.sets) {
      out.write(`wrote ${displayPath(set.outDir, process.cwd())}/ (${set.files.map((f) => f.name).join(", ")})\n`);
    }
    return EXIT.ok;
  } catch (e) {
    if (e instanceof GeneratorError) {
      err.write(`${messageFor(e, config, values.out)}\n`);
      return EXIT.badInput;
    }
    err.write(`mcp-tasks-gen: internal error, please report it: ${(e as Error).stack ?? String(e)}\n`);
    return EXIT.internal;
  }
}

/**
 * The one-line message for an error. Schema files are named relative to the config (as in
 * generated headers); here they are named relative to the working folder, so a terminal or CI
 * log can open them.
 */
function messageFor(error: GeneratorError, config: ResolvedConfig | undefined, out: string | undefined): string {
  if (error.kind === "output" && !error.location && out) return `--out ${out}: ${error.detail}`;
  if (error.kind !== "input" || !error.location || !config) return error.message;
  const file = displayPath(resolve(config.rootDir, error.location.file), process.cwd());
  return `${formatLocation({ ...error.location, file })}: ${error.detail}`;
}

function configFrom(values: { config?: string; schema?: string[]; out?: string; remote?: string[]; allof?: string }): ResolvedConfig {
  const allOf = values.allof;
  if (allOf !== undefined && !ALL_OF_MODES.includes(allOf as AllOfMode)) {
    throw new GeneratorError(undefined, `--allof expects one of ${ALL_OF_MODES.join(", ")}, got "${allOf}"`, "config");
  }
  const config = configWithoutMode(values);
  if (allOf === undefined) return config;
  return { ...config, sets: config.sets.map((set) => ({ ...set, allOf: allOf as AllOfMode })) };
}

function configWithoutMode(values: { config?: string; schema?: string[]; out?: string; remote?: string[] }): ResolvedConfig {
  if (values.schema) {
    if (!values.out) throw new GeneratorError(undefined, "--schema needs --out DIR: the folder to write into", "config");
    if (values.config) throw new GeneratorError(undefined, "use either --config or --schema, not both", "config");
    const outDir = resolve(values.out);
    const remotes: Record<string, string> = {};
    for (const entry of values.remote ?? []) {
      const eq = entry.lastIndexOf("=");
      if (eq <= 0) throw new GeneratorError(undefined, `--remote expects URL=FILE, got "${entry}"`, "config");
      remotes[entry.slice(0, eq)] = resolve(entry.slice(eq + 1));
    }
    return {
      rootDir: process.cwd(),
      sets: [
        { name: basename(outDir), outDir, schemas: values.schema.map((s) => resolve(s)), remotes, defaultDialect: "2020-12", annotations: [], allOf: "json-schema" },
      ],
    };
  }
  if (values.out) throw new GeneratorError(undefined, "--out only goes with --schema", "config");
  const path = resolve(values.config ?? DEFAULT_CONFIG_FILE);
  if (!values.config && !existsSync(path)) {
    throw new GeneratorError(
      undefined,
      `no ${DEFAULT_CONFIG_FILE} here (${process.cwd()}). Create one (see README, "Configuration"), pass --config FILE, or use --schema FILE --out DIR. See mcp-tasks-gen --help.`,
      "config",
    );
  }
  return readConfigFile(path);
}

// Run when executed as the bin (through npm's symlink too), not when imported by tests.
const invokedAs = process.argv[1] ? realpathSync(resolve(process.argv[1])) : "";
if (invokedAs === realpathSync(fileURLToPath(import.meta.url))) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
