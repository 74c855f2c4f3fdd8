/**
 * Runtime part `sdk-server`: the set's 2025-11-25 Tasks server and task stores inside the official
 * TypeScript SDK (`@modelcontextprotocol/sdk` ^1.24, its one peer). Two ways in, for two kinds of app:
 *
 * - `mountTasksServer(sdkServer, tasks)`: an app on the SDK's low-level `Server` (or an `McpServer`'s
 *   `.server`) hands `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` to the generated server,
 *   which owns the task lifecycle, and forwards its status notifications to the connection. The app's
 *   `tools/call` handler starts tasks with `tasks.createTask(...)` and answers `handle.createResult`.
 * - `sdkTaskStore(store)`: an app that keeps the SDK's own task handling (`McpServer` with
 *   `experimental.tasks.registerToolTask`) but wants a generated store behind it (the `sqlite-store`
 *   part survives restarts): the SDK's `TaskStore` interface over a generated `TaskStore`.
 *
 * Tasks belong to the SDK session (`extra.sessionId`; "" on transports without sessions, such as
 * stdio, where the connection is the only caller) unless `owner` says otherwise. Sessions, SSE
 * streams and the standalone GET stream of 2025-11-25 are the SDK's; the tasks are the set's.
 */
import { isTerminal, type TaskStore as SdkTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  McpError,
  ResultSchema,
  type Request,
  type RequestId,
  type Result,
  type Task as SdkTask,
} from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "../protocol/json.js";
import {
  JsonRpcError,
  type JsonRpcResponse,
  type ServerToClientSend,
  type TaskPageOf,
  type TaskRecord,
  type TransportContext,
} from "../server/core.js";
import { writeTask, type StatusMachine } from "../server/task-write.js";

/** What of the set's `TasksServer` the mount uses. */
export interface MountableTasksServer {
  handle(message: unknown, transport?: TransportContext): Promise<JsonRpcResponse | undefined>;
  subscribe(listener: (notification: { readonly method: string }, owner: string) => void): () => void;
}

/** What an SDK request handler knows about its request (the part of the SDK's `RequestHandlerExtra` read here). */
export interface SdkRequestExtra {
  readonly sessionId?: string | undefined;
  readonly requestId: RequestId;
}

