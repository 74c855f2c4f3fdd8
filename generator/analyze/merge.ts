/**
 * Merged-intersection mode (opt-in). By default `allOf` keeps JSON Schema's meaning: every branch
 * judges the whole value, so a branch with `additionalProperties: false` rejects properties its
 * siblings declare. Schemas emitted from TypeScript (`Result & Task` through Zod) rarely mean
 * that. In merged mode an `allOf` of objects is read as the TypeScript intersection: one object
 * with the properties of all branches, where a key no branch declares is judged by the open
 * branches' `additionalProperties` and rejected only when every branch is closed.
 *
 * Only validators read the merged model; types are the same in both modes, since a TypeScript
 * intersection already means this.
 */
import type { DefinitionId, Node, ObjectNode, UnionNode } from "../ir/nodes.js";
import { definitionsById, enterRef, type DefinitionsById } from "../ir/query.js";
import { mapChildren } from "../ir/walk.js";
import { detectDiscriminators } from "./discriminators.js";
import type { Model } from "./model.js";
import type { NamedDefinition } from "./naming.js";
import { simplify } from "./simplify.js";

export function mergeIntersections(model: Model): Model {
  const byId: DefinitionsById = model.byId;
  const rewrite = (node: Node): Node => {
    const inner = mapChildren(node, rewrite);
    if (inner.kind !== "intersection") return inner;
    return mergeIntersection(inner.parts, byId) ?? inner;
  };
  const merged = model.definitions.map((def) => ({ ...def, node: rewrite(def.node) }));
  const definitions = detectDiscriminators(merged) as NamedDefinition[];
  return { ...model, definitions, byId: definitionsById(definitions) };
}

/** The alternatives an object-like node stands for, or undefined when it is not object-like. */
function alternatives(node: Node, byId: DefinitionsById, seen: ReadonlySet<DefinitionId>): { objects: ObjectNode[]; union?: UnionNode } | undefined {
  switch (node.kind) {
    case "object":
      return { objects: [node] };
    case "ref": {
      const next = enterRef(node, byId, seen);
      return next ? alternatives(next.definition.node, byId, next.seen) : undefined;
    }
    case "union": {
      if (node.exclusive && !node.discriminator) return undefined;
      const objects: ObjectNode[] = [];
      for (const variant of node.variants) {
        const found = alternatives(variant, byId, seen);
        if (!found || found.union) return undefined;
        objects.push(...found.objects);
      }
      return { objects, union: node };
    }
    default:
      return undefined;
  }
}

function mergeIntersection(parts: readonly Node[], byId: DefinitionsById): Node | undefined {
  const found = parts.map((part) => alternatives(part, byId, new Set()));
  if (found.some((f) => f === undefined)) return undefined;
  const unions = found.filter((f) => f!.union);
  if (unions.length > 1) return undefined; // a product of unions would not read as one schema
  const fixed = found.filter((f) => !f!.union).flatMap((f) => f!.objects);
  const union = unions[0];
  if (!union) return mergeObjects(fixed);
  const variants = union.objects.map((variant) => mergeObjects([...fixed, variant]));
  return { kind: "union", variants, exclusive: union.union!.exclusive, loc: union.union!.loc };
}

function mergeObjects(objects: readonly ObjectNode[]): ObjectNode {
  const names: string[] = [];
  const byName = new Map<string, { nodes: Node[]; required: boolean }>();
  for (const object of objects) {
    for (const property of object.properties) {
      const entry = byName.get(property.name);
      if (entry) {
        entry.nodes.push(property.node);
        entry.required ||= property.required;
      } else {
        names.push(property.name);
        byName.set(property.name, { nodes: [property.node], required: property.required });
      }
    }
  }
  const first = objects[0]!;
  const properties = names.map((name) => {
    const { nodes, required } = byName.get(name)!;
    const node = nodes.length === 1 ? nodes[0]! : simplify({ kind: "intersection", parts: nodes, loc: nodes[0]!.loc });
    return { name, node, required };
  });
  const requiredOnly = [...new Set(objects.flatMap((o) => o.requiredOnly))].filter((n) => !byName.has(n));
  // A key no branch declares: open branches judge it; it is rejected only when all are closed.
  const open = objects.filter((o) => o.additional?.kind !== "never");
  const schemas = open.map((o) => o.additional).filter((a): a is Node => a !== undefined && a.kind !== "unknown");
  const additional: Node | undefined =
    open.length === 0
      ? { kind: "never", loc: first.loc }
      : schemas.length === 0
        ? undefined
        : schemas.length === 1
          ? schemas[0]
          : simplify({ kind: "intersection", parts: schemas, loc: schemas[0]!.loc });
  const propertyNames = objects.map((o) => o.propertyNames).filter((n): n is Node => n !== undefined);
  const mins = objects.map((o) => o.minProperties).filter((n): n is number => n !== undefined);
  const maxes = objects.map((o) => o.maxProperties).filter((n): n is number => n !== undefined);
  return {
    kind: "object",
    properties,
    requiredOnly,
    ...(additional ? { additional } : {}),
    patternProperties: objects.flatMap((o) => o.patternProperties),
    ...(propertyNames.length === 1
      ? { propertyNames: propertyNames[0]! }
      : propertyNames.length > 1
        ? { propertyNames: { kind: "intersection", parts: propertyNames, loc: propertyNames[0]!.loc } }
        : {}),
    ...(mins.length ? { minProperties: Math.max(...mins) } : {}),
    ...(maxes.length ? { maxProperties: Math.min(...maxes) } : {}),
    dependentRequired: objects.flatMap((o) => o.dependentRequired),
    dependentSchemas: objects.flatMap((o) => o.dependentSchemas),
    loc: first.loc,
  };
}
