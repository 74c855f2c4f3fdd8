import { join } from "node:path";
import * as prettier from "prettier";
import { describe, expect, it } from "vitest";
import { generate, readConfigFile } from "../generator/index.js";
import { projectRoot } from "./support/paths.js";

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
