import { describe, expect, it } from "vitest";
import {
  abandonable,
  abortReason,
  checkBody,
  checkParams,
  exchange,
  InvalidResponseError,
  JsonRpcResponseError,
  readResult,
  RequestTimeoutError,
  rpcErrorOf,
  splitTag,
  TaskExpiredError,
  TaskInputError,
  validateMetaObject,
  type BodyCheck,
  type MethodSpec,
  type TasksClientRequest,
  type TasksClientSignal,
} from "../../../templates/runtime/client/core.js";
import { ValidationFailed, type JsonObject, type ValidationResult } from "../../../templates/runtime/protocol/json.js";

/**
 * The schema-independent parts of generated Tasks clients, tested as source
 * (templates/runtime/client/core.ts), with stand-in validators where a set passes its own.
 */

const REQUEST: TasksClientRequest = { jsonrpc: "2.0", id: 7, method: "tasks/get", params: { taskId: "t" } };

/** A validator that accepts objects without `_meta` and says so otherwise (a schema closed without room for it). */
const closed = (value: unknown): ValidationResult<JsonObject> =>
  typeof value === "object" && value !== null && !Object.hasOwn(value, "_meta")
    ? { ok: true, value: value as JsonObject }
    : { ok: false, errors: [{ path: "", keyword: "additionalProperties", message: "no _meta here", schemaPath: "s#" }] };

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

describe("readResult", () => {
  it("returns the result of a response to the request", () => {
    expect(readResult({ jsonrpc: "2.0", id: 7, result: { a: 1 } }, REQUEST)).toEqual({ a: 1 });
  });

  it("throws JsonRpcResponseError for an error answer, also one with a null id (the peer could not read the request)", () => {
    for (const id of [7, null]) {
      const error = thrown(() => readResult({ jsonrpc: "2.0", id, error: { code: -32602, message: "Task not found", data: { x: 1 } } }, REQUEST));
      expect(error).toBeInstanceOf(JsonRpcResponseError);
      expect(error).toMatchObject({ method: "tasks/get", code: -32602, message: "Task not found", data: { x: 1 } });
      expect((error as JsonRpcResponseError).toJSON()).toEqual({ code: -32602, message: "Task not found", data: { x: 1 } });
    }
  });

  it("throws InvalidResponseError for what is not a response to this request", () => {
    const cases: unknown[] = [
      "text",
      { jsonrpc: "1.0", id: 7, result: {} },
      { jsonrpc: "2.0", id: 8, result: {} },
      { jsonrpc: "2.0", id: null, result: {} },
      { jsonrpc: "2.0", id: 7, error: { code: "x", message: "m" } },
      { jsonrpc: "2.0", id: 7, result: [] },
      { jsonrpc: "2.0", id: 7 },
    ];
    for (const response of cases) {
      const error = thrown(() => readResult(response, REQUEST));
      expect(error, JSON.stringify(response)).toBeInstanceOf(InvalidResponseError);
      expect((error as InvalidResponseError).response).toBe(response);
      expect((error as Error).message.startsWith("tasks/get: ")).toBe(true);
    }
  });

  it("reads JSON-RPC error objects strictly: an integer code and a string message", () => {
    expect(rpcErrorOf({ code: 1, message: "m" })).toEqual({ code: 1, message: "m" });
    expect(rpcErrorOf({ code: 1.5, message: "m" })).toBeUndefined();
    expect(rpcErrorOf({ code: 1 })).toBeUndefined();
  });
});

describe("checkParams", () => {
  const spec = (paramsRequired: boolean, paramsMetaApart: boolean): MethodSpec<JsonObject, JsonObject> => ({
    method: "tasks/get",
    params: { type: "GetTaskRequestParams", validate: closed },
    paramsRequired,
    paramsMetaApart,
    result: { type: "GetTaskResult", validate: closed },
  });

  it("requires params where the method does, and an object", () => {
    expect(checkParams(spec(false, false), undefined)).toBeUndefined();
    expect(thrown(() => checkParams(spec(true, false), undefined))).toMatchObject({ typeName: "GetTaskRequestParams", errors: [{ keyword: "required" }] });
    expect(thrown(() => checkParams(spec(true, false), "x" as unknown as JsonObject))).toBeInstanceOf(ValidationFailed);
  });

  it("checks `_meta` apart (an object) where the schema closes params without it, and sends the params as given", () => {
    const params = { taskId: "t", _meta: { k: 1 } };
    expect(thrown(() => checkParams(spec(true, false), params))).toBeInstanceOf(ValidationFailed);
    expect(checkParams(spec(true, true), params)).toBe(params);
    expect(thrown(() => checkParams(spec(true, true), { taskId: "t", _meta: 1 }))).toMatchObject({ errors: [{ path: "/_meta", keyword: "type" }] });
  });
});

