/**
 * Structural de-duplication: an inlined sub-schema equal to a named definition becomes a
 * reference to it (Zod output inlines every use). When several definitions share one body, the
 * name the place points to decides (`params.inputResponses` → `InputResponses`); when nothing
 * decides, the copy stays inline. Trivial shapes (a bare `string`, one constant) are never
 * replaced: they would turn every string into some definition that happens to be a string. Nested
 * descriptions take part in the comparison, so only real copies are merged.
 */
import type { Definition, DefinitionId, Node } from "../ir/nodes.js";
import { copyKey } from "../ir/structure.js";
import { mapChildren, mapObjectChildren } from "../ir/walk.js";
import { pascalCase } from "../names.js";

export function dedupeDefinitions(definitions: readonly Definition[]): Definition[] {
  const byShape = new Map<string, Definition[]>();
  for (const def of definitions) {
    if (!isWorthSharing(def.node)) continue;
    const key = copyKey(def.node);
    byShape.set(key, [...(byShape.get(key) ?? []), def]);
  }
  return definitions.map((def) => ({ ...def, node: replaceInside(def.node, def.id, byShape) }));
}

function replaceInside(root: Node, self: DefinitionId, byShape: ReadonlyMap<string, Definition[]>): Node {
  const visit = (node: Node, place: string | undefined): Node => {
    if (isWorthSharing(node)) {
      const candidates = (byShape.get(copyKey(node)) ?? []).filter((d) => d.id !== self);
      const chosen = choose(candidates, place);
      if (chosen) return { kind: "ref", target: chosen.id, loc: node.loc, ...(node.docs ? { docs: node.docs } : {}) };
    }
    return descend(node, place);
  };
  const descend = (node: Node, place: string | undefined): Node => {
    if (node.kind === "object") {
      return mapObjectChildren(node, (child, name) => visit(child, name), (child) => visit(child, undefined));
    }
    if (node.kind === "map") return mapChildren(node, (child) => visit(child, place && singular(place)));
    if (node.kind === "array") return mapChildren(node, (child) => visit(child, place && singular(place)));
    return mapChildren(node, (child) => visit(child, undefined));
  };
  return descend(root, undefined);
}

function choose(candidates: readonly Definition[], place: string | undefined): Definition | undefined {
  if (candidates.length === 1) return candidates[0];
  if (candidates.length === 0 || place === undefined) return undefined;
  const wanted = pascalCase(place);
  const matching = candidates.filter((d) => pascalCase(d.nameHint) === wanted);
  return matching.length === 1 ? matching[0] : undefined;
}

function isWorthSharing(node: Node): boolean {
  switch (node.kind) {
    case "object":
    case "map":
    case "array":
    case "union":
    case "intersection":
      return true;
    case "literal":
      return node.values.length > 1;
    default:
      return false;
  }
}

/** `inputRequests` → `inputRequest`, `inputResponses` → `inputResponse`: the place name of one entry of a collection. */
export function singular(word: string): string {
  if (/ies$/.test(word)) return word.slice(0, -3) + "y";
  if (/(ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}
