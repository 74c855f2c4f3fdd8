/** One reason a value was rejected. */
export interface ValidationError {
  /** JSON pointer to the offending part of the value ("" is the value itself). */
  readonly path: string;
  /** The JSON Schema keyword that failed (`type`, `required`, `enum`, ...; `discriminator` for a union's tag). */
  readonly keyword: string;
  /** A sentence a person can act on. */
  readonly message: string;
  /** Where the failing keyword sits in the schema: `file#/json/pointer`. */
  readonly schemaPath: string;
}

export type ValidationResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly ValidationError[] };

/** Thrown by the `parse*` functions; carries the same errors `validate*` returns. */
export class ValidationFailed extends Error {
  override readonly name = "ValidationFailed";
  constructor(
    readonly typeName: string,
    readonly errors: readonly ValidationError[],
  ) {
    super(
      `invalid ${typeName}: ` +
        errors
          .slice(0, 5)
          .map((e) => `${e.path || "(root)"}: ${e.message}`)
          .join("; ") +
        (errors.length > 5 ? `; and ${errors.length - 5} more` : ""),
    );
  }
}

/** Records one error (kept out of line so the generated checks stay short). */
export function report(
  errors: ValidationError[],
  path: string,
  keyword: string,
  message: string,
  schemaPath: string,
): void {
  errors.push({ path, keyword, message, schemaPath });
}

export type JsonObject = { [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Own properties only: `{}` has no "constructor" as far as JSON is concerned. */
export function ownValue(object: JsonObject, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

/** String length in Unicode code points, as JSON Schema counts it (not UTF-16 units). */
export function codePointLength(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    length++;
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return length;
}

/** JSON equality: numbers by value, objects regardless of key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  for (const key of aKeys) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    if (!jsonEqual((a as JsonObject)[key], (b as JsonObject)[key])) return false;
  }
  return true;
}

/** Whether an array has two JSON-equal items (`uniqueItems`). */
export function hasDuplicates(items: readonly unknown[]): boolean {
  for (let i = 1; i < items.length; i++) {
    for (let j = 0; j < i; j++) if (jsonEqual(items[i], items[j])) return true;
  }
  return false;
}

export function isMultipleOf(value: number, divisor: number): boolean {
  const quotient = value / divisor;
  // A quotient too large for a double is still an exact multiple when the remainder is zero.
  return Number.isFinite(quotient) ? Number.isInteger(quotient) : value % divisor === 0;
}

/** A property name as one JSON-pointer token (`a/b` → `a~1b`). */
export function pointerToken(key: string): string {
  if (!key.includes("~") && !key.includes("/")) return key;
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A short description of a value for messages: `"done"`, `3`, `an object`. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    case "number":
    case "boolean":
      return String(value);
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

/** Drops repeated errors (an `allOf` can report the same type mismatch from several branches). */
export function distinctErrors(errors: ValidationError[]): ValidationError[] {
  if (errors.length < 2) return errors;
  return errors.filter((e, i) => {
    for (let j = 0; j < i; j++) {
      const other = errors[j]!;
      if (other.path === e.path && other.keyword === e.keyword && other.message === e.message) return false;
    }
    return true;
  });
}

/** Reports a value that is not what a keyword expects (`type`, `const`, `enum`, ...). */
export function unexpected(
  errors: ValidationError[],
  path: string,
  keyword: string,
  expected: string,
  value: unknown,
  schemaPath: string,
): void {
  errors.push({ path, keyword, message: `expected ${expected}, got ${describe(value)}`, schemaPath });
}

/** Reports a required property that is absent. */
export function missing(errors: ValidationError[], path: string, name: string, schemaPath: string): void {
  errors.push({
    path: `${path}/${pointerToken(name)}`,
    keyword: "required",
    message: `missing required property "${name}"`,
    schemaPath,
  });
}

/** `validateX`: the fast check first; the error-collecting check only for invalid values. */
export function validateWith<T>(
  value: unknown,
  is: (value: unknown) => value is T,
  check: (value: unknown, path: string, errors: ValidationError[]) => void,
): ValidationResult<T> {
  if (is(value)) return { ok: true, value };
  const errors: ValidationError[] = [];
  check(value, "", errors);
  return { ok: false, errors: distinctErrors(errors) };
}

/** `parseX`: the value typed, or `ValidationFailed` carrying every error. */
export function parseWith<T>(
  value: unknown,
  is: (value: unknown) => value is T,
  check: (value: unknown, path: string, errors: ValidationError[]) => void,
  typeName: string,
): T {
  if (is(value)) return value;
  const errors: ValidationError[] = [];
  check(value, "", errors);
  throw new ValidationFailed(typeName, distinctErrors(errors));
}

/**
 * The Standard Schema v1 interface (standardschema.dev), declared here as its authors ask
 * libraries to do, so the set needs no dependency: any library that accepts a Standard Schema
 * (form libraries, tRPC, Hono's validators...) accepts the objects of `standard-schema.ts`.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown, options?: Options | undefined) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  type Result<Output> = SuccessResult<Output> | FailureResult;
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  interface FailureResult {
    readonly issues: readonly Issue[];
  }
  interface Issue {
    readonly message: string;
    readonly path?: readonly (PropertyKey | PathSegment)[] | undefined;
  }
  interface PathSegment {
    readonly key: PropertyKey;
  }
  interface Options {
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
}

/** A `validateX` function as a Standard Schema object: synchronous, one issue per validation error. */
export function standardSchema<T>(validate: (value: unknown) => ValidationResult<T>): StandardSchemaV1<unknown, T> {
  return {
    "~standard": {
      version: 1,
      vendor: "mcp-tasks-gen",
      validate(value: unknown): StandardSchemaV1.Result<T> {
        const result = validate(value);
        if (result.ok) return { value: result.value };
        return {
          issues: result.errors.map((e) => ({
            message: e.message,
            path: pathSegments(value, e.path),
          })),
        };
      },
    },
  };
}

/**
 * A JSON pointer into `value` as Standard Schema path keys: array indices as numbers, object keys as
 * strings (the pointer alone cannot tell `/0` of an array from a key "0"; the value can).
 */
export function pathSegments(value: unknown, pointer: string): PropertyKey[] {
  if (pointer === "") return [];
  const keys: PropertyKey[] = [];
  let current: unknown = value;
  for (const token of pointer.slice(1).split("/")) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current) && /^(?:0|[1-9]\d*)$/.test(key)) {
      keys.push(Number(key));
      current = current[Number(key)];
    } else {
      keys.push(key);
      current = isObject(current) ? ownValue(current, key) : undefined;
    }
  }
  return keys;
}
