/**
 * The configuration: `mcp-tasks-gen.config.json`, checked field by field so a typo is reported
 * where it is (`mcp-tasks-gen.config.json#/sets/0/schemas: ...`) instead of being ignored.
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { GeneratorError, type SourceLocation } from "../diagnostics.js";
import { isIdentifier, type ChosenName } from "../names.js";
import { DIALECTS, type Dialect } from "../load/dialect.js";
import { appendPointer } from "../load/json-pointer.js";
import { describeJsonProblem, parseJsonText } from "../load/json-text.js";
import { nearest } from "./suggest.js";
import type { JsonValue } from "../ir/nodes.js";
import { checkBindings, resolveBindings, type Binding } from "../bind/bindings.js";
import { BUNDLED_SET_NAMES, PACKAGE_PREFIX, bundledSchemaNames, bundledSet, packageRoot } from "../init/bundled.js";
import { LINT_RULES, type LintRuleId } from "../lint/rules.js";
import type { MethodMapping } from "../analyze/methods.js";
import { TASK_STATUSES } from "../analyze/status.js";
import { partEntryProblem, type PartsOrigin, type RuntimePart } from "../emit/runtime-parts.js";

export { DEFAULT_CONFIG_FILE } from "./config-file.js";

/** One schema set as the user writes it. */
export interface SchemaSetConfig {
  /** Output folder name under `outDir` (also the set's name in messages). */
  readonly name: string;
  /** Schema files, relative to the config file. */
  readonly schemas: readonly string[];
  /** Remote `$ref` base URLs mapped to local files (relative to the config file). */
  readonly remotes?: Readonly<Record<string, string>>;
  /** Dialect of documents without `$schema` (default 2020-12). */
  readonly defaultDialect?: Dialect;
  /** Extra keywords to accept as annotations. */
  readonly annotations?: readonly string[];
  /** How `allOf` of objects is read: JSON Schema's meaning (default) or the TypeScript intersection. */
  readonly allOf?: AllOfMode;
  /**
   * Definitions of the set's schemas given a schema of their own, by name: `"InputRequest": { "anyOf": [{ "$ref": ... }] }`
   * fills in a placeholder with real shapes. `$ref`s are relative to the config file (see bind/bindings.ts).
   */
  readonly bindings?: Readonly<Record<string, JsonValue>>;
  /**
   * A schema set bundled with mcp-tasks-gen, by name (`BUNDLED_SET_NAMES`), instead of the user's
   * own schema files: `checkConfig` fills `schemas` and `remotes` with the bundled files (absolute
   * paths into the installed package; the set's own `remotes` are added over them), and headers
   * name those files `mcp-tasks-gen:schemas/<file>`.
   */
  readonly bundled?: string;
  /**
   * Names chosen for schemas, by `file#/json/pointer` (the file relative to the config): the way out
   * of a name clash, or a better name for an inline shape. Values are TypeScript identifiers.
   */
  readonly names?: Readonly<Record<string, string>>;
  /** Lint rules set per set, by rule id (see LintSettings). */
  readonly lint?: LintSettings;
  /**
   * What a revision lacks for the stubs, by JSON-RPC method: `"tasks/get": { "result": "GetTaskResult" }`.
   * Values are definition names as the generated types name them (see analyze/methods.ts).
   */
  readonly methods?: Readonly<Record<string, MethodConfig>>;
  /** Runtime parts to write into the set's folder (see emit/runtime-parts.ts). */
  readonly runtime?: readonly RuntimePart[];
  /** `false`: types and validators only, without the client and server stubs. Default true. */
  readonly stubs?: boolean;
  /** The core MCP schema of the set's revision, and definitions of it to generate besides the ones the stubs' flows need (see lower/core-definitions.ts). */
  readonly core?: CoreConfig;
  /** Statuses the set's schema adds, by value: `"archived": { "terminal": true }` makes one final (see analyze/status.ts). */
  readonly statuses?: Readonly<Record<string, StatusConfig>>;
}

/** One added status's entry in a set's `statuses`. */
export interface StatusConfig {
  /** A task never leaves it (like completed, failed and cancelled). Default false. */
  readonly terminal?: boolean;
}
export const STATUS_FIELDS: readonly string[] = ["$comment", "terminal"];

