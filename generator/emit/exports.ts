/**
 * Definition names against the names the other generated modules export. `index.ts` re-exports
 * every module, so a definition named like one of them (`ValidationError`, `ValidationFailed`,
 * `TaskWithStatus`, or `isFoo` beside a definition `Foo`) would make two exports of one name, and
 * the module that declares the other one would see two declarations of it. The names are read from
 * the emitted code itself, so the check cannot fall behind a template or an emitter.
 */
import { GeneratorError, formatLocation } from "../diagnostics.js";
import type { NamedDefinition } from "../analyze/naming.js";

export interface EmittedModule {
  /** File name without extension (`validators`). */
  readonly file: string;
  readonly code: string;
}

/** Throws a GeneratorError at the first definition whose name another module exports too. */
export function checkDefinitionNames(definitions: readonly NamedDefinition[], modules: readonly EmittedModule[]): void {
  const exporter = new Map<string, string>();
  for (const module of modules) {
    // types.ts declares the definitions; index.ts re-exports the others; runtime.ts is not
    // re-exported (what of it is public, validators.ts re-exports).
    if (module.file === "types" || module.file === "index" || module.file === "runtime") continue;
    for (const name of exportedNames(module.code)) if (!exporter.has(name)) exporter.set(name, module.file);
  }
  for (const def of definitions) {
    const file = exporter.get(def.name);
    if (file === undefined) continue;
    throw new GeneratorError(def.loc, `${nameClash(def.name, file)}; ${renameRemedy(formatLocation(def.loc), `${def.name}Definition`)}`);
  }
}

/** What clashes, in words a user can act on. */
function nameClash(name: string, file: string): string {
  return `the definition name "${name}" is also exported by the generated ${file}.ts, and index.ts cannot export both`;
}

/**
 * How to choose another name for a definition, with the exact text to add: an entry of the set's
 * `names` in the config, or `--name` on an ad-hoc run.
 */
export function renameRemedy(location: string, suggestion: string): string {
  const entry = `${JSON.stringify(location)}: ${JSON.stringify(suggestion)}`;
  return `to choose a name, add to "names" of the set in the config: ${entry}, or pass --name '${location.replace(/'/g, "'\\''")}=${suggestion}'`;
}

/** The names a generated module exports (top-level declarations and `export { ... }` lists). */
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
