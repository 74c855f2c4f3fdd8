/**
 * Writing and checking generated folders. Writing is all or nothing: every set is first written
 * to a staging folder beside its target, and only when all of them are complete are they swapped
 * in. A failure leaves every existing file as it was.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { GeneratorError, type SourceLocation } from "../diagnostics.js";

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

export function writeSets(sets: readonly GeneratedSet[]): void {
  const staged: { set: GeneratedSet; staging: string }[] = [];
  let current: GeneratedSet | undefined;
  try {
    for (const set of sets) {
      current = set;
      mkdirSync(dirname(set.outDir), { recursive: true });
      const staging = mkdtempSync(join(dirname(set.outDir), `.${basename(set.outDir)}.tmp-`));
      staged.push({ set, staging });
      for (const file of set.files) writeFileSync(join(staging, file.name), file.contents);
    }
  } catch (e) {
    for (const { staging } of staged) rmSync(staging, { recursive: true, force: true });
    throw new GeneratorError(current?.outDirOrigin, `cannot write the output folder: ${(e as Error).message}`, "output");
  }
  for (const { set, staging } of staged) {
    const backup = `${staging}.old`;
    const hadTarget = existsSync(set.outDir);
    try {
      if (hadTarget) renameSync(set.outDir, backup);
      renameSync(staging, set.outDir);
    } catch (e) {
      if (hadTarget && existsSync(backup) && !existsSync(set.outDir)) renameSync(backup, set.outDir);
      rmSync(staging, { recursive: true, force: true });
      throw new GeneratorError(set.outDirOrigin, `cannot replace ${set.outDir}: ${(e as Error).message}`, "output");
    }
    rmSync(backup, { recursive: true, force: true });
  }
}

export interface Difference {
  readonly set: string;
  readonly file: string;
  readonly change: "modified" | "missing" | "extra";
}

/** What differs between the generated sets and the folders on disk. */
export function compareSets(sets: readonly GeneratedSet[]): Difference[] {
  const differences: Difference[] = [];
  for (const set of sets) {
    const onDisk = existsSync(set.outDir) ? readdirSync(set.outDir) : [];
    for (const file of set.files) {
      const path = join(set.outDir, file.name);
      if (!onDisk.includes(file.name)) differences.push({ set: set.name, file: file.name, change: "missing" });
      else if (readFileSync(path, "utf8") !== file.contents) differences.push({ set: set.name, file: file.name, change: "modified" });
    }
    for (const name of onDisk) {
      if (!set.files.some((f) => f.name === name)) differences.push({ set: set.name, file: name, change: "extra" });
    }
  }
  return differences;
}
