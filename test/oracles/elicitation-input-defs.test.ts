import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as ext from "../../generated/ext-tasks-2026-05-22/validators.js";
import { fixturePath, projectRoot } from "../support/paths.js";

/**
 * schemas/mcp-input-requests-2025-11-25.schema.json is the project's local stand-in for what a
 * task may ask its client (the config binds the ext-tasks draft's InputRequest/InputResponse to
 * it). These tests prove each local definition against the real MCP 2025-11-25 schema, as
 * test/oracles/core-defs.test.ts does for the core stand-in:
 * - exactly the same verdicts, for the definitions copied as they are;
 * - the same verdicts on the request body, for the envelopes (`method` + `params`, without the
 *   JSON-RPC `jsonrpc` and `id` the upstream requests carry);
 * - for the two stated exceptions, exactly the stated difference: a form's `requestedSchema` is
 *   Codex's McpElicitationSchema, and sampling content blocks and tools are checked for their
 *   shape only (never narrower than upstream).
 * And every specification example of these messages is accepted, by the local schema and by the
 * generated ext-tasks validators.
 */

type Json = Record<string, unknown>;
const RUNS = 1_500;
const readJson = (path: string): Json => JSON.parse(readFileSync(path, "utf8")) as Json;
const real = readJson(fixturePath("mcp-spec", "2025-11-25", "schema.json"));
const local = readJson(join(projectRoot, "schemas", "mcp-input-requests-2025-11-25.schema.json"));
const codex = readJson(join(projectRoot, "schemas", "codex-mcp-elicitation-request-params.schema.json"));

const REAL_ID = "urn:test:mcp-2025-11-25";
// The local file refers to the Codex schema by relative path, so both get URLs that resolve it.
const LOCAL_ID = "https://local.test/schemas/mcp-input-requests-2025-11-25.schema.json";
const CODEX_ID = "https://local.test/schemas/codex-mcp-elicitation-request-params.schema.json";

// As in core-defs.test.ts: the upstream 2020-12 document is read by draft-07 ajv without its
// `$schema` (the definitions here use no keyword whose meaning differs), and by Ajv2020 as is.
const { $schema: _dialect, ...realBody } = real;
const ajv07 = new Ajv({ strict: false, validateFormats: false }).addSchema(realBody, REAL_ID).addSchema(local, LOCAL_ID).addSchema(codex, CODEX_ID);
const ajv2020 = new Ajv2020({ strict: false, validateFormats: false }).addSchema(real, REAL_ID);

type Judge = (value: unknown) => boolean;
const judge = (ajv: Ajv | Ajv2020, ref: string): Judge => {
  const validate = ajv.compile({ $ref: ref });
  return (value) => validate(value) === true;
};
const upstream = (name: string): Judge[] => [judge(ajv07, `${REAL_ID}#/$defs/${name}`), judge(ajv2020, `${REAL_ID}#/$defs/${name}`)];
const localDef = (name: string): Judge => judge(ajv07, `${LOCAL_ID}#/$defs/${name}`);
const codexForm = judge(ajv07, `${CODEX_ID}#/definitions/McpElicitationSchema`);

/** An upstream request judged on a body: the body with the JSON-RPC envelope added. */
const enveloped = (judges: Judge[]): Judge[] =>
  judges.map((j) => (value) => (isObject(value) ? j({ ...value, jsonrpc: "2.0", id: 1 }) : j(value)));

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const verdicts = (judges: Judge[], value: unknown) => judges.map((j) => j(value));
const agree = (judges: Judge[], value: unknown) => new Set(verdicts(judges, value)).size === 1;

// ---------------------------------------------------------------------------------------------
// Values: arbitrary JSON, and values shaped like these messages with a fault here and there.

