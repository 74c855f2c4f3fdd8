import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ajvForSet } from "../../bench/lib/contenders.mjs";
import { allHotPathDefinitions, hotPathDefinitions, type SchemaDocument, type SetConfig } from "../../bench/lib/hot-path.mjs";
import { buildInputs } from "../../bench/lib/hot-path-inputs.mjs";
import { medianOfRuns, quantile, ratioSpread } from "../../bench/lib/measure.mjs";
import { compileTypeBox, TypeBoxRefusal } from "../../bench/lib/typebox-schema.mjs";
import { tagsFor, typiaSources } from "../../bench/lib/typia-types.mjs";
import { projectRoot } from "../support/paths.js";

/**
 * The pieces of `npm run bench` (bench/validators.mjs) time the right things: the definitions it measures are
 * the ones the generated engines check per message (read from the generated code, so they cannot drift), the
 * TypeBox contender checks what ajv checks on every bench input or says why it cannot, and typia's copy of the
 * types carries the schema's integers and bounds. Nothing here is timed.
 */
const config = JSON.parse(readFileSync(join(projectRoot, "mcp-tasks-gen.config.json"), "utf8")) as { outDir: string; sets: SetConfig[] };
const outDir = join(projectRoot, config.outDir);
const setNamed = (name: string): SetConfig => config.sets.find((s) => s.name === name)!;

