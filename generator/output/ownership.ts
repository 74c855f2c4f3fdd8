/**
 * What is at an output folder before anything is written, and whether mcp-tasks-gen may replace it.
 * The tool replaces only what it wrote. It knows that from the folder's manifest (manifest.ts): a
 * file listed there with the same bytes is its own. A folder without a manifest (generated before
 * manifests existed) is its own when every file in it is a module with the generator's header and
 * a body matching its fingerprint (reuse.ts), or the fixed package.json of a JavaScript set.
 * Everything else in the folder is foreign: it stops the run unless `--force` is given, and even
 * then only inside a folder with our manifest. A header alone is not enough for `--force`: a
 * generated file copied into a folder of hand-written code would otherwise expose the rest to it.
 */
import type { Dirent, Stats } from "node:fs";
import { dirname, join } from "node:path";
import { MODULE_PACKAGE_JSON } from "./javascript.js";
import { bytesMatch, MANIFEST_FILE, readManifest, sha256 } from "./manifest.js";
import { generatedModuleState } from "./reuse.js";

/**
 * Temporary folders a run makes inside a target (staged new files, the old files) start with these
 * and end in TEMPORARY_SUFFIX_BYTES random bytes in hex. They only ever hold generated files, so one
 * left behind by a run that was killed is the tool's own, and the next run removes it.
 */
export const STAGING_PREFIX = ".mcp-tasks-gen-new-";
export const BACKUP_PREFIX = ".mcp-tasks-gen-old-";
export const TEMPORARY_SUFFIX_BYTES = 6;
const TEMPORARY_FOLDER = new RegExp(`^\\.mcp-tasks-gen-(new|old)-[0-9a-f]{${TEMPORARY_SUFFIX_BYTES * 2}}$`);

/** The file system calls inspection makes (tests pass their own to simulate failures). */
export interface InspectFs {
  lstatSync(path: string): Stats;
  statSync(path: string): Stats;
  readdirSync(path: string, options: { withFileTypes: true }): Dirent[];
  readFileSync(path: string): Buffer;
}

/** An entry of an output folder that mcp-tasks-gen did not write (or that changed since). */
export interface ForeignEntry {
  /** Its name in the folder, with a trailing `/` for a folder. */
  readonly name: string;
  /** Listed in the manifest (or carrying the generated header), but its bytes changed since. */
  readonly edited: boolean;
}

export type TargetState =
  /** Nothing there yet: the folder (and its missing parents) will be created. */
  | { readonly kind: "missing" }
  /** The target, or a folder above it, is not a folder: nothing can be written there. */
  | { readonly kind: "blocked"; readonly path: string; readonly what: string }
  /** A folder: `foreign` lists what the tool did not write; `manifest` tells whether it holds our manifest (the only proof `--force` accepts). */
  | { readonly kind: "folder"; readonly foreign: readonly ForeignEntry[]; readonly manifest: boolean };

/** What a non-folder is, in words, for messages. */
export function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a folder";
  if (stats.isFile()) return "a regular file";
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isFIFO()) return "a named pipe";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a folder";
}

/** What is at `target`, and what in it (if it is a folder) mcp-tasks-gen did not write. */
export function inspectTarget(target: string, fs: InspectFs): TargetState {
  const stats = statOrUndefined(() => fs.lstatSync(target));
  if (!stats) return blockedAncestor(target, fs) ?? { kind: "missing" };
  // A symbolic link, even to a folder, is not replaced: what it points to is not ours to swap.
  if (!stats.isDirectory()) return { kind: "blocked", path: target, what: kindOf(stats) };
  return { kind: "folder", ...foreignEntries(target, fs) };
}

