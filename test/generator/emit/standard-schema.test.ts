import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { pathSegments, standardSchema } from "../../../templates/runtime/protocol/json.js";
import { cleanUpOracle, generateSchemaSet, importSetModule, type GeneratedSchemaSet } from "../../support/schema-oracle.js";
import { STRICT_COMPILER_OPTIONS, typeCheckInMemory } from "../../support/typescript.js";
import { projectRoot } from "../../support/paths.js";

/**
 * `standard-schema.ts`: each definition's validator as a Standard Schema v1 object. Checked
 * against the interface as its authors publish it (@standard-schema/spec), by behaviour (the
 * verdict is the validator's, the issue paths are ajv's instance paths as keys), and for the one
 * name it adds to index.ts.
 */

afterAll(cleanUpOracle);

const SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $defs: {
    Order: {
      type: "object",
      required: ["lines"],
      properties: {
        lines: { type: "array", items: { $ref: "#/$defs/Line" } },
        tags: { type: "object", additionalProperties: { type: "integer" } },
      },
    },
    Line: {
      type: "object",
      required: ["sku", "a/b~c"],
      properties: { sku: { type: "string" }, "a/b~c": { type: "number" } },
    },
  },
};

interface StandardSchemaLike {
  readonly "~standard": {
    readonly version: number;
    readonly vendor: string;
    readonly validate: (value: unknown) => { value?: unknown; issues?: readonly { message: string; path?: readonly unknown[] }[] };
  };
}

async function generated(): Promise<{ set: GeneratedSchemaSet; schemas: Record<string, StandardSchemaLike> }> {
  const result = await generateSchemaSet(SCHEMA);
  if (!result.ok) throw new Error(result.error);
  return { set: result.set, schemas: (await importSetModule(result.set, "standard-schema")) as Record<string, StandardSchemaLike> };
}

/** ajv's instance paths as Standard Schema keys (numbers where ajv's value is an array index). */
function ajvPaths(value: unknown): unknown[][] {
  const ajv = new Ajv2020.default({ allErrors: true, strict: false });
  const validate = ajv.compile({ ...SCHEMA, $ref: "#/$defs/Order" });
  validate(value);
  return (validate.errors ?? []).map((e) => pathSegments(value, e.instancePath));
}

describe("standard-schema.ts", () => {
  it("exports one object per definition, with version 1 and the tool as vendor", async () => {
    const { schemas } = await generated();
    expect(Object.keys(schemas).sort()).toEqual(["Line", "Order"]);
    for (const schema of Object.values(schemas)) {
      expect(schema["~standard"].version).toBe(1);
      expect(schema["~standard"].vendor).toBe("mcp-tasks-gen");
    }
  });

  it("accepts a valid value as { value } (the same value, no issues)", async () => {
    const { schemas } = await generated();
    const order = { lines: [{ sku: "x", "a/b~c": 1 }], tags: { "0": 2 } };
    const result = schemas.Order!["~standard"].validate(order);
    expect(result.value).toBe(order);
    expect(result.issues).toBeUndefined();
  });

  it("rejects with one issue per validation error, paths as keys: indices as numbers, pointer escapes undone", async () => {
    const { schemas } = await generated();
    const order = { lines: [{ sku: "x", "a/b~c": 1 }, { sku: 3, "a/b~c": "no" }], tags: { "0": "zero" } };
    const result = schemas.Order!["~standard"].validate(order);
    expect(result.value).toBeUndefined();
    const paths = result.issues!.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining([["lines", 1, "sku"], ["lines", 1, "a/b~c"], ["tags", "0"]]));
    expect(new Set(paths.map((p) => JSON.stringify(p)))).toEqual(new Set(ajvPaths(order).map((p) => JSON.stringify(p))));
    for (const issue of result.issues!) expect(issue.message).toMatch(/expected/);
  });

  it("reports a missing property at the property, and a wrong root at the empty path", async () => {
    const { schemas } = await generated();
    expect(schemas.Line!["~standard"].validate({ sku: "x" }).issues).toEqual([
      { message: 'missing required property "a/b~c"', path: ["a/b~c"] },
    ]);
    expect(schemas.Line!["~standard"].validate(null).issues?.map((i) => i.path)).toEqual([[]]);
  });

  it("is a StandardSchemaV1 as @standard-schema/spec declares it, and infers the definition's type", async () => {
    const { set } = await generated();
    const files = new Map(set.files.map((f) => [f.name, f.contents]));
    files.set(
      "consumer.ts",
      [
        'import type { StandardSchemaV1 } from "@standard-schema/spec";',
        'import { standardSchema, type Order } from "./index.js";',
        "const order: StandardSchemaV1<unknown, Order> = standardSchema.Order;",
        "type Output = StandardSchemaV1.InferOutput<typeof standardSchema.Line>;",
        'const line: Output = { sku: "x", "a/b~c": 1 };',
        "// @ts-expect-error: the inferred output is the definition's type, not any",
        'const wrong: Output = { sku: 1, "a/b~c": 1 };',
        "export { order, line, wrong };",
      ].join("\n"),
    );
    // The spec package's types live in node_modules: resolve them from the project.
    const diagnostics = typeCheckInMemory(files, { ...STRICT_COMPILER_OPTIONS, baseUrl: projectRoot, paths: {
      "@standard-schema/spec": [join(projectRoot, "node_modules/@standard-schema/spec/dist/index.d.ts")],
    } });
    expect(diagnostics).toEqual([]);
  });

  it("index.ts re-exports it as one namespace, so the values never clash with the types of the same name", async () => {
    const { set } = await generated();
    const index = set.files.find((f) => f.name === "index.ts")!.contents;
    expect(index).toContain('export * as standardSchema from "./standard-schema.js";');
  });

  it("a definition named like that namespace is a located error that names the way out", async () => {
    const result = await generateSchemaSet({ $defs: { standardSchema: { type: "string" } } });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/schema\.json#\/\$defs\/standardSchema: the definition name "standardSchema" is also exported by the generated index\.ts.*--name/);
  });

  it("the runtime's pathSegments reads the value: a key '0' of an object stays a string", () => {
    expect(pathSegments({ a: [{ "0": [5] }] }, "/a/0/0/0")).toEqual(["a", 0, "0", 0]);
    expect(pathSegments({}, "/x~1y/~0")).toEqual(["x/y", "~"]);
    const always = standardSchema((_value: unknown) => ({ ok: false as const, errors: [{ path: "", keyword: "type", message: "m", schemaPath: "s#" }] }));
    expect(always["~standard"].validate(1)).toEqual({ issues: [{ message: "m", path: [] }] });
  });

  it("is emitted for every bundled set that has definitions", () => {
    for (const set of ["tasks-2025-11-25", "ext-tasks-draft", "ext-tasks-2026-05-22", "elicitation-codex"]) {
      const index = readFileSync(join(projectRoot, "generated", set, "index.ts"), "utf8");
      expect(index).toContain("export * as standardSchema");
    }
  });
});
