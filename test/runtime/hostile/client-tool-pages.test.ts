import { describe, expect, it } from "vitest";
import { createTasksClient, InvalidResponseError, type TasksClientRequest } from "../../../generated/ext-tasks-draft/index.js";
import { MAX_TOOLS_PAGES } from "../../../generated/ext-tasks-draft/runtime/client/tool-catalog.js";
import { failOnUnhandled } from "./client-peers.js";

/**
 * The client's catalog of tools against a server whose `tools/list` pages on forever with a new
 * cursor each time: it reads at most MAX_TOOLS_PAGES pages, then `listTools` rejects with
 * InvalidResponseError (a cursor that comes back was already refused); a catalog of a few pages reads whole.
 */

failOnUnhandled();

/** A client whose `tools/list` has `pages` pages (Infinity: endless), one tool each. */
function clientWithPages(pages: number) {
  const asked: (string | undefined)[] = [];
  const send = async (request: TasksClientRequest) => {
    const cursor = (request.params as { cursor?: string } | undefined)?.cursor;
    asked.push(cursor);
    const index = cursor === undefined ? 0 : Number(cursor.slice(1));
    const page = { resultType: "complete", cacheScope: "public", ttlMs: 60_000, tools: [{ name: `tool-${index}`, inputSchema: { type: "object" } }] };
    return { jsonrpc: "2.0", id: request.id, result: index + 1 < pages ? { ...page, nextCursor: `c${index + 1}` } : page };
  };
  return { client: createTasksClient({ send }), asked };
}

describe("tools/list pages", () => {
  it("a server that pages on forever: listTools rejects after MAX_TOOLS_PAGES (1,000) pages", async () => {
    expect(MAX_TOOLS_PAGES).toBe(1_000);
    const { client, asked } = clientWithPages(Infinity);
    await expect(client.listTools()).rejects.toThrow(InvalidResponseError);
    await expect(client.listTools()).rejects.toThrow("tools/list: more than 1000 pages (MAX_TOOLS_PAGES)");
    expect(asked).toHaveLength(2 * 1_000);
    client.close();
  });

  it("a catalog of 1,000 pages, the most there may be, is read whole", async () => {
    const { client } = clientWithPages(1_000);
    expect((await client.listTools()).map((tool) => tool.name)).toHaveLength(1_000);
    client.close();
  });
});
