import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GeneratorError, generateFromMemory, type MemoryDocument } from "../../../generator/index.js";
import { configFromFlags, revisionFrom } from "../../../generator/config/from-flags.js";
import { resolveConfig } from "../../../generator/config/config.js";
import { SchemaRegistry } from "../../../generator/load/registry.js";
import { importValidators } from "../../support/json-schema-suite.js";

/**
 * Each document, and each embedded resource, is read in its own dialect: what a keyword means
 * (draft-04's boolean exclusive bounds and `id`), which keywords exist (another dialect's are
 * annotations), which meta-schemas a `$ref` reaches without the network, which vocabularies a custom
 * meta-schema switches on; and which dialect a document without `$schema` gets.
 */

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-dialects-"));
writeFileSync(join(work, "package.json"), JSON.stringify({ type: "module" }));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const DRAFT_04 = "http://json-schema.org/draft-04/schema#";
const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
const ROOT = "file:///schemas/root.json";

let generation = 0;
async function validatorsOf(documents: readonly MemoryDocument[], defaultDialect?: "draft-04" | "draft-07" | "2020-12") {
  const { files } = await generateFromMemory({ documents, roots: [{ name: "Root", uri: ROOT }], format: false, ...(defaultDialect ? { defaultDialect } : {}) });
  return importValidators(files, join(work, String(generation++)));
}

/** A custom meta-schema (2020-12) listing the given vocabularies. */
const metaSchema = (uri: string, vocabularies: Record<string, boolean>): MemoryDocument => ({
  uri,
  json: { $schema: "https://json-schema.org/draft/2020-12/schema", $id: uri, $vocabulary: vocabularies },
});
const VOCAB = "https://json-schema.org/draft/2020-12/vocab/";

interface ValidityRow {
  readonly name: string;
  readonly root: unknown;
  readonly more?: readonly MemoryDocument[];
  readonly defaultDialect?: "draft-04" | "draft-07" | "2020-12";
  readonly valid: readonly unknown[];
  readonly invalid: readonly unknown[];
}

const VALIDITY: readonly ValidityRow[] = [
  { name: "draft-04: exclusiveMaximum true makes maximum exclusive", root: { $schema: DRAFT_04, maximum: 3, exclusiveMaximum: true }, valid: [2.9, "x"], invalid: [3, 4] },
  { name: "draft-04: exclusiveMinimum false leaves minimum inclusive", root: { $schema: DRAFT_04, minimum: 3, exclusiveMinimum: false }, valid: [3], invalid: [2.9] },
  { name: "draft-04: const is draft-06's, an annotation", root: { $schema: DRAFT_04, const: 1 }, valid: [1, 2], invalid: [] },
  {
    name: "draft-04: id names a resource, $id does not",
    root: {
      $schema: DRAFT_04,
      definitions: { A: { id: "http://x.test/a.json", type: "string" }, B: { $id: "http://x.test/b.json", type: "number" } },
      properties: { a: { $ref: "http://x.test/a.json" }, b: { $ref: "#/definitions/B" } },
    },
    valid: [{ a: "s", b: 1 }],
    invalid: [{ a: 1 }, { b: "s" }],
  },
  { name: "draft-04: keywords beside $ref are ignored", root: { $schema: DRAFT_04, definitions: { S: { type: "string" } }, properties: { p: { $ref: "#/definitions/S", maxLength: 1 } } }, valid: [{ p: "long" }], invalid: [{ p: 1 }] },
  { name: "draft-06: exclusiveMaximum is a number", root: { $schema: "http://json-schema.org/draft-06/schema#", exclusiveMaximum: 3 }, valid: [2], invalid: [3] },
  { name: "draft-06: if is draft-07's, an annotation", root: { $schema: "http://json-schema.org/draft-06/schema#", if: true, then: false }, valid: [1], invalid: [] },
  { name: "draft-07: dependencies validates", root: { $schema: DRAFT_07, dependencies: { a: ["b"] } }, valid: [{ a: 1, b: 2 }], invalid: [{ a: 1 }] },
  { name: "2020-12: dependencies is an earlier dialect's, an annotation", root: { dependencies: { a: ["b"] } }, valid: [{ a: 1 }], invalid: [] },
  { name: "2020-12: additionalItems is an annotation", root: { prefixItems: [{ type: "string" }], additionalItems: false }, valid: [["a", 1]], invalid: [[1]] },
  {
    name: "an embedded resource in its own dialect (draft-04 inside 2020-12)",
    root: { $defs: { Old: { $id: "http://x.test/old.json", $schema: DRAFT_04, maximum: 3, exclusiveMaximum: true } }, properties: { n: { $ref: "http://x.test/old.json" } } },
    valid: [{ n: 2 }],
    invalid: [{ n: 3 }],
  },
  {
    name: "a document without $schema in the default dialect given",
    root: { maximum: 3, exclusiveMaximum: true },
    defaultDialect: "draft-04",
    valid: [2],
    invalid: [3],
  },
  { name: "the bundled draft-04 meta-schema", root: { $ref: DRAFT_04 }, defaultDialect: "draft-04", valid: [{ type: "string" }, { maximum: 1, exclusiveMaximum: true }], invalid: [{ type: 5 }, { exclusiveMaximum: 1 }] },
  { name: "the bundled draft-07 meta-schema", root: { $ref: DRAFT_07 }, defaultDialect: "draft-07", valid: [{ if: {}, then: {} }, true], invalid: [{ minLength: -1 }, { required: "a" }] },
  {
    name: "$vocabulary without validation: its keywords are annotations, the applicator's still apply",
    root: { $schema: "https://x.test/meta", properties: { n: { minimum: 10 }, gone: false } },
    more: [metaSchema("https://x.test/meta", { [`${VOCAB}core`]: true, [`${VOCAB}applicator`]: true })],
    valid: [{ n: 1 }],
    invalid: [{ gone: 1 }],
  },
  {
    name: "$vocabulary without unevaluated: unevaluatedProperties is an annotation",
    root: { $schema: "https://x.test/meta", properties: { a: { type: "string" } }, unevaluatedProperties: false },
    more: [metaSchema("https://x.test/meta", { [`${VOCAB}core`]: true, [`${VOCAB}applicator`]: true, [`${VOCAB}validation`]: true })],
    valid: [{ a: "s", b: 1 }],
    invalid: [{ a: 1 }],
  },
  {
    name: "$vocabulary: an unknown optional vocabulary is ignored",
    root: { $schema: "https://x.test/meta", type: "number" },
    more: [metaSchema("https://x.test/meta", { [`${VOCAB}core`]: true, [`${VOCAB}validation`]: true, "https://x.test/vocab/mine": false })],
    valid: [1],
    invalid: ["s"],
  },
];

