import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Ajv } from "ajv";
import { afterAll, describe, expect, it } from "vitest";
import {
  ALL_OF_MODES,
  checkConfig,
  CONFIG_FIELDS,
  DIALECTS,
  EMIT_LANGUAGES,
  LINT_SETTINGS,
  readConfigFile,
  SET_FIELDS,
} from "../../../generator/config/config.js";
import { GeneratorError } from "../../../generator/diagnostics.js";
import { BUNDLED_SET_NAMES, packageRoot } from "../../../generator/init/bundled.js";
import { CONFIG_SCHEMA_FILE, initProject } from "../../../generator/init/init.js";
import { LINT_RULES } from "../../../generator/lint/rules.js";
import { projectRoot } from "../../support/paths.js";

/**
 * The JSON Schema of mcp-tasks-gen.config.json that the package ships (config.schema.json), for
 * editors. It must describe what the config reader (generator/config/config.ts) accepts: the same
 * fields, the same enumerations, and the same verdict on the configs below (ajv is the oracle
 * for the schema, checkConfig for the reader).
 */

interface Described {
  description?: string;
  enum?: unknown[];
  properties?: Record<string, Described>;
  additionalProperties?: unknown;
}
interface ConfigSchema extends Described {
  properties: Record<string, Described>;
  definitions: { set: Described & { properties: Record<string, Described> } };
}

const SCHEMA_PATH = join(packageRoot(), CONFIG_SCHEMA_FILE);
const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8")) as ConfigSchema;
const validate = new Ajv({ allErrors: true }).compile(schema);
const setProperties = schema.definitions.set.properties;
const lintProperties = setProperties.lint!.properties!;

const temps: string[] = [];
function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "mcp-tasks-gen-config-schema-")));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The reader's verdict: "accepted", or its message. */
function readerVerdict(config: unknown): string {
  try {
    checkConfig(config, "mcp-tasks-gen.config.json");
    return "accepted";
  } catch (e) {
    if (e instanceof GeneratorError) return e.message;
    throw e;
  }
}

function schemaVerdict(config: unknown): string {
  return validate(config) ? "accepted" : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join("; ");
}

const sorted = (values: readonly unknown[]) => [...values].map(String).sort();

describe("config.schema.json lists what the reader reads", () => {
  it("the same top-level fields and set fields (additionalProperties: false at both levels, as the reader rejects others)", () => {
    expect(sorted(Object.keys(schema.properties))).toEqual(sorted(CONFIG_FIELDS));
    expect(sorted(Object.keys(setProperties))).toEqual(sorted(SET_FIELDS));
    expect(schema.additionalProperties).toBe(false);
    expect(schema.definitions.set.additionalProperties).toBe(false);
  });

  it("the same lint rules (with their summaries) and settings, and no other key in lint", () => {
    expect(sorted(Object.keys(lintProperties).filter((k) => k !== "$comment"))).toEqual(sorted(LINT_RULES.map((r) => r.id)));
    for (const rule of LINT_RULES) {
      expect(lintProperties[rule.id]!.description, rule.id).toBe(rule.summary);
      expect(lintProperties[rule.id]!.enum, rule.id).toEqual(LINT_SETTINGS);
    }
    expect(setProperties.lint!.additionalProperties).toBe(false);
  });

  it("the same enumerations: bundled sets, emit languages, allOf modes, dialects", () => {
    expect(setProperties.bundled!.enum).toEqual(BUNDLED_SET_NAMES);
    expect(schema.properties.emit!.enum).toEqual(EMIT_LANGUAGES);
    expect(setProperties.allOf!.enum).toEqual(ALL_OF_MODES);
    expect(setProperties.defaultDialect!.enum).toEqual(DIALECTS);
  });

  it("every field has a description (what an editor shows on hover)", () => {
    const fields = [...Object.entries(schema.properties), ...Object.entries(setProperties), ...Object.entries(lintProperties)];
    for (const [name, field] of fields) expect(field.description, name).toMatch(/\S{3}/);
  });

  it("is valid draft-07 (ajv compiles it in its default strict mode, which rejects unknown keywords)", () => {
    expect(typeof validate).toBe("function");
  });
});

