import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExampleServer, PROTOCOL_VERSION, type ExampleServer } from "../../../examples/ext-tasks-server/server.js";
import { streamableHttpTransport } from "../../../generated/ext-tasks-draft/runtime/parts/http-client.js";
import {
  createTasksClient,
  ElicitationContentInvalid,
  InputRequestError,
  InputRoundsExceededError,
  InvalidResponseError,
  ValidationFailed,
  type InputHandlers,
  type InputRequestContext,
  type TasksClientHeaders,
  type TasksClientRequest,
  type TasksClientSend,
} from "../../../generated/ext-tasks-draft/index.js";

/**
 * Multi round-trip requests in the generated client (ext-tasks-draft, whose results carry
 * `resultType`): an InputRequiredResult is answered by the same typed input handlers a task's input
 * requests go to, and the request is sent again with a new JSON-RPC id, `inputResponses` and
 * `requestState` exactly as it came (absent when the result had none), until it completes or
 * creates a task (README.md › Client stubs). Each peer below is scripted by the round it is in and
 * records what it was sent; nothing here depends on timing.
 */

type Answer = { readonly result: Record<string, unknown> } | { readonly error: { readonly code: number; readonly message: string } };
type Sent = { readonly request: TasksClientRequest; readonly headers: TasksClientHeaders };

/** A peer that answers `tools/list` with no tools and everything else with `answer`; it records a deep copy of each request. */
function peer(answer: (request: TasksClientRequest, index: number) => Answer | Promise<Answer>) {
  const sent: Sent[] = [];
  const send: TasksClientSend = async (request, headers) => {
    sent.push({ request: structuredClone(request), headers });
    if (request.method === "tools/list") return { jsonrpc: "2.0", id: request.id, result: { resultType: "complete", tools: [] } };
    const index = sent.filter((s) => s.request.method === request.method).length - 1;
    return { jsonrpc: "2.0", id: request.id, ...(await answer(request, index)) };
  };
  const calls = (method = "tools/call") => sent.filter((s) => s.request.method === method).map((s) => s.request);
  return { send, sent, calls };
}

const confirm = (message = "Confirm?") => ({
  method: "elicitation/create",
  params: { mode: "form", message, requestedSchema: { type: "object", properties: { confirmed: { type: "boolean" } }, required: ["confirmed"] } },
});
const sampling = { method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "2+2?" } }], maxTokens: 5 } };
const inputRequired = (fields: Record<string, unknown>): Answer => ({ result: { resultType: "input_required", ...fields } });
const complete = (text: string): Answer => ({ result: { resultType: "complete", content: [{ type: "text", text }] } });
const accept: InputHandlers = { "elicitation/create": () => ({ action: "accept", content: { confirmed: true } }) };
const ACCEPTED = { action: "accept", content: { confirmed: true } } as const;

