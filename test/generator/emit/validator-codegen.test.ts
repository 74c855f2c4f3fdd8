/**
 * The validators' syntax tree (generator/emit/validators/codegen/): building conditions folds and
 * negates on nodes, the printer writes the TypeScript a person would (parentheses by precedence,
 * `else if` chains, braces only where needed), locals are numbered at print time, and weight,
 * names and substitution see exactly what the code reads.
 */
import { describe, expect, it } from "vitest";
import {
  and,
  BREAK,
  call,
  compare,
  conditional,
  constant,
  exprStmt,
  FALSE,
  failIf,
  forIn,
  forOf,
  forRange,
  id,
  ifElse,
  increment,
  index,
  letVar,
  literal,
  Local,
  location,
  member,
  mentionsLocal,
  namesOf,
  not,
  or,
  passes,
  plus,
  ret,
  RETURN_FALSE,
  str,
  substitute,
  substituteAll,
  switchOn,
  TRUE,
  tryCatch,
  typeOf,
  weight,
  type Expr,
} from "../../../generator/emit/validators/codegen/nodes.js";
import { printExpression, printFunction, printStatements } from "../../../generator/emit/validators/codegen/print.js";
import { chunkByWeight, heavy, splitWeight } from "../../../generator/emit/validators/size.js";

const [a, b, c, d, v] = ["a", "b", "c", "d", "v"].map((n) => id(n)) as [Expr, Expr, Expr, Expr, Expr];
const show = printExpression;

describe("conditions fold and negate on nodes", () => {
  const cases: { name: string; expr: Expr; expected: string }[] = [
    { name: "and drops true, stops at false", expr: and(a, TRUE, b), expected: "a && b" },
    { name: "and with false is false", expr: and(a, FALSE, b), expected: "false" },
    { name: "or with true is true", expr: or(a, TRUE), expected: "true" },
    { name: "or of nothing is false", expr: or(), expected: "false" },
    { name: "and of nothing is true", expr: and(), expected: "true" },
    { name: "nested and flattens", expr: and(a, and(b, c)), expected: "a && b && c" },
    { name: "&& inside || in parentheses", expr: or(and(a, b), c), expected: "(a && b) || c" },
    { name: "|| inside && in parentheses", expr: and(or(a, b), c), expected: "(a || b) && c" },
    { name: "not of a comparison flips it", expr: not(compare(a, "===", b)), expected: "a !== b" },
    { name: "not of not is the operand", expr: not(not(call("f", a))), expected: "f(a)" },
    { name: "not of a call", expr: not(call("f", a)), expected: "!f(a)" },
    { name: "not of an ordering keeps it", expr: not(compare(a, ">=", literal("1"))), expected: "!(a >= 1)" },
    { name: "not of a conjunction", expr: not(and(a, b)), expected: "!(a && b)" },
    { name: "not of a known value", expr: not(TRUE), expected: "false" },
    { name: "typeof comparison", expr: compare(typeOf(a), "===", str("string")), expected: 'typeof a === "string"' },
    { name: "a ternary", expr: conditional(a, not(b), c), expected: "a ? !b : c" },
    { name: "a ternary as an operand", expr: and(conditional(a, b, c), d), expected: "(a ? b : c) && d" },
    { name: "member with a quoted name", expr: member(a, "x-y"), expected: 'a["x-y"]' },
    { name: "index", expr: index(a, literal("0")), expected: "a[0]" },
    { name: "a sum in a comparison", expr: compare(plus(a, b), "<", c), expected: "a + b < c" },
    { name: "adjacent strings join", expr: plus(id("path"), str("/a"), str("/b")), expected: 'path + "/a/b"' },
    { name: "strings join across a nested sum", expr: plus(plus(id("path"), str("/a")), str("/"), id("i")), expected: 'path + "/a/" + i' },
  ];
  for (const c of cases) it(c.name, () => expect(show(c.expr)).toBe(c.expected));

  it("passes: De Morgan when every operand has a plain negation", () => {
    expect(show(passes(and(compare(a, "!==", b), not(call("f", c)))))).toBe("a === b || f(c)");
    expect(show(passes(or(compare(a, "===", b), call("f", c))))).toBe("a !== b && !f(c)");
  });
  it("passes: otherwise the negation as a whole", () => {
    expect(show(passes(or(and(a, b), c)))).toBe("!((a && b) || c)");
  });
});

