import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { GeneratorError, generate, generateFromMemory, readConfigFile } from "../../../generator/index.js";
import { clashSuffixed, nameDefinitions } from "../../../generator/analyze/naming.js";
import { spokenName } from "../../../generator/names.js";
import type { Definition } from "../../../generator/ir/nodes.js";

const declared = async (documents: { uri: string; json: unknown }[], roots: { name: string; uri: string }[]) => {
  const { files } = await generateFromMemory({ documents, roots, format: false });
  const types = files.find((f) => f.name === "types.ts")!.contents;
  return [...types.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]);
};

describe("naming definitions", () => {
  it("a definition only reached by $ref yields its plain name to a declared one and is qualified by its document", async () => {
    const names = await declared(
      [
        { uri: "http://x.test/a.json", json: { $defs: { Root: { type: "string" } }, properties: { a: { $ref: "#/$defs/Root" } } } },
        { uri: "http://x.test/other.json", json: { $defs: { Root: { type: "number" } } } },
        { uri: "http://x.test/b.json", json: { properties: { n: { $ref: "other.json#/$defs/Root" } } } },
      ],
      [
        { name: "Root", uri: "http://x.test/a.json" },
        { name: "B", uri: "http://x.test/b.json" },
      ],
    );
    expect(names).toEqual(["Root", "B", "ARoot", "OtherRoot"]);
  });

  it("two declared definitions with one name: the first keeps it, the other is named after its document", async () => {
    const names = await declared(
      [{ uri: "http://x.test/a.json", json: { $defs: { "task-status": { type: "string" }, TaskStatus: { type: "number" } } } }],
      [
        { name: "TaskStatus", uri: "http://x.test/a.json#/$defs/task-status" },
        { name: "TaskStatus", uri: "http://x.test/a.json#/$defs/TaskStatus" },
      ],
    );
    expect(names).toEqual(["TaskStatus", "ATaskStatus"]);
  });

  it("never numbers a name: an anonymous object is named from its place", async () => {
    const names = await declared(
      [{ uri: "http://x.test/r.json", json: { type: "object", properties: { params: { type: "object", properties: { taskId: { type: "string" } } } } } }],
      [{ name: "GetTaskRequest", uri: "http://x.test/r.json" }],
    );
    expect(names).toEqual(["GetTaskRequest", "GetTaskRequestParams"]);
  });
});

