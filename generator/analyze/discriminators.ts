/**
 * Discriminator detection: a union whose every variant is an object that requires one property
 * with its own constant value(s) is a discriminated union. Validators then switch on that
 * property instead of trying each variant, and types name the variants. The check is exact:
 * with a required, pairwise-distinct constant, a value can only ever match the variant its
 * discriminator selects, so `anyOf` and `oneOf` both reduce to that one variant.
 */
import type { Definition, Discriminator, JsonValue, Node } from "../ir/nodes.js";
import { definitionsById, followRefs, objectOf, type DefinitionsById } from "../ir/query.js";
import { mapChildren } from "../ir/walk.js";

type Scalar = string | number | boolean | null;

export function detectDiscriminators(definitions: readonly Definition[]): Definition[] {
  const byId = definitionsById(definitions);
  const rewrite = (node: Node): Node => {
    const inner = mapChildren(node, rewrite);
    if (inner.kind !== "union") return inner;
    const discriminator = findDiscriminator(inner.variants, byId);
    return discriminator ? { ...inner, discriminator } : inner;
  };
  return definitions.map((def) => ({ ...def, node: rewrite(def.node) }));
}

function findDiscriminator(variants: readonly Node[], byId: DefinitionsById): Discriminator | undefined {
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

function constantValues(node: Node, byId: DefinitionsById): Scalar[] | undefined {
  const target = followRefs(node, byId);
  if (target.kind !== "literal") return undefined;
  return target.values.every(isScalar) ? (target.values as Scalar[]) : undefined;
}

function isScalar(value: JsonValue): value is Scalar {
  return value === null || typeof value !== "object";
}
