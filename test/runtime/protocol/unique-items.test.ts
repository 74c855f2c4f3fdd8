// `uniqueItems` (hasDuplicates): the same verdict as comparing every pair with jsonEqual, in time linear in
// the array, so a peer's long array cannot make a validator compare every pair.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasDuplicates, jsonEqual } from "../../../templates/runtime/protocol/json.js";

function pairwise(items: readonly unknown[]): boolean {
  for (let i = 1; i < items.length; i++) for (let j = 0; j < i; j++) if (jsonEqual(items[i], items[j])) return true;
  return false;
}

// A small alphabet makes equal items (and equal objects with keys in another order) common.
const smallJson = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, true, false, 0, -0, 1, 1.5, "a", "b", "", "1", "null", "t"),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "b", "c", "__proto__", "1"), tie("value"), { maxKeys: 3 }),
  ),
})).value;

describe("hasDuplicates", () => {
  it("agrees with comparing every pair, short arrays and long ones", () => {
    fc.assert(
      fc.property(fc.array(smallJson, { maxLength: 40 }), (items) => {
        expect(hasDuplicates(items)).toBe(pairwise(items));
      }),
      { numRuns: 2000 },
    );
  });

  it("treats objects with the same members in another order as equal, and numbers by value", () => {
    const filler = Array.from({ length: 20 }, (_, i) => `x${i}`);
    expect(hasDuplicates([...filler, { a: 1, b: [2, { c: 3, d: 4 }] }, { b: [2, { d: 4, c: 3 }], a: 1.0 }])).toBe(true);
    expect(hasDuplicates([...filler, 0, -0])).toBe(true);
    expect(hasDuplicates([...filler, "1", 1, [1], { 1: 1 }, null, "null", true, "true"])).toBe(false);
  });

  it("keeps apart what jsonEqual keeps apart: NaN, and objects that are no JSON objects unless identical", () => {
    const filler = Array.from({ length: 20 }, (_, i) => i);
    const map = new Map();
    expect(hasDuplicates([...filler, Number.NaN, Number.NaN])).toBe(false);
    expect(hasDuplicates([...filler, new Map(), new Map()])).toBe(false);
    expect(hasDuplicates([...filler, map, map])).toBe(true);
    expect(hasDuplicates([...filler, Object.create(null), {}])).toBe(true);
  });

  it("answers a 200,000-item array (every pair would be 2·10¹⁰ comparisons) with its duplicate last", () => {
    const strings = Array.from({ length: 200_000 }, (_, i) => `item-${i}`);
    expect(hasDuplicates(strings)).toBe(false);
    expect(hasDuplicates([...strings, "item-0"])).toBe(true);
    const objects = Array.from({ length: 200_000 }, (_, i) => ({ id: i, tags: ["a", String(i)] }));
    expect(hasDuplicates(objects)).toBe(false);
    expect(hasDuplicates([...objects, { tags: ["a", "7"], id: 7 }])).toBe(true);
  });
});
