import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as codex from "../../../generated/elicitation-codex/index.js";
import { elicitationDefaults, readElicitationForm, validateElicitationContent, parseElicitationContent, ElicitationContentInvalid } from "../../../generated/elicitation-codex/index.js";
import { fixturePath, projectRoot } from "../../support/paths.js";

/**
 * The run-time form module of the elicitation set (`generated/elicitation-codex/elicitation.ts`):
 * the specification's own examples (`test/fixtures/mcp-spec/draft/examples/`) are accepted schemas and
 * answers, every rule rejects a hand-made wrong answer at the exact field and keyword, malformed
 * forms are reported (never thrown), and the formats follow the JSON Schema Test Suite.
 */

type Json = Record<string, unknown>;
const examplesDir = (name: string) => fixturePath("mcp-spec", "draft", "examples", name);
const readJson = (path: string): Json => JSON.parse(readFileSync(path, "utf8")) as Json;
/** Every example of a definition folder, by file name. */
function examplesOf(definition: string): [string, Json][] {
  const dir = examplesDir(definition);
  const files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
  expect(files.length, `examples in ${definition}`).toBeGreaterThan(0);
  return files.map((f) => [f, readJson(join(dir, f))]);
}

/** A form of one field. */
const formOf = (field: Json, required = false): Json => ({ type: "object", properties: { f: field }, ...(required ? { required: ["f"] } : {}) });

