/**
 * Tests another test makes needless, for the boolean mode's intersections: an `allOf` often says a
 * thing twice, once loosely and once exactly (JSON-RPC's `method: string` and a request's
 * `method: "tasks/get"`; `params: object` and `params: $ref Params`). Leaving out the loose test
 * changes no verdict and saves the reads and calls it costs on every message. The error mode keeps
 * both: it reports what each part says (and its list drops the repeats).
 *
 * Conservative: a rule holds for every value, or it is not here.
 */
import type { JsonValue, Node, ObjectNode, PrimitiveNode, Property } from "../../ir/nodes.js";
import { jsonTypes, type DefinitionsById } from "../../ir/query.js";

/** Whether every value `stronger` accepts, `weaker` accepts too (so testing `stronger` makes testing `weaker` needless). */
export function implies(stronger: Node, weaker: Node, definitions: DefinitionsById): boolean {
  if (weaker.kind === "unknown") return true;
  if (weaker.kind === "ref" && stronger.kind === "ref") return weaker.target === stronger.target;
  if (weaker.kind === "primitive" && stronger.kind === "primitive") return sameTypeAndConstraints(stronger, weaker);
  if (weaker.kind === "primitive" && stronger.kind === "literal") return stronger.values.every((value) => isOfPlainType(value, weaker));
  if (isAnyJsonObject(weaker)) {
    const types = jsonTypes(stronger, definitions);
    return types !== undefined && types.size === 1 && types.has("object");
  }
  return false;
}

/** Whether a node accepts every JSON object and nothing else (`{ "type": "object" }` with nothing more). */
export function isAnyJsonObject(node: Node): boolean {
  if (node.kind === "map") return node.values.kind === "unknown" && node.keys === undefined && node.minProperties === undefined && node.maxProperties === undefined;
  if (node.kind !== "object") return false;
  return (
    node.properties.length === 0 &&
    node.requiredOnly.length === 0 &&
    (node.additional === undefined || node.additional.kind === "unknown") &&
    node.patternProperties.length === 0 &&
    node.propertyNames === undefined &&
    node.minProperties === undefined &&
    node.maxProperties === undefined &&
    node.dependentRequired.length === 0 &&
    node.dependentSchemas.length === 0
  );
}

/** The same type under the same constraints (`integer` is stronger than `number` too, when neither has any). */
function sameTypeAndConstraints(stronger: PrimitiveNode, weaker: PrimitiveNode): boolean {
  const sameConstraints = JSON.stringify(stronger.string ?? null) === JSON.stringify(weaker.string ?? null) && JSON.stringify(stronger.number ?? null) === JSON.stringify(weaker.number ?? null);
  if (!sameConstraints) return false;
  return stronger.type === weaker.type || (stronger.type === "integer" && weaker.type === "number" && stronger.number === undefined);
}

/** Whether a value is of a primitive node's type, when that node has no constraint beyond its type. */
function isOfPlainType(value: JsonValue, node: PrimitiveNode): boolean {
  if (node.string !== undefined || node.number !== undefined) return false;
  switch (node.type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
  }
}

/**
 * What to test in place of each property of an intersection's object parts, where several parts test
 * the same property and one test implies all the others (see `implies`): that test, at the place of
 * the first (so a value missing the property fails as early as before), required when any part
 * requires it; nothing at the others (null). Properties not in the map are tested as they are.
 */
export function mergedProperties(objects: readonly ObjectNode[], definitions: DefinitionsById): ReadonlyMap<Property, Property | null> {
  const byName = new Map<string, Property[]>();
  for (const object of objects) {
    for (const property of object.properties) {
      const same = byName.get(property.name);
      if (same) same.push(property);
      else byName.set(property.name, [property]);
    }
  }
  const merged = new Map<Property, Property | null>();
  for (const properties of byName.values()) {
    if (properties.length < 2) continue;
    // The one test that makes every other test of the property needless.
    const strongest = properties.find((candidate, i) =>
      properties.every((other, j) => j === i || makesNeedless(candidate.node, i, other.node, j, definitions)),
    );
    if (!strongest) continue;
    const required = properties.some((p) => p.required);
    properties.forEach((property, i) => merged.set(property, i === 0 ? { ...strongest, required } : null));
  }
  return merged;
}

/**
 * Whether the test at place `i` makes the one at place `j` needless: it implies it, and where the two
 * imply each other (equal tests), the earlier one stays.
 */
function makesNeedless(stronger: Node, i: number, weaker: Node, j: number, definitions: DefinitionsById): boolean {
  return implies(stronger, weaker, definitions) && (i < j || !implies(weaker, stronger, definitions));
}

/** An intersection's parts without those another part's test makes needless (see `implies`). */
export function neededParts(parts: readonly Node[], definitions: DefinitionsById): Node[] {
  const needless = new Set<number>();
  parts.forEach((weaker, i) => {
    const coveredBy = parts.some((stronger, j) => j !== i && !needless.has(j) && makesNeedless(stronger, j, weaker, i, definitions));
    if (coveredBy) needless.add(i);
  });
  return parts.filter((_, i) => !needless.has(i));
}
