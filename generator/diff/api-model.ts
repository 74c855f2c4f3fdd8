/**
 * The diff's read model of a set: a definition as the API it generates. Its object view and its
 * named variants and discriminator (looking through `$ref`s and intersections), a type as the set
 * of values it admits (a "domain", compared for narrowing and widening), and a one-line outline
 * for messages. The IR questions themselves (a `$ref`'s target, the object a node describes, the
 * JSON types of a value) are answered by ir/query.ts.
 */
import type { AllOfMode } from "../config/config.js";
import type { Model } from "../analyze/model.js";
import type { JsonValue, Node } from "../ir/nodes.js";
import { enterRef, jsonTypesOfValue, refTarget, type JsonType } from "../ir/query.js";
import { canonicalJson, structureKey } from "../ir/structure.js";

export interface ModelContext {
  readonly model: Model;
  readonly allOf: AllOfMode;
}

export function contextOf(model: Model, allOf: AllOfMode): ModelContext {
  return { model, allOf };
}

/** The name of the definition a `$ref` node points at (undefined for any other node). */
export function nameOf(node: Node, ctx: ModelContext): string | undefined {
  return refTarget(node, ctx.model.byId)?.name;
}

/** The named variants of a union definition (looking through refs and intersections), in order. */
export function variantNames(node: Node, ctx: ModelContext, seen: ReadonlySet<string> = new Set()): string[] | undefined {
  switch (node.kind) {
    case "union": {
      const names = node.variants.map((v) => nameOf(v, ctx));
      return names.every((n): n is string => n !== undefined) ? names : undefined;
    }
    case "ref": {
      const next = enterRef(node, ctx.model.byId, seen);
      return next ? variantNames(next.definition.node, ctx, next.seen) : undefined;
    }
    case "intersection": {
      const found = node.parts.map((p) => variantNames(p, ctx, seen)).filter((v): v is string[] => v !== undefined);
      return found.length === 1 ? found[0] : undefined;
    }
    default:
      return undefined;
  }
}

