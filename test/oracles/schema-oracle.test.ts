import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkSchema, cleanUpOracle, compareWithAjv, compileSets, generateSchemaSet } from "../support/schema-oracle.js";

/**
 * The schema oracle judges other tests' schemas, so it must be able to fail: a compile error, a
 * validator that disagrees with ajv, a definition in a remote document, a bad schema.
 */

afterAll(() => cleanUpOracle());

const schema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  definitions: {
    Point: { type: "object", properties: { x: { type: "number" }, y: { $ref: "https://example.com/units.json#/definitions/Unit" } }, required: ["x"] },
  },
};
const remotes = { "https://example.com/units.json": { definitions: { Unit: { enum: ["cm", "in"] } } } };

describe("the schema oracle", () => {
  it("passes a schema the generator handles, remote documents included", async () => {
    const check = await checkSchema(schema, { remotes, runs: 40 });
    expect(check.generated.ok).toBe(true);
    expect(check.compiled).toEqual({ strict: [], full: [] });
    expect(check.comparison?.problems).toEqual([]);
    expect(check.comparison?.disagreements).toEqual([]);
    const point = check.comparison?.tallies.find((t) => t.definition === "Point");
    expect(point?.accepted, "accepted values").toBeGreaterThan(0);
    expect(point?.rejected, "rejected values").toBeGreaterThan(0);
  });

  it("reports what the compiler says about broken output, under each flag set", async () => {
    const generated = await generateSchemaSet(schema, { remotes });
    if (!generated.ok) throw new Error(generated.error);
    const file = join(generated.set.dir, "validators.ts");
    writeFileSync(file, `${readFileSync(file, "utf8")}\nfunction unused(): void {}\nexport const wrong: string = 1;\n`);
    const result = compileSets([generated.set.dir]).get(generated.set.dir)!;
    expect(result.strict.some((d) => d.startsWith("validators.ts(") && d.includes("TS2322"))).toBe(true);
    expect(result.strict.some((d) => d.includes("TS6133")), "plain strict allows unused locals").toBe(false);
    expect(result.full.some((d) => d.includes("TS6133"))).toBe(true);
  });

  it("finds validators that disagree with ajv", async () => {
    const generated = await generateSchemaSet(schema, { remotes });
    if (!generated.ok) throw new Error(generated.error);
    // A validator that accepts everything: ajv rejects plenty of the values built.
    const lying = generated.set.files.map((f) =>
      f.name === "validators.ts" ? { ...f, contents: f.contents.replace(/export function isPoint\(value: unknown\): value is Point \{/, "$&\n  return true;") } : f,
    );
    expect(lying).not.toEqual(generated.set.files);
    const comparison = await compareWithAjv({ ...generated.set, files: lying }, { runs: 40 });
    expect(comparison.disagreements.length).toBeGreaterThan(0);
    expect(comparison.disagreements.every((d) => d.definition === "Point" && d.ajv === false && d.is === true)).toBe(true);
  });

  it("returns the located error of a schema the generator refuses", async () => {
    const generated = await generateSchemaSet({ definitions: { A: { type: "string", pattern: "(" } } });
    expect(generated.ok).toBe(false);
    if (!generated.ok) expect(generated.error).toMatch(/^schema\.json#\/definitions\/A\/pattern: /);
  });
});
