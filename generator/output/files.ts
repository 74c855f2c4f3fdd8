/**
 * Writing and checking generated folders.
 *
 * The tool replaces only what it wrote (see ownership.ts): before anything is written, every
 * target of the run is inspected, and anything in the way that mcp-tasks-gen did not write stops
 * the run with one line naming it, nothing changed. `force` lets it delete foreign entries inside a
 * folder that holds its manifest, never anything else.
 *
 * Writing is all or nothing across the run: every set is first written to a staging folder inside
 * its target, then the sets are swapped in one after the other (the old entries moved to a backup
 * folder, the new files moved in: renames within one folder, so a target that is a mount point or
 * the working folder keeps working). Each step is journalled; on any failure the journal is undone
 * in reverse, so every target is as it was before the run. Only when every set is in are the
 * backups removed. Existing target folders keep their own mode; created folders and files get the
 * normal ones (the process umask applies).
 */
import * as nodeFs from "node:fs";
import type { Dirent, MakeDirectoryOptions, RmOptions, Stats } from "node:fs";
import { randomBytes } from "node:crypto";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { GeneratorError, type SourceLocation } from "../diagnostics.js";
import { MANIFEST_FILE, manifestText, withLfLineEnds } from "./manifest.js";
import { BACKUP_PREFIX, inspectTarget, STAGING_PREFIX, TEMPORARY_SUFFIX_BYTES, type ForeignEntry, type InspectFs, type TargetState } from "./ownership.js";

export interface GeneratedFile {
  /** File name inside its set folder (`types.ts`). */
  readonly name: string;
  readonly contents: string;
}

export interface GeneratedSet {
  readonly name: string;
  /** Absolute path of the set's output folder. */
  readonly outDir: string;
  readonly files: readonly GeneratedFile[];
  /** Where the output folder was configured, for messages when it cannot be written. */
  readonly outDirOrigin?: SourceLocation;
}

/** The file system calls writing makes; tests pass a wrapper to make one of them fail. */
export interface OutputFs extends InspectFs {
  mkdirSync(path: string, options?: MakeDirectoryOptions & { recursive?: boolean }): string | undefined;
  writeFileSync(path: string, data: string, options?: { flag?: string }): void;
  renameSync(from: string, to: string): void;
  rmSync(path: string, options?: RmOptions): void;
  rmdirSync(path: string): void;
}

const NODE_FS: OutputFs = {
  lstatSync: (path) => nodeFs.lstatSync(path),
  statSync: (path) => nodeFs.statSync(path),
  readdirSync: (path, options) => nodeFs.readdirSync(path, options) as Dirent[],
  readFileSync: (path) => nodeFs.readFileSync(path),
  mkdirSync: (path, options) => nodeFs.mkdirSync(path, options),
  writeFileSync: (path, data, options) => nodeFs.writeFileSync(path, data, options),
  renameSync: (from, to) => nodeFs.renameSync(from, to),
  rmSync: (path, options) => nodeFs.rmSync(path, options),
  rmdirSync: (path) => nodeFs.rmdirSync(path),
};

export interface WriteOptions {
  /** Delete foreign entries inside folders holding our manifest instead of refusing (`--force`). */
  readonly force?: boolean;
  /** How messages show a path (default: as is, absolute). */
  readonly show?: (path: string) => string;
  /** The file system to use (default: node:fs). */
  readonly fs?: OutputFs;
}

/** The manifest of a set (see manifest.ts): written with it, checked by `--check`. */
export function manifestOf(set: GeneratedSet): GeneratedFile {
  return { name: MANIFEST_FILE, contents: manifestText(set.files) };
}

/** Every file a set's folder holds once written: its files and its manifest. */
export function filesToWrite(set: GeneratedSet): GeneratedFile[] {
  return [...set.files, manifestOf(set)];
}

/**
 * Writes every set, or nothing: throws GeneratorError (kind "output") when a target holds what
 * mcp-tasks-gen did not write or when writing fails, with every target as it was.
 */
export function writeSets(sets: readonly GeneratedSet[], options: WriteOptions = {}): void {
  const fs = options.fs ?? NODE_FS;
  const show = options.show ?? ((path: string) => path);
  checkSeparateTargets(sets, show);
  const states = inspectTargets(sets, fs);
  for (const [i, set] of sets.entries()) {
    const refusal = refusalFor(set.outDir, states[i]!, options.force === true, show);
    if (refusal) throw new GeneratorError(set.outDirOrigin, refusal, "output");
  }

  const journal = new Journal(fs);
  const runs = sets.map((set) => ({ set, staging: "", backup: "" }));
  let current: GeneratedSet | undefined;
  try {
    for (const run of runs) {
      current = run.set;
      run.staging = stage(run.set, journal);
    }
    for (const run of runs) {
      current = run.set;
      run.backup = swap(run.set.outDir, run.staging, journal);
    }
  } catch (e) {
    const unrestored = journal.undo();
    const restored = unrestored.length === 0 ? "every output folder is as it was" : `could not restore ${unrestored.map(show).join(", ")}`;
    throw new GeneratorError(current?.outDirOrigin, `cannot write ${show(current!.outDir)}: ${reason(e)}; ${restored}`, "output");
  }
  // Committed: what is left is removing our own temporary folders (the old files, the empty staging
  // folders). It cannot undo the run; a folder left over here is recognised and removed by the next run.
  for (const run of runs) {
    for (const remove of [() => fs.rmSync(run.backup, { recursive: true, force: true }), () => fs.rmdirSync(run.staging)]) {
      try {
        remove();
      } catch {
        // left for the next run (see TEMPORARY_FOLDER in ownership.ts)
      }
    }
  }
}

