import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fixturePath, projectRoot } from "../support/paths.js";

/**
 * schemas/mcp-core-2025-11-25.schema.json stands in for the five MCP core definitions that
 * the Tasks schema `$ref`s by remote URL. These tests prove each local definition accepts and
 * rejects exactly what the upstream definition does.
 */

const NAMES = ["RequestId", "Result", "ProgressToken", "PaginatedRequestParams", "NotificationParams"] as const;
const RUNS = 2_000;

const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, "utf8"));
const real = readJson(fixturePath("mcp-spec", "2025-11-25", "schema.json"));
const local = readJson(join(projectRoot, "schemas", "mcp-core-2025-11-25.schema.json"));

// Neither document is added under its own $id (the upstream one has none), so give each a key.
const REAL_ID = "urn:test:mcp-core-real";
const LOCAL_ID = "urn:test:mcp-core-local";

// The upstream document declares 2020-12, whose meta-schema draft-07 Ajv cannot load, so it is
// added without `$schema`. The five definitions only use keywords that mean the same in both
// drafts; the Ajv2020 reading of the untouched upstream document below keeps that honest.
const { $schema: _upstreamDialect, ...realBody } = real;
const ajv07 = new Ajv({ strict: false }).addSchema(realBody, REAL_ID).addSchema(local, LOCAL_ID);
const ajv2020 = new Ajv2020({ strict: false }).addSchema(real, REAL_ID);

type Judge = (value: unknown) => boolean;

/** Upstream (draft-07 reading), upstream (2020-12 reading), local: all must agree. */
function judgesFor(name: string): Judge[] {
  const ref = (id: string) => ({ $ref: `${id}#/$defs/${name}` });
  return [ajv07.compile(ref(REAL_ID)), ajv2020.compile(ref(REAL_ID)), ajv07.compile(ref(LOCAL_ID))].map(
    (validate): Judge => (value) => validate(value) === true,
  );
}

const agree = (judges: Judge[], value: unknown): boolean => new Set(judges.map((judge) => judge(value))).size === 1;

// One hand-picked list serves every definition: the scalars probe the string|integer ids, the
// objects probe `_meta`, `progressToken` and `cursor`, and each group is off-shape for the other.
const EDGE_VALUES: unknown[] = [
  // strings and numbers at the integer/float boundary
  "", "abc", "0", "1.5", 0, -0, 1, -1, 1.0, 1.5, -2.5, 1e300, 2 ** 53, 2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MAX_VALUE, Number.EPSILON,
  NaN, Infinity, -Infinity, 10n,
  // other non-objects
  true, false, null, undefined, [], [1], ["a"], [{}], [{ _meta: {} }],
  // objects with and without a well- or ill-typed `_meta`
  {}, Object.create(null), { extra: 1 }, { _meta: {} }, { _meta: { a: 1, b: [null] } },
  { _meta: null }, { _meta: [] }, { _meta: "x" }, { _meta: 1 }, { _meta: true }, { _meta: {}, extra: [1] },
  // `progressToken` inside `_meta` (checked) and at the top level (unconstrained)
  { _meta: { progressToken: "t" } }, { _meta: { progressToken: 3 } }, { _meta: { progressToken: -0 } },
  { _meta: { progressToken: 1.5 } }, { _meta: { progressToken: null } }, { _meta: { progressToken: true } },
  { _meta: { progressToken: [] } }, { _meta: { progressToken: {} } }, { _meta: { progressToken: "t", other: {} } },
  { progressToken: 1.5 }, { progressToken: "t" },
  // `cursor` string vs other types
  { cursor: "" }, { cursor: "c" }, { cursor: 1 }, { cursor: null }, { cursor: ["c"] }, { cursor: {} },
  { cursor: "c", _meta: { progressToken: 7 } }, { cursor: 1, _meta: { progressToken: 7 } },
  { cursor: "c", _meta: { progressToken: 7.5 } }, { cursor: "c", _meta: "x", extra: {} },
];

// Scalars concentrated where string|integer can be told apart from other numbers.
const scalar = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double(),
  fc.constantFrom(-0, 2 ** 53, 2 ** 60, NaN, Infinity, -Infinity),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.oneof(scalar, fc.anything());

/** `known` keys (each optional) on top of random extra properties. */
const withExtras = (known: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .tuple(fc.record(known, { requiredKeys: [] }), fc.dictionary(fc.string(), value, { maxKeys: 3 }))
    .map(([picked, extra]) => ({ ...extra, ...picked }));

// Objects shaped like Result / *Params, with `_meta` sometimes an object carrying `progressToken`.
const meta = fc.oneof(value, withExtras({ progressToken: value }));
const shaped = fc.oneof(scalar, withExtras({ _meta: meta, cursor: value, progressToken: value }));

describe("local MCP core definitions", () => {
  it("hold exactly the five definitions and are valid draft-07", () => {
    expect(Object.keys(local.$defs as object).sort()).toEqual([...NAMES].sort());
    expect(local.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(ajv07.validateSchema(local)).toBe(true);
  });

  it("have no remote $ref anywhere", () => {
    const refs: unknown[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === "object") {
        for (const [key, child] of Object.entries(node)) {
          if (key === "$ref") refs.push(child);
          walk(child);
        }
      }
    };
    walk(local);
    expect(refs.length).toBeGreaterThan(0); // guards the walk itself
    for (const ref of refs) expect(ref).toMatch(/^#\//);
  });
});

describe.each(NAMES)("%s matches upstream", (name) => {
  const judges = judgesFor(name);

  it("on hand-picked edge values", () => {
    const disagreements = EDGE_VALUES.filter((v) => !agree(judges, v));
    expect(disagreements).toEqual([]);
  });

  it("accepts and rejects at least one edge value (not vacuous)", () => {
    for (const judge of judges) {
      const verdicts = EDGE_VALUES.map(judge);
      expect(verdicts).toContain(true);
      expect(verdicts).toContain(false);
    }
  });

  it(`on ${RUNS} arbitrary values`, () => {
    fc.assert(fc.property(fc.anything(), (v) => agree(judges, v)), { numRuns: RUNS });
  });

  it(`on ${RUNS} values biased to the definition's shape`, () => {
    fc.assert(fc.property(shaped, (v) => agree(judges, v)), { numRuns: RUNS });
  });
});