/** The discriminator a value of the node is told apart by (looking through refs and intersections). */
export function discriminatorOf(node: Node, ctx: ModelContext, seen: ReadonlySet<string> = new Set()): { property: string; values: string[] } | undefined {
  switch (node.kind) {
    case "union":
      return node.discriminator
        ? { property: node.discriminator.property, values: node.discriminator.cases.flatMap((c) => c.values.map((v) => JSON.stringify(v))) }
        : undefined;
    case "ref": {
      const next = enterRef(node, ctx.model.byId, seen);
      return next ? discriminatorOf(next.definition.node, ctx, next.seen) : undefined;
    }
    case "intersection": {
      const found = node.parts.map((p) => discriminatorOf(p, ctx, seen)).filter((d) => d !== undefined);
      return found.length === 1 ? found[0] : undefined;
    }
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Domains: the values a type admits, coarsely, for narrowed / widened / changed
// ---------------------------------------------------------------------------------------------

export interface Domain {
  readonly any: boolean;
  /** JSON types admitted whole. */
  readonly types: ReadonlySet<JsonType>;
  /** Single values admitted (constants), by canonical JSON. */
  readonly values: ReadonlyMap<string, JsonValue>;
  /** Named object-like definitions admitted. */
  readonly named: ReadonlySet<string>;
  /** Anything else (constrained primitives, inline structures), by structure. */
  readonly shapes: ReadonlyMap<string, JsonType>;
  /** Items of admitted arrays, when they are typed. */
  readonly items?: Domain;
  /** Values of admitted maps. */
  readonly mapValues?: Domain;
}

const EMPTY: Domain = { any: false, types: new Set(), values: new Map(), named: new Set(), shapes: new Map() };
const ANY: Domain = { ...EMPTY, any: true };

export function domainOf(nodes: readonly Node[], ctx: ModelContext): Domain {
  return nodes.map((n) => domain(n, ctx, new Set())).reduce(unite, EMPTY);
}

function domain(node: Node, ctx: ModelContext, seen: ReadonlySet<string>): Domain {
  switch (node.kind) {
    case "unknown":
      return ANY;
    case "never":
      return EMPTY;
    case "primitive":
      if (!node.string && !node.number) return { ...EMPTY, types: new Set([node.type]) };
      return { ...EMPTY, shapes: new Map([[structureKey(node), node.type]]) };
    case "literal":
      return { ...EMPTY, values: new Map(node.values.map((v) => [canonicalJson(v), v])) };
    case "array": {
      const items = node.items ? domain(node.items, ctx, seen) : ANY;
      if (node.prefixItems.length || node.contains || node.minItems !== undefined || node.maxItems !== undefined || node.uniqueItems) {
        return { ...EMPTY, shapes: new Map([[structureKey(node), "array"]]) };
      }
      return { ...EMPTY, types: new Set(items.any ? ["array"] : []), ...(items.any ? {} : { items }) };
    }
    case "map": {
      const values = domain(node.values, ctx, seen);
      if (node.keys || node.minProperties !== undefined || node.maxProperties !== undefined) {
        return { ...EMPTY, shapes: new Map([[structureKey(node), "object"]]) };
      }
      return { ...EMPTY, types: new Set(values.any ? ["object"] : []), ...(values.any ? {} : { mapValues: values }) };
    }
    case "union":
      return node.variants.map((v) => domain(v, ctx, seen)).reduce(unite, EMPTY);
    case "ref": {
      const next = enterRef(node, ctx.model.byId, seen);
      if (!next) return ANY;
      // Value-like definitions (enums, aliases of primitives) count by their values; objects by name.
      if (isValueLike(next.definition.node, ctx, next.seen)) return domain(next.definition.node, ctx, next.seen);
      return { ...EMPTY, named: new Set([next.definition.name]) };
    }
    default:
      return { ...EMPTY, shapes: new Map([[structureKey(node), "object"]]) };
  }
}

function isValueLike(node: Node, ctx: ModelContext, seen: ReadonlySet<string>): boolean {
  switch (node.kind) {
    case "primitive":
    case "literal":
    case "unknown":
      return true;
    case "union":
      return node.variants.every((v) => isValueLike(v, ctx, seen));
    case "ref": {
      const next = enterRef(node, ctx.model.byId, seen);
      return next ? isValueLike(next.definition.node, ctx, next.seen) : false;
    }
    default:
      return false;
  }
}

function unite(a: Domain, b: Domain): Domain {
  if (a.any || b.any) return ANY;
  const items = a.items && b.items ? unite(a.items, b.items) : (a.items ?? b.items);
  const mapValues = a.mapValues && b.mapValues ? unite(a.mapValues, b.mapValues) : (a.mapValues ?? b.mapValues);
  return {
    any: false,
    types: new Set([...a.types, ...b.types]),
    values: new Map([...a.values, ...b.values]),
    named: new Set([...a.named, ...b.named]),
    shapes: new Map([...a.shapes, ...b.shapes]),
    ...(items ? { items } : {}),
    ...(mapValues ? { mapValues } : {}),
  };
}

/** Whether every value `a` admits, `b` admits too (coarse, never claims it wrongly for plain types). */
export function within(a: Domain, b: Domain): boolean {
  if (b.any) return true;
  if (a.any) return false;
  const hasType = (t: JsonType) => b.types.has(t) || (t === "integer" && b.types.has("number"));
  for (const t of a.types) {
    if (t === "array" && !b.types.has("array")) return false;
    if (t === "object" && !b.types.has("object")) return false;
    if (!hasType(t)) return false;
  }
  for (const v of a.values.values()) {
    if (b.values.has(canonicalJson(v))) continue;
    if (!jsonTypesOfValue(v).some(hasType)) return false;
  }
  for (const name of a.named) if (!b.named.has(name) && !b.types.has("object")) return false;
  for (const [key, base] of a.shapes) if (!b.shapes.has(key) && !hasType(base)) return false;
  if (a.items && !b.types.has("array") && !(b.items && within(a.items, b.items))) return false;
  if (a.mapValues && !b.types.has("object") && !(b.mapValues && within(a.mapValues, b.mapValues))) return false;
  return true;
}

export type TypeChange = "same" | "narrowed" | "widened" | "changed";

export function compareDomains(before: Domain, after: Domain): TypeChange {
  const narrower = within(after, before);
  const wider = within(before, after);
  if (narrower && wider) return "same";
  if (narrower) return "narrowed";
  if (wider) return "widened";
  return "changed";
}

// ---------------------------------------------------------------------------------------------
// Outlines: a short rendering for messages (`{ _meta?; task }`, `Result & Task`, `"a" | "b"`)
// ---------------------------------------------------------------------------------------------

export function outline(node: Node, ctx: ModelContext, top = true): string {
  switch (node.kind) {
    case "unknown":
    case "never":
      return node.kind;
    case "primitive":
      return node.type;
    case "literal": {
      const shown = node.values.slice(0, 6).map((v) => JSON.stringify(v));
      return node.values.length > 6 ? `${shown.join(" | ")} | ...` : shown.join(" | ");
    }
    case "ref":
      return nameOf(node, ctx) ?? "?";
    case "object": {
      if (!top) return "{...}";
      const names = node.properties.map((p) => `${p.name}${p.required ? "" : "?"}`);
      return names.length === 0 ? "{}" : `{ ${(names.length > 8 ? [...names.slice(0, 8), "..."] : names).join("; ")} }`;
    }
    case "map":
      return `{ [key: string]: ${outline(node.values, ctx, false)} }`;
    case "array":
      return `${node.items ? wrap(outline(node.items, ctx, false)) : "unknown"}[]`;
    case "union":
      return node.variants.map((v) => wrap(outline(v, ctx, false))).join(" | ");
    case "intersection":
      return node.parts.map((p) => wrap(outline(p, ctx, top))).join(" & ");
    default:
      return node.kind;
  }
}

function wrap(text: string): string {
  return / [|&] /.test(text) && !text.startsWith("{") ? `(${text})` : text;
}

/** The top-level form of a definition: what kind of declaration it generates. */
export function formOf(node: Node): string {
  switch (node.kind) {
    case "literal":
      return "enum";
    case "primitive":
      return "primitive";
    default:
      return node.kind;
  }
}
