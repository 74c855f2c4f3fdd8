/**
 * `unsatisfiable`: a schema no value can satisfy. Between the parts of an intersection (`allOf`
 * branches, or keywords of one schema): JSON types no part shares, or a constant another part
 * rejects; within one schema: bounds that leave nothing between them (`minimum` > `maximum`,
 * `minItems` > `maxItems`, ...), an empty `enum`, a required property whose schema is `false`.
 */
import type { SourceLocation } from "../../diagnostics.js";
import type { JsonValue, LiteralNode, Node, ObjectNode, PrimitiveNode } from "../../ir/nodes.js";
import { canonicalJson } from "../../ir/structure.js";
import {
  ALL_JSON_TYPES,
  describeTypes,
  followRefs,
  intersectTypes,
  jsonTypes,
  mayAcceptValue,
  type DefinitionsById,
  type JsonType,
} from "../../ir/query.js";
import { at, schemaLocation, shortJson, where } from "../locations.js";
import type { Finding, IrRule } from "../rule.js";

export const unsatisfiable: IrRule = {
  id: "unsatisfiable",
  summary: "a schema no value can satisfy (const outside its enum, contradictory types in allOf, minimum > maximum, ...)",
  reads: "ir",
  check(node, { definitions }) {
    switch (node.kind) {
      case "intersection":
        return contradictions(node.parts, node.loc, definitions);
      case "primitive":
        return primitiveBounds(node);
      case "array":
        return [
          ...countBounds(node.loc, "minItems", node.minItems, "maxItems", node.maxItems),
          ...(node.contains ? countBounds(node.loc, "minContains", node.minContains, "maxContains", node.maxContains) : []),
        ];
      case "map":
        return countBounds(node.loc, "minProperties", node.minProperties, "maxProperties", node.maxProperties);
      case "object":
        return objectContradictions(node);
      case "literal":
        return node.values.length === 0
          ? [{ rule: "unsatisfiable", location: at(node.loc, node.keyword), message: `"${node.keyword}": [] admits no value, so this schema accepts nothing` }]
          : [];
      default:
        return [];
    }
  },
};

/** The JSON types of a part; a part that makes no claim admits them all. */
function typesOf(node: Node, definitions: DefinitionsById): ReadonlySet<JsonType> {
  return jsonTypes(node, definitions) ?? ALL_JSON_TYPES;
}

/** Contradictions between the parts of an intersection (allOf branches, or keywords of one schema). */
function contradictions(parts: readonly Node[], loc: SourceLocation, definitions: DefinitionsById): Finding[] {
  const types = parts.map((p) => typesOf(p, definitions));
  if (types.some((t) => t.size === 0)) return []; // a part that is unsatisfiable by itself is reported where it is
  const all = types.reduce((a, b) => intersectTypes(a, b), ALL_JSON_TYPES);
  const pair = all.size === 0 ? findDisjointPair(types) : undefined;
  // A constant of the wrong type reads best as such, at its `const`/`enum` keyword.
  if (all.size > 0 || pair?.some((i) => literalOf(parts[i]!, definitions))) return literalContradiction(parts, loc, definitions);
  const shown = (pair ?? parts.map((_, i) => i)).map((i) => {
    const part = parts[i]!;
    const own = schemaLocation(part).pointer === loc.pointer && part.kind !== "intersection";
    return own ? `"type" says ${describeTypes(types[i]!)}` : `${where(schemaLocation(part), loc)} admits only ${describeTypes(types[i]!)}`;
  });
  return [{ rule: "unsatisfiable", location: loc, message: `no value satisfies this schema: ${shown.join(", but ")}` }];
}

function findDisjointPair(types: readonly ReadonlySet<JsonType>[]): [number, number] | undefined {
  for (let i = 0; i < types.length; i++) {
    for (let j = i + 1; j < types.length; j++) if (intersectTypes(types[i]!, types[j]!).size === 0) return [i, j];
  }
  return undefined;
}

/** Constants (`const`/`enum`, also through `$ref`) that no other part lets through. */
function literalContradiction(parts: readonly Node[], loc: SourceLocation, definitions: DefinitionsById): Finding[] {
  const literals = parts.map((p) => ({ part: p, literal: literalOf(p, definitions) })).filter((l) => l.literal !== undefined);
  if (literals.length === 0) return [];
  let values = literals[0]!.literal!.values;
  let last = literals[0]!;
  let against: string[] = [];
  for (const other of literals.slice(1)) {
    const keys = new Set(other.literal!.values.map(canonicalJson));
    const kept = values.filter((v) => keys.has(canonicalJson(v)));
    if (kept.length === 0 && values.length > 0) {
      against = [`${describeLiteral(last.literal!)} at ${where(literalLocation(last.part, last.literal!), loc)}`];
      last = other;
    }
    values = kept;
  }
  if (values.length > 0) {
    for (const part of parts) {
      if (literals.some((l) => l.part === part)) continue;
      const kept = values.filter((v) => mayAcceptValue(part, v, definitions));
      if (kept.length === 0) {
        const beside = literals.some((l) => l.literal!.loc.pointer === schemaLocation(part).pointer && l.part.kind === "literal");
        against = [beside ? `the ${describeCheck(part, definitions)} beside it` : `${where(schemaLocation(part), loc)} (${describeCheck(part, definitions)})`];
        last = literals[literals.length - 1]!;
        values = kept;
        break;
      }
      values = kept;
    }
  }
  if (values.length > 0 || against.length === 0) return [];
  const literal = last.literal!;
  const what = literal.values.length === 1 ? `${literal.keyword} ${shortJson(literal.values[0]!)}` : `none of the enum values ${shortJson(literal.values as JsonValue)}`;
  return [
    {
      rule: "unsatisfiable",
      location: literalLocation(last.part, literal),
      message: `${what} is not admitted by ${against.join(", ")}, so no value satisfies this schema`,
    },
  ];
}

