import { describe, expect, it } from "vitest";
import { checkConfig, splitNameKey, unusableName, type UserConfig } from "../../../generator/config/config.js";
import { GeneratorError } from "../../../generator/diagnostics.js";

/**
 * The config reader, one row per rule: a parsed config file in, the checked config or the located
 * error (`file#/pointer: message`) out. The files and folders it names are not read here
 * (resolveConfig does that), so every row is plain data.
 */

const FILE = "mcp-tasks-gen.config.json";
const set = (fields: Record<string, unknown> = {}) => ({ sets: [{ name: "api", schemas: ["api.json"], ...fields }] });

/** The checked config, or the error's message as the CLI prints it. */
function checked(json: unknown): UserConfig | string {
  try {
    return checkConfig(json, FILE);
  } catch (e) {
    if (e instanceof GeneratorError) return e.message;
    throw e;
  }
}

describe("checkConfig", () => {
  const rows: [string, unknown, UserConfig | string][] = [
    ["the smallest config", set(), { sets: [{ name: "api", schemas: ["api.json"] }] }],
    [
      "every top-level field",
      { $comment: "note", outDir: "out", emit: "js", extension: ".mts", ...set() },
      { outDir: "out", emit: "js", extension: ".mts", sets: [{ name: "api", schemas: ["api.json"] }] },
    ],
    [
      "a set's own options",
      set({ defaultDialect: "draft-07", annotations: ["x-note"], allOf: "merged", stubs: false, remotes: { "https://example.test/s.json": "s.json" } }),
      {
        sets: [
          {
            name: "api",
            schemas: ["api.json"],
            remotes: { "https://example.test/s.json": "s.json" },
            defaultDialect: "draft-07",
            annotations: ["x-note"],
            allOf: "merged",
            stubs: false,
          },
        ],
      },
    ],
    ["stubs: true is the default, not recorded", set({ stubs: true }), { sets: [{ name: "api", schemas: ["api.json"] }] }],
    ["not an object", [], `${FILE}#: expected an object, got an array`],
    ["no sets", {}, `${FILE}#: missing field "sets": the schema sets to generate`],
    ["an empty list of sets", { sets: [] }, `${FILE}#/sets: expected a non-empty array of schema sets`],
    ["a misspelled top-level field", { ...set(), outdir: "x" }, `${FILE}#/outdir: unknown field "outdir"; did you mean "outDir"?`],
    ["a set field at the top level", { ...set(), names: {} }, `${FILE}#/names: "names" belongs to a set: move it into the set it is about (sets[i].names)`],
    ["a misspelled set field", set({ schema: [] }), `${FILE}#/sets/0/schema: unknown field "schema"; did you mean "schemas"?`],
    ["no schemas", { sets: [{ name: "api" }] }, expect.stringMatching(/^mcp-tasks-gen\.config\.json#\/sets\/0: missing field "schemas"/) as unknown as string],
    ["an empty list of schemas", set({ schemas: [] }), `${FILE}#/sets/0/schemas: expected at least one entry`],
    ["a schema path that is not a string", set({ schemas: [3] }), `${FILE}#/sets/0/schemas/0: expected a non-empty string, got number`],
    ["a set name that is no folder name", { sets: [{ name: "a/b", schemas: ["x.json"] }] }, `${FILE}#/sets/0/name: "a/b" is not a usable folder name (letters, digits, ".", "_", "-")`],
    [
      "two sets of one name",
      { sets: [{ name: "api", schemas: ["a.json"] }, { name: "api", schemas: ["b.json"] }] },
      `${FILE}#/sets/1/name: two sets are named "api"`,
    ],
    ["an unknown dialect", set({ defaultDialect: "draft-03" }), `${FILE}#/sets/0/defaultDialect: expected one of "draft-04", "draft-06", "draft-07", "2019-09", "2020-12"`],
    ["an unknown allOf mode", set({ allOf: "merge" }), `${FILE}#/sets/0/allOf: expected one of "json-schema", "merged"`],
    [
      "stubs that is not a boolean",
      set({ stubs: "no" }),
      `${FILE}#/sets/0/stubs: expected true or false (false: types and validators only, without client and server stubs), got the string "no"`,
    ],
    [
      "statuses the schema adds, final or not",
      set({ statuses: { $comment: "paused ends a task here", paused: { terminal: true }, queued: { terminal: false, $comment: "before working" } } }),
      { sets: [{ name: "api", schemas: ["api.json"], statuses: { paused: { terminal: true }, queued: { terminal: false } } }] },
    ],
    [
      "a status of the protocol's own in statuses",
      set({ statuses: { completed: { terminal: false } } }),
      `${FILE}#/sets/0/statuses/completed: "completed" is one of the protocol's own statuses (working, input_required, completed, failed, cancelled), whose finality is fixed; "statuses" is for statuses the schema adds`,
    ],
    ["a status entry without terminal", set({ statuses: { paused: {} } }), `${FILE}#/sets/0/statuses/paused: missing field "terminal": true if a task never leaves this status, false if it does`],
    ["terminal that is not a boolean", set({ statuses: { paused: { terminal: "yes" } } }), `${FILE}#/sets/0/statuses/paused/terminal: expected true or false, got the string "yes"`],
    ["a misspelled field of a status", set({ statuses: { paused: { final: true } } }), `${FILE}#/sets/0/statuses/paused/final: unknown field "final"; expected one of "$comment", "terminal"`],
    ["statuses that is not an object", set({ statuses: ["paused"] }), `${FILE}#/sets/0/statuses: expected an object, got an array`],
    ["an unknown emit language", { ...set(), emit: "py" }, expect.stringMatching(/^mcp-tasks-gen\.config\.json#\/emit: expected "ts" or "js"/) as unknown as string],
    ["a chosen name key without a pointer", set({ names: { "api.json": "Api" } }), expect.stringMatching(/^mcp-tasks-gen\.config\.json#\/sets\/0\/names\/api\.json: expected a key of the form "file#\/json\/pointer"/) as unknown as string],
    [
      "one name chosen twice",
      set({ names: { "api.json#/$defs/a": "Same", "api.json#/$defs/b": "Same" } }),
      `${FILE}#/sets/0/names/api.json#~1$defs~1b: the name "Same" is already chosen for "api.json#/$defs/a"`,
    ],
    ["a binding that is not a schema", set({ bindings: { A: 3 } }), `${FILE}#/sets/0/bindings/A: expected a JSON Schema (an object or a boolean) for "A"`],
  ];
  it.each(rows)("%s", (_, json, expected) => {
    expect(checked(json)).toEqual(expected);
  });
});

describe("splitNameKey", () => {
  it.each([
    ["schemas/x.json#/$defs/a b", ["schemas/x.json", "/$defs/a b"]],
    ["x.json#", ["x.json", ""]],
    ["x.json", undefined],
    ["#/$defs/a", undefined],
  ] as const)("%s", (key, expected) => {
    expect(splitNameKey(key)).toEqual(expected);
  });
});

describe("unusableName", () => {
  it.each([
    ["Task", undefined],
    ["task_2", undefined],
    ["2Task", expect.any(String)],
    ["class", expect.any(String)],
    ["a-b", expect.any(String)],
  ] as const)("%s", (name, expected) => {
    expect(unusableName(name)).toEqual(expected);
  });
});