/** A set's `core`: the core schema file (relative to the config; a bundled set brings its own) and definition names to add. */
export interface CoreConfig {
  readonly schema?: string;
  readonly include?: readonly string[];
}
export const CORE_FIELDS: readonly string[] = ["$comment", "schema", "include"];

/** One method's entry in a set's `methods`: its params and result definitions, by name. */
export interface MethodConfig {
  readonly params?: string;
  readonly result?: string;
}
export const METHOD_FIELDS: readonly string[] = ["$comment", "params", "result"];

/**
 * What a set's findings of one rule do: `off` silences them everywhere (`lint` too); `warn` prints them
 * while generating, as for the user's own schemas (a bundled set's findings are otherwise shown by `lint` only).
 */
export type LintSetting = "off" | "warn";
export const LINT_SETTINGS: readonly LintSetting[] = ["off", "warn"];
export type LintSettings = Readonly<Partial<Record<LintRuleId, LintSetting>>>;

/** The fields the config reader accepts at the top level and in a set (config.schema.json describes the same). */
export const CONFIG_FIELDS: readonly string[] = ["$schema", "$comment", "outDir", "sets", "emit", "extension"];
export const SET_FIELDS: readonly string[] = ["$comment", "name", "schemas", "remotes", "defaultDialect", "annotations", "allOf", "bundled", "bindings", "names", "lint", "methods", "runtime", "stubs", "core", "statuses"];

/** What a set is generated as: TypeScript (`.ts`), or JavaScript ES modules with declarations (`.js` + `.d.ts`). */
export type EmitLanguage = "ts" | "js";
export const EMIT_LANGUAGES: readonly EmitLanguage[] = ["ts", "js"];

/**
 * The generated files' extension. `.ts` (default): modules whose format the host's package.json decides, ES
 * modules in a `"type": "module"` project. `.mts`: ES modules whatever the host says, which a CommonJS project
 * needs under `verbatimModuleSyntax` (its `.ts` files are CommonJS there, and cannot hold `import` syntax);
 * with `emit: "js"` it means `.mjs` with `.d.mts`.
 */
export type ModuleExtension = ".ts" | ".mts";
export const MODULE_EXTENSIONS: readonly ModuleExtension[] = [".ts", ".mts"];

/** `json-schema`: every branch judges the whole value. `merged`: one object with the properties of all branches. */
export type AllOfMode = "json-schema" | "merged";
export const ALL_OF_MODES: readonly AllOfMode[] = ["json-schema", "merged"];

export interface UserConfig {
  readonly outDir?: string;
  readonly sets: readonly SchemaSetConfig[];
  /** What every set is generated as (default `ts`). */
  readonly emit?: EmitLanguage;
  /** The generated files' extension (default `.ts`). */
  readonly extension?: ModuleExtension;
}

/** A schema set with every path made absolute and the output folder decided. */
export interface ResolvedSet {
  readonly name: string;
  readonly outDir: string;
  /** Where the output folder comes from (the config's `outDir`), for messages. */
  readonly outDirOrigin?: SourceLocation;
  readonly schemas: readonly string[];
  readonly remotes: Readonly<Record<string, string>>;
  readonly defaultDialect: Dialect;
  /**
   * Whether `defaultDialect` was chosen (`"defaultDialect"` of the set or `--dialect`): then a remote
   * document without `$schema` is read in it too; otherwise in the dialect of the schema that refers to it.
   */
  readonly dialectChosen?: boolean;
  readonly annotations: readonly string[];
  readonly allOf: AllOfMode;
  /** Bound definitions, by name, with their `$ref`s absolute (see bind/bindings.ts). */
  readonly bindings?: Readonly<Record<string, Binding>>;
  /** How headers and messages name a source file, by absolute path (default: relative to `rootDir`). */
  readonly sourceNames?: Readonly<Record<string, string>>;
  /** TypeScript (default) or JavaScript with declarations. */
  readonly emit?: EmitLanguage;
  /** `.mts`: ES module files whatever the host's package.json says (absent: `.ts`). */
  readonly extension?: ".mts";
  /** Where the set is written in the config (`#/sets/0`); absent for an ad-hoc `--schema` set. */
  readonly origin?: SourceLocation;
  /** Names chosen by JSON pointer (see ChosenName). */
  readonly names?: readonly ChosenName[];
  /** The bundled set this set generates, if it is one: its lint findings are not the user's to fix. */
  readonly bundled?: string;
  /** Lint rules set for this set (see LintSetting). */
  readonly lint?: LintSettings;
  /** The config's `methods` mappings, by method, each remembering where it is written. */
  readonly methods?: ReadonlyMap<string, MethodMapping>;
  /** Runtime parts to write into the set's folder, and where they were asked for (for messages). */
  readonly runtime?: readonly RuntimePart[];
  readonly runtimeOrigin?: PartsOrigin;
  /** `false`: no client and server stubs. */
  readonly stubs?: boolean;
  /** The core schema the set takes definitions from (see lower/core-definitions.ts). */
  readonly core?: ResolvedCore;
  /** The config's word on statuses the schema adds, each with its config entry (checked against the schema by analyze). */
  readonly statuses?: readonly ConfiguredStatus[];
}

