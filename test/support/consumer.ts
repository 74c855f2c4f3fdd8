/**
 * The code of a project that uses generated sets, as that project would write it: once in
 * TypeScript (type-checked under strict settings, with `@ts-expect-error` lines that prove the
 * declarations carry real types), once in plain JavaScript. Both export `run()`, which validates
 * values with each set's validators and follows one task from a generated ext-tasks client to a
 * generated server and back, and resolves with a summary (`EXPECTED_SUMMARY`).
 *
 * `base` is the import path of the folder holding the sets (`./src/generated`).
 */

/** What `run()` resolves with when everything works. */
export const EXPECTED_SUMMARY = {
  extValid: true,
  extInvalid: { path: "/status", keyword: "discriminator" },
  parseError: "ValidationFailed",
  tasks2025Invalid: "/ttl",
  elicitationValid: true,
  elicitationInvalid: "/mode",
  roundTrip: {
    result: { content: [{ type: "text", text: "done: report.pdf" }] },
    created: "working",
    last: "completed",
    // callTool looks the tool up first (its x-mcp-header annotations); the Tasks server alone answers tools/list -32601, so the call is plain.
    methods: ["tools/list", "tools/call", "tasks/get"],
  },
};

const VALUES = `
const workingTask = { taskId: "t-1", status: "working", createdAt: "2025-11-25T10:00:00Z", lastUpdatedAt: "2025-11-25T10:00:00Z", ttlMs: 60000 };
const doneTask = { taskId: "t-1", status: "done", createdAt: "2025-11-25T10:00:00Z", lastUpdatedAt: "2025-11-25T10:00:00Z", ttlMs: null };
const task2025 = { taskId: "t-2", status: "working", createdAt: "2025-11-25T10:00:00Z", lastUpdatedAt: "2025-11-25T10:00:00Z", ttl: "forever" };
const urlElicitation = { serverName: "files", threadId: "th-1", mode: "url", message: "Sign in", elicitationId: "e-1", url: "https://example.com/login" };
const smsElicitation = { serverName: "files", threadId: "th-1", mode: "sms", message: "Sign in" };
`;

/**
 * How the consumer is written for its host. `esm`: ES module syntax (an ESM project, a bundler
 * project, or a CommonJS project without `verbatimModuleSyntax`, where tsc turns it into `require`).
 * `commonjs-verbatim`: a CommonJS project under `verbatimModuleSyntax`, whose files cannot hold
 * `import`/`export` syntax: `import x = require(...)` and `export =`. `extension`: how the generated
 * modules are imported (`.js` for `.ts` files, `.mjs` for `.mts`).
 */
export interface ConsumerStyle {
  readonly host: "esm" | "commonjs-verbatim";
  readonly extension: ".js" | ".mjs";
}

const ESM_STYLE: ConsumerStyle = { host: "esm", extension: ".js" };

function consumerImports(base: string, { host, extension }: ConsumerStyle): string {
  if (host === "esm") {
    return `import {
  createTasksClient,
  createTasksServer,
  matchStatus,
  parseGetTaskResult,
  validateGetTaskResult,
  ValidationFailed,
  type DetailedTask,
  type TasksClientSend,
  type TaskStatus,
} from "${base}/ext-tasks-2026-05-22/index${extension}";
import { validateTask, type Task } from "${base}/tasks-2025-11-25/index${extension}";
import {
  validateMcpServerElicitationRequestParams,
  type McpServerElicitationRequestParams,
} from "${base}/elicitation-codex/index${extension}";`;
  }
  // require() of the generated ES modules: Node 20.19+ (README › Module formats).
  return `import ext = require("${base}/ext-tasks-2026-05-22/index${extension}");
import tasks2025 = require("${base}/tasks-2025-11-25/index${extension}");
import codex = require("${base}/elicitation-codex/index${extension}");
const { createTasksClient, createTasksServer, matchStatus, parseGetTaskResult, validateGetTaskResult, ValidationFailed } = ext;
type DetailedTask = ext.DetailedTask;
type TasksClientSend = ext.TasksClientSend;
type TaskStatus = ext.TaskStatus;
const { validateTask } = tasks2025;
type Task = tasks2025.Task;
const { validateMcpServerElicitationRequestParams } = codex;
type McpServerElicitationRequestParams = codex.McpServerElicitationRequestParams;`;
}