/** What stands at each set's target: a folder's foreign entries, or what blocks it. */
export function inspectTargets(sets: readonly Pick<GeneratedSet, "outDir" | "outDirOrigin">[], fs: InspectFs = NODE_FS): TargetState[] {
  return sets.map((set) => {
    try {
      return inspectTarget(set.outDir, fs);
    } catch (e) {
      throw new GeneratorError(set.outDirOrigin, `cannot read ${set.outDir}: ${reason(e)}; nothing was written`, "output");
    }
  });
}

/** How many foreign entries a message names before it says "and N more". */
const NAMED_ENTRIES = 5;

/** Why a target may not be written, as the detail of a one-line message; undefined when it may. */
export function refusalFor(target: string, state: TargetState, force: boolean, show: (path: string) => string): string | undefined {
  if (state.kind === "missing") return undefined;
  if (state.kind === "blocked") {
    if (state.path === target) {
      return `${show(target)} is ${state.what}, not a folder: mcp-tasks-gen writes a folder there and replaces nothing it did not write; nothing was written`;
    }
    return `cannot write ${show(target)}: ${show(state.path)} is ${state.what}, not a folder; nothing was written`;
  }
  if (state.foreign.length === 0) return undefined;
  if (force && state.manifest) return undefined;
  const edited = state.foreign.some((e) => e.edited) ? " or that were edited since it wrote them" : "";
  const holds = `${show(target)} holds ${entriesList(state.foreign)} that mcp-tasks-gen did not write${edited}: nothing was written`;
  if (state.manifest) return `${holds} (move them out of the generated folder, or pass --force to delete them)`;
  const forced = force ? `; --force does not apply: the folder has no ${MANIFEST_FILE}, the manifest of a folder mcp-tasks-gen generated` : "";
  return `${holds} (move them away, or choose a new or empty folder)${forced}`;
}

/** `3 entries (a.ts, notes/, types.ts (edited))`, the first few by name. */
function entriesList(entries: readonly ForeignEntry[]): string {
  const named = entries.slice(0, NAMED_ENTRIES).map((e) => `${shownName(e.name)}${e.edited ? " (edited)" : ""}`);
  const more = entries.length > NAMED_ENTRIES ? ` and ${entries.length - NAMED_ENTRIES} more` : "";
  return `${entries.length} ${entries.length === 1 ? "entry" : "entries"} (${named.join(", ")}${more})`;
}

