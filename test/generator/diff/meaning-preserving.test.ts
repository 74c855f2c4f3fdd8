import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { checkConfig, diffModels, hasBreaking, loadSet, resolveConfig, type ApiDiff, type ResolvedSet } from "../../../generator/index.js";
import type { Model } from "../../../generator/analyze/model.js";
import { BUNDLED_SETS } from "../../../generator/init/bundled.js";
import { projectRoot } from "../../support/paths.js";

/**
 * `diff` tells the truth: for every bundled set, a rewrite of its main schema that keeps
 * its meaning (rename a definition, inline a `$ref`, extract an inline schema into a definition,
 * reorder keys, variants and `allOf` branches, swap an `anyOf` of constants for an `enum`) makes
 * `diff` report no breaking change. fast-check picks the rewrite's targets and the orders.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-meaning-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SETS = Object.keys(BUNDLED_SETS);
const resolved = new Map<string, ResolvedSet>(
  SETS.map((name) => [name, resolveConfig(checkConfig({ sets: [{ name, bundled: name }] }, "(bundled)"), projectRoot).sets[0]!] as const),
);
const models = new Map<string, Model>();
const modelOf = (name: string) => {
  if (!models.has(name)) models.set(name, loadSet(resolved.get(name)!, projectRoot).model);
  return models.get(name)!;
};

let written = 0;
/** The diff from the bundled set to the same set with its main schema rewritten. */
function diffAfter(name: string, rewrite: (schema: Schema) => Schema): ApiDiff {
  const set = resolved.get(name)!;
  const [main, ...rest] = set.schemas;
  const schema = JSON.parse(readFileSync(main!, "utf8")) as Schema;
  const path = join(work, `${name}-${written++}.schema.json`);
  writeFileSync(path, JSON.stringify(rewrite(schema)));
  const after = loadSet({ ...set, schemas: [path, ...rest] }, projectRoot).model;
  return diffModels({ label: "bundled", model: modelOf(name) }, { label: "rewritten", model: after });
}

const defsOf = (schema: Schema): { [key: string]: Json } => (schema.$defs ?? schema.definitions ?? {}) as { [key: string]: Json };
const container = (schema: Schema) => (schema.$defs ? "$defs" : "definitions");

/** Every object of a JSON value, with the function to replace it in place. */
function objectsIn(value: Json, visit: (node: { [key: string]: Json }) => void): void {
  if (Array.isArray(value)) value.forEach((v) => objectsIn(v, visit));
  else if (value && typeof value === "object") {
    visit(value);
    for (const v of Object.values(value)) objectsIn(v, visit);
  }
}

/** Names the set's config refers to (bindings, methods): a rewrite leaves them alone. */
function pinnedNames(name: string): Set<string> {
  const set = resolved.get(name)! as unknown as { bindings?: Record<string, unknown>; methods?: Record<string, Record<string, string>> };
  return new Set([...Object.keys(set.bindings ?? {}), ...Object.values(set.methods ?? {}).flatMap((m) => Object.values(m))]);
}

