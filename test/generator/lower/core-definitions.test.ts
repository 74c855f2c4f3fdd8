import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSet } from "../../../generator/generate.js";
import { checkConfig, resolveConfig, type GeneratedSet, type ResolvedSet } from "../../../generator/index.js";
import type { Model } from "../../../generator/analyze/model.js";
import { coreFlows } from "../../../generator/analyze/protocol/core-flows.js";
import { clientFeatures } from "../../../generator/analyze/protocol/client-features.js";
import { runCli } from "../../support/cli.js";
import { loadGeneratedModules, type LoadedModules, writeGeneratedSources } from "../../support/generated-modules.js";
import { projectRoot } from "../../support/paths.js";
import { generateRevisions, REVISIONS } from "../../support/revisions.js";
import { cleanUpOracle, compileSets, oracleAjv } from "../../support/schema-oracle.js";
import { anyJson, constantsOf, mutatedValues, validish, type SchemaObject } from "../../support/schema-values.js";

/**
 * Core definitions (README › Core definitions): a set with a core schema generates the definitions
 * the stubs' flows use from it, with exactly what they reference, and no more; the ones its own
 * schema shares stay its own (no name clash); a name the config adds that the core lacks is a
 * located error. Proved on both bundled revisions that have a core schema.
 */

type Json = Record<string, unknown>;
const readJson = (path: string): Json => JSON.parse(readFileSync(join(projectRoot, path), "utf8")) as Json;
const defsOf = (doc: Json): Json => (doc.$defs ?? doc.definitions ?? {}) as Json;

/** What each revision's stubs take from its core schema (README › Core definitions): the roots, before the closure. */
const CASES = [
  {
    revision: "tasks-2025-11-25",
    tasks: "schemas/tasks-2025-11-25.schema.json",
    core: "schemas/mcp-2025-11-25.schema.json",
    roots: [
      "ListToolsRequest", "ListToolsResult", "CallToolRequest", "CallToolResult", "GetPromptRequest", "GetPromptResult",
      "ReadResourceRequest", "ReadResourceResult", "ElicitRequest", "ElicitResult", "CreateMessageRequest", "CreateMessageResult",
      "ToolListChangedNotification",
    ],
    // The Tasks schema's own $refs into the core (a mapped remote): they were generated before core definitions existed.
    alsoFromTasks: ["RequestId", "Result", "ProgressToken", "PaginatedRequestParams", "NotificationParams"],
  },
  {
    revision: "ext-tasks-e434597",
    tasks: "schemas/ext-tasks-draft.schema.json",
    core: "schemas/ext-tasks-draft.core.schema.json",
    roots: [
      "ListToolsRequest", "ListToolsResult", "CallToolRequest", "CallToolResult", "GetPromptRequest", "GetPromptResult",
      "ReadResourceRequest", "ReadResourceResult", "DiscoverRequest", "DiscoverResult", "SubscriptionsListenRequest",
      "SubscriptionsListenResult", "SubscriptionsAcknowledgedNotification", "ToolListChangedNotification", "InputRequiredResult",
      "InputResponseRequestParams", "UnsupportedProtocolVersionError", "MissingRequiredClientCapabilityError",
      // elicitation/create and sampling/createMessage: the core writes them without the JSON-RPC envelope (input requests), so they are no requests of a flow; the Tasks schema has them.
    ],
    alsoFromTasks: [],
  },
] as const;

/** Definition names a `$ref` closure over `#/$defs/...` reaches from `roots` in one document. */
function closure(doc: Json, roots: readonly string[]): Set<string> {
  const defs = defsOf(doc);
  const seen = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref" && typeof value === "string") {
          const name = /#\/(?:\$defs|definitions)\/(.+)$/.exec(value)?.[1];
          if (name !== undefined && /^#/.test(value)) add(decodeURIComponent(name));
        } else visit(value);
      }
    }
  };
  const add = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    visit(defs[name]);
  };
  roots.forEach(add);
  return seen;
}

function setOf(revision: string): ResolvedSet {
  const entry = REVISIONS.find((r) => r.id === revision)!;
  return resolveConfig(checkConfig({ sets: [{ name: revision, ...entry.set }] }, "(test)"), projectRoot).sets[0]!;
}

