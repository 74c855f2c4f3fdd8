import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { coreFlows } from "../../../generator/analyze/protocol/core-flows.js";
import { flowChecks } from "../../../generator/analyze/protocol/flow-checks.js";
import { generate, loadSet, readConfigFile, resolveConfig } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";
import { FULL_STRICT_OPTIONS } from "../../support/schema-oracle.js";
import { typeCheckInMemory } from "../../support/typescript.js";

/**
 * The generated validators the engines check the protocol's flows with (ARCHITECTURE.md › Stubs):
 * read from the core flows by what each message is, so a core schema that names every one of them
 * otherwise still wires its validators into the client's and the server's profiles (a hard-coded
 * name would fail here), and a set without a definition gets no check of it (the engine then reads
 * that message structurally).
 */

const CONFIG = readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json"));
const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-flow-checks-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const setNamed = (name: string) => CONFIG.sets.find((s) => s.name === name)!;
const checksOf = (set: ReturnType<typeof setNamed>) => flowChecks(coreFlows(loadSet(set, CONFIG.rootDir).model));

/**
 * The flows' definitions under names of the test's own. A request and its result are renamed
 * together (the method table pairs `XRequest` with `XResult`); the -32022 and -32021 errors'
 * `data` are inline objects, named after their errors.
 */
const RENAMED = {
  SubscriptionsListenRequestParams: "OpenStreamParams",
  SubscriptionsAcknowledgedNotificationParams: "StreamAgreedParams",
  InputRequiredResult: "AskForInput",
  ListToolsRequest: "ToolPageRequest",
  ListToolsResult: "ToolPageResult",
  CallToolRequest: "InvokeRequest",
  CallToolResult: "InvokeResult",
  DiscoverRequest: "DiscoveryRequest",
  DiscoverResult: "DiscoveryResult",
  UnsupportedProtocolVersionError: "VersionMismatch",
  MissingRequiredClientCapabilityError: "CapabilityMissing",
} as const;

/** The core schema with `RENAMED` applied to its `$defs` and to every `$ref` to them. */
function renamedCore(): string {
  let text = readFileSync(join(projectRoot, "schemas", "ext-tasks-draft.core.schema.json"), "utf8");
  for (const [from, to] of Object.entries(RENAMED)) {
    text = text.replaceAll(`"#/$defs/${from}"`, `"#/$defs/${to}"`).replaceAll(`"${from}": {`, `"${to}": {`);
  }
  const file = join(work, "core-renamed.schema.json");
  writeFileSync(file, text);
  return file;
}

