/**
 * `other-dialect-keyword`: a keyword the schema's dialect does not define but another dialect
 * does (`dependencies` in 2020-12, `const` in draft-04). JSON Schema says a keyword unknown to
 * the dialect does not validate, so it is kept as an annotation and checks nothing; a validator of
 * the other dialect would apply it, which is worth saying. Lowering drops it, so this rule reads
 * the raw JSON.
 */
import { dialectsDefining, keywordRole, refHasSiblings } from "../../load/dialect.js";
import type { Finding, RawRule } from "../rule.js";

/** What to write instead where another dialect renamed or replaced the keyword: the keyword that replaces it, and how to say so. */
const INSTEAD: Readonly<Record<string, readonly [string, string]>> = {
  dependencies: ["dependentRequired", '"dependentRequired" (arrays of names) or "dependentSchemas" (schemas)'],
  additionalItems: ["prefixItems", '"items" beside "prefixItems"'],
  id: ["$id", '"$id"'],
  $id: ["id", '"id"'],
  $recursiveRef: ["$dynamicRef", '"$dynamicRef"'],
  $recursiveAnchor: ["$dynamicAnchor", '"$dynamicAnchor"'],
};

export const otherDialectKeyword: RawRule = {
  id: "other-dialect-keyword",
  summary: "a keyword of another JSON Schema dialect than the schema's (dependencies in 2020-12): an annotation there, it checks nothing",
  reads: "raw",
  check(schema, { dialect, at }) {
    // Beside a draft-04..07 $ref nothing is read; ref-siblings-ignored speaks for the validation keywords.
    if (typeof schema.$ref === "string" && !refHasSiblings(dialect)) return [];
    const found: Finding[] = [];
    for (const keyword of Object.keys(schema)) {
      const others = dialectsDefining(keyword, dialect);
      if (others.length === 0) continue;
      const replacement = Object.hasOwn(INSTEAD, keyword) ? INSTEAD[keyword]! : undefined;
      const instead = replacement && keywordRole(dialect, replacement[0]) !== undefined ? `; in ${dialect} write ${replacement[1]}` : "";
      found.push({
        rule: "other-dialect-keyword",
        location: at(keyword),
        message: `"${keyword}" is a keyword of ${others.join(", ")}, not of ${dialect} (the schema's dialect), so it is an annotation here and checks nothing${instead}; to apply it, declare the "$schema" of a dialect that has it`,
      });
    }
    return found;
  },
};
