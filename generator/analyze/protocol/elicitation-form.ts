/**
 * Which definition of a set is an elicitation form's requested schema, found from the shapes of
 * the set (never its name): an object whose `mode` is the constant "form" and whose
 * `requestedSchema` refers to a named definition, itself an object schema with `properties` (the
 * MCP `ElicitRequestFormParams` pattern; Codex's `mode: "form"` variant has it too). A set with
 * such a definition gets the run-time form module (`elicitation.ts`).
 */
import type { Model } from "../model.js";
import type { NamedDefinition } from "../naming.js";
import type { DefinitionId, JsonValue, Node, ObjectNode } from "../../ir/nodes.js";
import { refTarget } from "../../ir/query.js";

export interface RequestedSchemaDefinition {
  /** The requested schema's definition (`McpElicitationSchema`). */
  readonly name: string;
  /** The definition holding `mode: "form"` and `requestedSchema` (`ElicitRequestFormParams`). */
  readonly formParams: string;
}

/** The requested-schema definition of the set's first form elicitation, if it has one. */
export function findRequestedSchema(model: Model): RequestedSchemaDefinition | undefined {
  for (const def of model.definitions) {
    const object = objectIn(def.node, model.byId);
    if (!object) continue;
    const mode = object.properties.find((p) => p.name === "mode");
    const requested = object.properties.find((p) => p.name === "requestedSchema");
    const target = requested ? refTarget(requested.node, model.byId) : undefined;
    if (!mode || !target) continue;
    const values = constants(mode.node, model.byId);
    if (values?.length !== 1 || values[0] !== "form") continue;
    if (isFormSchema(target, model.byId)) return { name: target.name, formParams: def.name };
  }
  return undefined;
}

/** An object schema that lists its fields in `properties` (an object or a map of field schemas). */
function isFormSchema(def: NamedDefinition, byId: ReadonlyMap<DefinitionId, NamedDefinition>): boolean {
  const object = objectIn(def.node, byId);
  const properties = object?.properties.find((p) => p.name === "properties");
  if (!properties) return false;
  const node = properties.node.kind === "ref" ? refTarget(properties.node, byId)?.node : properties.node;
  return node?.kind === "map" || node?.kind === "object";
}

/** The object a node stands for: itself, through a reference, or the one object part of an intersection. */
function objectIn(node: Node, byId: ReadonlyMap<DefinitionId, NamedDefinition>, seen = new Set<DefinitionId>()): ObjectNode | undefined {
  switch (node.kind) {
    case "object":
      return node;
    case "ref": {
      if (seen.has(node.target)) return undefined;
      seen.add(node.target);
      const def = refTarget(node, byId);
      return def ? objectIn(def.node, byId, seen) : undefined;
    }
    case "intersection": {
      const objects = node.parts.map((part) => objectIn(part, byId, seen)).filter((o) => o !== undefined);
      return objects.length === 1 ? objects[0] : undefined;
    }
    default:
      return undefined;
  }
}

/** The constant values a node allows (`const`/`enum`, through references and intersections). */
function constants(node: Node, byId: ReadonlyMap<DefinitionId, NamedDefinition>, seen = new Set<DefinitionId>()): readonly JsonValue[] | undefined {
  switch (node.kind) {
    case "literal":
      return node.values;
    case "ref": {
      if (seen.has(node.target)) return undefined;
      seen.add(node.target);
      const def = refTarget(node, byId);
      return def ? constants(def.node, byId, seen) : undefined;
    }
    case "intersection":
      for (const part of node.parts) {
        const values = constants(part, byId, seen);
        if (values) return values;
      }
      return undefined;
    default:
      return undefined;
  }
}
