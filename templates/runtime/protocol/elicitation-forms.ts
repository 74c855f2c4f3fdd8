/**
 * Elicitation forms at run time, copied unchanged into every generated set that has a form
 * elicitation (as `elicitation-forms.ts`). The `requestedSchema` of a form elicitation is data that
 * arrives with the request (a flat object of primitive fields), so this module reads it:
 *
 * - `validateElicitationContentWith(validate, requestedSchema, content)` checks the `content` of an
 *   accepting answer against the form: required fields, text length (in code points) and format
 *   (`email`, `uri`, `date`, `date-time`), number vs integer and bounds, yes/no, single- and
 *   multi-select options (with `minItems`/`maxItems` and no option twice), and no field the form
 *   does not have. Every error names its field, the keyword that failed and a message a host can
 *   show next to the input.
 * - `elicitationDefaultsWith(validate, requestedSchema)` is the content a form shows before the user types.
 * - `readElicitationFormWith(validate, requestedSchema)` is the form as a list of fields, for hosts that render it.
 *
 * The one thing that depends on the schemas is the set's own validator of requested schemas
 * (`validateMcpElicitationSchema`): every function takes it as its first argument, and the set's
 * generated `elicitation.ts` binds it, exporting the same functions without the `With`. So this
 * module imports nothing generated but the validators' runtime.
 *
 * A requested schema that is not a form (not an object of primitive fields, a nested object, an
 * unknown field type) is reported as `invalid: "requestedSchema"` with the same error shape; no
 * function here throws except `parseElicitationContentWith`, which throws `ElicitationContentInvalid`.
 */
import {
  codePointLength,
  describe,
  isObject,
  ownValue,
  pointerToken,
  type JsonObject,
  type ValidationError,
  type ValidationResult,
} from "./json.js";

/** The set's validator of requested schemas (`validateMcpElicitationSchema`): the seam to the generated code. */
export type RequestedSchemaValidator<Schema> = (requestedSchema: unknown) => ValidationResult<Schema>;

/** What one form field holds: text, a number, yes/no, or the options chosen in a multi-select. */
export type ElicitationValue = string | number | boolean | string[];

/** The content of an accepting answer (or a form's defaults): one value per field. */
export type ElicitationContent = { [field: string]: ElicitationValue };

/** One problem, located like a validator error, with the form field it belongs to. */
export interface ElicitationError extends ValidationError {
  /** The form field (a key of the requested schema's `properties`); absent when the problem is the whole form or the whole content. */
  readonly field?: string;
}

export type ElicitationContentResult =
  | { readonly ok: true; readonly value: ElicitationContent }
  /** `content`: the answer does not fit the form. `requestedSchema`: the form itself cannot be read. */
  | {
      readonly ok: false;
      readonly invalid: "content" | "requestedSchema";
      readonly errors: readonly ElicitationError[];
    };

/** A string format a text field may ask for, checked as JSON Schema's format assertion would. */
export type ElicitationFormat = "email" | "uri" | "date" | "date-time";

/** One option of a single- or multi-select: the value sent and the label shown. */
export interface ElicitationOption {
  readonly value: string;
  readonly label: string;
}

interface FieldBase {
  /** The key in `properties` and in the content. */
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly required: boolean;
}

/** One input of a form, as the requested schema describes it. */
export type ElicitationField =
  | (FieldBase & {
      readonly kind: "text";
      readonly minLength?: number;
      readonly maxLength?: number;
      readonly format?: ElicitationFormat;
      readonly default?: string;
    })
  | (FieldBase & {
      readonly kind: "number";
      readonly integer: boolean;
      readonly minimum?: number;
      readonly maximum?: number;
      readonly default?: number;
    })
  | (FieldBase & { readonly kind: "boolean"; readonly default?: boolean })
  /** A single-select: `enum` (labels from the legacy `enumNames` when given) or `oneOf` titled constants. */
  | (FieldBase & {
      readonly kind: "select";
      readonly options: readonly ElicitationOption[];
      readonly titled: boolean;
      readonly default?: string;
    })
  /** A multi-select: `items.enum` or `items.anyOf` titled constants. */
  | (FieldBase & {
      readonly kind: "multiselect";
      readonly options: readonly ElicitationOption[];
      readonly titled: boolean;
      readonly minItems?: number;
      readonly maxItems?: number;
      readonly default?: string[];
    });

