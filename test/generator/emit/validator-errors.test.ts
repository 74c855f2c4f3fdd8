import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
// The validators modules (an index also exports other modules' functions, such as validateElicitationContent).
import * as codex from "../../../generated/elicitation-codex/validators.js";
import * as ext from "../../../generated/ext-tasks-2026-05-22/validators.js";
import * as t25 from "../../../generated/tasks-2025-11-25/validators.js";
import { projectRoot } from "../../support/paths.js";

/**
 * Error quality of the committed generated validators: for the mistakes people actually make,
 * the first error names the right place (`path`), the right keyword, and the right spot in the
 * right schema file (`schemaPath`); a discriminated union reports one error at its tag, not one
 * per branch; and `parseX` throws the very errors `validateX` returns.
 */

interface ValidationError {
  readonly path: string;
  readonly keyword: string;
  readonly message: string;
  readonly schemaPath: string;
}
type Module = Record<string, unknown>;

/** Each set's module and the schema files its errors may point into (seed first, then remotes). */
const SETS = {
  "ext-tasks-2026-05-22": {
    module: ext as Module,
    // The files the config's bindings reach (bound InputRequest/InputResponse) come after the seed.
    files: ["schemas/ext-tasks-2026-05-22.schema.json", "schemas/mcp-input-requests-2025-11-25.schema.json", "schemas/codex-mcp-elicitation-request-params.schema.json"],
  },
  "tasks-2025-11-25": {
    module: t25 as Module,
    files: ["schemas/tasks-2025-11-25.schema.json", "schemas/mcp-2025-11-25.schema.json"],
  },
  "elicitation-codex": { module: codex as Module, files: ["schemas/codex-mcp-elicitation-request-params.schema.json"] },
} as const;
type SetName = keyof typeof SETS;

function entryPoints(set: SetName, definition: string) {
  const module = SETS[set].module;
  const validate = module[`validate${definition}`];
  const parse = module[`parse${definition}`];
  if (typeof validate !== "function" || typeof parse !== "function") throw new Error(`generated/${set} has no validate/parse${definition}`);
  return {
    validate: validate as (v: unknown) => { ok: true; value: unknown } | { ok: false; errors: readonly ValidationError[] },
    parse: parse as (v: unknown) => unknown,
    ValidationFailed: module.ValidationFailed as new (...args: never[]) => Error & { errors: readonly ValidationError[] },
  };
}

/** The errors of a value that must be rejected. */
function errorsOf(set: SetName, definition: string, value: unknown): readonly ValidationError[] {
  const result = entryPoints(set, definition).validate(value);
  if (result.ok) throw new Error(`validate${definition} accepted ${JSON.stringify(value)}`);
  return result.errors;
}

// ---------------------------------------------------------------------------------------------
// schemaPath: `file#/json/pointer`, the file one of the set's, the pointer resolvable in it.
// ---------------------------------------------------------------------------------------------

const schemaFiles = new Map<string, unknown>();
function schemaFile(file: string): unknown {
  if (!schemaFiles.has(file)) schemaFiles.set(file, JSON.parse(readFileSync(join(projectRoot, file), "utf8")));
  return schemaFiles.get(file);
}

/** What is wrong with a schemaPath, or undefined when it points at a real keyword of a set's file. */
function schemaPathProblem(set: SetName, error: ValidationError): string | undefined {
  const hash = error.schemaPath.indexOf("#");
  const file = error.schemaPath.slice(0, hash);
  const pointer = error.schemaPath.slice(hash + 1);
  if (hash < 0 || !(SETS[set].files as readonly string[]).includes(file)) return "not in one of the set's schema files";
  if (pointer !== "" && !pointer.startsWith("/")) return "not a JSON pointer";
  let node: unknown = schemaFile(file);
  const tokens = pointer === "" ? [] : pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  for (const token of tokens) {
    if (node === null || typeof node !== "object" || !Object.prototype.hasOwnProperty.call(node, token)) {
      return `does not resolve: no "${token}" there`;
    }
    node = (node as Record<string, unknown>)[token];
  }
  // The pointer ends at the failing keyword, or at a union that reports for all its branches;
  // a never-matching schema (`false`, `not: {}`) reports keyword "false".
  const last = tokens[tokens.length - 1] ?? "";
  if (last === error.keyword || ["anyOf", "oneOf", "allOf"].includes(last)) return undefined;
  if (error.keyword === "false" && (node === false || last === "not")) return undefined;
  return `ends at "${last}", not at the ${error.keyword} keyword`;
}

