import { describe, expect, it } from "vitest";
import { checkPureRefCycles } from "../../../generator/analyze/cycles.js";
import { detectDiscriminators } from "../../../generator/analyze/discriminators.js";
import { analyze } from "../../../generator/analyze/model.js";
import { simplify } from "../../../generator/analyze/simplify.js";
import { GeneratorError } from "../../../generator/diagnostics.js";
import type { Definition, Node } from "../../../generator/ir/nodes.js";
import { registerMemoryDocuments } from "../../../generator/load/set-documents.js";
import { lowerMemoryRoots } from "../../../generator/lower/lower-set.js";

/**
 * The analyze passes, one table each, in the manner of openapi-typescript's test/transform/: a schema
 * in, the one fact the pass decides out. Each schema is lowered as generateFromMemory lowers it (its
 * `$defs` declared in order), then only the pass under test (or the model, for what it records) runs.
 */

const URI = "https://example.test/api.json";
type Defs = Record<string, unknown>;

function lowered(defs: Defs): Definition[] {
  const registry = registerMemoryDocuments([{ uri: URI, json: { $schema: "https://json-schema.org/draft/2020-12/schema", $defs: defs } }], "2020-12");
  return lowerMemoryRoots(registry, Object.keys(defs).map((name) => ({ name, uri: `${URI}#/$defs/${name}` })), "2020-12");
}

/** A pass's answer, or the located error it stops with. */
function outcome<T>(run: () => T): T | string {
  try {
    return run();
  } catch (e) {
    if (e instanceof GeneratorError) return e.message;
    throw e;
  }
}