/** The TypeScript consumer: `app.ts` of the project. */
export function consumerTypeScript(base: string, style: ConsumerStyle = ESM_STYLE): string {
  const code = `${consumerImports(base, style)}
${VALUES}
/** Exhaustive over the statuses: leaving one out does not compile. */
export function describeTask(task: DetailedTask): string {
  return matchStatus(task, {
    working: (t) => t.statusMessage ?? "working",
    input_required: (t) => Object.keys(t.inputRequests).join(", "),
    completed: (t) => JSON.stringify(t.result),
    failed: (t) => JSON.stringify(t.error),
    cancelled: () => "cancelled",
  });
}

// The declarations carry the schema's types: each of these lines must be a type error.
// @ts-expect-error "done" is not a status
export const notAStatus: TaskStatus = "done";
// @ts-expect-error a 2025-11-25 Task needs its ttl
export const noTtl: Task = { taskId: "t", status: "working", createdAt: "", lastUpdatedAt: "" };
// @ts-expect-error the url mode needs its url
export const noUrl: McpServerElicitationRequestParams = { serverName: "s", threadId: "t", mode: "url", message: "m", elicitationId: "e" };
// @ts-expect-error every status needs its handler
export const missingHandler = (task: DetailedTask) => matchStatus(task, { working: () => 1 });

export async function run() {
  const ext = validateGetTaskResult(workingTask);
  const extInvalid = validateGetTaskResult(doneTask);
  if (ext.ok) describeTask(ext.value);
  let parseError = "none";
  try {
    parseGetTaskResult(doneTask);
  } catch (e) {
    if (e instanceof ValidationFailed) parseError = "ValidationFailed";
  }
  const tasks2025 = validateTask(task2025);
  const elicitation = validateMcpServerElicitationRequestParams(urlElicitation);
  const elicitationInvalid = validateMcpServerElicitationRequestParams(smsElicitation);

  const server = createTasksServer({ pollInterval: 5 });
  const methods: string[] = [];
  const send: TasksClientSend = async (request) => {
    if (!methods.includes(request.method)) methods.push(request.method);
    if (request.method !== "tools/call") return server.handle(request);
    // The tool: start a task, answer with it at once, finish the work later.
    const task = await server.createTask({});
    const job = String((request.params?.arguments as { job?: unknown } | undefined)?.job);
    void (async () => {
      await task.update("halfway");
      await task.complete({ content: [{ type: "text", text: \`done: \${job}\` }] });
    })();
    return { jsonrpc: "2.0", id: request.id, result: { ...task.createResult } };
  };
  // No notifications: the client learns the outcome through tasks/get, which the server's handle() answers.
  const client = createTasksClient({ send, minPollMs: 5 });
  let created = "none";
  const statuses: TaskStatus[] = [];
  const result = await client.callTool(
    { name: "convert", arguments: { job: "report.pdf" } },
    { onTaskCreated: (task) => (created = task.status), onUpdate: (task) => statuses.push(task.status) },
  );
  client.close();
  server.close();
  return {
    extValid: ext.ok,
    extInvalid: extInvalid.ok ? "accepted" : { path: extInvalid.errors[0]?.path, keyword: extInvalid.errors[0]?.keyword },
    parseError,
    tasks2025Invalid: tasks2025.ok ? "accepted" : tasks2025.errors[0]?.path,
    elicitationValid: elicitation.ok,
    elicitationInvalid: elicitationInvalid.ok ? "accepted" : elicitationInvalid.errors[0]?.path,
    roundTrip: { result, created, last: statuses[statuses.length - 1], methods },
  };
}
`;
  if (style.host === "esm") return code;
  // A CommonJS module under verbatimModuleSyntax exports with "export =", never with "export" on a declaration.
  return `${code.replace(/^export /gm, "")}
export = { run, describeTask, notAStatus, noTtl, noUrl, missingHandler };
`;
}