/** The constants a part stands for, written inline or behind `$ref`s. */
function literalOf(node: Node, definitions: DefinitionsById): LiteralNode | undefined {
  const target = followRefs(node, definitions);
  return target.kind === "literal" ? target : undefined;
}

/** The keyword of a literal part: `.../const` when written inline, the `$ref` when it comes from elsewhere. */
function literalLocation(part: Node, literal: LiteralNode): SourceLocation {
  return part.kind === "ref" ? part.loc : at(literal.loc, literal.keyword);
}

function describeLiteral(literal: LiteralNode): string {
  return literal.values.length === 1 ? `${literal.keyword} ${shortJson(literal.values[0]!)}` : `${literal.keyword} ${shortJson(literal.values as JsonValue)}`;
}

function describeCheck(node: Node, definitions: DefinitionsById): string {
  if (node.kind === "primitive") {
    const constraints = { ...node.string, ...node.number };
    const extra = Object.entries(constraints).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
    return [`type ${node.type}`, ...extra].join(", ");
  }
  return `admits only ${describeTypes(typesOf(node, definitions))}`;
}

function primitiveBounds(node: PrimitiveNode): Finding[] {
  const found: Finding[] = [];
  if (node.string) found.push(...countBounds(node.loc, "minLength", node.string.minLength, "maxLength", node.string.maxLength));
  const n = node.number;
  if (!n) return found;
  // The tightest lower and upper bounds, with the keyword each comes from.
  const lower = tightest([
    { keyword: "minimum", value: n.minimum, exclusive: false },
    { keyword: "exclusiveMinimum", value: n.exclusiveMinimum, exclusive: true },
  ], (a, b) => a > b);
  const upper = tightest([
    { keyword: "maximum", value: n.maximum, exclusive: false },
    { keyword: "exclusiveMaximum", value: n.exclusiveMaximum, exclusive: true },
  ], (a, b) => a < b);
  if (!lower || !upper) return found;
  let empty = lower.value > upper.value || (lower.value === upper.value && (lower.exclusive || upper.exclusive));
  if (!empty && node.type === "integer") {
    const low = lower.exclusive ? Math.floor(lower.value) + 1 : Math.ceil(lower.value);
    const high = upper.exclusive ? Math.ceil(upper.value) - 1 : Math.floor(upper.value);
    empty = low > high;
  }
  if (empty) {
    found.push({
      rule: "unsatisfiable",
      location: at(node.loc, lower.keyword),
      message: `${lower.keyword} ${lower.value} and ${upper.keyword} ${upper.value} leave no ${node.type === "integer" ? "integer" : "number"} between them, so this schema accepts no ${node.type === "integer" ? "integer" : "number"}`,
    });
  }
  return found;
}

interface Bound {
  readonly keyword: string;
  readonly value: number;
  readonly exclusive: boolean;
}

function tightest(candidates: readonly { keyword: string; value: number | undefined; exclusive: boolean }[], tighter: (a: number, b: number) => boolean): Bound | undefined {
  let best: Bound | undefined;
  for (const c of candidates) {
    if (c.value === undefined) continue;
    if (!best || tighter(c.value, best.value) || (c.value === best.value && c.exclusive)) best = { keyword: c.keyword, value: c.value, exclusive: c.exclusive };
  }
  return best;
}

function countBounds(loc: SourceLocation, minKeyword: string, min: number | undefined, maxKeyword: string, max: number | undefined): Finding[] {
  if (min === undefined || max === undefined || min <= max) return [];
  return [{ rule: "unsatisfiable", location: at(loc, minKeyword), message: `${minKeyword} ${min} is greater than ${maxKeyword} ${max}, so this schema accepts nothing of its type` }];
}

function objectContradictions(node: ObjectNode): Finding[] {
  const found = countBounds(node.loc, "minProperties", node.minProperties, "maxProperties", node.maxProperties);
  const closed = node.additional?.kind === "never";
  const patterns = node.patternProperties.map((p) => new RegExp(p.pattern, "u"));
  for (const property of node.properties) {
    if (property.required && property.node.kind === "never") {
      found.push({
        rule: "unsatisfiable",
        location: at(node.loc, "properties", property.name),
        message: `"${property.name}" is required but its schema is false, so this object schema accepts no object`,
      });
    }
  }
  if (closed) {
    for (const name of node.requiredOnly) {
      if (patterns.some((re) => re.test(name))) continue;
      found.push({
        rule: "unsatisfiable",
        location: at(node.loc, "required"),
        message: `"${name}" is required but additionalProperties is false and no property or pattern declares it, so this object schema accepts no object`,
      });
    }
  }
  const required = node.properties.filter((p) => p.required).length + node.requiredOnly.length;
  if (node.maxProperties !== undefined && required > node.maxProperties) {
    found.push({
      rule: "unsatisfiable",
      location: at(node.loc, "maxProperties"),
      message: `maxProperties ${node.maxProperties} is less than the ${required} required properties, so this object schema accepts no object`,
    });
  }
  return found;
}
