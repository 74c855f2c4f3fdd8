import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { projectRoot } from "./paths.js";

/**
 * Building and packing this package, for the tests of what it publishes (test/pack.test.ts) and
 * of how another project uses it (test/consumer-e2e.test.ts). npm must be there: without it
 * these tests fail, never skip.
 */

/** Every file below `dir`, as paths relative to `root` with forward slashes. */
export function filesBelow(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesBelow(path, root) : [relative(root, path).split("\\").join("/")];
  });
}

/** Whether dist/ holds a compiled file at least as new as every generator source. */
function distIsFresh(): boolean {
  return filesBelow(join(projectRoot, "generator"))
    .filter((file) => file.endsWith(".ts"))
    .every((file) => {
      const source = join(projectRoot, "generator", file);
      const compiled = join(projectRoot, "dist", "generator", file.replace(/\.ts$/, ".js"));
      return existsSync(compiled) && statSync(compiled).mtimeMs >= statSync(source).mtimeMs;
    });
}

/** Builds dist/ (`npm run build`) unless it is up to date with the sources. */
export function ensureBuilt(): void {
  if (distIsFresh()) return;
  const tsc = join(projectRoot, "node_modules", "typescript", "bin", "tsc");
  const build = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: projectRoot, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
}

/**
 * The environment for npm in a project of its own: without the variables npm sets for the
 * script or `npx` that runs these tests (they describe this package, not the other project).
 */
export function npmEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package|lifecycle)_|^npm_config_local_prefix$|^INIT_CWD$/i.test(key)) continue;
    env[key] = value;
  }
  return env;
}

/** Runs npm (or npx) and returns what it did; throws when it cannot be started at all. */
export function runNpm(command: "npm" | "npx", args: readonly string[], cwd: string, timeout = 300_000): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: npmEnvironment(), timeout, shell: process.platform === "win32" });
  if (result.error) throw new Error(`${command} ${args.join(" ")} could not run (is npm installed and on PATH?): ${result.error.message}`);
  return result;
}

/** Output and exit code of a run, for assertion messages. */
export function transcript(result: SpawnSyncReturns<string>): string {
  return `exit ${result.status}${result.signal ? ` (${result.signal})` : ""}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/** One entry of `npm pack --json`. */
export interface PackResult {
  readonly filename: string;
  readonly files: readonly { readonly path: string; readonly size: number }[];
}

/**
 * `npm pack --json` of this package (after building it), either as a dry run (`destination`
 * undefined) or writing the tarball into `destination`. Lifecycle scripts are skipped: the
 * build they would run has just been done.
 */
export function npmPack(destination?: string): PackResult {
  ensureBuilt();
  const args = ["pack", "--json", "--ignore-scripts", ...(destination ? ["--pack-destination", destination] : ["--dry-run"])];
  const result = runNpm("npm", args, projectRoot);
  if (result.status !== 0) throw new Error(`npm ${args.join(" ")} failed:\n${transcript(result)}`);
  const parsed = JSON.parse(result.stdout) as PackResult[];
  if (parsed.length !== 1) throw new Error(`npm pack --json described ${parsed.length} packages, expected 1`);
  return parsed[0]!;
}