describe("checkBody", () => {
  const check: BodyCheck<JsonObject> = { type: "GetTaskResult", validate: closed, meta: validateMetaObject };

  it("validates the rest with the type's validator and `_meta` with its own, keeping `_meta` in the value", () => {
    expect(checkBody(check, { status: "working", _meta: { a: 1 } })).toEqual({ status: "working", _meta: { a: 1 } });
    expect(thrown(() => checkBody(check, { status: "working", _meta: 3 }))).toMatchObject({ typeName: "GetTaskResult", errors: [{ path: "/_meta" }] });
    expect(thrown(() => checkBody({ type: "GetTaskResult", validate: closed }, { _meta: {} }))).toBeInstanceOf(ValidationFailed);
  });
});

describe("splitTag", () => {
  it("splits resultType off a result; none means complete; any other string is handed to the caller (the tag is open-ended), a non-string is an invalid response", () => {
    expect(splitTag("tools/call", { resultType: "task", taskId: "t" })).toEqual({ tag: "task", body: { taskId: "t" } });
    const untagged = { content: [] };
    expect(splitTag("tools/call", untagged)).toEqual({ tag: "complete", body: untagged });
    expect(splitTag("tools/call", { resultType: "input_required", requestState: "s" })).toEqual({ tag: "input_required", body: { requestState: "s" } });
    expect(splitTag("tools/call", { resultType: "later" })).toEqual({ tag: "later", body: {} });
    expect(thrown(() => splitTag("tools/call", { resultType: 7 }))).toBeInstanceOf(InvalidResponseError);
  });
});

describe("errors", () => {
  it("say what happened, with the facts as fields", () => {
    expect(new RequestTimeoutError("tasks/get", 50)).toMatchObject({ name: "RequestTimeoutError", method: "tasks/get", timeoutMs: 50, message: "tasks/get: no answer within 50 ms" });
    const expired = new TaskExpiredError("t1", Date.UTC(2026, 0, 1));
    expect(expired.message).toBe("task t1 expired at 2026-01-01T00:00:00.000Z without finishing");
    const cause = new Error("boom");
    expect(new TaskInputError("t1", "k", "elicitation/create", "the input handler failed", { cause })).toMatchObject({
      message: 'task t1, input "k" (elicitation/create): the input handler failed',
      cause,
    });
  });

  it("abortReason is the signal's reason, or an AbortError when it has none", () => {
    const signal = (reason: unknown): TasksClientSignal => ({ aborted: true, reason, addEventListener: () => {}, removeEventListener: () => {} });
    const why = new Error("why");
    expect(abortReason(signal(why))).toBe(why);
    expect(abortReason(signal(undefined))).toMatchObject({ name: "AbortError" });
  });
});

describe("exchange", () => {
  it("resolves with whatever the transport answers, handing it the request, headers and a live signal", async () => {
    let seen: { signal: TasksClientSignal } | undefined;
    const response = await exchange(async (request, headers, options) => ((seen = options), { request, headers }), REQUEST, { "Mcp-Method": "tasks/get" }, { timeoutMs: 1000 });
    expect(response).toEqual({ request: REQUEST, headers: { "Mcp-Method": "tasks/get" } });
    expect(seen?.signal.aborted).toBe(false);
  });

  it("gives up after the timeout with RequestTimeoutError, telling the transport through its signal", async () => {
    let signal: TasksClientSignal | undefined;
    const never = (_r: unknown, _h: unknown, options: { readonly signal: TasksClientSignal }) => ((signal = options.signal), new Promise<never>(() => {}));
    await expect(exchange(never, REQUEST, {}, { timeoutMs: 5 })).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(signal?.aborted).toBe(true);
  });

  it("rejects with the caller's abort reason, and at once when already aborted", async () => {
    const controller = new AbortController();
    const pending = exchange(() => new Promise(() => {}), REQUEST, {}, { signal: controller.signal, timeoutMs: 0 });
    controller.abort(new Error("enough"));
    await expect(pending).rejects.toThrow("enough");
    let sent = false;
    await expect(exchange(async () => (sent = true), REQUEST, {}, { signal: controller.signal, timeoutMs: 0 })).rejects.toThrow("enough");
    expect(sent).toBe(false);
  });

  it("turns a transport that throws synchronously into a rejection", async () => {
    const boom = new Error("boom");
    await expect(exchange(() => { throw boom; }, REQUEST, {}, { timeoutMs: 0 })).rejects.toBe(boom);
  });
});

describe("abandonable", () => {
  it("rejects at once when abandoned, and hands the result that still arrives to lateResult", async () => {
    const controller = new AbortController();
    let answer: (value: string) => void = () => {};
    const late: string[] = [];
    const pending = abandonable(new Promise<string>((resolve) => (answer = resolve)), controller.signal, (result) => late.push(result));
    controller.abort(new Error("gone"));
    await expect(pending).rejects.toThrow("gone");
    answer("created t9");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(late).toEqual(["created t9"]);
  });

  it("is the request itself when not abandoned", async () => {
    const late: string[] = [];
    await expect(abandonable(Promise.resolve("ok"), new AbortController().signal, (r) => late.push(r))).resolves.toBe("ok");
    expect(late).toEqual([]);
  });
});
