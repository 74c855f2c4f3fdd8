/**
 * The keyword conditions both validator modes share: one boolean expression per keyword of a
 * primitive, literal or size constraint, with the message an error reports. The boolean mode
 * joins the expressions; the error mode reports each one that fails. One source of truth per
 * keyword keeps the two modes in agreement.
 */
import type { ArrayNode, JsonValue, LiteralNode, MapNode, ObjectNode, PrimitiveNode } from "../../ir/nodes.js";
import { canonicalJson } from "../../ir/structure.js";
import type { ModuleScope } from "./scope.js";

export interface Condition {
  readonly keyword: string;
  /** True when the value satisfies the keyword. */
  readonly test: string;
  /** A TypeScript expression producing the message. */
  readonly message: string;
  /** For "expected X, got <value>" messages: X (the message is then built at run time). */
  readonly expected?: string;
}

/** The negation of a test, written the way a person would (`a !== b`, not `!(a === b)`). */
export function negate(test: string): string {
  const comparison = /^([^&|!=<>()]+?) === ([^&|!=<>()]+)$/.exec(test);
  if (comparison) return `${comparison[1]} !== ${comparison[2]}`;
  if (/^![\w$.]+\([^()]*\)$/.test(test)) return test.slice(1);
  if (/^[\w$.]+\([^()]*\)$/.test(test)) return `!${test}`;
  return `!(${test})`;
}

/** The JSON type check of a primitive, as an expression over `x`. */
export function typeTest(type: PrimitiveNode["type"], x: string): string {
  switch (type) {
    case "string":
      return `typeof ${x} === "string"`;
    case "number":
      return `typeof ${x} === "number" && Number.isFinite(${x})`;
    case "integer":
      return `typeof ${x} === "number" && Number.isInteger(${x})`;
    case "boolean":
      return `typeof ${x} === "boolean"`;
    case "null":
      return `${x} === null`;
  }
}

/** Constraints of a primitive, each to be tested once the type check passed. */
export function primitiveConditions(node: PrimitiveNode, x: string, scope: ModuleScope): Condition[] {
  const out: Condition[] = [];
  const s = node.string;
  if (s) {
    const len = () => `${scope.runtime("codePointLength")}(${x})`;
    if (s.minLength !== undefined && s.minLength > 0) {
      out.push({ keyword: "minLength", test: `${len()} >= ${s.minLength}`, message: str(`must be at least ${plural(s.minLength, "character")} long`) });
    }
    if (s.maxLength !== undefined) {
      out.push({ keyword: "maxLength", test: `${len()} <= ${s.maxLength}`, message: str(`must be at most ${plural(s.maxLength, "character")} long`) });
    }
    if (s.pattern !== undefined) {
      const re = scope.constant("PATTERN", `new RegExp(${JSON.stringify(s.pattern)}, "u")`);
      out.push({ keyword: "pattern", test: `${re}.test(${x})`, message: str(`must match the pattern ${JSON.stringify(s.pattern)}`) });
    }
  }
  const n = node.number;
  if (n) {
    if (n.minimum !== undefined) out.push({ keyword: "minimum", test: `${x} >= ${num(n.minimum)}`, message: str(`must be >= ${n.minimum}`) });
    if (n.maximum !== undefined) out.push({ keyword: "maximum", test: `${x} <= ${num(n.maximum)}`, message: str(`must be <= ${n.maximum}`) });
    if (n.exclusiveMinimum !== undefined) {
      out.push({ keyword: "exclusiveMinimum", test: `${x} > ${num(n.exclusiveMinimum)}`, message: str(`must be > ${n.exclusiveMinimum}`) });
    }
    if (n.exclusiveMaximum !== undefined) {
      out.push({ keyword: "exclusiveMaximum", test: `${x} < ${num(n.exclusiveMaximum)}`, message: str(`must be < ${n.exclusiveMaximum}`) });
    }
    if (n.multipleOf !== undefined) {
      out.push({ keyword: "multipleOf", test: `${scope.runtime("isMultipleOf")}(${x}, ${num(n.multipleOf)})`, message: str(`must be a multiple of ${n.multipleOf}`) });
    }
  }
  return out;
}

