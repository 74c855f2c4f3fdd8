import { describe, expect, it } from "vitest";
import * as ext from "../../../generated/ext-tasks-draft/index.js";
import * as v2025 from "../../../generated/tasks-2025-11-25/index.js";
import type { TasksClientHeaders, TasksClientRequest, TasksClientSend } from "../../../generated/ext-tasks-draft/index.js";

/**
 * What `callTool` learns from `tools/list` in the generated clients (README.md › Client stubs):
 * on the extension's revision, each tool's `x-mcp-header` annotations, mirrored into
 * `Mcp-Param-{Name}` headers, with invalid tools left out; on 2025-11-25, each tool's
 * `execution.taskSupport`, which decides whether a call runs as a task. The tools below are those of
 * the conformance suite's `http-custom-headers` and `http-invalid-tool-headers` scenarios.
 */

type Sent = { readonly request: TasksClientRequest; readonly headers: TasksClientHeaders };

/** What the newest revision's ListToolsResult requires beside the tools (cacheable results); 2025-11-25's ignores it. */
const CACHEABLE = { ttlMs: 3_600_000, cacheScope: "private" };

/** A peer whose `tools/list` answers `lists()` (one page), everything else `answer`. */
function peer(lists: () => Record<string, unknown>[], answer: (request: TasksClientRequest) => Record<string, unknown>) {
  const sent: Sent[] = [];
  const send: TasksClientSend = async (request, headers) => {
    sent.push({ request: structuredClone(request), headers });
    const result = request.method === "tools/list" ? { tools: lists(), ...CACHEABLE } : answer(request);
    return { jsonrpc: "2.0", id: request.id, result };
  };
  return { send, sent, methods: () => sent.map((s) => s.request.method) };
}

const CUSTOM_HEADERS_TOOL = {
  name: "test_custom_headers",
  inputSchema: {
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      priority: { type: "integer", "x-mcp-header": "Priority" },
      verbose: { type: "boolean", "x-mcp-header": "Verbose" },
      debug: { type: "boolean", "x-mcp-header": "Debug" },
      empty_val: { type: "string", "x-mcp-header": "EmptyVal" },
      method_val: { type: "string", "x-mcp-header": "Method" },
      float_val: { type: "number" },
      non_ascii_val: { type: "string", "x-mcp-header": "NonAscii" },
      whitespace_val: { type: "string", "x-mcp-header": "Whitespace" },
      control_char_val: { type: "string", "x-mcp-header": "ControlChar" },
      tab_val: { type: "string", "x-mcp-header": "Tab" },
      query: { type: "string" },
    },
    required: ["region", "priority", "query"],
  },
};
const INVALID_TOOLS = [
  { name: "invalid_empty_header", inputSchema: { type: "object", properties: { value: { type: "string", "x-mcp-header": "" } } } },
  { name: "invalid_number_header", inputSchema: { type: "object", properties: { score: { type: "number", "x-mcp-header": "Score" } } } },
  { name: "invalid_duplicate_diff_case", inputSchema: { type: "object", properties: { a: { type: "string", "x-mcp-header": "MyField" }, b: { type: "string", "x-mcp-header": "myfield" } } } },
];
const COMPLETE = { resultType: "complete", content: [{ type: "text", text: "ok" }] };

