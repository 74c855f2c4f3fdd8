import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixturePath } from "../support/paths.js";
import {
  cleanUpOracle,
  compareWithAjv,
  compileSets,
  generateSchemaSet,
  type CompileResult,
  type GeneratedSchemaSet,
  isAjvPrototypeKeyMistake,
  show,
} from "../support/schema-oracle.js";

/**
 * JSON Schemas that npm packages outside the MCP world ship (test/fixtures/published, pinned by
 * version and sha256 in its SOURCE.md): what the generator does with schemas written by others.
 * Each either generates (its vendor keywords declared as annotations, as a user would), compiles
 * under plain `strict` and under the full flag set, and validates as ajv does on values built from
 * the schema; or stops with the one located line that names what the generator does not implement.
 */

interface Generates {
  readonly name: string;
  readonly files: readonly string[];
  /** Vendor keywords, declared as a user would (`annotations` / `--annotation`). */
  readonly annotations?: readonly string[];
  /** Values per definition for the ajv comparison (the large schemas get fewer per definition). */
  readonly runs: number;
  /** Definitions the set must declare (a sample: proof the schema was read, not skipped). */
  readonly declares: readonly string[];
  /** The schema has `unevaluatedProperties`: ajv's known mistake about prototype keys is excused (isAjvPrototypeKeyMistake). */
  readonly unevaluated?: true;
}

interface Stops {
  readonly name: string;
  readonly files: readonly string[];
  /** The error line: the place and the start of the message. */
  readonly error: string;
}

const GENERATES: readonly Generates[] = [
  {
    // 2020-12, 2,683 definitions; closed empty objects, properties beside typed additionalProperties,
    // one very large definition (the rule table), schemars' uint formats; biome's own keyword.
    name: "biome",
    files: ["biome/configuration_schema.json"],
    annotations: ["allowTrailingCommas"],
    runs: 6,
    declares: ["Configuration", "A11y", "Accessibility"],
  },
  { name: "turbo", files: ["turbo/schema.json"], annotations: ["allowComments", "allowTrailingCommas"], runs: 60, declares: ["RawTurboJson", "AdditionalTool"] },
  // unevaluatedProperties is no keyword of draft-07, so a draft-07 validator ignores it: an annotation here.
  { name: "knip", files: ["knip/schema.json"], annotations: ["unevaluatedProperties"], runs: 60, declares: ["KnipConfigurationForJSON", "list"] },
  { name: "markdownlint", files: ["markdownlint/markdownlint-config-schema.json"], runs: 40, declares: ["MarkdownlintConfigurationSchema"] },
  // `typeof` comes from ajv-keywords; the oracle ignores it too.
  { name: "commitlint", files: ["commitlint/commitlint.schema.json"], annotations: ["typeof"], runs: 80, declares: ["Commitlint", "rule"] },
  // 2020-12 with unevaluatedProperties beside $ref/allOf/oneOf/if, and $dynamicRef to the `meta` anchor.
  { name: "OpenAPI 3.1", files: ["openapi/v3.1.schema.json"], runs: 40, declares: ["V31", "PathItem", "schema", "components", "SecurityScheme"], unevaluated: true },
  // draft-07, 468 definitions, 130 named as TypeScript type expressions (`ConditionalValueDef<(number[]|ExprRef)>`):
  // names keep their punctuation's meaning; the one pair that still clashes takes its places' suffixes.
  {
    name: "vega-lite",
    files: ["vega-lite/vega-lite-schema.json"],
    runs: 3,
    declares: [
      "TopLevelSpec",
      "ConditionalValueDefOfNumberOrExprRef",
      "ConditionalValueDefOfNumberArrayOrExprRef",
      "ConditionalPredicateOfValueDefOfStringOrNullOrExprRef_4d82e3",
      "ConditionalPredicateOfValueDefOfStringOrNullOrExprRef_4f9d94",
    ],
  },
  // An untitled root without definitions: one type, named from the file.
  { name: "changesets", files: ["changesets/schema.json"], runs: 150, declares: ["Schema"] },
  // draft-04: `id`, boolean exclusiveMinimum beside minimum; `^x-` patternProperties everywhere. ajv-draft-04 judges.
  { name: "OpenAPI 3.0 (draft-04)", files: ["openapi/v3.0.schema.json"], runs: 30, declares: ["V30", "Schema", "Reference", "PathItem"] },
];

