/** The JSON types a node can accept, when that is a fixed set (used to explain failed unions). */
import type { Model } from "../../analyze/model.js";
import type { JsonValue, Node } from "../../ir/nodes.js";

/** JSON types as messages name them; `integer` is the part of `number` a schema may ask for alone. */
export type JsonTypeName = "string" | "number" | "integer" | "boolean" | "null" | "object" | "array";

/** undefined: any type may pass. */
export function jsonTypesOf(node: Node, model: Model, seen = new Set<string>()): Set<JsonTypeName> | undefined {
  switch (node.kind) {
    case "primitive":
      return new Set([node.type]);
    case "literal":
      return new Set(node.values.map(typeOfValue));
    case "object":
    case "map":
      return new Set(["object"]);
    case "array":
      return new Set(["array"]);
    case "never":
      return new Set();
    case "union": {
      const all = new Set<JsonTypeName>();
      for (const variant of node.variants) {
        const types = jsonTypesOf(variant, model, seen);
        if (!types) return undefined;
        types.forEach((t) => all.add(t));
      }
      return all;
    }
    case "intersection": {
      let result: Set<JsonTypeName> | undefined;
      for (const part of node.parts) {
        const types = jsonTypesOf(part, model, seen);
        if (types) result = result ? new Set([...result].filter((t) => types.has(t))) : types;
      }
      return result;
    }
    case "ref": {
      if (seen.has(node.target)) return undefined;
      const def = model.byId.get(node.target);
      return def ? jsonTypesOf(def.node, model, new Set([...seen, node.target])) : undefined;
    }
    default:
      return undefined;
  }
}

function typeOfValue(value: JsonValue): JsonTypeName {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value as "string" | "number" | "boolean" | "object";
}

export function typeGuard(types: ReadonlySet<JsonTypeName>, x: string, isObject: string): string {
  const tests = [...types].map((t) => {
    switch (t) {
      case "null":
        return `${x} === null`;
      case "integer":
        return `typeof ${x} === "number"`;
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

/** Whether two type sets share a JSON type (integers are numbers). */
export function overlaps(a: ReadonlySet<JsonTypeName>, b: ReadonlySet<JsonTypeName>): boolean {
  const widen = (t: JsonTypeName) => (t === "integer" ? "number" : t);
  const wide = new Set([...b].map(widen));
  return [...a].some((t) => wide.has(widen(t)));
}

export function describeTypes(types: ReadonlySet<JsonTypeName>): string {
  const names = [...types].map((t) => (t === "null" ? "null" : t === "array" ? "an array" : t === "object" ? "an object" : t === "integer" ? "an integer" : `a ${t}`));
  return names.length <= 1 ? (names[0] ?? "nothing") : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}
