/**
 * An intersection's tests that another of its tests makes needless are left out of `isX`
 * (generator/emit/validators/implied.ts): `method: string` beside `method: "tasks/get"` (the exact test
 * takes the loose one's place, required if either part requires it), an optional `params: object` beside
 * a required `params: $ref Params`, an `allOf` part `{ type: "object" }` beside parts that are objects.
 * The verdicts stay ajv's, including where a test is not implied and stays.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cleanUpOracle, compareWithAjv, generateSchemaSet, importSetModule, type GeneratedSchemaSet } from "../../support/schema-oracle.js";

afterAll(cleanUpOracle);

const SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $defs: {
    Envelope: {
      type: "object",
      properties: { jsonrpc: { const: "2.0" }, method: { type: "string" }, params: { type: "object", additionalProperties: {} } },
      required: ["jsonrpc", "method"],
    },
    Params: { type: "object", properties: { taskId: { type: "string" } }, required: ["taskId"] },
    // Envelope's `method: string` and optional `params: object` are implied by the exact ones here.
    Request: {
      allOf: [{ $ref: "#/$defs/Envelope" }, { type: "object", properties: { method: { const: "tasks/get" }, params: { $ref: "#/$defs/Params" } }, required: ["method", "params"] }],
    },
    // The exact `method` is optional here while the loose one is required: presence must still be tested.
    OptionalExact: {
      allOf: [
        { type: "object", properties: { method: { type: "string" } }, required: ["method"] },
        { type: "object", properties: { method: { const: "x" } } },
      ],
    },
    // Not implied: a constant of another type, a constrained string, a nullable object.
    NotImplied: {
      allOf: [
        { type: "object", properties: { a: { type: "string" }, b: { type: "string", minLength: 3 }, c: { type: "object" } } },
        { type: "object", properties: { a: { const: 1 }, b: { const: "x" }, c: { anyOf: [{ $ref: "#/$defs/Params" }, { type: "null" }] } } },
      ],
    },
    // A part that takes any object, beside parts that are objects.
    Composite: { allOf: [{ $ref: "#/$defs/Params" }, { anyOf: [{ $ref: "#/$defs/Params" }, { type: "object", required: ["other"] }] }, { type: "object" }] },
    // Equal tests twice: one stays.
    Twice: { allOf: [{ type: "object", properties: { n: { type: "integer" } } }, { type: "object", properties: { n: { type: "integer" } } }] },
  },
};

async function generated(): Promise<{ set: GeneratedSchemaSet; source: string }> {
  const result = await generateSchemaSet(SCHEMA);
  if (!result.ok) throw new Error(result.error);
  return { set: result.set, source: result.set.files.find((f) => f.name === "validators.ts")!.contents };
}

/** The body of one generated function. */
function body(source: string, name: string): string {
  return new RegExp(`function \\${name}\\([^]*?\\n\\}`).exec(source)![0];
}

describe("tests an intersection's other tests imply are left out", () => {
  it("the loose `method` and `params` tests of the envelope go, the exact ones take their place", async () => {
    const { source } = await generated();
    const test = body(source, "$testRequest");
    // At the place of the first test of each: a value without `method` fails before `params` is read.
    expect(test.indexOf(".method")).toBeLessThan(test.indexOf(".params"));
    expect(test).toContain('!== "tasks/get"');
    expect(test).not.toMatch(/typeof value\d+ !== "string"/);
    expect(test.match(/\.method\b/g)).toHaveLength(1);
    expect(test.match(/\.params\b/g)).toHaveLength(1);
  });

  it("a part that takes any object goes beside parts that are objects; equal tests are written once", async () => {
    const { source } = await generated();
    expect(body(source, "$testComposite")).not.toContain("$isObject");
    expect(body(source, "$testTwice").match(/\.n\b/g)).toHaveLength(1);
  });

  it("a property required loosely and tested exactly is tested once, exactly; a test not implied stays", async () => {
    const { source } = await generated();
    // Required by one part, exact in the other: one test, exact and required (`{}` fails it).
    const optionalExact = body(source, "$testOptionalExact");
    expect(optionalExact.match(/\.method\b/g)).toHaveLength(1);
    expect(optionalExact).toMatch(/value\d+ [!=]== "x"/);
    const notImplied = body(source, "$testNotImplied");
    expect(notImplied.match(/\.a\b/g)).toHaveLength(2);
    expect(notImplied.match(/\.b\b/g)).toHaveLength(2);
    expect(notImplied.match(/\.c\b/g)).toHaveLength(2);
  });

  it("every definition gives ajv's verdict on valid-ish, mutated and arbitrary values", async () => {
    const { set } = await generated();
    const comparison = await compareWithAjv(set, { runs: 300, seed: 2026_12_02 });
    expect(comparison.problems).toEqual([]);
    expect(comparison.disagreements).toEqual([]);
  });

  it("the verdicts that hinge on a kept test", async () => {
    const { set } = await generated();
    const v = (await importSetModule(set)) as Record<string, (value: unknown) => boolean>;
    expect(v.isOptionalExact!({})).toBe(false);
    expect(v.isOptionalExact!({ method: "x" })).toBe(true);
    expect(v.isOptionalExact!({ method: "y" })).toBe(false);
    expect(v.isRequest!({ jsonrpc: "2.0", method: "tasks/get", params: { taskId: "t" } })).toBe(true);
    expect(v.isRequest!({ jsonrpc: "2.0", method: "tasks/get", params: [] })).toBe(false);
    expect(v.isRequest!({ jsonrpc: "2.0", method: "tasks/get", params: new Map() })).toBe(false);
    expect(v.isNotImplied!({ a: 1 })).toBe(false);
    expect(v.isNotImplied!({ b: "x" })).toBe(false);
    expect(v.isNotImplied!({ c: null })).toBe(false);
    expect(v.isComposite!({ taskId: "t" })).toBe(true);
    expect(v.isComposite!(Object.assign(Object.create({ constructor: Object }) as object, { taskId: "t" }))).toBe(true);
  });
});
