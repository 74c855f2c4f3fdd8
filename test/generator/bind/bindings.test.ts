import { describe, expect, it } from "vitest";
import { bindSchemas, checkBindings, resolveBindings, type Binding } from "../../../generator/bind/bindings.js";
import { GeneratorError } from "../../../generator/diagnostics.js";
import type { JsonValue } from "../../../generator/ir/nodes.js";
import type { SchemaFile } from "../../../generator/load/documents.js";

/**
 * Bindings, one row per rule (bind/bindings.ts): the config's `bindings` value in, the checked value or
 * the located error out; a set's schema and its bindings in, the schema as lowering will read it out.
 */

describe("checkBindings", () => {
  const fail = (pointer: string, message: string): never => {
    throw new Error(`${pointer}: ${message}`);
  };
  const checked = (value: unknown) => {
    try {
      return checkBindings(value, "/sets/0/bindings", fail);
    } catch (e) {
      return (e as Error).message;
    }
  };
  it.each([
    ["a schema by name", { A: { type: "string" } }, { A: { type: "string" } }],
    ["a boolean schema, and a note", { $comment: "why", A: true }, { A: true }],
    ["not an object", [], "/sets/0/bindings: expected an object of definition name → JSON Schema"],
    ["a note that is not a string", { $comment: 1 }, "/sets/0/bindings/$comment: $comment must be a string"],
    ["no definition name", { "": {} }, "/sets/0/bindings/: a binding needs the name of a definition of the set's schemas"],
    ["a value that is no schema", { A: "string" }, '/sets/0/bindings/A: expected a JSON Schema (an object or a boolean) for "A"'],
    ["a $ref that is not a string, deep inside", { A: { anyOf: [{ $ref: 1 }] } }, "/sets/0/bindings/A/anyOf/0/$ref: $ref must be a string"],
  ])("%s", (_, value, expected) => {
    expect(checked(value)).toEqual(expected);
  });
});

describe("resolveBindings", () => {
  it.each([
    ["a path relative to the config", "defs.json#/$defs/B", "file:///work/cfg/defs.json#/$defs/B"],
    ["a fragment: the bound definition's own document", "#/$defs/B", "#/$defs/B"],
    ["an absolute URI", "https://example.test/s.json#/$defs/B", "https://example.test/s.json#/$defs/B"],
  ])("%s", (_, ref, resolved) => {
    const bindings = resolveBindings({ A: { anyOf: [{ $ref: ref }] } }, "/work/cfg", { file: "cfg.json", pointer: "/sets/0/bindings" });
    expect(bindings).toEqual({ A: { schema: { anyOf: [{ $ref: resolved }] }, origin: { file: "cfg.json", pointer: "/sets/0/bindings/A" } } });
  });
});

describe("bindSchemas", () => {
  const file = (name: string, json: JsonValue): SchemaFile => ({ path: `/work/${name}`, display: name, sha256: "", json });
  const binding = (schema: JsonValue): Binding => ({ schema, origin: { file: "cfg.json", pointer: "/sets/0/bindings/A" } });
  const PLACEHOLDER = { anyOf: [{}, {}] };
  /** The set's one input after binding `A` to `{ type: "string" }`, or the error's message. */
  const bound = (json: JsonValue, inputs: SchemaFile[] = [file("api.json", json)]) => {
    try {
      return bindSchemas({ A: binding({ type: "string" }) }, inputs, [], (p) => p).inputs.map((f) => f.json);
    } catch (e) {
      if (e instanceof GeneratorError) return e.message;
      throw e;
    }
  };
  const rows: [string, JsonValue, unknown][] = [
    ["the body replaced", { $defs: { A: PLACEHOLDER } }, [{ $defs: { A: { type: "string" } } }]],
    [
      "title, description and $comment kept",
      { $defs: { A: { title: "A", description: "what", $comment: "note", ...PLACEHOLDER } } },
      [{ $defs: { A: { title: "A", description: "what", $comment: "note", type: "string" } } }],
    ],
    ["under definitions too", { definitions: { A: PLACEHOLDER } }, [{ definitions: { A: { type: "string" } } }]],
    [
      "an inline copy at a place that names it: a $ref",
      { $defs: { A: PLACEHOLDER, B: { type: "object", properties: { a: PLACEHOLDER } } } },
      [{ $defs: { A: { type: "string" }, B: { type: "object", properties: { a: { $ref: "#/$defs/A" } } } } }],
    ],
    [
      "an inline copy at a place that says nothing: kept",
      { $defs: { A: PLACEHOLDER, B: { type: "object", properties: { other: PLACEHOLDER } } } },
      [{ $defs: { A: { type: "string" }, B: { type: "object", properties: { other: PLACEHOLDER } } } }],
    ],
    [
      "a name no schema defines",
      { $defs: { B: {} } },
      'cfg.json#/sets/0/bindings/A: binds "A", but no schema of the set (api.json) defines "A" under $defs or definitions',
    ],
  ];
  it.each(rows)("%s", (_, json, expected) => {
    expect(bound(json)).toEqual(expected);
  });

  it("a name two files define", () => {
    expect(bound({}, [file("a.json", { $defs: { A: {} } }), file("b.json", { $defs: { A: {} } })])).toBe(
      'cfg.json#/sets/0/bindings/A: binds "A", but it is defined 2 times in the set\'s schemas; a binding must name one definition',
    );
  });

  it("no bindings: the same files, nothing extra", () => {
    const inputs = [file("api.json", { $defs: { A: PLACEHOLDER } })];
    const result = bindSchemas(undefined, inputs, [], (p) => p);
    expect(result.inputs).toBe(inputs);
    expect(result.extra).toEqual([]);
  });
});