/** An added status the config makes final (or says is not), and where it says so. */
export interface ConfiguredStatus {
  readonly status: string;
  readonly terminal: boolean;
  readonly origin: SourceLocation;
}

/** A set's core schema as an absolute path, and the definitions the config adds by name, each with its config entry. */
export interface ResolvedCore {
  readonly schema: string;
  readonly include: readonly { readonly name: string; readonly origin: SourceLocation }[];
}

export interface ResolvedConfig {
  /** Paths in messages and file headers are shown relative to this folder. */
  readonly rootDir: string;
  readonly sets: readonly ResolvedSet[];
}

export { DIALECTS } from "../load/dialect.js";

export function readConfigFile(path: string): ResolvedConfig {
  const display = displayPath(path, process.cwd());
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const detail = code === "ENOENT" ? `config file not found (resolved against ${process.cwd()})` : `cannot read the config file: ${code ?? (e as Error).message}`;
    throw new GeneratorError({ file: display, pointer: "" }, detail, "config");
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new GeneratorError({ file: display, pointer: "" }, describeJsonProblem(parsed), "config");
  const config = checkConfig(parsed.value, display);
  const rootDir = dirname(resolve(path));
  checkFilesExist(config, rootDir, display);
  return resolveConfig(config, rootDir, display);
}

/**
 * Every schema and remote file the config names exists and is a file, or an error pointing at
 * the entry that names it and the folder it was looked for in (a typo and a wrong working
 * assumption look alike otherwise).
 */
function checkFilesExist(config: UserConfig, rootDir: string, file: string): void {
  const check = (given: string, pointer: string) => {
    const stat = statSync(resolve(rootDir, given), { throwIfNoEntry: false });
    if (!stat) throw new GeneratorError({ file, pointer }, `${given} not found (resolved against ${rootDir})`, "config");
    if (!stat.isFile()) throw new GeneratorError({ file, pointer }, `${given} is not a file (resolved against ${rootDir})`, "config");
  };
  config.sets.forEach((set, i) => {
    // A bundled set's files ship inside the package (absolute paths); only the user's own are checked here.
    set.schemas.forEach((schema, j) => {
      if (!set.bundled || !isAbsolute(schema)) check(schema, `/sets/${i}/schemas/${j}`);
    });
    for (const [url, remote] of Object.entries(set.remotes ?? {})) check(remote, appendPointer(`/sets/${i}/remotes`, url));
    if (set.core?.schema !== undefined) check(set.core.schema, `/sets/${i}/core/schema`);
  });
}

