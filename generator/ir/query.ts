/**
 * Questions every stage asks of the IR, answered once: which definition a `$ref` or a name
 * stands for, which JSON types a node's values can have and how to say them, which object a
 * node describes. Lint, analyze, diff and the emitters ask these; none of them should answer
 * them again. Each recursive query follows `$ref`s into the definitions it is given and stops
 * at a reference it has already followed on the way down (a cycle), where it makes no claim.
 */
import type { Definition, DefinitionId, JsonValue, Node, ObjectNode, PrimitiveNode, RefNode } from "./nodes.js";
import { canonicalJson } from "./structure.js";

/** The definitions queries follow `$ref`s into, by id (a model's `byId`, or a map of lowered definitions). */
export type DefinitionsById<D extends Definition = Definition> = ReadonlyMap<DefinitionId, D>;

/** For the `default` of a `switch (node.kind)` that lists every kind: adding a kind fails to compile there. */
export function unexpectedNode(node: never): never {
  throw new Error(`unexpected IR node kind ${JSON.stringify((node as { kind?: unknown }).kind)}`);
}

// ---------------------------------------------------------------------------------------------
// Definitions: by id, by name, behind a `$ref`
// ---------------------------------------------------------------------------------------------

export function definitionsById<D extends Definition>(definitions: readonly D[]): Map<DefinitionId, D> {
  return new Map(definitions.map((d) => [d.id, d]));
}

const byNameCache = new WeakMap<readonly { readonly name: string }[], ReadonlyMap<string, { readonly name: string }>>();

/**
 * The definition a set declares under a TypeScript name (after naming: `NamedDefinition`s).
 * The index is built once per definitions array.
 */
export function definitionByName<D extends { readonly name: string }>(definitions: readonly D[], name: string): D | undefined {
  let index = byNameCache.get(definitions);
  if (!index) {
    index = new Map(definitions.map((d) => [d.name, d]));
    byNameCache.set(definitions, index);
  }
  return index.get(name) as D | undefined;
}

/** The definition a `$ref` node points at; undefined for any other node, or a target not among `definitions`. */
export function refTarget<D extends Definition>(node: Node, definitions: DefinitionsById<D>): D | undefined {
  return node.kind === "ref" ? definitions.get(node.target) : undefined;
}

/**
 * Steps through one `$ref` inside a recursive query: the definition and the references followed
 * so far, or undefined when the target is unknown or already on the way (a cycle).
 */
export function enterRef<D extends Definition>(
  node: RefNode,
  definitions: DefinitionsById<D>,
  seen: ReadonlySet<DefinitionId>,
): { readonly definition: D; readonly seen: ReadonlySet<DefinitionId> } | undefined {
  const definition = definitions.get(node.target);
  if (!definition || seen.has(node.target)) return undefined;
  return { definition, seen: new Set([...seen, node.target]) };
}

/**
 * The node a chain of `$ref`s ends at (the node itself when it is not a reference). A reference
 * whose target is unknown, or that closes a cycle, is returned as it is.
 */
export function followRefs(node: Node, definitions: DefinitionsById): Node {
  const seen = new Set<DefinitionId>();
  let current = node;
  while (current.kind === "ref" && !seen.has(current.target)) {
    seen.add(current.target);
    const definition = definitions.get(current.target);
    if (!definition) break;
    current = definition.node;
  }
  return current;
}

// ---------------------------------------------------------------------------------------------
// JSON types
// ---------------------------------------------------------------------------------------------

/** The JSON types, as the `type` keyword names them, in the order messages list them. */
export const JSON_TYPES = ["string", "number", "integer", "boolean", "null", "object", "array"] as const;
export type JsonType = (typeof JSON_TYPES)[number];
export const ALL_JSON_TYPES: ReadonlySet<JsonType> = new Set(JSON_TYPES);

/**
 * The JSON types a value that passes `node` can have, or undefined when the node makes no claim
 * (`unknown`, `not`, `if`/`then`/`else`, a `$ref` cycle or an unknown target).
 *
 * The one rule: the answer may be too wide, never too narrow. A type left out has no value that
 * passes; a type in the set may have one. Numbers are split in two: `integer` stands for the
 * integral numbers and `number` for the rest, so `type: "number"` gives both, `type: "integer"`
 * only `integer`, and the two meet in `integer` (a `const` 3 gives both too: wider, still sound).
 * A union takes every variant's types (in variant order); an intersection keeps the types every
 * part that makes a claim shares (in JSON_TYPES order); a part with no claim narrows nothing.
 */
