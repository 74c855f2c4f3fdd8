import { describe, expect, it } from "vitest";
import { createTasksClient } from "../../../generated/ext-tasks-draft/index.js";
import {
  HTTP_CLIENT_LIMITS,
  HttpResponseLimitError,
  readEventStream,
  streamableHttpTransport,
  type SseEvent,
} from "../../../generated/ext-tasks-draft/runtime/parts/http-client.js";
import { closeServersAfterEach, failOnUnhandled, flood, json, serve, sse, until } from "./client-peers.js";

/**
 * The `http-client` part against servers that send too much: a JSON answer's body and one SSE event
 * are read only up to their limits (`maxBodyBytes`, 16 MiB; `maxEventBytes`, 4 MiB), then the request
 * is aborted (the server sees the connection close) and the call rejects with HttpResponseLimitError;
 * what stays under a limit is read as before. The SSE reader looks at each byte once.
 */

closeServersAfterEach();
failOnUnhandled();

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** A client of the stateless revision on `url` (no handshake: every request is one POST). */
const clientOf = (url: string, options: { maxBodyBytes?: number; maxEventBytes?: number } = {}) =>
  createTasksClient({ ...streamableHttpTransport({ url, ...options }), requestTimeoutMs: 0 });

describe("the body of a JSON answer", () => {
  it("a 1 GiB body is read up to 16 MiB by default: the request is aborted, rejects with HttpResponseLimitError, and memory stays bounded", async () => {
    let sent: Promise<number> | undefined;
    const { url } = await serve((_seen, response) => {
      // A JSON string that never ends, sent as fast as the client reads.
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"jsonrpc":"2.0","id":1,"result":{"padding":"');
      sent = flood(response, Buffer.alloc(MiB, "x"), GiB);
    });
    const client = clientOf(url);
    const rssBefore = process.memoryUsage().rss;
    const refusal = await client.request("tools/list").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(HttpResponseLimitError);
    expect(refusal).toMatchObject({ limit: "maxBodyBytes", limitBytes: HTTP_CLIENT_LIMITS.maxBodyBytes, what: "tools/list" });
    expect((refusal as Error).message).toBe(
      "tools/list: the server sent a response body larger than maxBodyBytes (16777216 bytes); the request was aborted",
    );
    // The client hung up: the server stopped far short of its gibibyte.
    expect(await sent).toBeLessThan(256 * MiB);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * MiB);
    client.close();
  });

  it("a body whose Content-Length passes the limit is refused before it is read", async () => {
    let sent: Promise<number> | undefined;
    const { url } = await serve((_seen, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": String(GiB) });
      sent = flood(response, Buffer.alloc(64 * 1024, " "), GiB);
    });
    const client = clientOf(url, { maxBodyBytes: MiB });
    await expect(client.request("tools/list")).rejects.toMatchObject({ name: "HttpResponseLimitError", limit: "maxBodyBytes", limitBytes: MiB });
    expect(await sent).toBeLessThan(64 * MiB);
    client.close();
  });

  it("a body under the limit is read whole, as before", async () => {
    const padding = "y".repeat(3 * MiB);
    const { url } = await serve((seen, response) => json(response, { jsonrpc: "2.0", id: seen.body!.id, result: { padding, resultType: "complete" } }));
    const client = clientOf(url, { maxBodyBytes: 4 * MiB });
    const result = await client.request("tools/list");
    expect(result.padding).toBe(padding);
    client.close();
  });
});

