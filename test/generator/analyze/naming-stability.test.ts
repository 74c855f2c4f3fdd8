import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { checkConfig, loadSet, resolveConfig, type ResolvedSet } from "../../../generator/index.js";
import { emitTypes } from "../../../generator/emit/types.js";
import { BUNDLED_SETS } from "../../../generator/init/bundled.js";
import { projectRoot } from "../../support/paths.js";

/**
 * Names stay put (ARCHITECTURE.md › Naming): an inline schema is named after a definition
 * only when it is that definition's copy, so
 * - adding to a bundled schema a definition equal to one of its anonymous subschemas changes the
 *   type text of no property but those it retargets (copies of it: the same JSON, annotations included);
 * - renaming a definition changes only that name, the names derived from it, and its references.
 * Type text is read from the types.ts each schema generates, per property of every declaration.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-naming-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SETS = Object.keys(BUNDLED_SETS);
const resolved = new Map<string, ResolvedSet>(
  SETS.map((name) => [name, resolveConfig(checkConfig({ sets: [{ name, bundled: name }] }, "(bundled)"), projectRoot).sets[0]!] as const),
);
const mainSchema = (set: string) => JSON.parse(readFileSync(resolved.get(set)!.schemas[0]!, "utf8")) as Schema;
const defsOf = (schema: Schema) => (schema.$defs ?? schema.definitions ?? {}) as { [key: string]: Json };
const container = (schema: Schema) => (schema.$defs ? "$defs" : "definitions");

let written = 0;
/** Every property's type text, `Declaration.property` (nested type literals: `Declaration.a.b`). */
function propertyTypes(set: string, schema?: Schema): Map<string, string> {
  const base = resolved.get(set)!;
  let target = base;
  if (schema) {
    const path = join(work, `${set}-${written++}.schema.json`);
    writeFileSync(path, JSON.stringify(schema));
    target = { ...base, schemas: [path, ...base.schemas.slice(1)] };
  }
  const source = ts.createSourceFile("types.ts", emitTypes(loadSet(target, projectRoot).model), ts.ScriptTarget.ES2022, true);
  const texts = new Map<string, string>();
  const visit = (node: ts.Node, path: string | undefined): void => {
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) {
      node.forEachChild((child) => visit(child, node.name.text));
      return;
    }
    if (ts.isPropertySignature(node) && path !== undefined && node.type) {
      const key = `${path}.${node.name.getText(source)}`;
      texts.set(key, node.type.getText(source).replace(/\s+/g, " "));
      node.type.forEachChild((child) => visit(child, key));
      return;
    }
    node.forEachChild((child) => visit(child, path));
  };
  visit(source, undefined);
  return texts;
}

const canonical = (value: Json): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : value && typeof value === "object"
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical(value[k]!)}`)
          .join(",")}}`
      : JSON.stringify(value);

/** A definition's body without its own `$schema` keyword (each definition of the extension's schemas repeats it). */
function withoutSchemaKeyword(body: Json): Json {
  if (!body || typeof body !== "object" || Array.isArray(body)) return body;
  const { $schema: _, ...rest } = body;
  return rest;
}

/** The anonymous subschemas of the definitions (property values, items, variants), by canonical JSON with their number of occurrences. */
function anonymousSubschemas(schema: Schema): { json: Json; count: number }[] {
  const found = new Map<string, { json: Json; count: number }>();
  const visit = (value: Json, top: boolean): void => {
    if (Array.isArray(value)) return value.forEach((v) => visit(v, false));
    if (!value || typeof value !== "object") return;
    if (!top && typeof value.$ref !== "string" && ("type" in value || "anyOf" in value || "enum" in value)) {
      const key = canonical(value);
      found.set(key, { json: value, count: (found.get(key)?.count ?? 0) + 1 });
    }
    for (const [k, v] of Object.entries(value)) {
      if (["$defs", "definitions", "examples", "default", "const", "enum"].includes(k)) continue;
      // A map of names to subschemas: its values are the subschemas, not the map itself.
      if (["properties", "patternProperties", "dependentSchemas"].includes(k) && v && typeof v === "object" && !Array.isArray(v)) Object.values(v).forEach((x) => visit(x, false));
      else visit(v, false);
    }
  };
  for (const def of Object.values(defsOf(schema))) visit(def, true);
  return [...found.values()];
}

/** How often the set's other schema files (its core, its remotes) write this very JSON as an anonymous subschema. */
function occurrencesElsewhere(set: string, json: Json): number {
  const base = resolved.get(set)! as ResolvedSet & { core?: { schema: string } };
  const others = [...base.schemas.slice(1), ...(base.core ? [base.core.schema] : [])];
  const key = canonical(json);
  return others
    .map((file) => anonymousSubschemas(JSON.parse(readFileSync(file, "utf8")) as Schema).find((s) => canonical(s.json) === key)?.count ?? 0)
    .reduce((a, b) => a + b, 0);
}

const baseline = new Map<string, Map<string, string>>();
const typesOf = (set: string) => {
  if (!baseline.has(set)) baseline.set(set, propertyTypes(set));
  return baseline.get(set)!;
};