export function typeName(type: PrimitiveNode["type"]): string {
  return type === "null" ? "null" : type === "integer" ? "an integer" : `a ${type}`;
}

/** The membership test of `enum` / `const`. */
export function literalCondition(node: LiteralNode, x: string, scope: ModuleScope): Condition {
  const describe = scope.runtime("describe");
  const shown = node.values.map((v) => canonicalJson(v)).join(" | ");
  const expected = node.values.length === 1 ? shorten(shown) : `one of ${shorten(shown)}`;
  const message = `${str(`expected ${expected}, got `)} + ${describe}(${x})`;
  return { keyword: node.keyword, test: literalTest(node.values, x, scope), message, expected };
}

function literalTest(values: readonly JsonValue[], x: string, scope: ModuleScope): string {
  if (values.length === 0) return "false";
  const scalars = values.every((v) => v === null || typeof v !== "object");
  if (!scalars) {
    const equal = scope.runtime("jsonEqual");
    if (values.length === 1) return `${equal}(${x}, ${scope.constant("VALUE", JSON.stringify(values[0]))})`;
    const list = scope.constant("VALUES", `${JSON.stringify(values)} as const`);
    return `${list}.some((v) => ${equal}(${x}, v))`;
  }
  if (values.length <= 6) {
    const tests = values.map((v) => `${x} === ${literal(v)}`);
    return tests.length === 1 ? tests[0]! : `(${tests.join(" || ")})`;
  }
  const set = scope.constant("VALUES", `new Set<unknown>(${JSON.stringify(values)})`);
  return `${set}.has(${x})`;
}

/** Size keywords of objects (on a narrowed object `o`). */
export function objectSizeConditions(node: ObjectNode | MapNode, o: string): Condition[] {
  const out: Condition[] = [];
  const count = `Object.keys(${o}).length`;
  if (node.minProperties !== undefined && node.minProperties > 0) {
    out.push({ keyword: "minProperties", test: `${count} >= ${node.minProperties}`, message: str(`must have at least ${plural(node.minProperties, "property", "properties")}`) });
  }
  if (node.maxProperties !== undefined) {
    out.push({ keyword: "maxProperties", test: `${count} <= ${node.maxProperties}`, message: str(`must have at most ${plural(node.maxProperties, "property", "properties")}`) });
  }
  return out;
}

/** Size and uniqueness keywords of arrays (on a narrowed array `a`). */
export function arrayConditions(node: ArrayNode, a: string, scope: ModuleScope): Condition[] {
  const out: Condition[] = [];
  if (node.minItems !== undefined && node.minItems > 0) {
    out.push({ keyword: "minItems", test: `${a}.length >= ${node.minItems}`, message: str(`must have at least ${plural(node.minItems, "item")}`) });
  }
  if (node.maxItems !== undefined) {
    out.push({ keyword: "maxItems", test: `${a}.length <= ${node.maxItems}`, message: str(`must have at most ${plural(node.maxItems, "item")}`) });
  }
  if (node.uniqueItems) {
    out.push({ keyword: "uniqueItems", test: `!${scope.runtime("hasDuplicates")}(${a})`, message: str("must not contain duplicate items") });
  }
  return out;
}

/** The bounds `contains` puts on the number of matching items. */
export function containsBounds(node: ArrayNode): { min: number; max: number | undefined } {
  return { min: node.minContains ?? 1, max: node.maxContains };
}

export function str(text: string): string {
  return JSON.stringify(text);
}

export function literal(value: JsonValue): string {
  return typeof value === "number" ? num(value) : JSON.stringify(value);
}

function num(value: number): string {
  return Object.is(value, -0) ? "0" : String(value);
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