/** A requested schema read as a form; `Schema` is the set's type of requested schemas. */
export interface ElicitationFormOf<Schema> {
  readonly schema: Schema;
  readonly fields: readonly ElicitationField[];
}

export type ElicitationFormResultOf<Schema> =
  | { readonly ok: true; readonly value: ElicitationFormOf<Schema> }
  | { readonly ok: false; readonly invalid: "requestedSchema"; readonly errors: readonly ElicitationError[] };

/** Thrown by `parseElicitationContent`; carries the errors `validateElicitationContent` returns. */
export class ElicitationContentInvalid extends Error {
  override readonly name = "ElicitationContentInvalid";
  constructor(
    readonly invalid: "content" | "requestedSchema",
    readonly errors: readonly ElicitationError[],
  ) {
    super(
      `invalid elicitation ${invalid === "content" ? "content" : "requested schema"}: ` +
        errors
          .slice(0, 5)
          .map((e) => `${e.field ?? (e.path || "(root)")}: ${e.message}`)
          .join("; ") +
        (errors.length > 5 ? `; and ${errors.length - 5} more` : ""),
    );
  }
}

/** Where a keyword of the requested schema sits, for `schemaPath`. */
const SCHEMA = "requestedSchema#";

/** Reads a requested schema as a form: its fields in order, or why it is not a form. */
export function readElicitationFormWith<Schema>(
  validate: RequestedSchemaValidator<Schema>,
  requestedSchema: unknown,
): ElicitationFormResultOf<Schema> {
  const errors: ElicitationError[] = [];
  const fields = readFields(requestedSchema, errors);
  if (errors.length > 0 || fields === undefined) return { ok: false, invalid: "requestedSchema", errors };
  // The form reads; the schema's own validator has the last word on its shape (nulls, extra keywords, ...).
  const checked = validate(requestedSchema);
  if (!checked.ok) {
    return {
      ok: false,
      invalid: "requestedSchema",
      errors: checked.errors.map((e) => withField(e, fieldOfSchemaPath(e.path))),
    };
  }
  return { ok: true, value: { schema: checked.value, fields } };
}

/** Checks the content of an accepting answer against the form it answers. */
export function validateElicitationContentWith(
  validate: RequestedSchemaValidator<unknown>,
  requestedSchema: unknown,
  content: unknown,
): ElicitationContentResult {
  const form = readElicitationFormWith(validate, requestedSchema);
  if (!form.ok) return form;
  const errors: ElicitationError[] = [];
  if (!isObject(content)) {
    errors.push({
      path: "",
      keyword: "type",
      message: `The answer must be an object of field values, got ${describe(content)}.`,
      schemaPath: `${SCHEMA}/type`,
    });
    return { ok: false, invalid: "content", errors };
  }
  const fields = new Map(form.value.fields.map((field) => [field.name, field]));
  for (const field of form.value.fields) {
    const value = ownValue(content, field.name);
    if (value === undefined) {
      if (field.required) fieldError(errors, field.name, "", "required", "This field is required.", "/required");
      continue;
    }
    checkField(field, value, errors);
  }
  for (const name of Object.keys(content)) {
    if (!fields.has(name))
      fieldError(errors, name, "", "additionalProperties", `This form has no field "${name}".`, "/properties");
  }
  return errors.length > 0
    ? { ok: false, invalid: "content", errors }
    : { ok: true, value: content as ElicitationContent };
}

/** Whether the content fits the form (a malformed form fits nothing). */
export function isElicitationContentWith(
  validate: RequestedSchemaValidator<unknown>,
  requestedSchema: unknown,
  content: unknown,
): content is ElicitationContent {
  return validateElicitationContentWith(validate, requestedSchema, content).ok;
}