describe("what each dialect's keywords mean", () => {
  it.each(VALIDITY)("$name", async (row) => {
    const validators = await validatorsOf([...(row.more ?? []), { uri: ROOT, json: row.root }], row.defaultDialect);
    for (const value of row.valid) expect(validators.isRoot(value), JSON.stringify(value)).toBe(true);
    for (const value of row.invalid) expect(validators.isRoot(value), JSON.stringify(value)).toBe(false);
  });
});

const REFUSALS: readonly { name: string; documents: readonly MemoryDocument[]; error: string }[] = [
  { name: "divisibleBy is draft-03's", documents: [{ uri: ROOT, json: { $schema: DRAFT_04, divisibleBy: 2 } }], error: `${ROOT}#/divisibleBy: keyword "divisibleBy" is draft-03's` },
  {
    name: "a draft-03 $schema",
    documents: [{ uri: ROOT, json: { $schema: "http://json-schema.org/draft-03/schema#" } }],
    error: `${ROOT}#/$schema: $schema "http://json-schema.org/draft-03/schema#" is draft-03 or older`,
  },
  {
    name: "a draft-04 exclusiveMaximum without maximum",
    documents: [{ uri: ROOT, json: { $schema: DRAFT_04, exclusiveMaximum: true } }],
    error: `${ROOT}#/exclusiveMaximum: in draft-04 exclusiveMaximum is a boolean that makes "maximum" exclusive`,
  },
  {
    name: "a boolean exclusiveMaximum outside draft-04, with the way to read it as draft-04",
    documents: [{ uri: ROOT, json: { maximum: 3, exclusiveMaximum: true } }],
    error: `${ROOT}#/exclusiveMaximum: exclusiveMaximum must be a number in 2020-12, got a boolean (draft-04's form: declare "$schema"`,
  },
  { name: "a keyword no dialect has", documents: [{ uri: ROOT, json: { $schema: DRAFT_04, colour: "red" } }], error: `${ROOT}#/colour: unknown keyword "colour"` },
  {
    name: "a required vocabulary mcp-tasks-gen does not know",
    documents: [metaSchema("https://x.test/meta", { [`${VOCAB}core`]: true, "https://x.test/vocab/mine": true }), { uri: ROOT, json: { $schema: "https://x.test/meta" } }],
    error: `${ROOT}#/$schema: $schema "https://x.test/meta" requires the vocabulary "https://x.test/vocab/mine" (https://x.test/meta#/$vocabulary)`,
  },
  {
    name: "a $vocabulary that is no object",
    documents: [
      { uri: "https://x.test/meta", json: { $schema: "https://json-schema.org/draft/2020-12/schema", $id: "https://x.test/meta", $vocabulary: [`${VOCAB}core`] } },
      { uri: ROOT, json: { $schema: "https://x.test/meta" } },
    ],
    error: "https://x.test/meta#/$vocabulary: $vocabulary must be an object of vocabulary URIs to booleans",
  },
  {
    name: "a required format-assertion vocabulary (formats are never asserted)",
    documents: [metaSchema("https://x.test/meta", { [`${VOCAB}core`]: true, [`${VOCAB}format-assertion`]: true }), { uri: ROOT, json: { $schema: "https://x.test/meta" } }],
    error: `${ROOT}#/$schema: $schema "https://x.test/meta" requires the vocabulary "${VOCAB}format-assertion"`,
  },
];