/** The nearest existing path above a missing target, when it is not a folder (files cannot be written below it). */
function blockedAncestor(target: string, fs: InspectFs): TargetState | undefined {
  for (let path = dirname(target); ; path = dirname(path)) {
    // stat, not lstat: a parent that is a link to a folder is a folder to write below.
    const stats = statOrUndefined(() => fs.statSync(path));
    if (stats) return stats.isDirectory() ? undefined : { kind: "blocked", path, what: kindOf(stats) };
    if (dirname(path) === path) return undefined;
  }
}

function statOrUndefined(stat: () => Stats): Stats | undefined {
  try {
    return stat();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    // ENOTDIR: a file above the path; blockedAncestor names it.
    if (code === "ENOTDIR") return undefined;
    throw e;
  }
}

function foreignEntries(folder: string, fs: InspectFs): { foreign: ForeignEntry[]; manifest: boolean } {
  const entries = sortedEntries(fs, folder);
  const manifestEntry = entries.find((e) => e.name === MANIFEST_FILE && e.isFile());
  const listed = manifestEntry ? readManifest(fs.readFileSync(join(folder, MANIFEST_FILE)).toString("utf8")) : undefined;
  const foreign: ForeignEntry[] = [];
  for (const entry of entries) {
    if (entry.name === MANIFEST_FILE && listed) continue;
    if (entry.isDirectory() && TEMPORARY_FOLDER.test(entry.name)) continue;
    if (listed) {
      foreign.push(...listedForeign(folder, entry.name, entry, listed, fs));
      continue;
    }
    foreign.push(...unlistedForeign(folder, entry.name, entry, fs));
  }
  return { foreign, manifest: listed !== undefined };
}

/**
 * The foreign entries at `name` (a path relative to the folder, `/`-separated) of a folder with our
 * manifest: a file the manifest does not list or whose bytes changed; a subfolder is looked into
 * when the manifest lists files below it (the set's `runtime/` folder), and is foreign as a whole otherwise.
 */
function listedForeign(folder: string, name: string, entry: Dirent, listed: ReadonlyMap<string, string>, fs: InspectFs): ForeignEntry[] {
  const path = join(folder, ...name.split("/"));
  if (entry.isDirectory() && [...listed.keys()].some((file) => file.startsWith(`${name}/`))) {
    return sortedEntries(fs, path).flatMap((inner) => listedForeign(folder, `${name}/${inner.name}`, inner, listed, fs));
  }
  if (!entry.isFile()) return [{ name: entry.isDirectory() ? `${name}/` : name, edited: false }];
  const hash = listed.get(name);
  if (hash === undefined) return [{ name, edited: false }];
  return bytesMatch(fs.readFileSync(path), hash) ? [] : [{ name, edited: true }];
}

/**
 * The foreign entries at `name` of a folder without a manifest: each file proves itself by its header
 * and fingerprint (or is the fixed package.json at the top); a subfolder is ours when all it holds is
 * (the runtime/ folder), and named whole when it is empty or nothing in it is ours.
 */
function unlistedForeign(folder: string, name: string, entry: Dirent, fs: InspectFs): ForeignEntry[] {
  const path = join(folder, ...name.split("/"));
  if (entry.isDirectory()) {
    const inner = sortedEntries(fs, path).map((e) => ({ entry: e, foreign: unlistedForeign(folder, `${name}/${e.name}`, e, fs) }));
    const ours = inner.some((i) => i.entry.isFile() && i.foreign.length === 0) || inner.some((i) => i.entry.isDirectory() && i.foreign.length === 0);
    return ours ? inner.flatMap((i) => i.foreign) : [{ name: `${name}/`, edited: false }];
  }
  if (!entry.isFile()) return [{ name, edited: false }];
  const bytes = fs.readFileSync(path);
  if (name === MODULE_PACKAGE_JSON.name && bytesMatch(bytes, sha256(MODULE_PACKAGE_JSON.contents))) return [];
  const state = generatedModuleState(bytes.toString("utf8"));
  return state === "intact" ? [] : [{ name, edited: state === "edited" }];
}

function sortedEntries(fs: InspectFs, folder: string): Dirent[] {
  return fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
