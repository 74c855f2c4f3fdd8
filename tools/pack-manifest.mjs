#!/usr/bin/env node
/**
 * The published package.json: this repository's manifest without what only the repository uses.
 *
 * The repository needs `scripts.prepare` (an `npm install`/`npm ci` of a clone builds dist/ and
 * installs tools/conformance/) and `allowScripts` (npm 11's policy for better-sqlite3's native
 * build). A consumer needs neither: in the tarball they are install hooks for files it does not
 * contain, and npm 11 warns about them in every install from a tarball or git. None of the other
 * scripts can run from the package either (they need tsconfig, test/, bench/, tools/), so the
 * published manifest has no `scripts` at all.
 *
 * npm has no field for "publish this manifest instead", so package.json is rewritten while npm
 * packs it and restored afterwards, byte for byte:
 *
 *   prepack   saves package.json into .package.json.packing, writes the published manifest, and
 *             starts a guard process
 *   postpack  restores it (`npm pack`); during `npm publish` it leaves the published manifest in
 *             place, because npm reads package.json again after packing and sends that to the
 *             registry (and runs `postpublish` from that manifest, which has no scripts)
 *   guard     restores it once the npm process has exited, whatever happened: after
 *             `npm publish` (and `--dry-run`), and when packing or publishing fails after prepack
 *             (a tarball name taken by a folder, a registry refusal, Ctrl-C), where npm runs no
 *             script any more. It looks every 50 ms, so package.json is back within about that
 *             time of npm's exit.
 *
 * The save file is also a lock: a second `npm pack` waits for the first one to finish, and a save
 * file whose npm process is gone (the machine stopped mid-pack) is restored before anything else.
 * `npm pack --ignore-scripts` and `npm publish --ignore-scripts` skip all of this and ship the
 * repository's manifest: do not publish that way (test/package/pack.test.ts checks what `npm pack` ships).
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MANIFEST = join(ROOT, "package.json");
const SAVED = join(ROOT, ".package.json.packing");

/** Fields of the repository's manifest that the published one leaves out (see above). */
export const REPOSITORY_ONLY_FIELDS = ["scripts", "allowScripts"];

/** The published manifest for the text of the repository's package.json: same indentation and final newline. */
export function publishedManifest(text) {
  const manifest = JSON.parse(text);
  for (const field of REPOSITORY_ONLY_FIELDS) delete manifest[field];
  const indent = /^\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
  const newline = text.includes("\r\n") ? "\r\n" : "\n";
  const body = JSON.stringify(manifest, null, indent).replace(/\n/g, newline);
  return /\r?\n$/.test(text) ? body + newline : body;
}

/** Whether a process of that id is running (or at least exists). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

/** The save file's contents, or undefined when there is none. */
function readSaved() {
  try {
    return JSON.parse(readFileSync(SAVED, "utf8"));
  } catch (e) {
    if (e.code === "ENOENT") return undefined;
    throw e;
  }
}