const shuffled = <T,>(items: readonly T[], seed: number): T[] => {
  const out = [...items];
  let s = seed || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

/** The schema with definition `old` called `fresh`, and every `$ref` to it following. */
function renameDefinition(schema: Schema, old: string, fresh: string): Schema {
  const ref = `#/${container(schema)}/${old}`;
  const text = JSON.stringify(schema).split(JSON.stringify(ref)).join(JSON.stringify(`#/${container(schema)}/${fresh}`));
  const out = JSON.parse(text) as Schema;
  out[container(schema)] = Object.fromEntries(Object.entries(defsOf(out)).map(([k, v]) => [k === old ? fresh : k, v]));
  return out;
}

const REWRITES: Record<string, (set: string, seed: number) => (schema: Schema) => Schema> = {
  "rename a definition": (set, seed) => (schema) => {
    const defs = defsOf(schema);
    // The method table pairs a request with its result by name (GetTaskRequest → GetTaskResult; a
    // revision that names them otherwise says so in "methods"), so those names stay.
    const paired = new Set(modelOf(set).methods.requests.flatMap((r) => [r.message, r.result ?? ""]));
    // A definition whose body another shares takes its inline copies by their place's name; renamed,
    // the tie leaves them inline (ARCHITECTURE.md › Naming), so such definitions stay too.
    const body = (n: string) => JSON.stringify({ ...(defs[n] as object), $schema: undefined });
    const shared = new Set(Object.keys(defs).filter((n) => Object.keys(defs).some((o) => o !== n && body(o) === body(n))));
    const names = Object.keys(defs).filter((n) => !pinnedNames(set).has(n) && !paired.has(n) && !shared.has(n));
    const old = names[seed % names.length]!;
    return renameDefinition(schema, old, `Renamed${seed % 1000}${old}`);
  },
  "inline a $ref": (_set, seed) => (schema) => {
    const defs = defsOf(schema);
    const sites: { [key: string]: Json }[] = [];
    for (const def of Object.values(defs)) objectsIn(def, (node) => typeof node.$ref === "string" && node.$ref.startsWith(`#/${container(schema)}/`) && sites.push(node));
    if (sites.length === 0) return schema;
    const site = sites[seed % sites.length]!;
    const target = defs[(site.$ref as string).slice(`#/${container(schema)}/`.length)];
    if (!target || typeof target !== "object" || Array.isArray(target) || JSON.stringify(target).includes(JSON.stringify(site.$ref))) return schema;
    delete site.$ref;
    const { $schema: _s, $id: _i, $anchor: _a, ...copy } = structuredClone(target) as { [key: string]: Json };
    // A $ref beside other keywords (an annotation) stays an allOf branch, as 2020-12 reads it.
    if (Object.keys(site).length > 0) site.allOf = [...((site.allOf as Json[]) ?? []), copy];
    else Object.assign(site, copy);
    return schema;
  },
  "extract an inline schema into a definition": (_set, seed) => (schema) => {
    const defs = defsOf(schema);
    const sites: { [key: string]: Json }[] = [];
    for (const def of Object.values(defs)) {
      objectsIn(def, (node) => {
        const properties = node.properties;
        if (!properties || typeof properties !== "object" || Array.isArray(properties)) return;
        for (const value of Object.values(properties)) if (value && typeof value === "object" && !Array.isArray(value) && value.type === "object" && value.properties) sites.push(value);
      });
    }
    if (sites.length === 0) return schema;
    const site = sites[seed % sites.length]!;
    const name = `Extracted${seed % 1000}`;
    defs[name] = { ...site };
    for (const key of Object.keys(site)) delete site[key];
    site.$ref = `#/${container(schema)}/${name}`;
    return schema;
  },
  "reorder keys": (_set, seed) => (schema) => {
    const reorder = (value: Json, depth: number): Json => {
      if (Array.isArray(value)) return value.map((v) => reorder(v, depth + 1));
      if (!value || typeof value !== "object") return value;
      return Object.fromEntries(shuffled(Object.entries(value), seed + depth).map(([k, v]) => [k, reorder(v, depth + 1)]));
    };
    return reorder(schema, 0) as Schema;
  },
  "reorder variants and allOf branches": (_set, seed) => (schema) => {
    objectsIn(schema, (node) => {
      for (const key of ["anyOf", "oneOf", "allOf"]) if (Array.isArray(node[key])) node[key] = shuffled(node[key] as Json[], seed);
    });
    return schema;
  },
  "swap anyOf of consts for enum": () => (schema) => {
    objectsIn(schema, (node) => {
      const variants = node.anyOf;
      if (!Array.isArray(variants) || variants.length < 2) return;
      const consts = variants.map((v) => (v && typeof v === "object" && !Array.isArray(v) && "const" in v && Object.keys(v).every((k) => k === "const" || k === "type") ? v : undefined));
      if (consts.some((c) => c === undefined)) return;
      delete node.anyOf;
      node.enum = consts.map((c) => c!.const!);
    });
    return schema;
  },
};

const breaking = (diff: ApiDiff) => diff.changes.filter((c) => c.client === "breaking" || c.server === "breaking").map((c) => `${c.kind} ${c.subject}: ${c.description}`);

describe.each(SETS)("meaning-preserving rewrites of the bundled set %s", (set) => {
  it.each(Object.keys(REWRITES))("%s: no breaking change", (rewrite) => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (seed) => {
        const diff = diffAfter(set, REWRITES[rewrite]!(set, seed));
        expect(breaking(diff), `${rewrite} (seed ${seed})`).toEqual([]);
        expect(hasBreaking(diff)).toBe(false);
      }),
      // A fixed seed: the same cases in every run (META_RUNS and another seed explore more: CHANGELOG › Unreleased says what they found).
      { numRuns: Number(process.env.META_RUNS ?? 3), seed: Number(process.env.META_SEED ?? 23) },
    );
  }, 120_000);
});

describe("counterexamples the properties found, pinned", () => {
  it("inlining a $ref inside an allOf (TaskStatusNotification.params) compares the merged properties: no change", () => {
    // The inline copy merges with the allOf's open-object branch, so the branches differ one by one.
    const inlined = diffAfter("ext-tasks-draft", (schema) => {
      const params = ((defsOf(schema).TaskStatusNotification as Schema).allOf as Schema[])[1]!.properties as Schema;
      const site = ((params.params as Schema).allOf as Schema[])[0]!;
      expect(site).toEqual({ $ref: "#/$defs/NotificationParams" });
      delete site.$ref;
      Object.assign(site, structuredClone(defsOf(schema).NotificationParams));
      return schema;
    });
    expect(inlined.changes.map((c) => `${c.kind} ${c.subject}`)).toEqual([]);
    // A control: the same allOf with a property of the inlined branch made required is a change.
    const narrowed = diffAfter("ext-tasks-draft", (schema) => {
      const params = ((defsOf(schema).TaskStatusNotification as Schema).allOf as Schema[])[1]!.properties as Schema;
      const site = ((params.params as Schema).allOf as Schema[])[0]!;
      delete site.$ref;
      Object.assign(site, structuredClone(defsOf(schema).NotificationParams), { required: ["_meta"] });
      return schema;
    });
    expect(breaking(narrowed).join("\n")).toContain("TaskStatusNotification.params");
  });
});

describe("the rewrites themselves (controls)", () => {
  it("a rename is reported once, as a rename; a change of meaning is still breaking", () => {
    const renamed = diffAfter("ext-tasks-draft", (schema) => renameDefinition(schema, "Task", "TaskRecord"));
    expect(renamed.changes.map((c) => [c.kind, c.subject, c.description, c.client, c.server])).toEqual([
      ["definition-renamed", "TaskRecord", "renamed from Task, the same values: code that imports Task must import TaskRecord", "compatible", "compatible"],
    ]);
    const narrowed = diffAfter("ext-tasks-draft", (schema) => {
      (defsOf(schema).Task as { required: string[] }).required.push("statusMessage");
      return schema;
    });
    expect(breaking(narrowed)).toContain("property-required Task.statusMessage: now required");
  });
});
