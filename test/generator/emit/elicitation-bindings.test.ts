import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkConfig, generate, generateFromMemory, GeneratorError, lint, readConfigFile, resolveConfig, type SchemaSetConfig } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";
import { RUNTIME_PART_FILES } from "../../../generator/emit/templates.js";

/**
 * Bindings (`"bindings"` of a set in the config, generator/bind/bindings.ts) and what they turn
 * on: the elicitation form module wherever a set's shapes have a form elicitation, and the
 * client's typed input routing once the input request is a union of requests.
 */

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-bindings-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A draft whose `Item` and `Other` are placeholders with one body, copied inline in several places. */
const PLACEHOLDER = { anyOf: [{}, {}] };
const DRAFT = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $defs: {
    Item: { ...PLACEHOLDER },
    Other: { ...PLACEHOLDER },
    Real: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    Items: { type: "object", additionalProperties: { ...PLACEHOLDER } },
    Holder: {
      type: "object",
      properties: {
        item: { ...PLACEHOLDER, description: "the place names Item" },
        items: { type: "array", items: { ...PLACEHOLDER } },
        other: { ...PLACEHOLDER },
        thing: { ...PLACEHOLDER },
      },
    },
  },
};

let counter = 0;
/** Writes the draft (and any extra files) to a fresh folder; returns it. */
function folderWith(files: Record<string, unknown> = {}): string {
  const dir = join(work, `case-${counter++}`);
  mkdirSync(dir);
  for (const [name, json] of Object.entries({ "draft.schema.json": DRAFT, ...files })) writeFileSync(join(dir, name), JSON.stringify(json));
  return dir;
}

async function generateIn(dir: string, set: Partial<SchemaSetConfig>): Promise<Map<string, string>> {
  const config = resolveConfig({ outDir: join(dir, "out"), sets: [{ name: "s", schemas: ["draft.schema.json"], ...set }] }, dir, "test.config.json");
  const { sets } = await generate(config);
  return new Map(sets[0]!.files.map((f) => [f.name, f.contents]));
}

/** The declaration of a type in generated types.ts (from its `export` to the next blank line). */
function declaration(types: string, name: string): string {
  const start = types.search(new RegExp(`^export (type|interface) ${name}\\b`, "m"));
  if (start < 0) throw new Error(`no declaration of ${name}`);
  const end = types.indexOf("\n\n", start);
  return types.slice(start, end < 0 ? undefined : end);
}

function thrown(run: () => unknown): GeneratorError {
  try {
    run();
  } catch (e) {
    if (e instanceof GeneratorError) return e;
    throw e;
  }
  throw new Error("expected a GeneratorError");
}

async function rejected(promise: Promise<unknown>): Promise<GeneratorError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof GeneratorError)) throw new Error(`expected a GeneratorError, got ${String(error)}`);
  return error;
}

// ---------------------------------------------------------------------------------------------

describe("the bindings field of the config", () => {
  const set = (bindings: unknown) => ({ sets: [{ name: "s", schemas: ["a.json"], bindings }] });

  it("takes definition names to schemas, with an optional $comment", () => {
    const config = checkConfig(set({ $comment: "why", Item: { $ref: "x.json#/$defs/A" }, Other: false }), "c.json");
    expect(config.sets[0]!.bindings).toEqual({ Item: { $ref: "x.json#/$defs/A" }, Other: false });
  });

  it.each([
    ["not an object", [], "/sets/0/bindings", "expected an object of definition name → JSON Schema"],
    ["a value that is not a schema", { Item: "x.json" }, "/sets/0/bindings/Item", 'expected a JSON Schema (an object or a boolean) for "Item"'],
    ["a $ref that is not a string", { Item: { anyOf: [{ $ref: 3 }] } }, "/sets/0/bindings/Item/anyOf/0/$ref", "$ref must be a string"],
    ["a $comment that is not a string", { $comment: 1 }, "/sets/0/bindings/$comment", "$comment must be a string"],
  ])("rejects %s, where it is", (_case, bindings, pointer, message) => {
    const error = thrown(() => checkConfig(set(bindings), "c.json"));
    expect(error.location).toEqual({ file: "c.json", pointer });
    expect(error.detail).toBe(message);
    expect(error.kind).toBe("config");
  });

  it("resolves a binding's relative $refs against the config's folder, and leaves fragments and absolute URIs alone", () => {
    const config = resolveConfig(
      { sets: [{ name: "s", schemas: ["a.json"], bindings: { Item: { anyOf: [{ $ref: "sub/x.json#/$defs/A" }, { $ref: "#/$defs/B" }, { $ref: "https://e.x/s.json" }] } } }] },
      "/root/dir",
      "c.json",
    );
    expect(config.sets[0]!.bindings).toEqual({
      Item: {
        schema: { anyOf: [{ $ref: "file:///root/dir/sub/x.json#/$defs/A" }, { $ref: "#/$defs/B" }, { $ref: "https://e.x/s.json" }] },
        origin: { file: "c.json", pointer: "/sets/0/bindings/Item" },
      },
    });
  });
});