const text = (value: string) => ({ type: "text", text: value });
const GOOD: Record<string, unknown[]> = {
  method: ["elicitation/create", "sampling/createMessage", "roots/list"],
  mode: ["form", "url"],
  message: ["Your name?"],
  url: ["https://example.com/x"],
  elicitationId: ["e1"],
  action: ["accept", "decline", "cancel"],
  content: [{ name: "Ada", n: 3, ok: true, tags: ["a"] }, text("hi"), [text("a"), text("b")]],
  role: ["user", "assistant"],
  model: ["m"],
  stopReason: ["endTurn"],
  maxTokens: [100],
  messages: [[], [{ role: "user", content: text("hi") }]],
  roots: [[], [{ uri: "file:///a", name: "A" }]],
  uri: ["file:///a"],
  name: ["x"],
  ttl: [1000],
  task: [{}, { ttl: 5 }],
  _meta: [{}, { progressToken: "t" }, { progressToken: 3 }],
  progressToken: ["t", 3],
  includeContext: ["none", "thisServer"],
  temperature: [0.5],
  stopSequences: [["\n"]],
  systemPrompt: ["be brief"],
  metadata: [{}, { a: 1 }],
  modelPreferences: [{}, { hints: [{ name: "claude" }], costPriority: 0.2 }],
  hints: [[{ name: "x" }]],
  costPriority: [0, 1],
  speedPriority: [0.5],
  intelligencePriority: [1],
  toolChoice: [{ mode: "auto" }, {}],
  params: [{}, { _meta: {} }],
};
const BAD: unknown[] = [null, 1, -1, 1.5, 2 ** 53, "", "x", true, [], [1], {}, { a: 1 }, { progressToken: 1.5 }, { ttl: 1.5 }, [{ role: "robot" }], { mode: "sometimes" }];
const KEYS = Object.keys(GOOD);

/** Objects with some of the keys, each mostly well-formed, sometimes not. */
const shapedWith = (keys: readonly string[]) =>
  fc
    .tuple(
      fc.subarray([...keys]),
      fc.array(fc.oneof({ weight: 5, arbitrary: fc.constant("good") }, { weight: 1, arbitrary: fc.constant("bad") }), { minLength: keys.length, maxLength: keys.length }),
      fc.array(fc.nat(), { minLength: keys.length, maxLength: keys.length }),
    )
    .map(([chosen, kinds, picks]) =>
      Object.fromEntries(
        chosen.map((key) => {
          const i = keys.indexOf(key);
          const pool = kinds[i] === "good" ? GOOD[key] ?? BAD : BAD;
          return [key, pool[picks[i]! % pool.length]];
        }),
      ),
    );
const shaped = shapedWith(KEYS);

// ---------------------------------------------------------------------------------------------