/** A file name as a message shows it: quoted when it would break the one-line message or read ambiguously. */
function shownName(name: string): string {
  return /^[^\s,()"\p{Cc}\p{Zl}\p{Zp}]+$/u.test(name) ? name : JSON.stringify(name);
}

/** Two sets writing into one folder, or one inside another's, would swap each other's files. */
function checkSeparateTargets(sets: readonly GeneratedSet[], show: (path: string) => string): void {
  for (const [i, a] of sets.entries()) {
    for (const b of sets.slice(i + 1)) {
      if (isWithin(a.outDir, b.outDir) || isWithin(b.outDir, a.outDir)) {
        throw new GeneratorError(b.outDirOrigin, `sets "${a.name}" and "${b.name}" would write into overlapping folders (${show(a.outDir)}, ${show(b.outDir)})`, "output");
      }
    }
  }
}

/** Whether `path` is `folder` or lies below it. */
function isWithin(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** A new folder named `prefix` plus a random suffix, created with the normal mode (umask applies). */
function uniqueFolder(fs: OutputFs, parent: string, prefix: string): string {
  for (;;) {
    const path = join(parent, `${prefix}${randomBytes(TEMPORARY_SUFFIX_BYTES).toString("hex")}`);
    try {
      fs.mkdirSync(path);
      return path;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
}

/** Creates the target if missing, and writes the set's files and manifest into a staging folder inside it. */
function stage(set: GeneratedSet, journal: Journal): string {
  const fs = journal.fs;
  // mkdirSync returns the first folder it created: removing that undoes all of them.
  const created = fs.mkdirSync(set.outDir, { recursive: true });
  if (created !== undefined) journal.did(() => fs.rmSync(created, { recursive: true, force: true }), created);
  const staging = uniqueFolder(fs, set.outDir, STAGING_PREFIX);
  journal.did(() => fs.rmSync(staging, { recursive: true, force: true }), staging);
  for (const file of filesToWrite(set)) {
    const path = join(staging, ...file.name.split("/"));
    // The static runtime sits in a subfolder (`runtime/client/engine.ts`); staging is new, so the folders are too.
    if (file.name.includes("/")) fs.mkdirSync(dirname(path), { recursive: true });
    fs.writeFileSync(path, file.contents, { flag: "wx" });
  }
  return staging;
}

/** Moves the target's old entries into a backup folder inside it, then the staged files in; returns the backup folder. */
function swap(target: string, staging: string, journal: Journal): string {
  const fs = journal.fs;
  const backup = uniqueFolder(fs, target, BACKUP_PREFIX);
  // Not recursive: if an old entry could not be moved back, the backup keeps it rather than deleting it.
  journal.did(() => fs.rmdirSync(backup), backup);
  const ours = new Set([staging, backup].map((p) => p.slice(target.length + 1)));
  for (const entry of fs.readdirSync(target, { withFileTypes: true })) {
    if (ours.has(entry.name)) continue;
    journal.rename(join(target, entry.name), join(backup, entry.name));
  }
  for (const entry of fs.readdirSync(staging, { withFileTypes: true })) {
    journal.rename(join(staging, entry.name), join(target, entry.name));
  }
  return backup;
}

/** The steps done so far, each with how to undo it. */
class Journal {
  private readonly steps: { undo: () => void; path: string }[] = [];

  constructor(readonly fs: OutputFs) {}

  did(undo: () => void, path: string): void {
    this.steps.push({ undo, path });
  }

  rename(from: string, to: string): void {
    this.fs.renameSync(from, to);
    this.did(() => this.fs.renameSync(to, from), from);
  }

  /** Undoes every step, last first; returns the paths it could not restore. */
  undo(): string[] {
    const failed: string[] = [];
    for (const step of this.steps.reverse()) {
      try {
        step.undo();
      } catch {
        failed.push(step.path);
      }
    }
    this.steps.length = 0;
    return failed;
  }
}

function reason(e: unknown): string {
  const error = e as NodeJS.ErrnoException;
  return error.code && error.syscall ? `${error.code} (${error.syscall})` : error.message;
}

export interface Difference {
  readonly set: string;
  readonly file: string;
  /** `extra`: in the folder, but not written by mcp-tasks-gen (a run refuses to replace the folder). */
  readonly change: "modified" | "missing" | "extra";
}

/**
 * What differs between the generated sets (with their manifests) and the folders on disk. Line
 * ends are compared as LF: a checkout with CRLF line ends is not stale.
 */
export function compareSets(sets: readonly GeneratedSet[], fs: InspectFs = NODE_FS): Difference[] {
  const differences: Difference[] = [];
  for (const set of sets) {
    const expected = filesToWrite(set);
    const names = new Set(expected.map((f) => f.name));
    const onDisk = new Map(filesOnDisk(set.outDir, "", names, fs).map((e) => [e.name, e.entry]));
    for (const file of expected) {
      const entry = onDisk.get(file.name);
      if (!entry) differences.push({ set: set.name, file: file.name, change: "missing" });
      else if (!entry.isFile() || !sameText(fs.readFileSync(join(set.outDir, ...file.name.split("/"))).toString("utf8"), file.contents)) {
        differences.push({ set: set.name, file: file.name, change: "modified" });
      }
    }
    for (const [name, entry] of onDisk) {
      if (!names.has(name)) differences.push({ set: set.name, file: entry.isDirectory() ? `${name}/` : name, change: "extra" });
    }
  }
  return differences;
}

/**
 * The entries of a set's folder by their `/`-separated path: a subfolder holding expected files
 * (the set's `runtime/`) is looked into, any other entry is listed as it is.
 */
function filesOnDisk(folder: string, prefix: string, expected: ReadonlySet<string>, fs: InspectFs): { name: string; entry: Dirent }[] {
  return listFolder(join(folder, ...prefix.split("/")), fs).flatMap((entry) => {
    const name = `${prefix}${entry.name}`;
    const holdsExpected = entry.isDirectory() && [...expected].some((file) => file.startsWith(`${name}/`));
    return holdsExpected ? filesOnDisk(folder, `${name}/`, expected, fs) : [{ name, entry }];
  });
}

function sameText(onDisk: string, generated: string): boolean {
  return onDisk === generated || withLfLineEnds(onDisk) === withLfLineEnds(generated);
}

/** A folder's entries, sorted; none when there is no folder (a blocked target is reported by inspectTargets). */
function listFolder(path: string, fs: InspectFs): Dirent[] {
  let stats: Stats;
  try {
    stats = fs.lstatSync(path);
  } catch {
    return [];
  }
  if (!stats.isDirectory()) return [];
  return fs.readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
