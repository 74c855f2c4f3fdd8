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
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      /** The first errors found (at most `maxErrors`, 50 unless asked otherwise), each once. */
      readonly errors: readonly ValidationError[];
      /**
       * How many distinct errors the value has: more than `errors.length` when the list was cut at
       * `maxErrors` (1 when asked to stop at the first, `abortEarly`). Generated validators always
       * say; a hand-written validator may leave it out (then `errors` is every error).
       */
      readonly errorCount?: number;
    };

/** How many errors a `validateX` result lists unless `maxErrors` says otherwise. */
export const DEFAULT_MAX_ERRORS = 50;

/** Options of the generated `validateX` functions. */
export interface ValidateOptions {
  /**
   * How many errors the result lists at most (default 50; `Infinity` for every one). The search
   * does not stop there: `errorCount` counts them all, so a hostile value cannot hide how bad it is,
   * and a list cut short costs no more memory than its 50 errors and one key per other error.
   */
  readonly maxErrors?: number;
  /**
   * Stop at the first error (ajv's default; `abortEarly` in Joi, Yup and Valibot): `errors` holds
   * that one error, the rest of the value is not searched, and `errorCount` is 1. The cheapest
   * answer to a value that will be refused anyway (`maxErrors` is then ignored).
   */
  readonly abortEarly?: boolean;
}

/** Thrown by the `parse*` functions; carries the same errors `validate*` returns. */
export class ValidationFailed extends Error {
  override readonly name = "ValidationFailed";
  constructor(
    readonly typeName: string,
    readonly errors: readonly ValidationError[],
    /** How many distinct errors there were (more than `errors.length` when the list was cut short). */
    readonly errorCount: number = errors.length,
  ) {
    super(failureMessage(typeName, errors, errorCount));
  }
}

/** `invalid X: ` and the first five errors, then how many more there are. */
function failureMessage(typeName: string, errors: readonly ValidationError[], errorCount: number): string {
  const more = Math.max(errorCount, errors.length) - 5;
  const listed = errors
    .slice(0, 5)
    .map((e) => `${e.path || "(root)"}: ${e.message}`)
    .join("; ");
  return `invalid ${typeName}: ${listed}${more > 0 ? `; and ${more} more` : ""}`;
}

/**
 * Where the generated `$checkX` functions report what they find: every error (`ErrorList`, the
 * default) or the first (`FirstError`, `abortEarly`). Two classes rather than one with a mode: the
 * first-error path then allocates and branches no more than it needs.
 */
export interface ErrorSink {
  /** Whether the search can stop: only the first error was asked for and it is found (the checks' loops end on it). */
  readonly full: boolean;
  /** An error given as its message. */
  add(path: string, keyword: string, message: string, schemaPath: string): void;
  /** `expected …, got …` (keyword `type`, `const`, `enum`, …), its message made only when it is kept. */
  addUnexpected(path: string, keyword: string, expected: ExpectedWords, value: unknown, schemaPath: string): void;
  /** A required property that is absent (`path`: the object's path), by its words (`missingWordsFor`). */
  addMissing(path: string, words: MissingWords, schemaPath: string): void;
}

/**
 * Every error a check finds, each distinct one once (an `allOf` can report the same mismatch from
 * several branches; distinct = same path, keyword and message), the first `limit` kept, all
 * counted. Linear in the errors found: a few are compared with each other directly, more go through
 * a key set, never each error against all before it. Shaped for the common case of one error: it
 * is kept at once, with nothing to compare it with. Comparing is cheap because a message is a
 * string made once per expected text and JSON type (`ExpectedWords`), so two equal messages are
 * mostly the same string.
 */
export class ErrorList implements ErrorSink {
  /** How many distinct errors were found. */
  declare count: number;
  declare readonly limit: number;
  /**
   * The first `limit` distinct errors, in the order found; null until the first (an array made with
   * its first error costs a fraction of an empty one grown by `push`).
   */
  declare private found: ValidationError[] | null;
  /** Keys of the distinct errors, once there are more than a few or the list is full (a set costs more than it saves below that). */
  declare private seen: Set<string> | null;