/** Configs both must accept. */
const ACCEPTED: Record<string, unknown> = {
  // A newer revision of a bundled set, followed early with the bundled set's core, bindings and lint treatment.
  "both bundled and schemas": { sets: [{ bundled: "ext-tasks-draft", schemas: ["a.json"] }] },
  "bundled sets only": { sets: [{ bundled: "tasks-2025-11-25" }, { name: "draft", bundled: "ext-tasks-draft" }] },
  "every set field": {
    $schema: "./node_modules/mcp-tasks-gen/config.schema.json",
    $comment: "a note",
    outDir: "out",
    emit: "js",
    sets: [
      {
        $comment: "a note",
        name: "mine.v2",
        schemas: ["a.json", "b.json"],
        remotes: { "https://example.com/s.json": "s.json" },
        defaultDialect: "draft-07",
        annotations: ["tsType"],
        allOf: "merged",
        bindings: { $comment: "why", A: { $ref: "a.json#/$defs/B" }, C: true },
        names: { "a.json#/$defs/a b": "ASpaceB", "a.json#": "Root" },
        lint: { $comment: "why", "unknown-format": "off", "unreachable-property": "warn" },
        methods: { $comment: "why", "tasks/get": { $comment: "why", result: "GetTaskResult" }, "tasks/list": { params: "ListParams", result: "ListTasksResult" } },
        runtime: ["http-client", "http-server", "stdio", "sdk-client", "sqlite-store"],
        stubs: true,
      },
    ],
  },
  "a bundled set with its own remotes and lint": {
    sets: [{ bundled: "tasks-2025-11-25", remotes: { "https://example.com/x.json": "x.json" }, lint: { "duplicate-branch": "off" } }],
  },
};

/** Configs the reader rejects for their shape, and the schema must too. */
const REJECTED: Record<string, unknown> = {
  "no sets": { outDir: "out" },
  "an empty sets": { sets: [] },
  "sets not an array": { sets: { name: "a", schemas: ["a.json"] } },
  "a mistyped top-level field": { outdir: "out", sets: [{ bundled: "ext-tasks-draft" }] },
  "names at the top level": { names: {}, sets: [{ bundled: "ext-tasks-draft" }] },
  "an unknown emit": { emit: "py", sets: [{ bundled: "ext-tasks-draft" }] },
  "a set without schemas or bundled": { sets: [{ name: "a" }] },
  "a set with schemas but no name": { sets: [{ schemas: ["a.json"] }] },
  "an unknown bundled set": { sets: [{ bundled: "tasks-2099" }] },
  "a mistyped set field": { sets: [{ name: "a", shcemas: ["a.json"] }] },
  "a folder name with a slash": { sets: [{ name: "a/b", schemas: ["a.json"] }] },
  "schemas as a string": { sets: [{ name: "a", schemas: "a.json" }] },
  "an empty schemas": { sets: [{ name: "a", schemas: [] }] },
  "an empty schema path": { sets: [{ name: "a", schemas: [""] }] },
  "a remote that is not a path": { sets: [{ name: "a", schemas: ["a.json"], remotes: { "https://example.com/s.json": 1 } }] },
  "an unknown dialect": { sets: [{ name: "a", schemas: ["a.json"], defaultDialect: "draft-03" }] },
  "an unknown allOf mode": { sets: [{ name: "a", schemas: ["a.json"], allOf: "intersection" }] },
  "an annotation that is not a string": { sets: [{ name: "a", schemas: ["a.json"], annotations: [1] }] },
  "a binding that is not a schema": { sets: [{ name: "a", schemas: ["a.json"], bindings: { A: 3 } }] },
  "a names key without a pointer": { sets: [{ name: "a", schemas: ["a.json"], names: { "a.json": "A" } }] },
  "a name that is not an identifier": { sets: [{ name: "a", schemas: ["a.json"], names: { "a.json#/$defs/x": "1x" } }] },
  "a mistyped lint rule": { sets: [{ bundled: "ext-tasks-draft", lint: { "unreachable-propery": "off" } }] },
  "a lint setting that is not off or warn": { sets: [{ bundled: "ext-tasks-draft", lint: { "unknown-format": "error" } }] },
  "lint as a list": { sets: [{ bundled: "ext-tasks-draft", lint: ["unknown-format"] }] },
  "a methods entry naming nothing": { sets: [{ bundled: "ext-tasks-draft", methods: { "tasks/get": {} } }] },
  "a mistyped methods field": { sets: [{ bundled: "ext-tasks-draft", methods: { "tasks/get": { results: "GetTaskResult" } } }] },
  "a methods result that is not an identifier": { sets: [{ bundled: "ext-tasks-draft", methods: { "tasks/get": { result: "Get Task" } } }] },
  "methods as a list": { sets: [{ bundled: "ext-tasks-draft", methods: ["tasks/get"] }] },
  "an unknown runtime part": { sets: [{ bundled: "ext-tasks-draft", runtime: ["http-sever"] }] },
  "runtime as a string": { sets: [{ bundled: "ext-tasks-draft", runtime: "stdio" }] },
  "a runtime part listed twice": { sets: [{ bundled: "ext-tasks-draft", runtime: ["stdio", "stdio"] }] },
  "stubs that is not a boolean": { sets: [{ bundled: "ext-tasks-draft", stubs: "no" }] },
};

