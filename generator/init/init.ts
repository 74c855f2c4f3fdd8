/**
 * `mcp-tasks-gen init`: writes a starting `mcp-tasks-gen.config.json` into a project that has none.
 * JSON has no comments, so the explanations go into `$comment` fields, which the config checker
 * accepts at the root and in every set. The config names bundled schema sets (resolved from the
 * installed package, see bundled.ts), so it works unchanged on every machine.
 */
import { writeFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { DEFAULT_CONFIG_FILE, type EmitLanguage } from "../config/config.js";
import { GeneratorError } from "../diagnostics.js";
import { BUNDLED_SET_NAMES, BUNDLED_SETS } from "./bundled.js";

/** Where generated sets go unless `--out` says otherwise (relative to the config). */
export const DEFAULT_INIT_OUT_DIR = "src/generated/mcp-tasks";

export interface InitOptions {
  /** The config file to write (absolute). */
  readonly configPath: string;
  /** The output folder as the user gave it: relative to the working folder, or absolute. */
  readonly outDir?: string;
  /** The working folder `outDir` is relative to. */
  readonly cwd: string;
  /** Bundled sets to configure (default: all of them, in catalogue order). */
  readonly sets?: readonly string[];
  readonly emit?: EmitLanguage;
  /** Replace an existing config file. */
  readonly force?: boolean;
}

export interface InitResult {
  readonly configPath: string;
  /** `outDir` as written into the config: relative to the config's folder, with forward slashes. */
  readonly outDir: string;
  readonly sets: readonly string[];
  readonly emit: EmitLanguage;
}

/** The config `init` writes, as text. */
export function initConfigText(options: { outDir: string; sets: readonly string[]; emit: EmitLanguage }): string {
  const config = {
    $comment: [
      "mcp-tasks-gen config (typed, validated bindings for the MCP Tasks protocol and elicitation). After editing it or upgrading",
      "mcp-tasks-gen, run `npx mcp-tasks-gen` and commit the output; `npx mcp-tasks-gen --check` in CI fails when it is stale.",
      "Paths are relative to this file. outDir: one folder per set goes below it.",
      'emit: "ts" (TypeScript) or "js" (JavaScript ES modules with .d.ts declarations).',
      'sets: "bundled" sets ship with mcp-tasks-gen (delete those you do not need); for your own schema files write',
      '{ "name": "my-set", "schemas": ["my.schema.json"], "remotes": { "https://example.com/remote.json": "local-copy.json" } }.',
    ].join(" "),
    outDir: options.outDir,
    emit: options.emit,
    sets: options.sets.map((name) => ({ $comment: BUNDLED_SETS[name]!.description, name, bundled: name })),
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * Writes the config. Refuses (GeneratorError, kind "config") to replace an existing file unless
 * `force`, to name an unknown bundled set, or to put the output folder where the config is.
 */
export function initProject(options: InitOptions): InitResult {
  const sets = options.sets && options.sets.length > 0 ? [...new Set(options.sets)] : [...BUNDLED_SET_NAMES];
  for (const name of sets) {
    if (!BUNDLED_SET_NAMES.includes(name)) {
      throw new GeneratorError(undefined, `--set ${name}: not a bundled set; the bundled sets are ${BUNDLED_SET_NAMES.join(", ")}`, "config");
    }
  }
  const configDir = dirname(options.configPath);
  const outAbsolute = resolve(options.cwd, options.outDir ?? resolve(configDir, DEFAULT_INIT_OUT_DIR));
  const rel = relative(configDir, outAbsolute);
  if (rel === "") throw new GeneratorError(undefined, `--out ${options.outDir}: the output folder cannot be the config's own folder`, "config");
  // Relative to the config, so the config means the same on every machine (an absolute path elsewhere stays absolute).
  const outDir = isAbsolute(rel) ? outAbsolute : rel.split(sep).join("/");
  const emit = options.emit ?? "ts";
  const text = initConfigText({ outDir, sets, emit });
  try {
    writeFileSync(options.configPath, text, { flag: options.force ? "w" : "wx" });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      throw new GeneratorError(
        undefined,
        `${shown(options.configPath, options.cwd)} already exists; mcp-tasks-gen init leaves it as it is (edit it, or pass --force to replace it)`,
        "config",
      );
    }
    throw new GeneratorError(undefined, `cannot write ${shown(options.configPath, options.cwd)}: ${code ?? (e as Error).message}`, "config");
  }
  return { configPath: options.configPath, outDir, sets, emit };
}

/** What `init` prints: what it wrote and what to run next. */
export function initReport(result: InitResult, cwd: string): string {
  const config = shown(result.configPath, cwd);
  const defaultConfig = config === DEFAULT_CONFIG_FILE;
  const withConfig = defaultConfig ? "" : ` --config ${config}`;
  const out = shown(resolve(dirname(result.configPath), result.outDir), cwd);
  const language = result.emit === "js" ? "JavaScript (.js + .d.ts)" : "TypeScript";
  const generate = `npx mcp-tasks-gen${withConfig}`;
  const check = `${generate} --check`;
  return [
    `wrote ${config} (sets ${result.sets.join(", ")}; ${language} into ${out}/)`,
    "",
    "Next:",
    `  ${generate.padEnd(check.length)}   generate ${out}/<set>/`,
    `  git add ${config} ${out}`,
    `  ${check}   in CI: exit 1 when the generated code is stale`,
    `Run ${generate} again after editing the config or upgrading mcp-tasks-gen.`,
    "",
  ].join("\n");
}

/** A path relative to the working folder when it is inside it, with forward slashes. */
function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return (rel === "" || rel.startsWith("..") || isAbsolute(rel) ? path : rel).split(sep).join("/");
}
