import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, readConfigFile, type GeneratedSet, type ResolvedConfig, type ResolvedSet } from "../../generator/index.js";
import { fixturePath, projectRoot } from "../support/paths.js";
import { importGeneratedModule } from "../support/generated-modules.js";

/**
 * The merged-intersection mode (`"allOf": "merged"`, `--allof merged`) proven on the
 * specification's own examples: with it, every example message of the two Tasks revisions that
 * the specification shows is accepted (the ext-tasks draft's seed rejects the ones carrying
 * `resultType` or `_meta` under JSON Schema's meaning of `allOf`); without it, every verdict is
 * still ajv's. Both modes are generated in memory from the same config, transpiled and imported.
 */

interface Example {
  readonly revision: string;
  readonly source: string;
  readonly definition: string;
  readonly kind: string;
  readonly message: unknown;
}

const TASK_SETS = ["tasks-2025-11-25", "ext-tasks-2026-05-22"];

/** Labels naming no definition of the seeds, and why. Checked to be still absent from the output. */
const NOT_IN_SEEDS: Readonly<Record<string, string>> = {
  JSONRPCError: "the JSON-RPC error envelope is core MCP, not a definition of either Tasks seed",
};

// The extension's examples (labelled ext-tasks-draft, from the SEP text) are judged here on the 2026-05-22
// revision, the one that needs merged mode to accept them; the newest accepts them as written
// (spec-examples.test.ts).
const examples = (JSON.parse(readFileSync(fixturePath("mcp-spec", "tasks-examples.json"), "utf8")) as { examples: Example[] }).examples.map((example) =>
  example.revision === "ext-tasks-draft" ? { ...example, revision: "ext-tasks-2026-05-22" } : example,
);
const taskExamples = examples.map((example, index) => ({ example, index })).filter(({ example }) => TASK_SETS.includes(example.revision));

const config = readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json"));
const withMode = (mode: "json-schema" | "merged"): ResolvedConfig => ({
  ...config,
  sets: config.sets.filter((s) => TASK_SETS.includes(s.name)).map((s) => ({ ...s, allOf: mode })),
});

type Module = Record<string, unknown>;
type Validate = (v: unknown) => { ok: boolean };
const generated = { "json-schema": [] as GeneratedSet[], merged: [] as GeneratedSet[] };
const modules = { "json-schema": new Map<string, Module>(), merged: new Map<string, Module>() };
let temp = "";

/** A set's validators, transpiled (with what they import) to ES modules in `folder` and imported. */
async function importSet(set: GeneratedSet, folder: string): Promise<Module> {
  return importGeneratedModule<Module>(set.files, folder);
}

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-merged-"));
  writeFileSync(join(temp, "package.json"), JSON.stringify({ type: "module" }));
  for (const mode of ["json-schema", "merged"] as const) {
    generated[mode] = [...(await generate(withMode(mode))).sets];
    for (const set of generated[mode]) modules[mode].set(set.name, await importSet(set, join(temp, mode, set.name)));
  }
});

afterAll(() => {
  if (temp) rmSync(temp, { recursive: true, force: true });
});

/** ajv over a set's seed (remote documents registered under their URLs): the oracle for the default mode. */
function oracleFor(set: ResolvedSet): (definition: string, value: unknown) => boolean {
  const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  const seed = readJson(set.schemas[0]!);
  const uri = typeof seed.$id === "string" ? seed.$id : pathToFileURL(set.schemas[0]!).href;
  const options = { strict: false, validateFormats: false };
  const ajv = String(seed.$schema).includes("2020-12") ? new Ajv2020(options) : new Ajv(options);
  ajv.addSchema(seed, uri);
  // A remote of another dialect (the 2020-12 MCP 2025-11-25 core under a draft-07 seed) goes in without `$schema` (see spec-examples.test.ts).
  for (const [url, file] of Object.entries(set.remotes)) {
    const { $schema: remoteDialect, ...body } = readJson(file);
    ajv.addSchema(String(remoteDialect) === String(seed.$schema) ? readJson(file) : body, url);
  }
  const container = seed.$defs ? "$defs" : "definitions";
  return (definition, value) => ajv.validate({ $ref: `${uri}#/${container}/${definition}` }, value) === true;
}
const oracles = new Map(config.sets.map((set) => [set.name, oracleFor(set)]));