const modelOf = (set: ResolvedSet): Model => loadSet(set, projectRoot).model;
/** The declared (not hoisted) definitions of a model, by the file each comes from. */
const fromFile = (model: Model, fileEnd: string): string[] =>
  model.definitions.filter((d) => !d.owner && d.loc.file.endsWith(fileEnd) && /^\/\$defs\/[^/]+$/.test(d.loc.pointer)).map((d) => d.name).sort();

describe.each(CASES)("$revision: core definitions", (c) => {
  const model = modelOf(setOf(c.revision));
  const tasks = readJson(c.tasks);
  const core = readJson(c.core);

  it("takes from the core schema exactly the $ref closure of the flows' roots, less what the Tasks schema has", () => {
    const own = new Set(Object.keys(defsOf(tasks)));
    const reachable = closure(core, [...c.roots, ...c.alsoFromTasks]);
    const expected = [...reachable].filter((name) => !own.has(name)).sort();
    expect(fromFile(model, c.core.split("/").pop()!)).toEqual(expected);
    // Something is actually taken, and every root is a type of the set.
    expect(expected.length).toBeGreaterThan(c.roots.length / 2);
    for (const root of c.roots) expect(model.definitions.some((d) => d.name === root), root).toBe(true);
  });

  it("keeps the Tasks schema's definitions its own: every name once, the shared ones from the Tasks schema", () => {
    const names = model.definitions.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    const shared = [...closure(core, c.roots)].filter((name) => name in defsOf(tasks));
    for (const name of shared) {
      const def = model.definitions.find((d) => d.name === name && !d.owner)!;
      expect(def.loc.file, name).toMatch(/(tasks-2025-11-25|ext-tasks-draft)\.schema\.json$/);
    }
  });

  it("derives the roots from the flows, not from names: a set without stubs takes nothing", () => {
    const bare = modelOf({ ...setOf(c.revision), stubs: false });
    expect(fromFile(bare, c.core.split("/").pop()!)).toEqual(
      [...closure(core, c.alsoFromTasks)].filter((name) => !(name in defsOf(tasks))).sort(),
    );
  });
});

describe("core flows: what the stubs' profiles read from the core definitions", () => {
  it("2025-11-25: tools with taskSupport, elicitation and sampling requests, no listen stream or multi round-trip", () => {
    const model = modelOf(setOf("tasks-2025-11-25"));
    const flows = coreFlows(model);
    expect(Object.keys(flows.requests).sort()).toEqual(
      ["elicitation/create", "prompts/get", "resources/read", "sampling/createMessage", "tools/call", "tools/list"].sort(),
    );
    expect(flows.requests["elicitation/create"]).toMatchObject({ type: "ElicitRequest", result: { type: "ElicitResult" } });
    expect(flows.requests["sampling/createMessage"]).toMatchObject({ type: "CreateMessageRequest", result: { type: "CreateMessageResult" } });
    expect(flows.taskSupport).toEqual({ tool: "Tool", path: ["execution", "taskSupport"], values: ["forbidden", "optional", "required"] });
    // The client's toolTaskSupport() is typed by what the Tool declares.
    expect(clientFeatures(model)!.taskSupport).toEqual({ type: "ToolTaskSupport" });
    expect(flows.listen).toBeUndefined();
    expect(flows.inputRequired).toBeUndefined();
    expect(flows.errors).toEqual([]);
  });

  it("e434597: multi round-trip, the listen stream, discovery and the -32022/-32021 error data", () => {
    const flows = coreFlows(modelOf(setOf("ext-tasks-e434597")));
    expect(flows.inputRequired).toEqual({
      type: "InputRequiredResult",
      validate: "validateInputRequiredResult",
      resultType: "input_required",
      requestsField: "inputRequests",
      stateField: "requestState",
      responsesField: "inputResponses",
      requestsType: "InputRequests",
      responsesType: "InputResponses",
      retryParams: "InputResponseRequestParams",
    });
    expect(flows.listen?.request).toMatchObject({ type: "SubscriptionsListenRequest", params: "SubscriptionsListenRequestParams", result: { type: "SubscriptionsListenResult" } });
    expect(flows.listen?.acknowledged?.type).toBe("SubscriptionsAcknowledgedNotification");
    expect(flows.listen?.filter?.type).toBe("SubscriptionFilter");
    expect(flows.listen?.filter?.keys).toContain("toolsListChanged");
    expect(flows.requests["server/discover"]).toMatchObject({ type: "DiscoverRequest", result: { type: "DiscoverResult" } });
    // The extension's Tool declares no per-tool task support.
    expect(flows.taskSupport).toBeUndefined();
    // The stubs' features carry the same facts, for client and server alike.
    expect(clientFeatures(modelOf(setOf("ext-tasks-e434597")))!.server.flows).toEqual(flows);
    const byCode = Object.fromEntries(flows.errors.map((e) => [e.code, e]));
    expect(byCode[-32022]).toMatchObject({ type: "UnsupportedProtocolVersionError", requiredDataFields: ["requested", "supported"] });
    expect(byCode[-32021]).toMatchObject({ type: "MissingRequiredClientCapabilityError", requiredDataFields: ["requiredCapabilities"] });
  });
});

