/**
 * `validators.ts` of a schema set: per definition `X`, `isX` (boolean, no allocations),
 * `validateX` (every error), `parseX` (throws), plus the private `checkX` that collects errors.
 * No imports beyond the set's own `types.ts` and `runtime.ts`; no eval at run time.
 */
import type { Model } from "../../analyze/model.js";
import { CheckEmitter } from "./check-mode.js";
import { ModuleScope, indent, mentions } from "./scope.js";
import { TestEmitter } from "./test-mode.js";

export function emitValidators(model: Model): string {
  const scope = new ModuleScope();
  const test = new TestEmitter(model, scope);
  const check = new CheckEmitter(model, scope, test);
  const functions: string[] = [];
  for (const def of model.definitions) {
    const name = def.name;
    const isBody = test.body(def.node, "value", name);
    const checkBody = check.body(def.node, name, def.loc);
    // A schema that accepts anything reads none of its parameters: mark them unused for `noUnusedParameters`.
    const param = (lines: readonly string[], p: string) => (mentions(lines, p) ? p : `_${p}`);
    const value = param(isBody, "value");
    functions.push(
      [
        `/** Whether a value is a valid \`${name}\` (fast: builds no error objects). */`,
        `export function is${name}(${value}: unknown): ${value} is ${name} {`,
        ...indent(isBody),
        "}",
      ].join("\n"),
      [
        `function check${name}(${param(checkBody, "value")}: unknown, ${param(checkBody, "path")}: string, ${param(checkBody, "errors")}: ValidationError[]): void {`,
        ...indent(checkBody),
        "}",
      ].join("\n"),
      [
        `/** Validates a value as \`${name}\`, reporting every error with its path. */`,
        `export function validate${name}(value: unknown): ValidationResult<${name}> {`,
        `  return ${scope.runtime("validateWith")}(value, is${name}, check${name});`,
        "}",
      ].join("\n"),
      [
        `/** Returns the value as \`${name}\`, or throws \`ValidationFailed\` carrying every error. */`,
        `export function parse${name}(value: unknown): ${name} {`,
        `  return ${scope.runtime("parseWith")}(value, is${name}, check${name}, ${JSON.stringify(name)});`,
        "}",
      ].join("\n"),
    );
  }
  const typeNames = model.definitions.map((d) => d.name);
  // Import only what the final code calls: some helpers are asked for by code later left out.
  const code = [...scope.constantDeclarations, ...functions, ...scope.helperFunctions].join("\n");
  const runtime = [...scope.runtimeImports].filter((name) => mentions(code, name)).sort();
  return [
    `import type { ${typeNames.join(", ")} } from "./types.js";`,
    `import type { ValidationError, ValidationResult } from "./runtime.js";`,
    runtime.length ? `import { ${runtime.join(", ")} } from "./runtime.js";` : "",
    "",
    `export type { ValidationError, ValidationResult } from "./runtime.js";`,
    `export { ValidationFailed } from "./runtime.js";`,
    "",
    ...scope.constantDeclarations,
    "",
    ...functions,
    "",
    ...scope.helperFunctions,
    "",
  ].join("\n");
}
