/**
 * Which definition of a set is an elicitation form's requested schema, found from the shapes of
 * the set (never its name): an object whose `mode` is the constant "form" and whose
 * `requestedSchema` refers to a named definition, itself an object schema with `properties` (the
 * MCP `ElicitRequestFormParams` pattern; Codex's `mode: "form"` variant has it too). A set with
 * such a definition gets the run-time form module (`elicitation.ts`).
 */
import type { Model } from "../model.js";
import type { NamedDefinition } from "../naming.js";
import type { DefinitionId } from "../../ir/nodes.js";
import { constantValues, followRefs, intersectionView, namedPropertyTarget, propertyNode } from "../../ir/query.js";

export interface RequestedSchemaDefinition {
  /** The requested schema's definition (`McpElicitationSchema`). */
  readonly name: string;
  /** The definition holding `mode: "form"` and `requestedSchema` (`ElicitRequestFormParams`). */
  readonly formParams: string;
}

/** The requested-schema definition of the set's first form elicitation, if it has one (read through `$ref`s and `allOf`). */
export function findRequestedSchema(model: Model): RequestedSchemaDefinition | undefined {
  for (const def of model.definitions) {
    const object = intersectionView(def.node, model.byId);
    const mode = object?.properties.get("mode");
    const requested = object?.properties.get("requestedSchema");
    const target = requested ? namedPropertyTarget(requested, model.byId) : undefined;
    if (!mode || !target) continue;
    const values = constantValues(propertyNode(mode), model.byId);
    if (values?.length !== 1 || values[0] !== "form") continue;
    if (isFormSchema(target, model.byId)) return { name: target.name, formParams: def.name };
  }
  return undefined;
}

/** An object schema that lists its fields in `properties` (an object or a map of field schemas). */
function isFormSchema(def: NamedDefinition, byId: ReadonlyMap<DefinitionId, NamedDefinition>): boolean {
  const properties = intersectionView(def.node, byId)?.properties.get("properties");
  if (!properties) return false;
  const node = followRefs(propertyNode(properties), byId);
  return node.kind === "map" || node.kind === "object" || intersectionView(node, byId) !== undefined;
}
