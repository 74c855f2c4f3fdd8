import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { projectRoot } from "../support/paths.js";
import {
  checkExamples,
  cleanUpOracle,
  compareWithAjv,
  compileSets,
  generateSchemaSet,
  show,
  type CompileResult,
  type Example,
  type Generated,
  type OracleOptions,
} from "../support/schema-oracle.js";

/**
 * The hostile-schema corpus: schemas that broke the generator, one file per case in
 * test/fixtures/hostile/ (the large and deep ones are written by make-large.mjs there). Each has
 * one of two outcomes, and nothing in between:
 * - a located error: exit 2, exactly one line `<file>#<pointer>: …` on stderr, nothing written;
 * - output that compiles under plain `strict` and under the full flag set, whose validators give
 *   ajv's verdict on values built from the schema, mutated, and random.
 */

const FIXTURES = join(projectRoot, "test", "fixtures", "hostile");

type Expected =
  /**
   * Generates; compiles under both flag sets; validators agree with ajv, or with hand-written
   * `examples` where ajv cannot judge the schema (the reason says why).
   */
  | { readonly compiles: true; readonly options?: OracleOptions; readonly examples?: { readonly reason: string; readonly values: readonly Example[] } }
  /** Exit 2 with one line at this JSON pointer (`within`: at it or below it). */
  | { readonly error: string; readonly within?: true };

interface Case {
  readonly file: string;
  /** What the case is (the failure it reproduces, or what else it tries). */
  readonly what: string;
  readonly expected: Expected;
}

const COMPILES = { compiles: true } as const;