/** The SDK's handler context as the mount reads it: the request's id and session, its signal, and how to send the client a request tied to it. */
type SdkHandlerExtra = SdkRequestExtra & {
  readonly signal: AbortSignal;
  sendRequest(
    request: { method: string; params?: Record<string, unknown> },
    resultSchema: typeof ResultSchema,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<Result>;
};

/** The SDK's own request timeout, turned off: an input request waits for a person; the tasks/result request's signal ends it. */
const NO_TIMEOUT = 2_147_483_647;

/**
 * `TransportContext.sendRequest` through the SDK: the request goes out tied to the tasks/result
 * request (the SDK's Streamable HTTP transport writes it on that request's SSE stream); a JSON-RPC
 * error answer becomes the JsonRpcError the generated server records.
 */
function sdkSendRequest(extra: SdkHandlerExtra): ServerToClientSend {
  return async (request, { signal }) => {
    try {
      const result = await extra.sendRequest({ method: request.method, params: { ...request.params } }, ResultSchema, {
        ...(signal ? { signal: signal as AbortSignal } : {}),
        timeout: NO_TIMEOUT,
      });
      return result as JsonObject;
    } catch (error) {
      // Read by shape, not `instanceof`: an app may load a second copy of the SDK.
      const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
      const local = code === ErrorCode.ConnectionClosed || code === ErrorCode.RequestTimeout;
      if (typeof code === "number" && Number.isInteger(code) && !local) {
        throw new JsonRpcError(code, unprefixed(code, (error as Error).message), (error as { data?: unknown }).data);
      }
      throw error;
    }
  };
}

/** An McpError's message without the "MCP error <code>: " the SDK puts before it (once per McpError it went through). */
function unprefixed(code: number, message: string): string {
  const prefix = `MCP error ${code}: `;
  let text = message;
  while (text.startsWith(prefix)) text = text.slice(prefix.length);
  return text;
}

export interface MountOptions {
  /** Who a request's tasks belong to. Default: the SDK session id ("" without one). */
  readonly owner?: (extra: SdkRequestExtra) => string;
  /** Whose status notifications this connection receives. Default: its transport's session id ("" without one). */
  readonly connectionOwner?: () => string;
}

const TASK_REQUESTS = [
  GetTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  ListTasksRequestSchema,
  CancelTaskRequestSchema,
] as const;

/**
 * Answers the `tasks/*` requests of an SDK `Server` with the set's server, and sends each status change
 * of this connection's tasks as its status notification. A JSON-RPC error the set's server answers
 * reaches the client as it was: the same code, message and data. Returns the function that stops
 * forwarding notifications (the handlers stay until the SDK server closes).
 */
export function mountTasksServer(
  sdkServer: Server,
  tasks: MountableTasksServer,
  options: MountOptions = {},
): () => void {
  const owner = options.owner ?? ((extra: SdkRequestExtra) => extra.sessionId ?? "");
  const connectionOwner = options.connectionOwner ?? (() => sdkServer.transport?.sessionId ?? "");
  for (const schema of TASK_REQUESTS) {
    sdkServer.setRequestHandler(schema, async (request, extra) => {
      const message = { jsonrpc: "2.0", id: extra.requestId, method: request.method, params: request.params };
      // tasks/result delivers a task's input requests to the client, on its own response stream.
      const context =
        request.method === "tasks/result"
          ? { owner: owner(extra), signal: extra.signal, sendRequest: sdkSendRequest(extra) }
          : { owner: owner(extra) };
      const response = await tasks.handle(message, context);
      if (response === undefined) throw new McpError(ErrorCode.InternalError, `${request.method}: no answer`);
      // Not McpError, which puts "MCP error <code>: " before the message: the SDK answers any error
      // with a numeric `code` with that code, its message and its `data`.
      if ("error" in response) throw JsonRpcError.from(response.error);
      // The set's server validated its answer against the schema; the SDK checks it against its own.
      return response.result as never;
    });
  }
  return tasks.subscribe((notification, taskOwner) => {
    if (taskOwner !== connectionOwner()) return;
    sdkServer.notification(notification as Parameters<Server["notification"]>[0]).catch(() => {
      // The connection is gone: nobody is left to tell.
    });
  });
}

/** A stored task of a 2025-11-25 set (its `server.ts`'s `StoredTask`): the SDK's `Task` fields and the store's own. */
export interface SdkStoredTask extends TaskRecord {
  readonly status: SdkTask["status"];
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly ttl: number | null;
  readonly pollInterval?: number;
  readonly result?: JsonObject;
}

/** What of the set's `TaskStore` the bridge uses. */
export interface SdkBackingStore<Task extends SdkStoredTask> {
  create(task: Omit<Task, "taskId" | "version">): Promise<Task>;
  get(owner: string, taskId: string): Promise<Task | undefined>;
  compareAndSet(current: Task, next: Task): Promise<boolean>;
  list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPageOf<Task> | undefined>;
}

export interface SdkTaskStoreOptions<Task extends SdkStoredTask = SdkStoredTask> {
  /** Retention when the request asks for none, in milliseconds. Default one hour. */
  readonly defaultTtl?: number;
  /** Longest retention granted, in milliseconds; null grants unlimited. Default 24 hours. */
  readonly maxTtl?: number | null;
  /** Tasks per `tasks/list` page. Default 50. */
  readonly pageSize?: number;
  /** The clock, in epoch milliseconds (for tests). */
  readonly now?: () => number;
  /**
   * The set's status machine (`import * as status from "<set>/status.js"`, or its `isTerminalStatus` and
   * `canTransition`): every write the SDK makes is checked against it, as the generated server's are.
   * Default: the SDK's own rule (a terminal task never changes, any other move is allowed), which is
   * the 2025-11-25 machine.
   */
  readonly statusMachine?: StatusMachine<SdkTask["status"]>;
  /** Told each task the SDK created or changed, after it is stored: once per write. */
  readonly onChange?: (task: Task) => void;
}

/** The SDK's rule for its task statuses (its `isTerminal`): a terminal task never changes. */
const SDK_STATUS_MACHINE: StatusMachine<SdkTask["status"]> = {
  isTerminalStatus: isTerminal,
  canTransition: (from) => !isTerminal(from),
};

/** The task as the SDK's `Task` shows it. */
function sdkTask(task: SdkStoredTask): SdkTask {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttl,
    ...(task.pollInterval === undefined ? {} : { pollInterval: task.pollInterval }),
  };
}

