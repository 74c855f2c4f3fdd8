import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as ext0522 from "../../../generated/ext-tasks-2026-05-22/validators.js";
import * as draft from "../../../generated/ext-tasks-draft/validators.js";
import * as t25 from "../../../generated/tasks-2025-11-25/validators.js";
import { ErrorList, FirstError, missingWordsFor, wordsFor, type ValidationResult } from "../../../templates/runtime/protocol/json.js";

/**
 * `validateX(value, { abortEarly: true })`: the first error only, found the way the full search finds
 * it, and the search ends there; and the message parts the error path keeps per expected text.
 */

type Validate = (value: unknown, options?: { abortEarly?: boolean; maxErrors?: number }) => ValidationResult<unknown>;

/** Definitions a server or client checks per message, from sets of both shapes (allOf of objects, closed objects). */
const DEFINITIONS: Record<string, Validate> = {
  "draft GetTaskRequest": draft.validateGetTaskRequest,
  "draft GetTaskResult": draft.validateGetTaskResult,
  "draft TaskStatusNotification": draft.validateTaskStatusNotification,
  "draft UpdateTaskRequest": draft.validateUpdateTaskRequest,
  "draft CallToolResult": draft.validateCallToolResult,
  "draft JSONObject": draft.validateJSONObject,
  "2025-11-25 GetTaskResult": t25.validateGetTaskResult,
  "2025-11-25 CreateMessageRequest": t25.validateCreateMessageRequest,
  "2025-11-25 ListTasksResult": t25.validateListTasksResult,
};

const working = { taskId: "t-1", status: "working", createdAt: "2025-11-25T10:30:00Z", lastUpdatedAt: "2025-11-25T10:40:00Z", ttl: 60000 };

/** Values near valid ones: members dropped, retyped or replaced, and junk. */
const nearlyValid = fc.oneof(
  fc.record({
    jsonrpc: fc.constantFrom("2.0", "1.0", 2),
    id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
    method: fc.constantFrom("tasks/get", "tasks/update", "notifications/tasks/status", "x"),
    params: fc.oneof(fc.constant(null), fc.constant({ taskId: "t" }), fc.constant({}), fc.constant({ taskId: 1 }), fc.jsonValue({ maxDepth: 2 })),
  }, { requiredKeys: [] }),
  fc.record({
    resultType: fc.constantFrom("task", "complete", 1),
    taskId: fc.oneof(fc.string(), fc.integer()),
    status: fc.constantFrom("working", "done", "completed", null),
    createdAt: fc.oneof(fc.string(), fc.integer()),
    lastUpdatedAt: fc.string(),
    ttl: fc.oneof(fc.integer(), fc.constant(null), fc.string()),
    content: fc.oneof(fc.constant([]), fc.constant([{ type: "text", text: 1 }]), fc.jsonValue({ maxDepth: 2 })),
    tasks: fc.oneof(fc.constant([working]), fc.constant([{ ...working, status: 7 }]), fc.constant(null)),
  }, { requiredKeys: [] }),
  fc.jsonValue({ maxDepth: 3 }),
);

describe("validateX with abortEarly: the first error the full search lists, and only it", () => {
  for (const [name, validate] of Object.entries(DEFINITIONS)) {
    it(`${name}: same verdict, and errors[0] of the full search`, () => {
      fc.assert(
        fc.property(nearlyValid, (value) => {
          const every = validate(value);
          const first = validate(value, { abortEarly: true });
          expect(first.ok).toBe(every.ok);
          if (every.ok || first.ok) return;
          expect(first.errors).toEqual([every.errors[0]]);
          // The error is the sink that found it (one object): as data it is a plain error, nothing more.
          expect(JSON.stringify(first.errors)).toBe(JSON.stringify([every.errors[0]]));
          expect(Object.keys(first.errors[0]!)).toEqual(Object.keys(every.errors[0]!));
          expect(first.errorCount).toBe(1);
        }),
        { numRuns: 300, seed: 2026_12_02 },
      );
    });
  }

  it("abortEarly wins over maxErrors, and false or absent asks for every error", () => {
    const value = { a: null, b: null, c: null };
    const first = draft.validateJSONObject(value, { abortEarly: true, maxErrors: 10 });
    expect(!first.ok && [first.errors.map((e) => e.path), first.errorCount]).toEqual([["/a"], 1]);
    const every = draft.validateJSONObject(value, { abortEarly: false });
    expect(!every.ok && [every.errors.map((e) => e.path), every.errorCount]).toEqual([["/a", "/b", "/c"], 3]);
  });
});

