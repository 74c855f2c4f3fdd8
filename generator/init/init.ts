/**
 * `mcp-tasks-gen init`: writes a starting `mcp-tasks-gen.config.json` into a project that has none.
 * JSON has no comments, so the explanations go into `$comment` fields, which the config checker
 * accepts at the root and in every set. The config names bundled schema sets (resolved from the
 * installed package, see bundled.ts), so it works unchanged on every machine.
 */
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, lstatSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync, type Stats } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { DEFAULT_CONFIG_FILE, sourcePath, type EmitLanguage, type ModuleExtension } from "../config/config.js";
import { GeneratorError } from "../diagnostics.js";
import { kindOf } from "../output/ownership.js";
import { BUNDLED_SET_NAMES, BUNDLED_SETS } from "./bundled.js";
import { peerInstallCommands, type RuntimePart } from "../emit/runtime-parts.js";

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
  /** The files' extension (default: `.mts` when the project's package.json is not `"type": "module"`, else `.ts`). */
  readonly extension?: ModuleExtension;
  /** Runtime parts to write into every set that can take them (`--runtime`). */
  readonly runtime?: readonly RuntimePart[];
  /** Replace an existing config file. */
  readonly force?: boolean;
}

export interface InitResult {
  readonly configPath: string;
  /** `outDir` as written into the config: relative to the config's folder, with forward slashes. */
  readonly outDir: string;
  readonly sets: readonly string[];
  readonly emit: EmitLanguage;
  readonly extension: ModuleExtension;
  /** Why `extension` is `.mts` when the user did not ask: the package.json that made it so. */
  readonly extensionReason?: string;
  /** The runtime parts some set of the config takes, whose peers the project needs. */
  readonly runtime: readonly RuntimePart[];
}

/** The JSON Schema of the config, at the root of the installed package: editors complete and check the config with it. */
export const CONFIG_SCHEMA_FILE = "config.schema.json";

/**
 * `$schema` as `init` writes it: the config schema of mcp-tasks-gen as npm installs it into the
 * project (`node_modules/mcp-tasks-gen/`, in the working folder `init` runs in), relative to the
 * config, which is how editors resolve it: `./node_modules/mcp-tasks-gen/config.schema.json`
 * beside the config. Not where this copy of mcp-tasks-gen runs from, which may be npx's cache.
 */
export function configSchemaReference(configDir: string, projectDir: string): string {
  const shown = sourcePath(join(projectDir, "node_modules", "mcp-tasks-gen", CONFIG_SCHEMA_FILE), configDir);
  // Another drive has no relative path: only the absolute one reaches it.
  return shown.startsWith("../") || isAbsolute(shown) ? shown : `./${shown}`;
}

/** The config `init` writes, as text. */
export function initConfigText(options: {
  schema: string;
  outDir: string;
  sets: readonly string[];
  emit: EmitLanguage;
  extension: ModuleExtension;
  runtime?: readonly RuntimePart[];
}): string {
  const config = {
    $schema: options.schema,
    $comment: [
      "mcp-tasks-gen config (typed, validated bindings for the MCP Tasks protocol and elicitation). After editing it or upgrading",
      "mcp-tasks-gen, run `npx mcp-tasks-gen` and commit the output; `npx mcp-tasks-gen --check` in CI fails when it is stale.",
      "$schema: the config's JSON Schema in the installed package, so editors complete and check this file.",
      "Paths are relative to this file. outDir: one folder per set goes below it.",
      'emit: "ts" (TypeScript) or "js" (JavaScript ES modules with .d.ts declarations).',
      'extension: ".ts", or ".mts" for ES module files in a project whose package.json is not "type": "module" (.mjs + .d.mts with emit "js").',
      'sets: "bundled" sets ship with mcp-tasks-gen (delete those you do not need); for your own schema files write',
      '{ "name": "my-set", "schemas": ["my.schema.json"], "remotes": { "https://example.com/remote.json": "local-copy.json" } }.',
      'runtime (per set): parts written into the set\'s folder beside the stubs, each naming the peer it needs: "http-client", "http-server",',
      '"stdio" (Node\'s typings), "sdk-client" and "sdk-server" (@modelcontextprotocol/sdk ^1.24, the client and the 2025-11-25 server in the SDK), "sqlite-store" (better-sqlite3 ^12), "redis-store" (ioredis ^5), "postgres-store" (pg ^8). "stubs": false: types and validators only.',
    ].join(" "),
    outDir: options.outDir,
    emit: options.emit,
    extension: options.extension,
    sets: options.sets.map((name) => {
      // A set gets the asked-for parts it can take (a set without a server takes no server part).
      const runtime = (options.runtime ?? []).filter((part) => BUNDLED_SETS[name]!.parts.includes(part));
      return { $comment: BUNDLED_SETS[name]!.description, name, bundled: name, ...(runtime.length > 0 ? { runtime } : {}) };
    }),
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
  const host = hostModuleFormat(options.cwd);
  const extension = options.extension ?? (host.esm ? ".ts" : ".mts");
  const schema = configSchemaReference(configDir, options.cwd);
  const runtime = options.runtime ?? [];
  const text = initConfigText({ schema, outDir, sets, emit, extension, runtime });
  writeConfig(options.configPath, text, options.force === true, shown(options.configPath, options.cwd));
  const reason = options.extension === undefined && !host.esm ? host.reason : undefined;
  const taken = runtime.filter((part) => sets.some((name) => BUNDLED_SETS[name]!.parts.includes(part)));
  return { configPath: options.configPath, outDir, sets, emit, extension, ...(reason ? { extensionReason: reason } : {}), runtime: taken };
}

/**
 * Whether the project's `.ts` files are ES modules: Node (and TypeScript under NodeNext) decide by the
 * nearest package.json's `"type"`, and anything but `"module"` (npm init writes `"commonjs"`) means
 * CommonJS. Read from the folder init runs in, upwards.
 */
export function hostModuleFormat(cwd: string): { esm: boolean; reason: string } {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      let type: unknown;
      try {
        type = (JSON.parse(readFileSync(file, "utf8")) as { type?: unknown }).type;
      } catch {
        type = undefined;
      }
      const shownFile = shown(file, cwd);
      return type === "module"
        ? { esm: true, reason: `${shownFile} says "type": "module"` }
        : { esm: false, reason: `${shownFile} ${type === undefined ? 'has no "type"' : `says "type": ${JSON.stringify(type)}`}, so its .ts files are CommonJS` };
    }
    if (dirname(dir) === dir) return { esm: false, reason: "no package.json was found, so .ts files are CommonJS" };
  }
}

