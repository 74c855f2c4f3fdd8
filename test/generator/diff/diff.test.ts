import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { diffSets, readConfigFile, resolveConfig, type ApiChange, type ApiDiff, type ResolvedSet } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";

/**
 * `diffSets`: the changes of the generated API between two revisions, each classified for
 * clients and servers. First the classification matrix on small protocols (one request, its
 * params and result, a status enum, a notification), then the bundled revisions
 * tasks-2025-11-25 → ext-tasks-2026-05-22.
 */

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

type Schema = Record<string, unknown>;

interface Protocol {
  params?: Schema;
  result?: Schema;
  status?: string[];
  /** Extra definitions (a second request, a notification). */
  extra?: Record<string, Schema>;
}

/** A small protocol: `x/ping` (client → server) with params, answered by a result holding a status. */
function protocolSchema(p: Protocol): Schema {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $defs: {
      PingRequest: {
        type: "object",
        properties: { jsonrpc: { const: "2.0" }, id: { type: "integer" }, method: { const: "x/ping" }, params: { $ref: "#/$defs/PingParams" } },
        required: ["jsonrpc", "id", "method", "params"],
      },
      PingParams: p.params ?? { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
      PingResult: p.result ?? { type: "object", properties: { status: { $ref: "#/$defs/Status" }, took: { type: "integer" } }, required: ["status"] },
      Status: { enum: p.status ?? ["ok", "slow"] },
      ...p.extra,
    },
  };
}

function setOf(name: string, schema: Schema): ResolvedSet {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-diff-"));
  temps.push(dir);
  writeFileSync(join(dir, `${name}.schema.json`), JSON.stringify(schema));
  return resolveConfig({ sets: [{ name, schemas: [`${name}.schema.json`] }] }, dir).sets[0]!;
}

function diffProtocols(before: Protocol, after: Protocol): ApiDiff {
  return diffSets(setOf("old", protocolSchema(before)), setOf("new", protocolSchema(after)), tmpdir());
}

/** The one change of a kind about a subject; fails listing what there is. */
function change(diff: ApiDiff, kind: ApiChange["kind"], subject: string): ApiChange {
  const found = diff.changes.filter((c) => c.kind === kind && c.subject === subject);
  if (found.length !== 1) throw new Error(`expected one ${kind} of ${subject}, got ${found.length} in:\n${diff.changes.map((c) => `${c.kind} ${c.subject}`).join("\n")}`);
  return found[0]!;
}

const impact = (c: ApiChange) => ({ client: c.client, server: c.server });
const BREAKS_CLIENTS = { client: "breaking", server: "compatible" };
const BREAKS_SERVERS = { client: "compatible", server: "breaking" };
const COMPATIBLE = { client: "compatible", server: "compatible" };

const openParams = (properties: Schema, required: string[] = []) => ({ type: "object", properties, required });
const closedParams = (properties: Schema, required: string[] = []) => ({ ...openParams(properties, required), additionalProperties: false });