/** The content, typed, or `ElicitationContentInvalid` carrying every error. */
export function parseElicitationContentWith(
  validate: RequestedSchemaValidator<unknown>,
  requestedSchema: unknown,
  content: unknown,
): ElicitationContent {
  const result = validateElicitationContentWith(validate, requestedSchema, content);
  if (!result.ok) throw new ElicitationContentInvalid(result.invalid, result.errors);
  return result.value;
}

/**
 * The content a form shows before the user types: each field's `default`. A default that does
 * not fit its field's kind (or is not one of a select's options) is left out.
 */
export function elicitationDefaultsWith(
  validate: RequestedSchemaValidator<unknown>,
  requestedSchema: unknown,
): ElicitationContentResult {
  const form = readElicitationFormWith(validate, requestedSchema);
  if (!form.ok) return form;
  const content: ElicitationContent = {};
  for (const field of form.value.fields) {
    if (field.default !== undefined) content[field.name] = field.default;
  }
  return { ok: true, value: content };
}

// ---------------------------------------------------------------------------------------------
// Reading the requested schema

const FIELD_TYPES = '"string", "number", "integer", "boolean" or "array" (a multi-select)';

function readFields(schema: unknown, errors: ElicitationError[]): ElicitationField[] | undefined {
  if (!isObject(schema)) {
    schemaError(errors, "", "type", `The requested schema must be an object schema, got ${describe(schema)}.`);
    return undefined;
  }
  if (ownValue(schema, "type") !== "object") {
    schemaError(
      errors,
      "/type",
      "type",
      `The requested schema must have "type": "object", got ${describe(ownValue(schema, "type"))}.`,
    );
  }
  const properties = ownValue(schema, "properties");
  if (!isObject(properties)) {
    schemaError(
      errors,
      "/properties",
      "properties",
      `The requested schema must list its fields in "properties", got ${describe(properties)}.`,
    );
    return undefined;
  }
  const required = optional(schema, "required");
  let requiredNames: string[] = [];
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((n): n is string => typeof n === "string")) {
      schemaError(
        errors,
        "/required",
        "required",
        `"required" must be an array of field names, got ${describe(required)}.`,
      );
    } else {
      requiredNames = required;
      required.forEach((name, i) => {
        if (ownValue(properties, name) === undefined) {
          schemaError(
            errors,
            `/required/${i}`,
            "required",
            `"required" names "${name}", which is not a field of this form.`,
            name,
          );
        }
      });
    }
  }
  const fields: ElicitationField[] = [];
  for (const name of Object.keys(properties)) {
    const field = readField(name, ownValue(properties, name), requiredNames.includes(name), errors);
    if (field) fields.push(field);
  }
  return fields;
}

