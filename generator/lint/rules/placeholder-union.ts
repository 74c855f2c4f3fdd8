/**
 * `placeholder-union`: an `anyOf`/`oneOf` whose every branch accepts any value. It checks
 * nothing (a `oneOf` of them accepts nothing); the tool that wrote the schema probably lost the
 * real branch types (`z.any()`/`z.unknown()`, an unresolved type).
 */
import type { DefinitionId, Node, UnionNode } from "../../ir/nodes.js";
import { enterRef, type DefinitionsById } from "../../ir/query.js";
import type { IrRule } from "../rule.js";

export const placeholderUnion: IrRule = {
  id: "placeholder-union",
  summary: "an anyOf/oneOf whose every branch accepts any value: it checks nothing (a oneOf of them accepts nothing)",
  reads: "ir",
  check(node, { definitions }) {
    if (node.kind !== "union" || !isPlaceholderUnion(node, definitions)) return [];
    const keyword = node.exclusive ? "oneOf" : "anyOf";
    const outcome = node.exclusive
      ? "as a oneOf it accepts nothing (every value matches more than one branch)"
      : "it checks nothing and is generated as unknown";
    return [
      {
        rule: "placeholder-union",
        location: node.loc,
        message: `every branch of this ${keyword} (${node.variants.length}) accepts any value, so ${outcome}; the tool that wrote the schema probably lost the real branch types (z.any()/z.unknown(), an unresolved type)`,
      },
    ];
  },
};

/** A written union (not the JSON types of an untyped schema) of two or more branches that each accept anything. */
export function isPlaceholderUnion(node: UnionNode, definitions: DefinitionsById): boolean {
  return !node.byType && node.variants.length >= 2 && node.variants.every((v) => acceptsAnything(v, definitions));
}

/** Whether a node accepts every value: `true`/`{}`, also behind `$ref`s and in an `allOf` of such. */
function acceptsAnything(node: Node, definitions: DefinitionsById, seen: ReadonlySet<DefinitionId> = new Set()): boolean {
  switch (node.kind) {
    case "unknown":
      return true;
    case "ref": {
      const next = enterRef(node, definitions, seen);
      return next ? acceptsAnything(next.definition.node, definitions, next.seen) : false;
    }
    case "intersection":
      return node.parts.every((p) => acceptsAnything(p, definitions, seen));
    default:
      return false;
  }
}
