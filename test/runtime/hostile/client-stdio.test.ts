import { once } from "node:events";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createTasksServer } from "../../../generated/ext-tasks-draft/server.js";
import {
  serveStdio,
  STDIO_MAX_LINE_BYTES,
  stdioClientTransport,
  StdioClosedError,
  StdioLineLimitError,
  type StdioClientTransport,
} from "../../../generated/ext-tasks-draft/runtime/parts/stdio.js";
import { failOnUnhandled, pause } from "./client-peers.js";

/**
 * The `stdio` part against a peer that never ends its line: the client reads a line only up to
 * `maxLineBytes` (16 MiB by default), then ends the connection (the server process is killed) and
 * every pending and later request rejects with StdioLineLimitError, never an uncaught RangeError of
 * the host; the server answers such a line -32700 and reads on after its end. The hostile servers
 * are `node -e` scripts.
 */

failOnUnhandled();

const MiB = 1024 * 1024;

/**
 * A server that answers its first request with a result of `answerBytes` of padding (a line within
 * the limit), then writes one line that never ends, as fast as the client reads.
 */
const ENDLESS_AFTER_ONE_ANSWER = `
const answerBytes = Number(process.argv[1]);
let buffered = "";
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  const end = buffered.indexOf("\\n");
  if (end < 0) return;
  const request = JSON.parse(buffered.slice(0, end));
  buffered = buffered.slice(end + 1);
  process.stdin.removeAllListeners("data");
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { padding: "p".repeat(answerBytes) } }) + "\\n");
  const chunk64k = "x".repeat(65536);
  const pump = () => { while (process.stdout.write(chunk64k)); process.stdout.once("drain", pump); };
  pump();
});
process.stdin.resume();
`;

let transport: StdioClientTransport | undefined;
afterEach(async () => {
  await transport?.close(500);
  transport = undefined;
});

const spawnHostile = (answerBytes: number, maxLineBytes?: number) =>
  stdioClientTransport({
    command: process.execPath,
    args: ["-e", ENDLESS_AFTER_ONE_ANSWER, String(answerBytes)],
    stderr: "ignore",
    ...(maxLineBytes !== undefined ? { maxLineBytes } : {}),
  });

const request = (id: number) => ({ jsonrpc: "2.0" as const, id, method: "tools/call", params: { name: "t" } });
const options = () => ({ signal: new AbortController().signal });

describe("stdio client: a line longer than maxLineBytes", () => {
  it("ends the connection: the pending request rejects with StdioLineLimitError, the server process is ended, later requests reject too", async () => {
    transport = spawnHostile(512 * 1024, MiB);
    // A line within the limit (512 KiB) is read as always.
    const first = (await transport.send(request(1), {}, options())) as { result: { padding: string } };
    expect(first.result.padding).toHaveLength(512 * 1024);
    const refusal = await transport.send(request(2), {}, options()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(StdioLineLimitError);
    expect(refusal).toBeInstanceOf(StdioClosedError);
    expect(refusal).toMatchObject({ name: "StdioLineLimitError", maxLineBytes: MiB });
    expect((refusal as Error).message).toBe("the server sent a line longer than maxLineBytes (1048576 bytes); the connection was ended");
    if (transport.process.exitCode === null && transport.process.signalCode === null) await once(transport.process, "exit");
    expect(transport.process.signalCode).toBe("SIGTERM");
    await expect(transport.send(request(3), {}, options())).rejects.toBe(refusal);
  });

  it("the default limit is 16 MiB, and a line under it (12 MiB) is read whole", async () => {
    expect(STDIO_MAX_LINE_BYTES).toBe(16 * MiB);
    transport = spawnHostile(12 * MiB);
    const first = (await transport.send(request(1), {}, options())) as { result: { padding: string } };
    expect(first.result.padding).toHaveLength(12 * MiB);
    await expect(transport.send(request(2), {}, options())).rejects.toMatchObject({ name: "StdioLineLimitError", maxLineBytes: 16 * MiB });
  });
});

describe("stdio server: a line longer than maxLineBytes", () => {
  it("is answered -32700 and skipped to its end; the next line is answered as always", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const tasks = createTasksServer({});
    const server = serveStdio({ tasks, input, output, maxLineBytes: 64 * 1024, methods: { ping: async () => ({}) } });
    const lines: unknown[] = [];
    let text = "";
    output.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n")) {
        lines.push(JSON.parse(text.slice(0, end)));
        text = text.slice(end + 1);
      }
    });
    // 1 MiB of one line, in pieces, then its end and a request.
    for (let i = 0; i < 16; i++) input.write("y".repeat(64 * 1024));
    input.write('\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    // A line that passes the limit within one chunk, with its end in the same chunk.
    input.write(`${"z".repeat(100 * 1024)}\n{"jsonrpc":"2.0","id":8,"method":"ping"}\n`);
    input.end();
    await server.done;
    await pause(10);
    const tooLong = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: a line is longer than maxLineBytes (65536 bytes)" } };
    // Refusals are written at once, answers when their handler resolves: compared apart.
    expect(lines.filter((line) => (line as { id: unknown }).id === null)).toEqual([tooLong, tooLong]);
    expect(lines.filter((line) => (line as { id: unknown }).id !== null)).toEqual([
      { jsonrpc: "2.0", id: 7, result: {} },
      { jsonrpc: "2.0", id: 8, result: {} },
    ]);
    tasks.close();
  });
});
