import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExampleServer, type ExampleServer } from "../../../examples/ext-tasks-server/server.js";
import { roundTools } from "../../../examples/ext-tasks-server/input-rounds.js";

/**
 * The example server's HTTP and stateless-envelope behaviour that the conformance Tasks
 * scenarios do not exercise: methods and paths, the protocol version and routing headers,
 * per-request `_meta`, owner isolation, and the tools' paths without the tasks extension.
 * (server-conformance.test.ts runs the official scenarios against the same server.)
 */

let server: ExampleServer;
beforeAll(async () => {
  server = await startExampleServer({ log: () => {} });
});
afterAll(() => server.close());

const TASKS = { "io.modelcontextprotocol/tasks": {} };
const meta = (capabilities: object = { extensions: TASKS }) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": capabilities,
});

let nextId = 1;
/** POSTs one request with the headers a conforming client sends (override or drop them with `headers`). */
async function post(method: string, params: Record<string, unknown>, headers: Record<string, string | undefined> = {}) {
  const name = method === "tools/call" ? params.name : params.taskId;
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

describe("example server: HTTP", () => {
  it("serves POST /mcp only", async () => {
    expect((await fetch(server.url)).status).toBe(405);
    expect((await fetch(server.url.replace("/mcp", "/other"), { method: "POST", body: "{}" })).status).toBe(404);
  });

  it("answers a body that is not JSON with -32700 and a notification with 202", async () => {
    const notJson = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const notification = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
    expect(notification.status).toBe(202);
  });

  it("refuses cross-site browser requests (DNS rebinding)", async () => {
    expect((await post("server/discover", {}, { origin: "https://evil.example" })).status).toBe(403);
    expect((await post("server/discover", {}, { origin: "http://localhost:5173" })).status).toBe(200);
  });
});

describe("example server: stateless envelope", () => {
  it("discovers the tasks extension (and no v1 tasks capability)", async () => {
    const { status, body } = await post("server/discover", {});
    expect(status).toBe(200);
    expect(body.result).toMatchObject({ resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { extensions: TASKS } });
    expect(body.result.capabilities).not.toHaveProperty("tasks");
    expect(body.result._meta["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: expect.any(String), version: expect.any(String) });
  });

  it("checks the protocol version header against itself and _meta", async () => {
    expect((await post("server/discover", {}, { "mcp-protocol-version": undefined })).body.error.code).toBe(-32020);
    const unsupported = await post("server/discover", {}, { "mcp-protocol-version": "2024-01-01" });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toMatchObject({ code: -32022, data: { requested: "2024-01-01", supported: ["2026-07-28"] } });
    const mismatch = await post("server/discover", { _meta: { ...meta(), "io.modelcontextprotocol/protocolVersion": "2025-11-25" } });
    expect(mismatch.body.error.code).toBe(-32020);
  });

  it("requires _meta with client capabilities on every request", async () => {
    const missing = await post("tools/list", { _meta: undefined });
    expect(missing).toMatchObject({ status: 400, body: { error: { code: -32602 } } });
    const noCapabilities = await post("tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } });
    expect(noCapabilities.body.error.code).toBe(-32602);
  });

  it("checks Mcp-Method always and Mcp-Name for tools/call", async () => {
    expect((await post("tools/list", {}, { "mcp-method": undefined })).body.error.code).toBe(-32020);
    expect((await post("tools/call", { name: "greet", arguments: { name: "x" } }, { "mcp-name": "slow_compute" })).body.error.code).toBe(-32020);
    expect((await post("tools/call", { name: "greet", arguments: { name: "x" } }, { "mcp-name": undefined })).body.error.code).toBe(-32020);
  });

  it("answers unknown methods -32601 with 404", async () => {
    expect(await post("resources/list", {})).toMatchObject({ status: 404, body: { error: { code: -32601 } } });
    expect(await post("tasks/list", {})).toMatchObject({ status: 404, body: { error: { code: -32601 } } });
  });
});

describe("example server: tools and tasks", () => {
  it("lists the fixture tools with their task support", async () => {
    const { body } = await post("tools/list", {});
    expect(Object.fromEntries(body.result.tools.map((t: { name: string; execution: { taskSupport: string } }) => [t.name, t.execution.taskSupport]))).toEqual({
      greet: "forbidden",
      slow_compute: "optional",
      failing_job: "required",
      protocol_error_job: "optional",
      confirm_delete: "optional",
      multi_input: "optional",
      test_tool_with_task: "required",
      weather: "forbidden",
      // The multi round-trip fixtures (input-rounds.ts) never run as tasks.
      ...Object.fromEntries(roundTools.map((tool) => [tool.name, "forbidden"])),
    });
    expect(roundTools.length).toBe(11);
  });

  it("keeps tasks to their owner: another bearer token cannot see or cancel them", async () => {
    const alice = { authorization: "Bearer alice-token" };
    const created = (await post("tools/call", { name: "slow_compute", arguments: { seconds: 60 } }, alice)).body.result;
    expect(created.resultType).toBe("task");
    const asAlice = await post("tasks/get", { taskId: created.taskId }, alice);
    expect(asAlice.body.result.status).toBe("working");
    for (const headers of [{ authorization: "Bearer mallory-token" }, {}]) {
      expect((await post("tasks/get", { taskId: created.taskId }, headers)).body.error).toEqual({ code: -32602, message: "Task not found" });
      expect((await post("tasks/cancel", { taskId: created.taskId }, headers)).body.error.code).toBe(-32602);
    }
    await post("tasks/cancel", { taskId: created.taskId }, alice);
    expect((await post("tasks/get", { taskId: created.taskId }, alice)).body.result.status).toBe("cancelled");
  });

  it("runs input tools by multi-round-trip when the client has no tasks extension", async () => {
    // Without the elicitation capability the tool cannot ask (-32021 naming it).
    const mute = await post("tools/call", { _meta: meta({}), name: "confirm_delete", arguments: { filename: "a.txt" } });
    expect(mute.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: { form: {} } } } });
    const plain = { _meta: meta({ elicitation: {} }) };
    const first = await post("tools/call", { ...plain, name: "confirm_delete", arguments: { filename: "a.txt" } });
    expect(first.body.result).toMatchObject({ resultType: "input_required", inputRequests: { confirm: { method: "elicitation/create" } } });
    const second = await post("tools/call", {
      ...plain,
      name: "confirm_delete",
      arguments: { filename: "a.txt" },
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
    });
    expect(second.body.result).toEqual({ resultType: "complete", content: [{ type: "text", text: "Deleted a.txt." }] });
    // A crash without tasks is a plain JSON-RPC error.
    expect((await post("tools/call", { ...plain, name: "protocol_error_job", arguments: {} })).body.error.code).toBe(-32603);
    expect((await post("tools/call", { ...plain, name: "nope", arguments: {} })).body.error.code).toBe(-32602);
  });
});
