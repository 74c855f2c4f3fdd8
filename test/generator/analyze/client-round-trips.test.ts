import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { clientFeatures } from "../../../generator/analyze/protocol/client-features.js";
import { roundTripFeatures } from "../../../generator/analyze/protocol/client-round-trips.js";
import { generate, loadSet, readConfigFile, resolveConfig } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";
import { typeCheckInMemory, STRICT_COMPILER_OPTIONS } from "../../support/typescript.js";

/**
 * Where the client's multi round-trip fields come from (generator/analyze/protocol/client-round-trips.ts):
 * the task input's maps and the protocol's names when the Tasks schema alone is there, the schema's own
 * InputRequiredResult (found by the core flows from its fields, here under a definition name of the
 * test's own) and the request params that declare its state (here with the answers under another
 * field name, so a hard-coded name would fail), and nothing on a revision without `resultType`.
 */

const CONFIG = readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json"));
const TASK_INPUT = { inputVariant: "InputRequiredTask", requestsField: "inputRequests", updateParams: "UpdateTaskRequestParams", responsesField: "inputResponses" };
const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-mrtr-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const modelOf = (name: string) => loadSet(CONFIG.sets.find((s) => s.name === name)!, CONFIG.rootDir).model;
/** The set's Tasks schema alone, without the core schema its config names. */
const aloneModelOf = (name: string) => {
  const { core: _core, ...alone } = CONFIG.sets.find((s) => s.name === name)!;
  return loadSet(alone, CONFIG.rootDir).model;
};

/** The ext-tasks-draft schema with the core definitions of multi round-trip requests added, under a result name and an answers field of the test's own. */
function withInputRequiredResult(): string {
  const schema = JSON.parse(readFileSync(join(projectRoot, "schemas", "ext-tasks-draft.schema.json"), "utf8")) as { $defs: Record<string, unknown> };
  schema.$defs.AskForInput = {
    type: "object",
    properties: { resultType: { type: "string" }, inputRequests: { $ref: "#/$defs/InputRequests" }, requestState: { type: "string" } },
    required: ["resultType"],
  };
  schema.$defs.CallToolRequestParams = {
    type: "object",
    properties: { name: { type: "string" }, answers: { $ref: "#/$defs/InputResponses" }, requestState: { type: "string" } },
    required: ["name"],
  };
  schema.$defs.CallToolRequest = {
    allOf: [{ $ref: "#/$defs/JSONRPCRequest" }, { type: "object", properties: { method: { const: "tools/call", type: "string" }, params: { $ref: "#/$defs/CallToolRequestParams" } }, required: ["method", "params"] }],
  };
  const file = join(work, "ext-mrtr.schema.json");
  writeFileSync(file, JSON.stringify(schema));
  return file;
}

describe("multi round-trip features", () => {
  it("a Tasks schema alone: the task input's maps, requestState, and the requests mrtr.mdx lists", () => {
    const model = aloneModelOf("ext-tasks-draft");
    expect(roundTripFeatures(model, clientFeatures(model)!.resultTag, TASK_INPUT)).toEqual({
      resultType: "input_required",
      requestsField: "inputRequests",
      responsesField: "inputResponses",
      stateField: "requestState",
      methods: ["tools/call", "prompts/get", "resources/read"],
      requests: { type: "InputRequests", validate: "validateInputRequests" },
      responses: { type: "InputResponses", validate: "validateInputResponses" },
    });
  });

  it("none without resultType (2025-11-25) or without the client answering input", () => {
    const model = modelOf("tasks-2025-11-25");
    expect(roundTripFeatures(model, "none", TASK_INPUT)).toBeUndefined();
    expect(roundTripFeatures(modelOf("ext-tasks-draft"), "modeled", undefined)).toBeUndefined();
  });

  it("with the core schema's InputRequiredResult: the methods whose params declare its state, sorted", () => {
    const model = modelOf("ext-tasks-draft");
    expect(roundTripFeatures(model, clientFeatures(model)!.resultTag, TASK_INPUT)?.methods).toEqual(["prompts/get", "resources/read", "tools/call"]);
  });

  it("with an InputRequiredResult of another name: its fields and the methods whose params declare its state; the client checks it whole; the generated client compiles with them", async () => {
    const file = withInputRequiredResult();
    const set = { name: "ext-mrtr", schemas: [file], lint: { "unknown-format": "off" as const } };
    const resolved = resolveConfig({ outDir: join(work, "out"), sets: [set] }, work);
    const model = loadSet(resolved.sets[0]!, work).model;
    expect(roundTripFeatures(model, "modeled", TASK_INPUT)).toMatchObject({
      requestsField: "inputRequests",
      responsesField: "answers",
      stateField: "requestState",
      methods: ["tools/call"],
      requests: { type: "InputRequests" },
      responses: { type: "InputResponses" },
    });
    const { sets } = await generate(resolved);
    const files = new Map(sets[0]!.files.filter((f) => f.name.endsWith(".ts")).map((f) => [f.name, f.contents]));
    expect(files.get("client.ts")).toContain('responsesField: "answers"');
    expect(files.get("client.ts")).toMatch(/inputRequired: \{ type: "AskForInput", validate: validateAskForInput \}/);
    expect(typeCheckInMemory(files, STRICT_COMPILER_OPTIONS)).toEqual([]);
  });
});
