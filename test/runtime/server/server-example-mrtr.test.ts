import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExampleServer, type ExampleServer } from "../../../examples/ext-tasks-server/server.js";
import { paramHeaders } from "../../../templates/runtime/parts/http-server.js";
import { decodeHeaderValue } from "../../../templates/runtime/protocol/header-values.js";

/**
 * The example server over HTTP for what README › Multi round-trip requests and the HTTP handler's
 * envelope rules promise: sealed `requestState` across real requests (tampering, another bearer,
 * other arguments), `_meta` fields missing or malformed (-32602) against a header that disagrees
 * (-32020), the Base64 form of `Mcp-Name`, and `Mcp-Param-*` headers against `x-mcp-header`
 * arguments. (server-conformance-mrtr.test.ts runs the official scenarios for the same.)
 */

let server: ExampleServer;
beforeAll(async () => {
  server = await startExampleServer({ log: () => {}, requestStateKey: "an example key of at least 32 bytes!" });
});
afterAll(() => server.close());

const ALL_INPUT = { elicitation: {}, sampling: {}, roots: {} };
const meta = (capabilities: object = ALL_INPUT) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": capabilities,
});

let nextId = 1;
/** POSTs one request with conforming headers (override or drop them with `headers`); `_meta` unless params bring their own. */
async function post(method: string, params: Record<string, unknown>, headers: Record<string, string | undefined> = {}) {
  const name = params.name ?? params.uri;
  const all: Record<string, string | undefined> = {
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...(typeof name === "string" ? { "mcp-name": name } : {}),
    ...headers,
  };
  const response = await fetch(server.url, {
    method: "POST",
    headers: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined)),
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { _meta: meta(), ...params } }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const call = (name: string, extra: Record<string, unknown> = {}, headers: Record<string, string | undefined> = {}) =>
  post("tools/call", { name, arguments: {}, ...extra }, headers);

describe("example server: multi round-trip with sealed requestState", () => {
  const confirmed = { confirm: { action: "accept", content: { ok: true } } };

  it("asks with inputRequests and requestState, and completes on the retry that echoes it", async () => {
    const first = (await call("test_input_required_result_request_state")).body.result;
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { confirm: { method: "elicitation/create" } } });
    expect(first.requestState).toMatch(/^[\w-]+\.[\w-]+$/);
    const retry = await call("test_input_required_result_request_state", { inputResponses: confirmed, requestState: first.requestState });
    expect(retry.body.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: expect.stringContaining("state-ok") }] });
  });

  it("rejects tampered state, state from another bearer and state replayed on other arguments (-32602, HTTP 400)", async () => {
    const alice = { authorization: "Bearer alice" };
    const first = (await call("test_input_required_result_tampered_state", {}, alice)).body.result;
    const state: string = first.requestState;
    const flipped = `${state.slice(0, 5)}${state[5] === "A" ? "B" : "A"}${state.slice(6)}`;
    const cases = [
      call("test_input_required_result_tampered_state", { inputResponses: confirmed, requestState: `${state}-TAMPERED` }, alice),
      call("test_input_required_result_tampered_state", { inputResponses: confirmed, requestState: flipped }, alice),
      call("test_input_required_result_tampered_state", { inputResponses: confirmed, requestState: state }, { authorization: "Bearer mallory" }),
      call("test_input_required_result_tampered_state", { arguments: { x: 1 }, inputResponses: confirmed, requestState: state }, alice),
      call("test_input_required_result_request_state", { inputResponses: confirmed, requestState: state }, alice),
    ];
    for (const answer of await Promise.all(cases)) {
      expect(answer).toMatchObject({ status: 400, body: { error: { code: -32602, message: "Invalid params: requestState is invalid or has expired" } } });
    }
    const honest = await call("test_input_required_result_tampered_state", { inputResponses: confirmed, requestState: state }, alice);
    expect(honest.body.result.resultType).toBe("complete");
  });

  it("carries state through several rounds (a new requestState each round)", async () => {
    const r1 = (await call("test_input_required_result_multi_round")).body.result;
    const r2 = (await call("test_input_required_result_multi_round", { inputResponses: { step1: { action: "accept", content: { name: "Ann" } } }, requestState: r1.requestState })).body.result;
    expect(r2).toMatchObject({ resultType: "input_required", inputRequests: { step2: { method: "elicitation/create" } } });
    expect(r2.requestState).not.toBe(r1.requestState);
    const r3 = (await call("test_input_required_result_multi_round", { inputResponses: { step2: { action: "accept", content: { color: "teal" } } }, requestState: r2.requestState })).body.result;
    expect(r3.content[0].text).toBe("Ann likes teal.");
  });

  it("asks only for what the client declared, and answers -32021 for a tool that needs more", async () => {
    const samplingOnly = { _meta: meta({ sampling: {} }) };
    const asked = (await call("test_input_required_result_capabilities", samplingOnly)).body.result;
    expect(Object.values(asked.inputRequests).map((r) => (r as { method: string }).method)).toEqual(["sampling/createMessage"]);
    const missing = await call("test_missing_capability", { _meta: meta({}) });
    expect(missing).toMatchObject({ status: 400, body: { error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } } } });
  });

  it("serves prompts/get by multi round-trip, and never answers input_required on other methods", async () => {
    const first = (await post("prompts/get", { name: "test_input_required_result_prompt" })).body.result;
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { user_context: { method: "elicitation/create" } } });
    const done = await post("prompts/get", { name: "test_input_required_result_prompt", inputResponses: { user_context: { action: "accept", content: { context: "tests" } } } });
    expect(done.body.result).toMatchObject({ resultType: "complete", messages: [{ role: "user" }] });
    expect((await post("prompts/list", {})).body.result.resultType).toBe("complete");
  });
});

