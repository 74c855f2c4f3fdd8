import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import type { ApiDiff } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";
import { treeSnapshot } from "../../support/tree.js";

/**
 * `mcp-tasks-gen diff OLD NEW`: operands (set names of the config, schema files, folders), text
 * and `--json` output, and the exit codes (0; 1 with `--fail-on-breaking` when something breaks;
 * 2 for bad operands).
 */

const REPO_CONFIG = join(projectRoot, "mcp-tasks-gen.config.json");
const SCHEMAS = join(projectRoot, "schemas");
const CORE_URL = "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/main/schema/2025-11-25/schema.json";
const BUNDLED = ["diff", "tasks-2025-11-25", "ext-tasks-2026-05-22", "--config", REPO_CONFIG];


const run = runCli;

const temps: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-diff-cli-"));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The repository config without its sets' `bindings`, written to a temporary folder (paths made absolute). */
function unboundConfig(): string {
  const config = JSON.parse(readFileSync(REPO_CONFIG, "utf8")) as { sets: { schemas: string[]; remotes?: Record<string, string>; bindings?: unknown; core?: unknown }[] };
  // Nor a core schema: file operands are read as their schema files (and remotes) alone define them.
  const sets = config.sets.map(({ bindings: _bound, core: _core, ...set }) => ({
    ...set,
    schemas: set.schemas.map((file) => join(projectRoot, file)),
    ...(set.remotes ? { remotes: Object.fromEntries(Object.entries(set.remotes).map(([url, file]) => [url, join(projectRoot, file)])) } : {}),
  }));
  const file = join(tempDir(), "mcp-tasks-gen.config.json");
  writeFileSync(file, JSON.stringify({ ...config, sets }));
  return file;
}

/** A one-request protocol whose params have the given properties (all optional). */
function pingSchema(params: Record<string, unknown>): string {
  return JSON.stringify({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $defs: {
      PingRequest: {
        type: "object",
        properties: { jsonrpc: { const: "2.0" }, id: { type: "integer" }, method: { const: "x/ping" }, params: { type: "object", properties: params } },
        required: ["jsonrpc", "id", "method"],
      },
    },
  });
}

