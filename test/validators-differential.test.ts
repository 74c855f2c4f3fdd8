import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STRICT_COMPILER_OPTIONS } from "./support/typescript.js";
import { generate, readConfigFile, type ResolvedSet } from "../generator/index.js";
import { bindSchemas } from "../generator/bind/bindings.js";
import { readSchemaFile } from "../generator/load/documents.js";
import { projectRoot } from "./support/paths.js";

/**
 * Differential property tests: for every definition a schema file declares, the generated
 * `isX`/`validateX`/`parseX` must give exactly the verdict ajv gives on the same seed schema.
 *
 * The validators come from an in-memory run of the generator (transpiled to JS in a temp folder
 * and imported), so this tests the generator as it is now, not the committed output.
 *
 * Values come from three sources per definition: "valid-ish" values built from the schema,
 * mutations of those (a dropped key, a wrong type, an extra key, another constant, a random
 * subtree), and arbitrary JSON. The valid-ish share accepted by ajv is checked too: a generator
 * that only produced garbage would make every agreement trivially "both reject".
 */

const CONFIG = join(projectRoot, "mcp-tasks-gen.config.json");
const config = readConfigFile(CONFIG);

// Runs per definition and source: 1,100 values per definition in total.
const RUNS = { validish: 400, mutated: 500, json: 200 } as const;
/** The least share of valid-ish values ajv must accept, for definitions that can be satisfied. */
const MIN_VALID_SHARE = 0.2;

/**
 * Definitions that accept every JSON value, so no generator can produce a rejected value for
 * them; for every other definition the run must have seen both verdicts. (The ext-tasks draft's
 * `anyOf: [{}, {}, {}]` placeholders were such definitions until the config bound them.)
 */
const ACCEPTS_EVERYTHING = new Set<string>();

/** Roots that are definitions themselves (titled root schemas with assertions), by set. */
const ROOT_DEFINITIONS: Readonly<Record<string, string>> = { "elicitation-codex": "McpServerElicitationRequestParams" };

type SchemaObject = { readonly [key: string]: unknown };
type Schema = boolean | SchemaObject;

// ---------------------------------------------------------------------------------------------
// The oracle: ajv on the seed schema, remote documents registered under their URLs.
// ---------------------------------------------------------------------------------------------

const readJson = (path: string): SchemaObject => JSON.parse(readFileSync(path, "utf8")) as SchemaObject;

interface SeedSet {
  readonly name: string;
  /** The seed document and the URI `$ref`s inside it resolve against. */
  readonly seed: SchemaObject;
  readonly seedUri: string;
  /** Every document a `$ref` can reach, by URI (the seed and the configured remotes). */
  readonly documents: ReadonlyMap<string, SchemaObject>;
  /** Definition name → the JSON pointer (in the seed) of its schema. */
  readonly definitions: ReadonlyMap<string, string>;
}

function seedSet(set: ResolvedSet): SeedSet {
  if (set.schemas.length !== 1) throw new Error(`set ${set.name}: expected one seed schema, got ${set.schemas.length}`);
  // The seed as the set's bindings rewrite it, as the generator reads it (generator/bind/bindings.ts).
  const bound = bindSchemas(set.bindings, [readSchemaFile(set.schemas[0]!, set.schemas[0]!)], [], (path) => path);
  const seed = bound.inputs[0]!.json as SchemaObject;
  const seedUri = typeof seed.$id === "string" ? seed.$id : pathToFileURL(set.schemas[0]!).href;
  const documents = new Map<string, SchemaObject>([[seedUri, seed]]);
  for (const [url, file] of Object.entries(set.remotes)) documents.set(url, readJson(file));
  // The files the bindings reach, by file URL. They are draft-07 and use no keyword whose meaning
  // differs in 2020-12, so a 2020-12 seed's ajv reads them without their `$schema`.
  for (const file of bound.extra) {
    const { $schema: _dialect, ...body } = file.json as SchemaObject;
    documents.set(pathToFileURL(file.path).href, String(seed.$schema).includes("2020-12") ? body : (file.json as SchemaObject));
  }
  const definitions = new Map<string, string>();
  for (const container of ["$defs", "definitions"] as const) {
    const defs = seed[container] as SchemaObject | undefined;
    for (const name of Object.keys(defs ?? {})) definitions.set(name, `/${container}/${escapeToken(name)}`);
  }
  const root = ROOT_DEFINITIONS[set.name];
  if (root !== undefined) {
    if (seed.title !== root) throw new Error(`set ${set.name}: the root definition ${root} is not the schema's title (${String(seed.title)})`);
    definitions.set(root, "");
  }
  return { name: set.name, seed, seedUri, documents, definitions };
}

