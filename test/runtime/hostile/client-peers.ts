import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, expect } from "vitest";

/**
 * What the client-* hostile tests share: hostile servers of their own on loopback (node:http), a
 * wait for a condition, and a guard that fails the file when anything the client does ends as an
 * unhandled rejection or an uncaught exception of the host process.
 */

export type JsonObject = { [key: string]: unknown };

export interface Seen {
  readonly httpMethod: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: JsonObject | undefined;
}

export type Handler = (seen: Seen, response: ServerResponse, request: IncomingMessage) => void;

const servers = new Set<Server>();

/** A server calling `handle` for every request (its JSON body read first); its URL and the requests it saw. */
export async function serve(handle: Handler): Promise<{ readonly url: string; readonly seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const entry: Seen = { httpMethod: request.method!, headers: request.headers, body: text ? (JSON.parse(text) as JsonObject) : undefined };
      seen.push(entry);
      handle(entry, response, request);
    });
  });
  servers.add(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen };
}

/** Stops every server a test started (after each test). */
export function closeServersAfterEach(): void {
  afterEach(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    servers.clear();
  });
}

export const json = (response: ServerResponse, body: unknown, headers: Record<string, string> = {}) =>
  response.writeHead(200, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));

export const sse = (response: ServerResponse) => response.writeHead(200, { "content-type": "text/event-stream" });

/**
 * Writes `chunk` until the client stops reading (the connection closes) or `maxBytes` went out,
 * minding backpressure, so the server holds little; resolves with the bytes written.
 */
export function flood(response: ServerResponse, chunk: Buffer, maxBytes: number): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(written);
    };
    response.once("close", finish);
    const pump = () => {
      while (!done && !response.destroyed && written < maxBytes) {
        written += chunk.length;
        if (!response.write(chunk)) return void response.once("drain", pump);
      }
      if (written >= maxBytes) {
        response.end();
        finish();
      }
    };
    pump();
  });
}

/** Waits for `condition`, polling, failing after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Fails the file if anything ended as an unhandled rejection or an uncaught exception while it ran. */
export function failOnUnhandled(): void {
  const escaped: unknown[] = [];
  const onEscape = (error: unknown) => void escaped.push(error);
  beforeAll(() => {
    process.on("unhandledRejection", onEscape);
    process.on("uncaughtException", onEscape);
  });
  afterAll(() => {
    process.off("unhandledRejection", onEscape);
    process.off("uncaughtException", onEscape);
    expect(escaped).toEqual([]);
  });
}
