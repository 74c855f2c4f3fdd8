import { afterEach, describe, expect, it } from "vitest";
import * as draft from "../../../generated/ext-tasks-draft/index.js";
import { streamableHttpTransport as draftTransport } from "../../../generated/ext-tasks-draft/runtime/parts/http-client.js";
import * as v2025 from "../../../generated/tasks-2025-11-25/index.js";
import { streamableHttpTransport as transport2025 } from "../../../generated/tasks-2025-11-25/runtime/parts/http-client.js";
import { closeServersAfterEach, failOnUnhandled, json, serve, type JsonObject, type Seen } from "./client-peers.js";
import type { ServerResponse } from "node:http";

/**
 * `callTool` against a server whose tool results are not the set's CallToolResult: the result is
 * checked as that definition (as `tools/list` pages are checked as ListToolsResult), whether the
 * call completes at once or as a task, and a result that fails rejects with ValidationFailed, the
 * error the client gives for every invalid answer. A valid result is handed back as it came.
 */

closeServersAfterEach();
failOnUnhandled();

const NOT_A_RESULT = { content: "not-an-array" };
const A_RESULT = { content: [{ type: "text", text: "fine" }] };
const TOOL = { name: "t", inputSchema: { type: "object" } };

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const unknownMethod = (seen: Seen, response: ServerResponse) =>
  json(response, { jsonrpc: "2.0", id: seen.body!.id, error: { code: -32601, message: "Method not found" } });

describe("ext-tasks-draft (stateless, tasks an extension)", () => {
  /** A server whose tool answers `toolResult`, at once or (`asTask`) as the result of a task it completes. */
  const serverAnswering = async (toolResult: JsonObject, asTask: boolean) => {
    const tasks = draft.createTasksServer({ pollInterval: 10 });
    closers.push(() => tasks.close());
    const { url } = await serve((seen, response) => {
      const body = seen.body!;
      const method = String(body.method);
      if (method === "tools/list") return json(response, { jsonrpc: "2.0", id: body.id, result: { resultType: "complete", tools: [TOOL] } });
      if (method === "tools/call" && !asTask) return json(response, { jsonrpc: "2.0", id: body.id, result: { resultType: "complete", ...toolResult } });
      if (method === "tools/call") {
        void tasks.createTask({}).then(async (task) => {
          json(response, { jsonrpc: "2.0", id: body.id, result: { ...task.createResult } });
          await task.complete(toolResult as never);
        });
        return;
      }
      if (method.startsWith("tasks/")) return void tasks.handle(body).then((answer) => json(response, answer));
      unknownMethod(seen, response);
    });
    const client = draft.createTasksClient({ ...draftTransport({ url }), minPollMs: 10 });
    closers.push(() => client.close());
    return client;
  };

  it("a result completed at once whose content is no array rejects with ValidationFailed, naming CallToolResult", async () => {
    const client = await serverAnswering(NOT_A_RESULT, false);
    const refusal = await client.callTool({ name: "t" }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(draft.ValidationFailed);
    expect((refusal as Error).message).toMatch(/^invalid CallToolResult: \/content: /);
    await expect(client.startToolCall({ name: "t" })).rejects.toBeInstanceOf(draft.ValidationFailed);
  });

  it("a task whose result is no CallToolResult rejects the same way", async () => {
    const client = await serverAnswering(NOT_A_RESULT, true);
    await expect(client.callTool({ name: "t" })).rejects.toThrow(/^invalid CallToolResult: \/content: /);
  });

  it("a valid result passes, at once and as a task", async () => {
    expect(await (await serverAnswering(A_RESULT, false)).callTool({ name: "t" })).toEqual(A_RESULT);
    expect(await (await serverAnswering(A_RESULT, true)).callTool({ name: "t" })).toEqual(A_RESULT);
  });

  it("validateResults: false hands back what came, as before", async () => {
    const tasks = draft.createTasksServer({});
    closers.push(() => tasks.close());
    const { url } = await serve((seen, response) => {
      const body = seen.body!;
      if (body.method === "tools/list") return json(response, { jsonrpc: "2.0", id: body.id, result: { resultType: "complete", tools: [TOOL] } });
      if (body.method === "tools/call") return json(response, { jsonrpc: "2.0", id: body.id, result: { resultType: "complete", ...NOT_A_RESULT } });
      unknownMethod(seen, response);
    });
    const client = draft.createTasksClient({ ...draftTransport({ url }), validateResults: false });
    closers.push(() => client.close());
    expect(await client.callTool({ name: "t" })).toEqual(NOT_A_RESULT);
  });
});

describe("tasks-2025-11-25 (initialize handshake, tasks in the core protocol)", () => {
  it("a tools/call result whose content is no array rejects with ValidationFailed, naming CallToolResult", async () => {
    const { url } = await serve((seen, response) => {
      if (seen.httpMethod === "GET") return void response.writeHead(405).end();
      if (seen.httpMethod === "DELETE") return void response.writeHead(200).end();
      const body = seen.body!;
      if (body.method === "initialize") {
        const result = { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } };
        return json(response, { jsonrpc: "2.0", id: body.id, result }, { "mcp-session-id": "s" });
      }
      if (body.id === undefined) return void response.writeHead(202).end();
      if (body.method === "tools/list") return json(response, { jsonrpc: "2.0", id: body.id, result: { tools: [TOOL] } });
      if (body.method === "tools/call") {
        const name = (body.params as { name: string }).name;
        return json(response, { jsonrpc: "2.0", id: body.id, result: name === "ok" ? A_RESULT : NOT_A_RESULT });
      }
      unknownMethod(seen, response);
    });
    const transport = transport2025({ url, protocolVersion: "2025-11-25" });
    const client = v2025.createTasksClient({ ...transport });
    closers.push(() => transport.close(), () => client.close());
    await expect(client.callTool({ name: "t" })).rejects.toBeInstanceOf(v2025.ValidationFailed);
    await expect(client.callTool({ name: "t" })).rejects.toThrow(/^invalid CallToolResult: \/content: /);
    expect(await client.callTool({ name: "ok" })).toEqual(A_RESULT);
  });
});