/**
 * What only the reader can tell (a JSON Schema has no "unique by field" nor a reserved-word list
 * short of spelling it out): the schema accepts these, the reader says why not.
 */
const READER_ONLY: Record<string, unknown> = {
  "two sets of one name": { sets: [{ bundled: "ext-tasks-draft" }, { name: "ext-tasks-draft", schemas: ["a.json"] }] },
  "a reserved word as a name": { sets: [{ name: "a", schemas: ["a.json"], names: { "a.json#/$defs/x": "class" } }] },
  "one name chosen twice": { sets: [{ name: "a", schemas: ["a.json"], names: { "a.json#/$defs/x": "X", "a.json#/$defs/y": "X" } }] },
};

/** The JSON configs README shows (each ```json block that has "sets"). */
function readmeConfigs(): Record<string, unknown> {
  const readme = readFileSync(join(projectRoot, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const configs: Record<string, unknown> = {};
  blocks.forEach((block, i) => {
    if (!/"sets"\s*:/.test(block)) return;
    configs[`README block ${i}`] = JSON.parse(block) as unknown; // a config README shows must be valid JSON
  });
  return configs;
}

describe("config.schema.json and the reader agree", () => {
  it("on the repository's own config, README's configs and the table of accepted ones", () => {
    const configs = {
      "the repository's mcp-tasks-gen.config.json": JSON.parse(readFileSync(join(projectRoot, "mcp-tasks-gen.config.json"), "utf8")) as unknown,
      ...readmeConfigs(),
      ...ACCEPTED,
    };
    expect(Object.keys(configs).filter((k) => k.startsWith("README")).length).toBeGreaterThanOrEqual(2);
    for (const [name, config] of Object.entries(configs)) {
      expect(readerVerdict(config), name).toBe("accepted");
      expect(schemaVerdict(config), name).toBe("accepted");
    }
  });

  it("on configs the reader rejects for their shape: the schema rejects them too", () => {
    for (const [name, config] of Object.entries(REJECTED)) {
      expect(readerVerdict(config), name).not.toBe("accepted");
      expect(schemaVerdict(config), name).not.toBe("accepted");
    }
  });

  it("what only the reader checks (unique names, reserved words) is rejected by the reader", () => {
    for (const [name, config] of Object.entries(READER_ONLY)) {
      expect(readerVerdict(config), name).not.toBe("accepted");
      expect(schemaVerdict(config), name).toBe("accepted");
    }
  });
});

describe("init writes $schema", () => {
  /** Runs init in a project folder, the package "installed" there as a link to this repository. */
  function initIn(configRelative: string): { config: Record<string, unknown>; configPath: string } {
    const project = tempDir();
    mkdirSync(join(project, "node_modules"));
    symlinkSync(projectRoot, join(project, "node_modules", "mcp-tasks-gen"), "junction");
    const configPath = join(project, configRelative);
    mkdirSync(dirname(configPath), { recursive: true });
    initProject({ configPath, cwd: project });
    return { config: JSON.parse(readFileSync(configPath, "utf8")) as Record<string, unknown>, configPath };
  }

  it("pointing at the installed package's config.schema.json, relative to the config; the config validates and reads", () => {
    const { config, configPath } = initIn("mcp-tasks-gen.config.json");
    expect(config.$schema).toBe("./node_modules/mcp-tasks-gen/config.schema.json");
    const target = resolve(dirname(configPath), config.$schema as string);
    expect(readFileSync(target, "utf8")).toBe(readFileSync(SCHEMA_PATH, "utf8"));
    expect(schemaVerdict(config)).toBe("accepted");
    expect(readConfigFile(configPath).sets.map((s) => s.name)).toEqual(BUNDLED_SET_NAMES);
  });

  it("from a config in a sub-folder of the project, ../node_modules/...", () => {
    const { config, configPath } = initIn("config/mcp-tasks-gen.config.json");
    expect(config.$schema).toBe("../node_modules/mcp-tasks-gen/config.schema.json");
    expect(existsSync(resolve(dirname(configPath), config.$schema as string))).toBe(true);
    expect(schemaVerdict(config)).toBe("accepted");
  });
});