function expectGoodSchemaPaths(set: SetName, errors: readonly ValidationError[], prefix: string): void {
  for (const error of errors) {
    expect(error.schemaPath, `schemaPath of the error at ${error.path}`).toMatch(new RegExp(`^${escapeRegExp(prefix)}`));
    expect(schemaPathProblem(set, error), `schemaPath ${error.schemaPath}`).toBeUndefined();
  }
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** parseX throws ValidationFailed carrying exactly validateX's errors, the first one in its message. */
function expectParseThrowsSameErrors(set: SetName, definition: string, value: unknown): void {
  const { validate, parse, ValidationFailed } = entryPoints(set, definition);
  const result = validate(value);
  if (result.ok) throw new Error(`validate${definition} accepted ${JSON.stringify(value)}`);
  let thrown: unknown;
  try {
    parse(value);
  } catch (e) {
    thrown = e;
  }
  expect(thrown, `parse${definition} throws ValidationFailed`).toBeInstanceOf(ValidationFailed);
  const failure = thrown as InstanceType<typeof ValidationFailed>;
  expect(failure.name).toBe("ValidationFailed");
  expect(failure.errors).toEqual(result.errors);
  expect(failure.message).toContain(result.errors[0]!.path || "(root)");
  expect(failure.message).toContain(result.errors[0]!.message);
}

// ---------------------------------------------------------------------------------------------
// Typical mistakes.
// ---------------------------------------------------------------------------------------------

const EXT_PREFIX = "schemas/ext-tasks-2026-05-22.schema.json#/$defs/";
const T25_PREFIX = "schemas/tasks-2025-11-25.schema.json#/$defs/";
const CODEX_PREFIX = "schemas/codex-mcp-elicitation-request-params.schema.json#/";

const extWorking = { taskId: "t-1", status: "working", createdAt: "2025-11-25T10:30:00Z", lastUpdatedAt: "2025-11-25T10:40:00Z", ttlMs: 60000 };
const t25Working = { taskId: "t-1", status: "working", createdAt: "2025-11-25T10:30:00Z", lastUpdatedAt: "2025-11-25T10:40:00Z", ttl: 60000 };
const EXT_STATUSES = ["working", "input_required", "completed", "failed", "cancelled"];

const without = (object: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));

interface Case {
  readonly name: string;
  readonly set: SetName;
  readonly definition: string;
  readonly value: unknown;
  /** The first error's path and keyword. */
  readonly path: string;
  readonly keyword: string;
  readonly schemaPathPrefix: string;
  /** When set, the exact number of errors. */
  readonly count?: number;
  /** Strings the first error's message must contain. */
  readonly mentions?: readonly string[];
}

const CASES: Case[] = [];
for (const definition of ["GetTaskResult", "DetailedTask"]) {
  CASES.push(
    {
      name: `unknown status (one error at the tag, not one per branch)`,
      set: "ext-tasks-2026-05-22",
      definition,
      value: { ...extWorking, status: "done" },
      path: "/status",
      keyword: "discriminator",
      count: 1,
      mentions: [...EXT_STATUSES.map((s) => `"${s}"`), "got another string"],
      schemaPathPrefix: EXT_PREFIX,
    },
    {
      name: "completed without result",
      set: "ext-tasks-2026-05-22",
      definition,
      value: { ...extWorking, status: "completed" },
      path: "/result",
      keyword: "required",
      mentions: ['"result"'],
      schemaPathPrefix: EXT_PREFIX,
    },
    {
      name: "ttlMs as a string",
      set: "ext-tasks-2026-05-22",
      definition,
      value: { ...extWorking, ttlMs: "60000" },
      path: "/ttlMs",
      keyword: "type",
      // A type error names the JSON type it got (the value itself only for a number).
      mentions: ["number", "null", "got a string"],
      schemaPathPrefix: EXT_PREFIX,
    },
    {
      name: "an extra property",
      set: "ext-tasks-2026-05-22",
      definition,
      value: { ...extWorking, extra: true },
      path: "/extra",
      keyword: "additionalProperties",
      mentions: ["unexpected property"],
      schemaPathPrefix: EXT_PREFIX,
    },
    {
      name: "not an object",
      set: "ext-tasks-2026-05-22",
      definition,
      value: "",
      path: "",
      keyword: "type",
      schemaPathPrefix: EXT_PREFIX,
    },
  );
}
CASES.push({
  name: "params.taskId a number",
  set: "ext-tasks-2026-05-22",
  definition: "GetTaskRequest",
  value: { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: 42 } },
  path: "/params/taskId",
  keyword: "type",
  schemaPathPrefix: `${EXT_PREFIX}GetTaskRequest/`,
});

