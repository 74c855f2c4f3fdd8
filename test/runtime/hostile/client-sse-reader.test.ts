import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HttpResponseLimitError, readEventStream, type SseEvent } from "../../../generated/ext-tasks-draft/runtime/parts/http-client.js";
import { failOnUnhandled } from "./client-peers.js";

/**
 * The SSE reader cuts lines from bytes as they arrive (so it looks at each byte once and can count an
 * event's bytes): however a stream is cut into chunks, even inside a character or between the `\r`
 * and `\n` of one line ending, it reads the same events as the format's text algorithm over the
 * whole stream, written plainly below; and the event limit counts each event apart.
 */

failOnUnhandled();

/** The WHATWG event-stream algorithm over the whole text (a reference, not fast). */
function referenceEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  // The last piece has no line ending: it is no line.
  lines.pop();
  let data: string[] = [];
  let type = "";
  let id: string | undefined;
  let retry: number | undefined;
  for (const line of lines) {
    if (line === "") {
      events.push({ event: type || "message", data: data.join("\n"), ...(id !== undefined ? { id } : {}), ...(retry !== undefined ? { retry } : {}) });
      data = [];
      type = "";
      id = undefined;
      retry = undefined;
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    else if (field === "event") type = value;
    else if (field === "id" && !value.includes("\0")) id = value;
    else if (field === "retry" && /^\d+$/.test(value)) retry = Number(value);
  }
  return events;
}

/** The bytes of `text` cut at `cuts` (byte offsets, anywhere, also inside a character). */
function chunked(text: string, cuts: readonly number[]): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...at, bytes.length]) {
    if (cut > start) pieces.push(bytes.slice(start, cut));
    start = Math.max(start, cut);
  }
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
}

const read = async (body: ReadableStream<Uint8Array>, maxEventBytes?: number) => {
  const events: SseEvent[] = [];
  await readEventStream(body, (event) => void events.push(event), maxEventBytes === undefined ? {} : { maxEventBytes });
  return events;
};

/** Stream text from the pieces the format cares about, characters of 1 to 4 UTF-8 bytes among them. */
const streamText = fc
  .array(
    fc.constantFrom("data", "data:", "data: ", "event: ", "id: ", "id: \0", "retry: ", "retry: 1500", ":", "x", "é", "€", "😀", " ", "\n", "\r", "\r\n", "\n\n", "\uFEFF", "7"),
    { maxLength: 60 },
  )
  .map((pieces) => pieces.join(""));

describe("readEventStream: chunks change nothing", () => {
  it("reads the events of the text algorithm, however the bytes are cut", async () => {
    await fc.assert(
      fc.asyncProperty(streamText, fc.array(fc.nat(400), { maxLength: 12 }), fc.boolean(), async (text, cuts, bom) => {
        const whole = (bom ? "\uFEFF" : "") + text;
        expect(await read(chunked(whole, cuts))).toEqual(referenceEvents(whole));
      }),
      { numRuns: 400 },
    );
  });

  it("one byte at a time: a \\r\\n split between chunks is one line ending, a character split is whole", async () => {
    const text = "id: é1\r\ndata: 😀\r\n\r\ndata: €\r\rdata: last\n\n";
    const bytes = new TextEncoder().encode(text).length;
    const events = await read(chunked(text, Array.from({ length: bytes }, (_, i) => i)));
    expect(events).toEqual([{ event: "message", data: "😀", id: "é1" }, { event: "message", data: "€" }, { event: "message", data: "last" }]);
  });
});

describe("readEventStream: the event limit", () => {
  it("counts each event apart: many events of 600 bytes pass a 1 KiB limit, one of 2 KiB does not", async () => {
    const small = `data: ${"s".repeat(593)}\n\n`;
    expect(await read(chunked(small.repeat(50), [17, 1000, 4096]), 1024)).toHaveLength(50);
    const large = `data: ${"l".repeat(2048)}\n\n`;
    await expect(read(chunked(small + large, [100]), 1024)).rejects.toBeInstanceOf(HttpResponseLimitError);
  });

  it("counts the line endings and every line of the event, comments too", async () => {
    // 200 lines of 8 bytes: 1,600 bytes in one event.
    await expect(read(chunked(": 56789\n".repeat(200) + "\n", []), 1024)).rejects.toMatchObject({ limit: "maxEventBytes", limitBytes: 1024, what: "SSE stream" });
    await expect(read(chunked("data: 6\n".repeat(200) + "\n", []), 1024)).rejects.toMatchObject({ limit: "maxEventBytes" });
    // An event of exactly 1,024 bytes with its blank line passes.
    const exact = `data: ${"e".repeat(1024 - 8)}\n\n`;
    expect(new TextEncoder().encode(exact)).toHaveLength(1024);
    expect(await read(chunked(exact, [3]), 1024)).toEqual([{ event: "message", data: "e".repeat(1016) }]);
  });
});