describe("the local file", () => {
  it("is valid draft-07 and holds exactly the definitions its comment names", () => {
    expect(ajv07.validateSchema(local)).toBe(true);
    expect(Object.keys(local.$defs as Json).sort()).toEqual(
      [
        "CreateMessageRequest", "CreateMessageRequestParams", "CreateMessageResult", "ElicitRequest", "ElicitRequestFormParams", "ElicitRequestParams",
        "ElicitRequestURLParams", "ElicitResult", "ListRootsRequest", "ListRootsResult", "ModelHint", "ModelPreferences", "RequestParams", "Role", "Root",
        "SamplingContent", "SamplingMessage", "SamplingMessageContentBlock", "TaskMetadata", "Tool", "ToolChoice",
      ].sort(),
    );
  });

  it("refers only to itself and to the Codex elicitation schema", () => {
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (isObject(node)) for (const [key, child] of Object.entries(node)) key === "$ref" ? refs.push(child as string) : walk(child);
    };
    walk(local);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(ref).toMatch(/^(#\/\$defs\/|codex-mcp-elicitation-request-params\.schema\.json#\/definitions\/McpElicitationSchema$)/);
  });
});

/** The definitions that are upstream's as they are. */
const EXACT = ["ElicitRequestURLParams", "ElicitResult", "ListRootsResult", "Root", "RequestParams", "TaskMetadata", "ModelPreferences", "ModelHint", "ToolChoice", "Role"];

describe.each(EXACT)("%s is upstream's", (name) => {
  const judges = [...upstream(name), localDef(name)];
  it(`on ${RUNS} arbitrary and ${RUNS} shaped values`, () => {
    fc.assert(fc.property(fc.anything(), (v) => agree(judges, v)), { numRuns: RUNS });
    fc.assert(fc.property(shaped, (v) => agree(judges, v)), { numRuns: RUNS });
  });
  it("not vacuously: both verdicts occur on shaped values", () => {
    const seen = new Set(fc.sample(fc.oneof(shaped, fc.constantFrom(...Object.values(GOOD).flat())), { numRuns: 3_000, seed: 7 }).map((v) => localDef(name)(v)));
    expect(seen).toEqual(new Set([true, false]));
  });
});

describe("ListRootsRequest is upstream's request body (without jsonrpc and id)", () => {
  const judges = [...enveloped(upstream("ListRootsRequest")), localDef("ListRootsRequest")];
  const body = shapedWith(["method", "params", "_meta"]);
  it(`on ${RUNS} shaped values`, () => {
    fc.assert(fc.property(body, (v) => agree(judges, v)), { numRuns: RUNS });
    expect(localDef("ListRootsRequest")({ method: "roots/list" })).toBe(true);
    expect(localDef("ListRootsRequest")({ method: "roots/list", params: { _meta: { progressToken: 1.5 } } })).toBe(false);
  });
});

/** Forms both schemas accept: the spec's examples and a few more. */
const FORMS: Json[] = [
  ...examples("ElicitRequestFormParams").map(([, e]) => e.requestedSchema as Json),
  { type: "object", properties: {} },
  { type: "object", properties: { a: { type: "boolean", default: true }, b: { type: "integer", minimum: 1 } }, required: ["a"] },
  { type: "object", properties: { c: { type: "string", oneOf: [{ const: "x", title: "X" }] } } },
];

describe("ElicitRequestFormParams, ElicitRequestParams and ElicitRequest: upstream's, with Codex's form", () => {
  it("the forms used below are accepted by both form schemas", () => {
    const upstreamForm = judge(ajv07, `${REAL_ID}#/$defs/ElicitRequestFormParams/properties/requestedSchema`);
    for (const form of FORMS) expect([codexForm(form), upstreamForm(form)]).toEqual([true, true]);
  });

  const withForm = fc
    .tuple(shapedWith(["mode", "message", "_meta", "task", "url", "elicitationId"]), fc.option(fc.constantFrom(...FORMS, ...BAD), { nil: undefined }))
    .map(([params, form]) => (form === undefined ? params : { ...params, requestedSchema: form }));

  it.each(["ElicitRequestFormParams", "ElicitRequestParams"])(`%s agrees on ${RUNS} params whose form both accept or both reject`, (name) => {
    const judges = [...upstream(name), localDef(name)];
    fc.assert(fc.property(withForm, (v) => agree(judges, v)), { numRuns: RUNS });
  });

  it(`ElicitRequest agrees with upstream's request body on ${RUNS} values`, () => {
    const judges = [...enveloped(upstream("ElicitRequest")), localDef("ElicitRequest")];
    const requests = fc.tuple(shapedWith(["method"]), fc.option(withForm, { nil: undefined })).map(([r, params]) => (params === undefined ? r : { ...r, params }));
    fc.assert(fc.property(requests, (v) => agree(judges, v)), { numRuns: RUNS });
  });

  it("differs exactly where Codex's form schema differs: nulls for absent keywords, and closed field schemas", () => {
    const upstreamForm = judge(ajv07, `${REAL_ID}#/$defs/ElicitRequestFormParams/properties/requestedSchema`);
    const nulls = { type: "object", properties: { n: { type: "string", title: null } }, required: null };
    const extraKeyword = { type: "object", properties: { n: { type: "string", pattern: "^a" } } };
    expect([codexForm(nulls), upstreamForm(nulls)]).toEqual([true, false]);
    expect([codexForm(extraKeyword), upstreamForm(extraKeyword)]).toEqual([false, true]);
  });
});

describe("sampling: upstream's requests and results, with content blocks and tools checked for their shape only", () => {
  const SAMPLING = ["SamplingMessage", "CreateMessageRequestParams", "CreateMessageResult", "SamplingMessageContentBlock", "Tool"];
  const UPSTREAM_NAME: Record<string, string> = { SamplingMessageContentBlock: "SamplingMessageContentBlock", Tool: "Tool" };

  it.each(SAMPLING)(`%s is never narrower than upstream (${RUNS} arbitrary and ${RUNS} shaped values)`, (name) => {
    const [strict07, strict2020] = upstream(UPSTREAM_NAME[name] ?? name);
    const mine = localDef(name);
    const neverNarrower = (v: unknown) => !(strict07!(v) || strict2020!(v)) || mine(v);
    fc.assert(fc.property(fc.anything(), neverNarrower), { numRuns: RUNS });
    fc.assert(fc.property(shaped, neverNarrower), { numRuns: RUNS });
  });

  it("agrees with upstream on the message fields, for content blocks both accept", () => {
    const blocks = [text("hi"), { type: "image", data: "AA==", mimeType: "image/png" }, { type: "tool_use", id: "1", name: "f", input: {} }];
    const message = fc.record({ role: fc.constantFrom("user", "assistant", "robot", 3), content: fc.constantFrom(...blocks, blocks, [], "text") }, { requiredKeys: [] });
    const params = fc.record(
      { messages: fc.oneof(fc.array(message, { maxLength: 2 }), fc.constantFrom(...BAD)), maxTokens: fc.constantFrom(1, 1.5, "1"), systemPrompt: fc.constantFrom("x", 1), temperature: fc.constantFrom(0.5, "hot") },
      { requiredKeys: [] },
    );
    const judges = [...upstream("CreateMessageRequestParams"), localDef("CreateMessageRequestParams")];
    fc.assert(fc.property(params, (v) => agree(judges, v)), { numRuns: RUNS });
    expect(localDef("CreateMessageRequestParams")({ messages: [{ role: "user", content: text("hi") }] })).toBe(false); // no maxTokens
  });

  it("the stated difference: a block or tool missing a field of its kind is accepted locally, rejected upstream", () => {
    const [strict] = upstream("SamplingMessageContentBlock");
    expect([localDef("SamplingMessageContentBlock")({ type: "text" }), strict!({ type: "text" })]).toEqual([true, false]);
    const [strictTool] = upstream("Tool");
    const tool = { name: "f", inputSchema: { type: "object" }, icons: "none" };
    expect([localDef("Tool")(tool), strictTool!(tool)]).toEqual([true, false]);
  });
});

// ---------------------------------------------------------------------------------------------

function examples(definition: string): [string, Json][] {
  const dir = fixturePath("mcp-spec", "draft", "examples", definition);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => [f, readJson(join(dir, f))]);
}

