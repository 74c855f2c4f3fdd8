/**
 * Values to test validators on, built from a JSON Schema with fast-check: "valid-ish" values
 * (built from the schema's keywords: mostly valid, which keeps agreements with an oracle from being
 * trivially "both reject"), mutations of those (a dropped key, a wrong type, an extra key, another
 * constant, a random subtree), and arbitrary JSON. Shared by the differential test of the bundled
 * sets and the schema oracle (test/support/schema-oracle.ts).
 */
import fc from "fast-check";

export type SchemaObject = { readonly [key: string]: unknown };
export type Schema = boolean | SchemaObject;

/** Every document a `$ref` can reach, by URI. */
export interface SchemaDocuments {
  readonly documents: ReadonlyMap<string, SchemaObject>;
}

/** A schema's surroundings: the documents and the base URI its `$ref`s resolve against. */
export interface Place {
  readonly set: SchemaDocuments;
  readonly baseUri: string;
}

const MAX_DEPTH = 8;
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2 });
// Keys that trip up `in`/property-access based code, next to ordinary random ones.
const trickyKey = fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "", "extra", "a/b~c", 'q"uote', "line\nbreak", "*/", "\u2028");
const mapKey = fc.oneof({ weight: 4, arbitrary: fc.string({ maxLength: 6 }) }, { weight: 1, arbitrary: trickyKey });

export const escapeToken = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

function resolveRef(ref: string, place: Place): { schema: Schema; place: Place } {
  const hash = ref.indexOf("#");
  const uriPart = hash < 0 ? ref : ref.slice(0, hash);
  const pointer = hash < 0 ? "" : ref.slice(hash + 1);
  const uri = uriPart === "" ? place.baseUri : new URL(uriPart, place.baseUri).href;
  const doc = place.set.documents.get(uri);
  if (!doc) throw new Error(`test generator: cannot resolve $ref ${ref} from ${place.baseUri}`);
  return { schema: atPointer(doc, decodeURIComponent(pointer)) as Schema, place: { set: place.set, baseUri: uri } };
}

/** The value at a JSON pointer (own keys only: `constructor` is not a property of `{}` here). */
export function atPointer(doc: unknown, pointer: string): unknown {
  if (pointer === "") return doc;
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((node, token) => {
      if (node === null || typeof node !== "object" || !Object.prototype.hasOwnProperty.call(node, token)) throw new Error(`test generator: no ${pointer}`);
      return (node as Record<string, unknown>)[token];
    }, doc);
}

/** A schema no value satisfies (`false`, `{ not: {} }`): containers leave such keys out. */
function isUnsatisfiable(schema: unknown): boolean {
  if (schema === false) return true;
  if (schema === null || typeof schema !== "object") return false;
  const not = (schema as SchemaObject).not;
  return not === true || (typeof not === "object" && not !== null && Object.keys(not).length === 0);
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Joins the values of schemas that all apply to one place (`allOf`, `$ref`, a chosen branch). */
function mergeParts(parts: unknown[]): unknown {
  if (parts.every(isPlainObject)) return assignOwn({}, ...parts);
  // A scalar part (a const, a typed primitive) is the most specific; keep the last one.
  return parts[parts.length - 1];
}

/**
 * Arbitraries already built, by schema object, place and depth: a schema reached along many paths
 * (a content block under every message of a sampling request) is built once per depth, not once per
 * path, which grew exponentially with the depth for the 2026-08-21 revision's core definitions.
 */
const built = new WeakMap<object, Map<string, fc.Arbitrary<unknown>>>();

/** Mostly valid values of a schema (see the module comment). */
export function validish(schema: Schema, place: Place, depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return anyJson;
  if (depth > MAX_DEPTH) return smallest(schema, place, 0);
  const byPlace = built.get(schema) ?? new Map<string, fc.Arbitrary<unknown>>();
  built.set(schema, byPlace);
  const key = `${place.baseUri} ${depth}`;
  const known = byPlace.get(key);
  if (known) return known;
  const arbitrary = buildValidish(schema, place, depth);
  byPlace.set(key, arbitrary);
  return arbitrary;
}

/**
 * The least value a schema deeper than MAX_DEPTH asks for: its constant, its type's emptiest value and
 * its required properties (the same way down, `$ref`s followed). Any JSON there would make most values
 * invalid wherever the depth runs out inside a big definition (a core request's `_meta` client
 * capabilities, whose maps hold objects), so the valid-ish share would say nothing.
 */
function smallest(schema: Schema, place: Place, hops: number): fc.Arbitrary<unknown> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema) || hops > MAX_DEPTH) return anyJson;
  if (Object.prototype.hasOwnProperty.call(schema, "const")) return fc.constant(schema.const).map(cloneJson);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as unknown[])).map(cloneJson);
  if (typeof schema.$ref === "string") {
    const target = resolveRef(schema.$ref, place);
    return smallest(target.schema, target.place, hops + 1);
  }
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches && branches.length > 0) return fc.oneof(...branches.map((b) => smallest(b, place, hops + 1)));
  const type = ([] as unknown[]).concat(schema.type ?? (schema.properties ? "object" : []))[0];
  if (type === "array") return fc.constant(null).map(() => []);
  if (type !== "object") return typeof type === "string" ? typed(type, schema, place, MAX_DEPTH) : anyJson;
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const required = ((schema.required as string[] | undefined) ?? []).map((key) => [key, smallest(properties[key] ?? {}, place, hops + 1)] as const);
  return fc.tuple(...required.map(([, arb]) => arb)).map((values) => {
    const object: Record<string, unknown> = {};
    values.forEach((value, i) => setOwn(object, required[i]![0], value));
    return object;
  });
}

