import { posix } from "node:path";
import ts from "typescript";

/**
 * The compiler settings generated code must pass (README.md › The generated API), plus what an
 * ESM package on NodeNext needs. Generated code leans on no ambient Node or DOM types, so none are loaded.
 */
export const STRICT_COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  types: [],
  skipLibCheck: true,
};

/** A diagnostic of an in-memory check, its file named relative to the checked folder. */
export interface InMemoryDiagnostic {
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  readonly code: number;
  readonly message: ts.DiagnosticMessageChain | string;
}

const VIRTUAL_ROOT = "/__mcp_tasks_gen_virtual__";
// Standard library files parse once per test file, not once per program.
const libCache = new Map<string, ts.SourceFile | undefined>();

/**
 * Type-checks `files` (name → text) as one folder of a package held in memory beside a
 * `package.json` (by default an ESM one, so NodeNext treats `.ts` files as ES modules); `roots`
 * picks the files the program starts from (default: all).
 */
export function typeCheckInMemory(
  files: ReadonlyMap<string, string>,
  options: ts.CompilerOptions,
  { packageJson = '{ "type": "module" }', roots = (_name: string) => true }: { packageJson?: string; roots?: (name: string) => boolean } = {},
): InMemoryDiagnostic[] {
  const folder = posix.join(VIRTUAL_ROOT, "set");
  const virtual = new Map<string, string>([[posix.join(VIRTUAL_ROOT, "package.json"), packageJson]]);
  for (const [name, text] of files) virtual.set(posix.join(folder, name), text);
  const host = ts.createCompilerHost(options, true);
  const inVirtual = (path: string) => path === VIRTUAL_ROOT || path.startsWith(`${VIRTUAL_ROOT}/`);
  const realGetSourceFile = host.getSourceFile.bind(host);
  const realFileExists = host.fileExists.bind(host);
  const realReadFile = host.readFile.bind(host);
  const realDirectoryExists = host.directoryExists?.bind(host);
  host.getSourceFile = (path, languageVersion, onError, shouldCreate) => {
    if (!inVirtual(path)) {
      const key = `${path}|${String(options.lib)}`;
      if (!libCache.has(key)) libCache.set(key, realGetSourceFile(path, languageVersion, onError, shouldCreate));
      return libCache.get(key);
    }
    const text = virtual.get(path);
    return text === undefined ? undefined : ts.createSourceFile(path, text, languageVersion, true);
  };
  host.fileExists = (path) => (inVirtual(path) ? virtual.has(path) : realFileExists(path));
  host.readFile = (path) => (inVirtual(path) ? virtual.get(path) : realReadFile(path));
  host.directoryExists = (path) =>
    inVirtual(path) ? [...virtual.keys()].some((f) => f.startsWith(`${path}/`)) : (realDirectoryExists?.(path) ?? true);
  host.getDirectories = () => [];
  host.realpath = (path) => path;
  host.writeFile = () => {
    throw new Error("the type check must not emit");
  };
  const rootNames = [...files.keys()].filter(roots).map((name) => posix.join(folder, name));
  const program = ts.createProgram({ rootNames, options, host });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    if (!d.file || d.start === undefined) return { code: d.code, message: d.messageText };
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return { file: posix.relative(folder, d.file.fileName), line: line + 1, column: character + 1, code: d.code, message: d.messageText };
  });
}

/**
 * The messages of type-checking a generated set (its files as `generateFromMemory` gives them) under
 * the strict flag set with unused locals and parameters refused, in memory: empty when it compiles clean.
 */
export function strictDiagnostics(files: readonly { readonly name: string; readonly contents: string }[]): string[] {
  const options = { ...STRICT_COMPILER_OPTIONS, noUnusedLocals: true, noUnusedParameters: true, lib: ["lib.es2022.d.ts"], noEmit: true };
  const sources = new Map(files.map((f) => [f.name, f.contents] as const));
  return typeCheckInMemory(sources, options, { roots: (name) => name.endsWith(".ts") }).map((d) => ts.flattenDiagnosticMessageText(d.message, "\n"));
}
