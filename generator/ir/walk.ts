/** Generic traversal of IR nodes: every pass that rewrites or inspects trees goes through here. */
import type { Node, ObjectNode } from "./nodes.js";

/** The direct child nodes of a node, in a fixed order. */
export function childNodes(node: Node): Node[] {
  switch (node.kind) {
    case "object":
      return [
        ...node.properties.map((p) => p.node),
        ...(node.additional ? [node.additional] : []),
        ...node.patternProperties.map((p) => p.node),
        ...(node.propertyNames ? [node.propertyNames] : []),
        ...node.dependentSchemas.map((d) => d.node),
      ];
    case "map":
      return [node.values, ...(node.keys ? [node.keys] : [])];
    case "array":
      return [...node.prefixItems, ...(node.items ? [node.items] : []), ...(node.contains ? [node.contains] : [])];
    case "union":
      return [...node.variants];
    case "intersection":
      return [...node.parts];
    case "not":
      return [node.node];
    case "conditional":
      return [node.if, ...(node.then ? [node.then] : []), ...(node.else ? [node.else] : [])];
    case "unevaluated":
      return [node.node, ...(node.properties ? [node.properties] : []), ...(node.items ? [node.items] : [])];
    default:
      return [];
  }
}

/**
 * Rebuilds a node with `fn` applied to each direct child (bottom-up rewrites call this
 * recursively). Returns the same object when no child changed.
 */
export function mapChildren(node: Node, fn: (child: Node) => Node): Node {
  switch (node.kind) {
    case "object": {
      const properties = node.properties.map((p) => ({ ...p, node: fn(p.node) }));
      const additional = node.additional && fn(node.additional);
      const patternProperties = node.patternProperties.map((p) => ({ ...p, node: fn(p.node) }));
      const propertyNames = node.propertyNames && fn(node.propertyNames);
      const dependentSchemas = node.dependentSchemas.map((d) => ({ ...d, node: fn(d.node) }));
      return {
        ...node,
        properties,
        ...(additional ? { additional } : {}),
        patternProperties,
        ...(propertyNames ? { propertyNames } : {}),
        dependentSchemas,
      };
    }
    case "map": {
      const keys = node.keys && fn(node.keys);
      return { ...node, values: fn(node.values), ...(keys ? { keys } : {}) };
    }
    case "array": {
      const items = node.items && fn(node.items);
      const contains = node.contains && fn(node.contains);
      return {
        ...node,
        prefixItems: node.prefixItems.map(fn),
        ...(items ? { items } : {}),
        ...(contains ? { contains } : {}),
      };
    }
    case "union":
      return { ...node, variants: node.variants.map(fn) };
    case "intersection":
      return { ...node, parts: node.parts.map(fn) };
    case "not":
      return { ...node, node: fn(node.node) };
    case "conditional": {
      const then = node.then && fn(node.then);
      const otherwise = node.else && fn(node.else);
      return { ...node, if: fn(node.if), ...(then ? { then } : {}), ...(otherwise ? { else: otherwise } : {}) };
    }
    case "unevaluated": {
      const properties = node.properties && fn(node.properties);
      const items = node.items && fn(node.items);
      return { ...node, node: fn(node.node), ...(properties ? { properties } : {}), ...(items ? { items } : {}) };
    }
    default:
      return node;
  }
}

/** Visits a node and all its descendants, parents first. */
export function visitNodes(node: Node, visit: (node: Node) => void): void {
  visit(node);
  for (const child of childNodes(node)) visitNodes(child, visit);
}

/**
 * Rebuilds an object node with property schemas mapped by `onProperty` (which learns the
 * property's name) and every other child schema by `onOther`; each child is visited once.
 */
export function mapObjectChildren(
  node: ObjectNode,
  onProperty: (child: Node, name: string) => Node,
  onOther: (child: Node) => Node,
): ObjectNode {
  const others = mapChildren({ ...node, properties: [] }, onOther) as ObjectNode;
  return { ...others, properties: node.properties.map((p) => ({ ...p, node: onProperty(p.node, p.name) })) };
}