  // Fields are `declare`d and set here only: a class field is defined on each new object before the
  // constructor runs, a second pass over the same fields on every failed validation.
  constructor(limit: number = DEFAULT_MAX_ERRORS) {
    this.count = 0;
    this.limit = limit;
    this.found = null;
    this.seen = null;
  }

  /**
   * Never: every error is searched for. A getter, as `FirstError`'s is: the checks read `errors.full`
   * of both classes at the same places, which stay fast when both answer it the same way.
   */
  get full(): false {
    return false;
  }

  /** The first `limit` distinct errors, in the order found. */
  get kept(): ValidationError[] {
    return this.found ?? (this.found = []);
  }

  add(path: string, keyword: string, message: string, schemaPath: string): void {
    this.record(path, keyword, message, schemaPath);
  }

  addUnexpected(path: string, keyword: string, expected: ExpectedWords, value: unknown, schemaPath: string): void {
    this.record(path, keyword, unexpectedMessage(expected, value), schemaPath);
  }

  addMissing(path: string, words: MissingWords, schemaPath: string): void {
    this.record(path + words.token, "required", words.message, schemaPath);
  }

  private record(path: string, keyword: string, message: string, schemaPath: string): void {
    const found = this.found;
    if (found === null) {
      this.found = [{ path, keyword, message, schemaPath }];
      this.count = 1;
    } else if (!this.isKnown(found, path, keyword, message)) {
      this.count++;
      if (found.length < this.limit) found.push({ path, keyword, message, schemaPath });
    }
  }

  /** Adds an error that must be seen whatever else was found (it says why the check stopped). */
  addFirst(path: string, keyword: string, message: string, schemaPath: string): void {
    const kept = this.kept;
    if (this.isKnown(kept, path, keyword, message)) return;
    this.count++;
    kept.unshift({ path, keyword, message, schemaPath });
    if (kept.length > this.limit) kept.pop();
  }

  /**
   * Whether an error like this one was found before; if not, it is remembered as found. While every
   * error is kept and they are few, each kept one is compared with it (the keyword first: a literal,
   * so a pointer comparison). Past that, a key set made of the kept ones then holds every error.
   */
  private isKnown(kept: ValidationError[], path: string, keyword: string, message: string): boolean {
    let seen = this.seen;
    if (seen === null) {
      if (this.count < FEW_ERRORS && kept.length < this.limit) {
        for (let i = 0; i < kept.length; i++) {
          const e = kept[i]!;
          if (e.keyword === keyword && e.path === path && e.message === message) return true;
        }
        return false;
      }
      // Until now every error was kept (the list was not full), so the kept ones are all there are.
      seen = this.seen = new Set(kept.map((e) => errorKey(e.path, e.keyword, e.message)));
    }
    const key = errorKey(path, keyword, message);
    if (seen.has(key)) return true;
    seen.add(key);
    return false;
  }
}

/**
 * The first error a check finds (`ValidateOptions.abortEarly`, ajv's default), and that error itself:
 * the sink's own fields are the `ValidationError` the result lists, one object for both where there
 * were two (`validate` with `abortEarly` on invalid inputs became about a sixth faster, `npm run bench`).
 * Once an error is there, `full` tells the checks to stop and every later report is ignored. Its own
 * properties are a `ValidationError`'s four and no more (JSON, `Object.keys` and a spread see just
 * those): `full` is a getter, read from the keyword, which no error leaves empty.
 */
export class FirstError implements ErrorSink, ValidationError {
  declare path: string;
  declare keyword: string;
  declare message: string;
  declare schemaPath: string;

  constructor() {
    this.path = "";
    this.keyword = "";
    this.message = "";
    this.schemaPath = "";
  }

  get full(): boolean {
    return this.keyword !== "";
  }

  add(path: string, keyword: string, message: string, schemaPath: string): void {
    if (!this.full) this.found(path, keyword, message, schemaPath);
  }

  addUnexpected(path: string, keyword: string, expected: ExpectedWords, value: unknown, schemaPath: string): void {
    if (!this.full) this.found(path, keyword, unexpectedMessage(expected, value), schemaPath);
  }

  addMissing(path: string, words: MissingWords, schemaPath: string): void {
    if (!this.full) this.found(path + words.token, "required", words.message, schemaPath);
  }