function readField(
  name: string,
  schema: unknown,
  required: boolean,
  errors: ElicitationError[],
): ElicitationField | undefined {
  const at = `/properties/${pointerToken(name)}`;
  if (!isObject(schema)) {
    schemaError(errors, at, "type", `A field's schema must be an object, got ${describe(schema)}.`, name);
    return undefined;
  }
  const base: FieldBase = {
    name,
    required,
    ...text(schema, "title"),
    ...text(schema, "description"),
  };
  const count = (keyword: string): number | undefined => {
    const value = optional(schema, keyword);
    if (value === undefined) return undefined;
    if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value;
    schemaError(
      errors,
      `${at}/${keyword}`,
      keyword,
      `"${keyword}" must be a non-negative integer, got ${describe(value)}.`,
      name,
    );
    return undefined;
  };
  const type = ownValue(schema, "type");
  switch (type) {
    case "string": {
      if (optional(schema, "enum") !== undefined) return readEnumSelect(base, schema, at, errors);
      if (optional(schema, "oneOf") !== undefined) return readTitledSelect(base, schema, at, errors);
      const format = optional(schema, "format");
      if (format !== undefined && !isFormat(format)) {
        schemaError(
          errors,
          `${at}/format`,
          "format",
          `Unknown format ${describe(format)}; expected "email", "uri", "date" or "date-time".`,
          name,
        );
      }
      const defaultValue = optional(schema, "default");
      return {
        ...base,
        kind: "text",
        ...defined("minLength", count("minLength")),
        ...defined("maxLength", count("maxLength")),
        ...(isFormat(format) ? { format } : {}),
        ...(typeof defaultValue === "string" ? { default: defaultValue } : {}),
      };
    }
    case "number":
    case "integer": {
      const bound = (keyword: "minimum" | "maximum"): number | undefined => {
        const value = optional(schema, keyword);
        if (value === undefined || (typeof value === "number" && Number.isFinite(value))) return value;
        schemaError(
          errors,
          `${at}/${keyword}`,
          keyword,
          `"${keyword}" must be a number, got ${describe(value)}.`,
          name,
        );
        return undefined;
      };
      const defaultValue = optional(schema, "default");
      return {
        ...base,
        kind: "number",
        integer: type === "integer",
        ...defined("minimum", bound("minimum")),
        ...defined("maximum", bound("maximum")),
        ...(typeof defaultValue === "number" && (type === "number" || Number.isInteger(defaultValue))
          ? { default: defaultValue }
          : {}),
      };
    }
    case "boolean": {
      const defaultValue = optional(schema, "default");
      return { ...base, kind: "boolean", ...(typeof defaultValue === "boolean" ? { default: defaultValue } : {}) };
    }
    case "array": {
      const items = ownValue(schema, "items");
      let options: ElicitationOption[] | undefined;
      let titled = false;
      if (isObject(items) && optional(items, "enum") !== undefined) {
        options = enumOptions(ownValue(items, "enum"), undefined, `${at}/items/enum`, name, errors);
      } else if (isObject(items) && optional(items, "anyOf") !== undefined) {
        titled = true;
        options = constOptions(ownValue(items, "anyOf"), `${at}/items/anyOf`, name, errors);
      } else {
        schemaError(
          errors,
          `${at}/items`,
          "items",
          'A multi-select must list its options in "items": { "enum": [...] } or { "anyOf": [{ "const", "title" }, ...] }.',
          name,
        );
      }
      if (!options) return undefined;
      const values = new Set(options.map((o) => o.value));
      const defaultValue = optional(schema, "default");
      const validDefault =
        Array.isArray(defaultValue) && defaultValue.every((v): v is string => typeof v === "string" && values.has(v));
      return {
        ...base,
        kind: "multiselect",
        options,
        titled,
        ...defined("minItems", count("minItems")),
        ...defined("maxItems", count("maxItems")),
        ...(validDefault ? { default: [...defaultValue] } : {}),
      };
    }
    case "object":
      schemaError(
        errors,
        `${at}/type`,
        "type",
        `Nested objects are not supported: a form field must be of type ${FIELD_TYPES}.`,
        name,
      );
      return undefined;
    default:
      schemaError(errors, `${at}/type`, "type", `Unknown field type ${describe(type)}; expected ${FIELD_TYPES}.`, name);
      return undefined;
  }
}

function readEnumSelect(
  base: FieldBase,
  schema: JsonObject,
  at: string,
  errors: ElicitationError[],
): ElicitationField | undefined {
  const names = optional(schema, "enumNames");
  const options = enumOptions(ownValue(schema, "enum"), names, `${at}/enum`, base.name, errors);
  if (
    names !== undefined &&
    (!Array.isArray(names) || !names.every((n) => typeof n === "string") || names.length !== options?.length)
  ) {
    schemaError(
      errors,
      `${at}/enumNames`,
      "enumNames",
      '"enumNames" must hold one label (a string) per value of "enum".',
      base.name,
    );
  }
  return options ? selectField(base, schema, options, false) : undefined;
}

function readTitledSelect(
  base: FieldBase,
  schema: JsonObject,
  at: string,
  errors: ElicitationError[],
): ElicitationField | undefined {
  const options = constOptions(ownValue(schema, "oneOf"), `${at}/oneOf`, base.name, errors);
  return options ? selectField(base, schema, options, true) : undefined;
}

function selectField(
  base: FieldBase,
  schema: JsonObject,
  options: ElicitationOption[],
  titled: boolean,
): ElicitationField {
  const defaultValue = optional(schema, "default");
  const validDefault = typeof defaultValue === "string" && options.some((o) => o.value === defaultValue);
  return { ...base, kind: "select", options, titled, ...(validDefault ? { default: defaultValue } : {}) };
}

