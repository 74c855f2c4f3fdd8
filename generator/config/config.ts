/**
 * The configuration: `mcp-tasks-gen.config.json`, checked field by field so a typo is reported
 * where it is (`mcp-tasks-gen.config.json#/sets/0/schemas: ...`) instead of being ignored.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { GeneratorError, type SourceLocation } from "../diagnostics.js";
import type { Dialect } from "../load/dialect.js";
import { appendPointer } from "../load/json-pointer.js";

export const DEFAULT_CONFIG_FILE = "mcp-tasks-gen.config.json";

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
}

/** `json-schema`: every branch judges the whole value. `merged`: one object with the properties of all branches. */
export type AllOfMode = "json-schema" | "merged";
export const ALL_OF_MODES: readonly AllOfMode[] = ["json-schema", "merged"];

export interface UserConfig {
  readonly outDir?: string;
  readonly sets: readonly SchemaSetConfig[];
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
  readonly annotations: readonly string[];
  readonly allOf: AllOfMode;
}

export interface ResolvedConfig {
  /** Paths in messages and file headers are shown relative to this folder. */
  readonly rootDir: string;
  readonly sets: readonly ResolvedSet[];
}

const DIALECTS: readonly Dialect[] = ["draft-07", "2019-09", "2020-12"];

export function readConfigFile(path: string): ResolvedConfig {
  const display = displayPath(path, process.cwd());
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new GeneratorError({ file: display, pointer: "" }, `cannot read the config file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, "config");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new GeneratorError({ file: display, pointer: "" }, `the config file is not valid JSON: ${(e as Error).message}`, "config");
  }
  const config = checkConfig(json, display);
  return resolveConfig(config, dirname(resolve(path)), display);
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
      annotations: set.annotations ?? [],
      allOf: set.allOf ?? "json-schema",
    })),
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
        fail(appendPointer(pointer, key), `unknown field "${key}"; expected one of ${allowed.map((a) => `"${a}"`).join(", ")}`);
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

  const root = object(json, "", ["$schema", "$comment", "outDir", "sets"]);
  if (!("sets" in root)) fail("", 'missing field "sets": the schema sets to generate');
  if (!Array.isArray(root.sets) || root.sets.length === 0) fail("/sets", "expected a non-empty array of schema sets");
  const names = new Set<string>();
  const sets = (root.sets as unknown[]).map((raw, i): SchemaSetConfig => {
    const at = `/sets/${i}`;
    const set = object(raw, at, ["$comment", "name", "schemas", "remotes", "defaultDialect", "annotations", "allOf"]);
    const name = string(set.name, `${at}/name`);
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) fail(`${at}/name`, `"${name}" is not a usable folder name (letters, digits, ".", "_", "-")`);
    if (names.has(name)) fail(`${at}/name`, `two sets are named "${name}"`);
    names.add(name);
    const schemas = strings(set.schemas, `${at}/schemas`, true);
    let remotes: Record<string, string> | undefined;
    if ("remotes" in set) {
      const map = object(set.remotes, `${at}/remotes`, Object.keys(set.remotes ?? {}));
      remotes = Object.fromEntries(Object.entries(map).map(([url, file]) => [url, string(file, appendPointer(`${at}/remotes`, url))]));
    }
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
    return {
      name,
      schemas,
      ...(remotes ? { remotes } : {}),
      ...(defaultDialect ? { defaultDialect } : {}),
      ...(annotations ? { annotations } : {}),
      ...(allOf ? { allOf } : {}),
    };
  });
  const outDir = "outDir" in root ? string(root.outDir, "/outDir") : undefined;
  return { ...(outDir ? { outDir } : {}), sets };
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

export type { SourceLocation };
