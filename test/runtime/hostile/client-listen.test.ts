import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { createTasksClient } from "../../../generated/ext-tasks-draft/index.js";
import { streamableHttpTransport } from "../../../generated/ext-tasks-draft/runtime/parts/http-client.js";
import { nodeHttpHandler, STATELESS_PROTOCOL_VERSION } from "../../../generated/ext-tasks-draft/runtime/parts/http-server.js";
import { createTasksServer, type TaskHandle } from "../../../generated/ext-tasks-draft/server.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { failOnUnhandled, pause, until } from "./client-peers.js";

/**
 * A wait's listen streams against a server that acknowledges every subscription and hangs up right
 * after: the pause before each reopen doubles (500 ms, 1 s, 2 s, ...) because only a stream that
 * stayed open 10 s after its acknowledgement forgives it; before, every acknowledgement reset the
 * pause and the client reopened every 500 ms for as long as the wait lasted. Counted over a window.
 */

failOnUnhandled();

describe("listen streams that a server acknowledges and drops at once", () => {
  it("are reopened after doubling pauses: at most 5 opens in 4 s (every 500 ms would be 8)", async () => {
    const tasks = createTasksServer();
    const handles: TaskHandle[] = [];
    const handler = nodeHttpHandler({
      tasks,
      methods: {
        "tools/call": async (_params, context) => {
          const task = await tasks.createTask(context);
          handles.push(task);
          return task.createResult;
        },
      },
    });
    let listens = 0;
    const http = createServer((req, res) => {
      if (req.headers["mcp-method"] === "subscriptions/listen") {
        listens++;
        // Hang up right after the acknowledgement (the stream's first write).
        const write = res.write.bind(res) as (...args: unknown[]) => boolean;
        (res as ServerResponse & { write: (...args: unknown[]) => boolean }).write = (...args: unknown[]) => {
          const written = write(...args);
          setTimeout(() => res.destroy(), 5);
          return written;
        };
      }
      handler(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const client = createTasksClient({
      ...streamableHttpTransport({ url, protocolVersion: STATELESS_PROTOCOL_VERSION }),
      minPollMs: 1_000,
      maxPollMs: 1_000,
    });
    try {
      const calling = client.callTool({ name: "work" });
      await until(() => listens >= 1, "the first listen stream");
      const first = listens;
      await pause(4_000);
      const opened = listens - first + 1;
      expect(opened).toBeGreaterThanOrEqual(2);
      expect(opened).toBeLessThanOrEqual(5);
      await handles[0]!.complete({ content: [{ type: "text", text: "done" }] });
      expect(await calling).toEqual({ content: [{ type: "text", text: "done" }] });
    } finally {
      client.close();
      tasks.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
