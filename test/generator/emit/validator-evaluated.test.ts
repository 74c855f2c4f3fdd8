/**
 * unevaluatedProperties/unevaluatedItems in generated validators (generator/emit/validators/evaluated.ts):
 * what the schema decides is tested as constants in the key loop, only branches are decided at run
 * time (once per value, before the loop); and $dynamicRef gives one definition per dynamic scope.
 * The output is type-checked under the strict flag set with unused names refused.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Ajv2019 } from "ajv/dist/2019.js";
import { generateFromMemory, type MemoryDocument } from "../../../generator/index.js";
import { strictDiagnostics } from "../../support/typescript.js";
import { importGeneratedModule } from "../../support/generated-modules.js";

const URI = "http://x.test/e.json";
const temps: string[] = [];
afterAll(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

type Validators = Record<string, (value: unknown) => unknown>;

async function generated(defs: Record<string, unknown>, extra: readonly MemoryDocument[] = [], dialect = "https://json-schema.org/draft/2020-12/schema") {
  const { files } = await generateFromMemory({
    documents: [{ uri: URI, json: { $schema: dialect, $defs: defs } }, ...extra],
    roots: Object.keys(defs).map((name) => ({ name, uri: `${URI}#/$defs/${name}` })),
  });
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-evaluated-"));
  temps.push(dir);
  const diagnostics = strictDiagnostics(files);
  const validators = await importGeneratedModule<Validators>(files, dir);
  return { code: files.find((f) => f.name === "validators.ts")!.contents, validators, diagnostics };
}

const base = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };

describe("evaluated properties and items", () => {
  it("known statically through $ref and allOf: constant key tests, no run-time decision", async () => {
    const { code, validators, diagnostics } = await generated({
      Base: base,
      Closed: { allOf: [{ $ref: "#/$defs/Base" }], properties: { note: { type: "string" } }, patternProperties: { "^x-": {} }, unevaluatedProperties: false },
    });
    expect(diagnostics).toEqual([]);
    expect(code).not.toContain("holds");
    expect(code).toMatch(/key\d+ === "note" \|\| key\d+ === "id" \|\| \$PATTERN\d+\.test\(key\d+\)/);
    expect(validators.isClosed!({ id: "a", note: "n", "x-y": 1 })).toBe(true);
    expect(validators.isClosed!({ id: "a", other: 1 })).toBe(false);
    const result = validators.validateClosed!({ id: "a", other: 1 }) as { ok: boolean; errors: { path: string; keyword: string }[] };
    expect(result.errors).toMatchObject([{ path: "/other", keyword: "unevaluatedProperties" }]);
  });

  it("decided by branches: each variant's verdict once per value, before the key loop", async () => {
    const { code, validators, diagnostics } = await generated({
      Shape: {
        type: "object",
        anyOf: [{ properties: { r: { type: "number" } }, required: ["r"] }, { properties: { w: { type: "number" } }, required: ["w"] }],
        unevaluatedProperties: false,
      },
    });
    expect(diagnostics).toEqual([]);
    expect(code.match(/const holds\d+ = /g)).toHaveLength(4); // two in isShape's helper, two in $checkShape
    expect(validators.isShape!({ r: 1, w: 2 })).toBe(true); // both variants hold: both evaluate
    expect(validators.isShape!({ r: 1, w: "2" })).toBe(false); // w's variant fails: w is unevaluated
  });

  it("an `if` without then/else still evaluates, and `not` never does", async () => {
    const { validators, diagnostics } = await generated({
      If: { if: { properties: { a: { type: "number" } } }, unevaluatedProperties: false },
      Not: { not: { not: { properties: { a: true } } }, unevaluatedProperties: false },
    });
    expect(diagnostics).toEqual([]);
    expect(validators.isIf!({ a: 1 })).toBe(true);
    expect(validators.isIf!({ a: "1" })).toBe(false);
    expect(validators.isNot!({})).toBe(true);
    expect(validators.isNot!({ a: 1 })).toBe(false);
  });

  it("items: prefixItems, contains matches (2020-12) and unevaluatedItems", async () => {
    const { validators, diagnostics } = await generated({
      Row: { prefixItems: [{ type: "string" }], contains: { type: "number" }, unevaluatedItems: { type: "boolean" } },
    });
    expect(diagnostics).toEqual([]);
    expect(validators.isRow!(["a", 1, true, 2])).toBe(true);
    expect(validators.isRow!(["a", 1, "b"])).toBe(false);
  });
});

describe("$dynamicRef", () => {
  const tree = {
    $id: "http://x.test/tree.json",
    $dynamicAnchor: "node",
    type: "object",
    properties: { children: { type: "array", items: { $dynamicRef: "#node" } } },
  };

  it("a schema reached under another dynamic scope is a definition of its own, named for the anchor's schema", async () => {
    const { code, validators, diagnostics } = await generated({
      Tree: { $ref: "http://x.test/tree.json" },
      Strict: { $id: "http://x.test/strict.json", $dynamicAnchor: "node", $ref: "tree.json", unevaluatedProperties: false },
    }, [{ uri: "http://x.test/tree.json", json: tree }]);
    expect(diagnostics).toEqual([]);
    // The tree document is named from its file (`tree`); reached from Strict, it is `treeForStrict`.
    expect(code).toMatch(/export function istreeForStrict\(/);
    expect(validators.isTree!({ children: [{ extra: 1 }] })).toBe(true);
    expect(validators.isStrict!({ children: [{ children: [] }] })).toBe(true);
    expect(validators.isStrict!({ children: [{ extra: 1 }] })).toBe(false);
  });
});

describe("$recursiveRef (2019-09)", () => {
  const DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema";
  const tree = {
    $schema: DRAFT_2019,
    $id: "http://x.test/rtree.json",
    $recursiveAnchor: true,
    type: "object",
    properties: { data: true, children: { type: "array", items: { $recursiveRef: "#" } } },
  };
  const strict = { $id: "http://x.test/rstrict.json", $recursiveAnchor: true, $ref: "rtree.json", unevaluatedProperties: false };
  const values = [{ children: [{ extra: 1 }] }, { data: 1, children: [{ children: [] }] }, { children: [{ children: [{ extra: 1 }] }] }, { extra: 1 }, { children: [1] }];

  it("follows the outermost resource with $recursiveAnchor: true, as Ajv2019 does", async () => {
    const { validators, diagnostics } = await generated({ Tree: { $ref: "http://x.test/rtree.json" }, Strict: strict }, [{ uri: "http://x.test/rtree.json", json: tree }], DRAFT_2019);
    expect(diagnostics).toEqual([]);
    const ajv = new Ajv2019({ strict: false });
    ajv.addSchema(tree);
    ajv.addSchema({ $schema: DRAFT_2019, ...strict });
    for (const value of values) {
      expect(validators.isTree!(value), JSON.stringify(value)).toBe(ajv.validate("http://x.test/rtree.json", value));
      expect(validators.isStrict!(value), JSON.stringify(value)).toBe(ajv.validate("http://x.test/rstrict.json", value));
    }
    // Both verdicts seen, and the two differ where only the strict tree's children must be strict.
    expect(values.map((v) => validators.isTree!(v))).toEqual([true, true, true, true, false]);
    expect(values.map((v) => validators.isStrict!(v))).toEqual([false, true, false, false, false]);
  });
});
