/** The guard a generated validator writes for a set of runtime types (see ir/query.ts, runtimeTypes). */
import type { JsonType } from "../../ir/query.js";

export function typeGuard(types: ReadonlySet<Exclude<JsonType, "integer">>, x: string, isObject: string): string {
  const tests = [...types].map((t) => {
    switch (t) {
      case "null":
        return `${x} === null`;
      case "object":
        return `${isObject}(${x})`;
      case "array":
        return `Array.isArray(${x})`;
      default:
        return `typeof ${x} === "${t}"`;
    }
  });
  return tests.length === 0 ? "false" : tests.join(" || ");
}
