/**
 * Structural identity of IR nodes: two nodes with the same key accept the same values by
 * construction (same kinds, same constraints, same children). Locations and docs are left out.
 */
import type { JsonValue, Node } from "./nodes.js";

/** A canonical JSON value: object keys sorted, so equal values print equally. */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] as JsonValue)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

const caches = { shape: new WeakMap<Node, string>(), copy: new WeakMap<Node, string>() };

/** A string that is equal for structurally equal nodes. */
export function structureKey(node: Node): string {
  return keyOf(node, "shape");
}

/**
 * Like structureKey, but the documentation of every node below the root must match too: two
 * schemas with this key equal are copies of one schema, not just the same shape (`{taskId}` of
 * `tasks/get` params is not a RelatedTaskMetadata, though both are `{ taskId: string }`).
 */
export function copyKey(node: Node): string {
  return keyOf(node, "copy");
}

function keyOf(node: Node, mode: "shape" | "copy"): string {
  const cached = caches[mode].get(node);
  if (cached !== undefined) return cached;
  const key = computeKey(node, mode);
  caches[mode].set(node, key);
  return key;
}

function computeKey(node: Node, mode: "shape" | "copy"): string {
  const k = (child: Node): string =>
    mode === "copy" && child.docs ? `${keyOf(child, mode)}#${JSON.stringify([child.docs.title, child.docs.description])}` : keyOf(child, mode);
  switch (node.kind) {
    case "unknown":
    case "never":
      return node.kind;
    case "primitive":
      return `p(${node.type},${JSON.stringify(node.string ?? {})},${JSON.stringify(node.number ?? {})})`;
    case "literal":
      return `l(${node.values.map(canonicalJson).join("|")})`;
    case "ref":
      return `r(${node.target})`;
    case "object":
      return [
        "o(",
        node.properties.map((p) => `${JSON.stringify(p.name)}${p.required ? "!" : "?"}:${k(p.node)}`).join(","),
        `;req=${node.requiredOnly.join(",")}`,
        `;add=${node.additional ? k(node.additional) : "-"}`,
        `;pat=${node.patternProperties.map((p) => `${JSON.stringify(p.pattern)}:${k(p.node)}`).join(",")}`,
        `;names=${node.propertyNames ? k(node.propertyNames) : "-"}`,
        `;n=${node.minProperties ?? ""}..${node.maxProperties ?? ""}`,
        `;dr=${JSON.stringify(node.dependentRequired)}`,
        `;ds=${node.dependentSchemas.map((d) => `${JSON.stringify(d.name)}:${k(d.node)}`).join(",")}`,
        ")",
      ].join("");
    case "map":
      return `m(${k(node.values)};${node.keys ? k(node.keys) : "-"};${node.minProperties ?? ""}..${node.maxProperties ?? ""})`;
    case "array":
      return [
        "a(",
        node.prefixItems.map(k).join(","),
        `;items=${node.items ? k(node.items) : "-"}`,
        `;contains=${node.contains ? k(node.contains) : "-"}:${node.minContains ?? ""}..${node.maxContains ?? ""}`,
        `;n=${node.minItems ?? ""}..${node.maxItems ?? ""};u=${node.uniqueItems ? 1 : 0}`,
        ")",
      ].join("");
    case "union":
      return `${node.exclusive ? "one" : "any"}(${node.variants.map(k).join("|")})`;
    case "intersection":
      return `all(${node.parts.map(k).join("&")})`;
    case "not":
      return `not(${k(node.node)})`;
    case "conditional":
      return `if(${k(node.if)};${node.then ? k(node.then) : "-"};${node.else ? k(node.else) : "-"})`;
    case "unevaluated":
      return `ue(${k(node.node)};${node.properties ? k(node.properties) : "-"};${node.items ? k(node.items) : "-"};${node.containsEvaluates ? 1 : 0})`;
  }
}
