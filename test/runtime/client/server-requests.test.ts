import { describe, expect, it } from "vitest";
import {
  answerServerRequestWith,
  capabilitiesOf,
  receiverCapabilities,
  relatedTaskId,
} from "../../../templates/runtime/client/server-requests.js";
import type { ServerRequestsProfile } from "../../../templates/runtime/client/profile.js";
import { JsonRpcResponseError } from "../../../templates/runtime/client/core.js";
import { isObject, type ValidationResult } from "../../../templates/runtime/protocol/json.js";
import { withFormDefaults } from "../../../templates/runtime/protocol/form-answers.js";

/**
 * The client's answers to the server's own requests (templates/runtime/client/server-requests.ts),
 * as source: defaults of accepted forms (SEP-1034), routing to handlers, error answers, the
 * capabilities declared. The SDK tests (client-sdk-2025-input.test.ts) run the same over a real peer.
 */

const PROFILE: ServerRequestsProfile = {
  routing: {
    "elicitation/create": { params: true, cancelByDefault: true },
    "sampling/createMessage": { params: true, cancelByDefault: false },
  },
  capabilities: { "elicitation/create": { elicitation: { form: {} } }, "sampling/createMessage": { sampling: {} } },
};

const form = (properties: object) => ({ message: "?", requestedSchema: { type: "object", properties } });
const context = (reported: unknown[] = []) => ({ taskId: "", signal: new AbortController().signal, report: (e: unknown) => reported.push(e) });

describe("withFormDefaults: an accepted form gets the defaults of the fields left out", () => {
  const cases: [string, { params: object; answer: object; want: object }][] = [
    [
      "every kind of field, the handler's own values winning",
      {
        params: form({ name: { type: "string", default: "John" }, age: { type: "integer", default: 30 }, ok: { type: "boolean", default: true }, tags: { type: "array", default: ["a"] } }),
        answer: { action: "accept", content: { name: "Ada" } },
        want: { action: "accept", content: { name: "Ada", age: 30, ok: true, tags: ["a"] } },
      },
    ],
    ["no content at all", { params: form({ n: { type: "number", default: 1.5 } }), answer: { action: "accept" }, want: { action: "accept", content: { n: 1.5 } } }],
    ["a declined form is sent as it is", { params: form({ n: { type: "number", default: 1 } }), answer: { action: "decline" }, want: { action: "decline" } }],
    ["a default that no field can hold is not invented", { params: form({ o: { type: "object", default: { a: 1 } }, n: { default: null } }), answer: { action: "accept", content: {} }, want: { action: "accept", content: {} } }],
    ["a form without defaults is untouched", { params: form({ n: { type: "number" } }), answer: { action: "accept", content: { n: 2 } }, want: { action: "accept", content: { n: 2 } } }],
    ["a request without a form (URL mode)", { params: { mode: "url", url: "https://x.test", message: "?" }, answer: { action: "accept" }, want: { action: "accept" } }],
  ];
  it.each(cases)("%s", (_title, { params, answer, want }) => {
    expect(withFormDefaults(params as never, answer as never)).toEqual(want);
  });
});

describe("answerServerRequestWith: one server request, routed and checked", () => {
  it("routes by method with the params; ping is answered without a handler", async () => {
    const seen: unknown[] = [];
    const handlers = { "sampling/createMessage": (params: unknown) => (seen.push(params), { role: "assistant", content: { type: "text", text: "hi" }, model: "m" }) };
    const params = { messages: [], maxTokens: 5 };
    expect(await answerServerRequestWith(PROFILE, handlers, { id: 1, method: "sampling/createMessage", params }, context())).toMatchObject({ model: "m" });
    expect(seen).toEqual([params]);
    expect(await answerServerRequestWith(PROFILE, {}, { id: 2, method: "ping" }, context())).toEqual({});
  });

  it("no handler: an elicitation is cancelled, sampling and unknown methods are -32601", async () => {
    expect(await answerServerRequestWith(PROFILE, {}, { id: 1, method: "elicitation/create", params: form({}) }, context())).toEqual({ action: "cancel" });
    for (const method of ["sampling/createMessage", "roots/list"]) {
      await expect(answerServerRequestWith(PROFILE, {}, { id: 1, method, params: {} }, context())).rejects.toMatchObject({ code: -32601 });
    }
  });

  it("a handler's JsonRpcResponseError is the answer; any other throw is -32603, reported", async () => {
    const reported: unknown[] = [];
    const own = { "elicitation/create": () => { throw new JsonRpcResponseError("elicitation/create", -32050, "closed", { why: "user" }); } };
    await expect(answerServerRequestWith(PROFILE, own, { id: 1, method: "elicitation/create", params: form({}) }, context(reported))).rejects.toMatchObject({ code: -32050, message: "closed", data: { why: "user" } });
    const broken = { "elicitation/create": () => { throw new Error("bug"); } };
    await expect(answerServerRequestWith(PROFILE, broken, { id: 1, method: "elicitation/create", params: form({}) }, context(reported))).rejects.toMatchObject({ code: -32603 });
    expect(reported.map(String)).toEqual(["Error: bug"]);
  });

  it("an answer is checked with the set's result validator where it has one", async () => {
    const validate = (value: unknown): ValidationResult<unknown> =>
      isObject(value) && ["accept", "decline", "cancel"].includes(value.action as string)
        ? { ok: true, value }
        : { ok: false, errors: [{ path: "/action", keyword: "enum", message: "bad action", schemaPath: "#/properties/action" }] };
    const profile = { ...PROFILE, results: { "elicitation/create": { type: "ElicitResult", validate } } };
    const reported: unknown[] = [];
    await expect(
      answerServerRequestWith(profile, { "elicitation/create": () => ({ action: "maybe" }) }, { id: 1, method: "elicitation/create", params: form({}) }, context(reported)),
    ).rejects.toMatchObject({ code: -32603 });
    expect(String(reported[0])).toMatch(/bad action|ElicitResult/);
    expect(await answerServerRequestWith(profile, { "elicitation/create": () => ({ action: "decline" }) }, { id: 1, method: "elicitation/create", params: form({}) }, context())).toEqual({ action: "decline" });
  });
});

describe("capabilities and the related task", () => {
  it("declares each method with a handler, and as a task receiver its tasks.requests", () => {
    const elicitOnly = { "elicitation/create": () => ({ action: "cancel" }) };
    expect(capabilitiesOf(PROFILE, {})).toEqual({});
    expect(capabilitiesOf(PROFILE, elicitOnly)).toEqual({ elicitation: { form: {} } });
    expect(receiverCapabilities(PROFILE, {})).toEqual({});
    expect(receiverCapabilities(PROFILE, elicitOnly)).toEqual({ tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} } } } });
  });

  it("reads the task a request is tied to from its related-task _meta", () => {
    expect(relatedTaskId({ _meta: { "io.modelcontextprotocol/related-task": { taskId: "t1" } } })).toBe("t1");
    expect(relatedTaskId({ _meta: { "io.modelcontextprotocol/related-task": { taskId: 7 } } })).toBeUndefined();
    expect(relatedTaskId({})).toBeUndefined();
    expect(relatedTaskId(undefined)).toBeUndefined();
  });
});
