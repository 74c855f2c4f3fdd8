/**
 * Private validator helpers (generator/emit/validators/): one helper per distinct body, named by
 * what it checks; `return cond;` instead of a negated `if`; no type test repeated where the value
 * is already known to be an object. The output is type-checked under the strict flag set.
 */
import { describe, expect, it } from "vitest";
import { generateFromMemory } from "../../../generator/index.js";
import {
  and,
  call,
  compare,
  conditional,
  constant,
  failIf,
  forIn,
  id,
  literal,
  member,
  not,
  or,
  RETURN_TRUE,
  returningTheLastTest,
  str,
  type Expr,
  type Stmt,
} from "../../../generator/emit/validators/codegen/nodes.js";
import { printStatements } from "../../../generator/emit/validators/codegen/print.js";
import { loadGeneratedModules } from "../../support/generated-modules.js";
import { strictDiagnostics } from "../../support/typescript.js";

const URI = "http://x.test/h.json";

async function generated(defs: Record<string, unknown>): Promise<{ validators: string; diagnostics: string[] }> {
  const { files } = await generateFromMemory({
    documents: [{ uri: URI, json: { $defs: defs } }],
    roots: Object.keys(defs).map((name) => ({ name, uri: `${URI}#/$defs/${name}` })),
  });
  const diagnostics = strictDiagnostics(files);
  return { validators: files.find((f) => f.name === "validators.ts")!.contents, diagnostics };
}

const helpersOf = (code: string): string[] => [...code.matchAll(/^function (\$is\w+)\(/gm)].map((m) => m[1]!);

/** Ten objects, each with a nullable string among other properties, in union places that need an opaque test. */
function tenNullableStrings(): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < 10; i++) {
    defs[`Thing${"ABCDEFGHIJ"[i]}`] = {
      type: "object",
      properties: { [`name${i}`]: { anyOf: [{ type: "string" }, { type: "null" }] }, count: { type: "integer" } },
      required: [`name${i}`],
    };
  }
  return defs;
}

describe("helpers shared by body, named by what they check", () => {
  it("ten nullable strings in ten definitions: at most one helper per distinct check, none named after a place", async () => {
    const { validators, diagnostics } = await generated(tenNullableStrings());
    expect(diagnostics).toEqual([]);
    const helpers = helpersOf(validators);
    // Every helper body appears once.
    const bodies = [...validators.matchAll(/^function \$is\w+(\([^]*?\n\})/gm)].map((m) => m[1]);
    expect(new Set(bodies).size).toBe(bodies.length);
    expect(helpers.length).toBeLessThanOrEqual(3);
    expect(helpers.filter((h) => /Part\d+$/.test(h) || /Thing/.test(h))).toEqual([]);
  });

  const named: { name: string; schema: unknown; helper: string }[] = [
    { name: "a nullable string", schema: { oneOf: [{ type: "string" }, { type: "null" }] }, helper: "$isString" },
    { name: "an array of strings", schema: { oneOf: [{ type: "array", items: { type: "string" } }, { type: "null" }] }, helper: "$isStringArray" },
    { name: "an object by its properties", schema: { oneOf: [{ type: "object", properties: { taskId: { type: "string" } }, required: ["taskId"] }, { type: "null" }] }, helper: "$isTaskIdObject" },
    { name: "a string with a format (validators do not check it, so the name does not say it)", schema: { oneOf: [{ type: "string", format: "uri" }, { type: "null" }] }, helper: "$isString" },
    { name: "a non-negative integer", schema: { oneOf: [{ type: "integer", minimum: 0 }, { type: "string" }] }, helper: "$isNonNegativeInteger" },
  ];
  for (const c of named) {
    it(`${c.name} → ${c.helper}`, async () => {
      const { validators, diagnostics } = await generated({ Holder: { type: "object", properties: { a: c.schema, b: c.schema } } });
      expect(diagnostics).toEqual([]);
      expect(helpersOf(validators)).toContain(c.helper);
      // Used twice (two properties), declared once.
      expect(helpersOf(validators).filter((h) => h === c.helper)).toHaveLength(1);
    });
  }

  it("a helper name that is taken by another body is qualified by its owner, not numbered", async () => {
    const { validators, diagnostics } = await generated({
      One: { type: "object", properties: { a: { oneOf: [{ type: "string", pattern: "^a" }, { type: "null" }] } } },
      Two: { type: "object", properties: { b: { oneOf: [{ type: "string", pattern: "^b" }, { type: "null" }] } } },
    });
    expect(diagnostics).toEqual([]);
    expect(helpersOf(validators)).toEqual(expect.arrayContaining(["$isPatternedString", "$isPatternedStringInTwo"]));
  });
});

