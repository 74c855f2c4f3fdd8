/**
 * The schema oracle: what "the generator handles this schema" means, checked end to end.
 *
 * 1. `generateSchemaSet`: the real generator (the library's `generate`, as the ad-hoc CLI runs it:
 *    every `definitions`/`$defs` entry and the titled root) writes a set into a temp folder.
 * 2. `compileSets`: the real TypeScript compiler checks every generated module under plain
 *    `strict` and under the full flag set (test/support/typescript.ts + noUnusedLocals +
 *    noUnusedParameters, no DOM library), several sets in one program per flag set.
 * 3. `compareWithAjv`: the validators, transpiled and imported, give ajv's verdict (Ajv for
 *    draft-07, Ajv2020 for 2020-12, ajv-draft-04 for draft-04) on values built from the schema (test/support/schema-values.ts).
 *
 * `checkSchema` does all three for one schema. Used by the hostile-schema corpus test; meant for any
 * test with a schema to try (published schemas, regressions).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvDraft04 from "ajv-draft-04";
import fc from "fast-check";
import ts from "typescript";
import { GeneratorError, generate, loadSet, type GeneratedFile, type LoadedSet, type ResolvedSet } from "../../generator/index.js";
import { displayPath, type AllOfMode } from "../../generator/config/config.js";
import { importGeneratedModule } from "./generated-modules.js";
import { STRICT_COMPILER_OPTIONS } from "./typescript.js";
import { constantsOf, mutatedValues, validish, type Schema, type SchemaObject } from "./schema-values.js";
import { writeGeneratedSources } from "./generated-modules.js";

export type OracleDialect = "draft-04" | "draft-07" | "2020-12";

export interface OracleOptions {
  /** The dialect of a schema without `$schema` (default 2020-12, as the generator's). */
  readonly dialect?: OracleDialect;
  /** Keywords to accept as annotations (`annotations` of a config set). */
  readonly annotations?: readonly string[];
  /**
   * Remote documents `$ref`s reach, by URL: a file path, or the document itself (then written to a
   * temp file). Mapped as the config's `remotes`.
   */
  readonly remotes?: Readonly<Record<string, unknown>>;
  readonly allOf?: AllOfMode;
  /** More schema files of the same set (a schema split over files that `$ref` each other). */
  readonly moreSchemas?: readonly string[];
}

/** A definition the validators export, and where its schema is (for ajv). */
export interface OracleDefinition {
  readonly name: string;
  readonly uri: string;
  /** JSON pointer inside the document at `uri`. */
  readonly pointer: string;
}

export interface GeneratedSchemaSet {
  /** The folder holding the set's files (and a package.json making it ESM). */
  readonly dir: string;
  readonly files: readonly GeneratedFile[];
  /** The definitions declared in `definitions`/`$defs` or at the root, with their schema's place. */
  readonly definitions: readonly OracleDefinition[];
  /** Every document by URI (the schema and the remotes), as ajv should see them. */
  readonly documents: ReadonlyMap<string, SchemaObject>;
  readonly dialect: OracleDialect;
}

export type Generated = { readonly ok: true; readonly set: GeneratedSchemaSet } | { readonly ok: false; readonly error: string };

