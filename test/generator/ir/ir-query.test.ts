import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { generateFromMemory } from "../../../generator/generate.js";
import type { Definition, JsonValue, Node } from "../../../generator/ir/nodes.js";
import {
  definitionByName,
  definitionsById,
  describeTypes,
  followRefs,
  jsonTypes,
  jsonTypesOfValue,
  mayAcceptValue,
  mayHaveType,
  acceptsEveryObject,
  buildsOn,
  constantValues,
  intersectionView,
  namedPropertyTarget,
  objectOf,
  objectView,
  propertyNode,
  refTarget,
  singleString,
  runtimeTypes,
  runtimeTypesOverlap,
  type JsonType,
} from "../../../generator/ir/query.js";
import { SchemaRegistry } from "../../../generator/load/registry.js";
import { Lowerer } from "../../../generator/lower/lower.js";

/**
 * ir/query.ts, table by table, on IR lowered straight from small schemas (as lint reads it:
 * before analyze simplifies anything). The JSON types a node takes are also checked against ajv:
 * whatever ajv accepts must have a type the query kept, so the query is never too narrow.
 */

const URI = "https://example.test/query.json";

/** The IR of `schema` and of each of its `$defs` (a 2020-12 document; `$defs` are referenced as `#/$defs/Name`). */
function lowered(schema: unknown): { node: Node; definitions: ReadonlyMap<string, Definition> } {
  const registry = new SchemaRegistry("2020-12");
  const root = registry.addDocument({ file: "query.json", retrievalUri: URI, json: schema });
  const lowerer = new Lowerer(registry);
  const id = lowerer.define(root, "Root", true);
  const names = schema !== null && typeof schema === "object" ? Object.keys((schema as { $defs?: object }).$defs ?? {}) : [];
  for (const name of names) lowerer.define(registry.resolveRef(`#/$defs/${name}`, root.context), name, true);
  const definitions = definitionsById(lowerer.list());
  return { node: definitions.get(id)!.node, definitions };
}

const defs = (schemas: Record<string, unknown>) => ({ $defs: schemas });

/** Values of every JSON type, integral and not, for the ajv soundness check. */
const SAMPLES: readonly JsonValue[] = ["", "ab", "abcdef", 0, 3, -2, 1.5, true, false, null, {}, { a: 1 }, [], [1, "x"]];

