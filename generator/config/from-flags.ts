/**
 * Command-line flags as configuration: `--schema/--out/--remote/--name/--annotation/--dialect/--allof/--emit`
 * (or `--config`) → a ResolvedConfig, and a `diff` operand → the set it names. A flag used wrongly
 * is a GeneratorError of kind "config": one line naming the flag.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { GeneratorError } from "../diagnostics.js";
import {
  ALL_OF_MODES,
  DEFAULT_CONFIG_FILE,
  displayPath,
  EMIT_LANGUAGES,
  MODULE_EXTENSIONS,
  readConfigFile,
  splitNameKey,
  unusableName,
  type AllOfMode,
  type EmitLanguage,
  type ModuleExtension,
  type ResolvedConfig,
  type ResolvedSet,
} from "./config.js";
import type { ChosenName } from "../names.js";
import { DIALECTS, type Dialect } from "../load/dialect.js";
import { partEntryProblem, type RuntimePart } from "../emit/runtime-parts.js";

/** The flags that say where the schemas are and how to read them (each command takes some of them). */
export interface ConfigFlags {
  readonly config?: string;
  readonly schema?: string[];
  readonly out?: string;
  readonly remote?: string[];
  readonly name?: string[];
  readonly annotation?: string[];
  /** `--dialect D`: the dialect of documents without `$schema`, for every set (the config's `defaultDialect`). */
  readonly dialect?: string;
  readonly allof?: string;
  readonly emit?: string;
  readonly extension?: string;
  /** `--runtime PART[,PART]` (repeatable): runtime parts for the `--schema` set. */
  readonly runtime?: string[];
  /** `--no-stubs`: the `--schema` set gets types and validators only. */
  readonly "no-stubs"?: boolean;
}

/**
 * The configuration the flags describe: one ad-hoc set for `--schema`, else the config file; `--allof`
 * and `--emit` override every set's. `needsOut: false` (lint) lets `--schema` go without `--out`.
 */
export function configFromFlags(
  values: ConfigFlags,
  options: { needsOut: boolean } = { needsOut: true },
): ResolvedConfig {
  const allOf = allOfFlag(values.allof);
  const emit = emitFlag(values.emit);
  const extension = extensionFlag(values.extension);
  const dialect = dialectFlag(values.dialect);
  const config = configWithoutMode(values, options.needsOut);
  if (allOf === undefined && emit === undefined && extension === undefined && dialect === undefined) return config;
  return {
    ...config,
    sets: config.sets.map((set) => {
      const { extension: _configured, ...rest } = set;
      const chosen = extension ?? set.extension;
      return {
        ...rest,
        ...(allOf ? { allOf } : {}),
        ...(emit ? { emit } : {}),
        ...(chosen === ".mts" ? { extension: ".mts" as const } : {}),
        ...(dialect ? { defaultDialect: dialect, dialectChosen: true } : {}),
      };
    }),
  };
}

/** `--dialect D`: one of the dialects, or a config error naming them. */
export function dialectFlag(value: string | undefined): Dialect | undefined {
  if (value === undefined) return undefined;
  if (!(DIALECTS as readonly string[]).includes(value)) {
    throw new GeneratorError(undefined, `--dialect ${value}: expected one of ${DIALECTS.join(", ")}`, "config");
  }
  return value as Dialect;
}

