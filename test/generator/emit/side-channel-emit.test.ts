import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateFromMemory } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";
import { STRICT_COMPILER_OPTIONS, typeCheckInMemory } from "../../support/typescript.js";

/**
 * Input on `tasks/result` (the 2025-11-25 revision: a task's own requests, README › Runtime parts):
 * where the set also declares the core definitions of those requests, the server's `requireInput`
 * and the client's input handlers are typed by their params and results (found from each request by
 * its method, whatever the definitions are called) and the answers checked by their validators;
 * where it does not (the bundled set today), both work over JSON objects. Either way the generated
 * folder compiles under the strict settings.
 */

const TASKS_URI = "https://example.test/tasks-2025-11-25.json";
const CORE_URL = "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/main/schema/2025-11-25/schema.json";
const tasks = JSON.parse(readFileSync(join(projectRoot, "schemas/tasks-2025-11-25.schema.json"), "utf8")) as { $defs: Record<string, unknown> };
const core = JSON.parse(readFileSync(join(projectRoot, "test/fixtures/mcp-spec/2025-11-25/schema.json"), "utf8"));

/** The core schema with each `$defs` name in `renamed` replaced, in its `$defs` and its `$ref`s. */
function renamedCore(renamed: Readonly<Record<string, string>>): unknown {
  let text = JSON.stringify(core);
  for (const [from, to] of Object.entries(renamed)) text = text.replaceAll(`"#/$defs/${from}"`, `"#/$defs/${to}"`).replaceAll(`"${from}":{`, `"${to}":{`);
  return JSON.parse(text);
}

/** The 2025-11-25 set from memory, with the core definitions named in `coreRoots` declared beside the Tasks schema's own. */
async function generate2025(coreRoots: readonly string[], coreJson: unknown = core): Promise<Map<string, string>> {
  const { files } = await generateFromMemory({
    documents: [
      { uri: TASKS_URI, json: tasks },
      { uri: CORE_URL, json: coreJson },
    ],
    roots: [
      ...Object.keys(tasks.$defs).map((name) => ({ name, uri: `${TASKS_URI}#/$defs/${name}` })),
      ...coreRoots.map((name) => ({ name, uri: `${CORE_URL}#/$defs/${name}` })),
    ],
    format: false,
  });
  return new Map(files.map((f) => [f.name, f.contents]));
}

const errorsOf = (files: Map<string, string>) =>
  typeCheckInMemory(files, STRICT_COMPILER_OPTIONS).map((d) => `${d.file}:${d.line}: ${typeof d.message === "string" ? d.message : d.message.messageText}`);

describe("the side channel's types follow the set's definitions", () => {
  it("with ElicitRequest/ElicitResult and CreateMessageRequest/CreateMessageResult: typed handlers, validated answers, a typed requireInput", async () => {
    const files = await generate2025(["ElicitRequest", "ElicitResult", "CreateMessageRequest", "CreateMessageResult"]);
    const server = files.get("server.ts")!;
    const client = files.get("client.ts")!;
    expect(server).toMatch(/"elicitation\/create": \{ params: validateElicitRequestParams, result: validateElicitResult \}/);
    expect(server).toMatch(/"sampling\/createMessage": \{ params: validateCreateMessageRequestParams, result: validateCreateMessageResult \}/);
    expect(server).not.toMatch(/anyObject/);
    expect(client).toMatch(/readonly "elicitation\/create"\?: InputHandler<ElicitRequestParams, ElicitResult>;/);
    expect(client).toMatch(/results: \{ "elicitation\/create": \{ type: "ElicitResult", validate: validateElicitResult \}/);
    // The set now has a form elicitation: accepted forms are checked against the form they answer.
    expect(client).toMatch(/forms: formCheck\("elicitation\/create", validateElicitationContent, ElicitationContentInvalid\)/);
    // A use of the API the types must accept, and two they must refuse.
    files.set(
      "use.ts",
      [
        'import { createTasksServer, createTasksClient, type TasksClientSend } from "./index.js";',
        "declare const send: TasksClientSend;",
        "export async function work(): Promise<string | undefined> {",
        "  const task = await createTasksServer().createTask({});",
        '  const answer = await task.requireInput("name", { method: "elicitation/create", params: { mode: "form", message: "Name?", requestedSchema: { type: "object", properties: {} } } });',
        '  // @ts-expect-error the answer to an elicitation has no `model`',
        "  void answer.model;",
        '  // @ts-expect-error sampling params need messages',
        '  await task.requireInput("x", { method: "sampling/createMessage", params: { maxTokens: 1 } });',
        '  createTasksClient({ send, inputHandlers: { "elicitation/create": (params) => ({ action: "accept", content: { echo: params.message } }) } });',
        "  return answer.action;",
        "}",
      ].join("\n"),
    );
    expect(errorsOf(files)).toEqual([]);
  });

  it("with the same requests under other names: typed by what the requests are, not by their names", async () => {
    const renamed = { ElicitRequest: "AskUserRequest", ElicitResult: "AskUserResult", ElicitRequestParams: "AskUserParams" };
    const files = await generate2025(["AskUserRequest", "AskUserResult", "CreateMessageRequest", "CreateMessageResult"], renamedCore(renamed));
    const server = files.get("server.ts")!;
    expect(server).toMatch(/"elicitation\/create": \{ params: validateAskUserParams, result: validateAskUserResult \}/);
    expect(files.get("client.ts")).toMatch(/readonly "elicitation\/create"\?: InputHandler<AskUserParams, AskUserResult>;/);
    // (validateElicitationContent is elicitation.ts's form check, named the same in every set.)
    expect(server).not.toMatch(/validateElicit(?!ationContent)/);
    expect(errorsOf(files)).toEqual([]);
  });

  it("without them (the bundled set): handlers and requireInput over JSON objects, answers checked to be objects", async () => {
    const files = await generate2025([]);
    expect(files.get("server.ts")).toMatch(/"elicitation\/create": \{ params: anyObject, result: anyObject \}/);
    expect(files.get("client.ts")).toMatch(/export type InputHandler = \(params: JsonObject, context: InputRequestContext\) => JsonObject \| Promise<JsonObject>;/);
    expect(files.get("client.ts")).not.toMatch(/results:|forms:/);
    expect(errorsOf(files)).toEqual([]);
  });
});
