import * as prettier from "prettier";
import { describe, expect, it } from "vitest";
import { formatAll } from "../../../generator/output/format.js";

/**
 * formatAll formats a module statement by statement and shares the formatting of statements that
 * differ only in names and plain strings (generator/output/chunks.ts). Whatever the code, the
 * result must be exactly what prettier prints for the whole module.
 */
const OPTIONS: prettier.Options = { parser: "typescript", printWidth: 120, trailingComma: "all" };

const CASES: Record<string, string> = {
  "repeated functions whose names differ in length and case": [1, 22, 333, 4444]
    .map(
      (n) =>
        `function checkRecord${n}(value: unknown, path: string, errors: string[]): void {\n` +
        `if (typeof value !== "string") report(errors, path + "/title", "type", "must be a string of at least ${n} characters, here is a long message", "s.json#/definitions/Record${n}/properties/title/type");\n` +
        `switch (value) { case "record-${n}": break; default: errors.push("one of \\"record-${n}\\" | \\"other\\""); }\n}`,
    )
    .join("\n\n"),
  // prettier reads some strings' width as written (a lone short argument) and others as printed.
  "strings written with escaped quotes, around prettier's short-argument threshold": Array.from({ length: 8 }, (_, k) => {
    const text = "x".repeat(24 + k);
    return `const resultOfTheOperationNumberWithAVeryLongDescriptiveName${k} = someModule.someRatherLongFunctionName.anotherMember(${JSON.stringify(JSON.stringify(text))});\nconst short${k} = f(${JSON.stringify(JSON.stringify(text))}, ${JSON.stringify(JSON.stringify(text + "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"))});`;
  }).join("\n"),
  "object keys prettier unquotes, or keeps quoted": [
    `const A = { "plain": 1, "other": 2 };`,
    `const B = { "needs-quotes": 1, plain: 2 };`,
    `const C = { "x": "it's", "y": 'say "hi"', z: "\\u00e9" };`,
  ].join("\n"),
  "a statement continued after a comment at column 0": [
    "export type Result = {",
    "    readonly ok: true;",
    "}",
    "/** The failure. */",
    " | {",
    "    readonly ok: false;",
    "};",
    "export declare function f(): Result;",
  ].join("\n"),
  "comments that change formatting, and non-ASCII text": [
    "// prettier-ignore",
    "const   keep = [1,2,   3];",
    "const wide = \"日本語のテキスト\" + veryLongIdentifierNameNumberOne + veryLongIdentifierNameNumberTwo + anotherOne + yetAnother;",
    "/**",
    " * A comment on",
    " *   several lines.",
    " */",
    "export function g(a: number): number { return a / 2; }",
  ].join("\n"),
  "member chains with capitalised and short names": [
    "const a = Object.keys(someObject).filter((key) => key.length > 3).map((key) => key.toUpperCase()).join(\", \");",
    "const b = z.object({ a: z.string(), b: z.number() }).strict().optional().describe(\"a long description to wrap\");",
  ].join("\n\n\n"),
};

describe("formatAll prints what prettier prints for the whole module", () => {
  for (const [name, code] of Object.entries(CASES)) {
    it(name, async () => {
      const [formatted] = await formatAll([code]);
      expect(formatted).toBe(await prettier.format(code, OPTIONS));
    });
  }

  it("many modules at once, sharing statements between them", async () => {
    const codes = Object.values(CASES);
    const formatted = await formatAll([...codes, ...codes]);
    const expected = await Promise.all(codes.map((code) => prettier.format(code, OPTIONS)));
    expect(formatted).toEqual([...expected, ...expected]);
  });
});