/** Removes every temp folder the oracle made (call from afterAll). */
export function cleanUpOracle(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
const tempDirs: string[] = [];

/**
 * Generates a set from a schema (a file, or a JSON value written to a temp file) into a temp
 * folder. A GeneratorError (bad input) is returned as the one line the CLI would print.
 */
export async function generateSchemaSet(schema: string | unknown, options: OracleOptions = {}): Promise<Generated> {
  const root = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-oracle-"));
  tempDirs.push(root);
  const schemaPath = typeof schema === "string" ? resolve(schema) : join(root, "schema.json");
  if (typeof schema !== "string") writeFileSync(schemaPath, JSON.stringify(schema, null, 2));
  const remotes: Record<string, string> = {};
  Object.entries(options.remotes ?? {}).forEach(([url, doc], i) => {
    if (typeof doc === "string") {
      remotes[url] = resolve(doc);
      return;
    }
    remotes[url] = join(root, `remote-${i}.json`);
    writeFileSync(remotes[url], JSON.stringify(doc, null, 2));
  });
  const dir = join(root, "out");
  const set: ResolvedSet = {
    name: "oracle",
    outDir: dir,
    schemas: [schemaPath, ...(options.moreSchemas ?? []).map((file) => resolve(file))],
    remotes,
    defaultDialect: options.dialect ?? "2020-12",
    annotations: [...(options.annotations ?? [])],
    allOf: options.allOf ?? "json-schema",
  };
  const rootDir = dirname(schemaPath);
  let files: readonly GeneratedFile[];
  let model: LoadedSet["validatorModel"];
  try {
    files = (await generate({ rootDir, sets: [set] })).sets[0]!.files;
    model = loadSet(set, rootDir).validatorModel;
  } catch (e) {
    if (e instanceof GeneratorError) return { ok: false, error: e.message };
    throw e;
  }
  writeGeneratedSources(files, dir);

  const json = JSON.parse(readFileSync(schemaPath, "utf8")) as unknown;
  const documents = new Map<string, SchemaObject>();
  const byDisplay = new Map<string, string>();
  const add = (doc: unknown, path: string) => {
    const [uri, forAjv] = asAjvReadsIt(doc, pathToFileURL(path).href);
    documents.set(uri, forAjv);
    byDisplay.set(displayPath(path, rootDir), uri);
  };
  add(json, schemaPath);
  for (const file of options.moreSchemas ?? []) add(JSON.parse(readFileSync(file, "utf8")) as unknown, resolve(file));
  for (const [url, path] of Object.entries(remotes)) {
    documents.set(url, JSON.parse(readFileSync(path, "utf8")) as SchemaObject);
    byDisplay.set(displayPath(path, rootDir), url);
  }
  // Declared places only: a definition hoisted out of another (`XParams`) is checked through its owner.
  const declared = /^(|\/(definitions|\$defs)\/[^/]+)$/;
  const definitions = model.definitions.flatMap((def) => {
    const uri = byDisplay.get(def.loc.file);
    return uri !== undefined && declared.test(def.loc.pointer) ? [{ name: def.name, uri, pointer: def.loc.pointer }] : [];
  });
  const declaredDialect = typeof json === "object" && json !== null ? String((json as SchemaObject).$schema ?? "") : "";
  const dialect: OracleDialect = declaredDialect.includes("draft-04")
    ? "draft-04"
    : declaredDialect.includes("draft-07")
      ? "draft-07"
      : declaredDialect.includes("2020-12")
        ? "2020-12"
        : (options.dialect ?? "2020-12");
  return { ok: true, set: { dir, files, definitions, documents, dialect } };
}

/**
 * A document's URI, and the document as ajv must be given it to read it as the generator does. A
 * relative root `$id` (release-it's `"release-it#git"`) resolves against the file's URL, as JSON
 * Schema says and the generator does, so `$ref: "./git.json"` reaches the file beside it; ajv
 * would resolve it against the bare relative `$id` instead, so it gets the resolved one (without
 * the fragment, which names an anchor, not the resource).
 */
function asAjvReadsIt(doc: unknown, fileUrl: string): [string, SchemaObject] {
  if (typeof doc !== "object" || doc === null || typeof (doc as SchemaObject).$id !== "string") return [fileUrl, doc as SchemaObject];
  const id = String((doc as SchemaObject).$id);
  if (/^[a-z][a-z0-9+.-]*:/i.test(id)) return [id, doc as SchemaObject];
  const resolved = new URL(id, fileUrl);
  resolved.hash = "";
  return [resolved.href, { ...(doc as SchemaObject), $id: resolved.href }];
}

// ---------------------------------------------------------------------------------------------
// The compiler.
// ---------------------------------------------------------------------------------------------

/** Plain `strict`, as a user's fresh ESM project would have it. */
export const PLAIN_STRICT_OPTIONS: ts.CompilerOptions = {
  strict: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  types: [],
  noEmit: true,
};

/** The README's full flag set, without the DOM library (generated code needs none). */
export const FULL_STRICT_OPTIONS: ts.CompilerOptions = {
  ...STRICT_COMPILER_OPTIONS,
  noUnusedLocals: true,
  noUnusedParameters: true,
  lib: ["lib.es2022.d.ts"],
  noEmit: true,
};

export interface CompileResult {
  /** Diagnostics as `file(line,col): TSnnnn message`, file relative to the set's folder. */
  readonly strict: readonly string[];
  readonly full: readonly string[];
}

// Standard library files parse once per test file, not once per program.
const libCache = new Map<string, ts.SourceFile | undefined>();

/** Type-checks every `.ts` file of each folder, under both flag sets; results by folder. */
export function compileSets(dirs: readonly string[]): Map<string, CompileResult> {
  const run = (options: ts.CompilerOptions) => {
    const host = ts.createCompilerHost(options, true);
    const original = host.getSourceFile.bind(host);
    host.getSourceFile = (path, version, onError, create) => {
      if (!path.includes(`${sep}node_modules${sep}`) && !path.includes("/node_modules/")) return original(path, version, onError, create);
      const key = `${path}|${String(options.lib)}`;
      if (!libCache.has(key)) libCache.set(key, original(path, version, onError, create));
      return libCache.get(key);
    };
    const roots = dirs.flatMap((dir) => ts.sys.readDirectory(dir, [".ts"], undefined, undefined, 1));
    const program = ts.createProgram({ rootNames: roots, options, host });
    const byDir = new Map<string, string[]>(dirs.map((d) => [d, []]));
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const file = d.file?.fileName ?? "";
      const dir = dirs.find((candidate) => resolve(file).startsWith(resolve(candidate) + sep));
      const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      const text = `${dir ? relative(dir, file) : file}${where ? `(${where.line + 1},${where.character + 1})` : ""}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
      (byDir.get(dir ?? "") ?? byDir.set(dir ?? "", []).get(dir ?? "")!).push(text);
    }
    return byDir;
  };
  const strict = run(PLAIN_STRICT_OPTIONS);
  const full = run(FULL_STRICT_OPTIONS);
  const out = new Map<string, CompileResult>();
  for (const dir of dirs) out.set(dir, { strict: strict.get(dir) ?? [], full: full.get(dir) ?? [] });
  const stray = [...(strict.get("") ?? []), ...(full.get("") ?? [])];
  if (stray.length) throw new Error(`diagnostics outside the compiled folders: ${stray.join("\n")}`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// ajv, the oracle.
// ---------------------------------------------------------------------------------------------

/**
 * ajv as the oracle: Ajv for draft-07, Ajv2020 for 2020-12, ajv-draft-04 for draft-04, `strict: false` (schemas in the wild
 * carry vendor keywords), formats as annotations (the generator's default), and own properties
 * only: JSON has no prototype, so `{}` has no "constructor" property. `allErrors`, because ajv's
 * stop-at-the-first-error code nests one block per property (a 2,000-property object overflows
 * the stack) and drops a `__proto__` property from its list of declared ones.
 *
 * `multipleOf` is replaced: ajv tests `parseInt(value / divisor)`, and parseInt reads 4.7e+253 as
 * 4, so it rejects every value whose quotient is 1e21 or more (they are all integers). The
 * replacement is JSON Schema's definition in floating point: the quotient is an integer (when it
 * overflows to Infinity, the remainder is zero).
 */
export function oracleAjv(dialect: OracleDialect, documents: ReadonlyMap<string, SchemaObject>): Ajv {
  const options = { strict: false, validateFormats: false, ownProperties: true, allErrors: true };
  // ajv-draft-04 is ajv's core with draft-04's keywords: the same interface as the other two.
  const ajv = dialect === "2020-12" ? new Ajv2020(options) : dialect === "draft-04" ? (new ajvDraft04.default(options) as unknown as Ajv) : new Ajv(options);
  ajv.removeKeyword("multipleOf");
  ajv.addKeyword({
    keyword: "multipleOf",
    type: "number",
    schemaType: "number",
    validate: (divisor: number, value: number) => {
      const quotient = value / divisor;
      return Number.isFinite(quotient) ? Number.isInteger(quotient) : value % divisor === 0;
    },
  });
  for (const [uri, doc] of documents) ajv.addSchema(doc, uri);
  return ajv;
}

/** A JSON pointer as a URI fragment (`#/definitions/a b` → `#/definitions/a%20b`). */
export function pointerFragment(pointer: string): string {
  return pointer.split("/").map(encodeURIComponent).join("/");
}

export interface Disagreement {
  readonly definition: string;
  readonly value: unknown;
  /** ajv's verdict. */
  readonly ajv: boolean;
  /** What `isX`, `validateX(v).ok` and "parseX does not throw" said (or the exception a call threw). */
  readonly is: boolean | string;
  readonly validate: boolean | string;
  readonly parse: boolean | string;
}

/**
 * ajv records the properties `unevaluatedProperties` finds evaluated in a plain object, so a key
 * Object.prototype also has (`constructor`, `toString`, `__proto__`) reads as evaluated: ajv accepts
 * values the spec rejects. A disagreement of that kind: ajv accepts, every validator entry point
 * rejects, and the value holds such a key at some depth. Only schemas with `unevaluatedProperties`
 * may excuse these.
 */
export function isAjvPrototypeKeyMistake(d: Disagreement): boolean {
  return d.ajv && d.is === false && d.validate === false && d.parse === false && hasPrototypeKey(d.value);
}

const PROTOTYPE_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"]);

function hasPrototypeKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasPrototypeKey);
  if (value === null || typeof value !== "object") return false;
  return Object.keys(value).some((key) => PROTOTYPE_NAMES.has(key) || hasPrototypeKey((value as Record<string, unknown>)[key]));
}

export interface DefinitionTally {
  readonly definition: string;
  accepted: number;
  rejected: number;
  /** Valid-ish values ajv accepted, of all valid-ish values. */
  validishAccepted: number;
  /** Values ajv threw on (see compareWithAjv). */
  unjudged: number;
  validishTotal: number;
}

export interface OracleComparison {
  readonly disagreements: readonly Disagreement[];
  readonly tallies: readonly DefinitionTally[];
  /** Definitions ajv or the value builder could not handle, with the reason (the test decides). */
  readonly problems: readonly string[];
}

/** Values per definition: valid-ish, mutated and arbitrary JSON (runs, runs, runs / 2). */
export interface CompareOptions {
  readonly runs?: number;
  readonly seed?: number;
}

type ValidatorModule = Record<string, (value: unknown) => unknown>;

/** Transpiles one module of the set (default: its validators) and what it imports to JavaScript beside the set (`js/`), and imports it. */
export async function importSetModule(set: GeneratedSchemaSet, module = "validators"): Promise<Record<string, unknown>> {
  return importGeneratedModule(set.files, join(set.dir, "js"), `${module}.ts`);
}

/** Runs `f`, turning an exception (a stack overflow, say) into its message. */
function verdict(f: () => boolean): boolean | string {
  try {
    return f();
  } catch (e) {
    return `threw ${(e as Error).name}: ${(e as Error).message}`;
  }
}

/** A value and the verdict a definition must give it, for schemas ajv cannot judge. */
export interface Example {
  readonly definition: string;
  readonly value: unknown;
  readonly valid: boolean;
}

/**
 * Checks the validators against hand-written verdicts. For schemas past what ajv handles (it
 * overflows its stack on `properties` nested 600 deep; its code for nested `anyOf` grows
 * exponentially with depth), where `compareWithAjv` cannot be the judge.
 */
export async function checkExamples(set: GeneratedSchemaSet, examples: readonly Example[]): Promise<Disagreement[]> {
  const module = (await importSetModule(set)) as ValidatorModule;
  const disagreements: Disagreement[] = [];
  for (const { definition, value, valid } of examples) {
    const [is, validate, parse] = ["is", "validate", "parse"].map((prefix) => module[`${prefix}${definition}`]);
    if (!is || !validate || !parse) throw new Error(`validators.ts does not export is/validate/parse${definition}`);
    const result = judgeValidators(is, validate, parse, value);
    if (result.is !== valid || result.validate !== valid || result.parse !== valid) disagreements.push({ definition, value, ajv: valid, ...result });
  }
  return disagreements;
}

/** The verdicts of `isX`, `validateX` and `parseX` on one value (an exception's message when one throws). */
function judgeValidators(
  is: (value: unknown) => unknown,
  validate: (value: unknown) => unknown,
  parse: (value: unknown) => unknown,
  value: unknown,
): Pick<Disagreement, "is" | "validate" | "parse"> {
  return {
    is: verdict(() => is(value) === true),
    validate: verdict(() => (validate(value) as { ok: boolean }).ok),
    parse: verdict(() => {
      try {
        parse(value);
        return true;
      } catch (e) {
        if ((e as Error).name === "ValidationFailed") return false;
        throw e;
      }
    }),
  };
}

/** Compares `isX`/`validateX`/`parseX` with ajv for every declared definition of a generated set. */
export async function compareWithAjv(set: GeneratedSchemaSet, options: CompareOptions = {}): Promise<OracleComparison> {
  const runs = options.runs ?? 100;
  const seed = options.seed ?? 11;
  const module = (await importSetModule(set)) as ValidatorModule;
  const ajv = oracleAjv(set.dialect, set.documents);
  const constants = constantsOf(set);
  const disagreements: Disagreement[] = [];
  const tallies: DefinitionTally[] = [];
  const problems: string[] = [];
  for (const def of set.definitions) {
    const is = module[`is${def.name}`];
    const validate = module[`validate${def.name}`];
    const parse = module[`parse${def.name}`];
    if (typeof is !== "function" || typeof validate !== "function" || typeof parse !== "function") {
      problems.push(`${def.name}: validators.ts does not export is/validate/parse${def.name}`);
      continue;
    }
    let oracle: ValidateFunction;
    try {
      oracle = ajv.compile({ $ref: `${def.uri}#${pointerFragment(def.pointer)}` });
    } catch (e) {
      problems.push(`${def.name}: ajv cannot compile it: ${(e as Error).message}`);
      continue;
    }
    const place = { set, baseUri: def.uri };
    let built: fc.Arbitrary<unknown>;
    try {
      built = validish(atPointerOf(set, def), place);
      fc.sample(built, { numRuns: 1, seed });
    } catch (e) {
      problems.push(`${def.name}: no valid-ish values: ${(e as Error).message}`);
      built = fc.jsonValue();
    }
    const tally: DefinitionTally = { definition: def.name, accepted: 0, rejected: 0, validishAccepted: 0, validishTotal: 0, unjudged: 0 };
    tallies.push(tally);
    const judge = (value: unknown): boolean | undefined => {
      let expected: boolean;
      try {
        expected = oracle(value) === true;
      } catch {
        // ajv's deep equality (const, enum, uniqueItems) calls a value's own `toString`/`valueOf`
        // keys as methods and throws: no verdict for that value.
        tally.unjudged++;
        return undefined;
      }
      const result = judgeValidators(is, validate, parse, value);
      if (result.is !== expected || result.validate !== expected || result.parse !== expected) {
        disagreements.push({ definition: def.name, value, ajv: expected, ...result });
      }
      if (expected) tally.accepted++;
      else tally.rejected++;
      return expected;
    };
    for (const value of fc.sample(built, { numRuns: runs, seed })) {
      const accepted = judge(value);
      if (accepted === undefined) continue;
      tally.validishTotal++;
      if (accepted) tally.validishAccepted++;
    }
    for (const value of fc.sample(mutatedValues(built, constants), { numRuns: runs, seed: seed + 1 })) judge(value);
    for (const value of fc.sample(fc.jsonValue(), { numRuns: Math.ceil(runs / 2), seed: seed + 2 })) judge(value);
  }
  return { disagreements, tallies, problems };
}

function atPointerOf(set: GeneratedSchemaSet, def: OracleDefinition): Schema {
  const doc = set.documents.get(def.uri);
  if (doc === undefined) throw new Error(`no document ${def.uri}`);
  let node: unknown = doc;
  if (def.pointer !== "") {
    for (const token of def.pointer.slice(1).split("/")) {
      const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
      node = (node as Record<string, unknown>)[key];
    }
  }
  return node as Schema;
}

// ---------------------------------------------------------------------------------------------
// All at once.
// ---------------------------------------------------------------------------------------------

export interface SchemaCheck {
  readonly generated: Generated;
  /** Present when generation succeeded. */
  readonly compiled?: CompileResult;
  readonly comparison?: OracleComparison;
}

/** Generate, compile under both flag sets, compare with ajv: one schema, end to end. */
export async function checkSchema(schema: string | unknown, options: OracleOptions & CompareOptions = {}): Promise<SchemaCheck> {
  const generated = await generateSchemaSet(schema, options);
  if (!generated.ok) return { generated };
  const compiled = compileSets([generated.set.dir]).get(generated.set.dir)!;
  const comparison = await compareWithAjv(generated.set, options);
  return { generated, compiled, comparison };
}

/** A short, readable account of a value for failure messages. */
export function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