function validators(mode: "json-schema" | "merged", revision: string, definition: string): { is: (v: unknown) => boolean; validate: Validate } | undefined {
  const module = modules[mode].get(revision);
  if (!module) throw new Error(`no generated set ${revision}`);
  const is = module[`is${definition}`];
  const validate = module[`validate${definition}`];
  if (is === undefined && validate === undefined) return undefined;
  if (typeof is !== "function" || typeof validate !== "function") throw new Error(`${revision}: is/validate${definition} are not functions`);
  return { is: is as (v: unknown) => boolean, validate: validate as Validate };
}

describe("merged-intersection mode on the specification's examples", () => {
  it("the examples cover both Tasks revisions", () => {
    for (const revision of TASK_SETS) expect(taskExamples.filter(({ example }) => example.revision === revision).length, revision).toBeGreaterThan(0);
  });

  for (const { example, index } of taskExamples) {
    const label = `#${index} ${example.revision} ${example.definition} (${example.kind})`;
    it(`${label}: merged accepts it; the default mode gives ajv's verdict`, () => {
      const merged = validators("merged", example.revision, example.definition);
      const plain = validators("json-schema", example.revision, example.definition);
      if (!merged || !plain) {
        // Only documented labels may be missing; they must be missing in both modes.
        expect(NOT_IN_SEEDS[example.definition], `${label}: no validator for ${example.definition}`).toBeDefined();
        expect(merged ?? plain, `${example.definition} is generated now: remove it from NOT_IN_SEEDS`).toBeUndefined();
        return;
      }
      expect(merged.is(example.message), `merged is${example.definition}`).toBe(true);
      expect(merged.validate(example.message).ok, `merged validate${example.definition}`).toBe(true);
      const expected = oracles.get(example.revision)!(example.definition, example.message);
      expect(plain.is(example.message), `json-schema is${example.definition}`).toBe(expected);
      expect(plain.validate(example.message).ok, `json-schema validate${example.definition}`).toBe(expected);
    });
  }

  it("the comparison is not vacuous: the default mode rejects some examples that merged mode accepts", () => {
    const flipped = taskExamples.filter(({ example }) => {
      const plain = validators("json-schema", example.revision, example.definition);
      return plain !== undefined && !plain.is(example.message);
    });
    expect(flipped.map(({ example }) => example.definition)).toContain("CreateTaskResult");
    expect(flipped.map(({ example }) => example.definition)).toContain("GetTaskResult");
    expect(flipped.every(({ example }) => example.revision === "ext-tasks-2026-05-22")).toBe(true);
  });

  it("merged mode still rejects what no branch allows: a missing required property, a wrong status", () => {
    const created = taskExamples.find(({ example }) => example.revision === "ext-tasks-2026-05-22" && example.definition === "CreateTaskResult")!.example;
    const { taskId: _taskId, ...withoutId } = created.message as Record<string, unknown>;
    const createTaskResult = validators("merged", "ext-tasks-2026-05-22", "CreateTaskResult")!;
    expect(createTaskResult.is(created.message)).toBe(true);
    expect(createTaskResult.is(withoutId)).toBe(false);
    expect(createTaskResult.is({ ...(created.message as object), status: "done" })).toBe(false);
    const getTaskResult = validators("merged", "ext-tasks-2026-05-22", "GetTaskResult")!;
    expect(getTaskResult.is({ ...(created.message as object), status: "completed" }), "completed without result").toBe(false);
  });

  it("every generated file's header records the mode", () => {
    for (const mode of ["json-schema", "merged"] as const) {
      for (const set of generated[mode]) {
        for (const file of set.files) {
          const options = file.contents.split("\n").find((line) => line.startsWith("// Options: "));
          expect(options, `${mode} ${set.name}/${file.name}`).toBeDefined();
          expect(JSON.parse(options!.slice("// Options: ".length)), `${mode} ${set.name}/${file.name}`).toMatchObject({ allOf: mode });
        }
      }
    }
  });

  it("types are the same in both modes; only validators differ", () => {
    const body = (contents: string) => contents.slice(contents.indexOf("\n\n") + 2);
    for (const set of generated.merged) {
      const plain = generated["json-schema"].find((s) => s.name === set.name)!;
      const types = (s: GeneratedSet) => body(s.files.find((f) => f.name === "types.ts")!.contents);
      expect(types(set), set.name).toBe(types(plain));
    }
    const validatorsOf = (sets: GeneratedSet[]) => body(sets.find((s) => s.name === "ext-tasks-2026-05-22")!.files.find((f) => f.name === "validators.ts")!.contents);
    expect(validatorsOf(generated.merged)).not.toBe(validatorsOf(generated["json-schema"]));
  });
});