function buildValidish(schema: SchemaObject, place: Place, depth: number): fc.Arbitrary<unknown> {
  const parts: fc.Arbitrary<unknown>[] = [];
  const own = ownKeywords(schema, place, depth);
  if (own) parts.push(own);
  if (typeof schema.$ref === "string") {
    const target = resolveRef(schema.$ref, place);
    parts.push(validish(target.schema, target.place, depth + 1));
  }
  for (const sub of (schema.allOf as Schema[] | undefined) ?? []) parts.push(validish(sub, place, depth + 1));
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches && branches.length > 0) parts.push(fc.oneof(...branches.map((b) => validish(b, place, depth + 1))));
  if (parts.length === 0) return anyJson;
  if (parts.length === 1) return parts[0]!;
  const merged = fc.tuple(...parts).map(mergeParts);
  // A closed part (`additionalProperties: false`) rejects what its open siblings add, such as the
  // `_meta` of `Result` beside a closed Task. Mostly drop those keys, sometimes keep them.
  const allowed = closedKeys(schema, place);
  if (!allowed) return merged;
  return fc.tuple(merged, fc.nat(3)).map(([value, dice]) => (dice > 0 && isPlainObject(value) ? onlyKeys(value, allowed) : value));
}

/** The keys a schema admits when it is closed (also through `$ref`, `allOf` and every branch), else undefined. */
function closedKeys(schema: Schema, place: Place, depth = 0): Set<string> | undefined {
  if (typeof schema === "boolean" || depth > MAX_DEPTH) return undefined;
  const found: Set<string>[] = [];
  if (schema.additionalProperties === false) found.push(new Set(Object.keys((schema.properties as object | undefined) ?? {})));
  if (typeof schema.$ref === "string") {
    const target = resolveRef(schema.$ref, place);
    const keys = closedKeys(target.schema, target.place, depth + 1);
    if (keys) found.push(keys);
  }
  for (const sub of (schema.allOf as Schema[] | undefined) ?? []) {
    const keys = closedKeys(sub, place, depth + 1);
    if (keys) found.push(keys);
  }
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) {
    const each = branches.map((b) => closedKeys(b, place, depth + 1));
    if (each.every((keys) => keys !== undefined)) found.push(new Set(each.flatMap((keys) => [...keys!])));
  }
  if (found.length === 0) return undefined;
  return new Set([...found[0]!].filter((key) => found.every((keys) => keys.has(key))));
}

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (allowed.has(key)) setOwn(kept, key, v);
  return kept;
}

/** Values for a schema's own `const`/`enum`/`type` keywords, or undefined when it has none. */
function ownKeywords(schema: SchemaObject, place: Place, depth: number): fc.Arbitrary<unknown> | undefined {
  if (Object.prototype.hasOwnProperty.call(schema, "const")) return fc.constant(schema.const).map(cloneJson);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as unknown[])).map(cloneJson);
  let types = schema.type === undefined ? [] : ([] as string[]).concat(schema.type as string | string[]);
  if (types.length === 0 && (schema.properties || schema.additionalProperties !== undefined)) types = ["object"];
  if (types.length === 0 && schema.items !== undefined) types = ["array"];
  if (types.length === 0) return undefined;
  return fc.oneof(...types.map((type) => typed(type, schema, place, depth)));
}

