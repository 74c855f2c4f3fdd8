import { join } from "node:path";
import * as prettier from "prettier";
import { describe, expect, it } from "vitest";
import { generate, generateFromMemory, readConfigFile } from "../../../generator/index.js";
import { scaleSchema } from "../../../bench/lib/scale-schema.mjs";
import { projectRoot } from "../../support/paths.js";

// The generator formats with prettier's babel-ts parser for speed; this proves the result is
// exactly what the typescript parser prints too, i.e. the files are prettier-formatted TypeScript.
describe("generated files are prettier-formatted", async () => {
  const result = await generate(readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json")));
  const files = result.sets.flatMap((set) => set.files.map((file) => ({ set: set.name, ...file })));

  it("covers every generated file", () => {
    expect(files.length).toBeGreaterThanOrEqual(12);
  });

  for (const file of files) {
    it(`${file.set}/${file.name} is unchanged by prettier's typescript parser`, async () => {
      const again = await prettier.format(file.contents, { parser: "typescript", printWidth: 120, trailingComma: "all" });
      expect(again).toBe(file.contents);
    });
  }
});

// The generator formats a module statement by statement, and statements that differ only in names
// and plain strings once (generator/output/chunks.ts). The synthetic schema of `npm run bench:scale`
// is made of such repeats, and deep nesting gives deep code: both must come out as prettier prints them.
describe("generated files of repetitive and deep schemas are prettier-formatted", async () => {
  const deep = (depth: number) => {
    let node: object = { type: "string", pattern: "^[a-z'\"]+$" };
    for (let i = 0; i < depth; i++) {
      node = { type: "object", properties: { [`p${i % 3}`]: { type: "array", items: node }, "key with 'quotes'": { const: `"${i}"` } } };
    }
    return { $schema: "http://json-schema.org/draft-07/schema#", definitions: { Deep: node } };
  };
  const schemas = { "scale.json": scaleSchema(250), "deep.json": deep(60) };
  const outputs = await Promise.all(
    Object.entries(schemas).map(async ([file, json]) => {
      const uri = `file:///virtual/${file}`;
      const roots = Object.keys(json.definitions).map((name) => ({ name, uri: `${uri}#/definitions/${name}` }));
      const { files } = await generateFromMemory({ documents: [{ uri, json, display: file }], roots, defaultDialect: "draft-07" });
      return files.map((f) => ({ file, ...f }));
    }),
  );

  for (const f of outputs.flat()) {
    it(`${f.file}: ${f.name} is unchanged by prettier's typescript parser`, async () => {
      const again = await prettier.format(f.contents, { parser: "typescript", printWidth: 120, trailingComma: "all" });
      expect(again).toBe(f.contents);
    });
  }
});
