import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { displayPath } from "../../../generator/config/config.js";
import { runCli } from "../../support/cli.js";
import { fixturePath } from "../../support/paths.js";
import { treeSnapshot } from "../../support/tree.js";

/**
 * Never silent (README › When the spec changes): a set whose schema defines task methods but from
 * which the stubs cannot be derived stops with exit 2 and one located line naming the missing
 * piece, nothing written; a config's `methods` mapping supplies what a revision lacks; a set
 * without task methods quietly gets no stubs, and `lint` says why.
 */

type Defs = Record<string, any>;
const NEWEST = JSON.parse(readFileSync(fixturePath("mcp-spec", "ext-tasks-e434597", "schema.json"), "utf8")) as { $defs: Defs };
const SCHEMA = "schemas/tasks.schema.json";

let project: string;
let configPath: string;
let shownSchema: string;

function writeSchema(edit: (defs: Defs) => void = () => {}): void {
  const schema = structuredClone(NEWEST);
  edit(schema.$defs);
  writeFileSync(join(project, SCHEMA), JSON.stringify(schema, null, 2));
}

/** The set's config; the revision's `format: "byte"` findings are silenced so stderr holds only what is tested. */
function writeConfig(set: Record<string, unknown> = {}): void {
  const config = { outDir: "generated", sets: [{ name: "tasks", schemas: [SCHEMA], lint: { "unknown-format": "off" }, ...set }] };
  writeFileSync(configPath, JSON.stringify(config, null, 2));
}

beforeEach(async () => {
  project = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-stubs-"));
  configPath = join(project, "mcp-tasks-gen.config.json");
  shownSchema = displayPath(join(project, SCHEMA), process.cwd());
  mkdirSync(join(project, "schemas"));
  writeSchema();
  writeConfig();
  // Existing output that a failed run must leave untouched: the newest revision gets both stubs.
  const good = await runCli(["--config", configPath]);
  expect(good, good.stderr).toMatchObject({ code: 0, stderr: "" });
  expect(readdirSync(join(project, "generated", "tasks"))).toEqual(expect.arrayContaining(["client.ts", "server.ts"]));
}, 60_000);

afterEach(() => rmSync(project, { recursive: true, force: true }));

/** Exit 2, exactly one line on stderr `where: message`, nothing on stdout, the project unchanged. */
async function expectRejected(where: string, message: string | RegExp): Promise<void> {
  const before = treeSnapshot(project);
  const { code, stdout, stderr } = await runCli(["--config", configPath]);
  expect(stderr).toMatch(/^[^\n]+\n$/);
  expect(stderr.slice(0, where.length + 2), stderr).toBe(`${where}: `);
  expect(stderr.slice(where.length + 2).trimEnd()).toMatch(message);
  expect(code).toBe(2);
  expect(stdout).toBe("");
  expect(treeSnapshot(project)).toEqual(before);
}

const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);

describe("a set with task methods whose stubs cannot be derived: one located line naming the missing piece", () => {
  it("tasks/get without a result definition", async () => {
    writeSchema((defs) => delete defs.GetTaskResult);
    await expectRejected(
      `${shownSchema}#/$defs/GetTaskRequest`,
      exactly('`tasks/get` has no result definition: expected GetTaskResult beside GetTaskRequest or a "methods" mapping in the config'),
    );
  });

  it("task methods without tasks/get", async () => {
    writeSchema((defs) => delete defs.GetTaskRequest);
    await expectRejected(`${shownSchema}#/$defs/CancelTaskRequest`, /^the set defines task methods \(`tasks\/cancel`, `tasks\/update`\) but no `tasks\/get` request/);
  });

  it("a task request without the JSON-RPC envelope", async () => {
    writeSchema((defs) => {
      defs.GetTaskRequest.allOf = defs.GetTaskRequest.allOf.slice(1);
    });
    await expectRejected(`${shownSchema}#/$defs/GetTaskRequest`, /^`tasks\/get` is not a JSON-RPC message: GetTaskRequest has no `jsonrpc`/);
  });

  it("no definition listing the task statuses", async () => {
    writeSchema((defs) => delete defs.TaskStatus);
    await expectRejected(`${shownSchema}#/$defs/GetTaskRequest`, exactly("`tasks/get` has no task status definition: expected a definition whose values include working, input_required, completed, failed, cancelled (a revision may add more); no definition of the set is such an enum (statuses written only inline, in a task's `status`, are not looked for)"));
  });
});

