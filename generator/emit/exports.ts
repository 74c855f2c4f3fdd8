/**
 * Definition names against the other generated modules. `index.ts` re-exports every module, so a
 * definition named like one of their exports (`ValidationError`, `ValidationFailed`,
 * `TaskWithStatus`, or `isFoo` beside a definition `Foo`) would make two exports of one name, and
 * the module that declares the other one would see two declarations of it. And a module written
 * from a template that imports a definition named like a global type the template uses (`Promise`
 * into a client whose methods return `Promise<T>`) would shadow that global. The names are read
 * from the emitted code and the templates themselves, so the check cannot fall behind either.
 */
import { createRequire } from "node:module";
import type TypeScript from "typescript";
import { GeneratorError, type SourceLocation } from "../diagnostics.js";
import type { NamedDefinition } from "../analyze/naming.js";
import { templateSource } from "./templates.js";

export interface EmittedModule {
  /** File name without extension (`validators`). */
  readonly file: string;
  readonly code: string;
}

/** Throws a GeneratorError at the first definition whose name another module exports too. */
export function checkDefinitionNames(
  definitions: readonly NamedDefinition[],
  modules: readonly EmittedModule[],
  /** The set in the config, so the remedy names its `names`; absent for an ad-hoc run. */
  setOrigin?: SourceLocation,
): void {
  const exporter = new Map<string, string>();
  for (const module of modules) {
    // types.ts declares the definitions; index.ts re-exports the others. The static modules
    // (templates/runtime/) are not passed here: index.ts does not re-export them, and what of
    // them is public, the emitted modules re-export by name.
    // standard-schema.ts exports one value per definition, under the definition's own name, and
    // index.ts re-exports it as a namespace: only that namespace's name can clash.
    if (module.file === "types" || module.file === "standard-schema") continue;
    const names = module.file === "index" ? namespaceExports(module.code) : exportedNames(module.code);
    for (const name of names) if (!exporter.has(name)) exporter.set(name, module.file);
  }
  const shadowing = new Map<string, string>();
  for (const module of modules) {
    if (!TEMPLATE_MODULES.has(module.file)) continue;
    for (const name of importedTypeNames(module.code)) {
      if (GLOBAL_NAMES.has(name) && !shadowing.has(name) && templateTypeGlobals(`${module.file}.ts.hbs`).has(name)) shadowing.set(name, module.file);
    }
  }
  // A module that imports a definition and, under the same name, something of a static module
  // (`TaskEngine` from server-core.ts) would declare that name twice.
  const doubled = new Map<string, string>();
  for (const module of modules) {
    if (!TEMPLATE_MODULES.has(module.file)) continue;
    const fromOthers = new Set(importedNamesFromOtherModules(module.code));
    for (const name of importedTypeNames(module.code)) if (fromOthers.has(name) && !doubled.has(name)) doubled.set(name, module.file);
  }
  for (const def of definitions) {
    const exported = exporter.get(def.name);
    const shadowed = shadowing.get(def.name);
    const twice = doubled.get(def.name);
    const clash = exported
      ? `the definition name "${def.name}" is also exported by the generated ${exported}.ts, and index.ts cannot export both`
      : shadowed
        ? `the definition name "${def.name}" is the name of a global type that the generated ${shadowed}.ts uses beside this definition`
        : twice
          ? `the definition name "${def.name}" is also a name the generated ${twice}.ts imports from another module of the set`
          : undefined;
    if (clash) {
      const remedy = { target: def.loc, suggestion: `${def.name}Definition`, ...(setOrigin ? { set: setOrigin } : {}) };
      throw new GeneratorError(def.loc, clash, "input", remedy);
    }
  }
}

/** The modules written from a template (`templates/<file>.ts.hbs`) that import definitions. */
const TEMPLATE_MODULES = new Set(["status", "client", "server", "elicitation"]);

/**
 * The global names of the ECMAScript library, TypeScript's utility types and the host functions
 * templates may call: the names a template can rely on without declaring them.
 */