describe("the specification's examples", () => {
  /** Example folder → the local definition and the generated ext-tasks validator that must accept it. */
  const CASES: [string, string, (v: unknown) => boolean][] = [
    ["ElicitRequest", "ElicitRequest", ext.isElicitRequest],
    ["ElicitRequestFormParams", "ElicitRequestFormParams", ext.isElicitRequestFormParams],
    ["ElicitResult", "ElicitResult", ext.isElicitResult],
    ["CreateMessageRequest", "CreateMessageRequest", ext.isCreateMessageRequest],
    ["CreateMessageRequestParams", "CreateMessageRequestParams", ext.isCreateMessageRequestParams],
    ["CreateMessageResult", "CreateMessageResult", ext.isCreateMessageResult],
    ["SamplingMessage", "SamplingMessage", ext.isSamplingMessage],
    ["ModelPreferences", "ModelPreferences", ext.isModelPreferences],
    ["ListRootsRequest", "ListRootsRequest", ext.isListRootsRequest],
    ["ListRootsResult", "ListRootsResult", ext.isListRootsResult],
    ["Root", "Root", ext.isRoot],
    ["InputRequests", "", ext.isInputRequests],
    ["InputResponses", "", ext.isInputResponses],
  ];
  const rows = CASES.flatMap(([folder, name, generated]) => examples(folder).map(([file, value]) => [`${folder}/${file}`, name, generated, value] as const));

  it.each(rows)("%s is accepted locally and by the generated ext-tasks validators", (_file, name, generated, value) => {
    if (name) expect(localDef(name)(value)).toBe(true);
    expect(generated(value)).toBe(true);
  });

  it("the draft's URL elicitation example omits elicitationId, which 2025-11-25 (upstream and local alike) requires", () => {
    const [[, example]] = examples("ElicitRequestURLParams") as [[string, Json]];
    expect(example).not.toHaveProperty("elicitationId");
    expect([...verdicts(upstream("ElicitRequestURLParams"), example), localDef("ElicitRequestURLParams")(example)]).toEqual([false, false, false]);
    expect(localDef("ElicitRequestURLParams")({ ...example, elicitationId: "e1" })).toBe(true);
  });
});