describe("jsonTypes: the JSON types a node can take (too wide at worst, never too narrow)", () => {
  const cases: { name: string; schema: unknown; types: JsonType[] | undefined; noAjv?: string }[] = [
    { name: "a string", schema: { type: "string" }, types: ["string"] },
    { name: "number covers the integers", schema: { type: "number" }, types: ["number", "integer"] },
    { name: "integer alone", schema: { type: "integer" }, types: ["integer"] },
    { name: "number and integer meet in integer", schema: { allOf: [{ type: "number" }, { type: "integer" }] }, types: ["integer"] },
    { name: "an integral const is both", schema: { const: 3 }, types: ["number", "integer"] },
    { name: "a fractional const is number only", schema: { const: 1.5 }, types: ["number"] },
    { name: "integer and a fractional const share nothing", schema: { allOf: [{ type: "integer" }, { const: 1.5 }] }, types: [] },
    { name: "enum values in order", schema: { enum: ["a", null, { x: 1 }] }, types: ["string", "null", "object"] },
    { name: "type list", schema: { type: ["null", "string"] }, types: ["null", "string"] },
    { name: "union in variant order", schema: { anyOf: [{ type: "null" }, { type: "array" }] }, types: ["null", "array"] },
    { name: "intersection in JSON_TYPES order", schema: { allOf: [{ type: ["null", "string"] }, { type: ["string", "null", "boolean"] }] }, types: ["string", "null"] },
    { name: "contradictory types", schema: { allOf: [{ type: "string" }, { type: "object" }] }, types: [] },
    { name: "a part with no claim narrows nothing", schema: { allOf: [{ type: "boolean" }, { not: { const: true } }] }, types: ["boolean"] },
    { name: "an object", schema: { type: "object", properties: { a: { type: "string" } } }, types: ["object"] },
    { name: "a map", schema: { type: "object", additionalProperties: { type: "string" } }, types: ["object"] },
    { name: "an array", schema: { type: "array", items: { type: "string" } }, types: ["array"] },
    { name: "false", schema: false, types: [] },
    { name: "true makes no claim", schema: true, types: undefined },
    { name: "{} makes no claim", schema: {}, types: undefined },
    { name: "not makes no claim", schema: { not: { type: "string" } }, types: undefined },
    { name: "if/then makes no claim", schema: { if: { type: "string" }, then: { minLength: 1 } }, types: undefined },
    { name: "a union with a branch that makes no claim", schema: { anyOf: [{ type: "string" }, {}] }, types: undefined },
    { name: "through a $ref", schema: { ...defs({ A: { type: "boolean" } }), $ref: "#/$defs/A" }, types: ["boolean"] },
    { name: "through two $refs", schema: { ...defs({ A: { $ref: "#/$defs/B" }, B: { enum: [1, 2] } }), $ref: "#/$defs/A" }, types: ["number", "integer"] },
    {
      name: "a $ref cycle makes no claim",
      schema: { ...defs({ A: { anyOf: [{ $ref: "#/$defs/A" }, { type: "string" }] } }), $ref: "#/$defs/A" },
      types: undefined,
      noAjv: "ajv recurses without end on a $ref cycle that reaches no value (the generator rejects it in analyze)",
    },
  ];

  it.each(cases)("$name", ({ schema, types }) => {
    const { node, definitions } = lowered(schema);
    const found = jsonTypes(node, definitions);
    expect(found === undefined ? undefined : [...found]).toEqual(types);
  });

  it.each(cases.filter((c) => !c.noAjv))("$name: every value ajv accepts has a type in the answer", ({ schema }) => {
    const { node, definitions } = lowered(schema);
    const found = jsonTypes(node, definitions);
    const validate = new Ajv2020({ strict: false }).compile(schema as object | boolean);
    for (const value of SAMPLES) {
      if (!validate(value) || found === undefined) continue;
      // An integer must be allowed as "integer"; a fractional number as "number".
      const own: JsonType = typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : jsonTypesOfValue(value)[0]!;
      expect(found.has(own), `${JSON.stringify(value)} passes ajv but jsonTypes says ${[...found].join(", ")}`).toBe(true);
    }
  });
});

describe("mayHaveType: can a value of this JSON type pass", () => {
  it.each([
    { schema: { type: "number" }, type: "integer", may: true },
    // As the keyword means it: integers are numbers, a fractional number is no integer.
    { schema: { type: "integer" }, type: "number", may: true },
    { schema: { const: 1.5 }, type: "integer", may: false },
    { schema: { enum: ["a", 1] }, type: "object", may: false },
    { schema: { not: { type: "object" } }, type: "object", may: true },
    { schema: { allOf: [{ type: "object" }, { type: "array" }] }, type: "object", may: false },
  ] as { schema: unknown; type: JsonType; may: boolean }[])("$schema, $type → $may", ({ schema, type, may }) => {
    const { node, definitions } = lowered(schema);
    expect(mayHaveType(node, type, definitions)).toBe(may);
  });
});

describe("describeTypes: one rule for which types show, two forms", () => {
  it.each([
    { types: [], union: "nothing", prose: "nothing" },
    { types: ["number", "integer"], union: "number", prose: "a number" },
    { types: ["integer"], union: "integer", prose: "an integer" },
    { types: ["string", "null"], union: "string | null", prose: "a string or null" },
    { types: ["object", "array", "boolean"], union: "object | array | boolean", prose: "an object, an array or a boolean" },
    { types: ["integer", "string", "number"], union: "string | number", prose: "a string or a number" },
  ] as { types: JsonType[]; union: string; prose: string }[])("$types → $union / $prose", ({ types, union, prose }) => {
    expect(describeTypes(new Set(types))).toBe(union);
    expect(describeTypes(new Set(types), "union")).toBe(union);
    expect(describeTypes(new Set(types), "prose")).toBe(prose);
  });
});