const escapeToken = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

function ajvFor(set: SeedSet): Ajv {
  const is2020 = String(set.seed.$schema).includes("2020-12");
  // `format` is an annotation (the design's default); ajv would only log the unknown ones.
  const options = { strict: false, validateFormats: false };
  const ajv = is2020 ? new Ajv2020(options) : new Ajv(options);
  for (const [uri, doc] of set.documents) ajv.addSchema(doc, uri);
  return ajv;
}

// ---------------------------------------------------------------------------------------------
// The generated validators: generated in memory, transpiled to JS, imported.
// ---------------------------------------------------------------------------------------------

type ValidationResult = { ok: true; value: unknown } | { ok: false; errors: readonly { path: string; keyword: string }[] };
type ValidatorModule = Record<string, (value: unknown) => unknown>;

let tempDir = "";
const modules = new Map<string, ValidatorModule>();
let generatedSets: Awaited<ReturnType<typeof generate>>["sets"] = [];

beforeAll(async () => {
  const result = await generate(config);
  generatedSets = result.sets;
  tempDir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-differential-"));
  writeFileSync(join(tempDir, "package.json"), JSON.stringify({ type: "module" }));
  for (const set of result.sets) {
    const folder = join(tempDir, set.name);
    mkdirSync(folder, { recursive: true });
    for (const file of set.files) {
      if (!file.name.endsWith(".ts")) continue;
      const js = ts.transpileModule(file.contents, {
        fileName: file.name,
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      }).outputText;
      const target = join(folder, file.name.replace(/\.ts$/, ".js"));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, js);
    }
    expect(set.files.map((f) => f.name), `set ${set.name} has a validators module`).toContain("validators.ts");
    modules.set(set.name, (await import(pathToFileURL(join(folder, "validators.js")).href)) as ValidatorModule);
  }
});

afterAll(() => {
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
});

function api(setName: string, definition: string) {
  const module = modules.get(setName);
  if (!module) throw new Error(`no generated validators for set ${setName}`);
  const fn = (prefix: string) => {
    const f = module[`${prefix}${definition}`];
    if (typeof f !== "function") throw new Error(`generated/${setName}/validators.ts exports no ${prefix}${definition}`);
    return f;
  };
  return {
    is: fn("is") as (v: unknown) => boolean,
    validate: fn("validate") as (v: unknown) => ValidationResult,
    parse: fn("parse"),
  };
}

// ---------------------------------------------------------------------------------------------
// Valid-ish values, built from the schema.
// ---------------------------------------------------------------------------------------------

const MAX_DEPTH = 8;
const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2 });
// Keys that trip up `in`/property-access based code, next to ordinary random ones.
const trickyKey = fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "", "extra", "a/b~c");
const mapKey = fc.oneof({ weight: 4, arbitrary: fc.string({ maxLength: 6 }) }, { weight: 1, arbitrary: trickyKey });

/** A schema together with the document and base URI it was found in (for `$ref`s). */
interface Place {
  readonly set: SeedSet;
  readonly baseUri: string;
}

function resolveRef(ref: string, place: Place): { schema: Schema; place: Place } {
  const [uriPart = "", pointer = ""] = ref.split("#");
  const uri = uriPart === "" ? place.baseUri : new URL(uriPart, place.baseUri).href;
  const doc = place.set.documents.get(uri);
  if (!doc) throw new Error(`test generator: cannot resolve $ref ${ref} from ${place.baseUri}`);
  return { schema: atPointer(doc, decodeURIComponent(pointer)) as Schema, place: { set: place.set, baseUri: uri } };
}