function typed(type: string, schema: SchemaObject, place: Place, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "string": {
      // fast-check's default strings are ASCII, so their length is their length in code points.
      const min = typeof schema.minLength === "number" ? schema.minLength : 0;
      const max = typeof schema.maxLength === "number" ? schema.maxLength : Math.max(min, 10);
      return min <= max ? fc.string({ minLength: min, maxLength: max }) : fc.string({ maxLength: 10 });
    }
    case "integer":
      return integerWithin(schema);
    case "number":
      return fc.oneof(integerWithin(schema), fc.double({ ...boundsOf(schema), noNaN: true, noDefaultInfinity: true }));
    case "array": {
      const items = typeof schema.items === "object" && !Array.isArray(schema.items) ? validish(schema.items as Schema, place, depth + 1) : anyJson;
      return fc.array(items, { maxLength: 3 });
    }
    case "object":
      return objectOf(schema, place, depth);
    default:
      throw new Error(`test generator: unknown type ${type}`);
  }
}

/**
 * The schema's `minimum`/`maximum` as fast-check bounds. Numbers are drawn inside them, never filtered
 * into them: a filter over the whole range for `{ minimum: 0, maximum: 1 }` (an annotation's `priority`)
 * loops nearly forever once fast-check draws without bias, which hung the runs on the MCP core definitions.
 */
function boundsOf(schema: SchemaObject): { min?: number; max?: number } {
  // No number satisfies crossed bounds: draw from everywhere then (the validators must reject them all).
  if (typeof schema.minimum === "number" && typeof schema.maximum === "number" && schema.minimum > schema.maximum) return {};
  return {
    ...(typeof schema.minimum === "number" ? { min: schema.minimum } : {}),
    ...(typeof schema.maximum === "number" ? { max: schema.maximum } : {}),
  };
}

/** Small integers most of the time, the whole safe range sometimes, always inside the bounds. */
function integerWithin(schema: SchemaObject): fc.Arbitrary<number> {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = boundsOf(schema);
  const lo = Math.max(Math.ceil(min), Number.MIN_SAFE_INTEGER);
  const hi = Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER);
  if (lo > hi) return fc.integer();
  // "Small": within 1000 of zero, or of the nearer bound when zero is outside them.
  const small = Math.min(Math.max(0, lo), hi);
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: Math.max(lo, small - 1000), max: Math.min(hi, small + 1000) }) },
    { weight: 1, arbitrary: fc.integer({ min: lo, max: hi }) },
  );
}

const ABSENT = Symbol("absent");

/**
 * Required properties always, each optional one half of the time. A pure map gets random keys,
 * and is empty a third of the time. Keys are set as own data properties (`__proto__` included).
 */
function objectOf(schema: SchemaObject, place: Place, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const entries: [string, fc.Arbitrary<unknown>][] = [];
  for (const [key, sub] of Object.entries(properties)) {
    const value = validish(sub, place, depth + 1);
    entries.push([key, required.has(key) ? value : fc.option(value, { nil: ABSENT, freq: 2 })]);
  }
  for (const key of required) if (!Object.prototype.hasOwnProperty.call(properties, key)) entries.push([key, anyJson]);
  const known = fc.tuple(...entries.map(([, arb]) => arb)).map((values) => {
    const object: Record<string, unknown> = {};
    values.forEach((value, i) => {
      if (value !== ABSENT) setOwn(object, entries[i]![0], value);
    });
    return object;
  });
  const extra = schema.additionalProperties;
  if (Object.keys(properties).length > 0 || extra === undefined || isUnsatisfiable(extra)) return known;
  const map = fc.oneof(
    { weight: 1, arbitrary: fc.constant(null).map(() => ({})) },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.tuple(mapKey, validish(extra as Schema, place, depth + 1)), { minLength: 1, maxLength: 3 })
        .map((pairs) => {
          const object: Record<string, unknown> = {};
          for (const [key, value] of pairs) setOwn(object, key, value);
          return object;
        }),
    },
  );
  return fc.tuple(known, map).map(([k, m]) => assignOwn({}, m, k));
}

// ---------------------------------------------------------------------------------------------
// Mutations of valid-ish values.
// ---------------------------------------------------------------------------------------------

