/**
 * Raw HTTP for the hostile `http-server` tests: requests written byte for byte on a `node:net`
 * socket (an attacker does not use a well-behaved client), a well-behaved ping beside them, and
 * the server's open connections and this process's descriptors, to show they are released.
 */
import { readdirSync } from "node:fs";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";

export const V = "2026-07-28";
export const META = {
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

/** The headers a conforming client sends for a method (Content-Type, Accept, the routing headers). */
export function validHeaders(method: string, name?: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": V,
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name }),
  };
}

/** A request's body as a conforming client writes it (id null: a notification). */
export function rpcBody(method: string, params: Record<string, unknown> = {}, id: number | null = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", ...(id === null ? {} : { id }), method, params: { _meta: META, ...params } });
}

export interface Served {
  readonly port: number;
  readonly url: string;
  readonly http: Server;
  /** The server's open connections now. */
  connections(): Promise<number>;
  close(): Promise<void>;
}

export async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void, host = "127.0.0.1"): Promise<Served> {
  const http = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, host, () => resolve()));
  const { port } = http.address() as AddressInfo;
  return {
    port,
    url: `http://${host}:${port}/mcp`,
    http,
    connections: () => new Promise((resolve, reject) => http.getConnections((error, count) => (error ? reject(error) : resolve(count)))),
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Whether the server closed the connection after answering (within `closeWithinMs`). */
  readonly closed: boolean;
  /** When the answer's last byte arrived, in ms since the request's first byte was written. */
  readonly ms: number;
  /** When the answer's last byte arrived (`performance.now()`). */
  readonly at: number;
}

/** The text of an HTTP/1.1 request; `Content-Length` from the body unless the headers set it. */
export function httpText(headers: Record<string, string | undefined>, body = "", { method = "POST", path = "/mcp", version = "1.1" } = {}): string {
  const all: Record<string, string | undefined> = { host: "localhost", "content-length": String(Buffer.byteLength(body)), ...headers };
  const lines = Object.entries(all)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${path} HTTP/${version}\r\n${lines.join("")}\r\n${body}`;
}

/**
 * Writes `parts` on a fresh connection (`pauseMs` between them; the last part is never followed by
 * more, so a short body stays short) and reads one answer.
 */
export function raw(port: number, parts: readonly string[], { pauseMs = 0, closeWithinMs = 1000, giveUpMs = 20_000 } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, "127.0.0.1");
    const started = performance.now();
    let received = Buffer.alloc(0);
    let answer: Omit<RawAnswer, "closed"> | undefined;
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(giveUp);
      socket.destroy();
      if (answer) resolve({ ...answer, closed });
      else reject(new Error(`no complete answer; received ${JSON.stringify(received.toString("latin1").slice(0, 300))}`));
    };
    const giveUp = setTimeout(() => finish(false), giveUpMs);
    socket.on("error", () => finish(true));
    socket.on("close", () => finish(true));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (answer) return;
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) return;
      const [statusLine, ...headerLines] = received.subarray(0, end).toString("latin1").split("\r\n");
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
      const length = Number(headers["content-length"] ?? 0);
      if (received.length - end - 4 < length) return;
      answer = {
        status: Number(statusLine!.split(" ")[1]),
        headers,
        body: received.subarray(end + 4, end + 4 + length).toString("utf8"),
        ms: performance.now() - started,
        at: performance.now(),
      };
      setTimeout(() => finish(false), closeWithinMs);
    });
    void (async () => {
      for (const [index, part] of parts.entries()) {
        if (index > 0 && pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
        if (socket.destroyed) return;
        socket.write(part);
      }
    })();
  });
}

/** A well-behaved `ping` on its own connection: the status and how long it took (ms). */
export function ping(port: number): Promise<{ status: number; ms: number; done: number }> {
  const body = rpcBody("ping");
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", agent: false, headers: { ...validHeaders("ping"), "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode!, ms: performance.now() - started, done: performance.now() }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** This process's open file descriptors (Linux), or undefined where /proc is absent. */
export function openDescriptors(): number | undefined {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return undefined;
  }
}

/** Resolves once `read()` is `expected`, or rejects after `timeoutMs` with the last value. */
export async function until<T>(read: () => Promise<T> | T, expected: T, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last: T = await read();
  while (last !== expected) {
    if (performance.now() > deadline) throw new Error(`still ${String(last)}, expected ${String(expected)}`);
    await new Promise((r) => setTimeout(r, 20));
    last = await read();
  }
}