/** `leaf` inside `depth` levels of `wrap`. */
function nested(depth: number, wrap: (inner: unknown) => unknown, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

const AJV_OVERFLOWS = "ajv overflows its stack compiling schemas nested this deep";
const AJV_EXPONENTIAL = "ajv's code for nested anyOf grows exponentially with depth (40 levels do not compile in minutes)";

const CASES: readonly Case[] = [
  { file: "typed-additional-properties.json", what: "properties beside a typed additionalProperties (TS2411)", expected: COMPILES },
  { file: "closed-empty-object.json", what: "a closed empty object: no unused loop variable (TS6133)", expected: COMPILES },
  { file: "loops-without-variables.json", what: "loops whose checks read neither the key nor the item", expected: COMPILES },
  { file: "huge-object.json", what: "2,000 properties in one definition (TS2563, binder overflow)", expected: COMPILES },
  { file: "huge-anyof.json", what: "anyOf of 1,500 variants", expected: COMPILES },
  { file: "huge-oneof.json", what: "oneOf of 1,500 variants", expected: COMPILES },
  { file: "huge-allof.json", what: "allOf of 1,500 parts", expected: COMPILES },
  { file: "huge-discriminated-union.json", what: "oneOf of 1,000 objects told apart by a const kind", expected: COMPILES },
  { file: "huge-inline-objects.json", what: "big objects inside an allOf and inside a conditional in array items", expected: COMPILES },
  { file: "huge-enum.json", what: "an enum of 5,000 values", expected: COMPILES },
  { file: "cycle-self.json", what: "a pure $ref cycle A → A: no value, no type", expected: { error: "/definitions/A", within: true } },
  { file: "cycle-pair.json", what: "a pure $ref cycle A → B → A", expected: { error: "/definitions/A", within: true } },
  { file: "cycle-through-allof-anyof.json", what: "a pure cycle through allOf and anyOf", expected: { error: "/definitions/A", within: true } },
  { file: "cycle-through-object.json", what: "a cycle with an object and an array between: a fine recursive type", expected: COMPILES },
  { file: "definition-named-object.json", what: "a definition named Object (isObject of the runtime)", expected: COMPILES },
  { file: "definition-named-validation-error.json", what: "definitions named like the runtime's public types", expected: COMPILES },
  { file: "definitions-named-like-globals.json", what: "definitions named Error, Promise, Record, Array, Set, Number, JSON, Partial", expected: COMPILES },
  { file: "definitions-named-like-private-helpers.json", what: "XPart1 beside X, With (validateWith), MultipleOf, lowercase runtime and value", expected: COMPILES },
  {
    file: "items-nested-500.json",
    what: "items nested 500 deep",
    expected: {
      compiles: true,
      examples: {
        reason: AJV_OVERFLOWS,
        values: [
          { definition: "Deep", value: nested(500, (v) => [v], "leaf"), valid: true },
          { definition: "Deep", value: nested(500, (v) => [v, "x"], "leaf"), valid: false },
          { definition: "Deep", value: nested(3, (v) => [v], []), valid: true },
          { definition: "Deep", value: nested(500, (v) => [v], 1), valid: false },
          { definition: "Deep", value: nested(499, (v) => [v], ["leaf", "x"]), valid: true },
          { definition: "Deep", value: nested(499, (v) => [v], "leaf"), valid: false },
          { definition: "Deep", value: {}, valid: false },
        ],
      },
    },
  },
  {
    file: "properties-nested-600.json",
    what: "properties nested 600 deep",
    expected: {
      compiles: true,
      examples: {
        reason: AJV_OVERFLOWS,
        values: [
          { definition: "Deep", value: nested(600, (v) => ({ next: v }), "leaf"), valid: true },
          { definition: "Deep", value: nested(600, (v) => ({ next: v }), 7), valid: false },
          { definition: "Deep", value: nested(300, (v) => ({ next: v, other: 1 }), {}), valid: true },
          { definition: "Deep", value: nested(300, (v) => ({ next: v }), { next: [] }), valid: false },
          { definition: "Deep", value: [], valid: false },
        ],
      },
    },
  },
  {
    file: "anyof-nested-500.json",
    what: "anyOf nested 500 deep",
    expected: {
      compiles: true,
      examples: {
        reason: AJV_EXPONENTIAL,
        values: [
          { definition: "Deep", value: "text", valid: true },
          { definition: "Deep", value: 42, valid: true },
          { definition: "Deep", value: 4.5, valid: false },
          { definition: "Deep", value: null, valid: false },
          { definition: "Deep", value: ["text"], valid: false },
        ],
      },
    },
  },
  { file: "root-not-a-schema.json", what: "a root that is not a schema ([])", expected: { error: "" } },
  { file: "untitled-root.json", what: "an untitled root without definitions: a type named from the file", expected: COMPILES },
  // Both names spell their separators out (ADashB, ASpaceB) with a name-clash warning each: no stop, no order-dependent counter.
  { file: "names-normalising-alike.json", what: "two definition names normalising to one identifier", expected: COMPILES },
  { file: "unknown-keyword.json", what: "an unknown keyword", expected: { error: "/definitions/Loose/tsAdditionalProperties" } },
  {
    file: "unknown-keyword.json",
    what: "an unknown keyword declared an annotation",
    expected: { compiles: true, options: { annotations: ["tsAdditionalProperties"] } },
  },
  { file: "prototype-property-names.json", what: "__proto__, constructor, toString… as property names: own properties only", expected: COMPILES },
  {
    file: "proto-property.json",
    what: "__proto__ as a declared property (JSON.parse makes it an own property)",
    expected: {
      compiles: true,
      examples: {
        reason: "ajv loses a __proto__ entry of `properties`: it never checks the property and counts it as additional",
        values: [
          { definition: "ClosedProto", value: JSON.parse('{"__proto__": "x"}'), valid: true },
          { definition: "ClosedProto", value: {}, valid: true },
          { definition: "ClosedProto", value: JSON.parse('{"__proto__": 1}'), valid: false },
          { definition: "ClosedProto", value: JSON.parse('{"__proto__": "x", "constructor": "y"}'), valid: false },
          { definition: "ClosedProto", value: { constructor: 1 }, valid: false },
          { definition: "Proto", value: JSON.parse('{"__proto__": "x", "constructor": 2}'), valid: true },
          { definition: "Proto", value: JSON.parse('{"__proto__": 1}'), valid: false },
          { definition: "Proto", value: {}, valid: false },
          { definition: "Proto", value: JSON.parse('{"__proto__": "x", "constructor": "not an integer"}'), valid: false },
        ],
      },
    },
  },
  { file: "hostile-property-names.json", what: 'property names with quotes, newlines, */, U+2028, "" and more', expected: COMPILES },
  { file: "mixed-enum.json", what: "enums mixing strings, numbers, null, booleans, objects and arrays", expected: COMPILES },
  { file: "const-values.json", what: "const null, const objects and arrays (key order, 1 == 1.0)", expected: COMPILES },
  { file: "regex-features.json", what: "lookbehind, \\p{L}, named groups in pattern and patternProperties", expected: COMPILES },
  { file: "invalid-pattern.json", what: "a pattern that is not a regular expression", expected: { error: "/definitions/Broken/pattern" } },
  {
    file: "invalid-pattern-property.json",
    what: "a patternProperties key that is not a regular expression",
    expected: { error: "/definitions/Broken/patternProperties/[z-a]" },
  },
  {
    file: "pattern-invalid-with-unicode-flag.json",
    what: "a pattern valid only without the u flag ajv and the validators use",
    expected: { error: "/definitions/Escaped/pattern" },
  },
  { file: "multiple-of-decimals.json", what: "multipleOf 0.01, 0.1 and 1.5", expected: COMPILES },
  { file: "unique-objects.json", what: "uniqueItems over objects (key order irrelevant)", expected: COMPILES },
];

/** The built CLI (`npm test` builds first), run as a user runs it: its own process and stack. */
const BIN = join(projectRoot, "dist", "generator", "cli", "main.js");

/** Values per definition and source (valid-ish, mutated; half as many arbitrary JSON values). */
const RUNS = 60;

const label = (c: Case) => `${c.file}: ${c.what}`;

it("every fixture has a case, and every case a fixture", () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith(".json")).sort();
  expect([...new Set(CASES.map((c) => c.file))].sort()).toEqual(files);
});