describe("one event of an SSE answer", () => {
  it("an event that never ends is read up to 4 MiB by default: the stream is aborted with HttpResponseLimitError", async () => {
    let sent: Promise<number> | undefined;
    const { url } = await serve((_seen, response) => {
      sse(response).write("data: ");
      sent = flood(response, Buffer.alloc(256 * 1024, "z"), GiB);
    });
    const client = clientOf(url);
    await expect(client.request("tools/list")).rejects.toMatchObject({
      name: "HttpResponseLimitError",
      limit: "maxEventBytes",
      limitBytes: HTTP_CLIENT_LIMITS.maxEventBytes,
      what: "tools/list",
    });
    expect(await sent).toBeLessThan(256 * MiB);
    client.close();
  });

  it("short lines add up: an event of many data lines without its blank line is refused too", async () => {
    let sent: Promise<number> | undefined;
    const { url } = await serve((_seen, response) => {
      sse(response);
      sent = flood(response, Buffer.from("data: 0123456789abcdef\n".repeat(4096)), GiB);
    });
    const client = clientOf(url, { maxEventBytes: MiB });
    await expect(client.request("tools/list")).rejects.toMatchObject({ name: "HttpResponseLimitError", limit: "maxEventBytes", limitBytes: MiB });
    expect(await sent).toBeLessThan(64 * MiB);
    client.close();
  });

  it("events under the limit, many of them and one large, are delivered as before; the limit is per event", async () => {
    const large = "w".repeat(3 * MiB);
    const { url } = await serve((seen, response) => {
      sse(response);
      for (let i = 0; i < 200; i++) response.write(`data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { i, text: "k".repeat(8 * 1024) } })}\n\n`);
      response.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: seen.body!.id, result: { large, resultType: "complete" } })}\n\n`);
    });
    const transport = streamableHttpTransport({ url });
    const notifications: unknown[] = [];
    transport.onNotification((n) => notifications.push(n));
    const client = createTasksClient({ ...transport });
    const result = await client.request("tools/list");
    expect(result.large).toBe(large);
    // 200 events of 8 KiB each: 1.6 MiB together, past the 1 MiB of no single event.
    expect(notifications).toHaveLength(200);
    client.close();
  });
});

describe("readEventStream reads in linear time", () => {
  /** A body of `text` cut into chunks of `chunkBytes`. */
  const streamOf = (text: string, chunkBytes: number) => {
    const bytes = new TextEncoder().encode(text);
    let at = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(at, at + chunkBytes));
        at += chunkBytes;
      },
    });
  };
  /** The fastest of three reads of one event of `size` bytes arriving 1 KiB at a time. */
  const timeToRead = async (size: number) => {
    let best = Infinity;
    for (let round = 0; round < 3; round++) {
      const body = streamOf(`data: ${"d".repeat(size)}\n\n`, 1024);
      const started = performance.now();
      const events: SseEvent[] = [];
      await readEventStream(body, (event) => void events.push(event), { maxEventBytes: 8 * MiB });
      best = Math.min(best, performance.now() - started);
      expect(events[0]!.data).toHaveLength(size);
    }
    return best;
  };

  it("an event 8 times larger takes about 8 times as long, not 64 (each byte is looked at once)", async () => {
    await timeToRead(64 * 1024); // warm-up
    const small = await timeToRead(256 * 1024);
    const large = await timeToRead(2 * MiB);
    // Linear: about 8. Rescanning the event on every chunk: about 64.
    expect(large / small).toBeLessThan(24);
  });
});

describe("requests of the server", () => {
  it("at most maxPendingServerRequests (32) are handled at once: the rest are dropped unanswered and told to onError", async () => {
    let answers = 0;
    const { url } = await serve((seen, response) => {
      const body = seen.body!;
      // An answer POSTed back by the client.
      if (!("method" in body)) return void (answers++, response.writeHead(202).end());
      sse(response);
      for (let i = 0; i < 100; i++) {
        response.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: `ask-${i}`, method: "elicitation/create", params: { message: "?", requestedSchema: { type: "object", properties: {} } } })}\n\n`);
      }
      response.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: body.id, result: {} })}\n\n`);
    });
    const errors: unknown[] = [];
    const transport = streamableHttpTransport({ url, onError: (error) => errors.push(error) });
    let started = 0;
    const release: (() => void)[] = [];
    transport.onRequest(() => {
      started++;
      return new Promise((resolve) => release.push(() => resolve({ action: "decline" })));
    });
    await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list" }, {}, { signal: new AbortController().signal });
    expect(started).toBe(HTTP_CLIENT_LIMITS.maxPendingServerRequests);
    expect(errors).toHaveLength(100 - 32);
    expect(String(errors[0])).toBe("Error: elicitation/create: dropped unanswered, 32 requests of the server are pending (maxPendingServerRequests)");
    // Those handled are answered as always once their handlers resolve.
    for (const resolve of release) resolve();
    await until(() => answers === 32, "the 32 answers");
    await transport.close();
  });
});