describe("the config's methods mapping", () => {
  const renamedResult = (defs: Defs) => {
    defs.TaskLookupResult = defs.GetTaskResult;
    delete defs.GetTaskResult;
  };

  it("supplies a result the revision does not pair by name: both stubs are generated with it", async () => {
    writeSchema(renamedResult);
    writeConfig({ methods: { "tasks/get": { result: "TaskLookupResult" } } });
    const { code, stderr } = await runCli(["--config", configPath]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const server = readFileSync(join(project, "generated", "tasks", "server.ts"), "utf8");
    const client = readFileSync(join(project, "generated", "tasks", "client.ts"), "utf8");
    // The server builds tasks/get's answer from the task itself (server-engine.ts); the client checks it with the mapped validator.
    expect(server).toContain("export function createTasksServer");
    expect(client).toContain("validateTaskLookupResult");
    expect(client).not.toContain("GetTaskResult");
  });

  it("naming a method the set does not define is a config error at that entry", async () => {
    writeConfig({ methods: { "tasks/gets": { result: "GetTaskResult" } } });
    await expectRejected(`${configPath}#/sets/0/methods/tasks~1gets`, exactly("the set defines no method `tasks/gets` (it defines tasks/cancel, tasks/get, tasks/update, notifications/tasks)"));
  });

  it("naming a definition the set does not declare is a config error at that name", async () => {
    writeSchema(renamedResult);
    writeConfig({ methods: { "tasks/get": { result: "TaskLookup" } } });
    await expectRejected(`${configPath}#/sets/0/methods/tasks~1get/result`, exactly("the set declares no definition TaskLookup"));
  });

  it("a misspelt field is reported with the nearest one", async () => {
    writeConfig({ methods: { "tasks/get": { results: "GetTaskResult" } } });
    await expectRejected(`${configPath}#/sets/0/methods/tasks~1get/results`, exactly('unknown field "results"; did you mean "result"?'));
  });

  it("a result for a notification is a config error", async () => {
    writeConfig({ methods: { "notifications/tasks": { result: "GetTaskResult" } } });
    await expectRejected(`${configPath}#/sets/0/methods/notifications~1tasks/result`, exactly("`notifications/tasks` is a notification: it has no result"));
  });
});

describe("a set without task methods", () => {
  it("gets no stubs, quietly; lint and --verbose say why", async () => {
    writeSchema((defs) => {
      for (const name of Object.keys(defs)) if (/^(Get|Cancel|Update)Task(Request|Result)$|^TaskStatusNotification$/.test(name)) delete defs[name];
    });
    const { code, stdout, stderr } = await runCli(["--config", configPath]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).not.toMatch(/client|server|task method/);
    expect(existsSync(join(project, "generated", "tasks", "types.ts"))).toBe(true);
    expect(existsSync(join(project, "generated", "tasks", "client.ts"))).toBe(false);
    expect(existsSync(join(project, "generated", "tasks", "server.ts"))).toBe(false);

    const lint = await runCli(["lint", "--config", configPath]);
    expect(lint.code).toBe(0);
    expect(lint.stdout).toContain(
      "note: set tasks: gets no client.ts or server.ts: the schema defines no task methods (no JSON-RPC request whose `method` is a `tasks/` constant)\n",
    );
    const json = JSON.parse((await runCli(["lint", "--json", "--config", configPath])).stdout) as { notes: unknown[] };
    expect(json.notes).toEqual([{ set: "tasks", message: expect.stringMatching(/^gets no client\.ts or server\.ts: the schema defines no task methods/) }]);

    const verbose = await runCli(["--verbose", "--config", configPath]);
    expect(verbose.code).toBe(0);
    expect(verbose.stderr).toBe(
      "note: set tasks: gets no client.ts or server.ts: the schema defines no task methods (no JSON-RPC request whose `method` is a `tasks/` constant)\n",
    );
  });

  it("lint stops at a set that defines task methods but cannot get stubs, as generating does", async () => {
    writeSchema((defs) => delete defs.GetTaskResult);
    const { code, stderr } = await runCli(["lint", "--config", configPath]);
    expect(code).toBe(2);
    expect(stderr).toBe(`${shownSchema}#/$defs/GetTaskRequest: \`tasks/get\` has no result definition: expected GetTaskResult beside GetTaskRequest or a "methods" mapping in the config\n`);
  });
});
