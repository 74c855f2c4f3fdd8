import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTasksClient } from "../../../generated/ext-tasks-draft/index.js";
import { createTasksServer } from "../../../generated/ext-tasks-draft/server.js";
import { serveStdio, stdioClientTransport, StdioClosedError, type StdioClientTransport } from "../../../generated/ext-tasks-draft/runtime/parts/stdio.js";
import { projectRoot } from "../../support/paths.js";
import { readGeneratedSet, writeGeneratedModules } from "../../support/generated-modules.js";

/**
 * The `stdio` runtime part (README, "Runtime parts"): the client transport spawns a real server
 * process, `node` running a small script on the generated server and `serveStdio`, with the set
 * compiled to JavaScript the way a user's build does (types stripped) in a temporary folder.
 */

const SERVER_SCRIPT = `
import { createTasksServer } from "./set/server.js";
import { serveStdio } from "./set/runtime/parts/stdio.js";

const tasks = createTasksServer({ pollInterval: 10 });
const server = serveStdio({
  tasks,
  owner: "the-client",
  methods: {
    "tools/call": async (params, context) => {
      if (params.name === "hang") return new Promise(() => {});
      if (params.name === "exit") {
        setTimeout(() => process.exit(3), 20);
        return new Promise(() => {});
      }
      const task = await tasks.createTask(context);
      setTimeout(() => void task.update("halfway").then(() => task.complete({ content: [{ type: "text", text: "hi " + params.arguments.who + " from " + context.owner }] })), 20);
      return task.createResult;
    },
  },
});
process.stderr.write("stdio test server up\\n");
await server.done;
tasks.close();
`;

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-stdio-"));
  writeFileSync(join(work, "package.json"), '{ "type": "module" }\n');
  writeGeneratedModules(readGeneratedSet(join(projectRoot, "generated", "ext-tasks-draft")), join(work, "set"));
  writeFileSync(join(work, "server.mjs"), SERVER_SCRIPT);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("stdio: the client transport against a real server process", () => {
  let transport: StdioClientTransport;
  const spawnServer = () => stdioClientTransport({ command: process.execPath, args: ["server.mjs"], cwd: work, stderr: "ignore" });

  afterEach(async () => {
    await transport.close();
  });

  it("a task round trip: tools/call creates the task, the client waits it out with tasks/get; status notifications arrive", async () => {
    transport = spawnServer();
    const notifications: unknown[] = [];
    transport.onNotification((n) => notifications.push(n));
    const client = createTasksClient({ ...transport, minPollMs: 10 });
    try {
      const created: string[] = [];
      const result = await client.callTool({ name: "work", arguments: { who: "Ada" } }, { onTaskCreated: (task) => created.push(task.status) });
      expect(created).toEqual(["working"]);
      expect(result).toEqual({ content: [{ type: "text", text: "hi Ada from the-client" }] });
      // The server loop forwards the Tasks server's notifications for its client's tasks.
      const statuses = notifications.map((n) => (n as { method: string; params: { status: string; statusMessage?: string } }));
      expect(statuses.every((n) => n.method === "notifications/tasks")).toBe(true);
      expect(statuses.map((n) => n.params.status)).toContain("completed");
      expect(statuses.some((n) => n.params.statusMessage === "halfway")).toBe(true);
    } finally {
      client.close();
    }
  });

  it("concurrent requests each get the answer with their own id; an unknown method gets -32601", async () => {
    transport = spawnServer();
    const signal = new AbortController().signal;
    const meta = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };
    const answers = await Promise.all(
      ["a", "b", "c"].map((id) => transport.send({ jsonrpc: "2.0", id, method: "tasks/get", params: { taskId: `missing-${id}`, _meta: meta } }, {}, { signal })),
    );
    expect(answers.map((a) => (a as { id: string }).id)).toEqual(["a", "b", "c"]);
    expect(answers.map((a) => (a as { error: { message: string } }).error.message)).toEqual(["Task not found", "Task not found", "Task not found"]);
    const unknown = await transport.send({ jsonrpc: "2.0", id: 9, method: "prompts/list" }, {}, { signal });
    expect(unknown).toMatchObject({ id: 9, error: { code: -32601 } });
  });

  it("the server process exiting rejects the pending requests, and every later one", async () => {
    transport = spawnServer();
    const signal = new AbortController().signal;
    const pending = transport.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang" } }, {}, { signal });
    const exiting = transport.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "exit" } }, {}, { signal });
    await expect(pending).rejects.toThrow(StdioClosedError);
    await expect(exiting).rejects.toThrow(/exited \(code 3\)/);
    await expect(transport.send({ jsonrpc: "2.0", id: 3, method: "tools/list" }, {}, { signal })).rejects.toThrow(StdioClosedError);
  });

  it("an aborted request rejects with the signal's reason", async () => {
    transport = spawnServer();
    const controller = new AbortController();
    const pending = transport.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang" } }, {}, { signal: controller.signal });
    controller.abort(new Error("gave up"));
    await expect(pending).rejects.toThrow("gave up");
  });

  it("a command that cannot run rejects requests with StdioClosedError", async () => {
    transport = stdioClientTransport({ command: join(work, "no-such-program"), stderr: "ignore" });
    await expect(transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list" }, {}, { signal: new AbortController().signal })).rejects.toThrow(StdioClosedError);
  });
});

describe("stdio: the server loop on streams", () => {
  it("answers a line that is not JSON with -32700, routes notifications to their handler, and ends with its input", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: unknown[] = [];
    output.on("data", (chunk: Buffer) => lines.push(...chunk.toString().trim().split("\n").map((l) => JSON.parse(l) as unknown)));
    const seen: unknown[] = [];
    const tasks = createTasksServer();
    const server = serveStdio({ tasks, input, output, notifications: { "notifications/hello": (params) => void seen.push(params) } });
    input.write("nope\n\n");
    input.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/hello", params: { n: 1 } })}\n`);
    input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" })}\n`);
    input.end();
    await server.done;
    tasks.close();
    expect(seen).toEqual([{ n: 1 }]);
    expect(lines).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: a line is not JSON" } },
      { jsonrpc: "2.0", id: 5, error: { code: -32601, message: "Method not found: tools/list" } },
    ]);
  });
});