describe("runtimeTypes: what typeof can tell apart", () => {
  it.each([
    { types: ["integer"], runtime: ["number"] },
    { types: ["number", "integer", "null"], runtime: ["number", "null"] },
    { types: ["string", "object"], runtime: ["string", "object"] },
  ] as { types: JsonType[]; runtime: string[] }[])("$types → $runtime", ({ types, runtime }) => {
    expect([...runtimeTypes(new Set(types))]).toEqual(runtime);
  });
});

describe("runtimeTypesOverlap: whether one typeof-level guard admits values of both sets", () => {
  it.each([
    { a: ["integer"], b: ["number", "integer"], overlap: true },
    // No JSON value is both, yet `typeof value === "number"` admits both.
    { a: ["integer"], b: ["number"], overlap: true },
    { a: ["string", "null"], b: ["object", "array"], overlap: false },
    { a: ["null"], b: ["boolean", "null"], overlap: true },
    { a: [], b: ["string"], overlap: false },
  ] as { a: JsonType[]; b: JsonType[]; overlap: boolean }[])("$a / $b → $overlap", ({ a, b, overlap }) => {
    expect(runtimeTypesOverlap(new Set(a), new Set(b))).toBe(overlap);
    expect(runtimeTypesOverlap(new Set(b), new Set(a))).toBe(overlap);
  });
});

describe("following $refs", () => {
  const schema = {
    $defs: {
      A: { $ref: "#/$defs/B" },
      B: { $ref: "#/$defs/C" },
      C: { type: "object", properties: { c: { type: "string" } } },
      Loop1: { $ref: "#/$defs/Loop2" },
      Loop2: { $ref: "#/$defs/Loop1" },
    },
    anyOf: [{ $ref: "#/$defs/A" }, { $ref: "#/$defs/Loop1" }, { type: "string" }],
  };
  const { node, definitions } = lowered(schema);
  const [toA, toLoop, string] = (node as Extract<Node, { kind: "union" }>).variants as [Node, Node, Node];

  it("follows a chain to the node it ends at", () => {
    const end = followRefs(toA, definitions);
    expect(end.kind).toBe("object");
    expect(end.loc.pointer).toBe("/$defs/C");
    expect(objectOf(toA, definitions)?.properties.map((p) => p.name)).toEqual(["c"]);
  });

  it("stops at a cycle and returns a reference", () => {
    const end = followRefs(toLoop, definitions);
    expect(end.kind).toBe("ref");
    expect(objectOf(toLoop, definitions)).toBeUndefined();
  });

  it("leaves other nodes as they are, and a reference whose target it was not given", () => {
    expect(followRefs(string, definitions)).toBe(string);
    expect(followRefs(toA, new Map())).toBe(toA);
    expect(refTarget(string, definitions)).toBeUndefined();
    expect(refTarget(toA, definitions)?.loc.pointer).toBe("/$defs/A");
  });
});