describe.each(SETS)("names stay put in the bundled set %s", (set) => {
  it("adding a definition equal to an anonymous subschema retargets only its copies", () => {
    const subschemas = anonymousSubschemas(mainSchema(set));
    fc.assert(
      fc.property(fc.nat({ max: subschemas.length - 1 }), (index) => {
        const { json, count } = subschemas[index]!;
        const schema = mainSchema(set);
        const added = "AddedDefinitionZq";
        defsOf(schema)[added] = structuredClone(json);
        schema[container(schema)] = defsOf(schema);
        const before = typesOf(set);
        const after = propertyTypes(set, schema);
        const changed = [...before].filter(([key, text]) => after.has(key) && after.get(key) !== text);
        // Retargeted: to the added definition, or to an inline copy where a definition of the same body
        // already took it and the two now tie (an ambiguous copy stays inline, ARCHITECTURE.md › Naming).
        const sameBody = new Set(Object.entries(defsOf(schema)).filter(([name, body]) => name !== added && canonical(withoutSchemaKeyword(body)) === canonical(withoutSchemaKeyword(json))).map(([name]) => name));
        const retargeted = changed.filter(([key, text]) => new RegExp(`\\b${added}\\b`).test(after.get(key)!) || sameBody.has(text));
        expect(
          changed.filter((c) => !retargeted.includes(c)).map(([key, text]) => `${key}: ${text} → ${after.get(key)}`),
          canonical(json),
        ).toEqual([]);
        // Only copies are retargeted: at most as many as the set's schemas (its core's included) write this very JSON.
        expect(retargeted.length, canonical(json)).toBeLessThanOrEqual(count + occurrencesElsewhere(set, json));
      }),
      { numRuns: Number(process.env.META_RUNS ?? 6), seed: Number(process.env.META_SEED ?? 23) },
    );
  }, 120_000);

  it("renaming a definition changes only that name, the names derived from it and its references", () => {
    const schema = mainSchema(set);
    // Bindings name definitions; a definition the set's core schema defines too is the set's own by
    // that name (README › Core definitions), so the core's references follow it only under it: both stay.
    const resolvedSet = resolved.get(set) as { bindings?: object; core?: { schema: string } };
    const core = resolvedSet.core ? Object.keys(defsOf(JSON.parse(readFileSync(resolvedSet.core.schema, "utf8")) as Schema)) : [];
    const pinned = new Set([...Object.keys(resolvedSet.bindings ?? {}), ...core]);
    // A definition whose body another one shares takes its inline copies by the name of their place
    // (`inputRequests` → InputRequests); renamed, the tie leaves them inline. Such pairs stay too.
    const bodies = Object.entries(defsOf(schema)).map(([name, body]) => [name, canonical(withoutSchemaKeyword(body))] as const);
    const shared = new Set(bodies.filter(([name, body]) => bodies.some(([other, b]) => other !== name && b === body)).map(([name]) => name));
    const names = Object.keys(defsOf(schema)).filter((n) => !pinned.has(n) && !shared.has(n) && /^[A-Z][A-Za-z0-9]*$/.test(n));
    fc.assert(
      fc.property(fc.nat({ max: names.length - 1 }), (index) => {
        const old = names[index]!;
        const fresh = `Zq${old}`;
        const ref = JSON.stringify(`#/${container(schema)}/${old}`);
        const renamed = JSON.parse(JSON.stringify(schema).split(ref).join(JSON.stringify(`#/${container(schema)}/${fresh}`))) as Schema;
        renamed[container(schema)] = Object.fromEntries(Object.entries(defsOf(renamed)).map(([k, v]) => [k === old ? fresh : k, v]));
        const defined = new Set(Object.keys(defsOf(schema)));
        // The old name, and names derived from it that are not definitions of their own (ToolInputSchema from Tool), become the new ones.
        const before = typesOf(set);
        const after = propertyTypes(set, renamed);
        // Names of other files (a binding's TaskMetadata beside Task) are no derivatives: they are still declared after.
        const declaredAfter = new Set([...after.keys()].map((key) => key.split(".")[0]!));
        const map = (identifier: string) =>
          identifier === old || (identifier.startsWith(old) && !defined.has(identifier) && !declaredAfter.has(identifier) && /^[A-Z]/.test(identifier.slice(old.length)))
            ? fresh + identifier.slice(old.length)
            : identifier;
        const mapped = (text: string) => text.replace(/\b[A-Za-z_$][A-Za-z0-9_$]*\b/g, map);
        const expected = new Map([...before].map(([key, text]) => [mapped(key), mapped(text)]));
        const differences = [...expected].filter(([key, text]) => after.get(key) !== text).map(([key, text]) => `${key}: expected ${text}, got ${after.get(key)}`);
        expect(differences, `${old} → ${fresh}`).toEqual([]);
        expect(after.size, `${old} → ${fresh}`).toBe(expected.size);
      }),
      { numRuns: Number(process.env.META_RUNS ?? 6), seed: Number(process.env.META_SEED ?? 23) },
    );
  }, 120_000);
});

describe("the rule on the issue's own example (a control)", () => {
  it("a new definition that is just string[] renames no string[] property (stopSequences, Icon.sizes, ...)", () => {
    const set = "ext-tasks-draft";
    const schema = mainSchema(set);
    defsOf(schema).Foo = { type: "array", items: { type: "string" } };
    const before = typesOf(set);
    const after = propertyTypes(set, schema);
    expect([...before].filter(([key, text]) => after.get(key) !== text)).toEqual([]);
    expect([...before.values()].filter((text) => text === "string[]").length).toBeGreaterThan(5);
  });
});
