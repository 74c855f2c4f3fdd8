import { describe, expect, it } from "vitest";
import { checkFormAnswer, locatedFormCheck, type FormAnswerChecks } from "../../../templates/runtime/protocol/form-answers.js";
import {
  createTasksClient as createExtClient,
  ElicitationContentInvalid,
  InputRequestError,
  TaskInputError,
  ValidationFailed,
  type InputHandlers as ExtInputHandlers,
  type InputRequest,
  type TasksClientRequest,
} from "../../../generated/ext-tasks-draft/index.js";
import { createTasksServer as createExtServer, type TasksServer as ExtServer } from "../../../generated/ext-tasks-draft/server.js";
import { validateElicitationContent as validateExtContent } from "../../../generated/ext-tasks-draft/elicitation.js";
import {
  validateCreateMessageResult,
  validateElicitResult as validateExtElicitResult,
  validateListRootsResult,
} from "../../../generated/ext-tasks-draft/validators.js";
import { createInputRounds } from "../../../generated/ext-tasks-draft/runtime/server/request-state.js";
import { JsonRpcError, requestContext } from "../../../generated/ext-tasks-draft/runtime/server/core.js";
import {
  createTasksClient as create2025Client,
  createTasksServer as create2025Server,
  ElicitationContentInvalid as ElicitationContentInvalid2025,
  JsonRpcResponseError,
  type InputHandlers as InputHandlers2025,
} from "../../../generated/tasks-2025-11-25/index.js";

/**
 * One rule for an answer that accepts an elicitation form (templates/runtime/protocol/form-answers.ts):
 * the form's defaults first (SEP-1034), the envelope by the schema's validator without the
 * content, the content by the form. The core schemas type ElicitResult's content numbers as
 * integers while a form's `number` field takes any number, so 95.5 for it is the probe: every path
 * that receives form answers, on the client and on the server, over the generated stubs of the
 * bundled sets, accepts it and fills in an omitted field's default, and still refuses a string for
 * the number (located at the field), a required field left out without a default, and a bad envelope.
 */

/** A number field (any number) and a text field with a default, both required. */
const SCORE_FORM = {
  type: "object",
  properties: {
    score: { type: "number", title: "Score", minimum: 0, maximum: 100 },
    nickname: { type: "string", title: "Nickname", default: "anon" },
  },
  required: ["score", "nickname"],
} as const;

const askScore = {
  method: "elicitation/create",
  params: { mode: "form", message: "Your score?", requestedSchema: structuredClone(SCORE_FORM) as never },
} satisfies InputRequest;

/** What every path must accept, and what it makes of it. */
const FRACTION = { action: "accept", content: { score: 95.5 } } as const;
const FILLED = { action: "accept", content: { nickname: "anon", score: 95.5 } } as const;

/** What every path must refuse: the answer, and where the located problem is (in the content, or none for the envelope). */
const REFUSED = [
  ["a string for the number field", { action: "accept", content: { score: "high", nickname: "Ada" } }, { path: "/score", keyword: "type" }],
  ["the required field without default left out", { action: "accept", content: { nickname: "Ada" } }, { path: "/score", keyword: "required" }],
  ["an envelope the schema refuses", { action: "maybe" }, undefined],
] as const;

