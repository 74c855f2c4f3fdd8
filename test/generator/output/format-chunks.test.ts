import fc from "fast-check";
import * as prettier from "prettier";
import { describe, expect, it } from "vitest";
import { fillSkeleton, placeholderSpans, skeletonOf } from "../../../generator/output/chunks.js";
import { printedAsWritten } from "../../../generator/output/canonical.js";
import { formatAll } from "../../../generator/output/format.js";
import { partOf } from "../../../generator/output/outline.js";

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
    // Quoted keys that differ only in their names share a skeleton, and each gets its own name back.
    `const D = { fields: {"ttl":"ttl","pollInterval":"pollInterval"}, list: {"items":"tasks","nextCursor":"nextCursor"} };`,
    `const E = { fields: {"ttlMs":"ttlMs","poll":"pollIntervalMs"}, list: {"entries":"tasks","cursor":"next"} };`,
    `const F = { "type": 1, "__proto__": 2, "$ref": 3, "_x": 4, "a1": { "elicitation/create": { "params": true } } };`,
    `class G { "kept" = 1; "alsoKept": string = "x"; }`,
    `function h() {\n  if (ready) {\n    return { "status": "input_required", "field": "inputRequests", "wideEnoughToBreakTheLineAtTheWidthOfTheModule": veryLongIdentifierName };\n  }\n}`,
  ].join("\n"),
  // Class and interface bodies are taken apart into members, each formatted inside a wrapper
  // declaration (generator/output/outline.ts); interface members may stand at column 0.
  "classes and interfaces, taken apart member by member": [
    "export class Store extends Base implements Api {",
    "  readonly #records = new Map<string, TaskRecord>();",
    "  override readonly name = \"Store\";",
    "  static #count = 0;",
    "",
    "",
    "  constructor(readonly options: StoreOptions, /** Why. */ private readonly clock: () => number = Date.now) {",
    "    super(options.name, options.someRatherLongOptionName, options.anotherRatherLongOptionName, options.last);",
    "  }",
    "  get size(): number { return this.#records.size; }",
    "  async #expire(taskId: string, now: number): Promise<void> {",
    "    if (this.#records.get(taskId)?.expiresAt !== undefined && this.#records.get(taskId)!.expiresAt! <= now) this.#records.delete(taskId);",
    "    for (const [key, record] of this.#records) {",
    "      if (record.taskId === taskId) { this.#records.delete(key); }",
    "    }",
    "  }",
    "  shape(): {",
    "    a: string;",
    "  };",
    "  shape(): { a: string } | undefined { return undefined; }",
    "}",
    "/** A type. */",
    "export interface Shape extends Base<string> {",
    "/** The id. */",
    "id: string;",
    "nested?: {",
    "inner: number;",
    "};",
    "method(value: SomeRatherLongTypeName, other: AnotherRatherLongTypeName, third: YetAnotherLongTypeName): Promise<void>;",
    "[key: string]: unknown;",
    "}",
    "export abstract class Shape2 {",
    "  abstract area(): number;",
    "  protected describe(): string {",
    "    return \"a shape of area \" + this.area();",
    "  }",
    "}",
    "function make() {",
    "  class Local {",
    "    value = 1;",
    "    get(): number {",
    "      return this.value;",
    "    }",
    "  }",
    "  return new Local();",
    "}",
  ].join("\n"),
  "members under a comment alone on its line, wider than the width": [
    "export interface Wide {",
    `/** ${"a doc comment wider than the line, which prettier leaves as it is ".repeat(3)}*/`,
    "readonly field?: string;",
    `// ${"a line comment wider than the line ".repeat(5)}`,
    "[key: string]: unknown;",
    `/** ${"x".repeat(130)} */`,
    "method(value: SomeRatherLongTypeName, other: AnotherRatherLongTypeName, third: YetAnotherLongTypeName): Promise<boolean | undefined>;",
    "}",
    "export class WideClass {",
    `  /** ${"a member's doc comment that does not fit the line either ".repeat(3)}*/`,
    "  value = 1;",
    `  // ${"y".repeat(140)}`,
    "  get(): number {",
    `    /** ${"z".repeat(130)} */`,
    "    return this.value;",
    "  }",
    "}",
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

/**
 * Code shaped like generated validators, at the edge of the width: statements in nested blocks
 * (taken apart into outlines, see generator/output/outline.ts), `if` clauses and calls that must
 * break, and lines just under and over 120 columns at every depth.
 */
const name = (n: number, capital = false) => (capital ? "V" : "v") + "alue".repeat(Math.ceil(n / 4)).slice(0, Math.max(0, n - 1));
const OUTLINE_CASES: Record<string, string> = {
  "if clauses, else chains and calls around the width, in nested blocks": [4, 6].map((depth) => {
    const pad = (d: number) => "  ".repeat(d);
    const lines: string[] = [`export function check${depth}(value: unknown, path: string, errors: unknown[]): void {`];
    for (let d = 1; d < depth; d++) lines.push(`${pad(d)}if (${name(d * 3)} !== undefined) {`);
    for (const n of [10, 40, 58, 62, 66, 70, 90]) {
      lines.push(
        `${pad(depth)}if (${name(n)} === undefined) $runtime.missing(errors, path, "${"k".repeat(n % 17)}", at + "/required");`,
        `${pad(depth)}else if (!(typeof ${name(n)} === "string" || ${name(n)} === null)) $runtime.unexpected(errors, path + "/${"p".repeat(n % 23)}", "type", "a string", ${name(n)}, at + "/properties/p/type");`,
        `${pad(depth)}else $runtime.report(errors, path, "${"m".repeat(n)}", ${name(n, true)});`,
        `${pad(depth)}if (!(${name(n)} >= ${n})) return false;`,
      );
    }
    for (let d = depth - 1; d >= 1; d--) lines.push(`${pad(d)}} else {`, `${pad(d + 1)}return ${name(d * 40)}(value, "${"x".repeat(d * 30)}");`, `${pad(d)}}`);
    lines.push("}");
    return lines.join("\n");
  }).join("\n\n"),
  "blocks with blank lines, comments and statements prettier keeps whole": [
    "function f(value: unknown): boolean {",
    "",
    "  const a = value;",
    "",
    "",
    "  // a comment before a statement",
    "  for (const key in a) {",
    "    if (!(key === \"a\" || key === \"b\")) return false;",
    "    // a comment at the end of a block",
    "  }",
    "  switch (a) { case \"x\": return true; default: break; }",
    "  const o = { a: 1, b: [1, 2, 3], c: { d: \"e\" } };",
    "  if (o) {",
    "    return `a ${o.a} template` === \"x\";",
    "  }",
    "  return isSomethingWithAVeryLongNameThatGoesOnAndOn(value) && isSomethingElseWithAVeryLongNameThatGoesOnAndOnToo(value);",
    "}",
  ].join("\n"),
};

// Imports and exports of names, at and past the width (a single name never breaks).
OUTLINE_CASES["imports and exports of many names"] = [1, 2, 5, 9, 14]
  .flatMap((n) => {
    const names = Array.from({ length: n }, (_, k) => name(6 + ((k * 7) % 23), true));
    return [
      `import type { ${names.join(", ")} } from "./types.js";`,
      `import { ${names.map((x, k) => (k % 3 ? x : `${x} as Local${x}`)).join(", ")} } from "./runtime.js";`,
      `export { ${names.join(", ")} };`,
      `export type { ${names.map((x) => `${x}Alias`).join(", ")} } from "./types.js";`,
    ];
  })
  .join("\n");

// Comments past the width on lines of their own, beside code that fits or breaks.
OUTLINE_CASES["comments past the width on lines of their own"] = [
  "export interface Options {",
  `  /** ${"A long description of the option. ".repeat(5)}*/`,
  "  readonly name?: string;",
  `  // ${"a line comment ".repeat(10)}`,
  `  readonly handler?: (${name(60)}: string, ${name(50)}: number) => Promise<void>;`,
  "}",
  "function f(value: unknown): boolean {",
  `  /* ${"a block comment ".repeat(9)}*/`,
  `  if (${name(70)} === "x") return ${name(60)}(value, "${"y".repeat(30)}");`,
  `  return false; // ${"a trailing comment ".repeat(6)}`,
  "}",
].join("\n");

// Doc comments over several lines, indented as written or not, in blocks and interfaces; and
// block comments prettier keeps as written (not every line starts with `*`).
OUTLINE_CASES["comments over several lines"] = [
  "/**",
  " * A module comment.",
  " *",
  ` * ${"With a long line. ".repeat(8)}`,
  " */",
  "export interface Options {",
  "  /**",
  "   * The name.",
  "       * Badly indented.",
  "   */",
  "  readonly name?: string;",
  "    /** One line, indented oddly. */",
  "  /**",
  "   * Trailing spaces.   ",
  "   */",
  "  readonly other?: number;",
  "  readonly kind: \"a\" | \"b\";",
  "}",
  "function f(value: unknown): boolean {",
  "  if (value) {",
  "    /**",
  `     * ${"Inside a block. ".repeat(3)}`,
  "     */",
  "    return true;",
  "  }",
  "  return false;",
  "}",
].join("\n");

OUTLINE_CASES["doc comments re-indented, in an interface and in nested blocks"] = [
  "export interface Options {",
  "  /**",
  "   * The name.",
  "      * Badly indented.",
  "   */",
  "  readonly name?: string;",
  "}",
  "function f(value: unknown): boolean {",
  "  if (value) {",
  "    for (const key in value) {",
  "        /**",
  "         * Inside blocks.",
  "       */",
  "      return true;",
  "    }",
  "  }",
  "  return false;",
  "}",
].join("\n");

// `if (!(a || b))` heads past the width: operands one a line (generator/output/outline.ts,
// negatedChainHead), and where an operand would break further, the outline formatted whole.
OUTLINE_CASES["negated chains in if heads past the width"] = [
  "function f(value: unknown, key8: string): boolean {",
  "  for (const key in value) {",
  `    if (!(${["taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"].map((k) => `key8 === "${k}"`).join(" || ")})) return false;`,
  `    else if (!(typeof value === "string" || (typeof value === "number" && Number.isInteger(value) && value >= -9007199254740991 && value <= 9007199254740991))) return false;`,
  `    if (!(typeof value === "string" && (typeof value === "number" && Number.isInteger(value) && value >= -9007199254740991 && value <= 9007199254740991 && value !== 12345678))) $runtime.report(errors, path + "/id", "minimum", "must be >= 0", at + "/properties/id/minimum");`,
  "  }",
  "  return true;",
  "}",
].join("\n");

// Text that must not move left when a block is taken apart: a template literal over lines, a
// block comment prettier keeps as written.
OUTLINE_CASES["template literals and kept comments inside blocks"] = [
  "function f(value: unknown): boolean {",
  "  if (value) {",
  "    return true;",
  "  }",
  "  /* A comment",
  "     kept as written */",
  "  return false;",
  "}",
  "function g(): string {",
  "  if (1) {",
  "    const t = `a template",
  "      over lines ${1 + 2}`;",
  "    return t;",
  "  }",
  "  return `one line ${`nested`}`;",
  "}",
].join("\n");

describe("formatAll takes statements apart and prints what prettier prints", () => {
  for (const [title, code] of Object.entries(OUTLINE_CASES)) {
    it(title, async () => {
      const [formatted] = await formatAll([code]);
      expect(formatted).toBe(await prettier.format(code, OPTIONS));
    });
  }

  it("on random validator-like code (names and strings of every length, nested blocks)", async () => {
    const word = fc.integer({ min: 1, max: 48 }).map((n) => name(n));
    const text = fc.integer({ min: 0, max: 60 }).map((n) => `"${"s".repeat(n)}"`);
    const operand = fc.oneof(word, text, fc.integer({ min: 0, max: 99999 }).map(String));
    const comparison = fc.tuple(word, fc.constantFrom("===", "!==", ">=", "<"), operand).map(([a, cmp, b]) => `${a} ${cmp} ${b}`);
    // Some operands a chain of their own, in parentheses (`typeof v === "number" && v >= 0`).
    const part = fc.oneof({ weight: 4, arbitrary: comparison }, { weight: 1, arbitrary: fc.array(comparison, { minLength: 2, maxLength: 3 }).map((cs) => `(${cs.join(" && ")})`) });
    const test = fc
      .array(part, { minLength: 1, maxLength: 5 })
      .chain((parts) =>
        fc.tuple(fc.constantFrom(" || ", " && "), fc.boolean()).map(([op, negate]) => {
          const joined = parts.join(op);
          return negate ? `!(${joined})` : joined;
        }),
      );
    const argument = fc.oneof(word, text, fc.tuple(word, text).map(([a, b]) => `${a} + ${b}`), fc.tuple(word, word, text).map(([f, a, b]) => `${f}(${a}, ${b})`));
    const call = fc
      .tuple(fc.constantFrom("", "return "), word, fc.array(argument, { minLength: 1, maxLength: 6 }))
      .map(([prefix, callee, args]) => `${prefix}$runtime.${callee}(${args.join(", ")});`);
    const simple = fc.oneof(call, test.map((t) => `return ${t};`), fc.constant("return false;"));
    const statement = (depth: number): fc.Arbitrary<string[]> =>
      fc.oneof(
        simple.map((s) => [s]),
        fc.tuple(test, simple, fc.option(fc.tuple(test, simple)), fc.option(simple)).map(([t, s, elseIf, otherwise]) => [
          `if (${t}) ${s}`,
          ...(elseIf ? [`else if (${elseIf[0]}) ${elseIf[1]}`] : []),
          ...(otherwise ? [`else ${otherwise}`] : []),
        ]),
        ...(depth > 0
          ? [
              fc.tuple(test, fc.array(statement(depth - 1), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([t, body, withElse]) => [
                `if (${t}) {`,
                ...body.flat().map((l) => `  ${l}`),
                ...(withElse ? ["} else {", "  return true;"] : []),
                "}",
              ]),
            ]
          : []),
      );
    // Headers past the width too: long names, one to three parameters, a return type that is long or not.
    const header = fc
      .tuple(fc.integer({ min: 1, max: 110 }), fc.integer({ min: 1, max: 3 }), fc.constantFrom("boolean", "value is Value", "$runtime.ValidationResult<ValueOfAVeryLongDefinitionName>"), fc.boolean())
      .map(([n, params, result, exported]) => {
        const list = ["value: unknown", "path: string", "errors: $runtime.ValidationError[]"].slice(0, params).join(", ");
        return `${exported ? "export " : ""}function check${name(n, true)}(${list}): ${result} {`;
      });
    const fn = fc.tuple(header, fc.array(statement(4), { minLength: 1, maxLength: 4 })).map(([head, body]) =>
      [head, ...body.flat().map((l) => `  ${l}`), "}"].join("\n"),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fn, { minLength: 1, maxLength: 3 }), async (fns) => {
        const code = fns.join("\n\n");
        const [formatted] = await formatAll([code]);
        expect(formatted).toBe(await prettier.format(code, OPTIONS));
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});

describe("formatAll breaks long declarations as prettier does (generator/output/outline.ts, declaration)", () => {
  it("string constants, unions of names and constants set to calls, of every length, at any depth", async () => {
    const word = fc.integer({ min: 1, max: 70 }).map((n) => name(n));
    const text = fc.integer({ min: 0, max: 130 }).map((n) => `"${"s".repeat(n)}"`);
    const argument = fc.oneof(word, text, fc.tuple(word, word).map(([a, b]) => `$${a}.${b}`), fc.tuple(word, text).map(([a, b]) => `${a} + ${b}`));
    const declaration = fc.oneof(
      fc.tuple(fc.constantFrom("", "export "), word, text).map(([e, n, t]) => `${e}const ${n} = ${t};`),
      fc.tuple(fc.constantFrom("", "export "), word, fc.array(word, { minLength: 2, maxLength: 6 })).map(([e, n, ms]) => `${e}type ${n} = ${ms.join(" | ")};`),
      fc.tuple(fc.constantFrom("", "export "), word, word, fc.array(argument, { minLength: 1, maxLength: 4 })).map(
        ([e, n, f, args]) => `${e}const ${n} = $${f}(${args.join(", ")});`,
      ),
    );
    const nested = fc.tuple(declaration, fc.integer({ min: 0, max: 3 })).map(([d, depth]) =>
      [...Array.from({ length: depth }, (_, k) => `${"  ".repeat(k)}if (v${k}) {`), `${"  ".repeat(depth)}${d}`, ...Array.from({ length: depth }, (_, k) => `${"  ".repeat(depth - 1 - k)}}`)].join("\n"),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(nested, { minLength: 1, maxLength: 4 }), async (statements) => {
        const code = statements.join("\n");
        const [formatted] = await formatAll([code]);
        expect(formatted).toBe(await prettier.format(code, OPTIONS));
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});

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

describe("a skeleton stands for quoted property keys prettier unquotes", () => {
  // Otherwise the statement does not get its tokens back, and its module is formatted whole
  // (correct, but the slow path: the client's PROFILE object took it on every generation).
  const viaSkeleton = async (code: string) => {
    const skeleton = skeletonOf(code);
    const formatted = await prettier.format(skeleton.text, OPTIONS);
    return fillSkeleton(formatted, placeholderSpans(formatted), skeleton);
  };

  it("in object literals, each key getting its own name back", async () => {
    const code = `const PROFILE = { fields: {"ttl":"ttlMs","pollInterval":"pollIntervalMs"}, "$ref": 1, "type": 2 };`;
    expect(await viaSkeleton(code)).toBe(await prettier.format(code, OPTIONS));
    expect(skeletonOf(code).text).toBe(skeletonOf(code.replace("pollInterval", "waitDuration")).text);
  });

  it("and not where prettier keeps the quotes (a class property): the statement is formatted itself", async () => {
    expect(await viaSkeleton(`class G { "typedKey": string = "x"; }`)).toBeUndefined();
  });
});

describe("partOf takes class and interface bodies apart", () => {
  it("into members, each with its declaration's wrapper; a method's body into statements", () => {
    const part = partOf(["class A extends B {", "  #x = 1;", "  m(): void {", "    this.#x++;", "  }", "}"].join("\n"));
    expect(part.blocks).toHaveLength(1);
    const members = part.blocks[0]!.parts;
    expect(members.map((m) => [m.code, m.wrapper])).toEqual([
      ["#x = 1;", "class X extends Y {"],
      ["m(): void {\n  this.#x++;\n}", "class X extends Y {"],
    ]);
    expect(members[1]!.blocks[0]!.parts.map((p) => [p.code, p.wrapper])).toEqual([["this.#x++;", undefined]]);
  });

  it("an interface's members standing at column 0, and no method bodies in it", () => {
    const part = partOf(["export interface I {", "a: string;", "m(): {", "b: number;", "};", "}"].join("\n"));
    expect(part.blocks[0]!.parts.map((m) => [m.code, m.wrapper, m.blocks.length])).toEqual([
      ["a: string;", "interface X {", 0],
      ["m(): {\nb: number;\n};", "interface X {", 0],
    ]);
  });
});

describe("printedAsWritten recognises outlines prettier prints as they are", () => {
  const NO_LIMIT = { ...OPTIONS, printWidth: Number.MAX_SAFE_INTEGER };
  const name = fc.constantFrom("xxx", "Xxx", "$xx", "_xx", "x", "X", "xx");
  const simple = fc.tuple(fc.oneof(name, fc.constant('"#"'), fc.constantFrom("string", "undefined", "xxx.Xxx")), fc.constantFrom("", "[]"));
  const simpleUnion = fc.array(simple, { minLength: 1, maxLength: 3 }).map((items) => items.map(([a, s]) => a + s).join(" | "));
  const atom = fc
    .tuple(
      fc.oneof(
        name,
        fc.constant('"#"'),
        fc.constantFrom("string", "number", "unknown", "null", "{ [xxx: string]: unknown }", "{ readonly xxx?: string }", "{ xxx: Xxx[] }"),
        fc.tuple(name, fc.array(simpleUnion, { minLength: 1, maxLength: 3 })).map(([n, args]) => `${n}<${args.join(", ")}>`),
      ),
      fc.constantFrom("", "[]", "[][]"),
    )
    .map(([a, suffix]) => a + suffix);
  const combined = fc.tuple(fc.array(atom, { minLength: 1, maxLength: 4 }), fc.constantFrom(" | ", " & ")).map(([atoms, op]) => atoms.join(op));
  const params = fc
    .array(fc.tuple(name, fc.constantFrom("", "?"), combined), { maxLength: 3 })
    .map((ps) => ps.map(([n, q, t]) => `${n}${q}: ${t}`).join(", "));
  const type = fc.oneof(combined, fc.tuple(params, combined).map(([p, t]) => `(${p}) => ${t}`));
  const specifiers = fc.array(fc.tuple(fc.constantFrom("", "type "), name, fc.option(name)), { minLength: 1, maxLength: 4 }).map(
    (items) => `{ ${items.map(([t, n, alias]) => `${t}${n}${alias ? ` as ${alias}` : ""}`).join(", ")} }`,
  );
  const comment = fc.constantFrom("/** x */", "// x", "/* x */");
  const statement = fc.oneof(
    comment,
    fc.tuple(fc.constantFrom("import ", "import type "), specifiers).map(([k, s]) => `${k}${s} from "#";`),
    // Listed one a line, as the emitter writes long lists: prettier joins them with no width limit.
    fc.tuple(fc.constantFrom("import ", "export ", "export type "), fc.array(name, { minLength: 1, maxLength: 4 }), fc.boolean()).map(
      ([k, names, from]) => [`${k}{`, ...names.map((n) => `  ${n},`), `}${from || k === "import " ? ' from "#"' : ""};`].join("\n"),
    ),
    name.map((n) => `import * as ${n} from "#";`),
    fc.tuple(fc.constantFrom("export ", "export type "), specifiers, fc.boolean()).map(([k, s, from]) => `${k}${s}${from ? ' from "#"' : ""};`),
    fc.tuple(fc.constantFrom("", "export "), name, type).map(([e, n, t]) => `${e}type ${n} = ${t};`),
  );
  const member = fc.oneof(
    comment,
    fc.tuple(fc.constantFrom("", "readonly "), name, fc.constantFrom("", "?"), type).map(([r, n, q, t]) => `${r}${n}${q}: ${t};`),
    type.map((t) => `[xxx: string]: ${t};`),
    fc.tuple(name, fc.constantFrom("", "?"), params, type).map(([n, q, p, t]) => `${n}${q}(${p}): ${t};`),
  );

  it("statements: what prettier prints with no width limit", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(statement, fc.boolean()), { minLength: 1, maxLength: 4 }), async (statements) => {
        // Some with a blank line before them, which prettier keeps.
        const text = statements.map(([line, blank], k) => (blank && k > 0 ? `\n${line}` : line)).join("\n");
        const printed = printedAsWritten(text);
        // Intersections of unions are not made here, so every generated line is recognised.
        expect(printed).toBe(await prettier.format(text, NO_LIMIT));
      }),
      { numRuns: 150 },
    );
  });

  it("an interface's members (in their wrapper): printed one level deeper", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(member, { minLength: 1, maxLength: 4 }), async (lines) => {
        const text = ["interface X {", ...lines, "}"].join("\n");
        expect(printedAsWritten(text)).toBe(await prettier.format(text, NO_LIMIT));
      }),
      { numRuns: 150 },
    );
  });

  it("nothing written otherwise", () => {
    for (const text of [
      "import {xxx} from \"#\";",
      "export type Xxx = (Xxx | Xxx)[];",
      "type Xxx = Xxx | Xxx & Xxx;",
      "import { xxx } from '#';",
      "interface X {\n}",
      "interface X {\nxxx(): Xxx | () => Xxx;\n}",
      "// x\n\n\n// x",
      "import {\n  xxx\n} from \"#\";",
      "interface X {\nxxx: { a: Xxx; b: Xxx };\n}",
      "if (xxx) return xxx;",
    ]) {
      expect(printedAsWritten(text), text).toBeUndefined();
    }
  });
});
