/**
 * `duplicate-branch`: two branches of one `anyOf`/`oneOf` accept exactly the same values (the
 * same structure, a branch that is only a `$ref` compared as the schema it points to). In a
 * `oneOf` that means both reject every value they describe.
 */
import { structureKey } from "../../ir/structure.js";
import { followRefs } from "../../ir/query.js";
import { at, where } from "../locations.js";
import type { Finding, IrRule } from "../rule.js";
import { isPlaceholderUnion } from "./placeholder-union.js";

export const duplicateBranch: IrRule = {
  id: "duplicate-branch",
  summary: "two branches of one anyOf/oneOf accept exactly the same values",
  reads: "ir",
  check(node, { definitions }) {
    // The JSON types of an untyped schema are not a written anyOf; a placeholder union is reported as such.
    if (node.kind !== "union" || node.byType || isPlaceholderUnion(node, definitions)) return [];
    const keyword = node.exclusive ? "oneOf" : "anyOf";
    const found: Finding[] = [];
    const firstByKey = new Map<string, number>();
    node.variants.forEach((variant, i) => {
      const key = structureKey(followRefs(variant, definitions));
      const first = firstByKey.get(key);
      if (first === undefined) {
        firstByKey.set(key, i);
        return;
      }
      const consequence = node.exclusive
        ? "; in a oneOf a value that matches one matches both, so these branches reject every value they describe"
        : "; one of them can go";
      found.push({
        rule: "duplicate-branch",
        location: at(node.loc, i),
        message: `this ${keyword} branch accepts exactly what branch ${where(at(node.loc, first), at(node.loc, i))} accepts${consequence}`,
      });
    });
    return found;
  },
};