export function jsonTypes(node: Node, definitions: DefinitionsById, seen: ReadonlySet<DefinitionId> = new Set()): ReadonlySet<JsonType> | undefined {
  switch (node.kind) {
    case "never":
      return new Set();
    case "primitive":
      return new Set(node.type === "number" ? ["number", "integer"] : [node.type]);
    case "literal":
      return new Set(node.values.flatMap(jsonTypesOfValue));
    case "object":
    case "map":
      return new Set(["object"]);
    case "array":
      return new Set(["array"]);
    case "union": {
      const all = new Set<JsonType>();
      for (const variant of node.variants) {
        const types = jsonTypes(variant, definitions, seen);
        if (!types) return undefined;
        types.forEach((t) => all.add(t));
      }
      return all;
    }
    case "intersection": {
      const claims = node.parts.map((p) => jsonTypes(p, definitions, seen)).filter((t): t is ReadonlySet<JsonType> => t !== undefined);
      return claims.length === 0 ? undefined : claims.reduce((a, b) => intersectTypes(a, b), ALL_JSON_TYPES);
    }
    case "ref": {
      const next = enterRef(node, definitions, seen);
      return next ? jsonTypes(next.definition.node, definitions, next.seen) : undefined;
    }
    case "unevaluated":
      // unevaluated* only narrow what the schema's other keywords accept.
      return jsonTypes(node.node, definitions, seen);
    case "unknown":
    case "not":
    case "conditional":
      return undefined;
    default:
      return unexpectedNode(node);
  }
}

/**
 * Whether some value that `type: <type>` accepts may pass `node` (true when the node makes no
 * claim). As the keyword means it, `number` asks for any number, integers included.
 */
export function mayHaveType(node: Node, type: JsonType, definitions: DefinitionsById, seen: ReadonlySet<DefinitionId> = new Set()): boolean {
  const types = jsonTypes(node, definitions, seen);
  if (!types) return true;
  return type === "number" ? types.has("number") || types.has("integer") : types.has(type);
}

/** The JSON types of one value, by the rule of jsonTypes (an integral number is both `number` and `integer`). */
export function jsonTypesOfValue(value: JsonValue): JsonType[] {
  if (value === null) return ["null"];
  if (Array.isArray(value)) return ["array"];
  switch (typeof value) {
    case "number":
      return Number.isInteger(value) ? ["number", "integer"] : ["number"];
    case "string":
      return ["string"];
    case "boolean":
      return ["boolean"];
    default:
      return ["object"];
  }
}

/** The types both sets hold, in the order of `a`. */
export function intersectTypes(a: ReadonlySet<JsonType>, b: ReadonlySet<JsonType>): Set<JsonType> {
  return new Set([...a].filter((t) => b.has(t)));
}

/**
 * The types as JavaScript tells values apart at run time (`typeof`, `Array.isArray`, `=== null`):
 * `integer` folds into `number`, since no `typeof` separates them. Generated guards and
 * "do these variants take different types?" ask this, not jsonTypes: `type: "integer"` and a
 * `const` 1.5 share no JSON type, yet one `typeof value === "number"` test admits both.
 */
export function runtimeTypes(types: ReadonlySet<JsonType>): Set<Exclude<JsonType, "integer">> {
  return new Set([...types].map((t) => (t === "integer" ? "number" : t)));
}

/** Whether some value could pass a `typeof`-level guard of both sets (see runtimeTypes). */
export function runtimeTypesOverlap(a: ReadonlySet<JsonType>, b: ReadonlySet<JsonType>): boolean {
  const wide = runtimeTypes(b);
  return [...runtimeTypes(a)].some((t) => wide.has(t));
}

/**
 * A type set in words, in one of two forms: `union` for lint messages (`string | number`) and
 * `prose` for runtime errors (`a string or a number`). Both show the same types: `integer` is
 * left out when `number` is there (a number already covers it); an empty set is `nothing`.
 */