describe("ext-tasks-draft: x-mcp-header annotations", () => {
  it("mirrors annotated arguments into Mcp-Param headers, encoded, beside the routing headers; unannotated and null ones get none", async () => {
    const { send, sent } = peer(() => [CUSTOM_HEADERS_TOOL], () => COMPLETE);
    const client = ext.createTasksClient({ send });
    const args = {
      region: "us-west1",
      priority: 42,
      verbose: null,
      debug: true,
      empty_val: "",
      method_val: "test-method",
      float_val: 3.14159,
      non_ascii_val: "Hello, 世界",
      whitespace_val: " padded ",
      control_char_val: "line1\nline2",
      tab_val: "\tindented",
      query: "SELECT * FROM users",
    };
    await client.callTool({ name: "test_custom_headers", arguments: args });
    const call = sent.find((s) => s.request.method === "tools/call")!;
    expect(call.headers).toEqual({
      "Mcp-Method": "tools/call",
      "Mcp-Name": "test_custom_headers",
      "Mcp-Param-Region": "us-west1",
      "Mcp-Param-Priority": "42",
      "Mcp-Param-Debug": "true",
      "Mcp-Param-EmptyVal": "",
      "Mcp-Param-Method": "test-method",
      "Mcp-Param-NonAscii": "=?base64?SGVsbG8sIOS4lueVjA==?=",
      "Mcp-Param-Whitespace": "=?base64?IHBhZGRlZCA=?=",
      "Mcp-Param-ControlChar": "=?base64?bGluZTEKbGluZTI=?=",
      "Mcp-Param-Tab": "=?base64?CWluZGVudGVk?=",
    });
    expect(call.request.params).toMatchObject({ arguments: args });
    client.close();
  });

  it("leaves tools with invalid annotations out of listTools (reported), refuses to call them, and keeps the valid ones", async () => {
    const { send, methods } = peer(() => [{ name: "valid_tool", inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } } }, ...INVALID_TOOLS], () => COMPLETE);
    const reported: unknown[] = [];
    const client = ext.createTasksClient({ send, onError: (error) => reported.push(error) });
    expect((await client.listTools()).map((t) => t.name)).toEqual(["valid_tool"]);
    expect(reported.map((e) => (e as ext.ToolRejectedError).tool)).toEqual(INVALID_TOOLS.map((t) => t.name));
    for (const tool of INVALID_TOOLS) await expect(client.callTool({ name: tool.name, arguments: {} })).rejects.toBeInstanceOf(ext.ToolRejectedError);
    expect(await client.callTool({ name: "valid_tool", arguments: { region: "eu" } })).toEqual({ content: [{ type: "text", text: "ok" }] });
    expect(methods()).toEqual(["tools/list", "tools/call"]);
    client.close();
  });

  it("an argument that cannot be mirrored fails before anything is sent", async () => {
    const { send, methods } = peer(() => [CUSTOM_HEADERS_TOOL], () => COMPLETE);
    const client = ext.createTasksClient({ send });
    await expect(client.callTool({ name: "test_custom_headers", arguments: { region: "r", priority: 1.5, query: "q" } })).rejects.toBeInstanceOf(ext.ValidationFailed);
    expect(methods()).toEqual(["tools/list"]);
    client.close();
  });

  it("reads tools/list once while it holds, again after notifications/tools/list_changed; a tool it does not list gets a plain call", async () => {
    let annotated = false;
    const tool = () => ({ name: "t", inputSchema: { type: "object", properties: { r: { type: "string", ...(annotated ? { "x-mcp-header": "R" } : {}) } } } });
    const { send, sent, methods } = peer(() => [tool()], () => COMPLETE);
    const client = ext.createTasksClient({ send });
    await client.callTool({ name: "t", arguments: { r: "x" } });
    annotated = true;
    await client.callTool({ name: "t", arguments: { r: "x" } });
    expect(methods()).toEqual(["tools/list", "tools/call", "tools/call"]);
    client.handleNotification({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    await client.callTool({ name: "t", arguments: { r: "x" } });
    await client.callTool({ name: "unlisted", arguments: { r: "x" } });
    expect(methods()).toEqual(["tools/list", "tools/call", "tools/call", "tools/list", "tools/call", "tools/call"]);
    const calls = sent.filter((s) => s.request.method === "tools/call").map((s) => s.headers["Mcp-Param-R"]);
    expect(calls).toEqual([undefined, undefined, "x", undefined]);
    client.close();
  });
});

describe("ext-tasks-draft: HeaderMismatch", () => {
  it("a -32020 answer makes the client read tools/list again and retry once with the headers it now implies; if they are the same, the error stands", async () => {
    let lists = 0;
    const sent: Sent[] = [];
    const send: TasksClientSend = async (request, headers) => {
      sent.push({ request: structuredClone(request), headers });
      if (request.method === "tools/list") {
        lists++;
        // The first list predates the annotation the server now checks.
        const r = lists === 1 ? { type: "string" } : { type: "string", "x-mcp-header": "R" };
        return { jsonrpc: "2.0", id: request.id, result: { tools: [{ name: "t", inputSchema: { type: "object", properties: { r } } }, { name: "u", inputSchema: { type: "object" } }], ...CACHEABLE } };
      }
      if (request.params?.name === "t" && headers["Mcp-Param-R"] === undefined) return { jsonrpc: "2.0", id: request.id, error: { code: -32020, message: "Header mismatch: Mcp-Param-R is missing" } };
      if (request.params?.name === "u") return { jsonrpc: "2.0", id: request.id, error: { code: -32020, message: "Header mismatch" } };
      return { jsonrpc: "2.0", id: request.id, result: COMPLETE };
    };
    const client = ext.createTasksClient({ send });
    expect(await client.callTool({ name: "t", arguments: { r: "eu" } })).toEqual({ content: [{ type: "text", text: "ok" }] });
    expect(sent.map((s) => [s.request.method, s.headers["Mcp-Param-R"]])).toEqual([
      ["tools/list", undefined],
      ["tools/call", undefined],
      ["tools/list", undefined],
      ["tools/call", "eu"],
    ]);
    await expect(client.callTool({ name: "u" })).rejects.toMatchObject({ code: -32020 });
    expect(sent.slice(4).map((s) => s.request.method)).toEqual(["tools/call", "tools/list"]);
    client.close();
  });
});

