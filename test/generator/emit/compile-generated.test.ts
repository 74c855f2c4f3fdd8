import { join, posix } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { generate, readConfigFile, type GeneratedSet } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";
import { typeCheckInMemory } from "../../support/typescript.js";
import { PART_SPECS, partOfModule, type RuntimePart } from "../../../generator/emit/runtime-parts.js";

/**
 * The design promises generated folders that compile under the strictest settings a user might
 * have and that import nothing from outside themselves. These tests type-check every generated
 * set in-process with the TypeScript compiler, against an in-memory host, so nothing is written.
 */

const CONFIG = join(projectRoot, "mcp-tasks-gen.config.json");

/** The settings the design names, plus what a NodeNext ESM package needs. */
const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  // Common in users' projects: generated code must not trip them.
  noUnusedLocals: true,
  noUnusedParameters: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  // Generated code must not lean on ambient Node or DOM types: a user's project may have neither.
  // (Without `lib`, target ES2022 would bring in the DOM library.)
  lib: ["lib.es2022.d.ts"],
  types: [],
  // Only the standard library's own .d.ts files are skipped; generated .ts files are fully checked.
  skipLibCheck: true,
  noEmit: true,
};

/**
 * Type-checks `files` (name → contents) as one folder of a package (by default an ESM one, so
 * NodeNext treats `.ts` files as ES modules) and returns every diagnostic, formatted.
 */
function typeCheck(files: ReadonlyMap<string, string>, packageJson = '{ "type": "module" }'): string[] {
  return typeCheckInMemory(files, COMPILER_OPTIONS, { packageJson }).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.message, "\n");
    return d.file === undefined ? `TS${d.code}: ${text}` : `${d.file}:${d.line}:${d.column} TS${d.code}: ${text}`;
  });
}

