/** The JSON types a node can accept, when that is a fixed set (used to explain failed unions). */
import type { Model } from "../../analyze/model.js";
import type { JsonValue, Node } from "../../ir/nodes.js";

export type JsonTypeName = "string" | "number" | "boolean" | "null" | "object" | "array";

/** undefined: any type may pass. */
export function jsonTypesOf(node: Node, model: Model, seen = new Set<string>()): Set<JsonTypeName> | undefined {
  switch (node.kind) {
    case "primitive":
      return new Set([node.type === "integer" ? "number" : node.type]);
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

export function describeTypes(types: ReadonlySet<JsonTypeName>): string {
  const names = [...types].map((t) => (t === "null" ? "null" : t === "array" ? "an array" : t === "object" ? "an object" : `a ${t}`));
  return names.length <= 1 ? (names[0] ?? "nothing") : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}
