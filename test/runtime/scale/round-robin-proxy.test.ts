import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { INSTANCE_HEADER, startRoundRobinProxy, type RoundRobinProxy } from "../../support/round-robin-proxy.js";

/**
 * The test load balancer (test/support/round-robin-proxy.ts) the scale-out tests and the stores bench rely
 * on: if it did not spread requests, or buffered streams, or repeated a request that may have run, those
 * tests would prove nothing.
 */

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A backend answering `name` and the body it got; /stream sends two SSE events 300 ms apart; /die drops the connection. */
async function backend(name: string): Promise<{ origin: string; server: Server; hits: number }> {
  const state = { origin: "", server: undefined as unknown as Server, hits: 0 };
  state.server = createServer((req, res) => {
    state.hits++;
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (req.url === "/die") return req.socket.destroy();
      if (req.url === "/stream") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`data: first from ${name}\n\n`);
        setTimeout(() => res.end(`data: second\n\n`), 300);
        return;
      }
      res.writeHead(200, { "content-type": "text/plain", "x-backend": name });
      res.end(`${name}:${body}`);
    });
  });
  await new Promise<void>((resolve) => state.server.listen(0, "127.0.0.1", () => resolve()));
  state.origin = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  cleanup.push(() => new Promise<void>((resolve) => (state.server.closeAllConnections(), state.server.close(() => resolve()))));
  return state;
}

async function proxyFor(origins: string[]): Promise<RoundRobinProxy> {
  const proxy = await startRoundRobinProxy(origins);
  cleanup.push(() => proxy.close());
  return proxy;
}

/** A port nothing listens on: bind, note, close. */
async function deadOrigin(): Promise<string> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", () => resolve()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe("round-robin proxy", () => {
  it("sends each request to the next instance in turn, body and path intact", async () => {
    const backends = await Promise.all(["a", "b", "c"].map(backend));
    const proxy = await proxyFor(backends.map((b) => b.origin));
    const answers: string[] = [];
    const answeredBy: (string | null)[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${proxy.url}/mcp`, { method: "POST", body: `n${i}` });
      answers.push(await response.text());
      answeredBy.push(response.headers.get(INSTANCE_HEADER));
    }
    expect(answers).toEqual(["a:n0", "b:n1", "c:n2", "a:n3", "b:n4", "c:n5"]);
    expect(answeredBy).toEqual(["0", "1", "2", "0", "1", "2"]);
    expect(proxy.forwarded).toEqual([2, 2, 2]);
  });

  it("marks a refusing instance down and sends that very request to the next live one", async () => {
    const [a, c] = await Promise.all([backend("a"), backend("c")]);
    const proxy = await proxyFor([a.origin, await deadOrigin(), c.origin]);
    const down: number[] = [];
    proxy.onDown = (index) => down.push(index);
    const answers: string[] = [];
    for (let i = 0; i < 4; i++) answers.push(await (await fetch(`${proxy.url}/x`, { method: "POST", body: `${i}` })).text());
    expect(answers).toEqual(["a:0", "c:1", "a:2", "c:3"]);
    expect(down).toEqual([1]);
    expect(proxy.live).toEqual([true, false, true]);
  });

  it("answers 503 when every instance refuses", async () => {
    const proxy = await proxyFor([await deadOrigin(), await deadOrigin()]);
    expect((await fetch(`${proxy.url}/x`, { method: "POST", body: "{}" })).status).toBe(503);
    expect(proxy.live).toEqual([false, false]);
  });

  it("never repeats a request that reached an instance which then failed (502, the client decides)", async () => {
    const [a, b] = await Promise.all([backend("a"), backend("b")]);
    const proxy = await proxyFor([a.origin, b.origin]);
    const response = await fetch(`${proxy.url}/die`, { method: "POST", body: "{}" });
    expect(response.status).toBe(502);
    expect(a.hits + b.hits).toBe(1);
    expect(proxy.live).toEqual([true, true]);
  });

  it("pipes a stream through as it comes, without waiting for its end", async () => {
    const a = await backend("a");
    const proxy = await proxyFor([a.origin]);
    const response = await fetch(`${proxy.url}/stream`);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe("data: first from a\n\n");
    const firstAt = Date.now();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe("data: second\n\n");
    // The backend sends the second event 300 ms after the first: passed through, the first came that
    // long before the end; buffered, both would come together. (A gap, not a time since the request:
    // a loaded machine delays both ends of it alike.)
    expect(Date.now() - firstAt).toBeGreaterThan(150);
  });
});