describe("statements print as a person writes them", () => {
  const report = exprStmt(call("report", a));
  it("one simple statement needs no braces", () => {
    expect(printStatements(ifElse(a, [report]))).toEqual(["if (a) report(a);"]);
  });
  it("an empty then turns the test around", () => {
    expect(printStatements(ifElse(compare(a, "===", b), [], [report]))).toEqual(["if (a !== b) report(a);"]);
  });
  it("a known test keeps its branch only", () => {
    expect(printStatements(ifElse(TRUE, [report], [RETURN_FALSE]))).toEqual(["report(a);"]);
    expect(printStatements(failIf(FALSE))).toEqual([]);
  });
  it("else if chains", () => {
    const code = ifElse(a, [report], ifElse(b, [report], [report]));
    expect(printStatements(code)).toEqual(["if (a) report(a);", "else if (b) report(a);", "else report(a);"]);
  });
  it("a block then, a chained else", () => {
    const code = ifElse(a, [report, report], ifElse(b, [report]));
    expect(printStatements(code)).toEqual(["if (a) {", "  report(a);", "  report(a);", "} else if (b) report(a);"]);
  });
  it("an else beside a block is a block", () => {
    expect(printStatements(ifElse(a, [report, report], [report]))).toEqual(["if (a) {", "  report(a);", "  report(a);", "} else {", "  report(a);", "}"]);
  });
  it("a declaration is never a bare branch", () => {
    expect(printStatements(ifElse(a, [constant("x", b)]))).toEqual(["if (a) {", "  const x = b;", "}"]);
  });
  it("loops are always in braces", () => {
    const item = new Local("item");
    expect(printStatements([forOf(item, v, ifElse(id(item), [RETURN_FALSE]))])).toEqual(["for (const item1 of v) {", "  if (item1) return false;", "}"]);
  });
  it("try with a handler, and with an empty one", () => {
    expect(printStatements([tryCatch([ret(call("f", v))], [RETURN_FALSE])])).toEqual(["try {", "  return f(v);", "} catch {", "  return false;", "}"]);
    expect(printStatements([tryCatch(ifElse(a, [RETURN_FALSE]), [])])).toEqual(["try {", "  if (a) return false;", "} catch {}"]);
  });
  it("switch with cases and a default", () => {
    const code = [switchOn(a, [{ tests: [str("x"), str("y")], body: [report, BREAK] }], [RETURN_FALSE])];
    expect(printStatements(code)).toEqual(["switch (a) {", '  case "x":', '  case "y":', "    report(a);", "    break;", "  default:", "    return false;", "}"]);
  });
});

describe("locals are numbered when printed, in order of declaration", () => {
  it("numbers follow declarations, without gaps for locals never declared", () => {
    const unused = new Local("value");
    const first = new Local("value");
    const i = new Local("i");
    const count = new Local("found");
    void unused;
    const code = [constant(first, member(v, "a")), letVar(count, literal("0")), forRange(i, 0, member(id(first), "length"), [increment(count)])];
    expect(printStatements(code)).toEqual(["const value1 = v.a;", "let found2 = 0;", "for (let i3 = 0; i3 < value1.length; i3++) {", "  found2++;", "}"]);
  });
  it("a local used before its declaration is an internal error", () => {
    expect(() => printStatements([ret(id(new Local("x")))])).toThrow(/before its declaration/);
  });
  it("the same fragment inlined twice gets distinct numbers each time it is declared", () => {
    const x = new Local("value");
    const fragment = [constant(x, member(v, "a"))];
    expect(printStatements([...fragment, ...fragment])).toEqual(["const value1 = v.a;", "const value2 = v.a;"]);
  });
});

