/**
 * An MCP server over Streamable HTTP, stateless protocol revision 2026-07-28, with the Tasks
 * extension (SEP-2663) from `generated/ext-tasks-draft/server.ts`.
 *
 * Stateless means: no `initialize`, no session; every POST /mcp carries one JSON-RPC request
 * whose `_meta` says who the client is and what it can do, and the answer is one JSON body.
 * This file is the transport and the MCP methods around tasks (`server/discover`, `tools/list`,
 * `tools/call`); everything about tasks themselves is the generated server's.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createTasksServer,
  ErrorCode,
  headerValue,
  JsonRpcError,
  requestContext,
  TASK_METHODS,
  TASKS_EXTENSION,
  type JsonRpcId,
  type JsonRpcResponse,
  type TaskStore,
  type TasksServer,
} from "../../generated/ext-tasks-draft/server.js";
import { callTool, tools } from "./tools.js";

export const PROTOCOL_VERSION = "2026-07-28";
const SERVER_INFO = { name: "mcp-tasks-gen-example", version: "0.1.0" };
const MAX_BODY_BYTES = 1024 * 1024;

/** The -32022 error for an unsupported protocol revision. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

type JsonObject = { [key: string]: unknown };

export interface McpAnswer {
  /** The HTTP status. */
  readonly status: number;
  /** The JSON-RPC response; absent for notifications (202). */
  readonly body?: JsonRpcResponse;
}

export interface McpHandlerOptions {
  /** Where tasks live (default: in memory). */
  readonly store?: TaskStore;
  /** Logs unexpected errors (default: console.error). */
  readonly log?: (message: string, error?: unknown) => void;
}

export interface McpHandler {
  /** Answers one parsed request body with its HTTP headers. */
  handle(body: unknown, headers: IncomingHttpHeaders): Promise<McpAnswer>;
  readonly tasks: TasksServer;
}

/** The MCP request handler, independent of the HTTP server (tests drive it directly). */
export function createMcpHandler(options: McpHandlerOptions = {}): McpHandler {
  const log = options.log ?? ((message, error) => console.error(`[ext-tasks-server] ${message}`, error ?? ""));
  const tasks = createTasksServer({
    ...(options.store ? { store: options.store } : {}),
    onError: (error) => log("internal error", error),
  });

  async function handle(body: unknown, headers: IncomingHttpHeaders): Promise<McpAnswer> {
    if (!isObject(body)) return failure(null, ErrorCode.InvalidRequest, "Invalid request: one JSON-RPC request object per POST");
    const id = isRequestId(body.id) ? body.id : null;
    const method = body.method;
    if (body.jsonrpc !== "2.0" || typeof method !== "string") return failure(id, ErrorCode.InvalidRequest, "Invalid request");
    if (!Object.hasOwn(body, "id")) return { status: 202 }; // a notification: nothing to answer
    if (id === null) return failure(null, ErrorCode.InvalidRequest, "Invalid request: id must be a string or an integer");

    const params = body.params === undefined ? {} : body.params;
    if (!isObject(params)) return failure(id, ErrorCode.InvalidParams, "Invalid params: params must be an object");
    const rejected = checkEnvelope(method, params, headers);
    if (rejected) return failure(id, rejected.code, rejected.message, rejected.data);

    const transport = { owner: ownerOf(headers), headers };
    try {
      if (method === "server/discover") return success(id, discover());
      if (method === "tools/list") return success(id, { resultType: "complete", tools: tools.map(describeTool), ttlMs: 0, cacheScope: "public" });
      if (method === "tools/call") return success(id, await toolsCall(params, transport));
      if ((TASK_METHODS as readonly string[]).includes(method) || method.startsWith("tasks/")) {
        const answer = (await tasks.handle(body, transport))!;
        return { status: "error" in answer ? httpStatus(answer.error.code) : 200, body: answer };
      }
      return failure(id, ErrorCode.MethodNotFound, `Method not found: ${method.slice(0, 100)}`);
    } catch (error) {
      if (error instanceof JsonRpcError) return failure(id, error.code, error.message, error.data);
      log(`${method} failed`, error);
      return failure(id, ErrorCode.InternalError, "Internal error");
    }
  }

  async function toolsCall(params: JsonObject, transport: { owner: string; headers: IncomingHttpHeaders }): Promise<JsonObject> {
    const { name, arguments: args = {}, inputResponses = {} } = params;
    if (typeof name !== "string") throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid params: name must be a string");
    if (!isObject(args)) throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid params: arguments must be an object");
    if (!isObject(inputResponses)) throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid params: inputResponses must be an object");
    // A legacy 2025-11-25 `task` param is tolerated and ignored: the server alone decides whether to create a task.
    return callTool(name, { args, inputResponses, context: requestContext(params, transport), tasks, log });
  }

  return { handle, tasks };
}

/**
 * The stateless envelope rules (SEP-2575, SEP-2243): the protocol version in the header and in
 * `_meta`, the client capabilities in `_meta`, and the routing headers `Mcp-Method` and (for
 * tools/call) `Mcp-Name`. Task methods check their own `Mcp-Name` in the generated server.
 */
