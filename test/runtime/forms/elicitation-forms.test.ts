import { describe, expect, it } from "vitest";
import {
  ElicitationContentInvalid,
  elicitationDefaultsWith,
  isElicitationContentWith,
  parseElicitationContentWith,
  readElicitationFormWith,
  validateElicitationContentWith,
  type RequestedSchemaValidator,
} from "../../../templates/runtime/protocol/elicitation-forms.js";
import type { ValidationError } from "../../../templates/runtime/protocol/json.js";

/**
 * The form module of elicitation sets, tested as source (templates/runtime/protocol/elicitation-forms.ts):
 * the set's validator of requested schemas is the one thing a set binds, so here it is a stand-in
 * that accepts everything, or one that rejects with chosen errors.
 */

const acceptAll: RequestedSchemaValidator<unknown> = (value) => ({ ok: true, value });
const rejectWith =
  (errors: ValidationError[]): RequestedSchemaValidator<unknown> =>
  () => ({ ok: false, errors });

const FORM = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 2, maxLength: 4, default: "Ann" },
    email: { type: "string", format: "email" },
    age: { type: "integer", minimum: 18, maximum: 120, default: 17.5 },
    agree: { type: "boolean", default: true },
    colour: { type: "string", enum: ["r", "g"], enumNames: ["Red", "Green"], default: "b" },
    tags: { type: "array", items: { anyOf: [{ const: "a", title: "A" }, { const: "b", title: "B" }] }, minItems: 1, maxItems: 2, default: ["a"] },
  },
  required: ["name", "agree"],
};

describe("readElicitationFormWith", () => {
  it("reads the fields in order, each with its kind and constraints, and hands back what the validator returns as the schema", () => {
    const seen: unknown[] = [];
    const typed = { typed: true };
    const form = readElicitationFormWith((value) => (seen.push(value), { ok: true, value: typed }), FORM);
    expect(seen).toEqual([FORM]);
    expect(form.ok).toBe(true);
    if (!form.ok) return;
    expect(form.value.schema).toBe(typed);
    expect(form.value.fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ["name", "text", true],
      ["email", "text", false],
      ["age", "number", false],
      ["agree", "boolean", true],
      ["colour", "select", false],
      ["tags", "multiselect", false],
    ]);
    expect(form.value.fields[4]).toMatchObject({ options: [{ value: "r", label: "Red" }, { value: "g", label: "Green" }], titled: false });
    expect(form.value.fields[5]).toMatchObject({ titled: true, minItems: 1, maxItems: 2 });
  });

  it("reports a schema that is not a form without calling the validator", () => {
    let called = false;
    const validate: RequestedSchemaValidator<unknown> = (value) => ((called = true), { ok: true, value });
    const nested = readElicitationFormWith(validate, { type: "object", properties: { address: { type: "object" } } });
    expect(nested).toMatchObject({ ok: false, invalid: "requestedSchema", errors: [{ field: "address", keyword: "type", path: "/properties/address/type" }] });
    expect(readElicitationFormWith(validate, [])).toMatchObject({ ok: false, errors: [{ keyword: "type", path: "" }] });
    const unknownRequired = readElicitationFormWith(validate, { type: "object", properties: {}, required: ["ghost"] });
    expect(unknownRequired).toMatchObject({ ok: false, errors: [{ field: "ghost", path: "/required/0" }] });
    expect(called).toBe(false);
  });

  it("gives the validator the last word, each of its errors assigned to the field its path is under", () => {
    const form = readElicitationFormWith(
      rejectWith([
        { path: "/properties/a~1b/title", keyword: "type", message: "m1", schemaPath: "s#/1" },
        { path: "/description", keyword: "type", message: "m2", schemaPath: "s#/2" },
      ]),
      { type: "object", properties: { "a/b": { type: "string", title: "x" } } },
    );
    expect(form).toEqual({
      ok: false,
      invalid: "requestedSchema",
      errors: [
        { path: "/properties/a~1b/title", keyword: "type", message: "m1", schemaPath: "s#/1", field: "a/b" },
        { path: "/description", keyword: "type", message: "m2", schemaPath: "s#/2" },
      ],
    });
  });
});