describe("hostile schemas that must generate code that compiles and agrees with ajv", () => {
  const compiling = CASES.filter((c) => "compiles" in c.expected);
  const generated = new Map<Case, Generated | Error>();
  let compiled = new Map<string, CompileResult>();

  beforeAll(async () => {
    for (const c of compiling) {
      const options = "compiles" in c.expected ? c.expected.options : undefined;
      try {
        generated.set(c, await generateSchemaSet(join(FIXTURES, c.file), options));
      } catch (e) {
        generated.set(c, e as Error); // an internal error: reported by the case's test
      }
    }
    // One program per flag set for all of them: the standard library is checked once.
    const dirs = [...generated.values()].flatMap((g) => (!(g instanceof Error) && g.ok ? [g.set.dir] : []));
    compiled = compileSets(dirs);
  }, 600_000);

  afterAll(() => cleanUpOracle());

  for (const c of compiling) {
    it(label(c), async () => {
      const result = generated.get(c);
      if (result instanceof Error) throw new Error(`internal error while generating: ${result.stack ?? result.message}`);
      expect(result?.ok ? "generated" : result?.error, "generation succeeds").toBe("generated");
      if (!result?.ok) return;
      const diagnostics = compiled.get(result.set.dir)!;
      expect(diagnostics.strict, "diagnostics under plain strict").toEqual([]);
      expect(diagnostics.full, "diagnostics under the full flag set").toEqual([]);

      // The same schema through the real command, in a process of its own: exit 0 (a test worker's
      // stack can hide a recursion that overflows in the CLI's), unless the case needs options.
      if ("compiles" in c.expected && !c.expected.options) {
        const folder = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-hostile-"));
        try {
          const ran = spawnSync(process.execPath, [BIN, "--schema", join(FIXTURES, c.file), "--out", join(folder, "out")], { encoding: "utf8", timeout: 120_000 });
          expect(ran.status === 0 ? "exit 0" : `exit ${ran.status}: ${ran.stderr.slice(0, 300)}`, "the CLI").toBe("exit 0");
        } finally {
          rmSync(folder, { recursive: true, force: true });
        }
      }
      const examples = "compiles" in c.expected ? c.expected.examples : undefined;
      if (examples) {
        const wrong = await checkExamples(result.set, examples.values);
        expect(wrong.map((d) => `${d.definition} ${show(d.value)}: expected ${d.ajv}, is ${d.is}, validate ${d.validate}, parse ${d.parse}`)).toEqual([]);
        return;
      }
      const comparison = await compareWithAjv(result.set, { runs: RUNS });
      expect(comparison.problems, "definitions the oracle could not judge").toEqual([]);
      expect(comparison.tallies.length, "definitions compared with ajv").toBeGreaterThan(0);
      const shown = comparison.disagreements.slice(0, 5).map((d) => `${d.definition} ${show(d.value)}: ajv ${d.ajv}, is ${d.is}, validate ${d.validate}, parse ${d.parse}`);
      expect(shown, `disagreements with ajv (${comparison.disagreements.length} in all)`).toEqual([]);
      // Not vacuous: the values exercised both verdicts.
      const accepted = comparison.tallies.reduce((n, t) => n + t.accepted, 0);
      const rejected = comparison.tallies.reduce((n, t) => n + t.rejected, 0);
      expect(accepted, "values ajv accepted").toBeGreaterThan(0);
      expect(rejected, "values ajv rejected").toBeGreaterThan(0);
      const unjudged = comparison.tallies.reduce((n, t) => n + t.unjudged, 0);
      expect(unjudged, "values ajv threw on (a tenth at most)").toBeLessThanOrEqual((accepted + rejected) / 10);
    }, 300_000);
  }
});

describe("hostile schemas that must stop with a located error", () => {
  for (const c of CASES) {
    const expected = c.expected;
    if (!("error" in expected)) continue;
    it(label(c), async () => {
      const folder = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-hostile-"));
      try {
        const out = join(folder, "out");
        const { code, stderr } = await runCli(["--schema", join(FIXTURES, c.file), "--out", out]);
        const lines = stderr.split("\n").filter((line) => line !== "");
        expect(lines, "exactly one line on stderr").toHaveLength(1);
        // The file as the CLI names it (relative or not), then the pointer, exactly or below it.
        const file = `(?:.*/)?hostile/${escapeRegExp(c.file)}`;
        const pointer = escapeRegExp(expected.error) + (expected.within ? "(?:/[^:]*)?" : "");
        expect(lines[0]).toMatch(new RegExp(`^${file}#${pointer}: \\S`));
        expect(code, "exit code").toBe(2);
        expect(existsSync(out), "nothing written").toBe(false);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });
  }
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