describe("functions end in the test itself", () => {
  // Built as nodes (codegen/nodes.ts), printed (codegen/print.ts): `if (failed) return false; return true;` → `return passes;`.
  const [a, b, c, t, x, y, z, v, k] = ["a", "b", "c", "t", "x", "y", "z", "v", "k"].map((n) => id(n)) as [Expr, Expr, Expr, Expr, Expr, Expr, Expr, Expr, Expr];
  const value = id("value");
  const undef = literal("undefined");
  /** `!(e)` as written, not simplified (`not` would turn `!(a === b)` into `a !== b` when built). */
  const bang = (e: Expr): Expr => ({ kind: "not", operand: e });
  const cases: { name: string; body: Stmt[]; expected: string[] }[] = [
    { name: 'if (typeof value !== "string") return false;', body: failIf(compare({ kind: "typeof", operand: value }, "!==", str("string"))), expected: ['return typeof value === "string";'] },
    { name: "if (!(a && b)) return false;", body: failIf(bang(and(a, b))), expected: ["return a && b;"] },
    { name: "if (!isX(value)) return false;", body: failIf(not(call("isX", value))), expected: ["return isX(value);"] },
    {
      name: "const v = value.a; if (v !== undefined && !isY(v)) return false;",
      body: [constant("v", member(value, "a")), ...failIf(and(compare(v, "!==", undef), not(call("isY", v))))],
      expected: ["const v = value.a;", "return v === undefined || isY(v);"],
    },
    {
      name: 'if (v !== undefined && !(typeof v === "number" && v > 0)) return false;',
      body: failIf(and(compare(v, "!==", undef), bang(and(compare({ kind: "typeof", operand: v }, "===", str("number")), compare(v, ">", literal("0")))))),
      expected: ['return v === undefined || (typeof v === "number" && v > 0);'],
    },
    { name: "if (v === undefined || !isY(v)) return false;", body: failIf(or(compare(v, "===", undef), not(call("isY", v)))), expected: ["return v !== undefined && isY(v);"] },
    {
      name: 'if (!(a === "(") || !(b === ")")) return false;',
      body: failIf(or(bang(compare(a, "===", str("("))), bang(compare(b, "===", str(")"))))),
      expected: ['return a === "(" && b === ")";'],
    },
    // `&&` inside `||` is printed in parentheses, as prettier writes it.
    { name: "if (a && b || c) return false;", body: failIf(or(and(a, b), c)), expected: ["return !((a && b) || c);"] },
    {
      name: "if (Object.keys(value).length !== 0) return false;",
      body: failIf(compare(member(call(member(id("Object"), "keys"), value), "length"), "!==", literal("0"))),
      expected: ["return Object.keys(value).length === 0;"],
    },
    { name: "if (f(a) !== g(b)) return false;", body: failIf(compare(call("f", a), "!==", call("g", b))), expected: ["return f(a) === g(b);"] },
    { name: "if (t ? !x && y : z) return false;", body: failIf(conditional(t, and(not(x), y), z)), expected: ["return !(t ? !x && y : z);"] },
    {
      name: "for (const k in value) { if (!f(k)) return false; }",
      body: [forIn("k", value, failIf(not(call("f", k))))],
      expected: ["for (const k in value) {", "  if (!f(k)) return false;", "}", "return true;"],
    },
  ];
  for (const c of cases) {
    it(`${c.name} return true;`, () => expect(printStatements(returningTheLastTest([...c.body, RETURN_TRUE]))).toEqual(c.expected));
  }

  it("no generated function ends in `if (…) return false; return true;`", async () => {
    const { validators } = await generated(tenNullableStrings());
    expect(validators).not.toMatch(/\n {2}if \([^\n]*\) return false;\n {2}return true;\n\}/);
    expect(validators).not.toMatch(/\n {2}if \(!\([^]*?\)\)\n {4}return false;\n {2}return true;\n\}/);
  });
});