describe("cycles: a $ref cycle with nothing in between is an error", () => {
  it.each<[string, Defs, undefined | RegExp]>([
    ["a reference to a reference to an object", { A: { $ref: "#/$defs/B" }, B: { $ref: "#/$defs/C" }, C: { type: "object" } }, undefined],
    ["recursion through a property", { Tree: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Tree" } } } } }, undefined],
    ["two definitions naming each other", { A: { $ref: "#/$defs/B" }, B: { $ref: "#/$defs/A" } }, /^https:\/\/example\.test\/api\.json#\/\$defs\/(A|B)\/\$ref: /],
    ["a definition naming itself", { A: { $ref: "#/$defs/A" } }, /^https:\/\/example\.test\/api\.json#\/\$defs\/A\/\$ref: /],
    ["a cycle through a union's branches", { A: { anyOf: [{ $ref: "#/$defs/B" }, { type: "null" }] }, B: { $ref: "#/$defs/A" } }, /\$ref: /],
  ])("%s", (_, defs, error) => {
    const result = outcome(() => checkPureRefCycles(lowered(defs)));
    if (error) expect(result).toMatch(error);
    else expect(result).toBeUndefined();
  });
});

describe("simplify: the same values, read better", () => {
  const simplified = (schema: unknown): Node => simplify(lowered({ A: schema })[0]!.node);
  it.each<[string, unknown, Partial<Node> & { kind: Node["kind"] }]>([
    ["a string constant becomes a literal", { type: "string", const: "x" }, { kind: "literal", values: ["x"] } as never],
    ["an anyOf of constants becomes one enum", { anyOf: [{ const: "a" }, { const: "b" }] }, { kind: "literal", values: ["a", "b"] } as never],
    ["not {} accepts nothing", { not: {} }, { kind: "never" }],
    ["not of nothing accepts anything", { not: false }, { kind: "unknown" }],
    ["a placeholder union stays", { anyOf: [{}, {}] }, { kind: "union" }],
  ])("%s", (_, schema, expected) => {
    expect(simplified(schema)).toMatchObject(expected);
  });
});

describe("discriminators: a union told apart by one required constant", () => {
  const variant = (tag: unknown, required = true) => ({ type: "object", properties: { kind: { const: tag }, n: { type: "number" } }, ...(required ? { required: ["kind"] } : {}) });
  const discriminatorOf = (schema: unknown) => {
    const node = detectDiscriminators(lowered({ A: schema }).map((d) => ({ ...d, node: simplify(d.node) })))[0]!.node;
    return node.kind === "union" ? node.discriminator : "not a union";
  };
  it.each<[string, unknown, unknown]>([
    [
      "oneOf by kind",
      { oneOf: [variant("a"), variant("b")] },
      { property: "kind", cases: [expect.objectContaining({ values: ["a"], variant: 0 }), expect.objectContaining({ values: ["b"], variant: 1 })] },
    ],
    ["anyOf by kind too (distinct constants make them the same)", { anyOf: [variant("a"), variant("b")] }, expect.objectContaining({ property: "kind" })],
    ["not when the tag is optional", { oneOf: [variant("a", false), variant("b", false)] }, undefined],
    ["not when two variants share a value", { oneOf: [variant("a"), variant("a")] }, undefined],
    ["not when a variant is no object", { oneOf: [variant("a"), { type: "string" }] }, undefined],
  ])("%s", (_, schema, expected) => {
    expect(discriminatorOf(schema)).toEqual(expected);
  });
});

/** The definitions a Tasks schema needs for a status model, with `extra` beside them. */
const TASK_DEFS = (extra: Defs = {}): Defs => ({
  TaskStatus: { type: "string", enum: ["working", "input_required", "completed", "failed", "cancelled"] },
  Task: { type: "object", properties: { taskId: { type: "string" }, status: { $ref: "#/$defs/TaskStatus" } }, required: ["taskId", "status"] },
  ...extra,
});

/** The five statuses' machine: completed, failed and cancelled are final; the others move to any other status. */
const FIVE_STATUS_TRANSITIONS = {
  working: ["input_required", "completed", "failed", "cancelled"],
  input_required: ["working", "completed", "failed", "cancelled"],
  completed: [],
  failed: [],
  cancelled: [],
};

describe("status: the task status model, found by meaning", () => {
  it.each<[string, Defs, unknown]>([
    ["the enum of the five statuses and the task that requires one", TASK_DEFS(), {
        statusType: "TaskStatus",
        taskType: "Task",
        statuses: ["working", "input_required", "completed", "failed", "cancelled"],
        terminal: ["completed", "failed", "cancelled"],
        transitions: FIVE_STATUS_TRANSITIONS,
      },
    ],
    ["no enum of exactly the five: no status model", { S: { enum: ["working", "completed"] } }, undefined],
    ["the enum without a task", { TaskStatus: TASK_DEFS().TaskStatus as object }, {
        statusType: "TaskStatus",
        statuses: ["working", "input_required", "completed", "failed", "cancelled"],
        terminal: ["completed", "failed", "cancelled"],
        transitions: FIVE_STATUS_TRANSITIONS,
      },
    ],
  ])("%s", (_, defs, expected) => {
    expect(analyze(lowered(defs)).status).toEqual(expected);
  });
});

describe("methods: requests and notifications, with their params and results", () => {
  const request = (method: string, params?: string) => ({
    type: "object",
    properties: { jsonrpc: { const: "2.0" }, id: { type: "integer" }, method: { const: method }, ...(params ? { params: { $ref: `#/$defs/${params}` } } : {}) },
    required: ["jsonrpc", "id", "method", ...(params ? ["params"] : [])],
  });
  const notification = (method: string) => ({
    type: "object",
    properties: { jsonrpc: { const: "2.0" }, method: { const: method } },
    required: ["jsonrpc", "method"],
  });
  it.each<[string, Defs, unknown]>([
    [
      "a request, its named params and the XResult beside it",
      { GetTaskRequest: request("tasks/get", "GetTaskParams"), GetTaskParams: { type: "object", properties: { taskId: { type: "string" } }, required: ["taskId"] }, GetTaskResult: { type: "object" } },
      { requests: [{ method: "tasks/get", message: "GetTaskRequest", params: "GetTaskParams", paramsRequired: true, result: "GetTaskResult" }], notifications: [] },
    ],
    [
      "params that accept any object: the envelope's generic params, not named",
      { GetTaskRequest: request("tasks/get", "AnyParams"), AnyParams: { type: "object" } },
      { requests: [{ method: "tasks/get", message: "GetTaskRequest", paramsRequired: true }], notifications: [] },
    ],
    [
      "a request without params or result",
      { PingRequest: request("ping") },
      { requests: [{ method: "ping", message: "PingRequest", paramsRequired: false }], notifications: [] },
    ],
    [
      "a notification: no id",
      { ChangedNotification: notification("notifications/changed") },
      { requests: [], notifications: [{ method: "notifications/changed", message: "ChangedNotification", paramsRequired: false }] },
    ],
    ["no jsonrpc: not a message", { GetTaskRequest: { type: "object", properties: { method: { const: "tasks/get" } } } }, { requests: [], notifications: [] }],
  ])("%s", (_, defs, expected) => {
    expect(analyze(lowered(defs)).methods).toEqual(expected);
  });
});
