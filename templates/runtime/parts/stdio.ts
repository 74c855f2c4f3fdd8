/**
 * Runtime part `stdio`: MCP's stdio transport, newline-delimited JSON-RPC over a server process's
 * stdin and stdout, both ends.
 *
 * - `stdioClientTransport({ command, args })` spawns the server and is the set's Tasks client
 *   transport (`createTasksClient(transport)`): requests are matched to responses by id,
 *   notifications go to `onNotification` listeners, and when the process exits every pending
 *   request rejects (as does every later one).
 * - `serveStdio({ tasks, methods })` is the server loop: it reads messages from stdin, answers
 *   `tasks/*` with the set's Tasks server and the application's own methods with its handlers
 *   (`initialize`, `tools/call`, ...), writes the answers and the Tasks server's status
 *   notifications to stdout. Logs belong on stderr: stdout carries only messages.
 *
 * Needs Node's typings (`node:child_process`, `node:readline`), no package: a set gets this file
 * only when its config asks for it (`"runtime": ["stdio"]`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { isObject, ownValue, type JsonObject } from "../protocol/json.js";
import type { JsonRpcId } from "../server/core.js";
import { createRouter, type RouterOptions } from "./mcp-router.js";

// ---------------------------------------------------------------------------------------------
// Client

export interface StdioClientOptions {
  /** The server's executable (`node`, `npx`, ...). */
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** The server's environment (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /** Where the server's stderr goes (default "inherit": its logs show with the client's). */
  readonly stderr?: "inherit" | "ignore";
}

/** A JSON-RPC request as the generated clients send it. */
export interface StdioRequest {
  readonly jsonrpc: "2.0";
  readonly id: string | number;
  readonly method: string;
  readonly params?: { readonly [key: string]: unknown };
}

/** The parts of `AbortSignal` the transport uses. */
export interface StdioSignal {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

export interface StdioClientTransport {
  /** The generated client's `send`: headers are not used over stdio. */
  readonly send: (
    request: StdioRequest,
    headers: unknown,
    options: { readonly signal: StdioSignal },
  ) => Promise<unknown>;
  /** The generated client's `onNotification`. */
  readonly onNotification: (listener: (notification: unknown) => void) => () => void;
  /** Sends a notification to the server. */
  notify(method: string, params?: JsonObject): void;
  /** Closes the server's stdin and waits for it to exit (killing it after `graceMs`, default 2000). */
  close(graceMs?: number): Promise<void>;
  /** The server process. */
  readonly process: ChildProcess;
}

/** Thrown for requests pending when the server process exits, and for every request after. */
export class StdioClosedError extends Error {
  override readonly name = "StdioClosedError";
}

export function stdioClientTransport(options: StdioClientOptions): StdioClientTransport {
  const child = spawn(options.command, [...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["pipe", "pipe", options.stderr ?? "inherit"],
  });
  const pending = new Map<JsonRpcId, { resolve: (response: unknown) => void; reject: (error: unknown) => void }>();
  const listeners = new Set<(notification: unknown) => void>();
  let closed: StdioClosedError | undefined;
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));

  const shutDown = (error: StdioClosedError) => {
    closed ??= error;
    for (const request of pending.values()) request.reject(closed);
    pending.clear();
  };
  child.once("error", (error) => shutDown(new StdioClosedError(`cannot run ${options.command}: ${error.message}`)));
  child.once("exit", (code, signal) =>
    shutDown(new StdioClosedError(`the server process exited (${signal ?? `code ${code}`})`)),
  );
  // A server that stops reading makes writes fail; the exit above says why.
  child.stdin!.on("error", () => {});

  readMessages(child.stdout!, (message) => {
    if (!isObject(message)) return;
    const id = ownValue(message, "id");
    if (typeof ownValue(message, "method") === "string") {
      if (id === undefined) for (const listener of listeners) listener(message);
      // Requests from the server (sampling, elicitation...) have no handler here: say so.
      else write(child.stdin!, { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
      return;
    }
    if (typeof id !== "string" && typeof id !== "number") return;
    const request = pending.get(id);
    pending.delete(id);
    request?.resolve(message);
  });

  return {
    send(request, _headers, { signal }) {
      if (closed) return Promise.reject(closed);
      if (pending.has(request.id))
        return Promise.reject(new Error(`a request with id ${JSON.stringify(request.id)} is already pending`));
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          pending.delete(request.id);
          reject(signal.reason);
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        const settle =
          <T,>(then: (value: T) => void) =>
          (value: T) => {
            signal.removeEventListener("abort", onAbort);
            then(value);
          };
        pending.set(request.id, { resolve: settle(resolve), reject: settle(reject) });
        write(child.stdin!, request);
      });
    },
    onNotification(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify(method, params) {
      if (!closed) write(child.stdin!, { jsonrpc: "2.0", method, ...(params ? { params } : {}) });
    },
    async close(graceMs = 2000) {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill(), graceMs);
      await exited;
      clearTimeout(timer);
    },
    process: child,
  };
}

// ---------------------------------------------------------------------------------------------
// Server

/** What the loop needs of the set's Tasks server (`createTasksServer(...)` has it). */
export interface StdioTasksServer {
  handle: RouterOptions["tasks"]["handle"];
  /** Status notifications of the server's tasks, with their owner. */
  subscribe?(listener: (notification: object, owner: string) => void): () => void;
}

export interface StdioServerOptions extends Omit<RouterOptions, "tasks"> {
  readonly tasks: StdioTasksServer;
  /** The owner of every request: a stdio server serves one client. Default "". */
  readonly owner?: string;
  /** Default `process.stdin`. */
  readonly input?: Readable;
  /** Default `process.stdout`. */
  readonly output?: Writable;
}

export interface StdioServer {
  /** Resolves when the input ends (the client closed stdin) and every answer is written. */
  readonly done: Promise<void>;
  /** Sends a notification to the client. */
  notify(method: string, params?: JsonObject): void;
}

/** Serves the set's Tasks server and the application's methods on stdin/stdout. */
export function serveStdio(options: StdioServerOptions): StdioServer {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const owner = options.owner ?? "";
  const route = createRouter(options);
  const answers = new Set<Promise<void>>();
  // A client that went away makes writes fail (EPIPE): that is for onError, not a crash of the server.
  output.on("error", (error) => options.onError?.(error));
  const unsubscribe = options.tasks.subscribe?.((notification, taskOwner) => {
    if (taskOwner === owner) write(output, notification);
  });

  const ended = readMessages(
    input,
    (message) => {
      const answer = route(message, { owner }).then((response) => {
        if (response) write(output, response);
      });
      answers.add(answer);
      void answer.finally(() => answers.delete(answer));
    },
    () =>
      write(output, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: a line is not JSON" } }),
  );

  return {
    done: ended.then(async () => {
      await Promise.all(answers);
      unsubscribe?.();
    }),
    notify: (method, params) => write(output, { jsonrpc: "2.0", method, ...(params ? { params } : {}) }),
  };
}

// ---------------------------------------------------------------------------------------------
// Framing

/** Calls `onMessage` with each line's JSON (blank lines skipped); resolves when the stream ends. */
function readMessages(
  stream: Readable,
  onMessage: (message: unknown) => void,
  onParseError: () => void = () => {},
): Promise<void> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return onParseError();
    }
    onMessage(message);
  });
  return new Promise((resolve) => lines.once("close", () => resolve()));
}

/** One message, one line: JSON.stringify never writes a raw newline. */
function write(stream: Writable, message: unknown): void {
  if (!stream.writable) return;
  stream.write(`${JSON.stringify(message)}\n`);
}
