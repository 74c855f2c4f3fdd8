import { afterAll, describe, expect, it } from "vitest";
import { fixturePath } from "../support/paths.js";
import { checkSchema, cleanUpOracle, isAjvPrototypeKeyMistake, show, type SchemaCheck } from "../support/schema-oracle.js";

/**
 * `unevaluatedProperties`/`unevaluatedItems` (annotations collected across `$ref`, `allOf`, `oneOf`,
 * `anyOf`, `if`/`then`/`else`, `dependentSchemas`, `patternProperties`, `prefixItems`, `contains`,
 * and none through `not`) and `$dynamicRef` (a tree made strict by the resource that refers to it)
 * judged by Ajv2020 on values built from the schema; the output compiles under both flag sets.
 * (`contains` is left to the Test Suite: ajv does not count its matches as evaluated items.)
 */

/**
 * Definitions specialised to a dynamic scope: `Tree` as `StrictTree` reaches it, whose children
 * are strict trees. ajv, asked for `Tree` alone, starts its dynamic scope at `Tree`; `StrictTree`
 * is judged, and through it this one.
 */
const SPECIALISED = new Set(["TreeForStrictTree"]);

afterAll(() => cleanUpOracle());

describe("unevaluated* and $dynamicRef against Ajv2020", () => {
  let check: SchemaCheck;

  it("generates, compiles under plain strict and the full flag set", async () => {
    check = await checkSchema(fixturePath("annotations", "unevaluated-dynamic.schema.json"), { runs: 300 });
    expect(check.generated.ok, check.generated.ok ? "" : check.generated.error).toBe(true);
    expect(check.compiled).toEqual({ strict: [], full: [] });
  }, 300_000);

  it("agrees with ajv on every value, and sees both verdicts for every definition", () => {
    const comparison = check.comparison!;
    expect(comparison.problems).toEqual([]);
    // ajv takes a key Object.prototype has for evaluated (see isAjvPrototypeKeyMistake); the validators reject it, as the spec says.
    const disagreements = comparison.disagreements.filter((d) => !isAjvPrototypeKeyMistake(d) && !SPECIALISED.has(d.definition));
    expect(disagreements.slice(0, 5).map((d) => ({ ...d, value: show(d.value) }))).toEqual([]);
    expect(comparison.tallies.map((t) => t.definition)).toEqual(expect.arrayContaining([...SPECIALISED, "StrictTree", "Tree", "Closed", "Row"]));
    for (const tally of comparison.tallies.filter((t) => !SPECIALISED.has(t.definition))) {
      expect(tally.accepted, `${tally.definition}: accepted values`).toBeGreaterThan(0);
      expect(tally.rejected, `${tally.definition}: rejected values`).toBeGreaterThan(0);
    }
  });
});
