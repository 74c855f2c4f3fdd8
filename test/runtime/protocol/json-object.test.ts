// `isJsonObject`, the error mode's object test: the same answer whether the generated check reads the value's
// `constructor` itself and passes it (what it does, for its own inline cache) or leaves the read to the runtime.
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isJsonObject } from "../../../templates/runtime/protocol/json.js";

class Holder {
  ttlMs = 1;
}

/** As the generated checks call it: the constructor read at the call's place. */
const asChecksAsk = (value: unknown) => isJsonObject(value, (value as object | null)?.constructor);

const objects: [string, unknown][] = [
  ["a literal", { a: 1 }],
  ["parsed JSON", JSON.parse('{ "a": [1, { "b": null }] }')],
  ["parsed JSON with its own constructor member", JSON.parse('{ "constructor": "mine" }')],
  ["an object without a prototype", Object.assign(Object.create(null) as object, { a: 1 })],
  ["an object of another realm", runInNewContext("({ a: 1 })")],
  ["a null-prototype object of another realm", runInNewContext("Object.create(null)")],
];

const others: [string, unknown][] = [
  ["null", null],
  ["undefined", undefined],
  ["a string", "{}"],
  ["a number", 1],
  ["a boolean", true],
  ["a bigint", 1n],
  ["a symbol", Symbol("s")],
  ["a function", () => ({})],
  ["an array", [1]],
  ["an array of another realm", runInNewContext("[]")],
  ["a Map", new Map()],
  ["a Map of another realm", runInNewContext("new Map()")],
  ["a Date", new Date(0)],
  ["a boxed string", new String("x")],
  ["a class instance", new Holder()],
  ["an object whose prototype's prototype has one", Object.create(Object.create(Object.create(null)))],
  ["a Map claiming to be plain by its own constructor member", Object.assign(new Map(), { constructor: 1 })],
];

describe("isJsonObject", () => {
  it.each(objects)("%s is a JSON object, asked either way", (_, value) => {
    expect(isJsonObject(value)).toBe(true);
    expect(asChecksAsk(value)).toBe(true);
  });

  it.each(others)("%s is none, asked either way", (_, value) => {
    expect(isJsonObject(value)).toBe(false);
    expect(asChecksAsk(value)).toBe(false);
  });

  it("a constructor given for what is no object at all (null, a primitive, a function) does not make it one", () => {
    // The given constructor only spares the prototype walk; `typeof` still decides.
    const notObjects = others.filter(([, value]) => value === null || typeof value !== "object");
    expect(notObjects).toHaveLength(8);
    for (const [, value] of notObjects) expect(isJsonObject(value, Object)).toBe(false);
  });

  it("agrees with the one-argument form on any value fast-check makes", () => {
    fc.assert(
      fc.property(fc.anything({ withMap: true, withSet: true, withDate: true, withNullPrototype: true, withBoxedValues: true, withTypedArray: true }), (value) => {
        expect(asChecksAsk(value)).toBe(isJsonObject(value));
      }),
      { numRuns: 3000 },
    );
  });
});
