/**
 * Discriminator detection: a union whose every variant is an object that requires one property
 * with its own constant value(s) is a discriminated union. Validators then switch on that
 * property instead of trying each variant, and types name the variants. The check is exact:
 * with a required, pairwise-distinct constant, a value can only ever match the variant its
 * discriminator selects, so `anyOf` and `oneOf` both reduce to that one variant.
 */
import type { Definition, DefinitionId, Discriminator, JsonValue, Node, ObjectNode } from "../ir/nodes.js";
import { mapChildren } from "../ir/walk.js";

type Scalar = string | number | boolean | null;

export function detectDiscriminators(definitions: readonly Definition[]): Definition[] {
  const byId = new Map(definitions.map((d) => [d.id, d]));
  const rewrite = (node: Node): Node => {
    const inner = mapChildren(node, rewrite);
    if (inner.kind !== "union") return inner;
    const discriminator = findDiscriminator(inner.variants, byId);
    return discriminator ? { ...inner, discriminator } : inner;
  };
  return definitions.map((def) => ({ ...def, node: rewrite(def.node) }));
}

/** The object a variant stands for, looking through references. */
export function objectOf(node: Node, byId: ReadonlyMap<DefinitionId, Definition>, seen = new Set<DefinitionId>()): ObjectNode | undefined {
  if (node.kind === "object") return node;
  if (node.kind === "ref" && !seen.has(node.target)) {
    const def = byId.get(node.target);
    seen.add(node.target);
    return def ? objectOf(def.node, byId, seen) : undefined;
  }
  return undefined;
}

function findDiscriminator(variants: readonly Node[], byId: ReadonlyMap<DefinitionId, Definition>): Discriminator | undefined {
  const objects = variants.map((v) => objectOf(v, byId));
  if (objects.length < 2 || objects.some((o) => o === undefined)) return undefined;
  const first = objects[0]!;
  for (const candidate of first.properties) {
    const cases: { values: Scalar[]; variant: number }[] = [];
    const seen = new Set<string>();
    let ok = true;
    objects.forEach((object, variant) => {
      const property = object!.properties.find((p) => p.name === candidate.name);
      const values = property?.required ? constantValues(property.node, byId) : undefined;
      if (!ok || !values) {
        ok = false;
        return;
      }
      for (const value of values) {
        const key = JSON.stringify(value);
        if (seen.has(key)) ok = false;
        seen.add(key);
      }
      cases.push({ values, variant });
    });
    if (ok) return { property: candidate.name, cases };
  }
  return undefined;
}

function constantValues(node: Node, byId: ReadonlyMap<DefinitionId, Definition>): Scalar[] | undefined {
  if (node.kind === "ref") {
    const def = byId.get(node.target);
    return def ? constantValues(def.node, byId) : undefined;
  }
  if (node.kind !== "literal") return undefined;
  return node.values.every(isScalar) ? (node.values as Scalar[]) : undefined;
}

function isScalar(value: JsonValue): value is Scalar {
  return value === null || typeof value !== "object";
}