describe("flow checks", () => {
  it("the bundled sets: every check of e434597's core flows; 2025-11-25 only the tools page and the tool result; none without a core schema", () => {
    expect(checksOf(setNamed("ext-tasks-draft"))).toEqual({
      listenParams: { type: "SubscriptionsListenRequestParams", validate: "validateSubscriptionsListenRequestParams" },
      listenAcknowledged: { type: "SubscriptionsAcknowledgedNotificationParams", validate: "validateSubscriptionsAcknowledgedNotificationParams" },
      inputRequired: { type: "InputRequiredResult", validate: "validateInputRequiredResult" },
      toolsPage: { type: "ListToolsResult", validate: "validateListToolsResult" },
      toolResult: { type: "CallToolResult", validate: "validateCallToolResult" },
      discover: { type: "DiscoverResult", validate: "validateDiscoverResult" },
      unsupportedVersion: { type: "UnsupportedProtocolVersionErrorData", validate: "validateUnsupportedProtocolVersionErrorData" },
      missingCapability: { type: "MissingRequiredClientCapabilityErrorData", validate: "validateMissingRequiredClientCapabilityErrorData" },
    });
    expect(checksOf(setNamed("tasks-2025-11-25"))).toEqual({
      toolsPage: { type: "ListToolsResult", validate: "validateListToolsResult" },
      toolResult: { type: "CallToolResult", validate: "validateCallToolResult" },
    });
    const { core: _core, ...alone } = setNamed("ext-tasks-draft");
    expect(checksOf(alone)).toEqual({});
  });

  it("a core schema with every flow definition renamed still wires each validator into the profiles, and the set compiles under the full strict flag set", async () => {
    const tasks = join(projectRoot, "schemas", "ext-tasks-draft.schema.json");
    const set = { name: "renamed", schemas: [tasks], core: { schema: renamedCore() }, lint: { "unknown-format": "off" as const } };
    const resolved = resolveConfig({ outDir: join(work, "out"), sets: [set] }, work);
    const checks = flowChecks(coreFlows(loadSet(resolved.sets[0]!, work).model));
    expect(Object.fromEntries(Object.entries(checks).map(([key, check]) => [key, check.type]))).toEqual({
      listenParams: "OpenStreamParams",
      listenAcknowledged: "StreamAgreedParams",
      inputRequired: "AskForInput",
      toolsPage: "ToolPageResult",
      toolResult: "InvokeResult",
      discover: "DiscoveryResult",
      unsupportedVersion: "VersionMismatchData",
      missingCapability: "CapabilityMissingData",
    });
    const { sets } = await generate(resolved);
    const files = new Map(sets[0]!.files.filter((f) => f.name.endsWith(".ts")).map((f) => [f.name, f.contents]));
    const client = files.get("client.ts")!;
    for (const [key, type] of [
      ["listenAcknowledged", "StreamAgreedParams"],
      ["inputRequired", "AskForInput"],
      ["toolsPage", "ToolPageResult"],
      ["toolResult", "InvokeResult"],
      ["discover", "DiscoveryResult"],
      ["unsupportedVersion", "VersionMismatchData"],
      ["missingCapability", "CapabilityMissingData"],
    ]) {
      expect(client, key).toMatch(new RegExp(`${key}: \\{\\s*type: "${type}",\\s*validate: validate${type},?\\s*\\}`));
    }
    expect(files.get("server.ts")).toContain("listen: { validate: validateOpenStreamParams }");
    for (const old of [...Object.keys(RENAMED), "UnsupportedProtocolVersionErrorData", "MissingRequiredClientCapabilityErrorData"]) expect(client + files.get("server.ts"), old).not.toMatch(new RegExp(`validate${old}\\b`));
    expect(typeCheckInMemory(files, FULL_STRICT_OPTIONS)).toEqual([]);
  });

  it("2025-11-25: listTools is typed as the set's Tool whatever it is called, and the task support values are the ones its schema allows", async () => {
    const CORE_URL = "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/main/schema/2025-11-25/schema.json";
    const core = JSON.parse(readFileSync(join(projectRoot, "schemas", "mcp-2025-11-25.schema.json"), "utf8")) as { $defs: Record<string, { properties?: Record<string, { enum?: string[] }> }> };
    // A revision whose tools can only forbid or require a task, and whose Tool is called Instrument.
    core.$defs.ToolExecution!.properties!.taskSupport!.enum = ["forbidden", "required"];
    const text = JSON.stringify(core).replaceAll('"#/$defs/Tool"', '"#/$defs/Instrument"').replace('"Tool":{', '"Instrument":{');
    const file = join(work, "mcp-2025-renamed.schema.json");
    writeFileSync(file, text);
    const set = {
      name: "v2025-renamed",
      schemas: [join(projectRoot, "schemas", "tasks-2025-11-25.schema.json")],
      remotes: { [CORE_URL]: file },
      core: { schema: file },
      lint: { "unknown-format": "off" as const },
    };
    const { sets } = await generate(resolveConfig({ outDir: join(work, "out-2025"), sets: [set] }, work));
    const files = new Map(sets[0]!.files.filter((f) => f.name.endsWith(".ts")).map((f) => [f.name, f.contents]));
    const client = files.get("client.ts")!;
    expect(client).toContain("export type ToolDescription = Instrument;");
    expect(client).toMatch(/tools: \{ taskSupport: \["forbidden", ?"required"\], paramHeaders: false \}/);
    expect(client).toMatch(/toolsPage: \{ type: "ListToolsResult", validate: validateListToolsResult \}/);
    // listTools() gives the set's Instrument: its declared fields are typed.
    files.set(
      "use.ts",
      [
        'import { createTasksClient, type TasksClientSend } from "./index.js";',
        "declare const send: TasksClientSend;",
        "export async function support(): Promise<(\"forbidden\" | \"required\" | undefined)[]> {",
        "  const tools = await createTasksClient({ send }).listTools();",
        "  return tools.map((tool) => tool.execution?.taskSupport);",
        "}",
      ].join("\n"),
    );
    expect(typeCheckInMemory(files, FULL_STRICT_OPTIONS)).toEqual([]);
    // The bundled set: the three values, and its own Tool.
    const bundled = readFileSync(join(projectRoot, "generated", "tasks-2025-11-25", "client.ts"), "utf8");
    expect(bundled).toContain("export type ToolDescription = Tool;");
    expect(bundled).toMatch(/tools: \{ taskSupport: \["forbidden", "optional", "required"\], paramHeaders: false \}/);
  });
});