/** The JavaScript consumer: `app.mjs` of a project without a TypeScript build step. */
export function consumerJavaScript(base: string): string {
  return `import { createTasksClient, createTasksServer, parseGetTaskResult, validateGetTaskResult, ValidationFailed } from "${base}/ext-tasks-2026-05-22/index.js";
import { validateTask } from "${base}/tasks-2025-11-25/index.js";
import { validateMcpServerElicitationRequestParams } from "${base}/elicitation-codex/index.js";
${VALUES}
export async function run() {
  const ext = validateGetTaskResult(workingTask);
  const extInvalid = validateGetTaskResult(doneTask);
  let parseError = "none";
  try {
    parseGetTaskResult(doneTask);
  } catch (e) {
    if (e instanceof ValidationFailed) parseError = "ValidationFailed";
  }
  const tasks2025 = validateTask(task2025);
  const elicitation = validateMcpServerElicitationRequestParams(urlElicitation);
  const elicitationInvalid = validateMcpServerElicitationRequestParams(smsElicitation);

  const server = createTasksServer({ pollInterval: 5 });
  const methods = [];
  const send = async (request) => {
    if (!methods.includes(request.method)) methods.push(request.method);
    if (request.method !== "tools/call") return server.handle(request);
    const task = await server.createTask({});
    const job = String(request.params?.arguments?.job);
    void (async () => {
      await task.update("halfway");
      await task.complete({ content: [{ type: "text", text: \`done: \${job}\` }] });
    })();
    return { jsonrpc: "2.0", id: request.id, result: { ...task.createResult } };
  };
  // No notifications: the client learns the outcome through tasks/get, which the server's handle() answers.
  const client = createTasksClient({ send, minPollMs: 5 });
  let created = "none";
  const statuses = [];
  const result = await client.callTool(
    { name: "convert", arguments: { job: "report.pdf" } },
    { onTaskCreated: (task) => (created = task.status), onUpdate: (task) => statuses.push(task.status) },
  );
  client.close();
  server.close();
  return {
    extValid: ext.ok,
    extInvalid: extInvalid.ok ? "accepted" : { path: extInvalid.errors[0]?.path, keyword: extInvalid.errors[0]?.keyword },
    parseError,
    tasks2025Invalid: tasks2025.ok ? "accepted" : tasks2025.errors[0]?.path,
    elicitationValid: elicitation.ok,
    elicitationInvalid: elicitationInvalid.ok ? "accepted" : elicitationInvalid.errors[0]?.path,
    roundTrip: { result, created, last: statuses[statuses.length - 1], methods },
  };
}
`;
}

/** A plain-node script that runs a consumer module (an ES module, or CommonJS through its default export) and prints its summary as JSON. */
export function runnerScript(module: string, { commonJs = false }: { commonJs?: boolean } = {}): string {
  const load = commonJs ? `import app from "${module}";\nconst { run } = app;` : `import { run } from "${module}";`;
  return `${load}
console.log(JSON.stringify(await run()));
`;
}

/**
 * A program built only from a set's generated code and its runtime parts (http-server, http-client,
 * stdio, sqlite-store), as a project would write it; one file, the mode its first argument names:
 *
 * - `http-server DB`: an HTTP MCP server on 127.0.0.1 (a free port, printed as `listening PORT`) whose
 *   one tool runs as a task kept in the SQLite file DB;
 * - `http-client URL`: calls the tool over HTTP, waits for the task, prints `{ status, result }`;
 * - `stdio-server` / `stdio-client`: the same over stdio, the client spawning the server (this file);
 * - `restart-write DB` / `restart-read DB ID`: a task completed in one process is read back by the next.
 *
 * `set` is the import path of the ext-tasks-draft folder, with its module extension (`.js` or `.mjs`).
 */