describe("each entry calls its own test", () => {
  // A runtime helper taking the test as a parameter (`guarded(value, $testX)`) would call every
  // definition's test from one call site, which V8 stops inlining into once a few definitions ran.
  it("isX catches around its own call of $testX; validateX goes through isX", async () => {
    const { validators, diagnostics } = await generated({ Item: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } });
    expect(diagnostics).toEqual([]);
    const is = /export function isItem\([^]*?\n\}/.exec(validators)![0];
    expect(is).toMatch(/try \{\n\s*return \$testItem\(value\);\n\s*\} catch \{\n\s*return false;/);
    const validate = /export function validateItem\([^]*?\n\}/.exec(validators)![0];
    expect(validate).toMatch(/if \(isItem\(value\)\) return \{ ok: true, value \};/);
    expect(validate).toMatch(/\$rt\.invalid\(value, \$checkItem, options\)/);
    expect(validators).not.toMatch(/guarded|validateWith/);
  });
});

describe("no redundant checks", () => {
  it("an allOf of small objects is tested as one object, a referenced part's properties inline", async () => {
    const { validators, diagnostics } = await generated({
      Base: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      Both: { allOf: [{ $ref: "#/$defs/Base" }, { type: "object", properties: { kind: { const: "both" } }, required: ["kind"] }] },
      Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } },
      Linked: { allOf: [{ $ref: "#/$defs/Node" }, { type: "object", properties: { n: { type: "integer" } } }] },
    });
    expect(diagnostics).toEqual([]);
    const both = /function \$testBoth\([^]*?\n\}/.exec(validators)![0];
    expect(both.match(/typeof value === "object"/g)).toHaveLength(1);
    expect(both).not.toMatch(/\$testBase\(/);
    expect(both).toMatch(/value\.id/);
    // A recursive definition stays a call (its test cannot be written out inline).
    expect(/function \$testLinked\([^]*?\n\}/.exec(validators)![0]).toMatch(/\$testNode\(value\)/);
  });
  it("an allOf of objects tests once that the value is an object", async () => {
    const { validators, diagnostics } = await generated({
      Base: { type: "object", properties: { id: { type: "string" } } },
      Both: { allOf: [{ type: "object", properties: { _meta: { type: "object" } } }, { $ref: "#/$defs/Base" }] },
    });
    expect(diagnostics).toEqual([]);
    const check = /function \$checkBoth\([^]*?\n\}/.exec(validators)![0];
    expect(check.match(/isJsonObject\(value\b/g)).toHaveLength(1);
  });
});