describe("mcp-tasks-gen diff on the bundled revisions", () => {
  it("prints the changes grouped, each with its impact, and exits 0", async () => {
    const { code, stdout, stderr } = await run(BUNDLED);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    expect(lines[0]).toBe("mcp-tasks-gen diff: tasks-2025-11-25 → ext-tasks-2026-05-22");
    for (const expected of [
      "  - tasks/result: request removed (GetTaskPayloadRequest)  [breaks clients]",
      "  - tasks/list: request removed (ListTasksRequest)  [breaks clients]",
      "  + tasks/update: request added (UpdateTaskRequest → UpdateTaskResult)  [breaks servers]",
      "  - notifications/tasks/status: notification removed (TaskStatusNotification)  [breaks clients]",
      "  + notifications/tasks: notification added (TaskStatusNotification)  [compatible]",
      "  Task (server → client)",
      "    - ttl: required property removed (was integer | null)  [breaks clients, servers]",
      "        hint: renamed? ttl → ttlMs (type integer | null → number | null)",
      "    + pollIntervalMs: optional property added (number)  [compatible]",
      "    ~ shape: { _meta?; task } → { _meta? } & Task  [breaks clients, servers]",
      "  + WorkingTask: definition added: { taskId; status; statusMessage?; createdAt; lastUpdatedAt; ttlMs; pollIntervalMs? }  [compatible]",
    ]) {
      expect(lines, expected).toContain(expected);
    }
    expect(lines.at(-2)).toMatch(/^\d+ change\(s\): \d+ break clients, \d+ break servers, \d+ compatible\.$/);
  });

  it("--fail-on-breaking: exit 1 when a change breaks clients or servers", async () => {
    expect((await run([...BUNDLED, "--fail-on-breaking"])).code).toBe(1);
  });

  it("--json: the old and new labels, every change with its classification, and the summary", async () => {
    const { code, stdout } = await run([...BUNDLED, "--json"]);
    expect(code).toBe(0);
    const diff = JSON.parse(stdout) as ApiDiff;
    expect(Object.keys(diff)).toEqual(["old", "new", "changes", "summary"]);
    expect(diff.old).toBe("tasks-2025-11-25");
    expect(diff.new).toBe("ext-tasks-2026-05-22");
    expect(diff.summary.changes).toBe(diff.changes.length);
    for (const c of diff.changes) {
      expect(typeof c.kind).toBe("string");
      expect(typeof c.subject).toBe("string");
      expect(typeof c.description).toBe("string");
      expect(["breaking", "compatible"]).toContain(c.client);
      expect(["breaking", "compatible"]).toContain(c.server);
      expect(typeof c.why).toBe("string");
    }
    expect(diff.changes).toContainEqual(
      expect.objectContaining({ kind: "property-removed", subject: "Task.ttl", definition: "Task", property: "ttl", hint: expect.stringContaining("ttl → ttlMs") }),
    );
  });

  it("schema files as operands (with --remote for the core $refs) give the same changes as the config's sets", async () => {
    // File operands carry no `bindings`, so the sets are read as their schema files alone define them.
    const unbound = unboundConfig();
    const bySet = JSON.parse((await run(["diff", "tasks-2025-11-25", "ext-tasks-2026-05-22", "--config", unbound, "--json"])).stdout) as ApiDiff;
    expect(bySet.changes.length).toBeGreaterThan(0);
    const { code, stdout, stderr } = await run([
      "diff",
      join(SCHEMAS, "tasks-2025-11-25.schema.json"),
      join(SCHEMAS, "ext-tasks-2026-05-22.schema.json"),
      "--remote",
      `${CORE_URL}=${join(SCHEMAS, "mcp-2025-11-25.schema.json")}`,
      "--json",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const byFile = JSON.parse(stdout) as ApiDiff;
    expect(byFile.old).toBe(join(SCHEMAS, "tasks-2025-11-25.schema.json"));
    expect(byFile.changes).toEqual(bySet.changes);
  });
});

describe("mcp-tasks-gen diff on folders and small revisions", () => {
  it("a folder holds one revision's schema files; a compatible change exits 0 even with --fail-on-breaking", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "v1"));
    mkdirSync(join(dir, "v2"));
    writeFileSync(join(dir, "v1", "ping.schema.json"), pingSchema({ target: { type: "string" } }));
    writeFileSync(join(dir, "v2", "ping.schema.json"), pingSchema({ target: { type: "string" }, note: { type: "string" } }));
    const before = treeSnapshot(dir);
    const { code, stdout } = await run(["diff", join(dir, "v1"), join(dir, "v2"), "--fail-on-breaking"]);
    expect(code).toBe(0);
    expect(stdout).toContain("    + note: optional property added (string)  [compatible]");
    expect(stdout).toMatch(/\n1 change\(s\): 0 break clients, 0 break servers, 1 compatible\.\n$/);
    expect(treeSnapshot(dir), "diff writes nothing").toEqual(before);
  });

  it("identical revisions: no changes, exit 0", async () => {
    const dir = tempDir();
    cpSync(join(SCHEMAS, "ext-tasks-2026-05-22.schema.json"), join(dir, "copy.schema.json"));
    const { code, stdout } = await run(["diff", join(SCHEMAS, "ext-tasks-2026-05-22.schema.json"), join(dir, "copy.schema.json"), "--fail-on-breaking"]);
    expect(code).toBe(0);
    expect(stdout).toContain("\nNo changes to the generated API.\n");
  });

  it("an operand that is neither a file, a folder nor a set: exit 2, one line naming the sets", async () => {
    const { code, stdout, stderr } = await run(["diff", "tasks-2025-11-25", "no-such-revision", "--config", REPO_CONFIG]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^"no-such-revision" is not a schema file or folder, nor a set of [^\n]+ \(sets: tasks-2025-11-25, ext-tasks-draft, ext-tasks-2026-05-22, elicitation-codex\)\n$/);
  });

  it("not exactly two operands: a usage error", async () => {
    const { code, stderr } = await run(["diff", "tasks-2025-11-25"]);
    expect(code).toBe(2);
    expect(stderr).toContain("expected two revisions");
  });
});