describe("choosing names: the config's names map", () => {
  const temps: string[] = [];
  afterAll(() => {
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  });

  /** A project folder with one schema file and a config naming it (plus `names`, if given). */
  function project(schema: unknown, names?: Record<string, string>): { dir: string; config: string } {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-names-"));
    temps.push(dir);
    mkdirSync(join(dir, "schemas"));
    writeFileSync(join(dir, "schemas", "api.schema.json"), JSON.stringify(schema));
    const config = join(dir, "mcp-tasks-gen.config.json");
    writeFileSync(config, JSON.stringify({ sets: [{ name: "api", schemas: ["schemas/api.schema.json"], ...(names ? { names } : {}) }] }));
    return { dir, config };
  }
  const typeNames = (types: string) => [...types.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]);
  const typesOf = async (config: string) => (await generate(readConfigFile(config))).sets[0]!.files.find((f) => f.name === "types.ts")!.contents;

  // Ten such pairs appear in one large published schema: the separators differ, the words do not.
  const clashing = { definitions: { "a b": { type: "string" }, "a-b": { type: "number" }, "a.b": { type: "boolean" } } };

  it("every clash warning's entry, added to the config as printed, chooses that name and silences the warning", async () => {
    const clashesOf = async (names: Record<string, string>) =>
      (await generate(readConfigFile(project(clashing, names).config))).diagnostics.filter((d) => d.rule === "name-clash").map((d) => d.message);
    const warnings = await clashesOf({});
    expect(warnings).toHaveLength(3);
    const names: Record<string, string> = {};
    for (const warning of warnings) {
      const entry = /add to "names" in [^:]+#\/sets\/0: ("[^"]+"): ("[^"]+") \(or a better name\)$/.exec(warning);
      expect(entry, warning).not.toBeNull();
      names[JSON.parse(entry![1]!) as string] = JSON.parse(entry![2]!) as string;
    }
    expect(names).toEqual({
      "schemas/api.schema.json#/definitions/a b": "ASpaceB",
      "schemas/api.schema.json#/definitions/a-b": "ADashB",
      "schemas/api.schema.json#/definitions/a.b": "ADotB",
    });
    expect(await clashesOf(names)).toEqual([]);
    expect(typeNames(await typesOf(project(clashing, names).config))).toEqual(["ASpaceB", "ADashB", "ADotB"]);
    expect(typeNames(await typesOf(project(clashing).config))).toEqual(["ASpaceB", "ADashB", "ADotB"]);
  });

  it("a definition named like another module's export prints the names entry that resolves it, and the entry does", async () => {
    // `isTask` is also the name validators.ts gives the guard of `Task`.
    const schema = { definitions: { Task: { type: "object" }, isTask: { type: "boolean" } } };
    const error = await generate(readConfigFile(project(schema).config)).then(
      () => undefined,
      (e: unknown) => e as GeneratorError,
    );
    expect(error?.message).toMatch(/"isTask" is also exported by the generated validators\.ts/);
    const entry = /add to "names" in [^:]+#\/sets\/0: ("[^"]+"): ("[^"]+")$/.exec(error!.message);
    expect(entry, error!.message).not.toBeNull();
    const names = { [JSON.parse(entry![1]!) as string]: JSON.parse(entry![2]!) as string };
    expect(names).toEqual({ "schemas/api.schema.json#/definitions/isTask": "isTaskDefinition" });
    expect(typeNames(await typesOf(project(schema, names).config))).toEqual(["Task", "isTaskDefinition"]);
  });

  it("a chosen name replaces a definition's name everywhere it is used, and names an inline object by its pointer", async () => {
    const schema = {
      definitions: {
        Task: { type: "object", properties: { params: { type: "object", properties: { id: { type: "string" } } }, next: { $ref: "#/definitions/Task" } } },
      },
    };
    const { config } = project(schema, {
      "schemas/api.schema.json#/definitions/Task": "Job",
      "schemas/api.schema.json#/definitions/Task/properties/params": "JobArguments",
    });
    const types = await typesOf(config);
    expect(typeNames(types)).toEqual(["Job", "JobArguments"]);
    expect(types).toMatch(/params\?: JobArguments;/);
    expect(types).toMatch(/next\?: Job;/);
    const validators = (await generate(readConfigFile(config))).sets[0]!.files.find((f) => f.name === "validators.ts")!.contents;
    expect(validators).toMatch(/export function validateJob\b/);
    expect(validators).not.toMatch(/\b(is|validate|parse|check)Task\b/);
  });

  it("a derived name never takes a name chosen for something else", async () => {
    const schema = { definitions: { Box: { type: "object", properties: { inner: { type: "object", properties: { x: { type: "string" } } } } }, Other: { type: "string" } } };
    // BoxInner is what the inline object would be called; the user gives that name to Other.
    const { config } = project(schema, { "schemas/api.schema.json#/definitions/Other": "BoxInner" });
    const names = typeNames(await typesOf(config));
    expect(names).toContain("BoxInner");
    expect(new Set(names).size).toBe(names.length);
  });
});

