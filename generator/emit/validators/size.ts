/**
 * How big generated check code gets, so that no function grows past what TypeScript's control-flow
 * analysis handles. The compiler walks back through every condition of a function to type each
 * reference to a narrowed variable, and gives up (TS2563, "too large for control flow analysis")
 * somewhere past two thousand; a long `a || b || …` chain even overflows its binder's stack.
 * Bodies heavier than MAX_FUNCTION_WEIGHT are split into private helper functions.
 */
import type { Node } from "../../ir/nodes.js";

/**
 * The most conditions (roughly) one generated function holds. Far below the compiler's limit: a
 * weight unit can stand for a few conditions (`x !== undefined && typeof x === "string" && …`).
 */
export const MAX_FUNCTION_WEIGHT = 150;

/** The most operands one `||`/`+` chain of helper calls gets (a tree of helpers beyond that). */
export const MAX_OPERANDS = 50;

const weights = new WeakMap<Node, number>();

/** Roughly how many conditions the inline code of a node has (a `$ref` is one call). */
export function inlineWeight(node: Node): number {
  const known = weights.get(node);
  if (known !== undefined) return known;
  const weight = computeWeight(node);
  weights.set(node, weight);
  return weight;
}

function computeWeight(node: Node): number {
  switch (node.kind) {
    case "unknown":
      return 0;
    case "never":
    case "ref":
    case "literal":
      return 1;
    case "primitive":
      return 1 + Object.keys(node.string ?? {}).length + Object.keys(node.number ?? {}).length;
    case "object": {
      let weight = 1 + node.requiredOnly.length + node.dependentRequired.length;
      for (const property of node.properties) weight += 1 + inlineWeight(property.node);
      for (const pattern of node.patternProperties) weight += 1 + inlineWeight(pattern.node);
      for (const dependency of node.dependentSchemas) weight += 1 + inlineWeight(dependency.node);
      if (node.additional) weight += 1 + inlineWeight(node.additional);
      if (node.propertyNames) weight += 1 + inlineWeight(node.propertyNames);
      return weight;
    }
    case "map":
      return 2 + inlineWeight(node.values) + (node.keys ? inlineWeight(node.keys) : 0);
    case "array":
      return (
        2 +
        node.prefixItems.reduce((sum, item) => sum + 1 + inlineWeight(item), 0) +
        (node.items ? inlineWeight(node.items) : 0) +
        (node.contains ? 1 + inlineWeight(node.contains) : 0)
      );
    case "union":
      return node.variants.reduce((sum, variant) => sum + 1 + inlineWeight(variant), 0);
    case "intersection":
      return node.parts.reduce((sum, part) => sum + 1 + inlineWeight(part), 0);
    case "conditional":
      return inlineWeight(node.if) + (node.then ? inlineWeight(node.then) : 0) + (node.else ? inlineWeight(node.else) : 0);
    case "not":
      return inlineWeight(node.node);
  }
}

/** The conditions written in generated lines (the measure `inlineWeight` estimates). */
export function codeWeight(lines: readonly string[]): number {
  let weight = 0;
  for (const line of lines) weight += 1 + (line.match(/\bif \(|&&|\|\||\bcase /g)?.length ?? 0);
  return weight;
}

/** Consecutive runs of items, each as heavy as allowed (an item heavier than that stands alone). */
export function chunkByWeight<T>(items: readonly T[], weightOf: (item: T) => number, max = MAX_FUNCTION_WEIGHT): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let weight = 0;
  for (const item of items) {
    const w = weightOf(item);
    if (current.length > 0 && weight + w > max) {
      chunks.push(current);
      current = [];
      weight = 0;
    }
    current.push(item);
    weight += w;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