/** Settles a promise as its rejection (undefined when it resolves). */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("checkFormAnswer (the rule itself)", () => {
  const request = { method: "elicitation/create", params: { requestedSchema: SCORE_FORM } };
  const seen: unknown[] = [];
  const checks: FormAnswerChecks<string> = {
    envelope: (answer) => (seen.push(answer), (answer as { action?: unknown }).action === "maybe" ? "envelope" : undefined),
    form: (_schema, content) => ((content as { score?: unknown }).score === "high" ? "form" : undefined),
  };

  it("fills the defaults, shows the envelope without the content, and gives the form the filled content", () => {
    seen.length = 0;
    expect(checkFormAnswer(request, FRACTION, checks)).toEqual({ ok: true, value: FILLED });
    expect(seen).toEqual([{ action: "accept" }]);
  });

  it("reports the envelope's problem before the form's; the answer's own values win over the defaults", () => {
    expect(checkFormAnswer(request, { action: "maybe", content: { score: "high" } }, checks)).toEqual({ ok: false, problem: "envelope" });
    expect(checkFormAnswer(request, { action: "accept", content: { score: "high" } }, checks)).toEqual({ ok: false, problem: "form" });
    expect(checkFormAnswer(request, { action: "accept", content: { score: 1, nickname: "Ada" } }, checks)).toEqual({ ok: true, value: { action: "accept", content: { score: 1, nickname: "Ada" } } });
  });

  it("an answer that accepts no form is the envelope's alone, content and all", () => {
    const cases: [string, { method: string; params?: unknown }, unknown][] = [
      ["declined", request, { action: "decline" }],
      ["URL mode", { method: "elicitation/create", params: { mode: "url", url: "https://x.test", requestedSchema: SCORE_FORM } }, { action: "accept", content: { a: 1 } }],
      ["another method", { method: "sampling/createMessage", params: { requestedSchema: SCORE_FORM } }, { action: "accept", content: { a: 1 } }],
      ["not an object", request, "yes"],
    ];
    for (const [title, asked, answer] of cases) {
      seen.length = 0;
      expect(checkFormAnswer(asked, answer, checks), title).toEqual({ ok: true, value: answer });
      expect(seen, title).toEqual([answer]);
    }
  });

  it("without a form check the envelope sees the content (filled); content that is no object is not replaced by the defaults", () => {
    seen.length = 0;
    expect(checkFormAnswer(request, FRACTION, { envelope: checks.envelope })).toEqual({ ok: true, value: FILLED });
    expect(seen).toEqual([FILLED]);
    expect(checkFormAnswer(request, { action: "accept", content: "x" }, checks)).toEqual({ ok: true, value: { action: "accept", content: "x" } });
  });

  it("locatedFormCheck puts the form's errors under the content's place", () => {
    const check = locatedFormCheck(validateExtContent, "/inputResponses/k/content")!;
    expect(check(SCORE_FORM, { score: 95.5, nickname: "a" })).toBeUndefined();
    expect(check(SCORE_FORM, { score: "high", nickname: "a" })).toMatchObject([{ path: "/inputResponses/k/content/score", keyword: "type" }]);
    expect(locatedFormCheck(undefined, "")).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// (a) Task input: tasks/update (ext-tasks-draft)

describe("task input (tasks/update, ext-tasks-draft)", () => {
  const META = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };

  const statusOf = async (server: ExtServer, taskId: string) =>
    ((await server.handle({ jsonrpc: "2.0", id: "peek", method: "tasks/get", params: { taskId, _meta: META } })) as { result: { status: string } }).result.status;

  /** A server's task that asks for the score (pending once this returns); `answer` is what requireInput resolved or rejected with. */
  async function scoreTask(server: ExtServer) {
    const task = await server.createTask({});
    const answer = task.requireInput("score", askScore).then(
      async (value) => (await task.complete({ content: [] }), { value }),
      (error: unknown) => ({ error }),
    );
    await expect.poll(() => statusOf(server, task.taskId)).toBe("input_required");
    return { task, answer };
  }

  /** The generated client whose `send` is the server's own `handle()`, recording what it sends. */
  function clientOf(server: ExtServer) {
    const sent: TasksClientRequest[] = [];
    const client = createExtClient({ send: (request) => (sent.push(structuredClone(request)), server.handle(request)), minPollMs: 5 });
    return { client, updates: () => sent.filter((r) => r.method === "tasks/update").map((r) => r.params!.inputResponses) };
  }

  const answering = (answer: object): ExtInputHandlers => ({ "elicitation/create": () => answer as never });

  it("client: 95.5 for a number field goes out with the omitted field's default, and the task gets it", async () => {
    const server = createExtServer({ pollInterval: 10 });
    const { task, answer } = await scoreTask(server);
    const { client, updates } = clientOf(server);
    await client.waitForTask(task.taskId, { inputHandlers: answering(FRACTION) });
    expect(updates()).toEqual([{ score: FILLED }]);
    expect(await answer).toEqual({ value: FILLED });
    client.close();
    server.close();
  });

  it.each(REFUSED)("client: refuses %s before anything is sent", async (_title, answer, located) => {
    const server = createExtServer({ pollInterval: 10 });
    const { task } = await scoreTask(server);
    const { client, updates } = clientOf(server);
    const error = await rejection(client.waitForTask(task.taskId, { inputHandlers: answering(answer) }));
    expect(error).toBeInstanceOf(TaskInputError);
    const cause = (error as TaskInputError).cause;
    if (located) {
      expect(cause).toBeInstanceOf(ElicitationContentInvalid);
      expect((cause as ElicitationContentInvalid).errors).toMatchObject([located]);
    } else {
      expect(cause).toBeInstanceOf(ValidationFailed);
      expect((cause as ValidationFailed).errors[0]!.path).toMatch(/^\/inputResponses\/score/);
    }
    expect(updates()).toEqual([]);
    client.close();
    server.close();
  });

  /** tasks/update sent to the server as it is, as a client that does not judge its answers would. */
  const update = (server: ExtServer, taskId: string, answer: unknown) =>
    server.handle({ jsonrpc: "2.0", id: 1, method: "tasks/update", params: { taskId, inputResponses: { score: answer }, _meta: META } });

  it("server: takes 95.5 for a number field and fills in the omitted field's default", async () => {
    const server = createExtServer({ pollInterval: 10 });
    const { task, answer } = await scoreTask(server);
    expect(await update(server, task.taskId, FRACTION)).toMatchObject({ result: {} });
    expect(await answer).toEqual({ value: FILLED });
    server.close();
  });

  it.each(REFUSED)("server: refuses %s with -32602, located, and the task still asks", async (_title, answer, located) => {
    const server = createExtServer({ pollInterval: 10 });
    const { task } = await scoreTask(server);
    const response = (await update(server, task.taskId, answer)) as { error: { code: number; message: string; data: { errors: { path: string }[] } } };
    expect(response.error.code).toBe(-32602);
    const path = located ? `/inputResponses/score/content${located.path}` : "/inputResponses/score";
    expect(response.error.data.errors[0]).toMatchObject({ path, ...(located ? { keyword: located.keyword } : {}) });
    expect(response.error.message).toContain(path);
    expect(await statusOf(server, task.taskId)).toBe("input_required");
    server.close();
  });
});

// ---------------------------------------------------------------------------------------------
// (b) Multi round-trip: InputRequiredResult and the retry's inputResponses (ext-tasks-draft)

describe("multi round-trip (inputResponses of a retry, ext-tasks-draft)", () => {
  /** A peer that asks for the score once, then completes; it records every tools/call it is sent. */
  function roundTripPeer() {
    const calls: TasksClientRequest[] = [];
    const client = createExtClient({
      send: async (request) => {
        if (request.method === "tools/list") return { jsonrpc: "2.0", id: request.id, result: { resultType: "complete", tools: [] } };
        calls.push(structuredClone(request));
        const result = calls.length === 1 ? { resultType: "input_required", inputRequests: { k: askScore }, requestState: "s" } : { resultType: "complete", content: [] };
        return { jsonrpc: "2.0", id: request.id, result };
      },
    });
    return { client, calls };
  }

  it("client: the retry carries 95.5 for a number field with the omitted field's default", async () => {
    const { client, calls } = roundTripPeer();
    await client.callTool({ name: "t" }, { inputHandlers: { "elicitation/create": () => FRACTION } });
    expect(calls.map((r) => r.params!.inputResponses)).toEqual([undefined, { k: FILLED }]);
    client.close();
  });

  it.each(REFUSED)("client: refuses %s; no retry is sent", async (_title, answer, located) => {
    const { client, calls } = roundTripPeer();
    const error = await rejection(client.callTool({ name: "t" }, { inputHandlers: { "elicitation/create": () => answer as never } }));
    expect(error).toBeInstanceOf(InputRequestError);
    const cause = (error as InputRequestError).cause;
    if (located) {
      expect(cause).toBeInstanceOf(ElicitationContentInvalid);
      expect((cause as ElicitationContentInvalid).errors).toMatchObject([located]);
    } else {
      expect(cause).toBeInstanceOf(ValidationFailed);
      expect((cause as ValidationFailed).errors[0]!.path).toMatch(/^\/k/);
    }
    expect(calls).toHaveLength(1);
    client.close();
  });

  const rounds = createInputRounds({
    keys: ["k".repeat(32)],
    validators: {
      "elicitation/create": validateExtElicitResult,
      "sampling/createMessage": validateCreateMessageResult,
      "roots/list": validateListRootsResult,
      elicitationContent: validateExtContent,
    },
  });
  const context = requestContext({ _meta: { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } } }, { owner: "alice" });
  /** A tool whose handler collects the score and answers what it got. */
  const handler = rounds.handler("tools/call", (_params, _context, round) => {
    const got = round.collect({ k: askScore });
    return got.complete ? { got: got.answers.k } : round.inputRequired(got.missing);
  });

  it("server: the handler collects 95.5 for a number field with the omitted field's default", async () => {
    expect(await handler({ name: "t", inputResponses: { k: FRACTION } }, context)).toEqual({ got: FILLED });
  });

  it.each(REFUSED)("server: refuses %s with -32602, located", async (_title, answer, located) => {
    const error = await rejection(Promise.resolve().then(() => handler({ name: "t", inputResponses: { k: answer } }, context)));
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32602 });
    if (located) {
      expect((error as JsonRpcError).message).toMatch(/inputResponses\["k"\] does not fill in the form asked/);
      expect((error as JsonRpcError).message).toContain(`(${located.path || "/"}:`);
      expect((error as JsonRpcError).data).toMatchObject({ errors: [{ path: `/inputResponses/k/content${located.path}`, keyword: located.keyword }] });
    } else {
      expect((error as JsonRpcError).message).toMatch(/inputResponses\["k"\] is not a valid elicitation\/create result/);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// (c) The 2025-11-25 side channel: a task's elicitation delivered on tasks/result

describe("the 2025-11-25 side channel (tasks/result)", () => {
  const params = { mode: "form", message: "Your score?", requestedSchema: structuredClone(SCORE_FORM) } as never;

  it("client: the answer to the server's elicitation carries 95.5 for a number field with the omitted field's default", async () => {
    const handlers: InputHandlers2025 = { "elicitation/create": () => FRACTION };
    const client = create2025Client({ send: () => Promise.reject(new Error("nothing is sent")), inputHandlers: handlers });
    expect(await client.answerServerRequest({ id: 1, method: "elicitation/create", params })).toEqual(FILLED);
    client.close();
  });

  it.each(REFUSED)("client: refuses %s: -32603 to the server, the reason reported", async (_title, answer, located) => {
    const reported: unknown[] = [];
    const client = create2025Client({
      send: () => Promise.reject(new Error("nothing is sent")),
      inputHandlers: { "elicitation/create": () => answer as never },
      onError: (error: unknown) => reported.push(error),
    });
    const error = await rejection(client.answerServerRequest({ id: 1, method: "elicitation/create", params }));
    expect(error).toBeInstanceOf(JsonRpcResponseError);
    expect(error).toMatchObject({ code: -32603 });
    if (located) {
      expect(reported[0]).toBeInstanceOf(ElicitationContentInvalid2025);
      expect((reported[0] as ElicitationContentInvalid2025).errors).toMatchObject([located]);
    } else {
      expect(reported[0]).toMatchObject({ errors: [{ path: "/action" }] });
    }
    client.close();
  });

  // 2025-11-25's ElicitResult types `_meta`, so an accepting answer's envelope can be wrong beside a right content.
  const badMeta = { action: "accept", content: { score: 95.5, nickname: "Ada" }, _meta: 7 };

  it("client: an accepting answer whose envelope the schema refuses is refused, its content notwithstanding", async () => {
    const reported: unknown[] = [];
    const client = create2025Client({ send: () => Promise.reject(new Error("nothing is sent")), inputHandlers: { "elicitation/create": () => badMeta as never }, onError: (error: unknown) => reported.push(error) });
    await expect(client.answerServerRequest({ id: 1, method: "elicitation/create", params })).rejects.toMatchObject({ code: -32603 });
    expect(reported[0]).toMatchObject({ errors: [{ path: "/_meta" }] });
    client.close();
  });

  /** A task that asks for the score; `deliver` runs a tasks/result whose client answers `answer` as it is. */
  async function scoreTask() {
    const server = create2025Server({ pollInterval: 10 });
    const task = await server.createTask({});
    const answer = task.requireInput("k", { method: "elicitation/create", params }).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const deliver = (reply: unknown) =>
      server.handle({ jsonrpc: "2.0", id: 1, method: "tasks/result", params: { taskId: task.taskId } }, { sendRequest: (async () => reply) as never });
    return { server, task, answer, deliver };
  }

  it("server: requireInput gets 95.5 for a number field with the omitted field's default", async () => {
    const { server, task, answer, deliver } = await scoreTask();
    const result = deliver(FRACTION);
    expect(await answer).toEqual({ value: FILLED });
    await task.complete({ content: [] });
    await result;
    server.close();
  });

  it("server: an accepting answer whose envelope the schema refuses is refused, its content notwithstanding", async () => {
    const { server, task, answer: asked, deliver } = await scoreTask();
    const result = deliver(badMeta);
    expect(await asked).toMatchObject({ error: { code: -32602, message: expect.stringContaining("/_meta:") } });
    await task.complete({ content: [] });
    await result;
    server.close();
  });

  it.each(REFUSED)("server: refuses %s: requireInput rejects with -32602, located", async (_title, answer, located) => {
    const { server, task, answer: asked, deliver } = await scoreTask();
    const result = deliver(answer);
    const { error } = (await asked) as { error: { code: number; message: string } };
    expect(error).toMatchObject({ code: -32602 });
    expect(error.message).toMatch(/^elicitation\/create: invalid answer from the client/);
    expect(error.message).toContain(located ? `/content${located.path}:` : "/action:");
    await task.complete({ content: [] });
    await result;
    server.close();
  });
});
