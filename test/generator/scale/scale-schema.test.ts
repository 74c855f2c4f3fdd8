import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scaleSchema } from "../../../bench/lib/scale-schema.mjs";
import { generateFromMemory, type GeneratedFile } from "../../../generator/index.js";
import { STRICT_COMPILER_OPTIONS } from "../../support/typescript.js";
import { importGeneratedModule, writeGeneratedSources } from "../../support/generated-modules.js";

/**
 * The synthetic schema `npm run bench:scale` times (bench/lib/scale-schema.mjs) is what README.md › Scale
 * describes, and what the generator makes of it compiles and validates as ajv does: the benchmark
 * times real, correct output.
 */
const COUNT = 100;
const schema = scaleSchema(COUNT);
const defs = schema.definitions as Record<string, Record<string, unknown>>;

describe("the bench:scale schema", () => {
  it("has, of every five definitions, an enum, three closed objects and their discriminated oneOf", () => {
    expect(Object.keys(defs)).toHaveLength(COUNT);
    for (let g = 0; g < COUNT / 5; g++) {
      expect(defs[`Status${g}`]).toMatchObject({ type: "string", enum: expect.any(Array) });
      for (const letter of ["A", "B", "C"]) {
        const object = defs[`Record${g}${letter}`]!;
        expect(object).toMatchObject({ type: "object", required: ["kind", "title"], additionalProperties: false });
        expect(object.properties).toMatchObject({
          kind: { const: `record-${g}-${letter.toLowerCase()}` },
          title: { type: "string", minLength: 1, pattern: expect.any(String) },
          count: { type: "integer", minimum: 0 },
          tags: { type: "array", items: { type: "string" }, uniqueItems: true },
          status: { $ref: `#/definitions/Status${g}` },
          previous: { $ref: expect.stringMatching(/^#\/definitions\/Record\d+[ABC]$/) },
        });
      }
      expect(defs[`Record${g}`]).toEqual({ oneOf: ["A", "B", "C"].map((l) => ({ $ref: `#/definitions/Record${g}${l}` })) });
    }
  });
});

describe("what mcp-tasks-gen makes of it", () => {
  let files: readonly GeneratedFile[];
  let folder: string;
  beforeAll(async () => {
    const uri = "file:///virtual/scale.json";
    const roots = Object.keys(defs).map((name) => ({ name, uri: `${uri}#/definitions/${name}` }));
    ({ files } = await generateFromMemory({ documents: [{ uri, json: schema, display: "scale.json" }], roots, defaultDialect: "draft-07" }));
    folder = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-scale-"));
    writeGeneratedSources(files, folder);
  }, 60_000);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("compiles under the strict flag set with noUnusedLocals and noUnusedParameters", () => {
    const options = { ...STRICT_COMPILER_OPTIONS, noUnusedLocals: true, noUnusedParameters: true, lib: ["lib.es2022.d.ts"], noEmit: true };
    const program = ts.createProgram(
      files.map((f) => join(folder, f.name)),
      options,
    );
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  }, 60_000);

  it("validates as ajv does", async () => {
    const validators = await importGeneratedModule<Record<string, (v: unknown) => boolean>>(files, folder);
    const ajv = new Ajv({ strict: false });
    ajv.addSchema(schema, "scale");
    const g = 7;
    const valid = { kind: `record-${g}-b`, title: "Report 7", count: 3, tags: ["a", "b"], status: `open${g}`, previous: { kind: "record-6-c", title: "P" } };
    const values = [
      valid,
      { kind: `record-${g}-b`, title: "T" },
      { ...valid, kind: `record-${g}-a` },
      { ...valid, title: "" },
      { ...valid, title: "9 starts with a digit" },
      { ...valid, count: -1 },
      { ...valid, count: 1.5 },
      { ...valid, tags: ["a", "a"] },
      { ...valid, status: `open${g + 1}` },
      { ...valid, extra: true },
      { ...valid, previous: { kind: "record-6-c" } },
      { title: "no kind" },
      null,
    ];
    let accepted = 0;
    for (const name of [`Record${g}B`, `Record${g}`, `Record${g}A`]) {
      const oracle = ajv.getSchema(`scale#/definitions/${name}`)!;
      for (const [i, value] of values.entries()) {
        const expected = oracle(value) as boolean;
        accepted += expected ? 1 : 0;
        expect(validators[`is${name}`]!(value), `is${name}, value ${i}`).toBe(expected);
      }
    }
    expect(accepted, "some values are valid").toBeGreaterThan(0);
  });
});