describe("the root of a document without definitions", () => {
  it.each([
    ["user-profile.schema.json", "UserProfile"],
    ["order_line.json", "OrderLine"],
    ["2fa.json", "N2fa"],
  ])("%s is one type named %s (its title wins when it has one)", async (file, name) => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-root-"));
    try {
      writeFileSync(join(dir, file), JSON.stringify({ type: "object", properties: { id: { type: "string" } } }));
      writeFileSync(join(dir, "titled.json"), JSON.stringify({ title: "Titled", type: "string" }));
      const config = join(dir, "c.json");
      writeFileSync(config, JSON.stringify({ sets: [{ name: "x", schemas: [file, "titled.json"] }] }));
      const types = (await generate(readConfigFile(config))).sets[0]!.files.find((f) => f.name === "types.ts")!.contents;
      expect([...types.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1])).toEqual([name, "Titled"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the root of a document with definitions", () => {
  const typeNamesOf = async (file: string, schema: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-root-"));
    try {
      writeFileSync(join(dir, file), JSON.stringify(schema));
      const config = join(dir, "c.json");
      writeFileSync(config, JSON.stringify({ sets: [{ name: "x", schemas: [file] }] }));
      const types = (await generate(readConfigFile(config))).sets[0]!.files.find((f) => f.name === "types.ts")!.contents;
      return [...types.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const definitions = { Level: { enum: ["error", "warn"] } };

  // Published config schemas (commitlint's) keep their main type at an untitled root beside a few definitions.
  it("is a type when it says something about values, named from the file when it has no title", async () => {
    const schema = { definitions, type: "object", properties: { level: { $ref: "#/definitions/Level" } } };
    expect(await typeNamesOf("app-config.schema.json", schema)).toEqual(["Level", "AppConfig"]);
    expect(await typeNamesOf("app-config.schema.json", { ...schema, title: "Settings" })).toEqual(["Level", "Settings"]);
  });

  it("is no type when it only holds the definitions, titled or not", async () => {
    expect(await typeNamesOf("app-config.schema.json", { definitions })).toEqual(["Level"]);
    expect(await typeNamesOf("app-config.schema.json", { title: "All", description: "d", definitions })).toEqual(["Level"]);
  });
});

describe("names that keep the meaning of their punctuation", () => {
  const cases: [string, string][] = [
    ["number[]", "NumberArray"],
    ["A|B", "AOrB"],
    ["A&B", "AAndB"],
    ["Vector3<number>", "Vector3OfNumber"],
    ["ConditionalValueDef<(number|ExprRef)>", "ConditionalValueDefOfNumberOrExprRef"],
    ["ConditionalValueDef<(number[]|ExprRef)>", "ConditionalValueDefOfNumberArrayOrExprRef"],
    ["FieldOrDatumDefWithCondition<DatumDef,(Gradient|string|null)>", "FieldOrDatumDefWithConditionOfDatumDefAndGradientOrStringOrNull"],
    ['ScaleInvalidDataShowAs<"fillOpacity">', "ScaleInvalidDataShowAsOfFillOpacity"],
    // Without those characters, as PascalCase always gave them.
    ["io.modelcontextprotocol/related-task", "IoModelcontextprotocolRelatedTask"],
    ["task-status", "TaskStatus"],
  ];
  it.each(cases)("%s → %s", (text, name) => expect(spokenName(text)).toBe(name));
});

describe("a clash that remains: the suffix of the definition's own place", () => {
  const def = (name: string, file = "/a/x.schema.json"): Definition => ({
    id: `${file}#/definitions/${name}`,
    loc: { file, pointer: `/definitions/${name}` },
    node: { kind: "primitive", type: "string", loc: { file, pointer: `/definitions/${name}` } },
    nameHint: name,
    exported: true,
  });
  // Two names that spell out alike (the parentheses group differently) and have no document to tell them apart.
  const one = def("C<(V<(s|n)>|E)>");
  const two = def("C<V<(s|n|E)>>");

  it("is the same whatever order the definitions come in, and says which names entry would choose better", () => {
    const warnings: string[] = [];
    const forward = nameDefinitions([one, two], { onClash: (w) => warnings.push(w.message) }).map((d) => d.name);
    const backward = nameDefinitions([two, one]).map((d) => d.name);
    expect(forward).toEqual([clashSuffixed("COfVOfSOrNOrE", one.loc), clashSuffixed("COfVOfSOrNOrE", two.loc)]);
    expect(backward).toEqual([forward[1], forward[0]]);
    expect(forward[0]).toMatch(/^COfVOfSOrNOrE_[0-9a-f]{6}$/);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toBe(
      `named "${forward[0]}": "COfVOfSOrNOrE" is also the name of /a/x.schema.json#/definitions/C<V<(s|n|E)>>; ` +
        `to choose a name, pass --name '/a/x.schema.json#/definitions/C<(V<(s|n)>|E)>=${forward[0]}' (or a better name)`,
    );
  });

  it("depends on the document's file name and the pointer only (not the folders: the same on every machine)", () => {
    expect(clashSuffixed("N", { file: "/home/a/x.schema.json", pointer: "/definitions/N" })).toBe(clashSuffixed("N", { file: "x.schema.json", pointer: "/definitions/N" }));
    expect(clashSuffixed("N", { file: "x.schema.json", pointer: "/definitions/N" })).toBe("N_" + createHash("sha256").update("x.schema.json#/definitions/N").digest("hex").slice(0, 6));
  });

  it("leaves a name the schema writes as it is to that definition; only the derived one yields", () => {
    const names = nameDefinitions([def("number[]"), def("NumberArray")]).map((d) => d.name);
    expect(names).toEqual(["XSchemaNumberArray", "NumberArray"]);
  });
});