function configWithoutMode(values: ConfigFlags, needsOut: boolean): ResolvedConfig {
  if (values.schema) {
    if (!values.out && needsOut)
      throw new GeneratorError(undefined, "--schema needs --out DIR: the folder to write into", "config");
    if (values.config) throw new GeneratorError(undefined, "use either --config or --schema, not both", "config");
    const outDir = resolve(values.out ?? basename(values.schema[0]!).replace(/(\.schema)?\.json$/, ""));
    const schemas = values.schema.map((s) => checkFlagFile("--schema", s));
    // Output names schema files relative to the output folder: the same from any working folder.
    return {
      rootDir: outDir,
      sets: [adHocSet(basename(outDir), outDir, schemas, remotesFrom(values.remote), "json-schema", values)],
    };
  }
  if (values.out) throw new GeneratorError(undefined, "--out only goes with --schema", "config");
  if (values.runtime) throw new GeneratorError(undefined, '--runtime goes with --schema; in a config, list the parts under "runtime" of the set', "config");
  if (values["no-stubs"]) throw new GeneratorError(undefined, '--no-stubs goes with --schema; in a config, write "stubs": false in the set', "config");
  // A config says these per set; two places to say them would be two places to look.
  if (values.name) throw new GeneratorError(undefined, '--name goes with --schema; in a config, choose names under "names" of the set', "config");
  if (values.annotation) {
    throw new GeneratorError(undefined, '--annotation goes with --schema; in a config, list the keyword under "annotations" of the set', "config");
  }
  const path = resolve(values.config ?? DEFAULT_CONFIG_FILE);
  if (!values.config && !existsSync(path)) {
    throw new GeneratorError(
      undefined,
      `mcp-tasks-gen: no ${DEFAULT_CONFIG_FILE} in ${process.cwd()}. Create one with \`npx mcp-tasks-gen init\` (the bundled schema sets; --out DIR picks the output folder), or pass --config FILE; see \`npx mcp-tasks-gen --help\`.`,
      "config",
    );
  }
  return readConfigFile(path);
}

/** One side of a diff: the set, and the operand as given (how the report names it). */
export interface Revision {
  readonly set: ResolvedSet;
  readonly label: string;
}

/**
 * One side of a diff: an existing file is a schema file, an existing folder holds the schema
 * files of one revision (every `*.json` in it), anything else names a set of the config.
 */
export function revisionFrom(arg: string, values: ConfigFlags, mode: AllOfMode | undefined): Revision {
  const path = resolve(arg);
  if (existsSync(path)) {
    const schemas = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => name.endsWith(".json"))
          .sort()
          .map((name) => join(path, name))
      : [path];
    if (schemas.length === 0)
      throw new GeneratorError(undefined, `${arg}: the folder holds no .json schema files`, "config");
    return {
      set: withDialectFlag(adHocSet(basename(path), "", schemas, remotesFrom(values.remote), mode ?? "json-schema", values), values),
      label: arg,
    };
  }
  const configPath = resolve(values.config ?? DEFAULT_CONFIG_FILE);
  if (!values.config && !existsSync(configPath)) {
    throw new GeneratorError(
      undefined,
      `"${arg}" is not a schema file or folder, and there is no ${DEFAULT_CONFIG_FILE} here to find a set of that name in`,
      "config",
    );
  }
  const config = readConfigFile(configPath);
  const set = config.sets.find((s) => s.name === arg);
  if (!set) {
    throw new GeneratorError(
      undefined,
      `"${arg}" is not a schema file or folder, nor a set of ${displayPath(configPath, process.cwd())} (sets: ${config.sets.map((s) => s.name).join(", ")})`,
      "config",
    );
  }
  // Schema paths of a config set are shown relative to the working folder, like a file operand.
  return { set: withDialectFlag(mode ? { ...set, allOf: mode } : set, values), label: arg };
}

/** The set with `--dialect`'s choice, when given. */
function withDialectFlag(set: ResolvedSet, values: ConfigFlags): ResolvedSet {
  const dialect = dialectFlag(values.dialect);
  return dialect ? { ...set, defaultDialect: dialect, dialectChosen: true } : set;
}

function adHocSet(
  name: string,
  outDir: string,
  schemas: readonly string[],
  remotes: Record<string, string>,
  allOf: AllOfMode,
  values: { annotation?: string[]; name?: string[]; runtime?: string[]; "no-stubs"?: boolean } = {},
): ResolvedSet {
  const names = namesFrom(values.name);
  const runtime = runtimeFrom(values.runtime);
  return {
    name,
    outDir,
    schemas,
    remotes,
    defaultDialect: "2020-12",
    annotations: values.annotation ?? [],
    allOf,
    ...(names.length > 0 ? { names } : {}),
    ...(runtime.length > 0 ? { runtime, runtimeOrigin: { flag: `--runtime ${values.runtime!.join(",")}` } } : {}),
    ...(values["no-stubs"] ? { stubs: false } : {}),
  };
}

