import { describe, expect, it } from "vitest";
import { checkConfig, diffSets, hasBreaking, renderDiffText, resolveConfig, type ApiDiff } from "../../../generator/index.js";
import { fixturePath, projectRoot } from "../../support/paths.js";

/**
 * Real upstream revision pairs (test/fixtures/revisions/SOURCE.md), their `diff` read by hand once
 * and pinned here in full: the Tasks extension 29f83d5 → e434597, the newest extension
 * with its core swapped from the one it vendors to MCP 2026-07-28's schema, and e434597 with an
 * added status. A change of the diff's output for these shows in review as a change of this file.
 */

const E434597 = fixturePath("mcp-spec", "ext-tasks-e434597", "schema.json");
const config = resolveConfig(
  checkConfig(
    {
      sets: [
        { name: "29f83d5", schemas: [fixturePath("revisions", "ext-tasks-29f83d5.schema.json")] },
        { name: "e434597", schemas: [E434597] },
        { name: "vendored-core", schemas: [E434597], core: { schema: fixturePath("mcp-spec", "ext-tasks-e434597", "spec.schema.json") } },
        { name: "core-2026-07-28", schemas: [E434597], core: { schema: fixturePath("revisions", "mcp-2026-07-28.schema.json") } },
        { name: "paused", schemas: [fixturePath("revisions", "ext-tasks-e434597-paused.schema.json")] },
      ],
    },
    "(pairs)",
  ),
  projectRoot,
);
const set = (name: string) => config.sets.find((s) => s.name === name)!;
const pair = (from: string, to: string): ApiDiff => diffSets(set(from), set(to), projectRoot);
const lines = (diff: ApiDiff) => diff.changes.map((c) => `${c.kind} ${c.subject}: ${c.description} [client ${c.client}, server ${c.server}]`);

describe("upstream revision pairs, read by hand and pinned", () => {
  it("the extension's core swapped for MCP 2026-07-28: one renamed _meta type, nothing breaking", () => {
    const diff = pair("vendored-core", "core-2026-07-28");
    expect(lines(diff)).toEqual([
      "definition-renamed SubscriptionsListenResultMetaObject: renamed from SubscriptionsListenResultMeta, the same values: code that imports SubscriptionsListenResultMeta must import SubscriptionsListenResultMetaObject [client compatible, server compatible]",
    ]);
    expect(hasBreaking(diff)).toBe(false);
  });

  it("e434597 → e434597 with the status paused: the new status and its variant break exhaustive matches of clients (the receivers)", () => {
    const diff = pair("e434597", "paused");
    expect(lines(diff)).toMatchSnapshot();
    expect(diff.changes.filter((c) => c.client === "breaking").every((c) => /exhaustive matches/.test(c.description))).toBe(true);
    expect(diff.changes.some((c) => c.server === "breaking")).toBe(false);
  });

  it("29f83d5 → e434597, as text", () => {
    expect(renderDiffText(pair("29f83d5", "e434597"))).toMatchSnapshot();
  });
});