/** The errors of an answer that must be rejected as content, as [field, keyword, path]. */
function contentErrors(schema: unknown, content: unknown): [string | undefined, string, string][] {
  const result = validateElicitationContent(schema, content);
  if (result.ok) throw new Error(`expected ${JSON.stringify(content)} to be rejected`);
  expect(result.invalid).toBe("content");
  for (const error of result.errors) expect(error.message).toMatch(/^[A-Z"].*\.$/); // a sentence a host can show
  return result.errors.map((e) => [e.field, e.keyword, e.path]);
}

/** The errors of a requested schema that must be reported as malformed, as [field, keyword, path]. */
function schemaErrors(schema: unknown): [string | undefined, string, string][] {
  const result = validateElicitationContent(schema, {});
  if (result.ok) throw new Error(`expected the form ${JSON.stringify(schema)} to be malformed`);
  expect(result.invalid).toBe("requestedSchema");
  expect(result.errors.length).toBeGreaterThan(0);
  for (const error of result.errors) expect(error.message.length).toBeGreaterThan(10);
  return result.errors.map((e) => [e.field, e.keyword, e.path]);
}

// ---------------------------------------------------------------------------------------------

describe("the specification's examples", () => {
  /** Each primitive example folder and the generated validator of the codex definition it is. */
  const PRIMITIVES: Record<string, (value: unknown) => { ok: boolean }> = {
    StringSchema: codex.validateMcpElicitationStringSchema,
    NumberSchema: codex.validateMcpElicitationNumberSchema,
    BooleanSchema: codex.validateMcpElicitationBooleanSchema,
    UntitledSingleSelectEnumSchema: codex.validateMcpElicitationUntitledSingleSelectEnumSchema,
    TitledSingleSelectEnumSchema: codex.validateMcpElicitationTitledSingleSelectEnumSchema,
    UntitledMultiSelectEnumSchema: codex.validateMcpElicitationUntitledMultiSelectEnumSchema,
    TitledMultiSelectEnumSchema: codex.validateMcpElicitationTitledMultiSelectEnumSchema,
  };

  it("covers every *EnumSchema folder the examples have", () => {
    const folders = readdirSync(fixturePath("mcp-spec", "draft", "examples")).filter((f) => f.endsWith("EnumSchema"));
    expect(folders.sort()).toEqual(Object.keys(PRIMITIVES).filter((k) => k.endsWith("EnumSchema")).sort());
  });

  describe.each(Object.keys(PRIMITIVES))("%s", (definition) => {
    it.each(examplesOf(definition))("%s is accepted by its validator and by the primitive-schema union", (_file, example) => {
      expect(PRIMITIVES[definition]!(example).ok).toBe(true);
      expect(codex.isMcpElicitationPrimitiveSchema(example)).toBe(true);
    });

    it.each(examplesOf(definition))("%s reads as a form field whose default is a valid answer", (_file, example) => {
      const form = readElicitationForm(formOf(example, true));
      expect(form.ok).toBe(true);
      const defaults = elicitationDefaults(formOf(example, true));
      if (!defaults.ok) throw new Error("defaults of a valid form");
      // Every example declares a default, so the form starts filled in, and validly.
      expect(defaults.value).toEqual({ f: example.default });
      expect(validateElicitationContent(formOf(example, true), defaults.value)).toEqual({ ok: true, value: defaults.value });
    });
  });

  const requests = examplesOf("ElicitRequestFormParams");

  it.each(requests)("ElicitRequestFormParams %s: the requested schema is accepted and reads as a form", (_file, params) => {
    expect(codex.validateMcpElicitationSchema(params.requestedSchema).ok).toBe(true);
    expect(params.mode).toBe("form");
    const form = readElicitationForm(params.requestedSchema);
    if (!form.ok) throw new Error(JSON.stringify(form.errors));
    expect(form.value.fields.map((f) => f.name)).toEqual(Object.keys((params.requestedSchema as Json).properties as Json));
  });

  /** The request an answer answers: the one form whose fields are exactly the answer's keys. */
  const pairs = examplesOf("ElicitResult")
    .filter(([, result]) => result.content !== undefined)
    .map(([file, result]) => {
      const keys = Object.keys(result.content as Json).sort();
      const matching = requests.filter(([, p]) => JSON.stringify(Object.keys((p.requestedSchema as Json).properties as Json).sort()) === JSON.stringify(keys));
      return { file, result, matching };
    });

  it("pairs every ElicitResult example with content with exactly one form request", () => {
    expect(pairs.length).toBeGreaterThanOrEqual(2);
    for (const pair of pairs) expect(pair.matching.map(([f]) => f), pair.file).toHaveLength(1);
  });

  it.each(pairs.map((p) => [p.file, p] as const))("ElicitResult %s validates against the form it answers", (_file, pair) => {
    const [, params] = pair.matching[0]!;
    expect(validateElicitationContent(params.requestedSchema, pair.result.content)).toEqual({ ok: true, value: pair.result.content });
    expect(pair.result.action).toBe("accept");
  });

  it("the URL-mode answer has no content to check", () => {
    const [, result] = examplesOf("ElicitResult").find(([f]) => f.startsWith("accept-url-mode"))!;
    expect(result).toEqual({ action: "accept" });
  });

  it("the InputRequests elicitation is answered by its InputResponses entry (paired by key)", () => {
    const [, inputRequests] = examplesOf("InputRequests")[0]!;
    const [, inputResponses] = examplesOf("InputResponses")[0]!;
    const elicitations = Object.entries(inputRequests).filter(([, r]) => (r as Json).method === "elicitation/create");
    expect(elicitations.length).toBeGreaterThan(0);
    for (const [key, request] of elicitations) {
      const params = (request as Json).params as Json;
      const answer = inputResponses[key] as Json;
      expect(validateElicitationContent(params.requestedSchema, answer.content).ok).toBe(true);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe("a wrong answer is rejected at its field, with the keyword that failed", () => {
  const contact = {
    type: "object",
    properties: {
      name: { type: "string", title: "Name", minLength: 2, maxLength: 5 },
      email: { type: "string", format: "email" },
      age: { type: "integer", minimum: 18, maximum: 130 },
      score: { type: "number", minimum: 0, maximum: 1 },
      agree: { type: "boolean" },
      color: { type: "string", enum: ["red", "green"] },
      size: { type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }] },
      legacy: { type: "string", enum: ["a", "b"], enumNames: ["Option A", "Option B"] },
      tags: { type: "array", items: { type: "string", enum: ["x", "y", "z"] }, minItems: 1, maxItems: 2 },
      flavors: { type: "array", items: { anyOf: [{ const: "v", title: "Vanilla" }, { const: "c", title: "Chocolate" }] } },
    },
    required: ["name", "email"],
  };
  const valid = { name: "Ann", email: "ann@example.com", age: 30, score: 0.5, agree: true, color: "red", size: "l", legacy: "b", tags: ["x", "z"], flavors: ["v"] };
  const without = (key: keyof typeof valid) => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key));

  it("the hand-made valid answer is accepted (the baseline every case below changes once)", () => {
    expect(validateElicitationContent(contact, valid)).toEqual({ ok: true, value: valid });
    expect(validateElicitationContent(contact, { name: "Al", email: "a@b.co" }).ok).toBe(true); // only the required fields
  });

  it.each([
    ["a required field is missing", without("name"), [["name", "required", "/name"]]],
    ["a required text field is missing", without("email"), [["email", "required", "/email"]]],
    ["text shorter than minLength", { ...valid, name: "A" }, [["name", "minLength", "/name"]]],
    ["text longer than maxLength", { ...valid, name: "Annabel" }, [["name", "maxLength", "/name"]]],
    ["text that is not text", { ...valid, name: 42 }, [["name", "type", "/name"]]],
    ["an invalid email", { ...valid, email: "ann.example.com" }, [["email", "format", "/email"]]],
    ["a fraction for an integer", { ...valid, age: 30.5 }, [["age", "type", "/age"]]],
    ["a number below minimum", { ...valid, age: 17 }, [["age", "minimum", "/age"]]],
    ["a number above maximum", { ...valid, score: 1.5 }, [["score", "maximum", "/score"]]],
    ["a numeric string for a number", { ...valid, score: "0.5" }, [["score", "type", "/score"]]],
    ["a string for a boolean", { ...valid, agree: "yes" }, [["agree", "type", "/agree"]]],
    ["an untitled single-select value outside enum", { ...valid, color: "blue" }, [["color", "enum", "/color"]]],
    ["a titled single-select value outside oneOf", { ...valid, size: "m" }, [["size", "oneOf", "/size"]]],
    ["a label instead of a value (titled)", { ...valid, size: "Large" }, [["size", "oneOf", "/size"]]],
    ["a legacy enumNames label instead of its value", { ...valid, legacy: "Option A" }, [["legacy", "enum", "/legacy"]]],
    ["a multi-select item outside items.enum", { ...valid, tags: ["x", "w"] }, [["tags", "enum", "/tags/1"]]],
    ["a titled multi-select item outside items.anyOf", { ...valid, flavors: ["v", "s"] }, [["flavors", "anyOf", "/flavors/1"]]],
    ["fewer items than minItems", { ...valid, tags: [] }, [["tags", "minItems", "/tags"]]],
    ["more items than maxItems", { ...valid, tags: ["x", "y", "z"] }, [["tags", "maxItems", "/tags"]]],
    ["an option chosen twice", { ...valid, flavors: ["v", "v"] }, [["flavors", "uniqueItems", "/flavors/1"]]],
    ["a string for a multi-select", { ...valid, tags: "x" }, [["tags", "type", "/tags"]]],
    ["a field the form does not have", { ...valid, nickname: "A" }, [["nickname", "additionalProperties", "/nickname"]]],
    ["null for an optional field", { ...valid, agree: null }, [["agree", "type", "/agree"]]],
  ] as const)("%s", (_case, content, expected) => {
    expect(contentErrors(contact, content)).toEqual(expected);
  });

  it("reports every wrong field of one answer, each once", () => {
    const errors = contentErrors(contact, { name: "A", age: 12, color: "blue", extra: 1 });
    expect(errors).toEqual([
      ["name", "minLength", "/name"],
      ["email", "required", "/email"],
      ["age", "minimum", "/age"],
      ["color", "enum", "/color"],
      ["extra", "additionalProperties", "/extra"],
    ]);
  });

  it("content that is not an object is one error about the whole answer", () => {
    for (const content of [null, [], "name", 3, undefined]) expect(contentErrors(contact, content)).toEqual([[undefined, "type", ""]]);
  });

  it("counts length in code points, not UTF-16 units", () => {
    const form = formOf({ type: "string", minLength: 3, maxLength: 3 });
    expect(validateElicitationContent(form, { f: "😀😀😀" }).ok).toBe(true); // 6 UTF-16 units
    expect(contentErrors(form, { f: "😀😀" })).toEqual([["f", "minLength", "/f"]]);
    expect(contentErrors(form, { f: "😀😀😀😀" })).toEqual([["f", "maxLength", "/f"]]);
  });

  it("messages say what to do, with the options' labels", () => {
    const result = validateElicitationContent(contact, { ...valid, name: "A", size: "m", legacy: "c", tags: [] });
    if (result.ok) throw new Error("rejected above");
    expect(result.errors.map((e) => e.message)).toEqual([
      "Enter at least 2 characters.",
      "Choose one of: Small, Large.",
      "Choose one of: Option A, Option B.",
      "Choose at least 1 option.",
    ]);
    expect(result.errors[0]!.schemaPath).toBe("requestedSchema#/properties/name/minLength");
  });

  it("parseElicitationContent returns valid content and throws ElicitationContentInvalid with the errors", () => {
    expect(parseElicitationContent(contact, valid)).toEqual(valid);
    const thrown = (() => {
      try {
        parseElicitationContent(contact, { ...valid, age: 5 });
      } catch (e) {
        return e;
      }
    })();
    expect(thrown).toBeInstanceOf(ElicitationContentInvalid);
    expect((thrown as ElicitationContentInvalid).errors.map((e) => [e.field, e.keyword])).toEqual([["age", "minimum"]]);
    expect((thrown as Error).message).toBe("invalid elicitation content: age: Enter a number of at least 18.");
  });
});

// ---------------------------------------------------------------------------------------------

describe("formats, judged by the JSON Schema Test Suite (draft 2020-12, optional/format)", () => {
  const FORMATS = ["email", "uri", "date", "date-time"] as const;
  describe.each(FORMATS)("%s", (format) => {
    const groups = JSON.parse(readFileSync(fixturePath("json-schema-test-suite", "tests", "draft2020-12", "optional", "format", `${format}.json`), "utf8")) as {
      tests: { description: string; data: unknown; valid: boolean }[];
    }[];
    // Only strings reach a text field's format check (other types fail `type` first).
    const cases = groups.flatMap((g) => g.tests).filter((t) => typeof t.data === "string");
    it("has string cases of both verdicts", () => {
      expect(cases.some((c) => c.valid)).toBe(true);
      expect(cases.some((c) => !c.valid)).toBe(true);
    });
    it.each(cases.map((c) => [c.description, c] as const))("%s", (_description, c) => {
      const result = validateElicitationContent(formOf({ type: "string", format }), { f: c.data });
      if (c.valid) expect(result).toEqual({ ok: true, value: { f: c.data } });
      else expect(result.ok ? [] : result.errors.map((e) => [e.field, e.keyword])).toEqual([["f", "format"]]);
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe("defaults", () => {
  it("are each field's default; fields without one are left out", () => {
    const form = {
      type: "object",
      properties: {
        name: { type: "string", default: "Ann" },
        age: { type: "integer", default: 30 },
        agree: { type: "boolean", default: false },
        color: { type: "string", enum: ["red", "green"], default: "green" },
        size: { type: "string", oneOf: [{ const: "s", title: "Small" }], default: "s" },
        tags: { type: "array", items: { type: "string", enum: ["x", "y"] }, default: ["y"] },
        note: { type: "string" },
      },
    };
    expect(elicitationDefaults(form)).toEqual({ ok: true, value: { name: "Ann", age: 30, agree: false, color: "green", size: "s", tags: ["y"] } });
  });

  it("leave out a default that is null (as schemars writes an unset one) or not one of the options", () => {
    const form = {
      type: "object",
      properties: {
        a: { type: "string", default: null },
        b: { type: "string", enum: ["x"], default: "nope" },
        c: { type: "array", items: { type: "string", enum: ["x"] }, default: ["x", "nope"] },
        d: { type: "integer", default: 1.5 },
      },
    };
    expect(elicitationDefaults(form)).toEqual({ ok: true, value: {} });
  });

  it("of a malformed form are the same error result as validation", () => {
    const nested = formOf({ type: "object", properties: {} });
    expect(elicitationDefaults(nested)).toEqual(validateElicitationContent(nested, {}));
    expect(elicitationDefaults(nested).ok).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------

describe("a malformed requested schema is an error result, never a crash", () => {
  it.each([
    ["not an object", "form", [[undefined, "type", ""]]],
    ["null", null, [[undefined, "type", ""]]],
    ["an array", [], [[undefined, "type", ""]]],
    ["without properties", { type: "object" }, [[undefined, "properties", "/properties"]]],
    ["not of type object", { type: "array", properties: {} }, [[undefined, "type", "/type"]]],
    ["a nested object field", formOf({ type: "object", properties: { street: { type: "string" } } }), [["f", "type", "/properties/f/type"]]],
    ["an unknown field type", formOf({ type: "date" }), [["f", "type", "/properties/f/type"]]],
    ["a field without a type", formOf({ title: "Name" }), [["f", "type", "/properties/f/type"]]],
    ["a field schema that is not an object", formOf(true as never), [["f", "type", "/properties/f"]]],
    ["required naming a field that does not exist", { type: "object", properties: {}, required: ["ghost"] }, [["ghost", "required", "/required/0"]]],
    ["required that is not a list of names", { type: "object", properties: {}, required: "name" }, [[undefined, "required", "/required"]]],
    ["enum options that are not strings", formOf({ type: "string", enum: [1, 2] }), [["f", "enum", "/properties/f/enum"]]],
    ["oneOf options without titles", formOf({ type: "string", oneOf: [{ const: "a" }] }), [["f", "oneOf", "/properties/f/oneOf/0"]]],
    ["a multi-select without options", formOf({ type: "array", items: { type: "string" } }), [["f", "items", "/properties/f/items"]]],
    ["enumNames of the wrong length", formOf({ type: "string", enum: ["a", "b"], enumNames: ["A"] }), [["f", "enumNames", "/properties/f/enumNames"]]],
    ["an unknown format", formOf({ type: "string", format: "phone" }), [["f", "format", "/properties/f/format"]]],
    ["a negative minLength", formOf({ type: "string", minLength: -1 }), [["f", "minLength", "/properties/f/minLength"]]],
  ] as const)("%s", (_case, schema, expected) => {
    expect(schemaErrors(schema)).toEqual(expected);
  });

  it("what the form reading allows but the set's schema does not is reported by the set's validator, at its field", () => {
    // Codex's primitive schemas are closed (additionalProperties: false): `pattern` is not a form keyword there.
    const result = validateElicitationContent(formOf({ type: "string", pattern: "^a" }), { f: "a" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.invalid).toBe("requestedSchema");
    expect(result.errors.every((e) => e.field === "f" && e.path.startsWith("/properties/f"))).toBe(true);
    expect(result.errors.map((e) => e.schemaPath).join(" ")).toContain("codex-mcp-elicitation-request-params.schema.json#");
  });

  it("reads schemars' nulls (`\"minLength\": null`) as absent keywords", () => {
    const form = { type: "object", properties: { f: { type: "string", minLength: null, maxLength: null, format: null, title: null } }, required: null };
    expect(validateElicitationContent(form, { f: "" })).toEqual({ ok: true, value: { f: "" } });
  });
});

describe("the module", () => {
  it("does what the README's Elicitation example says", () => {
    const form = { type: "object", properties: { name: { type: "string", minLength: 2 }, age: { type: "integer", minimum: 18 } }, required: ["name"] };
    expect(elicitationDefaults(form)).toEqual({ ok: true, value: {} });
    const result = validateElicitationContent(form, { name: "A", age: 17.5 });
    expect(result).toEqual({
      ok: false,
      invalid: "content",
      errors: [
        { field: "name", path: "/name", keyword: "minLength", message: "Enter at least 2 characters.", schemaPath: "requestedSchema#/properties/name/minLength" },
        { field: "age", path: "/age", keyword: "type", message: "Enter a whole number.", schemaPath: "requestedSchema#/properties/age/type" },
      ],
    });
  });

  it("imports nothing from outside its folder", () => {
    const source = readFileSync(join(projectRoot, "generated", "elicitation-codex", "elicitation.ts"), "utf8");
    const imports = [...source.matchAll(/^import[^;]*from "([^"]+)";/gm)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    for (const specifier of imports) expect(specifier).toMatch(/^\.\/(?:runtime\/[a-z-]+\/)?[a-z-]+\.js$/);
  });
});