export function resolveConfig(config: UserConfig, rootDir: string, configDisplay?: string): ResolvedConfig {
  const outDir = resolve(rootDir, config.outDir ?? "generated");
  return {
    rootDir,
    sets: config.sets.map((set, i) => ({
      name: set.name,
      outDir: resolve(outDir, set.name),
      ...(configDisplay ? { outDirOrigin: { file: configDisplay, pointer: config.outDir ? "/outDir" : `/sets/${i}/name` } } : {}),
      schemas: set.schemas.map((s) => resolve(rootDir, s)),
      remotes: Object.fromEntries(Object.entries(set.remotes ?? {}).map(([url, file]) => [url, resolve(rootDir, file)])),
      defaultDialect: set.defaultDialect ?? "2020-12",
      ...(set.defaultDialect ? { dialectChosen: true } : {}),
      annotations: set.annotations ?? [],
      allOf: set.allOf ?? "json-schema",
      ...bindingsOf(set, rootDir, { file: configDisplay ?? "(config)", pointer: `/sets/${i}/bindings` }),
      ...(set.bundled ? { sourceNames: bundledSchemaNames() } : {}),
      ...(config.emit && config.emit !== "ts" ? { emit: config.emit } : {}),
      ...(config.extension === ".mts" ? { extension: ".mts" as const } : {}),
      origin: { file: configDisplay ?? "(config)", pointer: `/sets/${i}` },
      ...(set.names ? { names: chosenNames(set.names, rootDir, { file: configDisplay ?? "(config)", pointer: `/sets/${i}/names` }) } : {}),
      ...(set.bundled ? { bundled: set.bundled } : {}),
      ...(set.lint ? { lint: set.lint } : {}),
      ...(set.methods ? { methods: methodMappings(set.methods, { file: configDisplay ?? "(config)", pointer: `/sets/${i}/methods` }) } : {}),
      ...(set.runtime && set.runtime.length > 0
        ? { runtime: set.runtime, runtimeOrigin: { file: configDisplay ?? "(config)", pointer: `/sets/${i}/runtime` } }
        : {}),
      ...(set.stubs === false ? { stubs: false } : {}),
      ...coreOf(set, rootDir, { file: configDisplay ?? "(config)", pointer: `/sets/${i}/core` }),
      ...(set.statuses ? { statuses: configuredStatuses(set.statuses, { file: configDisplay ?? "(config)", pointer: `/sets/${i}/statuses` }) } : {}),
    })),
  };
}

/** A set's `statuses` entries, each remembering its place in the config. */
function configuredStatuses(statuses: Readonly<Record<string, StatusConfig>>, at: SourceLocation): ConfiguredStatus[] {
  return Object.entries(statuses)
    .filter(([status]) => status !== "$comment")
    .map(([status, entry]) => ({ status, terminal: entry.terminal === true, origin: { file: at.file, pointer: appendPointer(at.pointer, status) } }));
}

/** A set's core schema (the config's, else the bundled set's) with its file absolute, and the names the config adds. */
function coreOf(set: SchemaSetConfig, rootDir: string, at: SourceLocation): { core?: ResolvedCore } {
  const schema = set.core?.schema;
  if (schema === undefined) return {};
  return {
    core: {
      schema: resolve(rootDir, schema),
      include: (set.core?.include ?? []).map((name, j) => ({ name, origin: { file: at.file, pointer: `${at.pointer}/include/${j}` } })),
    },
  };
}

/** A set's `methods` entries, each remembering its place in the config (for messages about a name it gives). */
function methodMappings(methods: Readonly<Record<string, MethodConfig>>, at: SourceLocation): Map<string, MethodMapping> {
  return new Map(
    Object.entries(methods)
      .filter(([method]) => method !== "$comment")
      .map(([method, { params, result }]) => [
        method,
        { ...(params ? { params } : {}), ...(result ? { result } : {}), origin: { file: at.file, pointer: appendPointer(at.pointer, method) } },
      ]),
  );
}

/** A set's `names` entries with their files made absolute, each remembering its config entry. */
function chosenNames(names: Readonly<Record<string, string>>, rootDir: string, at: SourceLocation): ChosenName[] {
  return Object.entries(names).map(([key, name]) => {
    const [file, pointer] = splitNameKey(key)!;
    return { file: resolve(rootDir, file), pointer, name, origin: { file: at.file, pointer: appendPointer(at.pointer, key) } };
  });
}

