import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { gunzipSync } from "node:zlib";
import { join, relative } from "node:path";
import { projectRoot } from "./paths.js";

/**
 * Building and packing this package, for the tests of what it publishes (test/package/pack.test.ts) and
 * of how another project uses it (test/package/consumer-e2e.test.ts). npm must be there: without it
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
 * What packing reads from the repository: the manifest, the build's inputs and scripts (tools/, whose
 * conformance runner `npm pack` does not install: tools/conformance/install.mjs skips it when packing),
 * and the files the package ships.
 */
const PACKED_INPUTS = ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "generator", "templates", "schemas", "tools", "config.schema.json", "README.md", "CHANGELOG.md", "LICENSE"];

/**
 * A copy of the repository to pack in, in a new temporary folder (the caller removes it), with the
 * repository's node_modules linked. `npm pack` runs `prepack`, which rebuilds dist/ (deleting it
 * first) and rewrites package.json while npm packs: done in the repository itself, that pulled the
 * bin and the manifest from under every test file running beside it (vitest runs several at once
 * on a machine with more than two cores). In a copy, nothing another test reads changes.
 */
export function repositoryCopy(): string {
  const copy = realpathSync(mkdtempSync(join(tmpdir(), "mcp-tasks-gen-repo-")));
  for (const entry of PACKED_INPUTS) {
    cpSync(join(projectRoot, entry), join(copy, entry), {
      recursive: true,
      filter: (source) => !source.includes(`${join("tools", "conformance", "node_modules")}`) && !source.endsWith(".package.json.packing"),
    });
  }
  symlinkSync(join(projectRoot, "node_modules"), join(copy, "node_modules"), "junction");
  return copy;
}

/**
 * `npm pack --json` of the package in `root` (a {@link repositoryCopy}), either as a dry run
 * (`destination` undefined) or writing the tarball into `destination`. Lifecycle scripts run, as in
 * `npm publish`: `prepack` builds dist/ and writes the published package.json, `postpack` restores
 * the repository's (see tools/pack-manifest.mjs); two packs at once wait for each other there.
 */
export function npmPack(root: string, destination?: string): PackResult {
  const args = ["pack", "--json", ...(destination ? ["--pack-destination", destination] : ["--dry-run"])];
  const result = runNpm("npm", args, root);
  if (result.status !== 0) throw new Error(`npm ${args.join(" ")} failed:\n${transcript(result)}`);
  const parsed = JSON.parse(result.stdout) as PackResult[];
  if (parsed.length !== 1) throw new Error(`npm pack --json described ${parsed.length} packages, expected 1`);
  return parsed[0]!;
}

/**
 * A file of a `.tgz` made by `npm pack`, as text; undefined when the tarball has no such file.
 * A tar archive is a run of 512-byte headers, each followed by its file's bytes padded to 512;
 * a pax header (type `x`) may give the next entry's path.
 */
export function fileInTarball(tarball: string, path: string): string | undefined {
  const tar = gunzipSync(readFileSync(tarball));
  const text = (from: number, length: number) => tar.subarray(from, from + length).toString("utf8").replace(/\0.*$/s, "");
  let paxPath: string | undefined;
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
    const size = parseInt(text(at + 124, 12).trim() || "0", 8);
    const type = text(at + 156, 1);
    const prefix = text(at + 345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${text(at, 100)}` : text(at, 100));
    const body = tar.subarray(at + 512, at + 512 + size);
    paxPath = undefined;
    if (type === "x") paxPath = /\d+ path=([^\n]*)\n/.exec(body.toString("utf8"))?.[1];
    else if (name === path) return body.toString("utf8");
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}
