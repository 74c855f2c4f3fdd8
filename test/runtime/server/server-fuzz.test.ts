import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as ext from "../../../generated/ext-tasks-draft/server.js";
import * as v2025 from "../../../generated/tasks-2025-11-25/server.js";

/**
 * Whatever arrives, the dispatcher answers: random and malformed JSON-RPC messages (wrong types,
 * missing fields, huge ids, unknown methods, prototype-pollution keys) never make `handle`
 * throw, and every request gets a well-formed JSON-RPC response; malformed ones an error.
 */

const KNOWN_CODES = new Set([-32700, -32600, -32601, -32602, -32603, -32020, -32021]);
const TRICKY_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "_meta", "taskId", "inputResponses", "cursor"];

/** Keys that are sometimes ordinary, sometimes the ones that break naive code. */
const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...TRICKY_KEYS));
const junk = fc.anything({ key, maxDepth: 3, maxKeys: 5, withNullPrototype: true, withBigInt: false, withMap: false, withSet: false });

const ids = fc.oneof(
  fc.integer(),
  fc.constantFrom(2 ** 53, -(2 ** 53), 2 ** 64, 1e308, Number.MAX_VALUE, 0.5, -0, Number.NaN, Infinity),
  fc.string({ maxLength: 30 }),
  fc.constant("x".repeat(10_000)),
  fc.constant(null),
  junk,
);

/** A message shaped like a request, with each part sometimes right, sometimes wrong, sometimes missing. */
function messages(methods: readonly string[], taskIds: readonly string[], meta: object) {
  const taskId = fc.oneof(fc.constantFrom(...taskIds), fc.string({ maxLength: 40 }), junk);
  const params = fc.oneof(
    fc.record({ taskId, _meta: fc.oneof({ weight: 4, arbitrary: fc.constant(meta) }, { weight: 1, arbitrary: junk }) }, { requiredKeys: [] }),
    fc.record({ taskId, inputResponses: fc.oneof(fc.dictionary(key, junk, { maxKeys: 4 }), junk), _meta: fc.constant(meta) }, { requiredKeys: [] }),
    fc.record({ cursor: fc.oneof(fc.string(), junk), _meta: fc.constant(meta) }, { requiredKeys: [] }),
    junk,
  );
  const method = fc.oneof(fc.constantFrom(...methods, "tasks/list", "tasks/result", "tasks/update", "initialize", "", "__proto__"), fc.string({ maxLength: 20 }), junk);
  // Mostly a sound envelope around fuzzed params, so the checks behind the envelope get exercised too.
  const soundId = fc.oneof(fc.integer(), fc.string({ maxLength: 10 }));
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ jsonrpc: fc.constant("2.0"), id: soundId, method: fc.constantFrom(...methods), params }) },
    { weight: 2, arbitrary: fc.record({ jsonrpc: fc.constant("2.0"), id: ids, method, params }, { requiredKeys: ["jsonrpc", "id", "method"] }) },
    { weight: 2, arbitrary: fc.record({ jsonrpc: fc.oneof(fc.constant("2.0"), junk), id: ids, method, params }, { requiredKeys: [] }) },
    { weight: 1, arbitrary: junk },
  );
}

/** Also as text: JSON.parse makes `__proto__` an own property, the way it reaches a real server. */
const viaJson = (message: unknown) => {
  try {
    const text = JSON.stringify(message);
    return text === undefined ? message : JSON.parse(text.replace(/"toString":/g, '"__proto__":'));
  } catch {
    return message;
  }
};

