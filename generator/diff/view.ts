/**
 * How the diff reads a model: a definition as an object with properties (looking through
 * `$ref`s, intersections and unions of objects), a type as the set of values it admits (a
 * "domain", compared for narrowing and widening), and a one-line outline for messages.
 */
import type { AllOfMode } from "../config/config.js";
import type { Model } from "../analyze/model.js";
import type { NamedDefinition } from "../analyze/naming.js";
import type { JsonValue, Node } from "../ir/nodes.js";
import { canonicalJson, structureKey } from "../ir/structure.js";

export interface ModelContext {
  readonly model: Model;
  readonly byName: ReadonlyMap<string, NamedDefinition>;
  readonly allOf: AllOfMode;
}

export function contextOf(model: Model, allOf: AllOfMode): ModelContext {
  return { model, byName: new Map(model.definitions.map((d) => [d.name, d])), allOf };
}

export function nameOf(node: Node, ctx: ModelContext): string | undefined {
  return node.kind === "ref" ? ctx.model.byId.get(node.target)?.name : undefined;
}

function target(node: Node, ctx: ModelContext): NamedDefinition | undefined {
  return node.kind === "ref" ? ctx.model.byId.get(node.target) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------------

export interface PropertyView {
  readonly name: string;
  /** The schemas the property has (one per union variant that declares it). */
  readonly nodes: readonly Node[];
  readonly required: boolean;
  /** Declared by only some variants of a union (then it counts as optional). */
  readonly partial: boolean;
}

export interface ObjectView {
  readonly properties: ReadonlyMap<string, PropertyView>;
  /** Whether properties it does not declare are rejected. */
  readonly closed: boolean;
}

/** A node read as one object, or undefined when it is not object-shaped. */
export function objectView(node: Node, ctx: ModelContext, seen: ReadonlySet<string> = new Set()): ObjectView | undefined {
  switch (node.kind) {
    case "object":
      return {
        properties: new Map(node.properties.map((p) => [p.name, { name: p.name, nodes: [p.node], required: p.required, partial: false }])),
        closed: node.additional?.kind === "never",
      };
    case "ref": {
      const def = target(node, ctx);
      if (!def || seen.has(def.id)) return undefined;
      return objectView(def.node, ctx, new Set([...seen, def.id]));
    }
    case "intersection": {
      const views = node.parts.map((p) => objectView(p, ctx, seen));
      if (views.some((v) => v === undefined)) return undefined;
      const all = views as ObjectView[];
      const properties = new Map<string, PropertyView>();
      for (const view of all) {
        for (const p of view.properties.values()) {
          const known = properties.get(p.name);
          properties.set(
            p.name,
            known
              ? { name: p.name, nodes: [...known.nodes, ...p.nodes], required: known.required || p.required, partial: known.partial && p.partial }
              : p,
          );
        }
      }
      // JSON Schema: one closed branch rejects what it does not declare. Merged: only when all are closed.
      const closed = ctx.allOf === "merged" ? all.every((v) => v.closed) : all.some((v) => v.closed);
      return { properties, closed };
    }
    case "union": {
      const views = node.variants.map((v) => objectView(v, ctx, seen));
      if (views.length === 0 || views.some((v) => v === undefined)) return undefined;
      const all = views as ObjectView[];
      const names = [...new Set(all.flatMap((v) => [...v.properties.keys()]))];
      const properties = new Map<string, PropertyView>();
      for (const name of names) {
        const entries = all.map((v) => v.properties.get(name));
        const present = entries.filter((e): e is PropertyView => e !== undefined);
        const partial = present.length < all.length;
        properties.set(name, { name, nodes: present.flatMap((e) => e.nodes), required: !partial && present.every((e) => e.required), partial });
      }
      return { properties, closed: all.every((v) => v.closed) };
    }
    default:
      return undefined;
  }
}

/** The named variants of a union definition (looking through refs and intersections), in order. */
export function variantNames(node: Node, ctx: ModelContext, seen: ReadonlySet<string> = new Set()): string[] | undefined {
  switch (node.kind) {
    case "union": {
      const names = node.variants.map((v) => nameOf(v, ctx));
      return names.every((n): n is string => n !== undefined) ? names : undefined;
    }
    case "ref": {
      const def = target(node, ctx);
      if (!def || seen.has(def.id)) return undefined;
      return variantNames(def.node, ctx, new Set([...seen, def.id]));
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
      const def = target(node, ctx);
      if (!def || seen.has(def.id)) return undefined;
      return discriminatorOf(def.node, ctx, new Set([...seen, def.id]));
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

type BaseType = "string" | "number" | "integer" | "boolean" | "null" | "object" | "array";

export interface Domain {
  readonly any: boolean;
  /** JSON types admitted whole. */
  readonly types: ReadonlySet<BaseType>;
  /** Single values admitted (constants), by canonical JSON. */
  readonly values: ReadonlyMap<string, JsonValue>;
  /** Named object-like definitions admitted. */
  readonly named: ReadonlySet<string>;
  /** Anything else (constrained primitives, inline structures), by structure. */
  readonly shapes: ReadonlyMap<string, BaseType>;
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
      const def = target(node, ctx);
      if (!def || seen.has(def.id)) return ANY;
      // Value-like definitions (enums, aliases of primitives) count by their values; objects by name.
      if (isValueLike(def.node, ctx, new Set([...seen, def.id]))) return domain(def.node, ctx, new Set([...seen, def.id]));
      return { ...EMPTY, named: new Set([def.name]) };
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
      const def = target(node, ctx);
      if (!def || seen.has(def.id)) return false;
      return isValueLike(def.node, ctx, new Set([...seen, def.id]));
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
  const hasType = (t: BaseType) => b.types.has(t) || (t === "integer" && b.types.has("number"));
  for (const t of a.types) {
    if (t === "array" && !b.types.has("array")) return false;
    if (t === "object" && !b.types.has("object")) return false;
    if (!hasType(t)) return false;
  }
  for (const v of a.values.values()) {
    if (b.values.has(canonicalJson(v))) continue;
    if (!valueTypes(v).some(hasType)) return false;
  }
  for (const name of a.named) if (!b.named.has(name) && !b.types.has("object")) return false;
  for (const [key, base] of a.shapes) if (!b.shapes.has(key) && !hasType(base)) return false;
  if (a.items && !b.types.has("array") && !(b.items && within(a.items, b.items))) return false;
  if (a.mapValues && !b.types.has("object") && !(b.mapValues && within(a.mapValues, b.mapValues))) return false;
  return true;
}

function valueTypes(value: JsonValue): BaseType[] {
  if (value === null) return ["null"];
  if (Array.isArray(value)) return ["array"];
  if (typeof value === "number") return Number.isInteger(value) ? ["integer", "number"] : ["number"];
  if (typeof value === "object") return ["object"];
  return [typeof value as BaseType];
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