describe("the search ends at the first error", () => {
  /** An object whose `n` members count their reads, each holding a value JSONObject refuses. */
  function countingObject(n: number): { value: Record<string, unknown>; reads: () => number } {
    let reads = 0;
    const value: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      Object.defineProperty(value, `k${i}`, { enumerable: true, get: () => (reads++, null) });
    }
    return { value, reads: () => reads };
  }

  it("a 10,000-member object is read to its first bad member, not to its end", () => {
    const { value, reads } = countingObject(10_000);
    const first = draft.validateJSONObject(value, { abortEarly: true });
    expect(!first.ok && first.errors.map((e) => e.path)).toEqual(["/k0"]);
    // The test reads one member and stops; the error search reads it again and stops.
    expect(reads()).toBeLessThan(5);

    const again = countingObject(10_000);
    const every = draft.validateJSONObject(again.value);
    expect(!every.ok && every.errorCount).toBe(10_000);
    expect(again.reads()).toBeGreaterThanOrEqual(10_000);
  });

  it("an array of 10,000 bad items is read to its first one", () => {
    let reads = 0;
    const items = Array.from({ length: 10_000 }, () => ({ type: "text", text: 1 }));
    const content = new Proxy(items, {
      get: (target, key, receiver) => {
        if (typeof key === "string" && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const first = draft.validateCallToolResult({ content }, { abortEarly: true });
    expect(!first.ok && first.errors.map((e) => e.path)).toEqual(["/content/0/text"]);
    expect(reads).toBeLessThan(5);
  });

  it("once the first error is found, no other definition's check is entered", () => {
    const readsOf = (options?: { abortEarly: true }) => {
      let reads = 0;
      const params = new Proxy({ taskId: 5 }, { get: (target, key, receiver) => (reads++, Reflect.get(target, key, receiver) as unknown) });
      const result = t25.validateGetTaskRequest({ jsonrpc: "2.0", id: true, method: "tasks/get", params }, options);
      return { paths: result.ok ? [] : result.errors.map((e) => e.path), reads };
    };
    // The error at /id ends the search: params (its own definition) is not read.
    expect(readsOf({ abortEarly: true })).toEqual({ paths: ["/id"], reads: 0 });
    // The full search goes on into params and finds its error too.
    const every = readsOf();
    expect(every.paths).toEqual(["/id", "/params/taskId"]);
    expect(every.reads).toBeGreaterThan(0);
  });

  it("a value that throws once the first error is found still answers with that error", () => {
    const value = {
      jsonrpc: "2.0",
      id: 1,
      method: "tasks/gex",
      get params(): never {
        throw new Error("hostile getter");
      },
    };
    const first = draft.validateGetTaskRequest(value, { abortEarly: true });
    expect(first.ok).toBe(false);
    if (first.ok) return;
    // The test stops at the getter (it threw); the error search reports `method` before it reads `params`.
    expect(first.errors).toHaveLength(1);
    expect(first.errorCount).toBe(1);
    const every = draft.validateGetTaskRequest(value);
    expect(!every.ok && every.errors.map((e) => e.message)).toContain("value could not be read: a getter or Proxy threw");
  });
});

describe("messages of the error path", () => {
  /** The first error's message for a working task whose `member` is `value`. */
  const messageFor = (member: string) => (value: unknown) => {
    const result = t25.validateGetTaskResult({ ...working, [member]: value }, { abortEarly: true });
    return result.ok ? "" : result.errors[0]!.message;
  };

  it("a type error names the JSON type it got, never the value", () => {
    const message = messageFor("createdAt");
    expect(message(5)).toBe("expected a string, got a number");
    expect(message(1.5)).toBe("expected a string, got a number");
    expect(message(Number.NaN)).toBe("expected a string, got NaN");
    expect(message(null)).toBe("expected a string, got null");
    expect(message(true)).toBe("expected a string, got true");
    expect(message(false)).toBe("expected a string, got false");
    expect(message([1])).toBe("expected a string, got an array");
    expect(message({ a: 1 })).toBe("expected a string, got an object");
    expect(message(new Map())).toBe("expected a string, got a Map");
    // Where an integer was expected, a number got has a fraction.
    const ttl = messageFor("ttl");
    expect(ttl(1.5)).toBe("expected an integer, got a number with a fraction");
    expect(ttl("5")).toBe("expected an integer or null, got a string");
  });

  it("a const or enum error says what JSON type it got (another string, another number), not the value", () => {
    const message = messageFor("status");
    const expected = 'expected one of "cancelled" | "completed" | "failed" | "input_required" | "working"';
    expect(message('do"ne\n<script>')).toBe(`${expected}, got another string`);
    expect(message(5)).toBe(`${expected}, got a number`);
    expect(message(false)).toBe(`${expected}, got false`);
    expect(message(null)).toBe(`${expected}, got null`);
    expect(message(["working"])).toBe(`${expected}, got an array`);
    // Where no string was expected, a string is "a string".
    expect(t25.validateCancelTaskRequest({ jsonrpc: "2.0", id: true, method: "tasks/cancel", params: { taskId: "x" } })).toMatchObject({
      errors: [{ path: "/id", message: "expected a string or an integer, got true" }],
    });
    // A union of distinct JSON types explains a miss by the variant of the value's type.
    expect(t25.validateCancelTaskRequest({ jsonrpc: "2.0", id: 1.5, method: "tasks/cancel", params: { taskId: "x" } })).toMatchObject({
      errors: [{ path: "/id", keyword: "type", message: "expected an integer, got a number with a fraction" }],
    });
    expect(t25.validateCancelTaskRequest({ jsonrpc: 2, id: 1, method: "tasks/cancel", params: { taskId: "x" } })).toMatchObject({
      errors: [{ path: "/jsonrpc", message: 'expected "2.0", got a number' }],
    });
  });

  it("a member a closed object does not name is told by its path; the message does not quote it", () => {
    const result = ext0522.validateGetTaskRequest({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: "t", 'x"/\n': 1 } });
    expect(result).toMatchObject({ ok: false, errors: [{ path: "/params/x\"~1\n", keyword: "additionalProperties", message: "unexpected property" }] });
  });

  it("the same message is the same string each time (kept per expected text), and equal to one built anew", () => {
    const a = t25.validateGetTaskResult("x");
    const b = t25.validateGetTaskResult("y");
    expect(!a.ok && !b.ok && [a.errors[0]!.message, b.errors[0]!.message]).toEqual(["expected an object, got a string", "expected an object, got a string"]);
  });
});

describe("ErrorList: duplicates told by path, keyword and message", () => {
  const words = wordsFor;
  it("the same mismatch from two parts of an allOf is one error; another value at the same path is another", () => {
    const list = new ErrorList();
    const params = null;
    list.addUnexpected("/params", "type", words("an object"), params, "#/a");
    list.addUnexpected("/params", "type", words("an object"), params, "#/b");
    expect(list.count).toBe(1);
    // Equal messages from different parts (two arrays) are still one error.
    list.addUnexpected("/x", "type", words("an object"), [1], "#/a");
    list.addUnexpected("/x", "type", words("an object"), [2], "#/b");
    expect(list.count).toBe(2);
    // A different expected text is a different error.
    list.addUnexpected("/x", "type", words("a string"), [1], "#/c");
    expect(list.count).toBe(3);
    // A const error says the type it got: two strings (or two numbers) make one error, a number and a string two.
    list.addUnexpected("/m", "const", words('"a"'), 1, "#/d");
    list.addUnexpected("/m", "const", words('"a"'), 2, "#/d");
    list.addUnexpected("/m", "const", words('"a"'), "b", "#/d");
    list.addUnexpected("/m", "const", words('"a"'), "c", "#/d");
    list.addUnexpected("/n", "enum", words("one of 1 | 2"), 3, "#/d");
    list.addMissing("", missingWordsFor("id"), "#/e");
    list.addMissing("", missingWordsFor("id"), "#/f");
    list.add("/id", "required", 'missing required property "id"', "#/g");
    expect(list.kept.map((e) => [e.path, e.message])).toEqual([
      ["/params", "expected an object, got null"],
      ["/x", "expected an object, got an array"],
      ["/x", "expected a string, got an array"],
      ["/m", 'expected "a", got a number'],
      ["/m", 'expected "a", got another string'],
      ["/n", "expected one of 1 | 2, got another number"],
      ["/id", 'missing required property "id"'],
    ]);
    expect(list.count).toBe(7);
  });

  it("NaN and -0 count as themselves, with the message deciding", () => {
    const list = new ErrorList();
    list.addUnexpected("/n", "const", words("1"), Number.NaN, "#/a");
    list.addUnexpected("/n", "const", words("1"), Number.NaN, "#/b");
    list.addUnexpected("/z", "const", words("1"), 0, "#/a");
    list.addUnexpected("/z", "const", words("1"), -0, "#/b");
    expect(list.count).toBe(2);
  });

  it("words made anew once the map is full still make the same messages, and tell the same errors apart", () => {
    // Two distinct ExpectedWords objects for one text make the same message: one error.
    const list = new ErrorList();
    const fresh = { expected: "an object", prefix: "expected an object, got ", byType: [] };
    list.addUnexpected("/p", "type", words("an object"), 1, "#/a");
    list.addUnexpected("/p", "type", fresh, 1, "#/b");
    expect([list.count, list.kept[0]!.message]).toEqual([1, "expected an object, got a number"]);
  });
});

describe("FirstError: the first error only", () => {
  it("keeps the first report and ignores the rest", () => {
    const first = new FirstError();
    expect(first.full).toBe(false);
    first.addMissing("/p", missingWordsFor("a"), "#/x");
    expect(first.full).toBe(true);
    first.addUnexpected("/b", "type", wordsFor("a string"), 1, "#/y");
    first.add("/c", "minimum", "too small", "#/z");
    expect({ ...first }).toEqual({ path: "/p/a", keyword: "required", message: 'missing required property "a"', schemaPath: "#/x" });
  });

  it("is the error it keeps: its own properties are a ValidationError's four, whichever report came first", () => {
    const keys = ["path", "keyword", "message", "schemaPath"];
    const reports: ((sink: FirstError) => void)[] = [
      (sink) => sink.add("/c", "minimum", "too small", "#/z"),
      (sink) => sink.addUnexpected("/b", "type", wordsFor("a string"), 1, "#/y"),
      (sink) => sink.addMissing("", missingWordsFor("a"), "#/x"),
    ];
    for (const report of reports) {
      const first = new FirstError();
      report(first);
      expect(Object.keys(first)).toEqual(keys);
      expect(Object.keys(JSON.parse(JSON.stringify(first)))).toEqual(keys);
      expect([first.full, first.keyword === ""]).toEqual([true, false]);
    }
  });
});