  private found(path: string, keyword: string, message: string, schemaPath: string): void {
    this.path = path;
    this.keyword = keyword;
    this.message = message;
    this.schemaPath = schemaPath;
  }
}

/**
 * `expected X, got Y`, where Y is the JSON type of the value (`got a string`, `got an array`, as Zod
 * says it), `another string` or `another number` where those were expected (a `const` or `enum`),
 * `a number with a fraction` where an integer was; true, false and null are shown as themselves. Never
 * the value: as in ajv, Zod and TypeBox, a peer's text and numbers do not go into the messages, which
 * go into logs and answers. So the message for each type is made once per expected text (see
 * `ExpectedWords`): on the error path, making strings cost more than finding the error.
 */
function unexpectedMessage(words: ExpectedWords, value: unknown): string {
  const type = jsonTypeIndex(value);
  if (type < 0) return words.prefix + describe(value);
  return (words.byType[type] ??= words.prefix + gotWords(words.expected, type));
}

/** What a message says of a value of each JSON type, by `jsonTypeIndex`. */
const JSON_TYPE_WORDS = ["null", "true", "false", "a string", "an array", "an object", "a number"] as const;
const STRING = 3;
const NUMBER = 6;

/** Y of `expected X, got Y` for a JSON type (see `unexpectedMessage`), from the expected text X. */
function gotWords(expected: string, type: number): string {
  // A quoted string or a number where an alternative begins: a `const`, or one of an `enum`'s.
  if (type === STRING && /(?:^|one of |\| )"/.test(expected)) return "another string";
  if (type === NUMBER && /(?:^|one of |\| )-?\d/.test(expected)) return "another number";
  if (type === NUMBER && expected.includes("an integer") && !expected.includes("a number"))
    return "a number with a fraction";
  return JSON_TYPE_WORDS[type]!;
}

/**
 * The place of what a message says of a value in `JSON_TYPE_WORDS`; -1 for what JSON has not (a `Map`,
 * a function, `undefined`…: `describe` says what it is).
 */
function jsonTypeIndex(value: unknown): number {
  if (value === null) return 0;
  switch (typeof value) {
    case "boolean":
      return value ? 1 : 2;
    case "string":
      return STRING;
    case "number":
      // NaN and the infinities are no JSON numbers (an in-memory caller may pass them).
      return Number.isFinite(value) ? NUMBER : -1;
    case "object":
      return Array.isArray(value) ? 4 : hasJsonPrototype(value) ? 5 : -1;
    default:
      return -1;
  }
}

/** The parts of `expected X, got Y` messages for one expected text X, made once (`expectedWords`). */
export interface ExpectedWords {
  readonly expected: string;
  /** `expected X, got `. */
  readonly prefix: string;
  /** The whole message per JSON type got (`jsonTypeIndex`), once made. */
  readonly byType: (string | undefined)[];
}

/** The parts of a missing property's error, made once per name (`missingWordsFor`). */
export interface MissingWords {
  /** `/name` as a JSON-pointer token. */
  readonly token: string;
  readonly message: string;
}

function newWords(expected: string): ExpectedWords {
  return {
    expected,
    prefix: `expected ${expected}, got `,
    byType: [undefined, undefined, undefined, undefined, undefined, undefined, undefined],
  };
}

/**
 * The pieces of messages, kept per expected text or property name. Those come from the generated checks'
 * own literals, so the maps stay small; `MAX_KEPT_WORDS` bounds them anyway, for a caller that passes
 * texts of its own (past it, the pieces are made for each message).
 */
const expectedWords = new Map<string, ExpectedWords>();
const missingWordsByName = new Map<string, MissingWords>();
const MAX_KEPT_WORDS = 4096;

/** The `ExpectedWords` of an expected text: made once while the map has room. */
export function wordsFor(expected: string): ExpectedWords {
  let words = expectedWords.get(expected);
  if (words === undefined) {
    words = newWords(expected);
    if (expectedWords.size < MAX_KEPT_WORDS) expectedWords.set(expected, words);
  }
  return words;
}

/** The words of the common type errors, which the generated checks report through their own functions (`notObject`…). */
const AN_OBJECT = wordsFor("an object");
const A_STRING = wordsFor("a string");
const AN_ARRAY = wordsFor("an array");
const AN_INTEGER = wordsFor("an integer");
const A_NUMBER = wordsFor("a number");
const A_BOOLEAN = wordsFor("a boolean");

/** The `MissingWords` of a property name: made once while the map has room. */
export function missingWordsFor(name: string): MissingWords {
  let words = missingWordsByName.get(name);
  if (words === undefined) {
    words = { token: `/${pointerToken(name)}`, message: `missing required property "${name}"` };
    if (missingWordsByName.size < MAX_KEPT_WORDS) missingWordsByName.set(name, words);
  }
  return words;
}

/** Up to this many errors, an `ErrorList` compares them directly. */
const FEW_ERRORS = 8;

function errorKey(path: string, keyword: string, message: string): string {
  return `${path}\u0000${keyword}\u0000${message}`;
}

/** Records one error (kept out of line so the generated checks stay short). */
export function report(errors: ErrorSink, path: string, keyword: string, message: string, schemaPath: string): void {
  errors.add(path, keyword, message, schemaPath);
}

export type JsonObject = { [key: string]: unknown };

/**
 * Whether a value is an object and not an array: how the runtime reads what a peer sent (parsed
 * JSON, where nothing else occurs). The generated validators ask more (see `hasJsonPrototype`).
 */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether a value is a JSON object (see `hasJsonPrototype`), as the error mode (`validateX` once its test
 * said no) asks it: `constructor === Object` answers for a plain object of this realm, as the tests
 * ask it in place, and the prototypes are read only when that fails. The generated checks read
 * `constructor` themselves and pass it (`isJsonObject(value, (value as object | null)?.constructor)`):
 * read here, in one function every check calls, that read sees objects of every shape and V8 answers it
 * from a shared cache, 10% slower per invalid value (`npm run bench`, all definitions in one process);
 * read at each place, it is that place's own. `value?.constructor` of a primitive is its wrapper's.
 */
export function isJsonObject(
  value: unknown,
  constructor: unknown = (value as object | null)?.constructor,
): value is JsonObject {
  return typeof value === "object" && value !== null && (constructor === Object || hasJsonPrototype(value));
}

/**
 * Whether an object is a JSON object as `JSON.parse` makes them: its prototype is `Object.prototype`
 * (of this realm or of another, as from a `vm` context or an iframe: an object whose prototype has
 * none) or `null`. A `Map`, `Set`, `Date`, boxed primitive or class instance is not one. The
 * generated tests (`isX`) check `value.constructor === Object` first, at each place (a plain object of
 * this realm inherits that, and the test costs next to nothing where the place has seen the
 * object's shape before), and call this only when that fails: for an own `constructor` property, a
 * null prototype, another realm, or to refuse what is no JSON object. The error mode (`validateX`
 * on a value its test refused) calls it directly, which is shorter.
 */
export function hasJsonPrototype(value: object): boolean {
  // An array where an object belongs is the common mistake: answered without asking for prototypes.
  if (Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null || Object.getPrototypeOf(prototype) === null;
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
  if (Array.isArray(b) || !hasJsonPrototype(a) || !hasJsonPrototype(b)) return false;
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  for (const key of aKeys) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    if (!jsonEqual((a as JsonObject)[key], (b as JsonObject)[key])) return false;
  }
  return true;
}

/**
 * Whether an array has two JSON-equal items (`uniqueItems`), in time linear in the array's size: each item
 * is reduced to a canonical key (object keys sorted, numbers by value) and looked up in a set, where
 * comparing every pair would let a peer's 100,000-item array cost 5·10⁹ comparisons.
 */
export function hasDuplicates(items: readonly unknown[]): boolean {
  // A short array compares its pairs (at most 120, each bounded by the items' size): no keys to build.
  if (items.length <= 16) {
    for (let i = 1; i < items.length; i++) {
      for (let j = 0; j < i; j++) if (jsonEqual(items[i], items[j])) return true;
    }
    return false;
  }
  const seen = new Set<string>();
  const identities = new Map<object, number>();
  for (const item of items) {
    const key = canonicalKey(item, identities);
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

/**
 * A string equal for two values exactly when `jsonEqual` holds. A non-JSON object (a `Map`, a class
 * instance) equals only itself there, so it is keyed by its identity.
 */
function canonicalKey(value: unknown, identities: Map<object, number>): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      // NaN equals nothing, not even itself (it is no JSON number, but an in-memory caller may pass it).
      return value === value ? String(value) : identityKey({}, identities);
    case "boolean":
      return value ? "t" : "f";
    case "undefined":
      return "u";
    case "object":
      break;
    default:
      return identityKey(value as object, identities);
  }
  if (value === null) return "n";
  if (Array.isArray(value)) {
    let key = "[";
    for (let i = 0; i < value.length; i++) key += (i === 0 ? "" : ",") + canonicalKey(value[i], identities);
    return `${key}]`;
  }
  if (!hasJsonPrototype(value)) return identityKey(value, identities);
  let key = "{";
  const keys = Object.keys(value).sort();
  for (let i = 0; i < keys.length; i++) {
    key += `${i === 0 ? "" : ","}${JSON.stringify(keys[i])}:${canonicalKey((value as JsonObject)[keys[i]!], identities)}`;
  }
  return `${key}}`;
}

function identityKey(value: object, identities: Map<object, number>): string {
  let id = identities.get(value);
  if (id === undefined) identities.set(value, (id = identities.size));
  return `#${id}`;
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
      return quoted(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    case "number":
    case "boolean":
      return String(value);
    case "object":
      return value === null || hasJsonPrototype(value) ? "an object" : notPlain(value);
    default:
      return typeof value;
  }
}

/**
 * A short string as JSON writes it: quotes around it as it is when nothing in it needs escaping
 * (the usual case, and many times cheaper than `JSON.stringify`, which the error path of a small
 * value otherwise spends most of its time in), else `JSON.stringify`.
 */
function quoted(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x20 || unit === 0x22 || unit === 0x5c || (unit >= 0xd800 && unit <= 0xdfff))
      return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** What an object that is no JSON object is, for messages: `a Map`, `a Date`, `an instance of Holder`. */
function notPlain(value: object): string {
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  const name = tag !== "Object" ? tag : (value as { constructor?: { name?: unknown } }).constructor?.name;
  if (typeof name !== "string" || name === "" || name === "Object") return "an object that is not plain JSON";
  const article = /^[AEIOU]/.test(name) ? "an" : "a";
  return tag !== "Object" ? `${article} ${name}` : `an instance of ${name}`;
}

/**
 * Reports a value that is not what a keyword expects (`const`, `enum`, a union's tag): `expected`
 * is the words of what it expects, made once (`wordsFor`, a constant of the generated module).
 */
export function unexpected(
  errors: ErrorSink,
  path: string,
  keyword: string,
  expected: ExpectedWords,
  value: unknown,
  schemaPath: string,
): void {
  errors.addUnexpected(path, keyword, expected, value, schemaPath);
}

/** Reports a value of another JSON type than the schema's (`type`): `unexpected` with that keyword, written shorter. */
export function wrongType(errors: ErrorSink, path: string, expected: string, value: unknown, schemaPath: string): void {
  if (!errors.full) errors.addUnexpected(path, "type", wordsFor(expected), value, schemaPath);
}

// The common type errors, each its own function: the generated call is shorter, and the words are at hand.

/** Reports a value that is not a JSON object. */
export function notObject(errors: ErrorSink, path: string, value: unknown, schemaPath: string): void {
  errors.addUnexpected(path, "type", AN_OBJECT, value, schemaPath);
}

/** Reports a value that is not a string. */
export function notString(errors: ErrorSink, path: string, value: unknown, schemaPath: string): void {
  errors.addUnexpected(path, "type", A_STRING, value, schemaPath);
}

/** Reports a value that is not an array. */
export function notArray(errors: ErrorSink, path: string, value: unknown, schemaPath: string): void {
  errors.addUnexpected(path, "type", AN_ARRAY, value, schemaPath);
}

/** Reports a value that is not an integer. */
export function notInteger(errors: ErrorSink, path: string, value: unknown, schemaPath: string): void {
  errors.addUnexpected(path, "type", AN_INTEGER, value, schemaPath);
}

/** Reports a value that is not a number. */
export function notNumber(errors: ErrorSink, path: string, value: unknown, schemaPath: string): void {
  errors.addUnexpected(path, "type", A_NUMBER, value, schemaPath);
}

/** Reports a value that is not a boolean. */
export function notBoolean(errors: ErrorSink, path: string, value: unknown, schemaPath: string): void {
  errors.addUnexpected(path, "type", A_BOOLEAN, value, schemaPath);
}

/** Reports a required property that is absent, by its words (`missingWordsFor`, a constant of the generated module). */
export function missing(errors: ErrorSink, path: string, words: MissingWords, schemaPath: string): void {
  errors.addMissing(path, words, schemaPath);
}

/** A generated `$checkX`: reports what is wrong with `value` (found at `path`) into `errors`. */
type Check = (value: unknown, path: string, errors: ErrorSink) => void;

/** What `validateX` answers for a value its test refused: a failed `ValidationResult`, its `errorCount` always said. */
type Invalid = Extract<ValidationResult<never>, { readonly ok: false }> & { readonly errorCount: number };

/**
 * The failure of `validateX` once its test said no (the generated `validateX` runs its test itself,
 * in its own `try`, so that call site stays its definition's own): the errors `check` finds.
 */
export function invalid(value: unknown, check: Check, options: ValidateOptions | undefined): Invalid {
  return options?.abortEarly === true ? firstError(value, check) : everyError(value, check, maxErrorsOf(options));
}

/** The generated `parseX`: what its `validateX` found, as the value or as `ValidationFailed`. */
export function parsed<T>(result: ValidationResult<T>, typeName: string): T {
  if (result.ok) return result.value;
  throw new ValidationFailed(typeName, result.errors, result.errorCount);
}

function everyError(value: unknown, check: Check, limit: number): Invalid {
  const errors = new ErrorList(limit);
  try {
    check(value, "", errors);
  } catch (error) {
    // What was found before stays, after the reason the check stopped.
    errors.addFirst("", "type", unreadable(error), "");
  }
  if (errors.count === 0) errors.add("", "type", CHANGED_WHILE_CHECKED, "");
  return { ok: false, errors: errors.kept, errorCount: errors.count };
}

function firstError(value: unknown, check: Check): Invalid {
  const errors = new FirstError();
  try {
    check(value, "", errors);
  } catch (error) {
    // The first error, when one was found before, is the answer: the search would have ended there.
    errors.add("", "type", unreadable(error), "");
  }
  if (!errors.full) errors.add("", "type", CHANGED_WHILE_CHECKED, "");
  return { ok: false, errors: [errors], errorCount: 1 };
}

/** The test said no but the check found nothing: a getter that answers differently on each read. */
const CHANGED_WHILE_CHECKED = "value changed while it was checked (a getter or Proxy)";

/** Why a value could not be checked, from what reading it threw (the check's `catch`); itself never throws. */
function unreadable(error: unknown): string {
  try {
    const message = error instanceof Error ? String(error.message) : "";
    // The stack ran out: V8 and JavaScriptCore say "call stack" (a RangeError), SpiderMonkey "too much recursion".
    if (/call stack|recursion/i.test(message)) return "value nested too deeply or cyclic";
    if (error instanceof RangeError) return "value too large to check";
  } catch {
    // What was thrown is itself hostile (a Proxy, a throwing getter): say no more than below.
  }
  return "value could not be read: a getter or Proxy threw";
}

function maxErrorsOf(options: ValidateOptions | undefined): number {
  const max = options?.maxErrors;
  return typeof max === "number" && max >= 1 ? Math.floor(max) : DEFAULT_MAX_ERRORS;
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

/**
 * A `validateX` function as a Standard Schema object: synchronous, one issue per listed validation
 * error (the first 50; `libraryOptions: { maxErrors }` asks for more, as `validateX` takes it).
 */
export function standardSchema<T>(
  validate: (value: unknown, options?: ValidateOptions) => ValidationResult<T>,
): StandardSchemaV1<unknown, T> {
  return {
    "~standard": {
      version: 1,
      vendor: "mcp-tasks-gen",
      validate(value: unknown, options?: StandardSchemaV1.Options): StandardSchemaV1.Result<T> {
        const maxErrors = options?.libraryOptions?.["maxErrors"];
        const result = validate(value, typeof maxErrors === "number" ? { maxErrors } : undefined);
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
