import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

/**
 * The one way tests run a generated set: its TypeScript modules transpiled to ES modules (types
 * erased, nothing checked: test/support/typescript.ts type-checks) and written into a folder laid out
 * as the set is, so every relative import resolves as written, whatever the set's layout (modules in
 * subfolders, `../` imports). A module is written with what it imports, and nothing else, so a test of
 * the validators does not transpile the client.
 */

/** A generated set's files: name (relative to the set's folder, `/`-separated, folders allowed) → text. */
export type SetFiles = ReadonlyMap<string, string> | readonly { readonly name: string; readonly contents: string }[];

function asMap(files: SetFiles): ReadonlyMap<string, string> {
  return files instanceof Map ? files : new Map((files as readonly { name: string; contents: string }[]).map((f) => [f.name, f.contents]));
}

const TYPESCRIPT = /(?<!\.d)\.(m?)ts$/;

/** What a module of the set is called once transpiled: `.ts` → `.js`, `.mts` → `.mjs`; other files keep their names. */
export function transpiledName(name: string): string {
  return name.replace(TYPESCRIPT, (_, m: string) => `.${m}js`);
}

/** Transpiled modules by kind and source text: the static runtime modules are the same in every set, so each is done once a test file. */
const transpiled = new Map<string, string>();

/** TypeScript source as an ES module (`name` says whether it is `.ts` or `.mts`). */
export function transpileToModule(source: string, name: string): string {
  const key = `${name.endsWith(".mts") ? "mts" : "ts"}\0${source}`;
  let js = transpiled.get(key);
  if (js === undefined) {
    js = ts.transpileModule(source, {
      fileName: posix.basename(name),
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    }).outputText;
    transpiled.set(key, js);
  }
  return js;
}

/**
 * The files `entries` need: each entry and, transitively, every file of the set it imports by a
 * relative specifier (`./x.js` names `x.ts`, `../y.mjs` names `y.mts`, or the file itself when the set
 * has it as JavaScript). Imports of packages and of files the set lacks are left to fail at import.
 */
function reachable(files: ReadonlyMap<string, string>, entries: readonly string[]): string[] {
  const found = new Set<string>();
  const visit = (name: string): void => {
    if (found.has(name) || !files.has(name)) return;
    found.add(name);
    for (const { fileName: specifier } of ts.preProcessFile(files.get(name)!, true, true).importedFiles) {
      if (!specifier.startsWith(".")) continue;
      const target = posix.normalize(posix.join(posix.dirname(name), specifier));
      for (const candidate of [target, target.replace(/\.js$/, ".ts"), target.replace(/\.mjs$/, ".mts")]) {
        if (files.has(candidate)) {
          visit(candidate);
          break;
        }
      }
    }
  };
  for (const entry of entries) visit(entry);
  return [...found];
}

/**
 * Writes a generated set into `dir` as ES modules, with a `package.json` saying so: its TypeScript
 * modules transpiled, JavaScript and JSON copied, declarations left out. `entries` limits it to those
 * files and what they import (default: every file).
 */
export function writeGeneratedModules(files: SetFiles, dir: string, entries?: readonly string[]): void {
  const all = asMap(files);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  for (const name of entries ? reachable(all, entries) : [...all.keys()]) {
    if (/\.d\.m?ts$/.test(name)) continue;
    const target = join(dir, transpiledName(name));
    mkdirSync(dirname(target), { recursive: true });
    const text = all.get(name)!;
    writeFileSync(target, TYPESCRIPT.test(name) ? transpileToModule(text, name) : text);
  }
}

/** Imports a module written by writeGeneratedModules, named as in the set (`validators.ts`) or as written (`validators.js`). */
export async function importWrittenModule<T = Record<string, unknown>>(dir: string, name: string): Promise<T> {
  return (await import(/* @vite-ignore */ pathToFileURL(join(dir, transpiledName(name))).href)) as T;
}

/** Writes `entry` of a generated set (and what it imports) into `dir` as an ES module and imports it. */
export async function importGeneratedModule<T = Record<string, unknown>>(files: SetFiles, dir: string, entry = "validators.ts"): Promise<T> {
  writeGeneratedModules(files, dir, [entry]);
  return importWrittenModule<T>(dir, entry);
}

/** A generated set folder on disk (`generated/<set>`): every file, by its name relative to the folder (`/`-separated). */
export function readGeneratedSet(dir: string): Map<string, string> {
  const names = readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => name.split("\\").join("/"))
    .filter((name) => statSync(join(dir, name)).isFile());
  return new Map(names.sort().map((name) => [name, readFileSync(join(dir, name), "utf8")]));
}

/** A generated set made importable from a scratch folder. */
export interface LoadedModules {
  /** Imports one module of the set by file name (`server.ts`). */
  import<T = Record<string, unknown>>(file: string): Promise<T>;
  /** Removes the scratch folder. */
  remove(): void;
}

/** Writes a whole generated set held in memory to a scratch folder (see writeGeneratedModules), to import its modules from there. */
export function loadGeneratedModules(files: SetFiles, label: string): LoadedModules {
  const dir = mkdtempSync(join(tmpdir(), `mcp-tasks-gen-${label}-`));
  writeGeneratedModules(files, dir);
  return {
    import: <T>(file: string) => importWrittenModule<T>(dir, file),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Writes a generated set into `dir` as its sources, untranspiled (for the TypeScript compiler to check,
 * or for vitest to import `.ts` as it is), each file at its name (subfolders made), with a
 * `package.json` making the folder an ES module package. writeGeneratedModules is the same for
 * Node to import.
 */
export function writeGeneratedSources(files: SetFiles, dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  for (const [name, contents] of asMap(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, contents);
  }
}