/**
 * The SDK's `TaskStore` over a generated store: what the SDK writes goes through the store's
 * compare-and-set, so processes sharing a durable store never overwrite each other, and a terminal
 * task never changes (a write to one throws, as the SDK's own store does); with the set's status
 * machine (`statusMachine`) every move is checked against it, as the generated server's writes are.
 * A failed task keeps the result the SDK gives it (a tool result with `isError`), as the SDK's store does.
 */
export function sdkTaskStore<Task extends SdkStoredTask>(
  store: SdkBackingStore<Task>,
  options: SdkTaskStoreOptions<Task> = {},
): SdkTaskStore {
  const now = options.now ?? (() => Date.now());
  const defaultTtl = options.defaultTtl ?? 3_600_000;
  const maxTtl = options.maxTtl === undefined ? 86_400_000 : options.maxTtl;
  const pageSize = options.pageSize ?? 50;
  const machine = options.statusMachine ?? SDK_STATUS_MACHINE;
  const onChange = options.onChange;
  const ownerOf = (sessionId: string | undefined) => sessionId ?? "";

  async function found(taskId: string, sessionId: string | undefined): Promise<Task> {
    const task = await store.get(ownerOf(sessionId), taskId);
    if (!task) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    return task;
  }

  /** Applies `change` with the one compare-and-set write (server/task-write.ts) under the status machine. */
  async function write(taskId: string, sessionId: string | undefined, change: (task: Task) => Task): Promise<void> {
    const owner = ownerOf(sessionId);
    const written = await writeTask<Task>(
      {
        owner,
        taskId,
        read: () => store.get(owner, taskId),
        compareAndSet: (current, next) => store.compareAndSet(current, next),
        machine,
        refused: (before, proposed) =>
          new Error(
            machine.isTerminalStatus(before.status)
              ? `Cannot update task ${taskId}: it is already ${before.status}`
              : `Cannot update task ${taskId}: illegal transition from ${before.status} to ${proposed.status}`,
          ),
        now,
        ...(onChange ? { changed: onChange } : {}),
      },
      change,
    );
    if (!written) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
  }

  return {
    async createTask(taskParams, _requestId: RequestId, _request: Request, sessionId?: string): Promise<SdkTask> {
      const requested = taskParams.ttl === undefined ? defaultTtl : taskParams.ttl;
      const ttl = maxTtl === null ? requested : requested === null ? maxTtl : Math.min(requested, maxTtl);
      const at = now();
      const created = await store.create({
        owner: ownerOf(sessionId),
        status: "working",
        createdAt: new Date(at).toISOString(),
        lastUpdatedAt: new Date(at).toISOString(),
        ttl,
        ...(taskParams.pollInterval === undefined ? {} : { pollInterval: taskParams.pollInterval }),
        expiresAt: ttl === null ? null : at + ttl,
      } as Omit<Task, "taskId" | "version">);
      onChange?.(created);
      return sdkTask(created);
    },
    async getTask(taskId: string, sessionId?: string): Promise<SdkTask | null> {
      const task = await store.get(ownerOf(sessionId), taskId);
      return task ? sdkTask(task) : null;
    },
    async storeTaskResult(
      taskId: string,
      status: "completed" | "failed",
      result: Result,
      sessionId?: string,
    ): Promise<void> {
      await write(taskId, sessionId, (task) => ({ ...task, status, result: { ...result } }));
    },
    async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
      const task = await found(taskId, sessionId);
      if (task.result === undefined) throw new Error(`Task ${taskId} has no result stored`);
      return task.result as Result;
    },
    async updateTaskStatus(
      taskId: string,
      status: SdkTask["status"],
      statusMessage?: string,
      sessionId?: string,
    ): Promise<void> {
      await write(taskId, sessionId, (task) => {
        const { statusMessage: _previous, ...rest } = task;
        return { ...rest, status, ...(statusMessage === undefined ? {} : { statusMessage }) } as Task;
      });
    },
    async listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: SdkTask[]; nextCursor?: string }> {
      const page = await store.list(ownerOf(sessionId), cursor, pageSize);
      if (!page) throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${cursor}`);
      return {
        tasks: page.tasks.map(sdkTask),
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      };
    },
  };
}