describe("mayAcceptValue: false only when the node certainly rejects the value", () => {
  it.each([
    { schema: { type: "string", minLength: 2 }, value: "a", accepts: false },
    { schema: { type: "string", minLength: 2 }, value: "ab", accepts: true },
    { schema: { type: "string", pattern: "^x" }, value: "ya", accepts: false },
    { schema: { type: "integer", minimum: 0 }, value: 1.5, accepts: false },
    { schema: { type: "integer", minimum: 0 }, value: -1, accepts: false },
    { schema: { type: "integer", minimum: 0 }, value: 2, accepts: true },
    { schema: { type: "number", multipleOf: 0.1 }, value: 0.3, accepts: true },
    { schema: { enum: [{ b: 1, a: 2 }] }, value: { a: 2, b: 1 }, accepts: true },
    { schema: { const: "a" }, value: "b", accepts: false },
    { schema: { type: "object" }, value: [], accepts: false },
    { schema: { type: "array" }, value: [], accepts: true },
    { schema: { anyOf: [{ type: "null" }, { type: "boolean" }] }, value: false, accepts: true },
    { schema: { allOf: [{ type: "string" }, { maxLength: 1 }] }, value: "ab", accepts: false },
    { schema: { not: { type: "string" } }, value: "a", accepts: true },
    { schema: { ...defs({ S: { type: "string" } }), $ref: "#/$defs/S" }, value: 1, accepts: false },
    { schema: false, value: null, accepts: false },
  ] as { schema: unknown; value: JsonValue; accepts: boolean }[])("$schema with $value → $accepts", ({ schema, value, accepts }) => {
    const { node, definitions } = lowered(schema);
    expect(mayAcceptValue(node, value, definitions)).toBe(accepts);
  });
});

