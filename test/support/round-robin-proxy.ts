import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A round-robin HTTP proxy on loopback, the load balancer of the scale-out tests and the stores bench
 * (README, Scaling out): each request goes to the next live instance, in turn. A refused connection marks
 * that instance down and the request moves on to the next live one; that retry is safe because a refused
 * connection carried nothing. Any other upstream failure (a reset after the request went out, e.g. an
 * instance killed mid-request) answers 502: only the client knows whether its request is safe to repeat.
 * Responses, SSE streams included, are piped through as they arrive, never buffered; each carries
 * INSTANCE_HEADER, the index of the instance that answered.
 */
export interface RoundRobinProxy {
  /** The proxy's base URL, e.g. http://127.0.0.1:PORT (append the instances' path, /mcp). */
  readonly url: string;
  /** Requests forwarded to each instance (index as given), for tests that check the spread. */
  readonly forwarded: readonly number[];
  /** Which instances are still live. */
  readonly live: readonly boolean[];
  /** Called once when an instance is marked down. */
  onDown?: (index: number, target: string) => void;
  close(): Promise<void>;
}

/** The response header naming the instance (its index in `targets`) that answered. */
export const INSTANCE_HEADER = "x-proxy-instance";

/** `targets`: the instances' origins (http://127.0.0.1:PORT); the request path is kept as sent. */
export async function startRoundRobinProxy(targets: readonly string[]): Promise<RoundRobinProxy> {
  if (targets.length === 0) throw new Error("startRoundRobinProxy: no targets");
  const upstreams = targets.map((t) => new URL(t));
  const live = upstreams.map(() => true);
  const forwarded = upstreams.map(() => 0);
  // Keep-alive: the bench measures the instances, not TCP handshakes through the proxy.
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;

  /** The next live instance after the last one used, or undefined when every instance is down. */
  const pick = (): number | undefined => {
    for (let i = 0; i < upstreams.length; i++) {
      const index = (next + i) % upstreams.length;
      if (live[index]) {
        next = index + 1;
        return index;
      }
    }
    return undefined;
  };

  const proxy: RoundRobinProxy = {
    url: "",
    forwarded,
    live,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const index = pick();
    if (index === undefined) return fail(res, 503, "no live instance");
    const target = upstreams[index]!;
    forwarded[index]!++;
    const upstream = httpRequest(
      { agent, host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        // Which instance answered: tests use it to know where a task was created.
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, { ...answer.headers, [INSTANCE_HEADER]: String(index) });
        // Stream-friendly: headers out now, every chunk forwarded as it comes (SSE).
        res.flushHeaders();
        answer.pipe(res);
        answer.once("error", () => res.destroy());
        res.once("close", () => answer.destroy());
      },
    );
    upstream.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED" && !res.headersSent) {
        if (live[index]) {
          live[index] = false;
          proxy.onDown?.(index, target.origin);
        }
        return forward(req, res, body);
      }
      if (!res.headersSent) fail(res, 502, `instance ${target.origin}: ${error.code ?? error.message}`);
      else res.destroy();
    });
    // The client went away: stop the upstream request too (an abandoned SSE stream must not linger).
    res.once("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  };

  const server: Server = createServer((req, res) => {
    // Request bodies are JSON-RPC messages (small): read whole, so a refused attempt can be sent again.
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("end", () => forward(req, res, Buffer.concat(chunks)));
    req.once("error", () => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  (proxy as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

function fail(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "text/plain" });
  res.end(`round-robin proxy: ${message}\n`);
}
