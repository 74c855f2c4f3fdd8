/**
 * `validators.ts` of a schema set: per definition `X`, `isX` (boolean, no allocations),
 * `validateX` (every error), `parseX` (throws), plus the private `$checkX` that collects errors.
 * No imports beyond the set's own `types.ts` and `runtime.ts`; no eval at run time. The runtime
 * is imported as one namespace, `$runtime`, so its names never meet a definition's (see scope.ts).
 */
import type { Model } from "../../analyze/model.js";
import { CheckEmitter } from "./check-mode.js";
import { ModuleScope, RUNTIME_NAMESPACE, indent, mentions } from "./scope.js";
import { GuardEmitter } from "./guard-mode.js";

export function emitValidators(model: Model): string {
  const scope = new ModuleScope();
  const test = new GuardEmitter(model, scope);
  const check = new CheckEmitter(model, scope, test);
  const functions: string[] = [];
  for (const def of model.definitions) {
    const name = def.name;
    const isBody = test.body(def.node, "value", name);
    const checkBody = check.body(def.node, name, def.loc);
    // A schema that accepts anything reads none of its parameters: mark them unused for `noUnusedParameters`.
    const param = (lines: readonly string[], p: string) => (mentions(lines, p) ? p : `_${p}`);
    const value = param(isBody, "value");
    const checkName = `$check${name}`;
    const result = scope.runtime("ValidationResult");
    functions.push(
      [
        `/** Whether a value is a valid \`${name}\` (fast: builds no error objects). */`,
        `export function is${name}(${value}: unknown): ${value} is ${name} {`,
        ...indent(isBody),
        "}",
      ].join("\n"),
      [
        `function ${checkName}(${param(checkBody, "value")}: unknown, ${param(checkBody, "path")}: string, ${param(checkBody, "errors")}: ${scope.runtime("ValidationError")}[]): void {`,
        ...indent(checkBody),
        "}",
      ].join("\n"),
      [
        `/** Validates a value as \`${name}\`, reporting every error with its path. */`,
        `export function validate${name}(value: unknown): ${result}<${name}> {`,
        `  return ${scope.runtime("validateWith")}(value, is${name}, ${checkName});`,
        "}",
      ].join("\n"),
      [
        `/** Returns the value as \`${name}\`, or throws \`ValidationFailed\` carrying every error. */`,
        `export function parse${name}(value: unknown): ${name} {`,
        `  return ${scope.runtime("parseWith")}(value, is${name}, ${checkName}, ${JSON.stringify(name)});`,
        "}",
      ].join("\n"),
    );
  }
  const typeNames = model.definitions.map((d) => d.name);
  const constants = new Set(scope.constantDeclarations);
  const used = withoutUnused([...scope.constantDeclarations, ...scope.helperFunctions], functions.join("\n"));
  const code = [...used, ...functions].join("\n");
  return [
    typeNames.length ? `import type { ${typeNames.join(", ")} } from "./types.js";` : "",
    mentions(code, RUNTIME_NAMESPACE) ? `import * as ${RUNTIME_NAMESPACE} from "./runtime/protocol/json.js";` : "",
    "",
    ...runtimeReExports(new Set(typeNames)),
    "",
    ...used.filter((d) => constants.has(d)),
    "",
    ...functions,
    "",
    ...used.filter((d) => !constants.has(d)),
    "",
  ].join("\n");
}

/**
 * The runtime's public names, re-exported for the set's `index.ts`, except any a definition takes:
 * `index.ts` re-exports `types.ts` and `validators.ts` together, where the same name twice does not
 * compile (TS2308). The definition keeps its name; the runtime's stays reachable in `runtime.ts`.
 */
function runtimeReExports(definitionNames: ReadonlySet<string>): string[] {
  const free = (names: readonly string[]) => names.filter((n) => !definitionNames.has(n));
  const types = free(["ValidationError", "ValidationResult"]);
  const values = free(["ValidationFailed"]);
  return [
    ...(types.length ? [`export type { ${types.join(", ")} } from "./runtime/protocol/json.js";`] : []),
    ...(values.length ? [`export { ${values.join(", ")} } from "./runtime/protocol/json.js";`] : []),
  ];
}

/**
 * The private declarations (helper functions, constants) something uses (`noUnusedLocals` rejects
 * the others): one asked for by code that was later left out (an `if` folded away) is dropped, and
 * with it what only it used.
 */
function withoutUnused(helpers: readonly string[], rest: string): string[] {
  const nameOf = (helper: string) => /^(?:function|const) ([\w$]+)/.exec(helper)![1]!;
  let kept = [...helpers];
  for (;;) {
    // Count uses of private names (they all start with `$`) once over all the code: a declaration
    // whose name appears only in itself is unused.
    const uses = new Map<string, number>();
    for (const text of [rest, ...kept]) {
      for (const match of text.matchAll(/\$[\w$]*/g)) uses.set(match[0], (uses.get(match[0]) ?? 0) + 1);
    }
    const next = kept.filter((helper) => (uses.get(nameOf(helper)) ?? 0) > 1);
    if (next.length === kept.length) return kept;
    kept = next;
  }
}