/** The MRTR fields of a request's params: what a retry adds. */
function roundTripFields(request: TasksClientRequest): Record<string, unknown> {
  const params = request.params ?? {};
  return Object.fromEntries(["inputResponses", "requestState"].filter((k) => Object.hasOwn(params, k)).map((k) => [k, params[k]]));
}

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describe("multi round-trip tools/call", () => {
  it("answers each round with the handlers and retries with a new id, the answers and the state, until the result completes", async () => {
    const { send, calls } = peer((_request, round) =>
      round === 0
        ? inputRequired({ inputRequests: { a: confirm("first") }, requestState: "s1" })
        : round === 1
          ? inputRequired({ inputRequests: { b: confirm("second") }, requestState: "s2" })
          : complete("done"),
    );
    const client = createTasksClient({ send });
    const contexts: InputRequestContext[] = [];
    const result = await client.callTool(
      { name: "deploy", arguments: { env: "prod" } },
      { inputHandlers: { "elicitation/create": (params, context) => (contexts.push(context), { action: "accept", content: { confirmed: params.message === "second" } }) } },
    );
    expect(result).toEqual({ content: [{ type: "text", text: "done" }] });
    const sent = calls();
    expect(sent.map(roundTripFields)).toEqual([
      {},
      { inputResponses: { a: { action: "accept", content: { confirmed: false } } }, requestState: "s1" },
      // Only this round's answers: the server asked for b, not a again.
      { inputResponses: { b: ACCEPTED }, requestState: "s2" },
    ]);
    expect(new Set(sent.map((r) => r.id)).size).toBe(3);
    for (const request of sent) expect(request.params).toMatchObject({ name: "deploy", arguments: { env: "prod" } });
    expect(contexts.map((c) => [c.key, c.method, c.request, c.taskId])).toEqual([
      ["a", "elicitation/create", { method: "tools/call", round: 1 }, ""],
      ["b", "elicitation/create", { method: "tools/call", round: 2 }, ""],
    ]);
    client.close();
  });

  it("echoes requestState byte for byte, whatever it holds (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 64 }), async (state) => {
        const { send, calls } = peer((_request, round) => (round === 0 ? inputRequired({ inputRequests: { a: confirm() }, requestState: state }) : complete("ok")));
        const client = createTasksClient({ send });
        await client.callTool({ name: "t" }, { inputHandlers: accept });
        const retry = calls()[1]!.params!;
        expect(typeof retry.requestState).toBe("string");
        expect(retry.requestState === state).toBe(true);
        client.close();
      }),
      { numRuns: 60 },
    );
  });

  it("omits requestState when the result has none, also after a round that had one (missing state); repeats a state that comes again (duplicate state)", async () => {
    const { send, calls } = peer((_request, round) =>
      [
        inputRequired({ inputRequests: { a: confirm() }, requestState: "same" }),
        inputRequired({ inputRequests: { a: confirm("again") }, requestState: "same" }),
        inputRequired({ inputRequests: { a: confirm("once more") } }),
        complete("ok"),
      ][round]!,
    );
    const client = createTasksClient({ send });
    let asked = 0;
    await client.callTool({ name: "t" }, { inputHandlers: { "elicitation/create": () => (asked++, ACCEPTED) } });
    const fields = calls().map(roundTripFields);
    expect(fields).toEqual([
      {},
      { inputResponses: { a: ACCEPTED }, requestState: "same" },
      { inputResponses: { a: ACCEPTED }, requestState: "same" },
      { inputResponses: { a: ACCEPTED } },
    ]);
    expect(Object.hasOwn(calls()[3]!.params!, "requestState")).toBe(false);
    // A key asked again in a later round is a new question: each round's handlers run.
    expect(asked).toBe(3);
    client.close();
  });

  it("a caller's own inputResponses and requestState go out with the first request and are replaced by each round's", async () => {
    const { send, calls } = peer((_request, round) => (round === 0 ? inputRequired({ requestState: "server" }) : complete("ok")));
    const client = createTasksClient({ send });
    await client.request("tools/call", { name: "t", requestState: "resumed", inputResponses: { old: ACCEPTED } });
    expect(calls().map(roundTripFields)).toEqual([{ requestState: "resumed", inputResponses: { old: ACCEPTED } }, { requestState: "server" }]);
    client.close();
  });

  it("state without input requests: retried at once, without inputResponses and without asking anyone", async () => {
    const { send, calls } = peer((_request, round) => (round === 0 ? inputRequired({ requestState: "only-state" }) : complete("ok")));
    const client = createTasksClient({ send });
    let asked = 0;
    await client.callTool({ name: "t" }, { inputHandlers: { "elicitation/create": () => (asked++, ACCEPTED) } });
    expect(calls().map(roundTripFields)).toEqual([{}, { requestState: "only-state" }]);
    expect(asked).toBe(0);
    client.close();
  });

  it("an InputRequiredResult whose state is not a string, or whose input requests are no map, is rejected whole by the set's generated validator, naming its schema path; nothing is retried", async () => {
    for (const fields of [{ requestState: 42 }, { inputRequests: ["not", "a", "map"] }]) {
      const { send, calls } = peer(() => inputRequired(fields));
      const client = createTasksClient({ send });
      const error = await rejection(client.callTool({ name: "t" }, { inputHandlers: accept }));
      expect(error).toBeInstanceOf(ValidationFailed);
      expect((error as ValidationFailed).typeName).toBe("InputRequiredResult");
      expect((error as ValidationFailed).errors[0]!.schemaPath).toMatch(/ext-tasks-draft(\.core)?\.schema\.json#\/\$defs\/InputRequ/);
      expect(calls()).toHaveLength(1);
      client.close();
    }
    // Neither input requests nor state: the schema allows it (its rule is only in the text), the client's own reading does not.
    const { send, calls } = peer(() => inputRequired({}));
    const client = createTasksClient({ send });
    expect(await rejection(client.callTool({ name: "t" }, { inputHandlers: accept }))).toBeInstanceOf(InvalidResponseError);
    expect(calls()).toHaveLength(1);
    client.close();
  });

  it("unvalidated (validateResults: false), the same results are read structurally: an invalid response; nothing is retried", async () => {
    for (const fields of [{}, { requestState: 42 }, { inputRequests: ["not", "a", "map"] }]) {
      const { send, calls } = peer(() => inputRequired(fields));
      const client = createTasksClient({ send, validateResults: false });
      expect(await rejection(client.callTool({ name: "t" }, { inputHandlers: accept }))).toBeInstanceOf(InvalidResponseError);
      expect(calls()).toHaveLength(1);
      client.close();
    }
  });

  it("input requests the schema does not allow are rejected by the set's validator before any handler runs", async () => {
    const { send } = peer(() => inputRequired({ inputRequests: { a: { method: "elicitation/create", params: { message: 7 } } } }));
    const client = createTasksClient({ send });
    let asked = 0;
    const error = await rejection(client.callTool({ name: "t" }, { inputHandlers: { "elicitation/create": () => (asked++, ACCEPTED) } }));
    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as ValidationFailed).errors[0]!.path).toMatch(/^\/inputRequests\/a/);
    expect(asked).toBe(0);
    client.close();
  });

  it("never lets one request's answers or state reach a request sent in parallel", async () => {
    let releaseHandler: () => void = () => {};
    const handlerMayAnswer = new Promise<void>((resolve) => (releaseHandler = resolve));
    const { send, sent } = peer((request) => {
      const params = request.params ?? {};
      if (params.name === "mrtr" && !params.inputResponses) return inputRequired({ inputRequests: { a: confirm() }, requestState: "mrtr-state" });
      return complete(String(params.name ?? request.method));
    });
    const client = createTasksClient({ send });
    const mrtr = client.callTool({ name: "mrtr" }, { inputHandlers: { "elicitation/create": async () => (await handlerMayAnswer, ACCEPTED) } });
    // While the first call waits for its handler, other requests go out.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const others = await Promise.all([client.callTool({ name: "plain" }), client.request("prompts/get", { name: "p" }), client.request("resources/read", { uri: "file:///x" })]);
    releaseHandler();
    expect(await mrtr).toEqual({ content: [{ type: "text", text: "mrtr" }] });
    expect(others.map((r) => (r.content as { text: string }[])[0]!.text)).toEqual(["plain", "p", "resources/read"]);
    const foreign = sent.filter((s) => s.request.params?.name !== "mrtr");
    expect(foreign.length).toBeGreaterThanOrEqual(3);
    for (const { request } of foreign) expect(roundTripFields(request)).toEqual({});
    client.close();
  });

  it("abandoned between rounds: rejects with the signal's reason, tells the running handler, and sends no retry", async () => {
    const { send, calls } = peer(() => inputRequired({ inputRequests: { a: confirm() }, requestState: "s" }));
    const client = createTasksClient({ send });
    const controller = new AbortController();
    let handlerSignal: AbortSignal | undefined;
    const call = client.callTool(
      { name: "t" },
      {
        signal: controller.signal,
        inputHandlers: {
          "elicitation/create": (_params, context) => {
            handlerSignal = context.signal as AbortSignal;
            return new Promise<never>(() => {});
          },
        },
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    const reason = new Error("user closed the dialog");
    controller.abort(reason);
    expect(await rejection(call)).toBe(reason);
    expect(handlerSignal?.aborted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(calls()).toHaveLength(1);
    client.close();
  });

  it("a server that keeps asking: InputRoundsExceededError after maxInputRounds answers (per call, or the client's default)", async () => {
    const { send, calls } = peer(() => inputRequired({ inputRequests: { a: confirm() }, requestState: "again" }));
    const client = createTasksClient({ send, maxInputRounds: 5 });
    const error = await rejection(client.callTool({ name: "t" }, { inputHandlers: accept, maxInputRounds: 3 }));
    expect(error).toBeInstanceOf(InputRoundsExceededError);
    expect(error).toMatchObject({ method: "tools/call", maxInputRounds: 3 });
    expect(calls()).toHaveLength(4);
    expect(await rejection(client.callTool({ name: "t" }, { inputHandlers: accept }))).toMatchObject({ maxInputRounds: 5 });
    expect(calls()).toHaveLength(4 + 6);
    client.close();
  });

  it("a retry that creates a task continues into waitForTask; the task's own input keys are answered apart from the round's", async () => {
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const base = { taskId: "t1", createdAt: at(0), ttlMs: null, pollIntervalMs: 1 };
    const { send, calls } = peer((request, index) => {
      if (request.method === "tools/call") {
        return index === 0 ? inputRequired({ inputRequests: { a: confirm("before") }, requestState: "pre" }) : { result: { resultType: "task", ...base, status: "working", lastUpdatedAt: at(1) } };
      }
      if (request.method === "tasks/get") {
        return index === 0
          ? { result: { resultType: "complete", ...base, status: "input_required", lastUpdatedAt: at(2), inputRequests: { a: confirm("during") } } }
          : { result: { resultType: "complete", ...base, status: "completed", lastUpdatedAt: at(3), result: { content: [{ type: "text", text: "from the task" }] } } };
      }
      return { result: { resultType: "complete" } };
    });
    const client = createTasksClient({ send, minPollMs: 1, maxPollMs: 2 });
    const asked: string[] = [];
    const created: string[] = [];
    const result = await client.callTool(
      { name: "long" },
      { onTaskCreated: (task) => created.push(task.taskId), inputHandlers: { "elicitation/create": (params) => (asked.push(params.message), ACCEPTED) } },
    );
    expect(result).toEqual({ content: [{ type: "text", text: "from the task" }] });
    expect(created).toEqual(["t1"]);
    expect(calls().map(roundTripFields)).toEqual([{}, { inputResponses: { a: ACCEPTED }, requestState: "pre" }]);
    // Key "a" again, now the task's: asked again and answered with tasks/update.
    expect(asked).toEqual(["before", "during"]);
    expect(calls("tasks/update").map((r) => r.params!.inputResponses)).toEqual([{ a: ACCEPTED }]);
    client.close();
  });
});

describe("answers checked before a retry is sent", () => {
  it("an accepted form that does not fit requestedSchema fails with InputRequestError (cause ElicitationContentInvalid); nothing is sent", async () => {
    const { send, calls } = peer(() => inputRequired({ inputRequests: { a: confirm() }, requestState: "s" }));
    const client = createTasksClient({ send });
    const error = await rejection(client.callTool({ name: "t" }, { inputHandlers: { "elicitation/create": () => ({ action: "accept", content: { confirmed: "yes" } }) } }));
    expect(error).toBeInstanceOf(InputRequestError);
    expect(error).toMatchObject({ method: "tools/call", key: "a", inputMethod: "elicitation/create" });
    expect((error as InputRequestError).cause).toBeInstanceOf(ElicitationContentInvalid);
    expect(calls()).toHaveLength(1);
    client.close();
  });

  it("an answer the schema rejects, a handler that throws, and a method without handler fail the request; an elicitation without handler is declined", async () => {
    const cases: [InputHandlers, Record<string, unknown>, string][] = [
      [{ "elicitation/create": () => ({ action: "maybe" }) as never }, { a: confirm() }, "must"],
      [
        {
          "elicitation/create": () => {
            throw new Error("boom");
          },
        },
        { a: confirm() },
        "the input handler failed",
      ],
      [{}, { s: sampling }, "no input handler for this method"],
    ];
    for (const [handlers, inputRequests, message] of cases) {
      const { send, calls } = peer(() => inputRequired({ inputRequests }));
      const client = createTasksClient({ send });
      const error = await rejection(client.callTool({ name: "t" }, { inputHandlers: handlers }));
      expect(error).toBeInstanceOf(InputRequestError);
      expect((error as Error).message).toContain(message);
      expect(calls()).toHaveLength(1);
      client.close();
    }
    const { send, calls } = peer((_request, round) => (round === 0 ? inputRequired({ inputRequests: { a: confirm() } }) : complete("ok")));
    const client = createTasksClient({ send });
    await client.callTool({ name: "t" });
    expect(calls()[1]!.params!.inputResponses).toEqual({ a: { action: "cancel" } });
    client.close();
  });
});

describe("resultType is open-ended", () => {
  it("a value the client does not know is an error, never read as complete (callTool and request); no resultType is complete", async () => {
    const { send } = peer((request) =>
      request.params?.name === "untagged" ? { result: { content: [] } } : { result: { resultType: "deferred", content: [] } },
    );
    const client = createTasksClient({ send });
    const error = await rejection(client.callTool({ name: "t" }));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toContain('unknown resultType "deferred"');
    expect(await rejection(client.request("prompts/get", { name: "p" }))).toBeInstanceOf(InvalidResponseError);
    expect(await client.callTool({ name: "untagged" })).toEqual({ content: [] });
    client.close();
  });

  it("request() runs the rounds for prompts/get and resources/read, and hands other methods' results back as they came", async () => {
    const { send, calls } = peer((request, index) =>
      request.method === "prompts/get" && index === 0 ? inputRequired({ inputRequests: { a: confirm() } }) : { result: { resultType: request.method === "ping" ? "input_required" : "complete", messages: [] } },
    );
    const client = createTasksClient({ send });
    expect(await client.request("prompts/get", { name: "p" }, { inputHandlers: accept })).toEqual({ resultType: "complete", messages: [] });
    expect(calls("prompts/get").map(roundTripFields)).toEqual([{}, { inputResponses: { a: ACCEPTED } }]);
    // Servers must not ask for input on other requests: such a result is not retried.
    expect(await client.request("ping")).toEqual({ resultType: "input_required", messages: [] });
    expect(calls("ping")).toHaveLength(1);
    client.close();
  });
});

/**
 * End to end over HTTP against the project's example server (examples/ext-tasks-server/, the
 * conformance fixture tools): `test_tool_with_task` first answers an InputRequiredResult, and its retry
 * creates a task, which the client then waits for.
 */
describe("against the example ext-tasks server", () => {
  let example: ExampleServer;
  beforeAll(async () => {
    example = await startExampleServer();
  });
  afterAll(() => example.close());

  it("answers the round, retries, and waits for the task the retry creates", async () => {
    const transport = streamableHttpTransport({ url: example.url, protocolVersion: PROTOCOL_VERSION });
    // The server asks for a form only of a client that declares it can answer one.
    const client = createTasksClient({
      ...transport,
      meta: { "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION },
      clientCapabilities: { elicitation: { form: {} } },
      minPollMs: 10,
    });
    const rounds: (number | undefined)[] = [];
    const created: string[] = [];
    const result = await client.callTool(
      { name: "test_tool_with_task" },
      {
        onTaskCreated: (task) => created.push(task.status),
        inputHandlers: { "elicitation/create": (_params, context) => (rounds.push(context.request?.round), { action: "accept", content: { name: "Ada" } }) },
      },
    );
    expect(rounds).toEqual([1]);
    expect(created).toHaveLength(1);
    expect(result).toMatchObject({ content: [{ type: "text", text: "Hello, Ada! Your task is done." }] });
    client.close();
  });
});