describe("example server: _meta fields", () => {
  const version = "2026-07-28";
  const capabilities = { "io.modelcontextprotocol/clientCapabilities": {} };

  it("answers -32602 (HTTP 400) for a missing or malformed protocolVersion, clientCapabilities or clientInfo", async () => {
    const invalid = [
      { ...capabilities },
      { ...capabilities, "io.modelcontextprotocol/protocolVersion": 20260728 },
      { "io.modelcontextprotocol/protocolVersion": version },
      { "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": [] },
      { "io.modelcontextprotocol/protocolVersion": version, ...capabilities, "io.modelcontextprotocol/clientInfo": "me" },
      { "io.modelcontextprotocol/protocolVersion": version, ...capabilities, "io.modelcontextprotocol/clientInfo": { name: "me" } },
    ];
    for (const _meta of invalid) {
      expect(await post("server/discover", { _meta })).toMatchObject({ status: 400, body: { error: { code: -32602 } } });
    }
  });

  it("serves a request without clientInfo, and answers -32020 when protocolVersion disagrees with the header", async () => {
    const served = await post("server/discover", { _meta: { "io.modelcontextprotocol/protocolVersion": version, ...capabilities } });
    expect(served.status).toBe(200);
    const other = await post("server/discover", { _meta: { "io.modelcontextprotocol/protocolVersion": "2025-11-25", ...capabilities } });
    expect(other.body.error.code).toBe(-32020);
  });
});

describe("example server: Mcp-Name and Mcp-Param headers", () => {
  const b64 = (text: string) => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;

  it("decodes the Base64 form of Mcp-Name on task methods too", async () => {
    const tasks = { _meta: { ...meta({ extensions: { "io.modelcontextprotocol/tasks": {} } }) } };
    const created = (await call("slow_compute", { ...tasks, arguments: { seconds: 30 } })).body.result;
    const get = (name: string) => post("tasks/get", { ...tasks, taskId: created.taskId }, { "mcp-name": name });
    expect((await get(b64(created.taskId))).body.result.status).toBe("working");
    expect((await get(b64("other"))).body.error.code).toBe(-32020);
    await post("tasks/cancel", { ...tasks, taskId: created.taskId }, { "mcp-name": created.taskId });
  });

  it("decodes the Base64 form of Mcp-Name before comparing it", async () => {
    expect((await call("greet", { arguments: { name: "x" } }, { "mcp-name": b64("greet") })).body.result.resultType).toBe("complete");
    expect((await call("greet", { arguments: { name: "x" } }, { "mcp-name": b64("slow_compute") })).body.error.code).toBe(-32020);
    expect((await call("greet", { arguments: { name: "x" } }, { "mcp-name": "=?base64?Z3JlZXQ?=" })).body.error.code).toBe(-32020);
  });

  it("checks each x-mcp-header argument against its Mcp-Param header, decoded, numbers as numbers", async () => {
    const weather = (args: object, headers: Record<string, string | undefined>) => call("weather", { arguments: args }, headers);
    expect((await weather({ region: "us-west1" }, { "mcp-param-region": "us-west1" })).body.result.resultType).toBe("complete");
    expect((await weather({ region: "Zürich " }, { "mcp-param-region": b64("Zürich ") })).body.result.resultType).toBe("complete");
    expect((await weather({ region: "r", days: 3 }, { "mcp-param-region": "r", "mcp-param-days": "3.0" })).body.result.resultType).toBe("complete");
    const rejected = [
      weather({ region: "us-west1" }, {}),
      weather({ region: "us-west1" }, { "mcp-param-region": "eu-west1" }),
      weather({ region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8?=" }),
      weather({ region: "Hello" }, { "mcp-param-region": "=?base64?SGVs!!!bG8=?=" }),
      weather({ region: "r", days: 3 }, { "mcp-param-region": "r", "mcp-param-days": "4" }),
      weather({ region: "r" }, { "mcp-param-region": "r", "mcp-param-days": "4" }),
      // Raw non-ASCII (here Latin-1, which HTTP carries) even when equal to the body: it had to be Base64.
      weather({ region: "é" }, { "mcp-param-region": "é" }),
    ];
    for (const answer of await Promise.all(rejected)) expect(answer).toMatchObject({ status: 400, body: { error: { code: -32020 } } });
  });
});

describe("header value decoding and x-mcp-header annotations", () => {
  it("decodes the sentinel form only, strictly, and keeps anything else literal", () => {
    expect(decodeHeaderValue("=?base64?SGVsbG8sIOS4lueVjA==?=")).toBe("Hello, 世界");
    expect(decodeHeaderValue("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")).toBe("=?base64?literal?=");
    expect(decodeHeaderValue("=?base64?SGVsbG8=")).toBe("=?base64?SGVsbG8=");
    expect(decodeHeaderValue("us-west1")).toBe("us-west1");
    for (const bad of ["Zürich", "a\u0000b", "=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "=?base64?/w==?=", "=?base64?SGVsbG9=?="]) {
      expect(decodeHeaderValue(bad), bad).toBeUndefined();
    }
  });

  it("decodes what Node's Buffer encodes, for text of every length and script", () => {
    for (const text of ["", "a", "ab", "abc", "Hello, 世界", " padded ", "line1\nline2", "🙂 emoji", "x".repeat(1000)]) {
      expect(decodeHeaderValue(`=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`)).toBe(text);
    }
  });

  it("finds annotations through properties only, with their paths", () => {
    const schema = {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        target: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
        list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } },
      },
    };
    expect(paramHeaders(schema)).toEqual([
      { name: "Region", path: ["region"] },
      { name: "Zone", path: ["target", "zone"] },
    ]);
  });
});