describe("objectView: a node read as one object", () => {
  const schema = {
    $defs: {
      Closed: { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false },
      Open: { type: "object", properties: { b: { type: "string" } } },
      Both: { allOf: [{ $ref: "#/$defs/Closed" }, { $ref: "#/$defs/Open" }] },
      Either: {
        anyOf: [
          { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, required: ["a"] },
          { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
        ],
      },
      Mixed: { anyOf: [{ type: "object" }, { type: "string" }] },
    },
  };
  const { definitions } = lowered(schema);
  const node = (name: string) => [...definitions.values()].find((d) => d.loc.pointer === `/$defs/${name}`)!.node;
  const view = (name: string, allOf: "json-schema" | "merged" = "json-schema") => {
    const v = objectView(node(name), definitions, allOf);
    return v && { closed: v.closed, properties: [...v.properties.values()].map((p) => ({ name: p.name, required: p.required, partial: p.partial, nodes: p.nodes.length })) };
  };

  it.each([
    { name: "Closed", allOf: "json-schema", expected: { closed: true, properties: [{ name: "a", required: true, partial: false, nodes: 1 }] } },
    { name: "Open", allOf: "json-schema", expected: { closed: false, properties: [{ name: "b", required: false, partial: false, nodes: 1 }] } },
    // JSON Schema: one closed branch closes the allOf; merged: only when every branch is closed.
    {
      name: "Both",
      allOf: "json-schema",
      expected: { closed: true, properties: [{ name: "a", required: true, partial: false, nodes: 1 }, { name: "b", required: false, partial: false, nodes: 1 }] },
    },
    {
      name: "Both",
      allOf: "merged",
      expected: { closed: false, properties: [{ name: "a", required: true, partial: false, nodes: 1 }, { name: "b", required: false, partial: false, nodes: 1 }] },
    },
    // A property only some variants declare is partial and optional; one all declare keeps both schemas.
    {
      name: "Either",
      allOf: "json-schema",
      expected: { closed: false, properties: [{ name: "a", required: true, partial: false, nodes: 2 }, { name: "b", required: false, partial: true, nodes: 1 }] },
    },
    { name: "Mixed", allOf: "json-schema", expected: undefined },
  ] as const)("$name ($allOf)", ({ name, allOf, expected }) => {
    expect(view(name, allOf)).toEqual(expected);
  });
});

describe("a message read through $ref and allOf: intersectionView, constantValues, namedPropertyTarget", () => {
  // The layout of the 2026-08-21 Tasks revision: each request is the envelope and its own part.
  const schema = {
    $defs: {
      Envelope: {
        type: "object",
        properties: { jsonrpc: { const: "2.0" }, id: { type: ["string", "integer"] }, method: { type: "string" }, params: { type: "object", additionalProperties: {} } },
        required: ["jsonrpc", "id", "method"],
      },
      Params: { type: "object", properties: { taskId: { type: "string" } }, required: ["taskId"] },
      Request: { allOf: [{ $ref: "#/$defs/Envelope" }, { type: "object", properties: { method: { const: "tasks/get" }, params: { $ref: "#/$defs/Params" } }, required: ["params"] }] },
      // `required` beside an envelope that declares the property: required, its schema the envelope's.
      RequiredOnly: { allOf: [{ $ref: "#/$defs/Envelope" }, { type: "object", required: ["params"] }] },
      Either: { anyOf: [{ $ref: "#/$defs/Request" }, { $ref: "#/$defs/Params" }] },
      Statuses: { anyOf: [{ const: "working" }, { enum: ["completed", "working"] }] },
      Narrowed: { allOf: [{ enum: ["a", "b", 3] }, { type: "string" }] },
      Open: { allOf: [{ type: "object" }, { $ref: "#/$defs/Params" }] },
    },
  };
  const { definitions } = lowered(schema);
  const def = (name: string) => [...definitions.values()].find((d) => d.loc.pointer === `/$defs/${name}`)!;
  const named = new Map([...definitions].map(([id, d]) => [id, { ...d, name: d.loc.pointer.split("/").pop()! }]));

  it("merges the envelope and the request's part: properties together, required united", () => {
    const view = intersectionView(def("Request").node, definitions)!;
    expect([...view.properties.values()].map((p) => [p.name, p.required, p.nodes.length])).toEqual([
      ["jsonrpc", true, 1],
      ["id", true, 1],
      ["method", true, 2],
      ["params", true, 2],
    ]);
    expect(singleString(propertyNode(view.properties.get("method")!), definitions)).toBe("tasks/get");
    // The envelope's generic params accept any object: the request's own names the definition.
    expect(namedPropertyTarget(view.properties.get("params")!, named)?.name).toBe("Params");
    expect(intersectionView(def("RequiredOnly").node, definitions)!.properties.get("params")).toMatchObject({ required: true, nodes: [expect.anything(), { kind: "unknown" }] });
  });

  it("a union is no single object; a part that accepts every object narrows nothing", () => {
    expect(intersectionView(def("Either").node, definitions)).toBeUndefined();
    expect(objectView(def("Either").node, definitions, "json-schema")).toBeDefined();
    expect([...intersectionView(def("Open").node, definitions)!.properties.keys()]).toEqual(["taskId"]);
    expect(acceptsEveryObject(def("Params").node, definitions)).toBe(false);
  });

  it.each([
    { name: "Statuses", values: ["working", "completed"] },
    { name: "Narrowed", values: ["a", "b"] },
    { name: "Params", values: undefined },
  ])("constantValues of $name", ({ name, values }) => {
    expect(constantValues(def(name).node, definitions)).toEqual(values);
  });

  it("buildsOn: a definition built by allOf on a reference", () => {
    expect(buildsOn(def("Request").node, def("Envelope").id, definitions)).toBe(true);
    expect(buildsOn(def("Either").node, def("Envelope").id, definitions)).toBe(false);
  });
});

describe("definitionByName on an analyzed model", () => {
  it("finds each definition under the name naming gave it, and nothing under another", async () => {
    const schema = {
      $defs: {
        Task: { type: "object", properties: { id: { type: "string" } } },
        "task-status": { enum: ["working", "done"] },
      },
    };
    const { model } = await generateFromMemory({
      documents: [{ uri: URI, json: schema }],
      roots: [
        { name: "Task", uri: `${URI}#/$defs/Task` },
        { name: "task-status", uri: `${URI}#/$defs/task-status` },
      ],
      format: false,
    });
    for (const def of model.definitions) expect(definitionByName(model.definitions, def.name)).toBe(def);
    expect(definitionByName(model.definitions, "TaskStatus")?.loc.pointer).toBe("/$defs/task-status");
    expect(definitionByName(model.definitions, "task-status")).toBeUndefined();
    // The index belongs to one array: another array is indexed on its own.
    expect(definitionByName(model.definitions.slice(1), "Task")).toBeUndefined();
  });
});