const GLOBAL_NAMES: ReadonlySet<string> = new Set(
  (
    "Object Function Array Number String Boolean Symbol BigInt Math JSON Date RegExp Error TypeError RangeError " +
    "SyntaxError ReferenceError EvalError URIError AggregateError Promise Map Set WeakMap WeakSet WeakRef " +
    "FinalizationRegistry Proxy Reflect ArrayBuffer SharedArrayBuffer DataView Atomics Int8Array Uint8Array " +
    "Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array Float32Array Float64Array BigInt64Array " +
    "BigUint64Array Intl globalThis Infinity NaN isFinite isNaN parseInt parseFloat encodeURI encodeURIComponent " +
    "decodeURI decodeURIComponent eval Partial Required Readonly Pick Record Exclude Extract Omit NonNullable " +
    "Parameters ConstructorParameters ReturnType InstanceType Awaited ThisType Uppercase Lowercase Capitalize " +
    "Uncapitalize ReadonlyArray ArrayLike PromiseLike Iterable Iterator IterableIterator AsyncIterable Generator " +
    "PropertyKey PropertyDescriptor TemplateStringsArray setTimeout clearTimeout setInterval clearInterval " +
    "AsyncGenerator AsyncIterator AsyncIterableIterator queueMicrotask structuredClone AbortController AbortSignal " +
    "console TextEncoder TextDecoder URL fetch"
  ).split(" "),
);

const typeGlobalsByTemplate = new Map<string, ReadonlySet<string>>();

/**
 * The global names a template uses as types (`Promise<T>`, `Omit<...>`, `extends Error` in an
 * interface). Only those clash with a definition of that name imported beside them: a type-only
 * import has no value, so `new Date()` or `class X extends Error` still reach the global. Parsed with
 * TypeScript, loaded only when a definition with a global's name is imported, which is rare.
 */
export function templateTypeGlobals(template: string): ReadonlySet<string> {
  let found = typeGlobalsByTemplate.get(template);
  if (found) return found;
  const ts = createRequire(import.meta.url)("typescript") as typeof TypeScript;
  // Block helpers go; every other `{{...}}` becomes an identifier, so what is left parses as TypeScript.
  const code = templateSource(template)
    .replace(/\{\{[#/^][^}]*\}\}|\{\{else\}\}/g, "")
    .replace(/\{\{[^}]*\}\}/g, "__template__");
  const source = ts.createSourceFile(template, code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const globals = new Set<string>();
  const visit = (node: TypeScript.Node): void => {
    const named = ts.isTypeReferenceNode(node)
      ? node.typeName
      : ts.isExpressionWithTypeArguments(node) && ts.isInterfaceDeclaration(node.parent.parent)
        ? node.expression
        : undefined;
    if (named && ts.isIdentifier(named) && GLOBAL_NAMES.has(named.text)) globals.add(named.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  found = globals;
  typeGlobalsByTemplate.set(template, found);
  return found;
}

/** The local names a module gives what it imports from `./types.js` (`A as B` gives `B`). */
function importedTypeNames(code: string): string[] {
  const names: string[] = [];
  for (const match of code.matchAll(/^import type \{([^}]*)\} from "\.\/types\.js";/gm)) {
    for (const item of match[1]!.split(",")) {
      const local = item.trim().split(/\s+as\s+/).pop()!.trim();
      if (local) names.push(local);
    }
  }
  return names;
}

/** The local names a module gives what it imports from the set's modules other than types.ts. */
function importedNamesFromOtherModules(code: string): string[] {
  const names: string[] = [];
  for (const match of code.matchAll(/^import (?:type )?\{([^}]*)\} from "\.\/([a-z/-]+)\.js";/gm)) {
    if (match[2] === "types") continue;
    for (const item of match[1]!.split(",")) {
      const local = item.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()!.trim();
      if (local) names.push(local);
    }
  }
  return names;
}

/** The names a generated module exports (top-level declarations and `export { ... }` lists). */
/** The names of `export * as name from "..."` lines. */
function namespaceExports(code: string): string[] {
  return [...code.matchAll(/^export \* as ([A-Za-z_$][\w$]*) from /gm)].map((m) => m[1]!);
}

export function exportedNames(code: string): string[] {
  const names: string[] = [];
  const declaration = /^export (?:declare )?(?:abstract )?(?:async )?(?:function\*?|class|interface|type|enum|const|let|var|namespace) +([A-Za-z_$][\w$]*)/gm;
  for (const match of code.matchAll(declaration)) names.push(match[1]!);
  const list = /^export (?:type )?\{([^}]*)\}/gm;
  for (const match of code.matchAll(list)) {
    for (const item of match[1]!.split(",")) {
      const exported = item.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()!.trim();
      if (exported) names.push(exported);
    }
  }
  return names;
}