/** `enum: ["a", "b"]`, labelled by the legacy `enumNames` when it fits. */
function enumOptions(
  values: unknown,
  names: unknown,
  at: string,
  field: string,
  errors: ElicitationError[],
): ElicitationOption[] | undefined {
  if (!Array.isArray(values) || !values.every((v): v is string => typeof v === "string")) {
    schemaError(errors, at, "enum", `The options must be an array of strings, got ${describe(values)}.`, field);
    return undefined;
  }
  const labels =
    Array.isArray(names) && names.length === values.length && names.every((n) => typeof n === "string")
      ? (names as string[])
      : undefined;
  return values.map((value, i) => ({ value, label: labels?.[i] ?? value }));
}

/** `oneOf`/`anyOf: [{ const, title }, ...]`. */
function constOptions(
  list: unknown,
  at: string,
  field: string,
  errors: ElicitationError[],
): ElicitationOption[] | undefined {
  const keyword = at.slice(at.lastIndexOf("/") + 1);
  if (!Array.isArray(list)) {
    schemaError(
      errors,
      at,
      keyword,
      `The options must be an array of { "const", "title" }, got ${describe(list)}.`,
      field,
    );
    return undefined;
  }
  const options: ElicitationOption[] = [];
  list.forEach((option, i) => {
    const value = isObject(option) ? ownValue(option, "const") : undefined;
    const title = isObject(option) ? ownValue(option, "title") : undefined;
    if (typeof value !== "string" || typeof title !== "string") {
      schemaError(
        errors,
        `${at}/${i}`,
        keyword,
        `Option ${i} must be { "const": string, "title": string }, got ${describe(option)}.`,
        field,
      );
    } else {
      options.push({ value, label: title });
    }
  });
  return options.length === list.length ? options : undefined;
}

// ---------------------------------------------------------------------------------------------
// Checking one field's value

function checkField(field: ElicitationField, value: unknown, errors: ElicitationError[]): void {
  const name = field.name;
  const fail = (keyword: string, message: string, schemaKeyword: string = keyword, path = "") =>
    fieldError(errors, name, path, keyword, message, `/properties/${pointerToken(name)}/${schemaKeyword}`);
  switch (field.kind) {
    case "text": {
      if (typeof value !== "string") return fail("type", `Expected text, got ${describe(value)}.`);
      const length = codePointLength(value);
      if (field.minLength !== undefined && length < field.minLength) {
        fail("minLength", `Enter at least ${plural(field.minLength, "character")}.`);
      }
      if (field.maxLength !== undefined && length > field.maxLength) {
        fail("maxLength", `Enter at most ${plural(field.maxLength, "character")}.`);
      }
      if (field.format !== undefined && !FORMATS[field.format].test(value))
        fail("format", FORMATS[field.format].message);
      return;
    }
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value))
        return fail("type", `Expected a number, got ${describe(value)}.`);
      if (field.integer && !Number.isInteger(value)) return fail("type", "Enter a whole number.");
      if (field.minimum !== undefined && value < field.minimum)
        fail("minimum", `Enter a number of at least ${field.minimum}.`);
      if (field.maximum !== undefined && value > field.maximum)
        fail("maximum", `Enter a number of at most ${field.maximum}.`);
      return;
    }
    case "boolean":
      if (typeof value !== "boolean") fail("type", `Expected true or false, got ${describe(value)}.`);
      return;
    case "select": {
      const keyword = field.titled ? "oneOf" : "enum";
      if (typeof value !== "string") return fail("type", `Expected one of the options, got ${describe(value)}.`);
      if (!field.options.some((o) => o.value === value)) fail(keyword, `Choose one of: ${labels(field.options)}.`);
      return;
    }
    case "multiselect": {
      if (!Array.isArray(value)) return fail("type", `Expected a list of options, got ${describe(value)}.`);
      const itemsKeyword = field.titled ? "anyOf" : "enum";
      const seen = new Set<unknown>();
      value.forEach((item: unknown, i) => {
        if (typeof item !== "string" || !field.options.some((o) => o.value === item)) {
          fail(
            itemsKeyword,
            `${describe(item)} is not an option; choose from: ${labels(field.options)}.`,
            `items/${itemsKeyword}`,
            `/${i}`,
          );
        } else if (seen.has(item)) {
          fail("uniqueItems", `${describe(labelOf(field.options, item))} is chosen more than once.`, "items", `/${i}`);
        }
        seen.add(item);
      });
      if (field.minItems !== undefined && value.length < field.minItems)
        fail("minItems", `Choose at least ${plural(field.minItems, "option")}.`);
      if (field.maxItems !== undefined && value.length > field.maxItems)
        fail("maxItems", `Choose at most ${plural(field.maxItems, "option")}.`);
      return;
    }
  }
}