export interface Mutation {
  readonly kind: "drop" | "retype" | "extra" | "swapConst" | "replace";
  /** Which node (modulo the node count) and which key inside it (modulo the key count). */
  readonly at: number;
  readonly pick: number;
  readonly key: string;
  readonly replacement: unknown;
  readonly constant: string;
}

/** Every string constant of the documents: swapping one for another hits discriminators and enums. */
export function constantsOf(set: SchemaDocuments): string[] {
  const found = new Set<string>(["done"]);
  const visit = (node: unknown, key?: string): void => {
    if (Array.isArray(node)) {
      for (const item of node) {
        if (key === "enum" && typeof item === "string") found.add(item);
        visit(item);
      }
    } else if (isPlainObject(node)) {
      for (const [k, v] of Object.entries(node)) {
        if (k === "const" && typeof v === "string") found.add(v);
        visit(v, k);
      }
    }
  };
  for (const doc of set.documents.values()) visit(doc);
  return [...found].sort();
}

/** Numbers where integer, bound and float checks part ways. */
const edgeNumber = fc.constantFrom(-0, 0.5, -1.5, 0.07, 1.1, 1e300, -1e300, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MAX_VALUE, Number.MIN_VALUE);

export function mutationArb(constants: string[]): fc.Arbitrary<Mutation> {
  return fc.record({
    kind: fc.constantFrom("drop", "retype", "extra", "swapConst", "replace"),
    at: fc.nat(),
    pick: fc.nat(),
    key: mapKey,
    replacement: fc.oneof({ weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) }, { weight: 1, arbitrary: edgeNumber }),
    constant: fc.constantFrom(...constants),
  });
}

/** Valid-ish values with one or two mutations applied. */
export function mutatedValues(built: fc.Arbitrary<unknown>, constants: string[]): fc.Arbitrary<unknown> {
  return fc.tuple(built, fc.array(mutationArb(constants), { minLength: 1, maxLength: 2 })).map(([v, ms]) => ms.reduce(applyMutation, v));
}

/** Sets an own data property, even for `__proto__` (plain assignment would change the prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `Object.assign` that copies a `__proto__` key as data instead of changing the prototype. */
function assignOwn(target: Record<string, unknown>, ...sources: Record<string, unknown>[]): Record<string, unknown> {
  for (const source of sources) for (const [key, value] of Object.entries(source)) setOwn(target, key, value);
  return target;
}

/** A deep copy of a JSON value (own data properties only, `__proto__` included). */
export function cloneJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneJson);
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setOwn(copy, k, cloneJson(v));
  return copy;
}

/** A value of another JSON type. */
function retype(value: unknown): unknown {
  if (value === null) return 0;
  if (Array.isArray(value)) return {};
  switch (typeof value) {
    case "string":
      return 1;
    case "number":
      return String(value);
    case "boolean":
      return value ? "true" : null;
    default:
      return [value];
  }
}

interface Slot {
  readonly value: unknown;
  readonly set: (v: unknown) => void;
}

export function applyMutation(value: unknown, m: Mutation): unknown {
  const box = { root: cloneJson(value) };
  const slots: Slot[] = [];
  const collect = (node: unknown, set: (v: unknown) => void): void => {
    slots.push({ value: node, set });
    if (Array.isArray(node)) node.forEach((item, i) => collect(item, (v) => (node[i] = v)));
    else if (isPlainObject(node)) for (const [k, v] of Object.entries(node)) collect(v, (nv) => setOwn(node, k, nv));
  };
  collect(box.root, (v) => (box.root = v));
  const pickFrom = (candidates: Slot[]): Slot | undefined => candidates[m.at % Math.max(candidates.length, 1)];
  const objects = slots.filter((s) => isPlainObject(s.value));
  const any = pickFrom(slots)!;
  switch (m.kind) {
    case "drop": {
      const target = pickFrom(objects.filter((s) => Object.keys(s.value as object).length > 0));
      if (!target) return m.replacement;
      const keys = Object.keys(target.value as object);
      delete (target.value as Record<string, unknown>)[keys[m.pick % keys.length]!];
      break;
    }
    case "extra": {
      const target = pickFrom(objects);
      if (!target) return m.replacement;
      setOwn(target.value as Record<string, unknown>, m.key, m.replacement);
      break;
    }
    case "swapConst": {
      const target = pickFrom(slots.filter((s) => typeof s.value === "string"));
      (target ?? any).set(m.constant);
      break;
    }
    case "retype":
      any.set(retype(any.value));
      break;
    case "replace":
      any.set(m.replacement);
      break;
  }
  return box.root;
}