describe("core: config", () => {
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-core-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const writeConfig = (name: string, set: Json) => {
    const folder = join(dir, name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "schema.json"), JSON.stringify(OWN));
    writeFileSync(join(folder, "core.json"), JSON.stringify(CORE));
    writeFileSync(join(folder, "mcp-tasks-gen.config.json"), JSON.stringify({ sets: [{ name: "s", schemas: ["schema.json"], ...set }] }, null, 2));
    return folder;
  };
  const OWN = { $defs: { Thing: { type: "object", properties: { shared: { $ref: "#/$defs/Shared" } } }, Shared: { type: "string", minLength: 1 } } };
  const CORE = {
    $defs: {
      Extra: { type: "object", properties: { a: { $ref: "#/$defs/Shared" }, b: { $ref: "#/$defs/Leaf" } } },
      Shared: { type: "string", minLength: 1 },
      Leaf: { type: "integer" },
      Unreached: { type: "boolean" },
    },
  };

  it("include adds a core definition and what it references; a shared one stays the set's own", async () => {
    const folder = writeConfig("ok", { core: { schema: "core.json", include: ["Extra"] }, stubs: false });
    const result = await runCli(["--config", join(folder, "mcp-tasks-gen.config.json")]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const types = readFileSync(join(folder, "generated", "s", "types.ts"), "utf8");
    const declared = [...types.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]).sort();
    expect(declared).toEqual(["Extra", "Leaf", "Shared", "Thing"]);
    const validators = readFileSync(join(folder, "generated", "s", "validators.ts"), "utf8");
    expect(validators).toContain("core.json#/$defs/Leaf");
    expect(validators).not.toContain("core.json#/$defs/Shared");
  });

  it("a name the core schema lacks is a located error, with the nearest name, and nothing is written", async () => {
    const folder = writeConfig("bad", { core: { schema: "core.json", include: ["Extra", "Extar2"] } });
    const result = await runCli(["--config", join(folder, "mcp-tasks-gen.config.json")]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/^\S*mcp-tasks-gen\.config\.json#\/sets\/0\/core\/include\/1: "Extar2" is not a definition of the core schema \S*core\.json; did you mean "Extra"\?$/);
    expect(() => readFileSync(join(folder, "generated", "s", "types.ts"))).toThrow();
  });

  it("a core definition of the same name but another body is not the set's: referenced, it is named after its file; asked for too, with a warning", async () => {
    const referenced = writeConfig("differs", { core: { schema: "core.json", include: ["Extra"] }, stubs: false });
    writeFileSync(join(referenced, "core.json"), JSON.stringify({ $defs: { ...CORE.$defs, Shared: { type: "string" } } }));
    expect((await runCli(["--config", join(referenced, "mcp-tasks-gen.config.json")])).code).toBe(0);
    const types = readFileSync(join(referenced, "generated", "s", "types.ts"), "utf8");
    expect([...types.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]).sort()).toEqual(["CoreShared", "Extra", "Leaf", "Shared", "Thing"]);

    const asked = writeConfig("clash", { core: { schema: "core.json", include: ["Extra", "Shared"] }, stubs: false });
    writeFileSync(join(asked, "core.json"), JSON.stringify({ $defs: { ...CORE.$defs, Shared: { type: "string" } } }));
    const result = await runCli(["--config", join(asked, "mcp-tasks-gen.config.json")]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/core\.json#\/\$defs\/Shared: \[name-clash\] named "CoreShared": "Shared" is also the name of \S*schema\.json#\/\$defs\/Shared; to choose a name, add to "names"/);
    const askedTypes = readFileSync(join(asked, "generated", "s", "types.ts"), "utf8");
    expect([...askedTypes.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]).sort()).toEqual(["CoreShared", "Extra", "Leaf", "Shared", "Thing"]);
  });

  it("core without a schema, or with an unknown field, is a located error", async () => {
    for (const [core, message] of [
      [{ include: ["X"] }, `mcp-tasks-gen.config.json#/sets/0/core: missing field "schema"`],
      [{ schema: "core.json", includes: [] }, `mcp-tasks-gen.config.json#/sets/0/core/includes: unknown field "includes"; did you mean "include"?`],
      [{ schema: "missing.json" }, `mcp-tasks-gen.config.json#/sets/0/core/schema: missing.json not found`],
    ] as const) {
      const folder = writeConfig(`field-${message.length}`, { core });
      const result = await runCli(["--config", join(folder, "mcp-tasks-gen.config.json")]);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split("\n"), result.stderr).toHaveLength(1);
      expect(result.stderr.includes(message), result.stderr).toBe(true);
    }
  });
});

