// Closing a Redis store while its channel connection is subscribing again must not leave a rejected promise
// nobody handles (the process would crash on Node's default `--unhandled-rejections=throw`). A tiny fake Redis
// on loopback answers the connection's ready check and its first SUBSCRIBE, then, after dropping the connection,
// leaves the next SUBSCRIBE unanswered so that the store is closed exactly while it is in flight.
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { RedisTaskStore } from "../../../generated/ext-tasks-draft/runtime/parts/redis-store.js";
import type { StoredTask } from "../../../generated/ext-tasks-draft/index.js";
import { eventually } from "../../support/task-store-contract.js";

interface FakeRedis {
  url: string;
  /** SUBSCRIBE commands received, per connection in the order connections opened. */
  subscribes: number[];
  /** When true, SUBSCRIBE gets no answer. */
  holdSubscribes: boolean;
  dropAll(): void;
  close(): Promise<void>;
}

/** Just enough RESP: arrays of bulk strings in; INFO, SUBSCRIBE and +OK for anything else out. */
async function startFakeRedis(): Promise<FakeRedis> {
  const sockets = new Set<Socket>();
  const fake: FakeRedis = {
    url: "",
    subscribes: [],
    holdSubscribes: false,
    dropAll: () => sockets.forEach((socket) => socket.destroy()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    const index = fake.subscribes.push(0) - 1;
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      for (let command = takeCommand(); command; command = takeCommand()) {
        const name = command[0]!.toLowerCase();
        if (name === "info") socket.write(bulk("# Server\r\nloading:0\r\n"));
        else if (name === "subscribe") {
          fake.subscribes[index]!++;
          if (!fake.holdSubscribes)
            for (const channel of command.slice(1)) socket.write(`*3\r\n${bulk("subscribe")}${bulk(channel)}:1\r\n`);
        } else socket.write("+OK\r\n");
      }
    });
    function takeCommand(): string[] | undefined {
      const lines = buffered.split("\r\n");
      const count = Number(lines[0]?.slice(1));
      if (!lines[0]?.startsWith("*") || lines.length < 1 + 2 * count + 1) return undefined;
      const args = Array.from({ length: count }, (_, i) => lines[2 + 2 * i]!);
      buffered = lines.slice(1 + 2 * count).join("\r\n");
      return args;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  fake.url = `redis://127.0.0.1:${(server.address() as { port: number }).port}`;
  return fake;
}

const bulk = (text: string) => `$${Buffer.byteLength(text, "latin1")}\r\n${text}\r\n`;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("RedisTaskStore closing", () => {
  it("closed while its channel connection subscribes again, leaves no unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => void unhandled.push(reason);
    process.on("unhandledRejection", record);
    cleanups.push(() => void process.off("unhandledRejection", record));
    const fake = await startFakeRedis();
    cleanups.push(() => fake.close());
    const store = new RedisTaskStore<StoredTask>(fake.url, { commandTimeout: 2000 });
    cleanups.push(() => store.close());
    const channel: boolean[] = [];
    store.watch(() => {}, (up) => channel.push(up));
    await eventually(() => channel.at(-1) === true, 5000);

    fake.holdSubscribes = true;
    const connectionsBefore = fake.subscribes.length;
    fake.dropAll();
    // The channel connection is back and has asked to subscribe again; no answer will come.
    await eventually(() => fake.subscribes.slice(connectionsBefore).some((count) => count > 0), 5000);
    await store.close();
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(channel).toEqual([true, false]);
    expect(unhandled.map((reason) => (reason instanceof Error ? reason.message : String(reason)))).toEqual([]);
  });
});