export function runtimeApp(set: string, extension: ".js" | ".mjs"): string {
  // The runtime parts sit in the set's runtime/parts/ folder; index is the set's own.
  const from = (module: string) => `"${set}/${module === "index" ? "" : "runtime/parts/"}${module}${extension}"`;
  return `import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { nodeHttpHandler } from ${from("http-server")};
import { streamableHttpTransport } from ${from("http-client")};
import { serveStdio, stdioClientTransport } from ${from("stdio")};
import type { MethodHandler } from ${from("mcp-router")};
import { SqliteTaskStore } from ${from("sqlite-store")};
import { createTasksClient, createTasksServer, hasTasksExtension, type StoredTask, type TasksServer } from ${from("index")};

const VERSION = "2026-07-28";
const text = (value: string) => ({ content: [{ type: "text", text: value }] });

/** The one tool, "convert": a task that completes a moment later. */
function methods(tasks: TasksServer): { [method: string]: MethodHandler } {
  return {
    "tools/call": async (params, context) => {
      const file = String((params.arguments as { file?: unknown } | undefined)?.file);
      if (!hasTasksExtension(context)) return text(\`converted \${file} at once\`);
      const task = await tasks.createTask(context);
      setTimeout(() => void task.complete(text(\`converted \${file}\`)), 30);
      return task.createResult;
    },
  };
}

async function callConvert(client: ReturnType<typeof createTasksClient>): Promise<void> {
  let created = "none";
  const result = await client.callTool({ name: "convert", arguments: { file: "report.pdf" } }, { onTaskCreated: (task) => (created = task.status) });
  console.log(JSON.stringify({ created, result }));
}

const [mode, arg, arg2] = process.argv.slice(2);
if (mode === "http-server") {
  const tasks = createTasksServer({ store: new SqliteTaskStore<StoredTask>(String(arg)) });
  const server = createServer(nodeHttpHandler({ tasks, serverInfo: { name: "e2e", version: "1.0.0" }, methods: methods(tasks) }));
  server.listen(0, "127.0.0.1", () => console.log(\`listening \${(server.address() as { port: number }).port}\`));
} else if (mode === "http-client") {
  const client = createTasksClient({
    ...streamableHttpTransport({ url: String(arg), protocolVersion: VERSION }),
    meta: { "io.modelcontextprotocol/protocolVersion": VERSION },
    minPollMs: 10,
  });
  await callConvert(client);
  client.close();
} else if (mode === "stdio-server") {
  const tasks = createTasksServer();
  await serveStdio({ tasks, owner: "local", methods: methods(tasks) }).done;
  tasks.close();
} else if (mode === "stdio-client") {
  const transport = stdioClientTransport({ command: process.execPath, args: [fileURLToPath(import.meta.url), "stdio-server"] });
  const client = createTasksClient({ ...transport, minPollMs: 10 });
  await callConvert(client);
  client.close();
  await transport.close();
} else if (mode === "restart-write") {
  const store = new SqliteTaskStore<StoredTask>(String(arg));
  const tasks = createTasksServer({ store });
  const task = await tasks.createTask({ owner: "alice" });
  await task.complete(text("kept"));
  console.log(JSON.stringify({ taskId: task.taskId }));
  tasks.close();
  store.close();
} else if (mode === "restart-read") {
  const tasks = createTasksServer({ store: new SqliteTaskStore<StoredTask>(String(arg)) });
  const meta = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };
  const response = await tasks.handle({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: String(arg2), _meta: meta } }, { owner: "alice" });
  const task = response && "result" in response ? (response.result as { status?: unknown; result?: unknown }) : response;
  console.log(JSON.stringify(task && "status" in task ? { status: task.status, result: task.result } : task));
  tasks.close();
}
`;
}