describe("what stops generation, with one located line", () => {
  it.each(REFUSALS)("$name", async (row) => {
    const run = generateFromMemory({ documents: row.documents, roots: [{ name: "Root", uri: ROOT }], format: false });
    await expect(run).rejects.toBeInstanceOf(GeneratorError);
    const message = await run.then(
      () => "",
      (e: Error) => e.message,
    );
    expect(message.startsWith(row.error), message).toBe(true);
    expect(message).not.toContain("\n");
  });
});

describe("the dialect of a remote document without $schema", () => {
  const remote = { definitions: { A: { type: "string" } } };
  const referrer = (dialect: string) => ({ $schema: dialect, $ref: "http://x.test/remote.json#/definitions/A" });

  it.each([
    { referrer: DRAFT_07, inherits: true, expected: "draft-07" },
    { referrer: DRAFT_04, inherits: true, expected: "draft-04" },
    { referrer: DRAFT_07, inherits: false, expected: "2020-12" },
  ])("referred to from $referrer, inheriting: $inherits → $expected", ({ referrer: dialect, inherits, expected }) => {
    const registry = new SchemaRegistry("2020-12");
    registry.addDocument({ file: "remote.json", retrievalUri: "http://x.test/remote.json", json: remote, ...(inherits ? { inheritsDialect: true } : {}) });
    const root = registry.addDocument({ file: "root.json", retrievalUri: ROOT, json: referrer(dialect) });
    const target = registry.resolveRef("http://x.test/remote.json#/definitions/A", root.context);
    expect(target.context.dialect).toBe(expected);
    expect(registry.resolveRef("http://x.test/remote.json", root.context).context.dialect).toBe(expected);
  });

  it("a remote with $schema keeps its own", () => {
    const registry = new SchemaRegistry("2020-12");
    registry.addDocument({ file: "remote.json", retrievalUri: "http://x.test/remote.json", json: { $schema: DRAFT_04, ...remote }, inheritsDialect: true });
    const root = registry.addDocument({ file: "root.json", retrievalUri: ROOT, json: referrer(DRAFT_07) });
    expect(registry.resolveRef("http://x.test/remote.json#/definitions/A", root.context).context.dialect).toBe("draft-04");
  });
});

describe("--dialect and the set's defaultDialect", () => {
  const schema = join(work, "schema.json");
  writeFileSync(schema, "{}");
  const out = join(work, "out");

  it.each([
    { flags: {}, dialect: "2020-12", chosen: undefined },
    { flags: { dialect: "draft-04" }, dialect: "draft-04", chosen: true },
    { flags: { dialect: "2019-09" }, dialect: "2019-09", chosen: true },
  ])("--schema with $flags → $dialect (chosen: $chosen)", ({ flags, dialect, chosen }) => {
    const [set] = configFromFlags({ schema: [schema], out, ...flags }).sets;
    expect([set!.defaultDialect, set!.dialectChosen]).toEqual([dialect, chosen]);
  });

  it.each([
    { flags: {}, dialect: "2020-12", chosen: undefined },
    { flags: { dialect: "draft-06" }, dialect: "draft-06", chosen: true },
  ])("a diff operand with $flags → $dialect (chosen: $chosen)", ({ flags, dialect, chosen }) => {
    const { set } = revisionFrom(schema, flags, undefined);
    expect([set.defaultDialect, set.dialectChosen]).toEqual([dialect, chosen]);
  });

  it.each(["draft-03", "draft4", "2021-01", ""])("--dialect %j is refused, naming the dialects", (value) => {
    expect(() => configFromFlags({ schema: [schema], out, dialect: value })).toThrow(`--dialect ${value}: expected one of draft-04, draft-06, draft-07, 2019-09, 2020-12`);
  });

  it.each([
    { set: {}, dialect: "2020-12", chosen: undefined },
    { set: { defaultDialect: "draft-06" as const }, dialect: "draft-06", chosen: true },
  ])("a config set $set → $dialect (chosen: $chosen)", ({ set, dialect, chosen }) => {
    const [resolved] = resolveConfig({ sets: [{ name: "a", schemas: ["a.json"], ...set }] }, work).sets;
    expect([resolved!.defaultDialect, resolved!.dialectChosen]).toEqual([dialect, chosen]);
  });
});