function atPointer(doc: unknown, pointer: string): unknown {
  if (pointer === "") return doc;
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((node, token) => {
      if (node === null || typeof node !== "object" || !(token in node)) throw new Error(`test generator: no ${pointer}`);
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

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Joins the values of schemas that all apply to one place (`allOf`, `$ref`, a chosen branch). */
function mergeParts(parts: unknown[]): unknown {
  if (parts.every(isPlainObject)) return assignOwn({}, ...parts);
  // A scalar part (a const, a typed primitive) is the most specific; keep the last one.
  return parts[parts.length - 1];
}

function validish(schema: Schema, place: Place, depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema === "boolean" || depth > MAX_DEPTH) return anyJson;
  const parts: fc.Arbitrary<unknown>[] = [];
  const own = ownKeywords(schema, place, depth);
  if (own) parts.push(own);
  if (typeof schema.$ref === "string") {
    const target = resolveRef(schema.$ref, place);
    parts.push(validish(target.schema, target.place, depth + 1));
  }
  for (const sub of (schema.allOf as Schema[] | undefined) ?? []) parts.push(validish(sub, place, depth + 1));
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) parts.push(fc.oneof(...branches.map((b) => validish(b, place, depth + 1))));
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
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  let types = schema.type === undefined ? [] : ([] as string[]).concat(schema.type as string | string[]);
  if (types.length === 0 && (schema.properties || schema.additionalProperties !== undefined)) types = ["object"];
  if (types.length === 0) return undefined;
  return fc.oneof(...types.map((type) => typed(type, schema, place, depth)));
}

function typed(type: string, schema: SchemaObject, place: Place, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "string":
      return fc.string({ maxLength: 10 });
    case "integer":
      return integerWithin(schema);
    case "number":
      return fc.oneof(integerWithin(schema), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => within(n, schema)));
    case "array": {
      const items = schema.items === undefined ? anyJson : validish(schema.items as Schema, place, depth + 1);
      return fc.array(items, { maxLength: 3 });
    }
    case "object":
      return objectOf(schema, place, depth);
    default:
      throw new Error(`test generator: unknown type ${type}`);
  }
}

const within = (n: number, schema: SchemaObject): boolean =>
  (typeof schema.minimum !== "number" || n >= schema.minimum) && (typeof schema.maximum !== "number" || n <= schema.maximum);

/** Small integers most of the time, the whole safe range sometimes, always inside the bounds. */
function integerWithin(schema: SchemaObject): fc.Arbitrary<number> {
  const lo = Math.max(typeof schema.minimum === "number" ? Math.ceil(schema.minimum) : -1000, -1000);
  const hi = Math.min(typeof schema.maximum === "number" ? Math.floor(schema.maximum) : 1000, 1000);
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: lo, max: hi }) },
    { weight: 1, arbitrary: fc.maxSafeInteger().filter((n) => within(n, schema)) },
  );
}

const ABSENT = Symbol("absent");

/**
 * Required properties always, each optional one half of the time (fc.record alone includes them
 * far more often). A pure map gets random keys, and is empty a third of the time.
 */
function objectOf(schema: SchemaObject, place: Place, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, sub] of Object.entries(properties)) {
    const value = validish(sub, place, depth + 1);
    model[key] = required.has(key) ? value : fc.option(value, { nil: ABSENT, freq: 2 });
  }
  for (const key of required) model[key] ??= anyJson;
  const known = fc.record(model).map((record) => {
    const object: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) if (value !== ABSENT) setOwn(object, key, value);
    return object;
  });
  const extra = schema.additionalProperties;
  if (Object.keys(properties).length > 0 || extra === undefined || isUnsatisfiable(extra)) return known;
  const map = fc.oneof(
    { weight: 1, arbitrary: fc.constant(null).map(() => ({})) },
    { weight: 2, arbitrary: fc.dictionary(mapKey, validish(extra as Schema, place, depth + 1), { minKeys: 1, maxKeys: 3 }) },
  );
  return fc.tuple(known, map).map(([k, m]) => assignOwn({}, m, k));
}

