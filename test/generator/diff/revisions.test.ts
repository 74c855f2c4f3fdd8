import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { diffSets, resolveConfig, type ApiChange, type ApiDiff, type ResolvedSet } from "../../../generator/index.js";
import { fixturePath, projectRoot } from "../../support/paths.js";

/**
 * `diff` reads meaning (README › mcp-tasks-gen diff): between the two Tasks extension revisions
 * (2026-05-22, bundled as ext-tasks-2026-05-22, and e434597, which writes every request as
 * `allOf [JSONRPCRequest, { method, params }]`) it reports what changed for clients and servers,
 * not the new layout of requests that mean the same; and a method whose declarations are renamed
 * without changing structure is a compatible change.
 */

const OLD = join(projectRoot, "schemas", "ext-tasks-2026-05-22.schema.json");
const NEW = fixturePath("mcp-spec", "ext-tasks-e434597", "schema.json");

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function setOf(name: string, schema: unknown): ResolvedSet {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-diff-revisions-"));
  temps.push(dir);
  writeFileSync(join(dir, `${name}.schema.json`), JSON.stringify(schema));
  return resolveConfig({ sets: [{ name, schemas: [`${name}.schema.json`] }] }, dir).sets[0]!;
}

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as { $defs: Record<string, any> };
const diff: ApiDiff = diffSets(setOf("old", readJson(OLD)), setOf("new", readJson(NEW)), tmpdir());

const about = (subject: string) => diff.changes.filter((c) => c.subject === subject);
function change(kind: ApiChange["kind"], subject: string): ApiChange {
  const found = diff.changes.filter((c) => c.kind === kind && c.subject === subject);
  if (found.length !== 1) throw new Error(`expected one ${kind} of ${subject}, got ${found.length} in:\n${diff.changes.map((c) => `${c.kind} ${c.subject}`).join("\n")}`);
  return found[0]!;
}

describe("ext-tasks 2026-05-22 → e434597", () => {
  it("no request, notification or message definition is removed or added: the methods only changed layout", () => {
    const methodChanges = diff.changes.filter((c) => c.method !== undefined);
    expect(methodChanges).toEqual([]);
    // What is removed is the old revision's hoisted `_meta` shape, which the typed ResultMetaObject replaces.
    const removed = diff.changes.filter((c) => c.kind === "definition-removed").map((c) => c.subject);
    expect(removed).toEqual(["ResultMeta", "ResultMetaRelatedTask"]);
  });

  it("a request's envelope, method and params are no change: only what the envelope really changed (an unbounded integer id)", () => {
    for (const request of ["GetTaskRequest", "CancelTaskRequest", "UpdateTaskRequest"]) {
      expect(about(`${request}.method`), request).toEqual([]);
      expect(about(`${request}.params`), request).toEqual([]);
      expect(about(`${request}.jsonrpc`), request).toEqual([]);
      expect(diff.changes.filter((c) => c.subject === request && c.kind === "shape-changed"), request).toEqual([]);
      expect(change("type-widened", `${request}.id`).description).toBe("type widened: string | integer → RequestId");
    }
    expect(about("TaskStatusNotification.method")).toEqual([]);
    expect(about("TaskStatusNotification.params")).toEqual([]);
  });

  it("resultType is now a required constant of every result: 'task' when created, 'complete' otherwise", () => {
    for (const [result, value] of [
      ["CreateTaskResult", '"task"'],
      ["GetTaskResult", '"complete"'],
      ["CancelTaskResult", '"complete"'],
      ["UpdateTaskResult", '"complete"'],
    ] as const) {
      const added = change("property-added", `${result}.resultType`);
      expect(added.description, result).toBe(`required property added (${value})`);
      // Servers of the old revision do not send it, which the new one requires.
      expect(added.server, result).toBe("breaking");
    }
  });

  it("ttlMs and pollIntervalMs are integers: narrowed, which breaks servers (the senders)", () => {
    for (const task of ["Task", "WorkingTask", "CompletedTask", "FailedTask", "CreateTaskResult", "GetTaskResult"]) {
      expect(change("type-narrowed", `${task}.ttlMs`).description, task).toBe("type narrowed: number | null → integer | null");
      expect(change("type-narrowed", `${task}.pollIntervalMs`), task).toMatchObject({ description: "type narrowed: number → integer", server: "breaking", client: "compatible" });
    }
  });

  it("a failed task's error is a typed Error, and _meta is typed", () => {
    expect(change("type-narrowed", "FailedTask.error").description).toBe("type narrowed: { [key: string]: unknown } → Error");
    expect(change("type-narrowed", "GetTaskResult.error").description).toBe("type narrowed: { [key: string]: unknown } → Error");
    expect(change("type-changed", "GetTaskResult._meta").description).toBe("type changed: ResultMeta → ResultMetaObject");
    expect(change("type-narrowed", "TaskStatusNotificationParams._meta").description).toBe("type narrowed: { [key: string]: unknown } → NotificationMetaObject");
  });

  it("the input placeholders are real unions of the core elicitation, sampling and roots messages", () => {
    expect(change("type-narrowed", "InputRequest").description).toBe("type narrowed: unknown | unknown | unknown → CreateMessageRequest | ListRootsRequest | ElicitRequest");
    expect(change("type-narrowed", "InputResponse").description).toBe("type narrowed: unknown | unknown | unknown → CreateMessageResult | ListRootsResult | ElicitResult");
  });

  it("the intersections no longer close: results and tasks admit properties they do not declare", () => {
    for (const name of ["Task", "GetTaskRequestParams", "TaskStatusNotification"]) expect(change("opened", name).kind).toBe("opened");
  });
});

describe("methods compared by structure, not by declaration name", () => {
  it("a result declaration renamed with the same structure is a compatible method change; a changed one is breaking", () => {
    const before = readJson(NEW);
    const renamed = structuredClone(before);
    renamed.$defs.TaskLookupResult = renamed.$defs.GetTaskResult;
    delete renamed.$defs.GetTaskResult;
    const setWith = (schema: typeof before) => {
      const set = setOf("renamed", schema);
      return { ...set, methods: new Map([["tasks/get", { result: "TaskLookupResult" }]]) };
    };
    const same = diffSets(setOf("old", before), setWith(renamed), tmpdir());
    const method = same.changes.find((c) => c.subject === "tasks/get")!;
    expect(method).toMatchObject({ kind: "method-changed", client: "compatible", server: "compatible" });
    expect(method.description).toBe("result GetTaskResult → TaskLookupResult (the same structure under another name)");

    const narrowed = structuredClone(renamed);
    narrowed.$defs.TaskLookupResult.allOf[2].properties.resultType = { type: "string", const: "done" };
    const changed = diffSets(setOf("old", before), setWith(narrowed), tmpdir()).changes.find((c) => c.subject === "tasks/get")!;
    expect(changed).toMatchObject({ kind: "method-changed", client: "breaking", server: "breaking", description: "result GetTaskResult → TaskLookupResult" });
  });
});