describe("functions", () => {
  it("parameters the body never reads are written with an underscore", () => {
    const text = printFunction({ name: "$isAnything", params: [{ name: "value", type: "unknown" }], returns: "boolean", body: [ret(TRUE)] });
    expect(text).toBe("function $isAnything(_value: unknown): boolean {\n  return true;\n}");
  });
  it("schema locations print relative to the function's `at`", () => {
    const text = printFunction({
      name: "$checkX",
      params: [{ name: "errors", type: "unknown[]" }],
      returns: "void",
      at: "s.json#/$defs/X",
      body: [
        constant("at", str("s.json#/$defs/X")),
        exprStmt(call("report", id("errors"), location("s.json#/$defs/X"))),
        exprStmt(call("report", id("errors"), location("s.json#/$defs/X/type"))),
        exprStmt(call("report", id("errors"), location("s.json#/$defs/XY"))),
      ],
    });
    expect(text.split("\n").slice(2, 5)).toEqual(['  report(errors, at);', '  report(errors, at + "/type");', '  report(errors, "s.json#/$defs/XY");']);
  });
});

describe("names, substitution, weight", () => {
  it("namesOf lists fixed names, not locals", () => {
    const x = new Local("value");
    const names = namesOf([constant(x, member(id("value"), "a")), ...failIf(not(call("$isY", id(x))))]);
    expect([...names].sort()).toEqual(["$isY", "value"]);
  });
  it("mentionsLocal sees a local wherever it is read", () => {
    const x = new Local("item");
    expect(mentionsLocal(failIf(and(a, call("f", index(v, id(x))))), x)).toBe(true);
    expect(mentionsLocal(failIf(a), x)).toBe(false);
  });
  it("substitute replaces parameters by expressions, and strings still join", () => {
    const fragment = [exprStmt(call("report", id("errors"), plus(id("path"), str("/a")), id("value")))];
    const placed = substituteAll(fragment, new Map([["value", id("item")], ["path", plus(id("path"), str("/list/"), id("i"))]]));
    expect(printStatements(placed)).toEqual(['report(errors, path + "/list/" + i + "/a", item);']);
    expect(show(substitute(compare(id("value"), "===", literal("1")), new Map([["value", index(v, literal("0"))]])))).toBe("v[0] === 1");
  });
  it("weight counts statements and conditions", () => {
    expect(weight(failIf(or(a, b, c)))).toBe(1 + 3 + 1);
    expect(weight([constant("x", a), ...ifElse(a, [RETURN_FALSE], [RETURN_FALSE])])).toBe(1 + 1 + 1 + 1 + 1);
    expect(weight([forIn("k", v, failIf(a))])).toBe(1 + 3);
    expect(weight([tryCatch(failIf(a), [RETURN_FALSE])])).toBe(1 + 3 + 1);
    expect([...namesOf([tryCatch([ret(call("$testX", id("value")))], [exprStmt(call("g", b))])])].sort()).toEqual(["$testX", "b", "g", "value"]);
    expect(printStatements([substitute(tryCatch([ret(id("value"))], []), new Map([["value", v]]))])).toEqual(["try {", "  return v;", "} catch {}"]);
  });
  it("a chain of helper calls is heavy past fifty; of plain tests past seventy-five", () => {
    const calls = Array.from({ length: 51 }, (_, i) => call(`$isPart${i}`, v));
    expect(heavy(calls.slice(0, 50))).toBe(false);
    expect(heavy(calls)).toBe(true);
    const tests = Array.from({ length: 76 }, (_, i) => compare(v, "===", literal(String(i))));
    expect(heavy(tests.slice(0, 75))).toBe(false);
    expect(heavy(tests)).toBe(true);
    expect(chunkByWeight(tests, splitWeight).map((chunk) => chunk.length)).toEqual([75, 1]);
  });
});