function checkEnvelope(method: string, params: JsonObject, headers: IncomingHttpHeaders): { code: number; message: string; data?: unknown } | undefined {
  const version = headerValue(headers, "mcp-protocol-version");
  if (version === undefined) return { code: ErrorCode.HeaderMismatch, message: "Missing MCP-Protocol-Version header" };
  if (version !== PROTOCOL_VERSION) {
    return { code: UNSUPPORTED_PROTOCOL_VERSION, message: `Unsupported protocol version: ${version.slice(0, 40)}`, data: { requested: version, supported: [PROTOCOL_VERSION] } };
  }
  const mcpMethod = headerValue(headers, "mcp-method");
  if (mcpMethod !== method) return { code: ErrorCode.HeaderMismatch, message: mcpMethod === undefined ? "Missing Mcp-Method header" : "Mcp-Method header does not match the request method" };
  if (method === "tools/call") {
    const name = headerValue(headers, "mcp-name");
    if (name === undefined) return { code: ErrorCode.HeaderMismatch, message: "Missing Mcp-Name header (it must carry params.name)" };
    if (name !== params.name) return { code: ErrorCode.HeaderMismatch, message: "Mcp-Name header does not match params.name" };
  }
  const meta = params._meta;
  if (!isObject(meta)) return { code: ErrorCode.InvalidParams, message: "Invalid params: every request carries _meta" };
  if (meta["io.modelcontextprotocol/protocolVersion"] !== version) {
    return { code: ErrorCode.HeaderMismatch, message: "MCP-Protocol-Version header does not match _meta protocolVersion" };
  }
  if (!isObject(meta["io.modelcontextprotocol/clientCapabilities"])) {
    return { code: ErrorCode.InvalidParams, message: "Invalid params: _meta must carry io.modelcontextprotocol/clientCapabilities" };
  }
  return undefined;
}

function discover(): JsonObject {
  return {
    resultType: "complete",
    supportedVersions: [PROTOCOL_VERSION],
    capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
    ttlMs: 0,
    cacheScope: "public",
    _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
  };
}

function describeTool(tool: (typeof tools)[number]): JsonObject {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, execution: { taskSupport: tool.taskSupport } };
}

/**
 * Who is asking. There is no authentication in this example: a bearer token, when sent, is the
 * identity (hashed, so the token itself is not kept); everyone else shares "anonymous". A real
 * server takes the owner from its authorization layer. Tasks are visible to their owner only.
 */
function ownerOf(headers: IncomingHttpHeaders): string {
  const authorization = headerValue(headers, "authorization");
  return authorization ? `token:${createHash("sha256").update(authorization).digest("hex")}` : "anonymous";
}

/** HTTP status of a JSON-RPC error (SEP-2575: request errors are 400, unknown methods 404). */
function httpStatus(code: number): number {
  if (code === ErrorCode.MethodNotFound) return 404;
  if (code === ErrorCode.InternalError) return 500;
  return 400;
}

function success(id: JsonRpcId, result: JsonObject): McpAnswer {
  return { status: 200, body: { jsonrpc: "2.0", id, result } };
}

function failure(id: JsonRpcId | null, code: number, message: string, data?: unknown): McpAnswer {
  return { status: httpStatus(code), body: { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } } };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface ExampleServer {
  readonly url: string;
  readonly http: Server;
  readonly handler: McpHandler;
  close(): Promise<void>;
}

export interface StartOptions extends McpHandlerOptions {
  /** Default 0: any free port. */
  readonly port?: number;
  /** Default 127.0.0.1 (the example is for local use). */
  readonly host?: string;
}

/** Starts the HTTP server: POST /mcp. */
export async function startExampleServer(options: StartOptions = {}): Promise<ExampleServer> {
  const handler = createMcpHandler(options);
  const http = createServer((request, response) => {
    serveHttp(handler, request, response).catch((error) => {
      console.error("[ext-tasks-server] HTTP error", error);
      if (!response.headersSent) response.writeHead(500).end();
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { address, port } = http.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/mcp`,
    http,
    handler,
    close: () =>
      new Promise<void>((resolve) => {
        handler.tasks.close();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

async function serveHttp(handler: McpHandler, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = new URL(request.url ?? "/", "http://localhost").pathname;
  if (path !== "/mcp") return void response.writeHead(404).end();
  if (request.method !== "POST") return void response.writeHead(405, { allow: "POST" }).end();
  // Browsers on other sites must not reach a local server (DNS rebinding).
  const origin = request.headers.origin;
  if (origin !== undefined && !/^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(origin)) {
    return void response.writeHead(403).end();
  }

  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return void response.writeHead(413, { connection: "close" }).end();
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return send(response, failure(null, ErrorCode.ParseError, "Parse error: the body is not JSON"));
  }
  send(response, await handler.handle(body, request.headers));
}

function send(response: ServerResponse, answer: McpAnswer): void {
  if (answer.body === undefined) return void response.writeHead(answer.status).end();
  const json = JSON.stringify(answer.body);
  response.writeHead(answer.status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) }).end(json);
}