/** The formats a text field may ask for, checked as JSON Schema's format assertion reads them. */
const FORMATS: {
  readonly [F in ElicitationFormat]: { readonly test: (value: string) => boolean; readonly message: string };
} = {
  email: { test: isEmail, message: "Enter a valid email address." },
  uri: { test: isUri, message: "Enter a valid URI, such as https://example.com." },
  date: { test: isDate, message: "Enter a valid date (YYYY-MM-DD)." },
  "date-time": {
    test: isDateTime,
    message: "Enter a valid date and time (YYYY-MM-DDThh:mm:ss and Z or an offset such as +01:00).",
  },
};

// The format checks read each character a bounded number of times: hand-written scans over
// character tables, and regular expressions only of fixed length or where nothing repeats but one
// character class that what follows cannot match, so no input makes them backtrack, and none
// needs stack in proportion to its input. `npm run bench:formats` times them on growing
// adversarial strings.

/** A table of the ASCII characters a part of an address or URI may hold. */
function characters(...sets: string[]): Uint8Array {
  const table = new Uint8Array(128);
  for (const set of sets) for (let i = 0; i < set.length; i++) table[set.charCodeAt(i)] = 1;
  return table;
}

const DIGIT = "0123456789";
const ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** RFC 5322 atext: what the atoms of a dot-string are made of. */
const ATEXT = characters(ALPHA, DIGIT, "!#$%&'*+/=?^_`{|}~-");
const LETTER = characters(ALPHA);
const LETTER_OR_DIGIT = characters(ALPHA, DIGIT);
const DIGITS = characters(DIGIT);
const HEX_DIGIT = characters(DIGIT, "ABCDEFabcdef");
const SCHEME = characters(ALPHA, DIGIT, "+-.");
const UNRESERVED = `${ALPHA}${DIGIT}-._~`;
const SUB_DELIMS = "!$&'()*+,;=";
const REG_NAME = characters(UNRESERVED, SUB_DELIMS);
const USERINFO = characters(UNRESERVED, SUB_DELIMS, ":");
const PATH = characters(UNRESERVED, SUB_DELIMS, ":@/");
const QUERY_OR_FRAGMENT = characters(UNRESERVED, SUB_DELIMS, ":@/?");
const IP_FUTURE = characters(UNRESERVED, SUB_DELIMS, ":");

function inTable(table: Uint8Array, code: number): boolean {
  return code < 128 && table[code] === 1;
}

/** Whether `text[start, end)` is characters of `table` only, or (with `percent`) `%` and two hex digits. */
function only(text: string, start: number, end: number, table: Uint8Array, percent: boolean): boolean {
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (inTable(table, code)) continue;
    if (!percent || code !== 0x25 || i + 2 >= end) return false;
    if (!inTable(HEX_DIGIT, text.charCodeAt(i + 1)) || !inTable(HEX_DIGIT, text.charCodeAt(i + 2))) return false;
    i += 2;
  }
  return true;
}

/** RFC 5321 Mailbox: a dot-string or quoted local part, then a host name or an address literal. */
function isEmail(value: string): boolean {
  const at = value.lastIndexOf("@");
  if (at < 1) return false;
  if (!isDotString(value, 0, at) && !isQuotedString(value, 0, at)) return false;
  const domain = value.slice(at + 1);
  if (domain.startsWith("[") && domain.endsWith("]")) {
    const literal = domain.slice(1, -1);
    return literal.startsWith("IPv6:") ? isIPv6(literal.slice(5)) : isIPv4(literal);
  }
  return isHostName(domain);
}

