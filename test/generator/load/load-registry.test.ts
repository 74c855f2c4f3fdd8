import { describe, expect, it } from "vitest";
import { generateFromMemory } from "../../../generator/index.js";

const typesOf = async (json: unknown, rootUri: string) => {
  const { files } = await generateFromMemory({
    documents: [{ uri: "file:///schemas/config.json", json }],
    roots: [{ name: "Config", uri: rootUri }],
    defaultDialect: "draft-07",
    format: false,
  });
  return files.find((f) => f.name === "types.ts")!.contents;
};

describe("schema resources and identifiers", () => {
  // Published schemas do this (lerna's config schema): the fragment of a draft-07 `$id` is a
  // plain-name anchor, and the base URI that `$ref`s resolve against is the `$id` without it.
  const withFragmentId = {
    $schema: "http://json-schema.org/draft-07/schema",
    $id: "https://example.test/config.json#top",
    type: "object",
    properties: {
      a: { $ref: "#/definitions/Name" },
      b: { $ref: "https://example.test/config.json#/definitions/Count" },
      c: { $ref: "#top" },
    },
    definitions: { Name: { type: "string" }, Count: { type: "integer" } },
  };

  it("a draft-07 $id with a plain-name fragment names the resource without it, and the fragment is an anchor", async () => {
    const types = await typesOf(withFragmentId, "file:///schemas/config.json");
    expect(types).toMatch(/a\?: Name;/);
    expect(types).toMatch(/b\?: Count;/);
    expect(types).toMatch(/c\?: Config;/);
  });

  it("the resource is reachable by its $id without the fragment", async () => {
    const types = await typesOf(withFragmentId, "https://example.test/config.json");
    expect(types).toMatch(/export interface Config \{/);
  });
});

describe("documents and their URIs", () => {
  it("two documents whose $ids name one document are a located error naming both", async () => {
    const attempt = generateFromMemory({
      documents: [
        { uri: "file:///s/a.json", display: "a.json", json: { $schema: "http://json-schema.org/draft-07/schema", $id: "tool#a", type: "string" } },
        { uri: "file:///s/b.json", display: "b.json", json: { $schema: "http://json-schema.org/draft-07/schema", $id: "tool#b", type: "number" } },
      ],
      roots: [{ name: "A", uri: "file:///s/a.json" }],
      format: false,
    });
    await expect(attempt).rejects.toThrow('b.json#/$id: "$id" "tool#b" names the same document as a.json#/$id (a fragment names an anchor, not a document)');
  });

  it("one document given twice is no clash", async () => {
    const json = { $id: "https://example.test/one.json", type: "string" };
    const { files } = await generateFromMemory({
      documents: [
        { uri: "https://example.test/one.json", json },
        { uri: "https://example.test/one.json", json },
      ],
      roots: [{ name: "One", uri: "https://example.test/one.json" }],
      format: false,
    });
    expect(files.find((f) => f.name === "types.ts")!.contents).toMatch(/export type One = string;/);
  });
});