const STOPS: readonly Stops[] = [
  // `\:` is no valid escape in a `u`-flag regular expression, the flag JSON Schema's patterns need (ajv says the same).
  {
    // Five files whose root $ids ("release-it#git", "release-it#npm", …) all name one document: the
    // fragment is an anchor, so a $ref into "release-it" could reach any of them.
    name: "release-it (five documents with one $id)",
    files: ["release-it/release-it.json", "release-it/git.json", "release-it/github.json", "release-it/gitlab.json", "release-it/npm.json"],
    error: 'git.json#/$id: "$id" "release-it#git" names the same document as release-it.json#/$id (a fragment names an anchor, not a document)',
  },
  { name: "tauri (pattern invalid with the u flag)", files: ["tauri/config.schema.json"], error: "config.schema.json#/properties/productName/pattern: " },
];

const generated = new Map<string, GeneratedSchemaSet>();
let compiled: Map<string, CompileResult>;

beforeAll(async () => {
  for (const entry of GENERATES) {
    const [first, ...more] = entry.files.map((f) => fixturePath("published", f));
    const result = await generateSchemaSet(first!, { annotations: entry.annotations ?? [], moreSchemas: more });
    if (!result.ok) throw new Error(`${entry.name}: ${result.error}`);
    generated.set(entry.name, result.set);
  }
  // One program per flag set for all of them: the standard library is read once.
  compiled = compileSets([...generated.values()].map((set) => set.dir));
}, 600_000);

afterAll(() => cleanUpOracle());

describe.each(GENERATES)("published schema $name", (entry) => {
  it("declares its definitions", () => {
    const names = generated.get(entry.name)!.definitions.map((d) => d.name);
    for (const name of entry.declares) expect(names).toContain(name);
  });

  it("compiles under plain strict and the full flag set", () => {
    const result = compiled.get(generated.get(entry.name)!.dir)!;
    expect(result.strict).toEqual([]);
    expect(result.full).toEqual([]);
  });

  it("validates as ajv does on values built from the schema", async () => {
    const set = generated.get(entry.name)!;
    const comparison = await compareWithAjv(set, { runs: entry.runs });
    expect(comparison.problems).toEqual([]);
    const disagreements = comparison.disagreements.filter((d) => !(entry.unevaluated && isAjvPrototypeKeyMistake(d)));
    expect(disagreements.slice(0, 5).map((d) => ({ ...d, value: show(d.value) }))).toEqual([]);
    // Both verdicts were seen: a value builder that only made garbage would agree trivially.
    const accepted = comparison.tallies.reduce((n, t) => n + t.accepted, 0);
    const rejected = comparison.tallies.reduce((n, t) => n + t.rejected, 0);
    expect(accepted).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
  }, 300_000);
});

describe.each(STOPS)("published schema $name", (entry) => {
  it("stops with one located line naming what is not implemented", async () => {
    const [first, ...more] = entry.files.map((f) => fixturePath("published", f));
    const result = await generateSchemaSet(first!, { moreSchemas: more });
    expect(result.ok).toBe(false);
    const error = (result as { error: string }).error;
    expect(error).not.toContain("\n");
    expect(error.startsWith(entry.error), error).toBe(true);
  });
});

describe("vendor keywords", () => {
  it("an undeclared vendor keyword is a located error that names both ways to declare it", async () => {
    const result = await generateSchemaSet(fixturePath("published", "turbo/schema.json"));
    expect(result.ok).toBe(false);
    const error = (result as { error: string }).error;
    expect(error).toMatch(/^schema\.json#\/allowComments: unknown keyword "allowComments"/);
    expect(error).toContain('"annotations"');
    expect(error).toContain("--annotation allowComments");
  });
});