/** atext atoms joined by single dots (RFC 5321 Dot-string). */
function isDotString(text: string, start: number, end: number): boolean {
  let atom = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x2e) {
      if (atom === 0) return false;
      atom = 0;
    } else if (inTable(ATEXT, code)) {
      atom++;
    } else {
      return false;
    }
  }
  return atom > 0;
}

/** `"`, then printable ASCII but `"` and `\`, or `\` and a printable character, then `"` (RFC 5321 Quoted-string). */
function isQuotedString(text: string, start: number, end: number): boolean {
  if (end - start < 2 || text.charCodeAt(start) !== 0x22 || text.charCodeAt(end - 1) !== 0x22) return false;
  for (let i = start + 1; i < end - 1; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x5c) {
      i++;
      if (i >= end - 1) return false; // the closing quote would be escaped
      const escaped = text.charCodeAt(i);
      if (escaped < 0x20 || escaped > 0x7e) return false;
    } else if (code < 0x20 || code > 0x7e || code === 0x22) {
      return false;
    }
  }
  return true;
}

/** Labels of 1 to 63 letters, digits and inner hyphens, joined by dots. */
function isHostName(text: string): boolean {
  let length = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (code === 0x2e) {
      // A label ends: not empty, not too long, not ending with a hyphen.
      if (length === 0 || length > 63 || text.charCodeAt(i - 1) === 0x2d) return false;
      length = 0;
    } else if (inTable(LETTER_OR_DIGIT, code) || (code === 0x2d && length > 0)) {
      length++;
    } else {
      return false;
    }
  }
  return true;
}

/** RFC 3986 URI: a scheme, then an authority and path, query and fragment of allowed characters only. */
function isUri(value: string): boolean {
  // scheme ":" ["//" authority] path ["?" query] ["#" fragment], each part found by the character that ends it.
  const colon = value.indexOf(":");
  if (colon < 1 || !inTable(LETTER, value.charCodeAt(0)) || !only(value, 1, colon, SCHEME, false)) return false;
  const hash = value.indexOf("#", colon + 1);
  const beforeFragment = hash < 0 ? value.length : hash;
  const question = value.indexOf("?", colon + 1);
  const query = question >= 0 && question < beforeFragment ? question : -1;
  const beforeQuery = query < 0 ? beforeFragment : query;
  let path = colon + 1;
  if (value.startsWith("//", path)) {
    const slash = value.indexOf("/", path + 2);
    const authorityEnd = slash >= 0 && slash < beforeQuery ? slash : beforeQuery;
    if (!isAuthority(value.slice(path + 2, authorityEnd))) return false;
    path = authorityEnd;
  }
  return (
    only(value, path, beforeQuery, PATH, true) &&
    (query < 0 || only(value, query + 1, beforeFragment, QUERY_OR_FRAGMENT, true)) &&
    (hash < 0 || only(value, hash + 1, value.length, QUERY_OR_FRAGMENT, true))
  );
}

/** [userinfo "@"] host [":" port], the host a registered name or an IP literal in brackets. */
function isAuthority(authority: string): boolean {
  const at = authority.indexOf("@");
  if (at >= 0 && !only(authority, 0, at, USERINFO, true)) return false;
  const hostPort = at >= 0 ? authority.slice(at + 1) : authority;
  let port: string;
  if (hostPort.startsWith("[")) {
    const close = hostPort.indexOf("]");
    if (close < 0) return false;
    const rest = hostPort.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) return false;
    port = rest.slice(1);
    const literal = hostPort.slice(1, close);
    if (!isIPv6(literal) && !isIPFuture(literal)) return false;
  } else {
    const colon = hostPort.indexOf(":");
    port = colon >= 0 ? hostPort.slice(colon + 1) : "";
    if (!only(hostPort, 0, colon >= 0 ? colon : hostPort.length, REG_NAME, true)) return false;
  }
  return only(port, 0, port.length, DIGITS, false);
}

