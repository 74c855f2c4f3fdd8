import { afterEach, describe, expect, it } from "vitest";
import { streamableHttpTransport, type StreamableHttpTransport } from "../../../generated/tasks-2025-11-25/runtime/parts/http-client.js";
import { closeServersAfterEach, failOnUnhandled, json, pause, serve, sse, until, type Handler } from "./client-peers.js";

/**
 * The `http-client` part's reconnects against servers that push them: the server's `retry:` is
 * clamped into 100 ms..60 s (a value no timer takes is no delay of 1 ms), each failure in a row
 * doubles the delay, and the count of failures is forgiven only by a stream that stayed open
 * `reconnect.healthyAfterMs`: a server that sends events and hangs up at once cannot keep the
 * client reconnecting. Counts, not timings, are asserted.
 */

closeServersAfterEach();
failOnUnhandled();

let transport: StreamableHttpTransport | undefined;
afterEach(async () => {
  await transport?.close();
  transport = undefined;
});

const SESSION = "hostile-session";

/** Answers the handshake, DELETE and any request; GET streams go to `onGet`. */
const lifecycle =
  (onGet: Handler): Handler =>
  (seen, response, request) => {
    if (seen.httpMethod === "GET") return onGet(seen, response, request);
    if (seen.httpMethod === "DELETE") return void response.writeHead(200).end();
    const method = seen.body?.method;
    if (method === "initialize") {
      const result = { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "hostile", version: "1" } };
      return json(response, { jsonrpc: "2.0", id: seen.body!.id, result }, { "mcp-session-id": SESSION });
    }
    if (seen.body?.id === undefined) return void response.writeHead(202).end();
    json(response, { jsonrpc: "2.0", id: seen.body.id, result: {} });
  };

/** A notification: a real message on the stream, not only a priming event. */
const message = `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } })}\n\n`;

const begin = async (url: string, reconnect?: Parameters<typeof streamableHttpTransport>[0]["reconnect"]) => {
  const errors: unknown[] = [];
  transport = streamableHttpTransport({ url, protocolVersion: "2025-11-25", onError: (e) => errors.push(e), ...(reconnect ? { reconnect } : {}) });
  await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" }, {}, { signal: new AbortController().signal });
  return errors;
};

describe("the standalone GET stream's reconnects", () => {
  it("retry: 0 with a message on every stream that then ends: three connections in all (maxAttempts 2), not a flood", async () => {
    const { url, seen } = await serve(lifecycle((_seen, response) => sse(response).end(`retry: 0\n${message}`)));
    const notifications: unknown[] = [];
    await begin(url);
    transport!.onNotification((n) => notifications.push(n));
    const gets = () => seen.filter((s) => s.httpMethod === "GET").length;
    await until(() => gets() >= 3, "the reconnects");
    // Delays of 100 and 200 ms (the clamp, then doubled); then the client gives up. Before the clamp
    // and the count that events cannot reset, this window saw more than a thousand connections.
    await pause(1_500);
    expect(gets()).toBe(3);
    expect(notifications.length).toBeGreaterThanOrEqual(2);
  });

  it("a retry: no timer can take (10^12 ms) waits the 60 s maximum, not 1 ms", async () => {
    const { url, seen } = await serve(lifecycle((_seen, response) => sse(response).end(`retry: 1000000000000\n${message}`)));
    await begin(url);
    const gets = () => seen.filter((s) => s.httpMethod === "GET").length;
    await until(() => gets() >= 1, "the GET stream");
    await pause(1_000);
    expect(gets()).toBe(1);
  });

  it("values that are no delay are ignored: the delay stays the client's own", async () => {
    // "1e12", "-5" and "NaN" are no digits-only value: the format ignores them; the client's delay (here 5 s) stands.
    const { url, seen } = await serve(lifecycle((_seen, response) => sse(response).end(`retry: 1e12\nretry: -5\nretry: NaN\n${message}`)));
    await begin(url, { delayMs: 5_000 });
    const gets = () => seen.filter((s) => s.httpMethod === "GET").length;
    await until(() => gets() >= 1, "the GET stream");
    await pause(1_000);
    expect(gets()).toBe(1);
  });

  it("a stream that stayed open healthyAfterMs forgives the failures: such a server is followed past maxAttempts", async () => {
    let held = 0;
    const { url, seen } = await serve(
      lifecycle((_seen, response) => {
        sse(response).write(`retry: 0\n${message}`);
        held++;
        setTimeout(() => response.end(), 300);
      }),
    );
    await begin(url, { healthyAfterMs: 200 });
    const gets = () => seen.filter((s) => s.httpMethod === "GET").length;
    // Without the forgiveness it would stop after 3 connections (maxAttempts 2).
    await until(() => gets() >= 6, "reconnects past maxAttempts", 30_000);
    expect(held).toBeGreaterThanOrEqual(6);
  });
});

describe("a response stream resumed with Last-Event-ID", () => {
  it("retry: 0 on a stream that keeps ending before its response: resumed maxAttempts times, then the request fails", async () => {
    const early = (response: Parameters<Handler>[1]) => sse(response).end(`id: e1\nretry: 0\ndata: \n\n`);
    const { url, seen } = await serve((s, response, request) => {
      if (s.httpMethod === "POST" && s.body?.method === "tools/call") return early(response);
      if (s.httpMethod === "GET" && s.headers["last-event-id"] !== undefined) return early(response);
      lifecycle((_s, r) => void r.writeHead(405).end())(s, response, request);
    });
    await begin(url);
    await expect(transport!.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "t" } }, {}, { signal: new AbortController().signal })).rejects.toThrow(
      "tools/call: HTTP 200 without a JSON-RPC response to request 2",
    );
    expect(seen.filter((s) => s.headers["last-event-id"] !== undefined)).toHaveLength(2);
  });
});