/** Every module specifier a file mentions: imports, re-exports, `import("…")` types and calls, triple-slash references. */
function moduleSpecifiers(fileName: string, contents: string): string[] {
  const source = ts.createSourceFile(fileName, contents, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: string[] = [
    ...source.referencedFiles.map((r) => r.fileName),
    ...source.typeReferenceDirectives.map((r) => r.fileName),
    ...source.libReferenceDirectives.map((r) => `lib:${r.fileName}`),
  ];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push(node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      found.push(arg && ts.isStringLiteral(arg) ? arg.text : `<non-literal import(${arg?.getText(source) ?? ""})>`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The specifiers of `file` that leave the set's folder or name no file of the set: a specifier
 * must be relative (`./name.js`, or `../layer/name.js` inside the set's runtime/ folder) and,
 * resolved from the file's own folder, name one of the set's generated files.
 */
function foreignSpecifiers(set: GeneratedSet, fileName: string, contents: string): string[] {
  const names = new Set(set.files.map((f) => f.name));
  return moduleSpecifiers(fileName, contents).filter((specifier) => {
    if (!specifier.startsWith("./") && !specifier.startsWith("../")) return true;
    const resolved = posix.join(posix.dirname(fileName), specifier);
    if (resolved.startsWith("..")) return true; // a way out of the set's folder
    return !names.has(resolved.replace(/\.js$/, ".ts"));
  });
}

/** A runtime part's file (written only when asked for; it may import what its spec declares). */
const partOf = (fileName: string): RuntimePart | undefined => partOfModule(fileName.replace(/^runtime\//, "").replace(/\.ts$/, ""));

/** The parts' files by their own names (`runtime/parts/stdio.ts` → `stdio.ts`). */
const partFileNames = (names: readonly string[]) => names.filter((n) => partOf(n)).map((n) => posix.basename(n)).sort();

/** The set's files without its runtime parts: what every set is, with or without parts. */
const filesOf = (set: GeneratedSet) => new Map(set.files.filter((f) => !partOf(f.name)).map((f) => [f.name, f.contents]));

/** Every file of the set, parts included. */
const allFilesOf = (set: GeneratedSet) => new Map(set.files.map((f) => [f.name, f.contents]));

/** A part's specifiers from outside the set that its spec declares (`node:` covers `node:http`). */
const declaredOutside = (part: RuntimePart, specifier: string) =>
  PART_SPECS[part].imports.some((allowed) => specifier === allowed || ((allowed.endsWith(":") || allowed.endsWith("/")) && specifier.startsWith(allowed)));

let sets: readonly GeneratedSet[] = [];
beforeAll(async () => {
  sets = (await generate(readConfigFile(CONFIG))).sets;
});

describe("generated TypeScript", () => {
  it("covers every configured set, each with at least types.ts and index.ts", () => {
    expect(sets.map((s) => s.name).sort()).toEqual(["elicitation-codex", "ext-tasks-2026-05-22", "ext-tasks-draft", "tasks-2025-11-25"]);
    for (const set of sets) expect(set.files.map((f) => f.name)).toEqual(expect.arrayContaining(["types.ts", "index.ts"]));
  });

  it("type-checks every set with zero diagnostics under strict NodeNext settings", () => {
    const report: Record<string, string[]> = {};
    for (const set of sets) report[set.name] = typeCheck(filesOf(set));
    // Comparing the whole report prints every diagnostic of every set when one fails.
    expect(report).toEqual(Object.fromEntries(sets.map((s) => [s.name, []])));
  });

  it("imports nothing from outside each set's own folder (a runtime part: only what its spec declares)", () => {
    const report: Record<string, string[]> = {};
    for (const set of sets) {
      for (const file of set.files) {
        const part = partOf(file.name);
        report[`${set.name}/${file.name}`] = foreignSpecifiers(set, file.name, file.contents).filter((s) => !part || !declaredOutside(part, s));
      }
    }
    expect(report).toEqual(Object.fromEntries(Object.keys(report).map((k) => [k, []])));
  });

  it("the repository's sets carry runtime parts, so the checks above cover a set with and without them", () => {
    const parts = Object.fromEntries(sets.map((s) => [s.name, partFileNames(s.files.map((f) => f.name))]));
    expect(parts["ext-tasks-draft"]).toEqual(["http-client.ts", "http-server.ts", "postgres-store.ts", "redis-store.ts", "sqlite-store.ts", "stdio.ts"]);
    expect(parts["elicitation-codex"]).toEqual([]);
  });

  it("the parts that need only Node type-check with the set under Node's typings alone (no DOM library)", () => {
    const set = sets.find((s) => s.name === "ext-tasks-draft")!;
    const nodeOnly = (name: string) => {
      const part = partOf(name);
      return !part || PART_SPECS[part].imports.every((allowed) => allowed === "node:");
    };
    const files = new Map([...allFilesOf(set)].filter(([name]) => nodeOnly(name)));
    expect(partFileNames([...files.keys()])).toEqual(["http-client.ts", "http-server.ts", "stdio.ts"]);
    const options = { ...COMPILER_OPTIONS, types: ["node"], typeRoots: [join(projectRoot, "node_modules", "@types")] };
    const diagnostics = typeCheckInMemory(files, options).map((d) => `${d.file ?? ""}:${d.line ?? ""} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.message, "\n")}`);
    expect(diagnostics).toEqual([]);
  });
});

describe("the harness itself (controls: each check must be able to fail)", () => {
  it("reports diagnostics for a deliberately broken file next to a generated set", () => {
    const set = sets.find((s) => s.name === "ext-tasks-2026-05-22")!;
    const files = filesOf(set);
    files.set("broken.ts", 'import type { Task } from "./types.js";\nexport const t: Task = { taskId: 1 };\n');
    const diagnostics = typeCheck(files);
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics.every((d) => d.startsWith("broken.ts:"))).toBe(true);
  });

  it("reports strict-only errors (exactOptionalPropertyTypes, noUncheckedIndexedAccess)", () => {
    // Proves the options reach the compiler: both lines are fine under default settings.
    const code = [
      "export interface O { a?: string }",
      "export const o: O = { a: undefined };",
      "export const first: string = ([] as string[])[0];",
    ].join("\n");
    const diagnostics = typeCheck(new Map([["strict.ts", code]]));
    expect(diagnostics.map((d) => d.replace(/:\d+ (TS\d+).*$/s, " $1"))).toEqual(["strict.ts:2 TS2375", "strict.ts:3 TS2322"]);
  });

  it("offers no DOM or Node globals to the code it checks", () => {
    const diagnostics = typeCheck(new Map([["globals.ts", "export const a = document;\nexport const b = process;\n"]]));
    expect(diagnostics.map((d) => d.replace(/:\d+ (TS\d+).*$/s, " $1"))).toEqual(["globals.ts:1 TS2584", "globals.ts:2 TS2591"]);
  });

  it("sees the virtual package.json: the same file is ESM with it and CommonJS without it", () => {
    // `import.meta` is only allowed in a file NodeNext reads as an ES module.
    const files = new Map([["esm.ts", "export const meta = import.meta;\n"]]);
    expect(typeCheck(files)).toEqual([]);
    expect(typeCheck(files, "{}").join("\n")).toMatch(/TS1470/);
  });

  it("flags specifiers that leave the folder or name no generated file", () => {
    const set = sets.find((s) => s.name === "ext-tasks-2026-05-22")!;
    const code = [
      'import type { A } from "../other/types.js";',
      'import type { B } from "./sub/types.js";',
      'import type { C } from "./missing.js";',
      'import type { D } from "zod";',
      'export type { Task } from "./types.js";',
      'export type E = import("node:fs").Stats;',
    ].join("\n");
    expect(foreignSpecifiers(set, "probe.ts", code)).toEqual(["../other/types.js", "./sub/types.js", "./missing.js", "zod", "node:fs"]);
  });
});
