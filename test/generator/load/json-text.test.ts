import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allowJsonDepth, DeeperThanThisStack, findSyntaxProblem, jsonDepthLimited, nestingDepth, parseJsonText } from "../../../generator/load/json-text.js";
import { editDistance, nearest } from "../../../generator/config/suggest.js";

/**
 * JSON syntax errors are reported by line and column. `JSON.parse` is the oracle for what is
 * JSON; the scanner only says where the first mistake is, so it must agree with `JSON.parse` on
 * every text, and point at the character that makes the text invalid.
 */

describe("parseJsonText", () => {
  it("parses what JSON.parse parses, ignoring a leading byte order mark", () => {
    expect(parseJsonText('{"a": [1, true, null]}')).toEqual({ ok: true, value: { a: [1, true, null] } });
    expect(parseJsonText('\uFEFF{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it.each([
    ["a trailing comma in an object, at the comma", '{\n  "a": 1,\n}', 2, 9, /trailing comma before "}"/],
    ["a trailing comma in an array, at the comma", "[1,\n 2,\n ]", 2, 3, /trailing comma before "]"/],
    ["a missing comma, at the second property", '{\n  "a": 1\n  "b": 2\n}', 3, 3, /expected "," or "}" after a property value, found "\\""/],
    ["a single-quoted name", "{'a': 1}", 1, 2, /expected a property name in double quotes, found "'"/],
    ["a comment", '{\n  // note\n  "a": 1\n}', 2, 3, /found "\/"/],
    ["text that ends too early", '{"a": [1, 2', 1, 12, /found the end of the text/],
    ["a raw line break in a string", '{"a": "x\ny"}', 1, 9, /control character/],
    ["text after the value", '{"a": 1} {"b": 2}', 1, 10, /expected the end of the text after the JSON value/],
    ["a leading zero", "[01]", 1, 3, /expected "," or "]" after an array element, found "1"/],
    ["an empty file", "", 1, 1, /expected a JSON value, found the end of the text/],
  ])("%s", (_label, text, line, column, reason) => {
    const result = parseJsonText(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect({ line: result.line, column: result.column }).toEqual({ line, column });
    expect(result.reason).toMatch(reason);
    expect(result.reason).not.toContain("\n");
  });

  it("agrees with JSON.parse on random JSON texts and on random edits of them", () => {
    const edited = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom("", ",", "}", "]", '"', "'", ":", "0", "-", ".", "e", " ", "\n", "\\", "x", "\u0001"), fc.boolean())
      .map(([json, at, insert, remove]) => {
        const i = json.length === 0 ? 0 : at % json.length;
        return json.slice(0, i) + insert + json.slice(remove ? i + 1 : i);
      });
    fc.assert(
      fc.property(fc.oneof(fc.json(), edited), (text) => {
        let v8Position: number | undefined;
        let valid = true;
        try {
          JSON.parse(text);
        } catch (e) {
          valid = false;
          const match = /at position (\d+)/.exec((e as Error).message);
          if (match) v8Position = Number(match[1]);
        }
        const problem = findSyntaxProblem(text);
        expect(problem === undefined, `${JSON.stringify(text)}: ${problem?.reason}`).toBe(valid);
        // Where V8 names a position, the scanner points at the same character (a trailing comma
        // is reported at the comma, V8 at the bracket after it).
        if (problem && v8Position !== undefined && !/trailing comma/.test(problem.reason)) {
          expect(problem.offset, `${JSON.stringify(text)}: ${problem.reason}`).toBe(v8Position);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("did you mean", () => {
  it("counts a swap of neighbouring letters as one edit", () => {
    expect(editDistance("shcemas", "schemas")).toBe(1);
    expect(editDistance("outdir", "outDir")).toBe(1);
    expect(editDistance("remote", "remotes")).toBe(1);
    expect(editDistance("abc", "abc")).toBe(0);
    expect(editDistance("", "abc")).toBe(3);
  });

  it("counts a swap as two edits without swaps, as the diff's rename hints do (plain Levenshtein)", () => {
    expect(editDistance("shcemas", "schemas", { swaps: false })).toBe(2);
    expect(editDistance("kitten", "sitting", { swaps: false })).toBe(3);
    expect(editDistance("remote", "remotes", { swaps: false })).toBe(1);
  });

  it("suggests the nearest known word within two edits, case-insensitively, and nothing further away", () => {
    const fields = ["outDir", "sets", "emit"];
    expect(nearest("outdir", fields)).toBe("outDir");
    expect(nearest("OUT_DIR", fields)).toBe("outDir");
    expect(nearest("set", fields)).toBe("sets");
    expect(nearest("output", fields)).toBeUndefined();
    expect(nearest("schemaFiles", fields)).toBeUndefined();
  });
});

describe("parseJsonText on text nested deeper than the scanner's stack", () => {
  it("still reports one short line, never a stack overflow", () => {
    const text = `${"[".repeat(200_000)}}`;
    const result = parseJsonText(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).not.toContain("\n");
    expect(result.reason.length).toBeLessThanOrEqual(201);
    // V8's message quotes the text back; the reason does not.
    expect(result.reason).not.toContain("[[[");
  });
});

describe("the nesting limit the bin sets on its main thread (cli/main.ts)", () => {
  it("nestingDepth counts the deepest open bracket, skipping strings, valid JSON or not", () => {
    expect(nestingDepth("1")).toBe(0);
    expect(nestingDepth('{"a": [1, {"b": []}]}')).toBe(4);
    expect(nestingDepth('{"a": "[[[{{{\\"[["}')).toBe(1);
    expect(nestingDepth(`${"[".repeat(100_000)}}`)).toBe(100_000);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const depthOf = (v: unknown): number => (v !== null && typeof v === "object" ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);
        expect(nestingDepth(JSON.stringify(value, null, 1))).toBe(depthOf(value));
      }),
    );
  });

  it("past the allowed depth parseJsonText throws DeeperThanThisStack (valid or not), at it parses; unlimited again parses all", () => {
    const deep = `${"[".repeat(300)}${"]".repeat(300)}`;
    try {
      allowJsonDepth(299);
      expect(jsonDepthLimited()).toBe(true);
      expect(() => parseJsonText(deep)).toThrow(DeeperThanThisStack);
      expect(() => parseJsonText(deep.slice(0, -1))).toThrow(DeeperThanThisStack);
      allowJsonDepth(300);
      expect(parseJsonText(deep).ok).toBe(true);
    } finally {
      allowJsonDepth(Number.POSITIVE_INFINITY);
    }
    expect(jsonDepthLimited()).toBe(false);
    expect(parseJsonText(`[${deep}]`).ok).toBe(true);
  });
});