/** `--runtime` flags, each a part or a comma-separated list of them: known parts, each once. */
export function runtimeFrom(entries: readonly string[] | undefined): RuntimePart[] {
  const parts = (entries ?? []).flatMap((entry) => entry.split(",")).map((part) => part.trim());
  parts.forEach((part, i) => {
    const problem = partEntryProblem(parts, i);
    if (problem) throw new GeneratorError(undefined, `--runtime ${part}: ${problem}`, "config");
  });
  return parts as RuntimePart[];
}

/** `--name FILE#/POINTER=Name` flags: the file relative to the working folder, the name an identifier. */
function namesFrom(entries: readonly string[] | undefined): ChosenName[] {
  return (entries ?? []).map((entry) => {
    const flag = `--name ${entry}`;
    // A name has no "=", a JSON pointer may: the last one separates them.
    const eq = entry.lastIndexOf("=");
    const key = eq > 0 ? splitNameKey(entry.slice(0, eq)) : undefined;
    if (!key) throw new GeneratorError(undefined, `${flag}: expected FILE#/json/pointer=Name, such as "schemas/x.json#/$defs/a b=ASpaceB"`, "config");
    const name = entry.slice(eq + 1);
    const problem = unusableName(name);
    if (problem) throw new GeneratorError(undefined, `${flag}: ${problem}`, "config");
    return { file: resolve(key[0]), pointer: key[1], name, origin: { flag } };
  });
}

/** Each `--schema`/`--remote` file exists: one line naming the flag and the folder it was looked for in. */
function checkFlagFile(flag: string, given: string): string {
  const path = resolve(given);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat || !stat.isFile()) {
    throw new GeneratorError(undefined, `${flag} ${given}: ${stat ? "not a file" : "not found"} (resolved against ${process.cwd()})`, "config");
  }
  return path;
}

function remotesFrom(entries: readonly string[] | undefined): Record<string, string> {
  const remotes: Record<string, string> = {};
  for (const entry of entries ?? []) {
    const eq = entry.lastIndexOf("=");
    if (eq <= 0) throw new GeneratorError(undefined, `--remote expects URL=FILE, got "${entry}"`, "config");
    remotes[entry.slice(0, eq)] = checkFlagFile("--remote", entry.slice(eq + 1));
  }
  return remotes;
}

/** `--allof MODE`, checked; undefined when not given. */
export function allOfFlag(allOf: string | undefined): AllOfMode | undefined {
  if (allOf !== undefined && !ALL_OF_MODES.includes(allOf as AllOfMode)) {
    throw new GeneratorError(undefined, `--allof expects one of ${ALL_OF_MODES.join(", ")}, got "${allOf}"`, "config");
  }
  return allOf as AllOfMode | undefined;
}

/** `--emit LANG`, checked; undefined when not given. */
export function extensionFlag(extension: string | undefined): ModuleExtension | undefined {
  if (extension !== undefined && !MODULE_EXTENSIONS.includes(extension as ModuleExtension)) {
    throw new GeneratorError(undefined, `--extension expects ${MODULE_EXTENSIONS.join(" or ")}, got "${extension}"`, "config");
  }
  return extension as ModuleExtension | undefined;
}

export function emitFlag(emit: string | undefined): EmitLanguage | undefined {
  if (emit !== undefined && !EMIT_LANGUAGES.includes(emit as EmitLanguage)) {
    throw new GeneratorError(undefined, `--emit expects ${EMIT_LANGUAGES.join(" or ")}, got "${emit}"`, "config");
  }
  return emit as EmitLanguage | undefined;
}