/** Writes a file whole: a temporary file beside it, renamed over it (a reader never sees half of it). */
function writeWhole(path, contents) {
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

/** Puts the saved package.json back and removes the save file (one saved before package.json was touched holds none). */
function restore(saved) {
  if (typeof saved.original === "string") writeWhole(MANIFEST, Buffer.from(saved.original, "base64"));
  rmSync(SAVED, { force: true });
}

/** The parent process id and command name of a process, or undefined where the system does not say. */
function parentOf(pid) {
  try {
    if (process.platform === "linux") {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      return { ppid: Number(stat.slice(close + 2).split(" ")[1]), command: stat.slice(stat.indexOf("(") + 1, close) };
    }
    if (process.platform !== "win32") {
      const [ppid, ...command] = execFileSync("ps", ["-o", "ppid=,comm=", "-p", String(pid)], { encoding: "utf8" }).trim().split(/\s+/);
      return { ppid: Number(ppid), command: basename(command.join(" ")) };
    }
  } catch {
    // fall through: unknown
  }
  return undefined;
}

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ash", "ksh", "cmd.exe", "cmd"]);

/**
 * The npm process that runs this script: npm runs a script through a shell (`sh -c`), so it is the
 * parent, or the shell's parent. Undefined where that cannot be told (Windows): then only postpack
 * restores (during `npm publish` too), and the next prepack repairs what a failed run left.
 */
function npmProcess() {
  const parent = parentOf(process.ppid);
  if (!parent) return undefined;
  return SHELLS.has(parent.command) ? parent.ppid : process.ppid;
}

async function sleep(ms) {
  await new Promise((done) => setTimeout(done, ms));
}

/** Saves package.json (taking the save file as a lock), writes the published manifest, starts the guard. */
async function prepack() {
  refuseMissingDestination();
  const npm = npmProcess() ?? 0;
  const token = randomBytes(8).toString("hex");
  const temporary = `${SAVED}.${token}.tmp`;
  // The lock first (without the manifest: package.json may still be another run's published one).
  writeFileSync(temporary, JSON.stringify({ npm, token }));
  try {
    for (let waited = 0; ; waited += 100) {
      try {
        linkSync(temporary, SAVED); // creates the save file only if there is none
        break;
      } catch (e) {
        if (e.code !== "EEXIST") throw e;
      }
      const other = readSaved();
      if (other === undefined) continue;
      if (other.npm > 0 && alive(other.npm)) {
        // Another npm is packing this package: wait for it to restore package.json.
        if (waited > 300_000) throw new Error(`${SAVED} is held by npm process ${other.npm} for over 5 minutes; if no npm runs, delete it`);
        await sleep(100);
      } else {
        restore(other); // left by an npm that is gone: put its package.json back first
      }
    }
  } finally {
    rmSync(temporary, { force: true });
  }
  const original = readFileSync(MANIFEST);
  const published = publishedManifest(original.toString("utf8"));
  writeWhole(SAVED, JSON.stringify({ npm, token, original: original.toString("base64") }));
  // The guard before the rewrite: from here on, whatever happens, package.json comes back.
  if (npm) {
    spawn(process.execPath, [fileURLToPath(import.meta.url), "guard", String(npm), token], { detached: true, stdio: "ignore" }).unref();
  }
  writeWhole(MANIFEST, published);
}

/**
 * `npm pack --pack-destination DIR` with no folder DIR fails after packing, when no script runs any
 * more: refuse before package.json is touched, so the commonest failure leaves it as it was at once.
 */
function refuseMissingDestination() {
  const destination = process.env.npm_config_pack_destination;
  if (process.env.npm_command !== "pack" || process.env.npm_config_dry_run === "true" || !destination) return;
  const folder = resolve(process.env.INIT_CWD ?? process.cwd(), destination);
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
    process.stderr.write(`mcp-tasks-gen prepack: --pack-destination ${destination}: no such folder (${folder}); package.json is unchanged\n`);
    process.exit(1);
  }
}

/**
 * Restores package.json after `npm pack`. `npm publish` reads package.json again after packing and
 * sends it to the registry: there the guard restores it when npm exits (where there is no guard,
 * the registry gets the repository's manifest, the tarball still the published one).
 */
function postpack() {
  const saved = readSaved();
  if (!saved) return;
  if (process.env.npm_command === "publish" && saved.npm > 0) return;
  restore(saved);
}

/** Waits for the npm process to exit, then restores package.json if the save file is still the one of that run. */
async function guard(npm, token) {
  for (;;) {
    const saved = readSaved();
    if (!saved || saved.token !== token) return; // restored already (postpack), or another run holds it
    if (!alive(npm)) {
      restore(saved);
      return;
    }
    await sleep(50);
  }
}

const [command, ...args] = process.argv.slice(2);
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (command === "prepack") await prepack();
  else if (command === "postpack") postpack();
  else if (command === "guard") await guard(Number(args[0]), args[1]);
  else {
    process.stderr.write("usage: node tools/pack-manifest.mjs prepack|postpack\n");
    process.exitCode = 2;
  }
}
