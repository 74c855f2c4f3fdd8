/**
 * An MCP server over Streamable HTTP, stateless protocol revision 2026-07-28, with the Tasks
 * extension (SEP-2663): the generated Tasks server (`generated/ext-tasks-draft/server.ts`) behind
 * the generated HTTP handler (`http-server.ts`, the set's `http-server` runtime part).
 *
 * The handler does the transport and the stateless envelope (Origin, body limit, headers,
 * `_meta`), `tasks/*` and `server/discover`; this file adds the application's own methods,
 * `tools/list` and `tools/call`, and starts `node:http` on it.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { nodeHttpHandler, STATELESS_PROTOCOL_VERSION } from "../../generated/ext-tasks-draft/runtime/parts/http-server.js";
import { validateDiscoverResult } from "../../generated/ext-tasks-draft/validators.js";
import { createTasksServer, JsonRpcError, ErrorCode, type TaskStore, type TasksServer } from "../../generated/ext-tasks-draft/server.js";
import { callTool, tools } from "./tools.js";
import { exampleInputRounds, getPrompt, PROMPT, roundTools } from "./input-rounds.js";
import { ownerFromBearer, type VerifyToken } from "./auth.js";

export const PROTOCOL_VERSION = STATELESS_PROTOCOL_VERSION;
const SERVER_INFO = { name: "mcp-tasks-gen-example", version: "0.1.0" };

export interface ExampleOptions {
  /** Where tasks live (default: in memory). */
  readonly store?: TaskStore;
  /** The key that seals `requestState` (default: MCP_REQUEST_STATE_KEY, else a random one per process). */
  readonly requestStateKey?: string;
  /** Logs unexpected errors (default: console.error). */
  readonly log?: (message: string, error?: unknown) => void;
  /** This instance's name, the holder of the leases on the tasks it runs (default: a random UUID). */
  readonly instanceId?: string;
  /**
   * How long a running task's lease lasts without renewal, in milliseconds (default: the server's, 15 s).
   * Renewals and the sweep for orphaned tasks run at a third of it, so a dead instance's tasks fail
   * between one and two leases after its last renewal.
   */
  readonly leaseDuration?: number;
  /**
   * Checks a bearer token and names its subject (auth.ts): each caller's tasks are then its
   * subject's, and a request without a valid token is 401. Default: none, the handler's default
   * owner (the unverified `Authorization` header; "anonymous", shared, without one), for local use.
   */
  readonly verifyToken?: VerifyToken;
}

export interface ExampleServer {
  readonly url: string;
  readonly http: Server;
  readonly tasks: TasksServer;
  close(): Promise<void>;
}

export interface StartOptions extends ExampleOptions {
  /** Default 0: any free port. */
  readonly port?: number;
  /** Default 127.0.0.1 (the example is for local use). */
  readonly host?: string;
}

/** Starts the HTTP server: POST /mcp. */
export async function startExampleServer(options: StartOptions = {}): Promise<ExampleServer> {
  const log = options.log ?? ((message, error) => console.error(`[ext-tasks-server] ${message}`, error ?? ""));
  const lease = options.leaseDuration;
  const tasks = createTasksServer({
    ...(options.store ? { store: options.store } : {}),
    ...(options.instanceId ? { instanceId: options.instanceId } : {}),
    ...(lease ? { leaseDuration: lease, leaseRenewInterval: Math.ceil(lease / 3), orphanSweepInterval: Math.ceil(lease / 3) } : {}),
    onError: (error) => log("internal error", error),
  });
  const rounds = exampleInputRounds(options.requestStateKey);
  const noArguments = { type: "object", properties: {} };
  const handler = nodeHttpHandler({
    tasks,
    serverInfo: SERVER_INFO,
    capabilities: { prompts: {} },
    // The default server/discover answer is checked as this set's DiscoverResult when the handler is made.
    validateDiscover: validateDiscoverResult,
    toolInputSchema: (name) => tools.find((tool) => tool.name === name)?.inputSchema,
    ...(options.verifyToken ? { owner: ownerFromBearer(options.verifyToken) } : {}),
    onError: (error) => log("internal error", error),
    methods: {
      "tools/list": () => ({
        tools: [
          ...tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, execution: { taskSupport: tool.taskSupport } })),
          ...roundTools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: noArguments, execution: { taskSupport: "forbidden" } })),
        ],
        ttlMs: 0,
        cacheScope: "public",
      }),
      "tools/call": rounds.handler("tools/call", (params, context, round) => {
        // `inputResponses` and `requestState` are the round's to read (input-rounds.ts).
        const { name, arguments: args = {} } = params;
        if (typeof name !== "string") throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid params: name must be a string");
        if (!isObject(args)) throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid params: arguments must be an object");
        const roundTool = roundTools.find((tool) => tool.name === name);
        if (roundTool) return roundTool.call(args, round, context);
        // A legacy 2025-11-25 `task` param is tolerated and ignored: the server alone decides whether to create a task.
        return callTool(name, { args, round, context, tasks, log });
      }),
      "prompts/list": () => ({ prompts: [PROMPT], ttlMs: 0, cacheScope: "public" }),
      "prompts/get": rounds.handler("prompts/get", (params, _context, round) => getPrompt(params, round)),
    },
  });
  const http = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { address, port } = http.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/mcp`,
    http,
    tasks,
    close: () =>
      new Promise<void>((resolve) => {
        // Ends open listen streams gracefully (their final response), then the connections once it is written.
        tasks.close();
        setImmediate(() => {
          http.closeAllConnections();
          http.close(() => resolve());
        });
      }),
  };
}

function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
