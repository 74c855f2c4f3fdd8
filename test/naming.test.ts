import { describe, expect, it } from "vitest";
import { GeneratorError, generateFromMemory } from "../generator/index.js";

const declared = async (documents: { uri: string; json: unknown }[], roots: { name: string; uri: string }[]) => {
  const { files } = await generateFromMemory({ documents, roots, format: false });
  const types = files.find((f) => f.name === "types.ts")!.contents;
  return [...types.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]);
};

describe("naming definitions", () => {
  it("a definition only reached by $ref yields its plain name to a declared one and is qualified by its document", async () => {
    const names = await declared(
      [
        { uri: "http://x.test/a.json", json: { $defs: { Root: { type: "string" } }, properties: { a: { $ref: "#/$defs/Root" } } } },
        { uri: "http://x.test/other.json", json: { $defs: { Root: { type: "number" } } } },
        { uri: "http://x.test/b.json", json: { properties: { n: { $ref: "other.json#/$defs/Root" } } } },
      ],
      [
        { name: "Root", uri: "http://x.test/a.json" },
        { name: "B", uri: "http://x.test/b.json" },
      ],
    );
    expect(names).toEqual(["Root", "B", "ARoot", "OtherRoot"]);
  });

  it("two declared definitions with one name are an error naming both places", async () => {
    const attempt = declared(
      [{ uri: "http://x.test/a.json", json: { $defs: { "task-status": { type: "string" }, TaskStatus: { type: "number" } } } }],
      [
        { name: "TaskStatus", uri: "http://x.test/a.json#/$defs/task-status" },
        { name: "TaskStatus", uri: "http://x.test/a.json#/$defs/TaskStatus" },
      ],
    );
    await expect(attempt).rejects.toThrow(GeneratorError);
    await expect(attempt).rejects.toThrow(/two definitions would get the same name "TaskStatus"/);
  });

  it("never numbers a name: an anonymous object is named from its place", async () => {
    const names = await declared(
      [{ uri: "http://x.test/r.json", json: { type: "object", properties: { params: { type: "object", properties: { taskId: { type: "string" } } } } } }],
      [{ name: "GetTaskRequest", uri: "http://x.test/r.json" }],
    );
    expect(names).toEqual(["GetTaskRequest", "GetTaskRequestParams"]);
  });
});