describe("binding a placeholder", () => {
  it("replaces the definition, and the inline copies whose place names it; other copies stay as written", async () => {
    const dir = folderWith({ "real.schema.json": { $defs: { Thing: { type: "string", minLength: 1 } } } });
    const files = await generateIn(dir, { bindings: { Item: { anyOf: [{ $ref: "real.schema.json#/$defs/Thing" }, { type: "integer" }] } } });
    const types = files.get("types.ts")!;
    expect(declaration(types, "Item")).toBe("export type Item = Thing | number;");
    expect(declaration(types, "Items")).toBe("export type Items = { [key: string]: Item };"); // an entry of `Items`
    const holder = declaration(types, "Holder");
    expect(holder).toContain("item?: Item;"); // the place `item`
    expect(holder).toContain("items?: Item[];"); // an entry of `items`
    // Copies whose place does not name Item stay placeholders, written inline: an `{}` only looks like
    // the one definition left with that body, it is no copy of it (ARCHITECTURE.md › Naming).
    expect(holder).toContain("other?: unknown;");
    expect(holder).toContain("thing?: unknown;");
    expect(declaration(types, "Other")).toBe("export type Other = unknown;");
    // The file the binding reaches is a source of the set, with its hash.
    expect(types).toMatch(/^\/\/ {3}real\.schema\.json sha256:[0-9a-f]{64}$/m);
    const validators = files.get("validators.ts")!;
    expect(validators).toContain("export function isItem(");
  });

  it("validates what the bound schema says, inline copies included", async () => {
    const dir = folderWith();
    const files = await generateIn(dir, { bindings: { Item: { $ref: "#/$defs/Real" } } });
    expect(declaration(files.get("types.ts")!, "Item")).toBe("export type Item = Real;");
    // A `#` fragment points into the document holding the bound definition; the copies check through it.
    const validators = files.get("validators.ts")!;
    expect(validators).toMatch(/function \$testItem\(value: unknown\): value is Item \{[^}]*\$testReal\(value\)/);
    expect(validators).toMatch(/function \$testItems\(input: unknown\): input is Items \{[^}]*\$testItem\(/);
  });

  it("without bindings (or with none) the output is the same as ever", async () => {
    const dir = folderWith();
    const plain = await generateIn(dir, {});
    const empty = await generateIn(dir, { bindings: {} });
    expect([...empty.entries()]).toEqual([...plain.entries()]);
    expect(declaration(plain.get("types.ts")!, "Item")).toBe("export type Item = unknown;");
  });

  it("lint no longer reports the bound placeholder or its copies, and still reports the others", () => {
    const dir = folderWith();
    const config = (bindings?: Record<string, unknown>) =>
      resolveConfig({ sets: [{ name: "s", schemas: ["draft.schema.json"], ...(bindings ? { bindings: bindings as never } : {}) }] }, dir, "c.json");
    const placeholders = (bindings?: Record<string, unknown>) =>
      lint(config(bindings))
        .filter((d) => d.rule === "placeholder-union")
        .map((d) => d.location.pointer)
        .sort();
    expect(placeholders()).toEqual(
      ["/$defs/Holder/properties/item/anyOf", "/$defs/Holder/properties/items/items/anyOf", "/$defs/Holder/properties/other/anyOf", "/$defs/Holder/properties/thing/anyOf", "/$defs/Item/anyOf", "/$defs/Items/additionalProperties/anyOf", "/$defs/Other/anyOf"].sort(),
    );
    expect(placeholders({ Item: { type: "string" } })).toEqual(["/$defs/Holder/properties/other/anyOf", "/$defs/Holder/properties/thing/anyOf", "/$defs/Other/anyOf"]);
  });

  it("a binding of a name no schema defines is a config error at the binding", async () => {
    const error = await rejected(generateIn(folderWith(), { bindings: { Nope: { type: "string" } } }));
    expect(error.location).toEqual({ file: "test.config.json", pointer: "/sets/0/bindings/Nope" });
    expect(error.kind).toBe("config");
    expect(error.detail).toContain('binds "Nope", but no schema of the set');
  });

  it("a $ref of a binding that does not resolve is a config error at that $ref", async () => {
    const dir = folderWith({ "real.schema.json": { $defs: {} } });
    const error = await rejected(generateIn(dir, { bindings: { Item: { anyOf: [{ type: "string" }, { $ref: "real.schema.json#/$defs/Missing" }] } } }));
    expect(error.location).toEqual({ file: "test.config.json", pointer: "/sets/0/bindings/Item/anyOf/1/$ref" });
    expect(error.kind).toBe("config");
    expect(error.detail).toContain('"/$defs/Missing" not found');
  });

  it("a binding that reaches a missing file is a config error at the $ref", async () => {
    const error = await rejected(generateIn(folderWith(), { bindings: { Item: { $ref: "nowhere.json#/$defs/X" } } }));
    expect(error.location).toEqual({ file: "test.config.json", pointer: "/sets/0/bindings/Item/$ref" });
    expect(error.detail).toContain("nowhere.json: file not found");
  });
});

// ---------------------------------------------------------------------------------------------

/** A set with a form elicitation under names of its own, and none of the usual ones. */
const ASK_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $defs: {
    Question: {
      type: "object",
      properties: { mode: { const: "form" }, requestedSchema: { $ref: "#/$defs/Sheet" }, message: { type: "string" } },
      required: ["requestedSchema"],
    },
    Sheet: {
      type: "object",
      properties: { type: { const: "object" }, properties: { type: "object", additionalProperties: { type: "object" } }, required: { type: "array", items: { type: "string" } } },
      required: ["type", "properties"],
    },
  },
};

