import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createTasksClient,
  elicitationDefaults,
  ElicitationContentInvalid,
  TaskInputError,
  ValidationFailed,
  type ElicitRequestParams,
  type ElicitResult,
  type InputHandlers,
  type InputRequest,
  type TasksClient,
  type TasksClientRequest,
} from "../../../generated/ext-tasks-draft/index.js";
import { createTasksServer, type TaskHandle, type TasksServer } from "../../../generated/ext-tasks-draft/server.js";

/**
 * End to end, in one process: the generated ext-tasks server asks for a name through an
 * elicitation form (a typed `requireInput`), and the generated client (its `send` is the
 * server's own `handle()`) routes the typed request to the user's handler. A wrong answer is
 * caught on the client, with the field's error, before anything is sent; a right one completes
 * the task. This works because the newest revision's `InputRequest`/`InputResponse` are real
 * unions of the elicitation, sampling and roots messages (the 2026-05-22 revision needed a
 * binding for that, see elicitation-bindings.test.ts).
 */

const NAME_FORM = {
  type: "object",
  properties: { name: { type: "string", title: "Your name", minLength: 2, maxLength: 40, default: "" } },
  required: ["name"],
} as const;

// Typed: this would not compile if requireInput did not take an elicitation/create request.
const askName: InputRequest = {
  method: "elicitation/create",
  params: { mode: "form", message: "What is your name?", requestedSchema: { ...NAME_FORM, properties: { ...NAME_FORM.properties }, required: [...NAME_FORM.required] } },
};

let server: TasksServer;
let client: TasksClient;
let sent: TasksClientRequest[];

beforeEach(() => {
  server = createTasksServer({ pollInterval: 10 });
  sent = [];
  client = createTasksClient({
    send: (request) => {
      sent.push(request);
      return server.handle(request);
    },
    onNotification: (listener) => server.subscribe(listener),
    minPollMs: 5,
  });
});

afterEach(() => {
  client.close();
  server.close();
});

/** A task that asks for a name and greets with it (or greets a stranger when the form is not accepted). */
async function greetingTask(request: InputRequest = askName): Promise<TaskHandle> {
  const task = await server.createTask({});
  task
    .requireInput("name", request)
    .then(async (answer) => {
      const name = "action" in answer && answer.action === "accept" ? answer.content?.name : undefined;
      await task.complete({ content: [{ type: "text", text: typeof name === "string" ? `Hello, ${name}!` : "Hello, stranger!" }] });
    })
    // A task still asking when its test ends goes with the closing server (each test checks the outcome it expects).
    .catch(() => {});
  return task;
}

/** Handlers that answer the name form with the given content, recording each request's params. */
function answering(content: ElicitResult["content"], asked: ElicitRequestParams[] = []): InputHandlers {
  return {
    "elicitation/create": (params) => {
      asked.push(params);
      return { action: "accept", ...(content ? { content } : {}) };
    },
  };
}

const methodsSent = () => sent.map((r) => r.method);
const statusOf = async (taskId: string) => ((await server.handle({ jsonrpc: "2.0", id: "peek", method: "tasks/get", params: { taskId, _meta: META } })) as { result: { status: string } }).result.status;
const META = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };

