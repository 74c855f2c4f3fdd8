import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createTasksServer } from "../../../generated/ext-tasks-draft/server.js";
import { serveStdio } from "../../../generated/ext-tasks-draft/runtime/parts/stdio.js";

/**
 * A stdio server serves one client, its `owner`; the Tasks server behind it may hold other owners'
 * tasks (a shared durable store, or tasks the application creates for others). Their status
 * notifications must never reach this client's stdout: this fails when the loop forwards every
 * owner's notifications.
 */

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

/** The JSON lines written to a stream so far. */
function lines(output: PassThrough, seen: string[]): () => Array<Record<string, any>> {
  output.setEncoding("utf8");
  output.on("data", (chunk: string) => seen.push(chunk));
  return () =>
    seen
      .join("")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, any>);
}

describe("stdio server: status notifications of other owners' tasks stay out of its stdout", () => {
  it("forwards its own client's task notifications and none of another owner's", async () => {
    const tasks = createTasksServer({ pollInterval: 10 });
    const input = new PassThrough();
    const output = new PassThrough();
    const written = lines(output, []);
    const server = serveStdio({
      tasks,
      owner: "the-client",
      input,
      output,
      methods: {
        "tools/call": async (_params, context) => {
          const task = await tasks.createTask(context);
          setTimeout(() => void task.update("mine halfway").then(() => task.complete({ content: [] })), 5);
          return task.createResult;
        },
      },
    });
    try {
      // Another owner's task, on the same Tasks server, moving through the same statuses.
      const theirs = await tasks.createTask({ owner: "someone-else" });
      const theirId = (theirs.createResult as { taskId: string }).taskId;
      input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "work", _meta: META } })}\n`);
      await theirs.update("theirs halfway");
      await theirs.complete({ content: [{ type: "text", text: "secret" }] });
      await expect.poll(() => written().filter((m) => m.method === "notifications/tasks" && m.params?.status === "completed").length, { timeout: 5000 }).toBe(1);

      const messages = written();
      const myId = messages.find((m) => m.id === 1)?.result?.taskId as string;
      expect(typeof myId).toBe("string");
      const notified = messages.filter((m) => m.method === "notifications/tasks");
      expect(notified.map((m) => m.params.status)).toContain("completed");
      expect(notified.some((m) => m.params.statusMessage === "mine halfway")).toBe(true);
      expect(JSON.stringify(messages)).not.toContain("theirs halfway");
      expect(notified.every((m) => m.params.taskId === myId)).toBe(true);
      expect(JSON.stringify(messages)).not.toContain(theirId);
      expect(JSON.stringify(messages)).not.toContain("secret");
    } finally {
      input.end();
      await server.done;
      tasks.close();
    }
  });
});