for (const definition of ["GetTaskResult", "Task"]) {
  CASES.push(
    {
      name: "unknown status (an enum in this revision)",
      set: "tasks-2025-11-25",
      definition,
      value: { ...t25Working, status: "done" },
      path: "/status",
      keyword: "enum",
      count: 1,
      mentions: [...EXT_STATUSES.map((s) => `"${s}"`), "got another string"],
      schemaPathPrefix: `${T25_PREFIX}TaskStatus/`,
    },
    {
      name: "ttl as a string",
      set: "tasks-2025-11-25",
      definition,
      value: { ...t25Working, ttl: "60000" },
      path: "/ttl",
      keyword: "type",
      // The schema says `type: ["integer", "null"]`; "a number" would invite 1.5.
      mentions: ["integer", "null", "got a string"],
      schemaPathPrefix: `${T25_PREFIX}Task/`,
    },
    {
      name: "ttl missing (it is required, null meaning unlimited)",
      set: "tasks-2025-11-25",
      definition,
      value: without(t25Working, "ttl"),
      path: "/ttl",
      keyword: "required",
      mentions: ['"ttl"'],
      schemaPathPrefix: `${T25_PREFIX}Task/`,
    },
  );
}
CASES.push(
  {
    name: "not an object",
    set: "tasks-2025-11-25",
    definition: "Task",
    value: "",
    path: "",
    keyword: "type",
    schemaPathPrefix: `${T25_PREFIX}Task/`,
  },
  {
    // GetTaskResult is allOf [core Result, Task]: the core Result's `type`, the Task's, or the
    // allOf itself are all fair places, in either file; the pointer must resolve (checked below).
    name: "not an object",
    set: "tasks-2025-11-25",
    definition: "GetTaskResult",
    value: "",
    path: "",
    keyword: "type",
    schemaPathPrefix: "schemas/",
  },
  {
    name: "params.taskId a number",
    set: "tasks-2025-11-25",
    definition: "GetTaskRequest",
    value: { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: 42 } },
    path: "/params/taskId",
    keyword: "type",
    schemaPathPrefix: `${T25_PREFIX}GetTaskRequest/`,
  },
  {
    name: "a fractional request id (checked by the remote core RequestId)",
    set: "tasks-2025-11-25",
    definition: "GetTaskRequest",
    value: { jsonrpc: "2.0", id: 1.5, method: "tasks/get", params: { taskId: "t-1" } },
    path: "/id",
    keyword: "type",
    schemaPathPrefix: "schemas/mcp-2025-11-25.schema.json#/$defs/RequestId/",
  },
);

const codexBase = { serverName: "srv", threadId: "th-1", message: "Please confirm" };
CASES.push(
  {
    name: "unknown mode (one error at the tag listing every mode)",
    set: "elicitation-codex",
    definition: "McpServerElicitationRequestParams",
    value: { ...codexBase, mode: "dialog", requestedSchema: { type: "object", properties: {} } },
    path: "/mode",
    keyword: "discriminator",
    count: 1,
    mentions: ['"form"', '"openai/form"', '"openaiForm"', '"url"', "got another string"],
    schemaPathPrefix: `${CODEX_PREFIX}oneOf`,
  },
  {
    name: "url mode without url",
    set: "elicitation-codex",
    definition: "McpServerElicitationRequestParams",
    value: { ...codexBase, mode: "url", elicitationId: "e-1" },
    path: "/url",
    keyword: "required",
    mentions: ['"url"'],
    schemaPathPrefix: `${CODEX_PREFIX}oneOf/3/`,
  },
);