function checkAnswer(message: unknown, response: unknown, extraCodes: readonly number[] = []): void {
  const object = typeof message === "object" && message !== null && !Array.isArray(message) ? (message as Record<string, unknown>) : undefined;
  const isNotification = object !== undefined && object.jsonrpc === "2.0" && typeof object.method === "string" && !Object.hasOwn(object, "id");
  if (isNotification) {
    expect(response).toBeUndefined();
    return;
  }
  expect(response).toBeTypeOf("object");
  const answer = response as Record<string, any>;
  expect(answer.jsonrpc).toBe("2.0");
  const id = object && Object.hasOwn(object, "id") ? object.id : undefined;
  const validId = typeof id === "string" || Number.isSafeInteger(id);
  expect(answer.id).toBe(validId ? id : null);
  expect(Object.hasOwn(answer, "result") !== Object.hasOwn(answer, "error")).toBe(true);
  if (Object.hasOwn(answer, "error")) {
    expect(Number.isInteger(answer.error.code)).toBe(true);
    expect(answer.error.message).toBeTypeOf("string");
    expect(KNOWN_CODES.has(answer.error.code) || extraCodes.includes(answer.error.code), `code ${answer.error.code}`).toBe(true);
    // No exception escaped a handler: nothing here should be an internal error.
    expect(answer.error.code).not.toBe(-32603);
  }
  expect(() => JSON.stringify(answer)).not.toThrow();
  if (!validId) expect(answer).toHaveProperty("error");
}

describe("fuzz: the dispatcher never throws and always answers well-formed", () => {
  it("ext-tasks server", async () => {
    const server = ext.createTasksServer();
    const working = await server.createTask({});
    const waiting = await server.createTask({});
    void waiting.requireInput("k", { method: "elicitation/create", params: { message: "?", requestedSchema: { type: "object", properties: {} } } }).catch(() => {});
    const done = await server.createTask({});
    await done.complete({ ok: true });
    const meta = { "io.modelcontextprotocol/clientCapabilities": { extensions: { [ext.TASKS_EXTENSION]: {} } } };
    const headers = fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.dictionary(fc.constantFrom("mcp-name", "Mcp-Method", "x"), fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 2 }))) },
    );
    await fc.assert(
      fc.asyncProperty(messages(ext.TASK_METHODS, [working.taskId, waiting.taskId, done.taskId], meta), fc.boolean(), headers, async (message, asJson, h) => {
        const input = asJson ? viaJson(message) : message;
        const response = await server.handle(input, h ? { headers: h } : {});
        checkAnswer(input, response);
      }),
      { numRuns: 3000 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it("2025-11-25 server", async () => {
    const server = v2025.createTasksServer();
    // Finished tasks only: tasks/result on an unfinished one would rightly wait for it.
    const done = await server.createTask({});
    await done.complete({ ok: true });
    const failed = await server.createTask({});
    await failed.fail({ code: -32001, message: "no" });
    const cancelled = await server.createTask({});
    await server.handle({ jsonrpc: "2.0", id: 1, method: "tasks/cancel", params: { taskId: cancelled.taskId } });
    await fc.assert(
      fc.asyncProperty(messages(v2025.TASK_METHODS, [done.taskId, failed.taskId, cancelled.taskId], {}), fc.boolean(), async (message, asJson) => {
        const input = asJson ? viaJson(message) : message;
        const response = await server.handle(input);
        checkAnswer(input, response, [-32001]); // tasks/result of the failed task answers its own error
      }),
      { numRuns: 3000 },
    );
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it("answers well-formed errors to the classic malformed messages", async () => {
    const server = ext.createTasksServer();
    const cases: unknown[] = [
      null,
      42,
      "tasks/get",
      [],
      [{ jsonrpc: "2.0", id: 1, method: "tasks/get" }],
      {},
      { jsonrpc: "1.0", id: 1, method: "tasks/get" },
      { jsonrpc: "2.0", id: 1 },
      { jsonrpc: "2.0", id: { nested: true }, method: "tasks/get" },
      { jsonrpc: "2.0", id: 2 ** 64, method: "tasks/get" },
      { jsonrpc: "2.0", id: 1, method: 7 },
      { jsonrpc: "2.0", id: 1, method: "tasks/get", params: [1, 2] },
      { jsonrpc: "2.0", id: 1, method: "tasks/get", params: "x" },
      JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"__proto__":{"taskId":"x"}}}'),
      JSON.parse('{"jsonrpc":"2.0","id":1,"method":"__proto__","params":{}}'),
      Object.create(null),
    ];
    for (const message of cases) checkAnswer(message, await server.handle(message));
  });
});