describe("tasks-2025-11-25: execution.taskSupport", () => {
  const at = new Date(Date.UTC(2026, 0, 1)).toISOString();
  const task = (status: string) => ({ taskId: "t1", status, createdAt: at, lastUpdatedAt: at, ttl: null, pollInterval: 1 });
  const TOOLS = [
    { name: "required", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
    { name: "optional", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } },
    { name: "forbidden", inputSchema: { type: "object" }, execution: { taskSupport: "forbidden" } },
    { name: "silent", inputSchema: { type: "object" } },
  ];
  /** A 2025-11-25 server: a call with `task` creates one (completed at once), a plain call answers its result. */
  function server2025(tools: () => Record<string, unknown>[] = () => TOOLS) {
    return peer(tools, (request) => {
      switch (request.method) {
        case "tools/call":
          return request.params?.task ? { task: task("working") } : { content: [{ type: "text", text: `plain ${String(request.params?.name)}` }] };
        case "tasks/get":
          return task("completed");
        case "tasks/result":
          return { content: [{ type: "text", text: "from the task" }] };
        default:
          return {};
      }
    });
  }
  const tasked = (sent: Sent[]) => sent.filter((s) => s.request.method === "tools/call").map((s) => s.request.params?.task);

  it("a tool that requires a task is called as one; optional, forbidden, silent and unlisted tools get a plain call", async () => {
    const { send, sent } = server2025();
    const client = v2025.createTasksClient({ send, minPollMs: 1, maxPollMs: 2 });
    expect(await client.callTool({ name: "required" })).toEqual({ content: [{ type: "text", text: "from the task" }] });
    for (const name of ["optional", "forbidden", "silent", "unlisted"]) expect(await client.callTool({ name })).toEqual({ content: [{ type: "text", text: `plain ${name}` }] });
    expect(tasked(sent)).toEqual([{}, undefined, undefined, undefined, undefined]);
    expect(sent.filter((s) => s.request.method === "tools/list")).toHaveLength(1);
    client.close();
  });

  it("preferTasks runs optional tools as tasks too; a caller's own task is sent to a tool the list does not forbid it for", async () => {
    const { send, sent, methods } = server2025();
    const client = v2025.createTasksClient({ send, minPollMs: 1, maxPollMs: 2, preferTasks: true });
    await client.callTool({ name: "optional" });
    await client.callTool({ name: "forbidden" });
    expect(tasked(sent)).toEqual([{}, undefined]);
    const direct = server2025();
    const other = v2025.createTasksClient({ send: direct.send, minPollMs: 1, maxPollMs: 2 });
    await other.callTool({ name: "anything" }, { task: { ttl: 5_000 } });
    // The list is read (a tool that forbids tasks must not get one), and an unlisted tool's call carries the caller's task.
    expect(direct.methods()).toEqual(["tools/list", "tools/call", "tasks/get", "tasks/result"]);
    expect(tasked(direct.sent)).toEqual([{ ttl: 5_000 }]);
    expect(methods()[0]).toBe("tools/list");
    client.close();
    other.close();
  });

  it("a caller's own task for a tool whose taskSupport is forbidden (or unsaid) is refused with a TaskForbiddenError, and nothing is sent", async () => {
    const { send, methods } = server2025();
    const client = v2025.createTasksClient({ send, minPollMs: 1, maxPollMs: 2 });
    for (const name of ["forbidden", "silent"]) {
      const refused = client.callTool({ name }, { task: {} });
      await expect(refused).rejects.toBeInstanceOf(v2025.TaskForbiddenError);
      await expect(refused).rejects.toMatchObject({ tool: name, message: `tool "${name}" does not run as a task (its execution.taskSupport is "forbidden"): call it without \`task\`` });
      await expect(client.startToolCall({ name }, { task: {} })).rejects.toBeInstanceOf(v2025.TaskForbiddenError);
    }
    expect(methods()).toEqual(["tools/list"]);
    // The same tools without a caller's task are called plainly; optional and required ones take it.
    expect(await client.callTool({ name: "forbidden" })).toEqual({ content: [{ type: "text", text: "plain forbidden" }] });
    expect(await client.callTool({ name: "optional" }, { task: {} })).toEqual({ content: [{ type: "text", text: "from the task" }] });
    client.close();
  });

  it("a required tool the cached list did not know as such: the server's refusal is not the answer; the list is read again and the call made as a task", async () => {
    let required = false;
    const tools = () => [{ name: "job", inputSchema: { type: "object" }, execution: { taskSupport: required ? "required" : "optional" } }];
    const { send, sent, methods } = peer(tools, (request) => {
      if (request.method === "tools/call") {
        if (request.params?.task) return { task: task("working") };
        // SDK 1.x's McpServer answers a plain call to a task-only tool with an error result.
        return required ? { content: [{ type: "text", text: "Tool job requires task augmentation (taskSupport: 'required')" }], isError: true } : { content: [] };
      }
      if (request.method === "tasks/get") return task("completed");
      return { content: [{ type: "text", text: "from the task" }] };
    });
    const client = v2025.createTasksClient({ send, minPollMs: 1, maxPollMs: 2 });
    await client.callTool({ name: "job" });
    required = true;
    expect(await client.callTool({ name: "job" })).toEqual({ content: [{ type: "text", text: "from the task" }] });
    expect(methods().filter((m) => m.startsWith("tools/"))).toEqual(["tools/list", "tools/call", "tools/call", "tools/list", "tools/call"]);
    expect(tasked(sent)).toEqual([undefined, undefined, {}]);
    client.close();
  });

  it("a tool's genuine error result is handed back after one look at the list; a list that cannot be read means a plain call (reported)", async () => {
    const { send, methods } = peer(() => TOOLS, () => ({ content: [{ type: "text", text: "bad input" }], isError: true }));
    const client = v2025.createTasksClient({ send });
    expect(await client.callTool({ name: "forbidden" })).toEqual({ content: [{ type: "text", text: "bad input" }], isError: true });
    expect(methods()).toEqual(["tools/list", "tools/call", "tools/list"]);
    client.close();
    const reported: unknown[] = [];
    const failing: TasksClientSend = async (request) =>
      request.method === "tools/list" ? { jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "Method not found" } } : { jsonrpc: "2.0", id: request.id, result: { content: [] } };
    const plain = v2025.createTasksClient({ send: failing, onError: (e) => reported.push(e) });
    expect(await plain.callTool({ name: "x" })).toEqual({ content: [] });
    expect(reported[0]).toBeInstanceOf(v2025.JsonRpcResponseError);
    plain.close();
  });
});