describe("classification: narrowing breaks the sender, widening breaks the receiver", () => {
  it("the same schema twice: no changes", () => {
    expect(diffProtocols({}, {}).changes).toEqual([]);
  });

  it("a new required property in a request's params breaks clients (they must send it)", () => {
    const diff = diffProtocols({}, { params: openParams({ target: { type: "string" }, mode: { type: "string" } }, ["target", "mode"]) });
    const c = change(diff, "property-added", "PingParams.mode");
    expect(c.description).toBe("required property added (string)");
    expect(c.flows).toEqual(["client-to-server"]);
    expect(impact(c)).toEqual(BREAKS_CLIENTS);
  });

  it("a new optional property: compatible in an open object, breaks servers when the old params were closed", () => {
    const open = diffProtocols({}, { params: openParams({ target: { type: "string" }, mode: { type: "string" } }, ["target"]) });
    expect(impact(change(open, "property-added", "PingParams.mode"))).toEqual(COMPATIBLE);
    const closedBefore = closedParams({ target: { type: "string" } }, ["target"]);
    const closed = diffProtocols({ params: closedBefore }, { params: closedParams({ target: { type: "string" }, mode: { type: "string" } }, ["target"]) });
    // An old server's closed params reject the new property a new client may send.
    expect(impact(change(closed, "property-added", "PingParams.mode"))).toEqual(BREAKS_SERVERS);
  });

  it("required → optional in params breaks servers; optional → required breaks clients", () => {
    const optional = diffProtocols({}, { params: openParams({ target: { type: "string" } }) });
    expect(impact(change(optional, "property-optional", "PingParams.target"))).toEqual(BREAKS_SERVERS);
    const required = diffProtocols({ params: openParams({ target: { type: "string" } }) }, {});
    expect(impact(change(required, "property-required", "PingParams.target"))).toEqual(BREAKS_CLIENTS);
  });

  it("a type widened in params breaks servers; narrowed, it breaks clients", () => {
    const integer = openParams({ target: { type: "string" }, count: { type: "integer" } }, ["target"]);
    const number = openParams({ target: { type: "string" }, count: { type: "number" } }, ["target"]);
    const widened = change(diffProtocols({ params: integer }, { params: number }), "type-widened", "PingParams.count");
    expect(widened.description).toBe("type widened: integer → number");
    expect(impact(widened)).toEqual(BREAKS_SERVERS);
    expect(impact(change(diffProtocols({ params: number }, { params: integer }), "type-narrowed", "PingParams.count"))).toEqual(BREAKS_CLIENTS);
  });

  it("an optional property removed from open params is compatible; a required one removed from a result breaks clients", () => {
    const withOptional = openParams({ target: { type: "string" }, note: { type: "string" } }, ["target"]);
    expect(impact(change(diffProtocols({ params: withOptional }, {}), "property-removed", "PingParams.note"))).toEqual(COMPATIBLE);
    const result = { type: "object", properties: { took: { type: "integer" } } };
    const c = change(diffProtocols({}, { result }), "property-removed", "PingResult.status");
    expect(c.description).toBe("required property removed (was Status)");
    expect(c.flows).toEqual(["server-to-client"]);
    expect(impact(c)).toEqual(BREAKS_CLIENTS);
  });

  it("an enum value removed from a result's status breaks servers; one added breaks clients", () => {
    const removed = change(diffProtocols({}, { status: ["ok"] }), "value-removed", "Status");
    expect(removed.description).toBe('value "slow" removed');
    expect(removed.flows).toEqual(["server-to-client"]);
    expect(impact(removed)).toEqual(BREAKS_SERVERS);
    expect(impact(change(diffProtocols({}, { status: ["ok", "slow", "failed"] }), "value-added", "Status"))).toEqual(BREAKS_CLIENTS);
  });

  it("closing a result (additionalProperties: false) breaks servers, which may send more", () => {
    const closed = { type: "object", properties: { status: { $ref: "#/$defs/Status" }, took: { type: "integer" } }, required: ["status"], additionalProperties: false };
    expect(impact(change(diffProtocols({}, { result: closed }), "closed", "PingResult"))).toEqual(BREAKS_SERVERS);
    expect(impact(change(diffProtocols({ result: closed }, {}), "opened", "PingResult"))).toEqual(BREAKS_CLIENTS);
  });

  it("methods: added breaks servers (they must answer), removed breaks clients; notifications: added is compatible, removed breaks clients", () => {
    const request = (method: string) => ({
      type: "object",
      properties: { jsonrpc: { const: "2.0" }, id: { type: "integer" }, method: { const: method } },
      required: ["jsonrpc", "id", "method"],
    });
    const notification = (method: string) => ({
      type: "object",
      properties: { jsonrpc: { const: "2.0" }, method: { const: method } },
      required: ["jsonrpc", "method"],
    });
    const diff = diffProtocols(
      { extra: { StopRequest: request("x/stop"), TickNotification: notification("x/tick") } },
      { extra: { ResumeRequest: request("x/resume"), BeatNotification: notification("x/beat") } },
    );
    expect(impact(change(diff, "method-removed", "x/stop"))).toEqual(BREAKS_CLIENTS);
    expect(impact(change(diff, "method-added", "x/resume"))).toEqual(BREAKS_SERVERS);
    expect(impact(change(diff, "notification-removed", "x/tick"))).toEqual(BREAKS_CLIENTS);
    expect(impact(change(diff, "notification-added", "x/beat"))).toEqual(COMPATIBLE);
    // The definitions behind them are reported too: removed ones break both sides' code.
    expect(impact(change(diff, "definition-removed", "StopRequest"))).toEqual({ client: "breaking", server: "breaking" });
    expect(impact(change(diff, "definition-added", "ResumeRequest"))).toEqual(COMPATIBLE);
  });

  it("a renamed property is reported as removed + added, both with a rename hint", () => {
    const before = openParams({ target: { type: "string" }, timeout: { type: "integer" } }, ["target"]);
    const after = openParams({ target: { type: "string" }, timeoutMs: { type: "number" } }, ["target"]);
    const diff = diffProtocols({ params: before }, { params: after });
    const hint = "renamed? timeout → timeoutMs (type integer → number)";
    expect(change(diff, "property-removed", "PingParams.timeout").hint).toBe(hint);
    expect(change(diff, "property-added", "PingParams.timeoutMs").hint).toBe(hint);
  });
});