/** RFC 3986 IPvFuture: "v", hex digits, ".", then unreserved, sub-delims or ":". */
function isIPFuture(text: string): boolean {
  if (text.charCodeAt(0) !== 0x76 && text.charCodeAt(0) !== 0x56) return false;
  let i = 1;
  while (i < text.length && inTable(HEX_DIGIT, text.charCodeAt(i))) i++;
  if (i === 1 || text.charCodeAt(i) !== 0x2e || i + 1 >= text.length) return false;
  return only(text, i + 1, text.length, IP_FUTURE, false);
}

function isIPv4(value: string): boolean {
  return /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/.test(
    value,
  );
}

/** The longest IPv6 address text: six groups of four hex digits and an IPv4 address (RFC 4291 § 2.2). */
const MAX_IPV6_LENGTH = 45;

function isIPv6(value: string): boolean {
  if (value.length > MAX_IPV6_LENGTH) return false;
  const halves = value.split("::");
  if (halves.length > 2) return false;
  const groups = halves.flatMap((half) => (half === "" ? [] : half.split(":")));
  let count = groups.length;
  // The last 32 bits may be written as an IPv4 address.
  if (groups.length > 0 && groups[groups.length - 1]!.includes(".")) {
    if (!isIPv4(groups.pop()!)) return false;
    count++;
  }
  if (!groups.every((group) => /^[0-9A-Fa-f]{1,4}$/.test(group))) return false;
  return halves.length === 2 ? count <= 7 : count === 8;
}

/** RFC 3339 full-date, with the days each month has. */
function isDate(value: string): boolean {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(value);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

/** RFC 3339 date-time: a date, "T", a time with seconds, and "Z" or an offset; a leap second only at 23:59:60 UTC. */
function isDateTime(value: string): boolean {
  const match = /^(.{10})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))$/.exec(
    value,
  );
  if (!match || !isDate(match[1]!)) return false;
  const [hour, minute, second] = [match[2], match[3], match[4]].map(Number) as [number, number, number];
  const sign = match[5] === "-" ? -1 : 1;
  const [offsetHour, offsetMinute] = match[5] ? [Number(match[6]), Number(match[7])] : [0, 0];
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) return false;
  if (second < 60) return true;
  const utcMinutes = (((hour * 60 + minute - sign * (offsetHour * 60 + offsetMinute)) % 1440) + 1440) % 1440;
  return utcMinutes === 23 * 60 + 59;
}

// ---------------------------------------------------------------------------------------------
// Small helpers

/** A keyword's value, where `null` (which some schema writers emit for "not set") counts as absent. */
function optional(schema: JsonObject, keyword: string): unknown {
  const value = ownValue(schema, keyword);
  return value === null ? undefined : value;
}

function text(schema: JsonObject, keyword: "title" | "description"): { title?: string; description?: string } {
  const value = ownValue(schema, keyword);
  return typeof value === "string" ? { [keyword]: value } : {};
}

function defined<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}

function isFormat(value: unknown): value is ElicitationFormat {
  return value === "email" || value === "uri" || value === "date" || value === "date-time";
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function labels(options: readonly ElicitationOption[]): string {
  return options.map((o) => o.label).join(", ");
}

function labelOf(options: readonly ElicitationOption[], value: string): string {
  return options.find((o) => o.value === value)?.label ?? value;
}

function fieldError(
  errors: ElicitationError[],
  field: string,
  path: string,
  keyword: string,
  message: string,
  schemaPath: string,
): void {
  errors.push({
    field,
    path: `/${pointerToken(field)}${path}`,
    keyword,
    message,
    schemaPath: `${SCHEMA}${schemaPath}`,
  });
}

function schemaError(errors: ElicitationError[], path: string, keyword: string, message: string, field?: string): void {
  errors.push({ ...(field !== undefined ? { field } : {}), path, keyword, message, schemaPath: `${SCHEMA}${path}` });
}

/** The field a requested-schema error is about, from its path (`/properties/name/...`). */
function fieldOfSchemaPath(path: string): string | undefined {
  const match = /^\/properties\/([^/]+)/.exec(path);
  return match ? match[1]!.replace(/~1/g, "/").replace(/~0/g, "~") : undefined;
}

function withField(error: ValidationError, field: string | undefined): ElicitationError {
  return field === undefined ? error : { ...error, field };
}