describe("tools/list pages checked by the set's generated ListToolsResult validator", () => {
  /** A peer whose `tools/list` answers `page` as it is. */
  function pagePeer(page: Record<string, unknown>) {
    const send: TasksClientSend = async (request) => ({ jsonrpc: "2.0", id: request.id, result: request.method === "tools/list" ? page : COMPLETE });
    return send;
  }
  const reasonOf = async (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

  it("ext-tasks-draft: a page without the cacheable fields its schema requires is rejected, naming the schema path; unvalidated, it is read", async () => {
    const page = { resultType: "complete", tools: [CUSTOM_HEADERS_TOOL], cacheScope: "everyone" };
    const error = await reasonOf(ext.createTasksClient({ send: pagePeer(page) }).listTools());
    expect(error).toBeInstanceOf(ext.ValidationFailed);
    const failed = error as InstanceType<typeof ext.ValidationFailed>;
    expect(failed.typeName).toBe("ListToolsResult");
    expect(failed.errors.map((e) => e.schemaPath)).toEqual(
      expect.arrayContaining([expect.stringMatching(/ext-tasks-draft\.core\.schema\.json#\/\$defs\/ListToolsResult\/properties\/(cacheScope|ttlMs)/)]),
    );
    const unchecked = ext.createTasksClient({ send: pagePeer(page), validateResults: false });
    expect((await unchecked.listTools()).map((t) => t.name)).toEqual(["test_custom_headers"]);
  });

  it("ext-tasks-draft: a page without resultType (an older server's) is checked as the complete result it means", async () => {
    const client = ext.createTasksClient({ send: pagePeer({ tools: [CUSTOM_HEADERS_TOOL], ...CACHEABLE }) });
    expect((await client.listTools()).map((t) => t.name)).toEqual(["test_custom_headers"]);
  });

  it("2025-11-25: a tool the schema's Tool rejects (no inputSchema) fails the page with its schema path", async () => {
    const error = await reasonOf(v2025.createTasksClient({ send: pagePeer({ tools: [{ name: "bare" }] }) }).listTools());
    expect(error).toBeInstanceOf(v2025.ValidationFailed);
    const failed = error as InstanceType<typeof v2025.ValidationFailed>;
    expect(failed.typeName).toBe("ListToolsResult");
    expect(failed.errors[0]!.path).toBe("/tools/0/inputSchema");
    expect(failed.errors[0]!.schemaPath).toMatch(/mcp-2025-11-25\.schema\.json#\/(\$defs|definitions)\/Tool\//);
  });
});
