/**
 * The analyze rule that declares identical anonymous shapes of one role once (analyze/naming.ts,
 * sharedRoles): a role is one property under owners of one kind (the last word of the owner's
 * name). Table-driven over small schemas generated in memory.
 */
import { describe, expect, it } from "vitest";
import { generateFromMemory } from "../../../generator/index.js";
import { kindOf } from "../../../generator/analyze/naming.js";

const URI = "http://x.test/s.json";
const meta = {
  type: "object",
  properties: {
    progressToken: { type: ["string", "number"] },
    "io.modelcontextprotocol/related-task": { type: "object", properties: { taskId: { type: "string" } }, required: ["taskId"] },
  },
};
const params = { type: "object", properties: { taskId: { type: "string" } }, required: ["taskId"] };
const withProperty = (name: string, shape: unknown) => ({ type: "object", properties: { [name]: shape } });

/** The declared type names of a schema's `$defs`, each root named after its key, and the model's definitions. */
async function declared(defs: Record<string, unknown>): Promise<{ names: string[]; types: string }> {
  const { files } = await generateFromMemory({
    documents: [{ uri: URI, json: { $defs: defs } }],
    roots: Object.keys(defs).map((name) => ({ name, uri: `${URI}#/$defs/${name}` })),
    format: false,
  });
  const types = files.find((f) => f.name === "types.ts")!.contents;
  return { names: [...types.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]!), types };
}

describe("shapes declared once by role", () => {
  const cases: { name: string; defs: Record<string, unknown>; expected: string[] }[] = [
    {
      name: "the _meta of every result is one ResultMeta, and what is inside it is named from it",
      defs: { GetTaskResult: withProperty("_meta", meta), CancelTaskResult: withProperty("_meta", meta) },
      expected: ["GetTaskResult", "ResultMeta", "ResultMetaRelatedTask", "CancelTaskResult"],
    },
    {
      name: "request params that differ keep their names from their place",
      defs: {
        GetTaskRequest: withProperty("params", params),
        UpdateTaskRequest: withProperty("params", { ...params, properties: { ...params.properties, extra: { type: "number" } } }),
      },
      expected: ["GetTaskRequest", "GetTaskRequestParams", "UpdateTaskRequest", "UpdateTaskRequestParams"],
    },
    {
      name: "equal shapes in different roles (a result's _meta, a notification's _meta) stay apart",
      defs: { GetTaskResult: withProperty("_meta", params), TaskNotification: withProperty("_meta", params) },
      expected: ["GetTaskResult", "GetTaskResultMeta", "TaskNotification", "TaskNotificationMeta"],
    },
    {
      name: "equal shapes under different properties of owners of one kind stay apart",
      defs: { GetTaskResult: withProperty("task", params), CancelTaskResult: withProperty("cancelled", params) },
      expected: ["GetTaskResult", "GetTaskResultTask", "CancelTaskResult", "CancelTaskResultCancelled"],
    },
    {
      name: "a role with one owner is named from its place",
      defs: { GetTaskResult: withProperty("_meta", meta), Other: { type: "string" } },
      expected: ["GetTaskResult", "GetTaskResultMeta", "GetTaskResultMetaRelatedTask", "Other"],
    },
    {
      name: "a role whose shapes differ in a description is not merged",
      defs: {
        GetTaskResult: withProperty("_meta", { ...params, description: "one" }),
        CancelTaskResult: withProperty("_meta", { ...params, description: "two" }),
      },
      expected: ["GetTaskResult", "GetTaskResultMeta", "CancelTaskResult", "CancelTaskResultMeta"],
    },
    {
      name: "a role's name taken by a definition leaves the shapes apart (never a numbered name)",
      defs: { GetTaskResult: withProperty("_meta", params), CancelTaskResult: withProperty("_meta", params), ResultMeta: { type: "string" } },
      expected: ["GetTaskResult", "GetTaskResultMeta", "CancelTaskResult", "CancelTaskResultMeta", "ResultMeta"],
    },
    {
      name: "a role's name taken by a shape named from its place leaves the role's shapes apart",
      defs: {
        Result: withProperty("meta", { type: "object", properties: { x: { type: "string" } } }),
        AResult: withProperty("_meta", params),
        BResult: withProperty("_meta", params),
      },
      expected: ["Result", "ResultMeta", "AResult", "AResultMeta", "BResult", "BResultMeta"],
    },
    {
      name: "roles nest: after ResultMeta is shared, its inner shape has one owner",
      defs: {
        AResult: withProperty("_meta", meta),
        BResult: withProperty("_meta", meta),
        CResult: withProperty("_meta", meta),
      },
      expected: ["AResult", "ResultMeta", "ResultMetaRelatedTask", "BResult", "CResult"],
    },
    {
      // Found by the naming-stability property on the 2026-05-22 set: the added definition's `_meta`
      // (an owner of kind Meta, like ResultMeta) made the inner shape a role of its own, MetaRelatedTask.
      name: "what is inside a shared shape keeps its place's name when a look-alike owner is added elsewhere",
      defs: {
        AResult: withProperty("_meta", meta),
        BResult: withProperty("_meta", meta),
        Added: { type: "object", properties: { _meta: meta, extra: { type: "string" } } },
      },
      expected: ["AResult", "ResultMeta", "ResultMetaRelatedTask", "BResult", "Added", "AddedMeta", "AddedMetaRelatedTask"],
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      expect((await declared(c.defs)).names).toEqual(c.expected);
    });
  }

  it("every owner refers to the one declaration", async () => {
    const { types } = await declared({ GetTaskResult: withProperty("_meta", meta), CancelTaskResult: withProperty("_meta", meta) });
    expect(types.match(/_meta\?: ResultMeta;/g)).toHaveLength(2);
  });
});

describe("the kind of an owner: the last word of its name", () => {
  const cases: [string, string][] = [
    ["GetTaskResult", "Result"],
    ["ElicitRequestURLParams", "Params"],
    ["ResultMeta", "Meta"],
    ["JSONRPC", "JSONRPC"],
    ["Result2", "Result2"],
  ];
  for (const [name, kind] of cases) {
    it(`${name} → ${kind}`, () => expect(kindOf(name)).toBe(kind));
  }
});