// ---------------------------------------------------------------------------------------------
// Mutations of valid-ish values.
// ---------------------------------------------------------------------------------------------

interface Mutation {
  readonly kind: "drop" | "retype" | "extra" | "swapConst" | "replace";
  /** Which node (modulo the node count) and which key inside it (modulo the key count). */
  readonly at: number;
  readonly pick: number;
  readonly key: string;
  readonly replacement: unknown;
  readonly constant: string;
}

/** Every string constant of the set: swapping one for another hits discriminators and enums. */
function constantsOf(set: SeedSet): string[] {
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
const edgeNumber = fc.constantFrom(-0, 0.5, -1.5, 1e300, -1e300, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MAX_VALUE, Number.MIN_VALUE);

function mutationArb(constants: string[]): fc.Arbitrary<Mutation> {
  return fc.record({
    kind: fc.constantFrom("drop", "retype", "extra", "swapConst", "replace"),
    at: fc.nat(),
    pick: fc.nat(),
    key: mapKey,
    replacement: fc.oneof({ weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) }, { weight: 1, arbitrary: edgeNumber }),
    constant: fc.constantFrom(...constants),
  });
}

/** Sets an own data property, even for `__proto__` (plain assignment would change the prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `Object.assign` that copies a `__proto__` key as data instead of changing the prototype. */
function assignOwn(target: Record<string, unknown>, ...sources: Record<string, unknown>[]): Record<string, unknown> {
  for (const source of sources) for (const [key, value] of Object.entries(source)) setOwn(target, key, value);
  return target;
}