/**
 * Writes the config file whole or not at all, so a failure never leaves a truncated config.
 * Without `force` the file is created exclusively (it fails if one of that name exists, even one
 * that appeared meanwhile) and removed again if writing it fails. With `force` the text goes to a
 * temporary file beside it, which then takes the config's name; only a regular file is replaced
 * (a folder, link or other non-file never is).
 */
function writeConfig(path: string, text: string, force: boolean, display: string): void {
  const existing = lstatOrUndefined(path);
  const refusal = `${display} already exists; mcp-tasks-gen init leaves it as it is (edit it, or pass --force to replace it)`;
  if (existing && !force) throw new GeneratorError(undefined, refusal, "config");
  if (existing && !existing.isFile()) {
    throw new GeneratorError(undefined, `${display} is ${kindOf(existing)}, not a config file; mcp-tasks-gen init replaces only a regular file, even with --force`, "config");
  }
  try {
    if (force) {
      const temporary = join(dirname(path), `.${basename(path)}.mcp-tasks-gen-${randomBytes(6).toString("hex")}`);
      try {
        writeFileSync(temporary, text, { flag: "wx" });
        renameSync(temporary, path);
      } finally {
        rmSync(temporary, { force: true });
      }
    } else {
      const fd = openSync(path, "wx");
      try {
        writeFileSync(fd, text);
        closeSync(fd);
      } catch (e) {
        closeSync(fd);
        unlinkSync(path);
        throw e;
      }
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new GeneratorError(undefined, refusal, "config");
    throw new GeneratorError(undefined, `cannot write ${display}: ${code ?? (e as Error).message}`, "config");
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** What `init` prints: what it wrote and what to run next. */
export function initReport(result: InitResult, cwd: string): string {
  const config = shown(result.configPath, cwd);
  const defaultConfig = config === DEFAULT_CONFIG_FILE;
  const withConfig = defaultConfig ? "" : ` --config ${config}`;
  const out = shown(resolve(dirname(result.configPath), result.outDir), cwd);
  const mts = result.extension === ".mts";
  const language = result.emit === "js" ? `JavaScript (${mts ? ".mjs + .d.mts" : ".js + .d.ts"})` : `TypeScript${mts ? " (.mts)" : ""}`;
  const generate = `npx mcp-tasks-gen${withConfig}`;
  const check = `${generate} --check`;
  const peers = peerInstallCommands(result.runtime);
  return [
    `wrote ${config} (sets ${result.sets.join(", ")}; ${language} into ${out}/)`,
    ...(result.extensionReason
      ? [`"extension": ".mts": ${result.extensionReason}; .mts files are ES modules in any project (import them from CommonJS with Node 20.19 or later)`]
      : []),
    "",
    "Next:",
    // What the runtime parts import (their headers name it): without it the project's tsc fails on the generated folder.
    ...(peers.length > 0 ? ["  the packages the runtime parts import (@types/node: Node's typings, for the HTTP and stdio parts too):", ...peers.map((command) => `    ${command}`)] : []),
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