describe("an object already found is not asked again (`known`)", () => {
  // A params object as the Tasks extension writes them: `allOf` of its base and a union of statuses,
  // each status an object of its own; and a result that adds an inline object part.
  const statusDefs = {
    Meta: { type: "object", properties: { _meta: { type: "object" } } },
    Working: { type: "object", properties: { status: { const: "working" }, id: { type: "string" } }, required: ["status", "id"] },
    Done: { type: "object", properties: { status: { const: "done" }, id: { type: "string" } }, required: ["status", "id"] },
    Status: { oneOf: [{ $ref: "#/$defs/Working" }, { $ref: "#/$defs/Done" }] },
    Params: { allOf: [{ $ref: "#/$defs/Meta" }, { $ref: "#/$defs/Status" }] },
    Result: { allOf: [{ $ref: "#/$defs/Meta" }, { $ref: "#/$defs/Status" }, { type: "object", properties: { kind: { const: "result" } }, required: ["kind"] }] },
    // The first part lets non-objects through: what follows must still ask.
    Loose: { allOf: [{ anyOf: [{ type: "string" }, { $ref: "#/$defs/Meta" }] }, { $ref: "#/$defs/Working" }] },
  };
  const fn = (code: string, name: string) => new RegExp(`function \\${name}\\([^]*?\\n\\}`).exec(code)![0];

  it("a union's members and an allOf's later parts are called with known; their own test skips the object test then", async () => {
    const { validators, diagnostics } = await generated(statusDefs);
    expect(diagnostics).toEqual([]);
    expect(fn(validators, "$testStatus")).toMatch(/\$testWorking\(value, true\)/);
    expect(fn(validators, "$testStatus")).toMatch(/\$testDone\(value, true\)/);
    expect(fn(validators, "$testWorking")).toMatch(/^function \$testWorking\(input: unknown, known\?: boolean\): input is Working \{\n  const value = input as \$rt\.JsonObject;\n  if \(\s*!known &&\s*!\(typeof value === "object"/);
    const params = fn(validators, "$testParams");
    // The first part finds the object; the part after it says so.
    expect(params).toMatch(/\$testMeta\(value\)\)/);
    expect(params).toMatch(/\$testStatus\(value, true\)/);
    // An inline object part, a helper, takes known as well.
    const result = fn(validators, "$testResult");
    const inline = /(\$is\w+)\(value, true\)/.exec(result.replace(/\$testStatus\(value, true\)/, ""));
    expect(inline).not.toBeNull();
    expect(fn(validators, inline![1]!)).toMatch(/known\?: boolean/);
    // After a part that strings pass too, the next part asks itself.
    expect(fn(validators, "$testLoose")).toMatch(/\$testWorking\(value\)/);
    // The exported entries never pass it: from outside, every test asks.
    for (const entry of validators.match(/return \$test\w+\([^)]*\);\n  \} catch/g) ?? []) expect(entry).not.toMatch(/, true/);
  });

  it("with known skipped inside, the entries still refuse what is no JSON object, at every depth", async () => {
    const { files, diagnostics } = await (async () => {
      const out = await generateFromMemory({
        documents: [{ uri: URI, json: { $defs: statusDefs } }],
        roots: Object.keys(statusDefs).map((name) => ({ name, uri: `${URI}#/$defs/${name}` })),
      });
      return { files: out.files, diagnostics: strictDiagnostics(out.files) };
    })();
    expect(diagnostics).toEqual([]);
    const modules = loadGeneratedModules(files, "known-object");
    try {
      const v = await modules.import<Record<string, (value: unknown) => boolean>>("validators.ts");
      const working = { status: "working", id: "t1" };
      expect(v.isParams!(working)).toBe(true);
      expect(v.isResult!({ ...working, kind: "result" })).toBe(true);
      expect(v.isLoose!(working)).toBe(true);
      class Holder {
        status = "working";
        id = "t1";
        kind = "result";
      }
      const notJson: unknown[] = [null, "working", 1, [], [working], new Map(Object.entries(working)), new Holder(), Object.assign(Object.create(Holder.prototype) as object, working)];
      for (const name of ["isStatus", "isWorking", "isParams", "isResult", "isLoose"]) {
        for (const value of notJson) expect(v[name]!(value), `${name}(${String(value)})`).toBe(false);
      }
      // A null-prototype object is a JSON object (as JSON.parse makes none, but another realm or a parser may).
      expect(v.isParams!(Object.assign(Object.create(null), working))).toBe(true);
    } finally {
      modules.remove();
    }
  });

  it("a later part whose test does not open with the object test is called as before; a member on a reference cycle takes known", async () => {
    const { validators, diagnostics } = await generated({
      A: { type: "object", properties: { a: { type: "string" } } },
      B: { type: "object", properties: { b: { type: "string" } } },
      // A later part that is a union of references: its test is two calls, no object test of its own.
      Either: { anyOf: [{ $ref: "#/$defs/A" }, { $ref: "#/$defs/B" }] },
      Both: { allOf: [{ $ref: "#/$defs/A" }, { $ref: "#/$defs/Either" }] },
      Tree: { type: "object", properties: { kind: { const: "tree" }, child: { $ref: "#/$defs/Node" } }, required: ["kind"] },
      Leaf: { type: "object", properties: { kind: { const: "leaf" } }, required: ["kind"] },
      Node: { oneOf: [{ $ref: "#/$defs/Tree" }, { $ref: "#/$defs/Leaf" }] },
    });
    expect(diagnostics).toEqual([]);
    expect(fn(validators, "$testBoth")).toMatch(/\$testEither\(value\);/);
    expect(fn(validators, "$testEither")).not.toMatch(/\bknown\b/);
    // Tree is on a reference cycle (its child is a Node); its test opens with the object test all the same.
    expect(fn(validators, "$testNode")).toMatch(/\$testTree\(value, true\)/);
    expect(fn(validators, "$testNode")).toMatch(/\$testLeaf\(value, true\)/);
  });
});