function cloneJson(value: unknown): unknown {
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

function applyMutation(value: unknown, m: Mutation): unknown {
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

// ---------------------------------------------------------------------------------------------
// The tests.
// ---------------------------------------------------------------------------------------------

interface Tally {
  validishAccepted: number;
  validishTotal: number;
  accepted: number;
  rejected: number;
}
const tallies = new Map<string, Tally>();

/** Values the validators accepted, per set and definition: the type check below reuses them. */
const acceptedSamples = new Map<string, Map<string, unknown[]>>();
const SAMPLES_PER_DEFINITION = 12;
function keepSample(setName: string, definition: string, value: unknown): void {
  const bySet = acceptedSamples.get(setName) ?? new Map<string, unknown[]>();
  acceptedSamples.set(setName, bySet);
  const list = bySet.get(definition) ?? [];
  bySet.set(definition, list);
  // `__proto__` in an object literal sets a prototype instead of a property: not the same value.
  if (list.length < SAMPLES_PER_DEFINITION && !JSON.stringify(value).includes('"__proto__"')) list.push(value);
}

afterAll(() => {
  const rows = [...tallies].map(([definition, t]) => ({
    definition,
    "valid-ish accepted": `${((100 * t.validishAccepted) / Math.max(t.validishTotal, 1)).toFixed(0)}%`,
    accepted: t.accepted,
    rejected: t.rejected,
  }));
  console.table(rows);
});

for (const resolved of config.sets) {
  const set = seedSet(resolved);
  const ajv = ajvFor(set);
  const constants = constantsOf(set);
  const place: Place = { set, baseUri: set.seedUri };

  describe(`${set.name}: generated validators agree with ajv`, () => {
    it("covers every definition of the seed schema", () => {
      expect(set.definitions.size).toBeGreaterThan(0);
      for (const name of set.definitions.keys()) expect(() => api(set.name, name), name).not.toThrow();
    });

    for (const [name, pointer] of set.definitions) {
      it(name, () => {
        const id = `${set.name}/${name}`;
        const oracle: ValidateFunction = ajv.compile({ $ref: `${set.seedUri}#${encodeURI(pointer)}` });
        const { is, validate, parse } = api(set.name, name);
        const tally: Tally = { validishAccepted: 0, validishTotal: 0, accepted: 0, rejected: 0 };
        tallies.set(id, tally);

        /** Every entry point must give ajv's verdict; a rejection must say why. */
        const agrees = (value: unknown): boolean => {
          const expected = oracle(value) === true;
          expect(is(value), "isX").toBe(expected);
          const result = validate(value);
          expect(result.ok, "validateX(v).ok").toBe(expected);
          if (result.ok) expect(result.value, "validateX(v).value").toEqual(value);
          else expect(result.errors.length, "a rejection lists at least one error").toBeGreaterThan(0);
          let threw = false;
          try {
            parse(value);
          } catch {
            threw = true;
          }
          expect(threw, "parseX(v) throws").toBe(!expected);
          if (expected) {
            tally.accepted++;
            keepSample(set.name, name, value);
          } else tally.rejected++;
          return expected;
        };

        const schema = atPointer(set.seed, pointer) as Schema;
        const built = validish(schema, place);
        fc.assert(
          fc.property(built, (value) => {
            const accepted = agrees(value);
            tally.validishTotal++;
            if (accepted) tally.validishAccepted++;
          }),
          { numRuns: RUNS.validish },
        );
        const mutated = fc.tuple(built, fc.array(mutationArb(constants), { minLength: 1, maxLength: 2 })).map(([v, ms]) => ms.reduce(applyMutation, v));
        fc.assert(fc.property(mutated, (value) => void agrees(value)), { numRuns: RUNS.mutated });
        fc.assert(fc.property(fc.jsonValue(), (value) => void agrees(value)), { numRuns: RUNS.json });

        // Not vacuous: the schema-built values are mostly valid, and both verdicts were exercised.
        expect(tally.validishAccepted / tally.validishTotal, `share of valid-ish ${name} values ajv accepts`).toBeGreaterThanOrEqual(MIN_VALID_SHARE);
        if (ACCEPTS_EVERYTHING.has(id)) expect(tally.rejected, `${name} accepts every JSON value`).toBe(0);
        else expect(tally.rejected, `some ${name} values are rejected`).toBeGreaterThan(0);
      });
    }
  });
}

// Types are never narrower than validators: every value a validator accepted above must be
// assignable to the generated type of the same name, as the TypeScript compiler judges it.
describe("every accepted value is assignable to its generated type", () => {
  for (const resolved of config.sets) {
    it(resolved.name, () => {
      const samples = acceptedSamples.get(resolved.name);
      expect(samples?.size, "accepted samples were collected").toBeGreaterThan(0);
      const set = generatedSets.find((s) => s.name === resolved.name)!;
      const folder = join(tempDir, `types-${set.name}`);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, "package.json"), JSON.stringify({ type: "module" }));
      for (const file of set.files) writeFileSync(join(folder, file.name), file.contents);
      // Each value gets its exact type (`as const`, made mutable again) and is assigned through a
      // call, so TypeScript judges plain assignability, not the excess-property rule for literals.
      const lines = [
        `import type * as T from "./types.js";`,
        "type Mutable<V> = { -readonly [K in keyof V]: Mutable<V[K]> };",
        "const exactly = <V,>(value: V): Mutable<V> => value as Mutable<V>;",
      ];
      let count = 0;
      for (const [definition, values] of samples!) {
        for (const value of values) {
          // `as const` takes literals only: a bare null or number is its own exact type already.
          const literal = value === null || typeof value === "number" ? JSON.stringify(value) : `${JSON.stringify(value)} as const`;
          lines.push(`export const value${count}: T.${definition} = exactly(${literal});`);
          count++;
        }
      }
      writeFileSync(join(folder, "probe.ts"), lines.join("\n"));
      const program = ts.createProgram([join(folder, "probe.ts")], { ...STRICT_COMPILER_OPTIONS, noEmit: true });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
      expect(count, "values checked").toBeGreaterThan(50);
      expect(problems).toEqual([]);
    });
  }
});