describe("validateElicitationContentWith", () => {
  const check = (content: unknown) => validateElicitationContentWith(acceptAll, FORM, content);
  const keywords = (content: unknown) => {
    const result = check(content);
    return result.ok ? [] : result.errors.map((e) => `${e.field ?? ""}:${e.keyword}`);
  };

  it("accepts content that fits, returning it as is", () => {
    const content = { name: "Bo", agree: false, email: "a@b.co", age: 18, colour: "g", tags: ["a", "b"] };
    expect(check(content)).toEqual({ ok: true, value: content });
    expect(isElicitationContentWith(acceptAll, FORM, content)).toBe(true);
  });

  it("names the field and keyword of each problem", () => {
    expect(keywords({ agree: true })).toEqual(["name:required"]);
    expect(keywords({ name: "B", agree: true })).toEqual(["name:minLength"]);
    expect(keywords({ name: "Bobby", agree: true })).toEqual(["name:maxLength"]);
    expect(keywords({ name: "Bo", agree: "yes" })).toEqual(["agree:type"]);
    expect(keywords({ name: "Bo", agree: true, email: "not an address" })).toEqual(["email:format"]);
    expect(keywords({ name: "Bo", agree: true, age: 18.5 })).toEqual(["age:type"]);
    expect(keywords({ name: "Bo", agree: true, age: 17 })).toEqual(["age:minimum"]);
    expect(keywords({ name: "Bo", agree: true, age: 121 })).toEqual(["age:maximum"]);
    expect(keywords({ name: "Bo", agree: true, colour: "b" })).toEqual(["colour:enum"]);
    expect(keywords({ name: "Bo", agree: true, tags: [] })).toEqual(["tags:minItems"]);
    expect(keywords({ name: "Bo", agree: true, extra: 1 })).toEqual(["extra:additionalProperties"]);
  });

  it("counts text length in code points, not UTF-16 units", () => {
    // Two emoji: four UTF-16 units, two code points.
    expect(keywords({ name: "\u{1F600}\u{1F600}", agree: true })).toEqual([]);
    expect(keywords({ name: "\u{1F600}", agree: true })).toEqual(["name:minLength"]);
  });

  it("rejects a multi-select that picks an option twice", () => {
    const result = check({ name: "Bo", agree: true, tags: ["a", "a"] });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.field)).toEqual(["tags"]);
  });

  it("reports content that is not an object as a whole, and a malformed form as the form's fault", () => {
    expect(check("x")).toMatchObject({ ok: false, invalid: "content", errors: [{ path: "", keyword: "type" }] });
    expect(validateElicitationContentWith(acceptAll, { type: "object" }, {})).toMatchObject({ ok: false, invalid: "requestedSchema" });
    expect(isElicitationContentWith(acceptAll, { type: "object" }, {})).toBe(false);
  });
});

describe("parseElicitationContentWith", () => {
  it("returns the content when it fits, and otherwise throws ElicitationContentInvalid carrying every error", () => {
    expect(parseElicitationContentWith(acceptAll, FORM, { name: "Bo", agree: true })).toEqual({ name: "Bo", agree: true });
    const wrong = { name: 1, agree: 2, age: "x", colour: 3, tags: 4, email: 5, extra: 6 };
    let thrown: unknown;
    try {
      parseElicitationContentWith(acceptAll, FORM, wrong);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ElicitationContentInvalid);
    const error = thrown as ElicitationContentInvalid;
    expect(error.invalid).toBe("content");
    expect(error.errors).toHaveLength(7);
    // The message lists the first five and counts the rest.
    expect(error.message.startsWith("invalid elicitation content: name: ")).toBe(true);
    expect(error.message.endsWith("; and 2 more")).toBe(true);
  });
});

describe("elicitationDefaultsWith", () => {
  it("is each field's default that fits the field; others are left out", () => {
    // age's default is not a whole number and colour's is not an option: both left out.
    expect(elicitationDefaultsWith(acceptAll, FORM)).toEqual({ ok: true, value: { name: "Ann", agree: true, tags: ["a"] } });
  });

  it("fails as the form does", () => {
    expect(elicitationDefaultsWith(rejectWith([{ path: "", keyword: "type", message: "m", schemaPath: "s#" }]), FORM)).toMatchObject({
      ok: false,
      invalid: "requestedSchema",
    });
  });
});
