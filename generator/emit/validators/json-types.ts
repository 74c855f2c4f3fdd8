/** The guard a generated validator writes for a set of runtime types (see ir/query.ts, runtimeTypes). */
import type { JsonType } from "../../ir/query.js";
import { call, compare, FALSE, id, member, or, type Expr } from "./codegen/nodes.js";
import { NULL, typeIs } from "./conditions.js";

export function typeGuard(types: ReadonlySet<Exclude<JsonType, "integer">>, x: Expr, isObject: (x: Expr) => Expr): Expr {
  const tests = [...types].map((t) => {
    switch (t) {
      case "null":
        return compare(x, "===", NULL);
      case "object":
        return isObject(x);
      case "array":
        return call(member(id("Array"), "isArray"), x);
      default:
        return typeIs(x, t);
    }
  });
  return tests.length === 0 ? FALSE : or(...tests);
}

/**
 * What a guard checks, as a helper name's tail: `StringOrNull`; `AnyNumber` for `typeof … ===
 * "number"`, which (unlike a `number` schema's check) lets `NaN` and `Infinity` through.
 */
export function guardName(types: ReadonlySet<Exclude<JsonType, "integer">>): string {
  const words: Record<Exclude<JsonType, "integer">, string> = { string: "String", number: "AnyNumber", boolean: "Boolean", null: "Null", object: "Object", array: "Array" };
  return types.size === 0 ? "Nothing" : [...types].map((t) => words[t]).join("Or");
}
