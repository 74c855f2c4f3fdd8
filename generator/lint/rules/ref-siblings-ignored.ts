/**
 * `ref-siblings-ignored`: in draft-04 to draft-07 a `$ref` replaces its whole schema, so validation keywords
 * beside it have no effect (2019-09 and 2020-12 apply them). Lowering drops them, so this rule
 * reads the raw JSON.
 */
import { keywordRole, refHasSiblings, type Dialect } from "../../load/dialect.js";
import type { Finding, RawRule } from "../rule.js";

export const refSiblingsIgnored: RawRule = {
  id: "ref-siblings-ignored",
  summary: "draft-04 to draft-07: validation keywords beside $ref have no effect",
  reads: "raw",
  check(schema, { dialect, at }) {
    if (typeof schema.$ref !== "string" || refHasSiblings(dialect)) return [];
    const found: Finding[] = [];
    for (const keyword of Object.keys(schema)) {
      const role = keywordRole(dialect, keyword);
      if (role !== "validation" && role !== "unsupported") continue;
      found.push({ rule: "ref-siblings-ignored", location: at(keyword), message: refSiblingMessage(keyword, dialect) });
    }
    return found;
  },
};

function refSiblingMessage(keyword: string, dialect: Dialect): string {
  return (
    `"${keyword}" beside "$ref" has no effect in ${dialect} (a $ref there replaces the whole schema), so neither the generated ` +
    `code nor any ${dialect} validator applies it; to apply it, write "allOf": [{ "$ref": ... }, { "${keyword}": ... }], ` +
    `or move the schema to 2019-09/2020-12, where keywords beside $ref apply`
  );
}