describe("the elicitation form module", () => {
  const memory = (schema: unknown) =>
    generateFromMemory({ documents: [{ uri: "https://e.x/ask.json", json: schema }], roots: Object.keys((schema as { $defs: object }).$defs).map((name) => ({ name, uri: `https://e.x/ask.json#/$defs/${name}` })) });

  it("is generated for a set whose shapes have a form elicitation, whatever the names, validating with the set's own validator", async () => {
    const { files } = await memory(ASK_SCHEMA);
    const module = files.find((f) => f.name === "elicitation.ts")?.contents;
    expect(module).toBeDefined();
    expect(module).toContain('import type { Sheet } from "./types.js";');
    expect(module).toContain('import { validateSheet } from "./validators.js";');
    expect(files.find((f) => f.name === "index.ts")?.contents).toContain('export * from "./elicitation.js";');
  });

  it("is not generated when no form elicitation exists (a URL mode only, or no referenced form)", async () => {
    const urlOnly = structuredClone(ASK_SCHEMA) as { $defs: { Question: { properties: { mode: unknown } } } };
    urlOnly.$defs.Question.properties.mode = { const: "url" };
    expect((await memory(urlOnly)).files.map((f) => f.name)).not.toContain("elicitation.ts");
    const inline = structuredClone(ASK_SCHEMA) as { $defs: { Question: { properties: { requestedSchema: unknown } } } };
    inline.$defs.Question.properties.requestedSchema = true;
    expect((await memory(inline)).files.map((f) => f.name)).not.toContain("elicitation.ts");
  });

  it("is in the Codex set, the bound ext-tasks set and the 2025-11-25 set (whose ElicitRequest comes from its core schema); each folder imports only itself", async () => {
    const { sets } = await generate(readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json")));
    const names = new Map(sets.map((s) => [s.name, s.files.map((f) => f.name)]));
    expect(names.get("elicitation-codex")).toContain("elicitation.ts");
    expect(names.get("ext-tasks-2026-05-22")).toContain("elicitation.ts");
    expect(names.get("tasks-2025-11-25")).toContain("elicitation.ts");
    // Without its core schema the 2025-11-25 Tasks schema has no elicitation request, so no elicitation module.
    const withoutCore = readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json"));
    const bare = withoutCore.sets.filter((s) => s.name === "tasks-2025-11-25").map(({ core: _core, ...s }) => s);
    const [bareSet] = (await generate({ ...withoutCore, sets: bare })).sets;
    expect(bareSet!.files.map((f) => f.name)).not.toContain("elicitation.ts");
    for (const set of sets) {
      // Runtime parts import their peer by design (runtime-parts.ts lists what each may import).
      for (const file of set.files.filter((f) => !RUNTIME_PART_FILES.has(f.name))) {
        for (const [, specifier] of file.contents.matchAll(/^(?:import|export)[^;]*? from "([^"]+)";/gm)) expect(specifier, `${set.name}/${file.name}`).toMatch(/^(?:\.\/(?:runtime\/[a-z-]+\/)?|\.\.\/[a-z-]+\/)[a-z0-9-]+\.js$/);
      }
    }
  });
});

describe("the client's input routing", () => {
  const extSet = (withBindings: boolean): SchemaSetConfig => {
    const written = checkConfig(JSON.parse(readFileSync(join(projectRoot, "mcp-tasks-gen.config.json"), "utf8")), "mcp-tasks-gen.config.json").sets.find((s) => s.name === "ext-tasks-2026-05-22")!;
    const { bindings, ...rest } = written;
    return withBindings && bindings ? { ...rest, bindings } : rest;
  };
  const clientOf = async (withBindings: boolean) => {
    const { sets } = await generate(resolveConfig({ outDir: join(work, "client"), sets: [extSet(withBindings)] }, projectRoot));
    return sets[0]!.files.find((f) => f.name === "client.ts")!.contents;
  };

  it("is typed per method once InputRequest is bound, and checks accepted forms with validateElicitationContent", async () => {
    const client = await clientOf(true);
    expect(client).toContain('readonly "elicitation/create"?: InputHandler<ElicitRequestParams, ElicitResult>;');
    expect(client).toContain('readonly "sampling/createMessage"?: InputHandler<CreateMessageRequestParams, CreateMessageResult>;');
    expect(client).toContain('readonly "roots/list"?: InputHandler<ListRootsRequest["params"], ListRootsResult>;');
    expect(client).toContain('import { ElicitationContentInvalid, validateElicitationContent } from "./elicitation.js";');
    expect(client).not.toContain("[method: string]: InputHandler");
  });

  it("stays untyped, by method name, while InputRequest is a placeholder", async () => {
    const client = await clientOf(false);
    expect(client).toContain("readonly [method: string]: InputHandler | undefined;");
    expect(client).toContain("export type InputHandler = (params: JsonObject, context: InputRequestContext) => JsonObject | Promise<JsonObject>;");
    expect(client).not.toContain("elicitation.js");
  });
});

describe("found while binding: an entry of a `…Responses` map takes the name its place points to (analyze/dedupe.ts)", () => {
  // Generator bug, reported: dedupe's `singular("inputResponses")` gives "inputRespons", so an entry of
  // `inputResponses` never matches `InputResponse` when another definition shares its body (the entry of
  // `inputRequests` does match `InputRequest`). bind/bindings.ts matches plurals itself for that reason.
  it("inputRequests entries are InputRequest, inputResponses entries are InputResponse", async () => {
    const body = () => ({ type: "object", properties: { x: { type: "string" } }, required: ["x"] });
    const json = {
      $defs: {
        InputRequest: body(),
        InputResponse: body(),
        Holder: {
          type: "object",
          properties: { inputRequests: { type: "object", additionalProperties: body() }, inputResponses: { type: "object", additionalProperties: body() } },
        },
      },
    };
    const { files } = await generateFromMemory({
      documents: [{ uri: "https://e.x/d.json", json }],
      roots: Object.keys(json.$defs).map((name) => ({ name, uri: `https://e.x/d.json#/$defs/${name}` })),
    });
    const holder = declaration(files.find((f) => f.name === "types.ts")!.contents, "Holder");
    expect(holder).toContain("inputRequests?: { [key: string]: InputRequest };");
    expect(holder).toContain("inputResponses?: { [key: string]: InputResponse };");
  });
});