/** `schemas/x.json#/$defs/a b` → [`schemas/x.json`, `/$defs/a b`]; undefined when it is not of that form. */
export function splitNameKey(key: string): [string, string] | undefined {
  const hash = key.indexOf("#");
  if (hash <= 0) return undefined;
  const pointer = key.slice(hash + 1);
  return pointer === "" || pointer.startsWith("/") ? [key.slice(0, hash), pointer] : undefined;
}

/** Why a chosen name cannot be used as one, or undefined when it can. */
export function unusableName(name: string): string | undefined {
  return isIdentifier(name)
    ? undefined
    : `${JSON.stringify(name)} is not a usable TypeScript name (letters, digits, "_" and "$", not starting with a digit, not a reserved word)`;
}

/** A set's bindings: a bundled set's own (relative to the package), then the config's, which win by name. */
function bindingsOf(set: SchemaSetConfig, rootDir: string, origin: SourceLocation): { bindings?: Readonly<Record<string, Binding>> } {
  const bundled = set.bundled ? bundledSet(set.bundled)?.bindings : undefined;
  if (!bundled && !set.bindings) return {};
  return {
    bindings: {
      ...(bundled ? resolveBindings(bundled, packageRoot(), { file: `${PACKAGE_PREFIX}bundled`, pointer: `/${set.bundled}/bindings` }) : {}),
      ...(set.bindings ? resolveBindings(set.bindings, rootDir, origin) : {}),
    },
  };
}

