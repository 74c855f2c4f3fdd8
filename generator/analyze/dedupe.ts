/**
 * Structural de-duplication: an inlined sub-schema that is a named definition's copy becomes a
 * reference to it (Zod and ts-json-schema-generator output inline every use). A copy, not a
 * look-alike (ARCHITECTURE.md › Naming): the same structure with the same docs all the way down
 * (`copyKey`), the same title and description at its top too, and a shape specific enough to be
 * that definition (`isSpecific`: an object with properties, an enum of several values, or an
 * array, map, union or intersection built of such or of references). `string[]`, `{}` or a map of
 * anything are never replaced: a new definition that happens to be a `string[]` must not rename
 * every `string[]` property. When several definitions share one body, the name the place points to
 * decides (`params.inputResponses` → `InputResponses`); when nothing decides, the copy stays inline.
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

/** Whether `node` is the definition's copy by the rule above (and so would become a reference to it). */
export function isCopyOf(node: Node, definition: Node): boolean {
  return isSpecific(node) && sameTopDocs(node, definition) && copyKey(node) === copyKey(definition);
}

function sameTopDocs(a: Node, b: Node): boolean {
  return a.docs?.title === b.docs?.title && a.docs?.description === b.docs?.description;
}

function replaceInside(root: Node, self: DefinitionId, byShape: ReadonlyMap<string, Definition[]>): Node {
  const visit = (node: Node, place: string | undefined): Node => {
    if (isWorthSharing(node)) {
      const candidates = (byShape.get(copyKey(node)) ?? []).filter((d) => d.id !== self && sameTopDocs(node, d.node));
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
  return isSpecific(node);
}

/**
 * A shape specific enough that an equal one is a copy: an object that declares properties, an enum
 * of several values, a reference to a definition, or an array, map, union or intersection of such.
 */
export function isSpecific(node: Node): boolean {
  switch (node.kind) {
    case "object":
      return node.properties.length > 0 || node.patternProperties.length > 0;
    case "map":
      return isSpecific(node.values);
    case "array":
      return node.items !== undefined && isSpecific(node.items);
    case "union":
      return node.variants.some(isSpecific);
    case "intersection":
      return node.parts.some(isSpecific);
    case "literal":
      return node.values.length > 1;
    case "ref":
      return true;
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