describe("the generated core definitions: compiled and checked against ajv", () => {
  let generated = new Map<string, GeneratedSet>();
  let root = "";
  const loaded = new Map<string, LoadedModules>();
  beforeAll(async () => {
    generated = await generateRevisions(REVISIONS.filter((r) => CASES.some((c) => c.revision === r.id)));
    root = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-core-compile-"));
    for (const [name, set] of generated) {
      writeGeneratedSources(set.files, join(root, name));
      loaded.set(name, loadGeneratedModules(set.files, name));
    }
  }, 120_000);
  afterAll(() => {
    for (const modules of loaded.values()) modules.remove();
    if (root) rmSync(root, { recursive: true, force: true });
    cleanUpOracle();
  });

  it("every set compiles under plain strict and the README's full flag set", () => {
    const results = compileSets([...generated.keys()].map((name) => join(root, name)));
    for (const [dir, result] of results) {
      expect(result.strict, dir).toEqual([]);
      expect(result.full, dir).toEqual([]);
    }
  }, 120_000);

  it.each(CASES)("$revision: each core definition's validator gives ajv's verdict", async (c) => {
    const core = readJson(c.core) as SchemaObject;
    const uri = "urn:test:core";
    const documents = new Map<string, SchemaObject>([[uri, core]]);
    const ajv = oracleAjv("2020-12", documents);
    const validators = await loaded.get(c.revision)!.import<Record<string, (v: unknown) => boolean>>("validators.ts");
    const place = { set: { documents }, baseUri: uri };
    const constants = constantsOf({ documents });
    const names = [...closure(core, c.roots)];
    let accepted = 0;
    for (const name of names) {
      const is = validators[`is${name}`];
      expect(typeof is, `is${name}`).toBe("function");
      const judge = ajv.compile({ $ref: `${uri}#/$defs/${name}` });
      const built = validish((defsOf(core) as Record<string, SchemaObject>)[name]!, place);
      const values = [...fc.sample(built, 25), ...fc.sample(mutatedValues(built, constants), 25), ...fc.sample(anyJson, 10)];
      for (const value of values) {
        const verdict = judge(value) === true;
        if (verdict) accepted++;
        expect(is!(value), `${name}: ${JSON.stringify(value)?.slice(0, 300)}`).toBe(verdict);
      }
    }
    // The values are not all rejected (an agreement on garbage alone would prove little).
    expect(accepted).toBeGreaterThan(names.length * 5);
  }, 120_000);
});
