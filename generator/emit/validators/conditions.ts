/**
 * The keyword conditions both validator modes share: one boolean expression per keyword of a
 * primitive, literal or size constraint, with the message an error reports. The boolean mode
 * joins the expressions; the error mode reports each one that fails. One source of truth per
 * keyword keeps the two modes in agreement.
 */
import type { ArrayNode, JsonValue, LiteralNode, MapNode, ObjectNode, PrimitiveNode } from "../../ir/nodes.js";
import { canonicalJson } from "../../ir/structure.js";
import { and, arrow, call, compare, FALSE, id, literal as literalExpr, member, not, or, plus, raw, typeOf, type Expr } from "./codegen/nodes.js";
import type { ModuleScope } from "./scope.js";

export interface Condition {
  readonly keyword: string;
  /** True when the value satisfies the keyword. */
  readonly test: Expr;
  /** An expression producing the message. */
  readonly message: Expr;
  /** For "expected X, got <value>" messages: X (the message is then built at run time). */
  readonly expected?: string;
}

/** The JSON type check of a primitive, as an expression over `x`. */
export function typeTest(type: PrimitiveNode["type"], x: Expr): Expr {
  switch (type) {
    case "string":
      return typeIs(x, "string");
    case "number":
      return and(typeIs(x, "number"), call(member(id("Number"), "isFinite"), x));
    case "integer":
      return and(typeIs(x, "number"), call(member(id("Number"), "isInteger"), x));
    case "boolean":
      return typeIs(x, "boolean");
    case "null":
      return compare(x, "===", NULL);
  }
}

export const NULL = literalExpr("null");
export const UNDEFINED = literalExpr("undefined");

/** `typeof x === "type"`. */
export function typeIs(x: Expr, type: string): Expr {
  return compare(typeOf(x), "===", str(type));
}

/** Constraints of a primitive, each to be tested once the type check passed. */
export function primitiveConditions(node: PrimitiveNode, x: Expr, scope: ModuleScope): Condition[] {
  const out: Condition[] = [];
  const s = node.string;
  if (s) {
    const len = () => call(scope.runtime("codePointLength"), x);
    if (s.minLength !== undefined && s.minLength > 0) {
      out.push({ keyword: "minLength", test: compare(len(), ">=", num(s.minLength)), message: str(`must be at least ${plural(s.minLength, "character")} long`) });
    }
    if (s.maxLength !== undefined) {
      out.push({ keyword: "maxLength", test: compare(len(), "<=", num(s.maxLength)), message: str(`must be at most ${plural(s.maxLength, "character")} long`) });
    }
    if (s.pattern !== undefined) {
      const re = scope.constant("PATTERN", `new RegExp(${JSON.stringify(s.pattern)}, "u")`);
      out.push({ keyword: "pattern", test: call(member(re, "test"), x), message: str(`must match the pattern ${JSON.stringify(s.pattern)}`) });
    }
  }
  const n = node.number;
  if (n) {
    if (n.minimum !== undefined) out.push({ keyword: "minimum", test: compare(x, ">=", num(n.minimum)), message: str(`must be >= ${n.minimum}`) });
    if (n.maximum !== undefined) out.push({ keyword: "maximum", test: compare(x, "<=", num(n.maximum)), message: str(`must be <= ${n.maximum}`) });
    if (n.exclusiveMinimum !== undefined) {
      out.push({ keyword: "exclusiveMinimum", test: compare(x, ">", num(n.exclusiveMinimum)), message: str(`must be > ${n.exclusiveMinimum}`) });
    }
    if (n.exclusiveMaximum !== undefined) {
      out.push({ keyword: "exclusiveMaximum", test: compare(x, "<", num(n.exclusiveMaximum)), message: str(`must be < ${n.exclusiveMaximum}`) });
    }
    if (n.multipleOf !== undefined) {
      out.push({ keyword: "multipleOf", test: call(scope.runtime("isMultipleOf"), x, num(n.multipleOf)), message: str(`must be a multiple of ${n.multipleOf}`) });
    }
  }
  return out;
}