describe("tasks-2025-11-25 → ext-tasks-2026-05-22", () => {
  const config = readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json"));
  // The Tasks protocols alone: the 2026-05-22 revision has no core schema, so the core definitions the
  // 2025-11-25 set takes for its stubs (README › Core definitions) would read as removed methods.
  const set = (name: string) => {
    const { core: _core, ...found } = config.sets.find((s) => s.name === name)!;
    return found;
  };
  const diff = diffSets(set("tasks-2025-11-25"), set("ext-tasks-2026-05-22"), config.rootDir);

  it("ttl → ttlMs and pollInterval → pollIntervalMs: removed + added, with rename hints", () => {
    for (const [from, to, types] of [
      ["ttl", "ttlMs", "integer | null → number | null"],
      ["pollInterval", "pollIntervalMs", "integer → number"],
    ] as const) {
      const hint = `renamed? ${from} → ${to} (type ${types})`;
      const removed = change(diff, "property-removed", `Task.${from}`);
      const added = change(diff, "property-added", `Task.${to}`);
      expect(removed.hint).toBe(hint);
      expect(added.hint).toBe(hint);
    }
    // ttl was required: a new server's task lacks it, which breaks clients that read it.
    expect(change(diff, "property-removed", "Task.ttl").client).toBe("breaking");
  });

  it("tasks/result and tasks/list removed, tasks/update added", () => {
    expect(impact(change(diff, "method-removed", "tasks/result"))).toEqual(BREAKS_CLIENTS);
    expect(impact(change(diff, "method-removed", "tasks/list"))).toEqual(BREAKS_CLIENTS);
    const update = change(diff, "method-added", "tasks/update");
    expect(update.description).toBe("request added (UpdateTaskRequest → UpdateTaskResult)");
    expect(impact(update)).toEqual(BREAKS_SERVERS);
    const methods = diff.changes.filter((c) => c.method !== undefined && c.kind.startsWith("method")).map((c) => `${c.kind} ${c.subject}`);
    expect(methods).toEqual(["method-removed tasks/result", "method-removed tasks/list", "method-added tasks/update"]);
  });

  it("notifications/tasks/status → notifications/tasks: removed + added, with a hint", () => {
    const hint = "renamed? notifications/tasks/status → notifications/tasks (both are TaskStatusNotification)";
    expect(change(diff, "notification-removed", "notifications/tasks/status").hint).toBe(hint);
    expect(change(diff, "notification-added", "notifications/tasks").hint).toBe(hint);
  });

  it("CreateTaskResult: from { task } to a flat task", () => {
    const shape = change(diff, "shape-changed", "CreateTaskResult");
    expect(shape.description).toBe("{ _meta?; task } → { _meta? } & Task");
    expect(shape.hint).toContain("flattened");
    expect(change(diff, "property-removed", "CreateTaskResult.task").description).toBe("required property removed (was Task)");
    for (const name of ["taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"]) {
      expect(change(diff, "property-added", `CreateTaskResult.${name}`).description, name).toMatch(/^required property added/);
    }
  });

  it("the per-status variants appear, and GetTaskResult becomes discriminated on status", () => {
    for (const name of ["WorkingTask", "InputRequiredTask", "CompletedTask", "FailedTask", "CancelledTask"]) {
      expect(impact(change(diff, "definition-added", name)), name).toEqual(COMPATIBLE);
    }
    expect(change(diff, "definition-added", "DetailedTask").description).toBe(
      "definition added: WorkingTask | InputRequiredTask | CompletedTask | FailedTask | CancelledTask, discriminated on status",
    );
    expect(change(diff, "discriminator-changed", "GetTaskResult").description).toMatch(/^now discriminated on status /);
    expect(change(diff, "shape-changed", "GetTaskResult").description).toBe("Result & Task → { _meta? } & DetailedTask");
  });

  it("the summary counts what the changes say", () => {
    const { summary, changes } = diff;
    expect(summary.changes).toBe(changes.length);
    expect(summary.breakingForClients).toBe(changes.filter((c) => c.client === "breaking").length);
    expect(summary.breakingForServers).toBe(changes.filter((c) => c.server === "breaking").length);
    expect(summary.compatible).toBe(changes.filter((c) => c.client === "compatible" && c.server === "compatible").length);
  });

  it("the reverse diff mirrors it: what was added is removed and vice versa", () => {
    const reverse = diffSets(set("ext-tasks-2026-05-22"), set("tasks-2025-11-25"), config.rootDir);
    const mirror: Partial<Record<ApiChange["kind"], ApiChange["kind"]>> = {
      "definition-added": "definition-removed",
      "definition-removed": "definition-added",
      "method-added": "method-removed",
      "method-removed": "method-added",
      "notification-added": "notification-removed",
      "notification-removed": "notification-added",
      "property-added": "property-removed",
      "property-removed": "property-added",
    };
    const key = (c: ApiChange) => `${c.kind} ${c.subject}`;
    const forward = diff.changes.filter((c) => mirror[c.kind]).map((c) => `${mirror[c.kind]} ${c.subject}`).sort();
    expect(reverse.changes.filter((c) => mirror[c.kind]).map(key).sort()).toEqual(forward);
  });
});