describe("what a test writes out instead of calling", () => {
  it("a reference to a short primitive test is written out at its use; a bigger one or an object stays a call", async () => {
    const { validators, diagnostics } = await generated({
      Id: { type: ["string", "integer"] },
      Status: { enum: ["working", "completed"] },
      Many: { enum: ["a", "b", "c", "d", "e", "f", "g", "h"] },
      Big: { type: "number", minimum: 0, maximum: 10, exclusiveMaximum: 9, multipleOf: 0.5 },
      Inner: { type: "object", properties: { x: { type: "string" } } },
      Message: {
        type: "object",
        properties: {
          id: { $ref: "#/$defs/Id" },
          status: { $ref: "#/$defs/Status" },
          many: { $ref: "#/$defs/Many" },
          big: { $ref: "#/$defs/Big" },
          inner: { $ref: "#/$defs/Inner" },
        },
        required: ["id", "status"],
      },
      // In an anyOf the written-out test is one more alternative.
      Either: { anyOf: [{ $ref: "#/$defs/Id" }, { $ref: "#/$defs/Inner" }] },
      // A condition that decides which code runs next stays a call (opaque), so no narrowing leaks into a branch.
      Cond: { if: { $ref: "#/$defs/Id" }, then: { $ref: "#/$defs/Status" }, else: { type: "object" } },
    });
    expect(diagnostics).toEqual([]);
    const message = /function \$testMessage\([^]*?\n\}/.exec(validators)![0];
    expect(message).not.toMatch(/\$testId\(|\$testStatus\(/);
    expect(message).toMatch(/typeof value1 === "string" \|\| \(typeof value1 === "number" && Number\.isInteger\(value1\)\)/);
    expect(message).toMatch(/value2 === "working" \|\| value2 === "completed"/);
    // Many values: one lookup in the module's set of them, written out too.
    expect(message).toMatch(/value3 !== undefined && !\$VALUES\d+\.has\(value3\)/);
    // More than five conditions (type, finite, three bounds, multipleOf): a call.
    expect(message).toMatch(/\$testBig\(value4\)/);
    expect(message).toMatch(/\$testInner\(value5\)/);
    expect(/function \$testEither\([^]*?\n\}/.exec(validators)![0]).toMatch(/return typeof value === "string" \|\| \(typeof value === "number" && Number\.isInteger\(value\)\) \|\| \$testInner\(value\);/);
    expect(/function \$testCond\([^]*?\n\}/.exec(validators)![0]).toMatch(/\$testId\(value\) \? !\$testStatus\(value\)/);
  });

  it("the object test is written out; a test that reads members views its parameter as a JSON object", async () => {
    const { validators, diagnostics } = await generated({
      Inner: { type: "object", properties: { x: { type: "string" } }, required: ["x"] },
      Any: { type: "object" },
    });
    expect(diagnostics).toEqual([]);
    const inner = /function \$testInner\([^]*?\n\}/.exec(validators)![0];
    expect(inner).toMatch(/^function \$testInner\(input: unknown\): input is Inner \{\n  const value = input as \$rt\.JsonObject;\n  if \(!\(typeof value === "object" && value !== null && \(value\.constructor === Object \|\| \$rt\.hasJsonPrototype\(value\)\)\)\)/);
    // Nothing read after the test: no view needed, the parameter stays `value`.
    expect(validators).toMatch(/function \$testAny\(value: unknown\): value is Any \{\n  return typeof value === "object"/);
  });

  it("the error mode reads a value's constructor at each object test and passes it to the runtime's test", async () => {
    const { validators, diagnostics } = await generated({
      Inner: { type: "object", properties: { x: { type: "string" } }, required: ["x"] },
      Outer: { type: "object", properties: { inner: { type: "object", properties: { y: { type: "integer" } } } } },
    });
    expect(diagnostics).toEqual([]);
    const objectTests = validators.match(/\$rt\.isJsonObject\([^;]*/g) ?? [];
    expect(objectTests.length).toBeGreaterThanOrEqual(3);
    for (const test of objectTests) expect(test).toMatch(/^\$rt\.isJsonObject\((value\d*), \(\1 as object \| null\)\?\.constructor\)/);
  });
});