describe("first errors for typical mistakes", () => {
  for (const c of CASES) {
    it(`${c.set} ${c.definition}: ${c.name} → ${c.path || '""'} ${c.keyword}`, () => {
      const errors = errorsOf(c.set, c.definition, c.value);
      const first = errors[0]!;
      expect({ path: first.path, keyword: first.keyword }, JSON.stringify(errors)).toEqual({ path: c.path, keyword: c.keyword });
      if (c.count !== undefined) expect(errors, "number of errors").toHaveLength(c.count);
      for (const text of c.mentions ?? []) expect(first.message).toContain(text);
      expectGoodSchemaPaths(c.set, errors, c.schemaPathPrefix);
      expectParseThrowsSameErrors(c.set, c.definition, c.value);
    });
  }

  it("an extra property is fine on a 2025-11-25 Task (no additionalProperties there), unlike in ext-tasks", () => {
    expect(t25.validateTask({ ...t25Working, extra: true }).ok).toBe(true);
    expect(ext.validateDetailedTask({ ...extWorking, extra: true }).ok).toBe(false);
  });

  it("valid values pass every entry point unchanged", () => {
    for (const [set, definition, value] of [
      ["ext-tasks-2026-05-22", "GetTaskResult", extWorking],
      ["ext-tasks-2026-05-22", "DetailedTask", { ...extWorking, status: "completed", result: { content: [] } }],
      ["tasks-2025-11-25", "GetTaskResult", t25Working],
      ["elicitation-codex", "McpServerElicitationRequestParams", { ...codexBase, mode: "url", elicitationId: "e-1", url: "https://example.com" }],
    ] as const) {
      const { validate, parse } = entryPoints(set, definition);
      expect(validate(value), `${set} ${definition}`).toEqual({ ok: true, value });
      expect(parse(value)).toBe(value);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Every error of every definition, over a fixed set of wrong values: well-formed paths and
// schemaPaths that resolve in the set's schema files.
// ---------------------------------------------------------------------------------------------

const PROBES: unknown[] = [
  "",
  null,
  0,
  1.5,
  true,
  [],
  [{}],
  {},
  { status: "done" },
  { ...extWorking, status: "input_required", inputRequests: 3 },
  { ...extWorking, status: "failed", error: [] },
  { ...t25Working, ttl: 1.5, pollInterval: "x" },
  { jsonrpc: "1.0", id: 1.5, method: "x", params: { taskId: 5, inputResponses: [] } },
  { jsonrpc: "2.0", method: "notifications/tasks", params: { ...extWorking, ttlMs: "x" } },
  { ...codexBase, mode: "form", requestedSchema: { type: "object", properties: { a: { type: "strin" }, b: 3 } } },
  { ...codexBase, mode: "url" },
  { type: "array", items: { anyOf: [{ const: 1 }] } },
  { tasks: [{ taskId: 1 }], nextCursor: 2 },
  ...fc.sample(fc.jsonValue({ maxDepth: 3 }), { numRuns: 150, seed: 20251125 }),
];

describe("error paths and schemaPaths are well formed for every definition", () => {
  for (const set of Object.keys(SETS) as SetName[]) {
    it(set, () => {
      const problems = new Set<string>();
      let checked = 0;
      for (const name of Object.keys(SETS[set].module)) {
        if (!name.startsWith("validate")) continue;
        const definition = name.slice("validate".length);
        const { validate } = entryPoints(set, definition);
        for (const value of PROBES) {
          const result = validate(value);
          if (result.ok) continue;
          if (result.errors.length === 0) problems.add(`${definition}: rejects ${JSON.stringify(value)} with no error`);
          for (const error of result.errors) {
            checked++;
            if (error.path !== "" && !error.path.startsWith("/")) problems.add(`${definition}: path ${JSON.stringify(error.path)} is not a JSON pointer`);
            if (!error.message) problems.add(`${definition}: empty message at ${error.path}`);
            const problem = schemaPathProblem(set, error);
            if (problem) problems.add(`${definition} (${error.keyword}): schemaPath ${error.schemaPath} ${problem}`);
          }
        }
      }
      expect(checked, "errors examined").toBeGreaterThan(100);
      expect([...problems].sort()).toEqual([]);
    });
  }
});
