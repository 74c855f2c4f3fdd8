/**
 * The analyze stage: from lowered definitions to the model every emitter reads. Passes run in a
 * fixed order; each is a pure function of the previous result.
 */
import type { Definition, DefinitionId, Node } from "../ir/nodes.js";
import { definitionsById } from "../ir/query.js";
import { visitNodes } from "../ir/walk.js";
import { checkPureRefCycles } from "./cycles.js";
import { dedupeDefinitions } from "./dedupe.js";
import { detectDiscriminators } from "./discriminators.js";
import { nameDefinitions, type NamedDefinition, type NamingOptions } from "./naming.js";
import { simplify } from "./simplify.js";
import { findStatusModel, type StatusModel, type StatusSetting } from "./status.js";
import { buildMethodTable, type MethodMapping, type MethodTable } from "./methods.js";

export interface Model {
  /** Every declaration, in emission order. */
  readonly definitions: readonly NamedDefinition[];
  readonly byId: ReadonlyMap<DefinitionId, NamedDefinition>;
  readonly status?: StatusModel;
  readonly methods: MethodTable;
}

/**
 * `methods`: the config's mappings by method name (see methods.ts), for a revision that lacks a piece the stubs need;
 * `statuses`: the config's word on statuses the schema adds (see status.ts).
 */
export function analyze(
  lowered: readonly Definition[],
  naming: NamingOptions = {},
  methods: ReadonlyMap<string, MethodMapping> = new Map(),
  statuses: readonly StatusSetting[] = [],
): Model {
  checkPureRefCycles(lowered);
  // Sets that read annotations keep every keyword that makes them (see simplify.ts).
  const keepAnnotations = lowered.some((def) => usesUnevaluated(def.node));
  const simplified = lowered.map((def) => ({ ...def, node: simplify(def.node, { keepAnnotations }) }));
  const deduped = dedupeDefinitions(simplified);
  const discriminated = detectDiscriminators(deduped);
  const definitions = nameDefinitions(discriminated, naming);
  const status = findStatusModel(definitions, statuses);
  return {
    definitions,
    methods: buildMethodTable(definitions, methods),
    byId: definitionsById(definitions),
    ...(status ? { status } : {}),
  };
}

function usesUnevaluated(root: Node): boolean {
  let found = false;
  visitNodes(root, (node) => {
    if (node.kind === "unevaluated") found = true;
  });
  return found;
}
