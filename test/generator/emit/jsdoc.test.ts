/**
 * JSDoc from schema annotations (generator/emit/jsdoc.ts): `format`, `default` and `examples` are
 * printed as tags, and schema text stays text (it cannot close the comment or add a tag).
 */
import { describe, expect, it } from "vitest";
import { generateFromMemory } from "../../../generator/index.js";
import { jsDoc } from "../../../generator/emit/jsdoc.js";

describe("jsDoc tags from annotations", () => {
  const cases: { name: string; docs: Parameters<typeof jsDoc>[0]; expected: string }[] = [
    { name: "format alone", docs: { format: "uri" }, expected: "/** @format uri */\n" },
    { name: "a default, as JSON", docs: { default: "draft" }, expected: '/** @default "draft" */\n' },
    { name: "a null default is still a default", docs: { default: null }, expected: "/** @default null */\n" },
    { name: "each example its own tag", docs: { examples: [1, { a: [true] }] }, expected: '/**\n * @example 1\n * @example {"a":[true]}\n */\n' },
    {
      name: "description first, then format, default, examples, deprecated",
      docs: { description: "When.", format: "date-time", default: "2025-01-01T00:00:00Z", examples: ["2025-11-25T10:00:00Z"], deprecated: true },
      expected: '/**\n * When.\n * @format date-time\n * @default "2025-01-01T00:00:00Z"\n * @example "2025-11-25T10:00:00Z"\n * @deprecated\n */\n',
    },
    { name: "a value cannot close the comment", docs: { default: "*/ x" }, expected: '/** @default "*\\/ x" */\n' },
    { name: "a value cannot start a tag", docs: { examples: ["a @deprecated b"] }, expected: '/** @example "a \\@deprecated b" */\n' },
    { name: "a format cannot start a tag either", docs: { format: "x @internal" }, expected: "/** @format x \\@internal */\n" },
    { name: "a line break in a value continues the tag", docs: { examples: ["a\u2028@b"] }, expected: '/**\n * @example "a\n * \\@b"\n */\n' },
    { name: "nothing to say, no comment", docs: {}, expected: "" },
  ];
  for (const c of cases) {
    it(c.name, () => expect(jsDoc(c.docs)).toBe(c.expected));
  }
});

describe("generated types carry the tags", () => {
  it("a property's format, default and examples are on its comment", async () => {
    const { files } = await generateFromMemory({
      documents: [
        {
          uri: "http://x.test/t.json",
          json: {
            $defs: {
              Task: {
                type: "object",
                properties: { createdAt: { type: "string", format: "date-time", description: "Creation time.", examples: ["2025-11-25T10:00:00Z"] }, ttl: { type: "integer", default: 60000 } },
              },
            },
          },
        },
      ],
      roots: [{ name: "Task", uri: "http://x.test/t.json#/$defs/Task" }],
    });
    const types = files.find((f) => f.name === "types.ts")!.contents;
    expect(types).toContain('  /**\n   * Creation time.\n   * @format date-time\n   * @example "2025-11-25T10:00:00Z"\n   */\n  createdAt?: string;');
    expect(types).toContain("  /** @default 60000 */\n  ttl?: number;");
  });
});