describe("a task asks for a name through an elicitation form", () => {
  it("a wrong answer is caught on the client with the field's error; nothing is sent and the task still asks", async () => {
    const task = await greetingTask();
    const asked: ElicitRequestParams[] = [];
    const error = await client.waitForTask(task.taskId, { inputHandlers: answering({ name: "A" }, asked) }).then(
      () => undefined,
      (e: unknown) => e,
    );

    // The handler got the typed request: its form, which the host can prefill from the defaults.
    expect(asked).toHaveLength(1);
    const params = asked[0]!;
    if (!("requestedSchema" in params)) throw new Error("expected a form elicitation");
    expect(params.requestedSchema.required).toEqual(["name"]);
    expect(elicitationDefaults(params.requestedSchema)).toEqual({ ok: true, value: { name: "" } });

    expect(error).toBeInstanceOf(TaskInputError);
    expect(error).toMatchObject({ taskId: task.taskId, key: "name", method: "elicitation/create" });
    const cause = (error as TaskInputError).cause;
    expect(cause).toBeInstanceOf(ElicitationContentInvalid);
    expect((cause as ElicitationContentInvalid).errors).toEqual([
      { field: "name", path: "/name", keyword: "minLength", message: "Enter at least 2 characters.", schemaPath: "requestedSchema#/properties/name/minLength" },
    ]);
    expect((error as Error).message).toContain("name: Enter at least 2 characters.");

    expect(methodsSent()).not.toContain("tasks/update");
    expect(await statusOf(task.taskId)).toBe("input_required");
  });

  it("a right answer, after the wrong one, completes the task", async () => {
    const task = await greetingTask();
    await expect(client.waitForTask(task.taskId, { inputHandlers: answering({ name: "A" }) })).rejects.toBeInstanceOf(TaskInputError);

    const result = await client.waitForTask(task.taskId, { inputHandlers: answering({ name: "Ada" }) });
    expect(result).toEqual({ content: [{ type: "text", text: "Hello, Ada!" }] });
    const updates = sent.filter((r) => r.method === "tasks/update");
    expect(updates).toHaveLength(1);
    expect(updates[0]!.params).toMatchObject({ taskId: task.taskId, inputResponses: { name: { action: "accept", content: { name: "Ada" } } } });
    expect(await statusOf(task.taskId)).toBe("completed");
  });

  it.each([
    ["a field the form does not have", { name: "Ada", age: 3 }, [["age", "additionalProperties"]]],
    // SEP-1034: a field left out takes its default (form-answers.ts), here "", which the form then refuses.
    ["the required field left out (its default is too short)", {}, [["name", "minLength"]]],
    ["no content at all (the defaults are the content)", undefined, [["name", "minLength"]]],
    ["a number for a text field", { name: 7 }, [["name", "type"]]],
  ] as const)("catches %s", async (_case, content, expected) => {
    const task = await greetingTask();
    const error = await client.waitForTask(task.taskId, { inputHandlers: answering(content) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const cause = (error as TaskInputError).cause as ElicitationContentInvalid;
    expect(cause).toBeInstanceOf(ElicitationContentInvalid);
    expect(cause.errors.map((e) => [e.field, e.keyword])).toEqual(expected);
    expect(methodsSent()).not.toContain("tasks/update");
  });

  it("a declined form is sent as it is: only accepted content is checked against the form", async () => {
    const task = await greetingTask();
    const result = await client.waitForTask(task.taskId, { inputHandlers: { "elicitation/create": () => ({ action: "decline" }) } });
    expect(result).toEqual({ content: [{ type: "text", text: "Hello, stranger!" }] });
  });

  it("a URL-mode elicitation has no form: its accepting answer is sent without content", async () => {
    const task = await greetingTask({
      method: "elicitation/create",
      params: { mode: "url", message: "Sign in", url: "https://example.com/login" },
    });
    const result = await client.waitForTask(task.taskId, { inputHandlers: answering(undefined) });
    expect(result).toEqual({ content: [{ type: "text", text: "Hello, stranger!" }] });
  });

  it("a malformed form never reaches the handler: the task's snapshot fails validation on the client", async () => {
    const nested = { ...askName, params: { ...askName.params, requestedSchema: { type: "object", properties: { address: { type: "object" } } } } };
    const task = await greetingTask(nested as unknown as InputRequest);
    const asked: ElicitRequestParams[] = [];
    const error = await client.waitForTask(task.taskId, { inputHandlers: answering({}, asked) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as ValidationFailed).errors.some((e) => e.path.startsWith("/inputRequests/name/params"))).toBe(true);
    expect(asked).toEqual([]);
  });
});