describe("the hot-path definitions", () => {
  it("are the results, whole requests and notifications each set's client.ts/server.ts check", () => {
    const ids = (name: string) => hotPathDefinitions(setNamed(name), projectRoot, outDir).definitions.map((d) => `${d.kind}:${d.name}`);
    // Spot checks of the derivation; the full lists follow the generated code.
    expect(ids("ext-tasks-draft")).toEqual(
      expect.arrayContaining(["result:GetTaskResult", "result:CreateTaskResult", "request:GetTaskRequest", "notification:TaskStatusNotification", "request:SubscriptionsListenRequest"]),
    );
    // tasks/list's params are the core's PaginatedRequestParams: the request is found by the method the client names.
    expect(ids("tasks-2025-11-25")).toEqual(expect.arrayContaining(["request:ListTasksRequest", "request:ElicitRequest", "result:ElicitResult"]));
    expect(ids("elicitation-codex")).toEqual([]);
    expect(allHotPathDefinitions(config, projectRoot).length).toBeGreaterThanOrEqual(30);
  });

  it("cover every validator the generated engines import, except a pinned list that is not per message", () => {
    // A validator newly imported by a client or server is either measured (its name says result, request or
    // notification) or must be added here on purpose.
    const skipped = Object.fromEntries(config.sets.map((set) => [set.name, hotPathDefinitions(set, projectRoot, outDir).skipped]));
    expect(skipped).toEqual({
      "tasks-2025-11-25": ["isToolTaskSupport", "validateTaskMetadata"],
      "ext-tasks-draft": [
        "isDetailedTask",
        "validateDetailedTask",
        "validateInputRequests",
        "validateInputResponses",
        "validateMissingRequiredClientCapabilityErrorData",
        "validateUnsupportedProtocolVersionErrorData",
      ],
      "ext-tasks-2026-05-22": ["isDetailedTask", "validateDetailedTask", "validateInputRequests", "validateInputResponses", "validateResultMeta"],
      "elicitation-codex": [],
    });
    for (const set of config.sets) {
      const measured = new Set(hotPathDefinitions(set, projectRoot, outDir).definitions.map((d) => d.checkedAs));
      for (const file of ["client.ts", "server.ts"]) {
        let source: string;
        try {
          source = readFileSync(join(outDir, set.name, file), "utf8");
        } catch {
          continue;
        }
        // Every body check the engines run on a result is measured.
        for (const [, type] of source.matchAll(/type: "(\w+Result)"/g)) expect(measured, `${set.name}/${file} checks ${type}`).toContain(type);
      }
    }
  });

  it("refuses a set whose engine checks a result its validators do not export", () => {
    const dir = mkdtempSync(join(tmpdir(), "bench-hot-path-"));
    try {
      const set = setNamed("ext-tasks-draft");
      mkdirSync(join(dir, set.name));
      writeFileSync(join(dir, set.name, "client.ts"), 'import { validateNoSuchResult } from "./validators.js";\n');
      writeFileSync(join(dir, set.name, "validators.ts"), "export function isGetTaskResult(value: unknown) {}\n");
      expect(() => hotPathDefinitions(set, projectRoot, dir)).toThrow(/NoSuchResult is checked per message but validators\.ts exports no isNoSuchResult/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the bench inputs and the TypeBox converter", () => {
  const definitions = allHotPathDefinitions(config, projectRoot);
  const ajvBySet = new Map(config.sets.map((set) => [set.name, ajvForSet(set, projectRoot)]));

  it("give every definition valid inputs and a peer's typical mistakes, judged by ajv", () => {
    for (const d of definitions) {
      const ajv = ajvBySet.get(d.set)!;
      const compiled = ajv.compile(d.name);
      const inputs = buildInputs({ schema: compiled.schema, doc: compiled.doc, kind: d.kind, resolveRef: ajv.resolveRef, judge: (v) => compiled.standard(v) });
      const id = `${d.set}/${d.name}`;
      expect(inputs.valid.length, id).toBeGreaterThan(0);
      for (const input of [...inputs.valid, ...inputs.invalid]) expect(compiled.standard(input.value), `${id}: ${input.label}`).toBe(input.valid);
      const labels = inputs.invalid.map((i) => i.label);
      expect(labels, id).toEqual(expect.arrayContaining(["null", "not an object (a string)"]));
      if (d.kind !== "result") expect(labels, id).toContain("wrong method");
      // A task's result or notification: one valid input per status.
      if (["GetTaskResult", "CreateTaskResult", "TaskStatusNotification"].includes(d.name)) {
        expect(inputs.valid.map((i) => i.label), id).toEqual(expect.arrayContaining(["working", "input_required", "completed", "failed", "cancelled"]));
      }
    }
  });

  it("maps every hot-path definition so TypeBox gives ajv's verdict on every bench input", () => {
    for (const d of definitions) {
      const ajv = ajvBySet.get(d.set)!;
      const compiled = ajv.compile(d.name);
      const check = compileTypeBox({ schema: compiled.schema, doc: compiled.doc, pointer: compiled.pointer, resolveRef: ajv.resolveRef });
      const inputs = buildInputs({ schema: compiled.schema, doc: compiled.doc, kind: d.kind, resolveRef: ajv.resolveRef, judge: (v) => compiled.standard(v) });
      for (const input of [...inputs.valid, ...inputs.invalid]) expect(check(input.value), `${d.set}/${d.name}: ${input.label}`).toBe(input.valid);
    }
  });

  const doc: SchemaDocument = { file: "test.json", uri: "https://example.com/test.json", schema: {}, role: "seed" };
  const noRefs = () => {
    throw new Error("no $ref here");
  };
  const typebox = (schema: unknown) => compileTypeBox({ schema, doc, pointer: "#/$defs/X", resolveRef: noRefs });

  it("refuses, with the location, what TypeBox cannot check as JSON Schema does", () => {
    for (const [schema, message] of [
      [{ oneOf: [{ type: "string" }, { type: "number" }] }, /test\.json\/\$defs\/X: oneOf has no exact TypeBox mapping/],
      [{ type: "object", patternProperties: { "^x-": {} } }, /patternProperties has no exact TypeBox mapping/],
      [{ if: { type: "string" }, then: { minLength: 1 } }, /if has no exact TypeBox mapping/],
      [{ type: "object", properties: { a: { const: { b: 1 } } } }, /\/\$defs\/X\/properties\/a\/const: a constant object/],
      [{ type: "object", propertyNames: { pattern: "^a" } }, /propertyNames: only \{type: "string"\}/],
      [{ minLength: 2 }, /number or string keywords without a type/],
      [{ type: "array", items: [{ type: "string" }] }, /a tuple form/],
    ] as const) {
      expect(() => typebox(schema), JSON.stringify(schema)).toThrow(TypeBoxRefusal);
      expect(() => typebox(schema), JSON.stringify(schema)).toThrow(message);
    }
  });

  it("maps the JSON Schema meaning, not the TypeScript one", () => {
    // Object keywords without a type leave other values alone.
    const typeless = typebox({ properties: { a: { type: "string" } }, required: ["a"] });
    expect([typeless("text"), typeless(3), typeless({ a: "x" }), typeless({ a: 1 }), typeless({})]).toEqual([true, true, true, false, false]);
    // A required member no property names is still required; closed objects refuse other members.
    const closed = typebox({ type: "object", properties: { a: { type: "integer", minimum: 1 } }, required: ["a", "b"], additionalProperties: false });
    expect([closed({ a: 1 }), closed({ a: 1, b: 2 })]).toEqual([false, false]);
    const open = typebox({ type: "object", required: ["b"] });
    expect([open({}), open({ b: null }), open([])]).toEqual([false, true, false]);
    // `format` is an annotation (TypeBox would fail an unknown format); integer bounds hold.
    const id = typebox({ type: ["integer", "null"], minimum: 0, maximum: 9, format: "uint32" });
    expect([id(0), id(9), id(10), id(1.5), id(null), id("1")]).toEqual([true, true, false, false, true, false]);
  });
});

describe("typia's tagged types", () => {
  it("tag integers with the narrowest typia type their bounds allow, and every bound", () => {
    expect(tagsFor(JSON.stringify({ integer: true }))).toBe('tags.Type<"int64">');
    expect(tagsFor(JSON.stringify({ integer: true, minimum: 0 }))).toBe('tags.Type<"uint64"> & tags.Minimum<0>');
    expect(tagsFor(JSON.stringify({ integer: true, minimum: 0, maximum: 4294967295 }))).toBe('tags.Type<"uint32"> & tags.Minimum<0> & tags.Maximum<4294967295>');
    expect(tagsFor(JSON.stringify({ integer: true, minimum: -5, maximum: 5 }))).toBe('tags.Type<"int32"> & tags.Minimum<-5> & tags.Maximum<5>');
    expect(tagsFor(JSON.stringify({ integer: false, minimum: 0, maximum: 1 }))).toBe("tags.Minimum<0> & tags.Maximum<1>");
    expect(tagsFor(JSON.stringify({ integer: false, exclusiveMinimum: 0 }))).toBe("tags.ExclusiveMinimum<0>");
    expect(tagsFor(JSON.stringify({ integer: false }))).toBe("");
  });

  it("carry each property's own constraints where the same name means different numbers", () => {
    const set = setNamed("ext-tasks-draft");
    const ajv = ajvForSet(set, projectRoot);
    const defs = ["GetTaskResult", "DiscoverResult", "CallToolResult"].map((name) => ({ name, ...ajv.find(name)! }));
    const out = typiaSources(readFileSync(join(outDir, set.name, "types.ts"), "utf8"), defs, ajv.resolveRef, ajv.find);
    expect(out.refused).toEqual(new Map());
    // A task's ttlMs is a safe integer or null; a cacheable result's ttlMs a non-negative integer.
    expect(out.types).toContain('ttlMs: (number & tags.Type<"int64"> & tags.Minimum<-9007199254740991> & tags.Maximum<9007199254740991>) | null;');
    expect(out.types).toContain('ttlMs: (number & tags.Type<"uint64"> & tags.Minimum<0>);');
    // An annotation's priority is a number from 0 to 1.
    expect(out.types).toMatch(/priority\?: \(number & tags\.Minimum<0> & tags\.Maximum<1>\)/);
    expect(out.types.startsWith('import type { tags } from "typia";')).toBe(true);
    // typia would read a JSDoc `@format` as a check; the schema's format is an annotation.
    expect(readFileSync(join(outDir, set.name, "types.ts"), "utf8")).toContain("@format");
    expect(out.types).not.toContain("@format");
    expect(out.checks).toContain("export const isGetTaskResult = typia.createIs<T.GetTaskResult>();");
  });

  it("use createEquals where objects are closed, and refuse what no tag expresses", () => {
    const set = setNamed("ext-tasks-2026-05-22");
    const ajv = ajvForSet(set, projectRoot);
    const types = readFileSync(join(outDir, set.name, "types.ts"), "utf8");
    const out = typiaSources(types, [{ name: "GetTaskRequest", ...ajv.find("GetTaskRequest")! }], ajv.resolveRef, ajv.find);
    expect(out.checks).toContain("export const isGetTaskRequest = typia.createEquals<T.GetTaskRequest>();");
    const doc: SchemaDocument = { file: "x.json", uri: "https://example.com/x.json", schema: {}, role: "seed" };
    const refused = typiaSources(types, [{ name: "GetTaskRequest", schema: { type: "object", properties: { a: { type: "string", minLength: 1 } } }, doc }], ajv.resolveRef, () => undefined);
    expect(refused.refused.get("GetTaskRequest")).toMatch(/no typia tag here for minLength at x\.json\/properties\/a/);
    const mixed = typiaSources(
      types,
      [{ name: "GetTaskRequest", schema: { type: "object", properties: { a: { type: "object", additionalProperties: false } } }, doc }],
      ajv.resolveRef,
      () => undefined,
    );
    expect(mixed.refused.get("GetTaskRequest")).toMatch(/closed and open objects/);
  });
});

describe("the spread of a ratio across rounds", () => {
  it("quantiles interpolate between ranks and the median of an even count is the mean of the middle two", () => {
    expect(quantile([3, 1, 2], 0.5)).toBe(2);
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3, 4, 5], 0.25)).toBe(2);
    expect(quantile([1, 2, 3, 4, 5], 0.75)).toBe(4);
    expect(quantile([10, 20], 0.75)).toBe(17.5);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it("pairs the rounds: two contenders slowed alike by a noisy round keep their ratio", () => {
    // Ours is 0.9× the other in every round, while the machine's speed varies 3× between rounds.
    const other = [100, 300, 150, 250, 120];
    const ours = other.map((x) => x * 0.9);
    const spread = ratioSpread(ours, other);
    expect(spread.low).toBeCloseTo(0.9, 12);
    expect(spread.high).toBeCloseTo(0.9, 12);
    // Paired with other rounds than their own, the same samples spread from 0.75× to 1.08×.
    const unpaired = ratioSpread(ours, [...other].reverse());
    expect(unpaired.low).toBeCloseTo(0.75, 12);
    expect(unpaired.high).toBeCloseTo(1.08, 12);
  });

  it("refuses rounds that do not pair up", () => {
    expect(() => ratioSpread([1, 2], [1])).toThrow(/2 rounds against 1/);
    expect(() => ratioSpread([], [])).toThrow();
  });
});

describe("several measuring processes as one", () => {
  it("takes each number's median, so one process's outlier for one contender is left out", () => {
    // Three processes; in the second, ours settled on slower code (0.5 of its speed there), and in the third ajv did.
    const runs = [
      { is: { ours: { valid: 100, invalid: 200 }, ajv: { valid: 50, invalid: 40 } }, isSpread: { ajv: { valid: { low: 1.9, high: 2.1 } } } },
      { is: { ours: { valid: 50, invalid: 210 }, ajv: { valid: 52, invalid: 41 } }, isSpread: { ajv: { valid: { low: 0.9, high: 1.1 } } } },
      { is: { ours: { valid: 104, invalid: 190 }, ajv: { valid: 20, invalid: 39 } }, isSpread: { ajv: { valid: { low: 4.9, high: 5.3 } } } },
    ];
    expect(medianOfRuns(runs.map((r) => r.is))).toEqual({ ours: { valid: 100, invalid: 200 }, ajv: { valid: 50, invalid: 40 } });
    expect(medianOfRuns(runs.map((r) => r.isSpread))).toEqual({ ajv: { valid: { low: 1.9, high: 2.1 } } });
  });

  it("uses what the processes that measured a number have, and leaves out what none has", () => {
    // A process that failed reports no numbers: the others decide (the median of two is their mean).
    expect(medianOfRuns([{ ours: 10, typia: 4 }, undefined, { ours: 14 }])).toEqual({ ours: 12, typia: 4 });
    expect(medianOfRuns([undefined, undefined])).toBeUndefined();
    expect(() => medianOfRuns([{ a: 1 }, 2])).toThrow(/mixed/);
  });
});
