import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import fc from "fast-check";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STRICT_COMPILER_OPTIONS } from "../support/typescript.js";
import { generate, readConfigFile, type ResolvedSet } from "../../generator/index.js";
import { bindSchemas } from "../../generator/bind/bindings.js";
import { readSchemaFile } from "../../generator/load/documents.js";
import { projectRoot } from "../support/paths.js";
import { oracleAjv } from "../support/schema-oracle.js";
import { atPointer, constantsOf, escapeToken, mutatedValues, validish, type Place, type Schema, type SchemaObject } from "../support/schema-values.js";
import { importGeneratedModule, writeGeneratedSources } from "../support/generated-modules.js";

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

const differentialSets = config.sets;

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
  /** Definition name → where its schema is: the seed's, or the core schema's (README, Core definitions). */
  readonly definitions: ReadonlyMap<string, DefinitionPlace>;
}

interface DefinitionPlace {
  readonly uri: string;
  /** JSON pointer inside the document at `uri`. */
  readonly pointer: string;
}

/** The names a generated validators module exports `isX` for. */
const exportedValidators = (validatorsTs: string): Set<string> => new Set([...validatorsTs.matchAll(/^export function is(\w+)\(/gm)].map((m) => m[1]!));

function seedSet(set: ResolvedSet, validatorsTs: string): SeedSet {
  if (set.schemas.length !== 1) throw new Error(`set ${set.name}: expected one seed schema, got ${set.schemas.length}`);
  // The seed as the set's bindings rewrite it, as the generator reads it (generator/bind/bindings.ts).
  const bound = bindSchemas(set.bindings, [readSchemaFile(set.schemas[0]!, set.schemas[0]!)], [], (path) => path);
  const seed = bound.inputs[0]!.json as SchemaObject;
  const seedUri = typeof seed.$id === "string" ? seed.$id : pathToFileURL(set.schemas[0]!).href;
  const documents = new Map<string, SchemaObject>([[seedUri, seed]]);
  // A remote of another dialect (the MCP 2025-11-25 core schema is 2020-12, its Tasks schema draft-07) goes in
  // without `$schema`, which a draft-07 ajv cannot load; what the seed reaches in it means the same in both
  // (test/oracles/core-defs.test.ts).
  for (const [url, file] of Object.entries(set.remotes)) {
    const { $schema: remoteDialect, ...body } = readJson(file);
    documents.set(url, String(remoteDialect) === String(seed.$schema) ? readJson(file) : body);
  }
  // The files the bindings reach, by file URL. They are draft-07 and use no keyword whose meaning
  // differs in 2020-12, so a 2020-12 seed's ajv reads them without their `$schema`.
  for (const file of bound.extra) {
    const { $schema: _dialect, ...body } = file.json as SchemaObject;
    documents.set(pathToFileURL(file.path).href, String(seed.$schema).includes("2020-12") ? body : (file.json as SchemaObject));
  }
  const definitions = new Map<string, DefinitionPlace>();
  for (const container of ["$defs", "definitions"] as const) {
    const defs = seed[container] as SchemaObject | undefined;
    for (const name of Object.keys(defs ?? {})) definitions.set(name, { uri: seedUri, pointer: `/${container}/${escapeToken(name)}` });
  }
  const root = ROOT_DEFINITIONS[set.name];
  if (root !== undefined) {
    if (seed.title !== root) throw new Error(`set ${set.name}: the root definition ${root} is not the schema's title (${String(seed.title)})`);
    definitions.set(root, { uri: seedUri, pointer: "" });
  }
  // The core definitions the set generates beside its own (README, Core definitions): the core schema's
  // definitions the seed lacks that the validators export. Which ones the flows need is proven by
  // test/generator/lower/core-definitions.test.ts; here each is judged against ajv on the core document.
  if (set.core) {
    const coreFile = set.core.schema;
    const remoteUrl = Object.entries(set.remotes).find(([, file]) => file === coreFile)?.[0];
    const coreUri = remoteUrl ?? pathToFileURL(coreFile).href;
    if (!documents.has(coreUri)) {
      const { $schema: coreDialect, ...body } = readJson(coreFile);
      documents.set(coreUri, String(coreDialect) === String(seed.$schema) ? readJson(coreFile) : body);
    }
    const exported = exportedValidators(validatorsTs);
    const coreDefs = (readJson(coreFile).$defs as SchemaObject | undefined) ?? {};
    for (const name of Object.keys(coreDefs)) {
      if (!definitions.has(name) && exported.has(name)) definitions.set(name, { uri: coreUri, pointer: `/$defs/${escapeToken(name)}` });
    }
  }
  return { name: set.name, seed, seedUri, documents, definitions };
}

function ajvFor(set: SeedSet): Ajv {
  return oracleAjv(String(set.seed.$schema).includes("2020-12") ? "2020-12" : "draft-07", set.documents);
}

// ---------------------------------------------------------------------------------------------
// The generated validators: generated in memory, transpiled to JS, imported.
// ---------------------------------------------------------------------------------------------

type ValidationResult = { ok: true; value: unknown } | { ok: false; errors: readonly { path: string; keyword: string }[] };
type ValidatorModule = Record<string, (value: unknown) => unknown>;

let tempDir = "";
const modules = new Map<string, ValidatorModule>();
// Generated before the tests are declared: the core definitions a set covers are the ones its validators export.
const generatedSets = (await generate({ ...config, sets: differentialSets })).sets;
const validatorsSource = (setName: string): string =>
  generatedSets.find((s) => s.name === setName)?.files.find((f) => f.name === "validators.ts")?.contents ?? "";

beforeAll(async () => {
  tempDir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-differential-"));
  writeFileSync(join(tempDir, "package.json"), JSON.stringify({ type: "module" }));
  for (const set of generatedSets) {
    expect(set.files.map((f) => f.name), `set ${set.name} has a validators module`).toContain("validators.ts");
    modules.set(set.name, await importGeneratedModule<ValidatorModule>(set.files, join(tempDir, set.name)));
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

for (const resolved of differentialSets) {
  const set = seedSet(resolved, validatorsSource(resolved.name));
  const ajv = ajvFor(set);
  const constants = constantsOf(set);

  describe(`${set.name}: generated validators agree with ajv`, () => {
    it("covers every definition of the seed schema", () => {
      expect(set.definitions.size).toBeGreaterThan(0);
      for (const name of set.definitions.keys()) expect(() => api(set.name, name), name).not.toThrow();
      const fromCore = [...set.definitions.values()].filter((d) => d.uri !== set.seedUri).length;
      if (resolved.core) expect(fromCore, "core definitions covered").toBeGreaterThan(0);
    });

    for (const [name, { uri, pointer }] of set.definitions) {
      it(name, () => {
        const id = `${set.name}/${name}`;
        const oracle: ValidateFunction = ajv.compile({ $ref: `${uri}#${encodeURI(pointer)}` });
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

        const schema = atPointer(set.documents.get(uri), pointer) as Schema;
        const place: Place = { set, baseUri: uri };
        const built = validish(schema, place);
        fc.assert(
          fc.property(built, (value) => {
            const accepted = agrees(value);
            tally.validishTotal++;
            if (accepted) tally.validishAccepted++;
          }),
          { numRuns: RUNS.validish },
        );
        fc.assert(fc.property(mutatedValues(built, constants), (value) => void agrees(value)), { numRuns: RUNS.mutated });
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
  for (const resolved of differentialSets) {
    it(resolved.name, () => {
      const samples = acceptedSamples.get(resolved.name);
      expect(samples?.size, "accepted samples were collected").toBeGreaterThan(0);
      const set = generatedSets.find((s) => s.name === resolved.name)!;
      const folder = join(tempDir, `types-${set.name}`);
      writeGeneratedSources(set.files, folder);
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
      // TS2559 ("has no properties in common with type X") is TypeScript's weak-type heuristic against
      // typos, not a statement about values: an object with none of an all-optional type's properties
      // is one the open JSON Schema object accepts (fast-check makes such values now and then), at the top
      // or nested (a request whose `params` has none of its optional properties).
      const weakTypeOnly = (chain: string | ts.DiagnosticMessageChain): boolean =>
        typeof chain !== "string" && (chain.code === 2559 || (chain.next ?? []).some(weakTypeOnly));
      const problems = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.code !== 2559 && !weakTypeOnly(d.messageText))
        .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
      expect(count, "values checked").toBeGreaterThan(50);
      expect(problems).toEqual([]);
    });
  }
});
