/**
 * Simplification: rewrites that keep exactly the set of accepted values but read and run better.
 * `{type: "string", const: "x"}` becomes the literal "x"; an `anyOf` of constants becomes one
 * enum; `not: {}` becomes never. Unions that accept anything (`anyOf: [{}, {}]`) are kept as they
 * are: they are placeholders the lint reports, and dedupe must still tell them from `{}`.
 *
 * With `keepAnnotations` (a set that uses `unevaluatedProperties`/`unevaluatedItems`), rewrites that
 * keep the accepted values but drop a keyword that evaluates properties or items are left out: an
 * `if` without `then`/`else` and an "any object" part beside another object part
 * (ARCHITECTURE.md › Validators, annotation tracking).
 */
import type { Docs, JsonValue, LiteralNode, Node, PrimitiveNode, UnionNode } from "../ir/nodes.js";
import { mayAcceptValue } from "../ir/query.js";
import { canonicalJson } from "../ir/structure.js";
import { mapChildren } from "../ir/walk.js";

/** Plain type checks hold no `$ref`, so the value queries they are asked need no definitions. */
const NO_REFS = new Map();

export interface SimplifyOptions {
  readonly keepAnnotations?: boolean;
}

export function simplify(node: Node, options: SimplifyOptions = {}): Node {
  const rewritten = mapChildren(node, (child) => simplify(child, options));
  switch (rewritten.kind) {
    case "intersection":
      return simplifyIntersection(rewritten.parts, rewritten, options);
    case "union":
      return simplifyUnion(rewritten);
    case "not":
      if (rewritten.node.kind === "unknown") return carry({ kind: "never", loc: rewritten.loc }, rewritten.docs);
      if (rewritten.node.kind === "never") return carry({ kind: "unknown", loc: rewritten.loc }, rewritten.docs);
      return rewritten;
    case "conditional":
      return rewritten.then || rewritten.else || options.keepAnnotations ? rewritten : carry({ kind: "unknown", loc: rewritten.loc }, rewritten.docs);
    case "map": {
      if (rewritten.keys && isPlainString(rewritten.keys)) {
        const { keys: _ignored, ...rest } = rewritten;
        return rest;
      }
      return rewritten;
    }
    case "object": {
      if (rewritten.propertyNames && isPlainString(rewritten.propertyNames)) {
        const { propertyNames: _ignored, ...rest } = rewritten;
        return rest;
      }
      return rewritten;
    }
    default:
      return rewritten;
  }
}

/** Property names are always strings, so `propertyNames: {type: "string"}` says nothing. */
function isPlainString(node: Node): boolean {
  return node.kind === "primitive" && node.type === "string" && !node.string;
}

function simplifyIntersection(input: readonly Node[], self: Node, options: SimplifyOptions): Node {
  const parts: Node[] = [];
  for (const part of input) {
    if (part.kind === "intersection") parts.push(...part.parts);
    else if (part.kind !== "unknown") parts.push(part);
  }
  if (parts.some((p) => p.kind === "never")) return carry({ kind: "never", loc: self.loc }, self.docs);

  // A literal settles every plain type check beside it: keep only values of an admitted type.
  const literals = parts.filter((p): p is LiteralNode => p.kind === "literal");
  if (literals.length > 0) {
    const typeChecks = parts.filter(isPlainTypeCheck);
    let values = literals[0]!.values;
    for (const other of literals.slice(1)) {
      const keys = new Set(other.values.map(canonicalJson));
      values = values.filter((v) => keys.has(canonicalJson(v)));
    }
    for (const check of typeChecks) values = values.filter((v) => mayAcceptValue(check, v, NO_REFS));
    const rest = parts.filter((p) => p.kind !== "literal" && !isPlainTypeCheck(p));
    const literal: LiteralNode = {
      kind: "literal",
      values,
      keyword: literals.length === 1 ? literals[0]!.keyword : "enum",
      loc: literals[0]!.loc,
    };
    const merged: Node = values.length === 0 ? { kind: "never", loc: literal.loc } : literal;
    parts.splice(0, parts.length, ...(merged.kind === "never" ? [merged] : [...rest, merged]));
    if (merged.kind === "never") return carry(merged, self.docs);
  }
  // "Is an object" adds nothing beside another part that only accepts objects.
  if (!options.keepAnnotations && parts.some((p) => (p.kind === "object" || p.kind === "map") && !isAnyObject(p))) {
    parts.splice(0, parts.length, ...parts.filter((p) => !isAnyObject(p)));
  }
  if (parts.length === 0) return carry({ kind: "unknown", loc: self.loc }, self.docs);
  if (parts.length === 1) return carry(parts[0]!, self.docs);
  return { kind: "intersection", parts, loc: self.loc, ...(self.docs ? { docs: self.docs } : {}) };
}

/** A map that accepts every object (`{type: "object", additionalProperties: {}}`). */
function isAnyObject(node: Node): boolean {
  return node.kind === "map" && node.values.kind === "unknown" && !node.keys && node.minProperties === undefined && node.maxProperties === undefined;
}

/** A primitive without constraints, or a union of them: it only checks the JSON type. */
function isPlainTypeCheck(node: Node): node is PrimitiveNode | UnionNode {
  if (node.kind === "primitive") return !node.string && !node.number;
  if (node.kind === "union" && !node.exclusive) return node.variants.every(isPlainTypeCheck);
  return false;
}

function simplifyUnion(union: UnionNode): Node {
  const variants: Node[] = [];
  for (const variant of union.variants) {
    if (variant.kind === "never") continue;
    if (!union.exclusive && variant.kind === "union" && !variant.exclusive && !variant.docs) variants.push(...variant.variants);
    else variants.push(variant);
  }
  if (variants.length === 0) return carry({ kind: "never", loc: union.loc }, union.docs);
  if (variants.length === 1) return carry(variants[0]!, union.docs);
  if (variants.every((v): v is LiteralNode => v.kind === "literal")) {
    const seen = new Set<string>();
    const values: JsonValue[] = [];
    let overlapping = false;
    for (const variant of variants) {
      for (const value of variant.values) {
        const key = canonicalJson(value);
        if (seen.has(key)) overlapping = true;
        else {
          seen.add(key);
          values.push(value);
        }
      }
    }
    // oneOf of overlapping constants rejects the shared values, so it cannot become one enum.
    if (!(union.exclusive && overlapping)) {
      return carry({ kind: "literal", values, keyword: "enum", loc: union.loc, origin: union.loc }, union.docs);
    }
  }
  return { ...union, variants };
}

function carry<T extends Node>(node: T, docs: Docs | undefined): T {
  if (!docs) return node;
  return { ...node, docs: { ...node.docs, ...docs } };
}