export function typeName(type: PrimitiveNode["type"]): string {
  return type === "null" ? "null" : type === "integer" ? "an integer" : `a ${type}`;
}

/** The membership test of `enum` / `const`. */
export function literalCondition(node: LiteralNode, x: Expr, scope: ModuleScope): Condition {
  const shown = node.values.map((v) => canonicalJson(v)).join(" | ");
  const expected = node.values.length === 1 ? shorten(shown) : `one of ${shorten(shown)}`;
  const message = plus(str(`expected ${expected}, got `), call(scope.runtime("describe"), x));
  return { keyword: node.keyword, test: literalTest(node.values, x, scope), message, expected };
}

function literalTest(values: readonly JsonValue[], x: Expr, scope: ModuleScope): Expr {
  if (values.length === 0) return FALSE;
  const scalars = values.every((v) => v === null || typeof v !== "object");
  if (!scalars) {
    const equal = scope.runtime("jsonEqual");
    if (values.length === 1) return call(equal, x, scope.constant("VALUE", JSON.stringify(values[0])));
    const list = scope.constant("VALUES", `${JSON.stringify(values)} as const`);
    return call(member(list, "some"), arrow("v", call(equal, x, id("v"))));
  }
  if (values.length <= 6) return or(...values.map((v) => compare(x, "===", literal(v))));
  const set = scope.constant("VALUES", `new Set<unknown>(${JSON.stringify(values)})`);
  return call(member(set, "has"), x);
}

/** Size keywords of objects (on a narrowed object `o`). */
export function objectSizeConditions(node: ObjectNode | MapNode, o: Expr): Condition[] {
  const out: Condition[] = [];
  const count = member(call(member(id("Object"), "keys"), o), "length");
  if (node.minProperties !== undefined && node.minProperties > 0) {
    out.push({ keyword: "minProperties", test: compare(count, ">=", num(node.minProperties)), message: str(`must have at least ${plural(node.minProperties, "property", "properties")}`) });
  }
  if (node.maxProperties !== undefined) {
    out.push({ keyword: "maxProperties", test: compare(count, "<=", num(node.maxProperties)), message: str(`must have at most ${plural(node.maxProperties, "property", "properties")}`) });
  }
  return out;
}

/** Size and uniqueness keywords of arrays (on a narrowed array `a`). */
export function arrayConditions(node: ArrayNode, a: Expr, scope: ModuleScope): Condition[] {
  const out: Condition[] = [];
  const length = member(a, "length");
  if (node.minItems !== undefined && node.minItems > 0) {
    out.push({ keyword: "minItems", test: compare(length, ">=", num(node.minItems)), message: str(`must have at least ${plural(node.minItems, "item")}`) });
  }
  if (node.maxItems !== undefined) {
    out.push({ keyword: "maxItems", test: compare(length, "<=", num(node.maxItems)), message: str(`must have at most ${plural(node.maxItems, "item")}`) });
  }
  if (node.uniqueItems) {
    out.push({ keyword: "uniqueItems", test: not(call(scope.runtime("hasDuplicates"), a)), message: str("must not contain duplicate items") });
  }
  return out;
}

/** The bounds `contains` puts on the number of matching items. */
export function containsBounds(node: ArrayNode): { min: number; max: number | undefined } {
  return { min: node.minContains ?? 1, max: node.maxContains };
}

/** A string literal. */
export function str(text: string): Expr {
  return literalExpr(JSON.stringify(text));
}

/** A JSON value as a literal (`-0` as `0`). */
export function literal(value: JsonValue): Expr {
  return typeof value === "number" ? num(value) : literalExpr(JSON.stringify(value));
}

export function num(value: number): Expr {
  return literalExpr(Object.is(value, -0) ? "0" : String(value));
}

/** Module-level code taken as written (a constant's initializer). */
export { raw };

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