export function describeTypes(types: ReadonlySet<JsonType>, form: "union" | "prose" = "union"): string {
  const shown = types.has("number") ? [...types].filter((t) => t !== "integer") : [...types];
  if (shown.length === 0) return "nothing";
  if (form === "union") return shown.join(" | ");
  const names = shown.map((t) => (t === "null" ? "null" : t === "array" ? "an array" : t === "object" ? "an object" : t === "integer" ? "an integer" : `a ${t}`));
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

/**
 * Whether `value` may pass `node`: false only when the node certainly rejects it by a check that
 * reads the value alone (its type, a constant, string length and pattern, number bounds); true
 * when the node makes no such claim. `multipleOf` is left out: in floating point 0.3 / 0.1 is not
 * an integer, and a "certainly" must not guess.
 */
export function mayAcceptValue(node: Node, value: JsonValue, definitions: DefinitionsById, seen: ReadonlySet<DefinitionId> = new Set()): boolean {
  switch (node.kind) {
    case "never":
      return false;
    case "primitive":
      return primitiveAccepts(node, value);
    case "literal":
      return node.values.some((v) => canonicalJson(v) === canonicalJson(value));
    case "object":
    case "map":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    case "array":
      return Array.isArray(value);
    case "union":
      return node.variants.some((v) => mayAcceptValue(v, value, definitions, seen));
    case "intersection":
      return node.parts.every((p) => mayAcceptValue(p, value, definitions, seen));
    case "ref": {
      const next = enterRef(node, definitions, seen);
      return next ? mayAcceptValue(next.definition.node, value, definitions, next.seen) : true;
    }
    case "unevaluated":
      return mayAcceptValue(node.node, value, definitions, seen);
    case "unknown":
    case "not":
    case "conditional":
      return true;
    default:
      return unexpectedNode(node);
  }
}

function primitiveAccepts(node: PrimitiveNode, value: JsonValue): boolean {
  switch (node.type) {
    case "null":
      return value === null;
    case "boolean":
      return typeof value === "boolean";
    case "string": {
      if (typeof value !== "string") return false;
      const length = [...value].length;
      const s = node.string;
      if (s?.minLength !== undefined && length < s.minLength) return false;
      if (s?.maxLength !== undefined && length > s.maxLength) return false;
      if (s?.pattern !== undefined && !new RegExp(s.pattern, "u").test(value)) return false;
      return true;
    }
    case "number":
    case "integer": {
      if (typeof value !== "number") return false;
      if (node.type === "integer" && !Number.isInteger(value)) return false;
      const n = node.number;
      if (n?.minimum !== undefined && value < n.minimum) return false;
      if (n?.maximum !== undefined && value > n.maximum) return false;
      if (n?.exclusiveMinimum !== undefined && value <= n.exclusiveMinimum) return false;
      if (n?.exclusiveMaximum !== undefined && value >= n.exclusiveMaximum) return false;
      return true;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------------

/** The object node a node is, through `$ref`s only (not through `allOf`/`anyOf`: see objectView). */
export function objectOf(node: Node, definitions: DefinitionsById): ObjectNode | undefined {
  const target = followRefs(node, definitions);
  return target.kind === "object" ? target : undefined;
}

export interface PropertyView {
  readonly name: string;
  /** The schemas the property has (one per branch that declares it). */
  readonly nodes: readonly Node[];
  readonly required: boolean;
  /** Declared by only some variants of a union (then it counts as optional). */
  readonly partial: boolean;
  /** Its schemas come from several `allOf` branches and all hold (otherwise they are a union's alternatives, or one). */
  readonly all?: boolean;
}

export interface ObjectView {
  readonly properties: ReadonlyMap<string, PropertyView>;
  /** Whether properties it does not declare are rejected. */
  readonly closed: boolean;
}

/**
 * A node read as one object with properties, through `$ref`s, intersections (their properties
 * together) and unions of objects (a property some variants lack is `partial` and optional);
 * undefined when some part is not object-shaped. `allOf` says how an intersection closes: as JSON
 * Schema reads it, one closed part rejects what it does not declare; merged (the TypeScript
 * intersection), only when every part is closed.
 */
export function objectView(
  node: Node,
  definitions: DefinitionsById,
  allOf: "json-schema" | "merged",
  seen: ReadonlySet<DefinitionId> = new Set(),
): ObjectView | undefined {
  switch (node.kind) {
    case "object":
      return {
        properties: new Map([
          ...node.properties.map((p): [string, PropertyView] => [p.name, { name: p.name, nodes: [p.node], required: p.required, partial: false }]),
          // Required without a schema here (`required: ["params"]` beside an envelope that declares it): any value, but required.
          ...node.requiredOnly.map((name): [string, PropertyView] => [name, { name, nodes: [{ kind: "unknown", loc: node.loc }], required: true, partial: false }]),
        ]),
        closed: node.additional?.kind === "never",
      };
    case "ref": {
      const next = enterRef(node, definitions, seen);
      return next ? objectView(next.definition.node, definitions, allOf, next.seen) : undefined;
    }
    case "intersection": {
      // A part that accepts every object (`{ "type": "object", "additionalProperties": {} }`) adds nothing to the view.
      const narrowing = node.parts.filter((p) => !acceptsEveryObject(p, definitions, seen));
      if (narrowing.length === 0) return undefined;
      const views = narrowing.map((p) => objectView(p, definitions, allOf, seen));
      if (views.some((v) => v === undefined)) return undefined;
      const all = views as ObjectView[];
      const properties = new Map<string, PropertyView>();
      for (const view of all) {
        for (const p of view.properties.values()) {
          const known = properties.get(p.name);
          properties.set(
            p.name,
            known
              ? { name: p.name, nodes: [...known.nodes, ...p.nodes], required: known.required || p.required, partial: known.partial && p.partial, all: true }
              : p,
          );
        }
      }
      const closed = allOf === "merged" ? all.every((v) => v.closed) : all.some((v) => v.closed);
      return { properties, closed };
    }
    case "union": {
      const views = node.variants.map((v) => objectView(v, definitions, allOf, seen));
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
    case "unknown":
    case "never":
    case "primitive":
    case "literal":
    case "map":
    case "array":
    case "not":
    case "conditional":
    case "unevaluated":
      return undefined;
    default:
      return unexpectedNode(node);
  }
}

/**
 * A node read as one object through `$ref`s and `allOf` only (properties merged, `required`
 * united), as a message or a task is written in every layout: a plain object, or an intersection
 * of an envelope, a base and its own part, each inlined or referenced. Undefined when the node is
 * a union or some part is not object-shaped (see objectView for unions of objects).
 */
export function intersectionView(node: Node, definitions: DefinitionsById, seen: ReadonlySet<DefinitionId> = new Set()): ObjectView | undefined {
  switch (node.kind) {
    case "ref": {
      const next = enterRef(node, definitions, seen);
      return next ? intersectionView(next.definition.node, definitions, next.seen) : undefined;
    }
    case "intersection": {
      const narrowing = node.parts.filter((part) => !acceptsEveryObject(part, definitions, seen));
      return narrowing.every((part) => intersectionView(part, definitions, seen) !== undefined) ? objectView(node, definitions, "json-schema", seen) : undefined;
    }
    case "object":
      return objectView(node, definitions, "json-schema", seen);
    default:
      return undefined;
  }
}

/** A property of an object view as one node: itself when one branch declares it, else the intersection of its schemas. */
export function propertyNode(property: PropertyView): Node {
  return property.nodes.length === 1 ? property.nodes[0]! : { kind: "intersection", parts: property.nodes, loc: property.nodes[0]!.loc };
}

/**
 * The values a node allows when they are a finite set (`const`, `enum`, a union of those, an
 * intersection where one part lists them and the others may accept them), in the order listed;
 * undefined when the node allows values it does not list (`type: "string"` alone).
 */
export function constantValues(node: Node, definitions: DefinitionsById, seen: ReadonlySet<DefinitionId> = new Set()): readonly JsonValue[] | undefined {
  switch (node.kind) {
    case "literal":
      return node.values;
    case "never":
      return [];
    case "ref": {
      const next = enterRef(node, definitions, seen);
      return next ? constantValues(next.definition.node, definitions, next.seen) : undefined;
    }
    case "intersection": {
      const listed = node.parts.map((part) => constantValues(part, definitions, seen)).find((values) => values !== undefined);
      return listed?.filter((value) => node.parts.every((part) => mayAcceptValue(part, value, definitions, seen)));
    }
    case "union": {
      const all: JsonValue[] = [];
      for (const variant of node.variants) {
        const values = constantValues(variant, definitions, seen);
        if (!values) return undefined;
        for (const value of values) if (!all.some((known) => canonicalJson(known) === canonicalJson(value))) all.push(value);
      }
      return all;
    }
    default:
      return undefined;
  }
}

/** The one string a node allows (`"method": { "const": "tasks/get" }`, through `$ref`s and `allOf`), if it allows exactly one. */
export function singleString(node: Node, definitions: DefinitionsById): string | undefined {
  const values = constantValues(node, definitions);
  return values?.length === 1 && typeof values[0] === "string" ? values[0] : undefined;
}

/**
 * Whether a node accepts every JSON object, whatever its properties (`{}`, `{ "type": "object" }`,
 * `additionalProperties: {}`): a part of an intersection that narrows nothing for objects, such as
 * the `params` of a JSON-RPC envelope beside a request's own.
 */
export function acceptsEveryObject(node: Node, definitions: DefinitionsById, seen: ReadonlySet<DefinitionId> = new Set()): boolean {
  switch (node.kind) {
    case "unknown":
      return true;
    case "map":
      return node.values.kind === "unknown" && node.keys === undefined && node.minProperties === undefined && node.maxProperties === undefined;
    case "object":
      return (
        node.properties.length === 0 &&
        node.requiredOnly.length === 0 &&
        node.patternProperties.length === 0 &&
        (node.additional === undefined || node.additional.kind === "unknown") &&
        node.propertyNames === undefined &&
        node.minProperties === undefined &&
        node.maxProperties === undefined &&
        node.dependentRequired.length === 0 &&
        node.dependentSchemas.length === 0
      );
    case "ref": {
      const next = enterRef(node, definitions, seen);
      return next ? acceptsEveryObject(next.definition.node, definitions, next.seen) : false;
    }
    case "intersection":
      return node.parts.every((part) => acceptsEveryObject(part, definitions, seen));
    default:
      return false;
  }
}

/**
 * The named definition a property stands for, when one branch names it and every other branch
 * accepts any object (an envelope's generic `params` beside a request's `GetTaskRequestParams`).
 */
export function namedPropertyTarget<D extends Definition>(property: PropertyView, definitions: DefinitionsById<D>): D | undefined {
  const narrowing = property.nodes.filter((node) => !acceptsEveryObject(node, definitions));
  return narrowing.length === 1 ? refTarget(narrowing[0]!, definitions) : undefined;
}

/** Whether a node is, or is built by `allOf` on, a reference to the given definition (`GetTaskResult` = `Result & DetailedTask`). */
export function buildsOn(node: Node, target: DefinitionId, definitions: DefinitionsById, seen: ReadonlySet<DefinitionId> = new Set()): boolean {
  if (node.kind === "intersection") return node.parts.some((part) => buildsOn(part, target, definitions, seen));
  if (node.kind !== "ref") return false;
  if (node.target === target) return true;
  const next = enterRef(node, definitions, seen);
  return next ? buildsOn(next.definition.node, target, definitions, next.seen) : false;
}

/**
 * Whether a schema rejects every object that has the property `key`, whatever its value: a
 * closed object without it, an intersection with such a part, a union all of whose variants do.
 */
export function rejectsKey(node: Node, key: string, byId: DefinitionsById, seen: ReadonlySet<DefinitionId> = new Set()): boolean {
  switch (node.kind) {
    case "ref": {
      const entered = enterRef(node, byId, seen);
      return entered ? rejectsKey(entered.definition.node, key, byId, entered.seen) : false;
    }
    case "object":
      return closedWithout(node, key);
    case "map":
      return node.values.kind === "never";
    case "never":
      return true;
    case "intersection":
      return node.parts.some((part) => rejectsKey(part, key, byId, seen));
    case "union":
      return node.variants.every((variant) => rejectsKey(variant, key, byId, seen));
    default:
      return false;
  }
}

function closedWithout(object: ObjectNode, key: string): boolean {
  if (object.properties.some((p) => p.name === key)) return false;
  if (object.patternProperties.some((p) => new RegExp(p.pattern, "u").test(key))) return false;
  return object.additional?.kind === "never";
}
