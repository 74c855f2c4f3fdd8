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
 * A line is read up to `maxLineBytes` (16 MiB by default): the client ends a server that sends a
 * longer one (StdioLineLimitError to every pending request), the server answers it -32700 and reads on
 * after its end. Either way the line is never held whole.
 *
 * Needs Node's typings (`node:child_process`, `node:stream`), no package: a set gets this file
 * only when its config asks for it (`"runtime": ["stdio"]`).
 */
import { spawn, type ChildProcess } from "node:child_process";
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
  /** The longest line (one message) read from the server (default 16 MiB); a longer one ends the connection with StdioLineLimitError. */
  readonly maxLineBytes?: number;
}

/** Default of `maxLineBytes`, both ends. */
export const STDIO_MAX_LINE_BYTES = 16 * 1024 * 1024;

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
  override readonly name: string = "StdioClosedError";
}

/**
 * The server sent a line longer than `maxLineBytes`: the client stopped reading, ended the server
 * process, and rejects every pending and later request with this (a StdioClosedError).
 */
export class StdioLineLimitError extends StdioClosedError {
  override readonly name: string = "StdioLineLimitError";
  constructor(readonly maxLineBytes: number) {
    super(`the server sent a line longer than maxLineBytes (${maxLineBytes} bytes); the connection was ended`);
  }
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

  const maxLineBytes = options.maxLineBytes ?? STDIO_MAX_LINE_BYTES;
  readMessages(
    child.stdout!,
    (message) => {
      if (!isObject(message)) return;
      const id = ownValue(message, "id");
      if (typeof ownValue(message, "method") === "string") {
        if (id === undefined) for (const listener of listeners) listener(message);
        // Requests from the server (sampling, elicitation...) have no handler here: say so.
        else
          write(child.stdin!, {
            jsonrpc: "2.0",
            id,
            error: { code: -32601, message: "Method not found" },
          });
        return;
      }
      if (typeof id !== "string" && typeof id !== "number") return;
      const request = pending.get(id);
      pending.delete(id);
      request?.resolve(message);
    },
    {
      maxLineBytes,
      // The framing is lost with a line this long: the connection ends.
      onTooLong: () => {
        shutDown(new StdioLineLimitError(maxLineBytes));
        child.stdin!.end();
        child.kill();
        return false;
      },
    },
  );

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
  /** The longest line (one message) read from the client (default 16 MiB); a longer one is answered -32700 and skipped. */
  readonly maxLineBytes?: number;
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

  const maxLineBytes = options.maxLineBytes ?? STDIO_MAX_LINE_BYTES;
  const ended = readMessages(
    input,
    (message) => {
      const answer = route(message, { owner }).then((response) => {
        if (response) write(output, response);
      });
      answers.add(answer);
      void answer.finally(() => answers.delete(answer));
    },
    {
      maxLineBytes,
      onParseError: () =>
        write(output, {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32700, message: "Parse error: a line is not JSON" },
        }),
      onTooLong: () => {
        const message = `Parse error: a line is longer than maxLineBytes (${maxLineBytes} bytes)`;
        write(output, {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32700, message },
        });
        return true;
      },
    },
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

/** How `readMessages` treats lines that are not messages. */
interface LineOptions {
  readonly maxLineBytes: number;
  readonly onParseError?: () => void;
  /** A line passed `maxLineBytes`: true skips to its end and reads on, false stops reading. */
  readonly onTooLong: () => boolean;
}

/**
 * Calls `onMessage` with each line's JSON (blank lines skipped); resolves when the stream ends or
 * reading stops. Lines are cut from the bytes as they arrive, so a line is held only up to
 * `maxLineBytes` and each byte is looked at once.
 */
function readMessages(stream: Readable, onMessage: (message: unknown) => void, options: LineOptions): Promise<void> {
  const { maxLineBytes, onParseError = () => {}, onTooLong } = options;
  /** The pieces of the line not ended yet, and their length. */
  let pieces: Buffer[] = [];
  let pending = 0;
  /** The rest of a line too long is dropped up to its end. */
  let skipping = false;
  let stopped = false;
  let finish = () => {};
  const ended = new Promise<void>((resolve) => (finish = resolve));

  /** A line passed the limit; `ended` when its end is in hand already (nothing left to skip). */
  const tooLong = (ended: boolean) => {
    pieces = [];
    pending = 0;
    if (!onTooLong()) stop();
    else if (!ended) skipping = true;
  };
  const stop = () => {
    stopped = true;
    stream.off("data", onData);
    stream.destroy();
    finish();
  };
  const onLine = (bytes: Buffer) => {
    const line = bytes.toString("utf8");
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return onParseError();
    }
    onMessage(message);
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    let start = 0;
    for (let end = bytes.indexOf(0x0a); end >= 0 && !stopped; end = bytes.indexOf(0x0a, start)) {
      if (skipping) skipping = false;
      else if (pending + end - start > maxLineBytes) tooLong(true);
      else {
        const line =
          pieces.length === 0 ? bytes.subarray(start, end) : Buffer.concat([...pieces, bytes.subarray(start, end)]);
        pieces = [];
        pending = 0;
        onLine(line);
      }
      start = end + 1;
    }
    if (stopped || skipping || start >= bytes.length) return;
    pending += bytes.length - start;
    if (pending > maxLineBytes) tooLong(false);
    else pieces.push(bytes.subarray(start));
  };
  stream.on("data", onData);
  stream.once("end", () => finish());
  stream.once("close", () => finish());
  return ended;
}

/** One message, one line: JSON.stringify never writes a raw newline. */
function write(stream: Writable, message: unknown): void {
  if (!stream.writable) return;
  stream.write(`${JSON.stringify(message)}\n`);
}