/** Checks the shape of a parsed config; every problem names its JSON pointer. */
export function checkConfig(json: unknown, file: string): UserConfig {
  const fail = (pointer: string, message: string): never => {
    throw new GeneratorError({ file, pointer }, message, "config");
  };
  const object = (value: unknown, pointer: string, allowed: readonly string[]): Record<string, unknown> => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) fail(pointer, `expected an object, got ${kindOf(value)}`);
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!allowed.includes(key)) {
        const guess = nearest(key, allowed);
        fail(
          appendPointer(pointer, key),
          guess ? `unknown field "${key}"; did you mean "${guess}"?` : `unknown field "${key}"; expected one of ${allowed.map((a) => `"${a}"`).join(", ")}`,
        );
      }
    }
    return record;
  };
  const string = (value: unknown, pointer: string): string => {
    if (typeof value !== "string" || value === "") fail(pointer, `expected a non-empty string, got ${kindOf(value)}`);
    return value as string;
  };
  const strings = (value: unknown, pointer: string, nonEmpty: boolean): string[] => {
    if (!Array.isArray(value)) fail(pointer, `expected an array of strings, got ${kindOf(value)}`);
    const list = value as unknown[];
    if (nonEmpty && list.length === 0) fail(pointer, "expected at least one entry");
    return list.map((item, i) => string(item, appendPointer(pointer, i)));
  };

  // These say something about a set's schemas, so they live in the set (a top-level "names" would
  // also have to name a file of every set, or silently apply to some).
  for (const field of ["names", "annotations", "remotes"]) {
    if (json !== null && typeof json === "object" && !Array.isArray(json) && field in json) {
      fail(`/${field}`, `"${field}" belongs to a set: move it into the set it is about (sets[i].${field})`);
    }
  }
  const root = object(json, "", CONFIG_FIELDS);
  if (!("sets" in root)) fail("", 'missing field "sets": the schema sets to generate');
  if (!Array.isArray(root.sets) || root.sets.length === 0) fail("/sets", "expected a non-empty array of schema sets");
  const names = new Set<string>();
  const sets = (root.sets as unknown[]).map((raw, i): SchemaSetConfig => {
    const at = `/sets/${i}`;
    const set = object(raw, at, SET_FIELDS);
    const bundled = "bundled" in set ? bundledFrom(set, at) : undefined;
    // A bundled set is named after what it bundles unless it says otherwise.
    const name = bundled && !("name" in set) ? bundled.name : string(set.name, `${at}/name`);
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) fail(`${at}/name`, `"${name}" is not a usable folder name (letters, digits, ".", "_", "-")`);
    if (names.has(name)) fail(`${at}/name`, `two sets are named "${name}"`);
    names.add(name);
    if (!bundled && !("schemas" in set)) {
      fail(at, `missing field "schemas" (your schema files, relative to the config) or "bundled" (a set that ships with mcp-tasks-gen: ${quoted(BUNDLED_SET_NAMES)})`);
    }
    const schemas = bundled ? bundled.schemas : strings(set.schemas, `${at}/schemas`, true);
    let remotes: Record<string, string> | undefined;
    if ("remotes" in set) {
      const map = object(set.remotes, `${at}/remotes`, Object.keys(set.remotes ?? {}));
      remotes = Object.fromEntries(Object.entries(map).map(([url, file]) => [url, string(file, appendPointer(`${at}/remotes`, url))]));
    }
    // The set's own remotes are added over the bundled ones (a user's copy of a remote document wins).
    if (bundled && (remotes || Object.keys(bundled.remotes).length > 0)) remotes = { ...bundled.remotes, ...remotes };
    let defaultDialect: Dialect | undefined;
    if ("defaultDialect" in set) {
      if (!DIALECTS.includes(set.defaultDialect as Dialect)) {
        fail(`${at}/defaultDialect`, `expected one of ${DIALECTS.map((d) => `"${d}"`).join(", ")}`);
      }
      defaultDialect = set.defaultDialect as Dialect;
    }
    const annotations = "annotations" in set ? strings(set.annotations, `${at}/annotations`, false) : undefined;
    if ("allOf" in set && !ALL_OF_MODES.includes(set.allOf as AllOfMode)) {
      fail(`${at}/allOf`, `expected one of ${ALL_OF_MODES.map((m) => `"${m}"`).join(", ")}`);
    }
    const allOf = set.allOf as AllOfMode | undefined;
    const chosen = "names" in set ? namesFrom(set.names, `${at}/names`) : undefined;
    const lint = "lint" in set ? lintFrom(set.lint, `${at}/lint`) : undefined;
    const methods = "methods" in set ? methodsFrom(set.methods, `${at}/methods`) : undefined;
    const runtime = "runtime" in set ? runtimeFrom(set.runtime, `${at}/runtime`) : undefined;
    const core = "core" in set || bundled?.core ? coreFrom(set.core, `${at}/core`, bundledCore(bundled, remotes)) : undefined;
    const statuses = "statuses" in set ? statusesFrom(set.statuses, `${at}/statuses`) : undefined;
    if ("stubs" in set && typeof set.stubs !== "boolean") {
      fail(`${at}/stubs`, `expected true or false (false: types and validators only, without client and server stubs), got ${kindOf(set.stubs)}`);
    }
    return {
      name,
      schemas,
      ...(remotes ? { remotes } : {}),
      ...(defaultDialect ? { defaultDialect } : {}),
      ...(annotations ? { annotations } : {}),
      ...(allOf ? { allOf } : {}),
      ...("bindings" in set ? { bindings: checkBindings(set.bindings, `${at}/bindings`, fail) } : {}),
      ...(bundled ? { bundled: bundled.name } : {}),
      ...(chosen ? { names: chosen } : {}),
      ...(lint ? { lint } : {}),
      ...(methods ? { methods } : {}),
      ...(runtime ? { runtime } : {}),
      ...(set.stubs === false ? { stubs: false } : {}),
      ...(core ? { core } : {}),
      ...(statuses ? { statuses } : {}),
    };
  });
  const outDir = "outDir" in root ? string(root.outDir, "/outDir") : undefined;
  if ("emit" in root && !EMIT_LANGUAGES.includes(root.emit as EmitLanguage)) {
    fail("/emit", `expected ${quoted(EMIT_LANGUAGES, " or ")} (TypeScript, or JavaScript ES modules with .d.ts declarations), got ${kindOf(root.emit)}`);
  }
  const emit = root.emit as EmitLanguage | undefined;
  if ("extension" in root && !MODULE_EXTENSIONS.includes(root.extension as ModuleExtension)) {
    fail("/extension", `expected ${quoted(MODULE_EXTENSIONS, " or ")} (.mts: ES module files whatever the project's package.json says), got ${kindOf(root.extension)}`);
  }
  const extension = root.extension as ModuleExtension | undefined;
  return { ...(outDir ? { outDir } : {}), sets, ...(emit ? { emit } : {}), ...(extension ? { extension } : {}) };

  /** A set's `names`: `file#/pointer` keys, each mapped to a distinct TypeScript name. */
  function namesFrom(value: unknown, at: string): Record<string, string> {
    const map = object(value, at, Object.keys((value ?? {}) as object));
    const chosenFor = new Map<string, string>();
    for (const [key, name] of Object.entries(map)) {
      const where = appendPointer(at, key);
      if (!splitNameKey(key)) {
        fail(where, `expected a key of the form "file#/json/pointer" (the file relative to the config), such as "schemas/x.json#/$defs/a b"; got ${JSON.stringify(key)}`);
      }
      const problem = unusableName(string(name, where));
      if (problem) fail(where, problem);
      const other = chosenFor.get(name as string);
      if (other !== undefined) fail(where, `the name "${name as string}" is already chosen for "${other}"`);
      chosenFor.set(name as string, key);
    }
    return map as Record<string, string>;
  }

  /**
   * A set's `statuses`: statuses the schema adds, each `{ "terminal": true | false }`. The five every
   * revision has are the protocol's (completed, failed and cancelled final, the others not): naming
   * one is an error here; a status the schema lacks is reported when the set is generated.
   */
  function statusesFrom(value: unknown, at: string): Record<string, StatusConfig> {
    const map = object(value, at, Object.keys((value ?? {}) as object));
    const statuses: Record<string, StatusConfig> = {};
    for (const [status, entry] of Object.entries(map)) {
      const where = appendPointer(at, status);
      if (status === "$comment") {
        string(entry, where);
        continue;
      }
      if ((TASK_STATUSES as readonly string[]).includes(status)) {
        fail(where, `"${status}" is one of the protocol's own statuses (${TASK_STATUSES.join(", ")}), whose finality is fixed; "statuses" is for statuses the schema adds`);
      }
      const fields = object(entry, where, STATUS_FIELDS);
      if ("$comment" in fields) string(fields.$comment, `${where}/$comment`);
      if (!("terminal" in fields)) fail(where, 'missing field "terminal": true if a task never leaves this status, false if it does');
      if (typeof fields.terminal !== "boolean") fail(`${where}/terminal`, `expected true or false, got ${kindOf(fields.terminal)}`);
      statuses[status] = { terminal: fields.terminal as boolean };
    }
    return statuses;
  }

  /** A set's `runtime`: known part names, each once (a misspelt one is reported with the nearest name). */
  function runtimeFrom(value: unknown, at: string): RuntimePart[] {
    const parts = strings(value, at, false);
    parts.forEach((_, i) => {
      const problem = partEntryProblem(parts, i);
      if (problem) fail(appendPointer(at, i), problem);
    });
    return parts as RuntimePart[];
  }

  /** A set's `lint`: known rule ids (a misspelt one is reported with the nearest id), each `off` or `warn`. */
  function lintFrom(value: unknown, at: string): LintSettings {
    const ids: readonly string[] = LINT_RULES.map((rule) => rule.id);
    const map = object(value, at, Object.keys((value ?? {}) as object));
    const settings: Partial<Record<LintRuleId, LintSetting>> = {};
    for (const [id, setting] of Object.entries(map)) {
      if (id === "$comment") {
        string(setting, appendPointer(at, id));
        continue;
      }
      if (!ids.includes(id)) {
        const guess = nearest(id, ids);
        fail(appendPointer(at, id), `unknown lint rule "${id}"; ${guess ? `did you mean "${guess}"?` : `the rules are ${quoted(ids)}`}`);
      }
      if (!LINT_SETTINGS.includes(setting as LintSetting)) {
        fail(appendPointer(at, id), `expected ${quoted(LINT_SETTINGS, " or ")} (off: never report this rule for the set), got ${kindOf(setting)}`);
      }
      settings[id as LintRuleId] = setting as LintSetting;
    }
    return settings;
  }

  /** A set's `methods`: JSON-RPC method names, each with a `params` and/or `result` definition name. */
  function methodsFrom(value: unknown, at: string): Record<string, MethodConfig> {
    const map = object(value, at, Object.keys((value ?? {}) as object));
    const methods: Record<string, MethodConfig> = {};
    for (const [method, entry] of Object.entries(map)) {
      const where = appendPointer(at, method);
      if (method === "$comment") {
        string(entry, where);
        continue;
      }
      const fields = object(entry, where, METHOD_FIELDS);
      if (!("params" in fields) && !("result" in fields)) fail(where, 'expected "params" or "result": the definition names this method lacks');
      for (const field of ["params", "result"] as const) {
        if (!(field in fields)) continue;
        const problem = unusableName(string(fields[field], `${where}/${field}`));
        if (problem) fail(`${where}/${field}`, `${problem}; expected the name of a definition of the set`);
      }
      methods[method] = {
        ...(fields.params !== undefined ? { params: fields.params as string } : {}),
        ...(fields.result !== undefined ? { result: fields.result as string } : {}),
      };
    }
    return methods;
  }

  /**
   * A set's `core`: the core schema file (a bundled set's own unless the config names another) and
   * definition names to add (checked against the file when the set is generated).
   */
  function coreFrom(value: unknown, at: string, bundledCore: string | undefined): CoreConfig {
    const fields = value === undefined ? {} : object(value, at, CORE_FIELDS);
    if ("$comment" in fields) string(fields.$comment, `${at}/$comment`);
    const schema = "schema" in fields ? string(fields.schema, `${at}/schema`) : bundledCore;
    if (schema === undefined) fail(at, 'missing field "schema": the core MCP schema file of the set\'s revision, relative to the config');
    const include = "include" in fields ? strings(fields.include, `${at}/include`, false) : undefined;
    include?.forEach((name, j) => {
      const problem = unusableName(name);
      if (problem) fail(`${at}/include/${j}`, `${problem}; expected the name of a definition of the core schema`);
    });
    return { schema: schema!, ...(include ? { include } : {}) };
  }

  /**
   * A bundled set's core schema: its own file, or the user's where the set's remotes map the URL the
   * bundled core stands for to a file of theirs (one document serves both, as in the bundle).
   */
  function bundledCore(bundled: { remotes: Record<string, string>; core?: string } | undefined, remotes: Record<string, string> | undefined): string | undefined {
    if (!bundled?.core) return undefined;
    const url = Object.keys(bundled.remotes).find((u) => bundled.remotes[u] === bundled.core);
    return url !== undefined && remotes?.[url] !== undefined ? remotes[url] : bundled.core;
  }

  /** The bundled set a config set names, checked: a known name, and no schema files of its own beside it. */
  function bundledFrom(set: Record<string, unknown>, at: string): { name: string; schemas: string[]; remotes: Record<string, string>; core?: string } {
    const name = string(set.bundled, `${at}/bundled`);
    const files = bundledSet(name);
    if (!files) fail(`${at}/bundled`, `unknown bundled set "${name}"; the bundled sets are ${quoted(BUNDLED_SET_NAMES)}`);
    // With "schemas" too, the set follows a newer revision of its own while keeping the bundled
    // set's core, bindings, remotes and lint treatment (README › When the spec changes).
    return { name, ...files!, ...("schemas" in set ? { schemas: strings(set.schemas, `${at}/schemas`, true) } : {}) };
  }
}

function quoted(values: readonly string[], last = ", "): string {
  const list = values.map((v) => `"${v}"`);
  return list.length < 2 ? list.join("") : `${list.slice(0, -1).join(", ")}${last}${list[list.length - 1]}`;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? `the string ${JSON.stringify(value)}` : typeof value;
}

/** A path as shown to users and in headers: relative to `base`, with forward slashes on every OS. */
export function displayPath(path: string, base: string): string {
  const rel = relative(base, path);
  const shown = rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? path : rel;
  return shown.split(sep).join("/");
}

/**
 * How generated code names a source file: relative to `base` (the config's folder, or an ad-hoc
 * run's output folder) even where that takes `../`, with forward slashes, so output is the same
 * wherever the project lies and whatever the working folder is.
 */
export function sourcePath(path: string, base: string): string {
  const rel = relative(base, path);
  // On Windows a file on another drive has no relative path; its absolute path is all there is.
  return (rel === "" ? "." : isAbsolute(rel) ? path : rel).split(sep).join("/");
}

export type { SourceLocation };
