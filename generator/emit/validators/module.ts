/**
 * `validators.ts` of a schema set: per definition `X`, `isX` (boolean, no allocations),
 * `validateX` (the first 50 errors and their count, or the first error only), `parseX` (throws), plus the private `$testX`
 * (the test) and `$checkX` (collects errors). Definitions reach each other through the private
 * functions; the exported ones are the entry, whose own `try` answers a value that throws when
 * read (too deep for the stack, cyclic, a throwing getter or Proxy) as invalid instead of throwing.
 * No imports beyond the set's own `types.ts` and `runtime.ts`; no eval at run time. The runtime
 * is imported as one namespace, `$rt`, so its names never meet a definition's (see scope.ts).
 */
import type { Model } from "../../analyze/model.js";
import { CheckEmitter } from "./check-mode.js";
import { call, id, ifElse, namesOf, raw, ret, RETURN_FALSE, str, tryCatch, type FunctionDecl } from "./codegen/nodes.js";
import { paramName, printFunction } from "./codegen/print.js";
import { ModuleScope, RUNTIME_NAMESPACE, type Declaration } from "./scope.js";
import { GuardEmitter } from "./guard-mode.js";

/**
 * What every definition's functions do, said once at the top of `validators.ts` (each function's own
 * doc comment stays one line: the set's validators are held to half the size of ajv's standalone code).
 */
const MODULE_DOC = [
  "// Per definition X: `isX(value)` says whether the value is a valid X and builds no error objects;",
  "// `validateX(value, { maxErrors })` returns the value, or its errors with their paths (the first",
  "// `maxErrors`, 50 by default) and `errorCount`, how many there are (`{ abortEarly: true }`: the first",
  "// error only, and no further search); `parseX(value)` returns the value or throws",
  "// `ValidationFailed` carrying its first 50 errors and their count. None of them",
  "// throws for a value that throws when read (too deep, cyclic, a throwing getter or Proxy): `isX`",
  "// answers false, `validateX` and `parseX` say why.",
];

export function emitValidators(model: Model): string {
  const scope = new ModuleScope();
  const test = new GuardEmitter(model, scope);
  const check = new CheckEmitter(model, scope, test);
  const functions: FunctionDecl[] = [];
  for (const def of model.definitions) {
    const name = def.name;
    const isBody = test.definitionBody(def);
    const checked = check.body(def.node, name, def.loc);
    // A schema that accepts anything reads none of its parameters: they are written `_value` (see print.ts).
    const value = paramName("value", namesOf(isBody));
    const isName = test.isName(def.id);
    const checkName = `$check${name}`;
    const result = scope.runtimeType("ValidationResult");
    const errors = scope.runtimeType("ErrorSink");
    functions.push(
      {
        name: `is${name}`,
        doc: `Whether a value is a valid \`${name}\`.`,
        exported: true,
        params: [{ name: "value", type: "unknown" }],
        returns: `value is ${name}`,
        // The `try` is written into each entry rather than shared in the runtime: one shared
        // `guarded(value, test)` calls every definition's test from one call site, which goes
        // megamorphic once a few definitions ran, so no test was inlined into it any more.
        body: [tryCatch([ret(call(isName, id("value")))], [RETURN_FALSE])],
      },
      {
        name: isName,
        params: [{ name: "value", type: "unknown" }],
        returns: `${value} is ${name}`,
        body: isBody,
      },
      {
        name: checkName,
        params: [
          { name: "value", type: "unknown" },
          { name: "path", type: "string" },
          { name: "errors", type: errors },
        ],
        returns: "void",
        body: checked.body,
        at: checked.at,
      },
      {
        name: `validate${name}`,
        doc: `The value as \`${name}\`, or its errors.`,
        exported: true,
        params: [
          { name: "value", type: "unknown" },
          { name: "options", type: scope.runtimeType("ValidateOptions"), optional: true },
        ],
        returns: `${result}<${name}>`,
        // The test through `isX` (its own call site, its `try`); the runtime collects the errors only when it fails.
        body: [
          ...ifElse(call(`is${name}`, id("value")), [ret(raw("{ ok: true, value }", ["value"]))]),
          ret(call(scope.runtime("invalid"), id("value"), id(checkName), id("options"))),
        ],
      },
      {
        name: `parse${name}`,
        doc: `The value as \`${name}\`, or throws \`ValidationFailed\`.`,
        exported: true,
        params: [{ name: "value", type: "unknown" }],
        returns: name,
        body: [ret(call(scope.runtime("parsed"), call(`validate${name}`, id("value")), str(name)))],
      },
    );
  }
  const typeNames = model.definitions.map((d) => d.name);
  const uses = new Set(functions.flatMap((f) => [...namesOf(f.body)]));
  const used = withoutUnused([...scope.constantDeclarations, ...scope.helperFunctions()], uses);
  const constants = new Set(scope.constantDeclarations);
  const readsRuntime = [...uses, ...used.flatMap((d) => [...d.uses])].some((n) => n.startsWith(`${RUNTIME_NAMESPACE}.`));
  return [
    typeNames.length ? `import type { ${typeNames.join(", ")} } from "./types.js";` : "",
    readsRuntime ? `import * as ${RUNTIME_NAMESPACE} from "./runtime/protocol/json.js";` : "",
    "",
    ...(functions.length ? MODULE_DOC : []),
    "",
    ...runtimeReExports(new Set(typeNames)),
    "",
    ...used.filter((d) => constants.has(d)).map((d) => d.text),
    "",
    // Printed last: a test takes `known` once some call site anywhere calls it so (`scope.finished`).
    ...functions.map((fn) => printFunction(scope.finished(fn))),
    "",
    ...used.filter((d) => !constants.has(d)).map((d) => d.text),
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
  const types = free(["ValidationError", "ValidationResult", "ValidateOptions"]);
  const values = free(["ValidationFailed"]);
  return [
    ...(types.length ? [`export type { ${types.join(", ")} } from "./runtime/protocol/json.js";`] : []),
    ...(values.length ? [`export { ${values.join(", ")} } from "./runtime/protocol/json.js";`] : []),
  ];
}

/**
 * The private declarations (helper functions, constants) something uses (`noUnusedLocals` rejects
 * the others): one asked for by code that was later left out (an `if` folded away) is dropped, and
 * with it what only it used. `uses`: the names the public functions read.
 */
function withoutUnused(declarations: readonly Declaration[], uses: ReadonlySet<string>): Declaration[] {
  const byName = new Map(declarations.map((d) => [d.name, d]));
  const reached = new Set<string>();
  const visit = (name: string): void => {
    const declaration = byName.get(name);
    if (!declaration || reached.has(name)) return;
    reached.add(name);
    declaration.uses.forEach(visit);
  };
  uses.forEach(visit);
  return declarations.filter((d) => reached.has(d.name));
}
