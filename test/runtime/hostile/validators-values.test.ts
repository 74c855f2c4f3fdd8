import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFromMemory } from "../../../generator/index.js";
import {
  isJSONObject,
  isJSONValue,
  isTask,
  isNotificationMetaObject,
  parseJSONValue,
  validateJSONValue,
  validateTask,
  validateNotificationMetaObject,
} from "../../../generated/ext-tasks-draft/validators.js";
import { loadGeneratedModules, type LoadedModules } from "../../support/generated-modules.js";

/**
 * The generated `isX`/`validateX`/`parseX` on values no JSON text makes, as an in-process caller
 * could hand them: they answer (false, or an error located at the root) and never throw or hang;
 * and only plain JSON objects count as objects.
 */

const task = () => ({
  taskId: "t-1",
  status: "working",
  createdAt: "2025-11-25T10:30:00Z",
  lastUpdatedAt: "2025-11-25T10:30:00Z",
  ttlMs: 60_000,
});

function nestedArrays(depth: number): unknown {
  let value: unknown = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

function nestedObjects(depth: number): unknown {
  let value: unknown = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe("too deep and cyclic values of a recursive definition", () => {
  it("a 100,000-deep array or object is no JSONValue: false, and one root error", () => {
    for (const value of [nestedArrays(100_000), nestedObjects(100_000)]) {
      expect(isJSONValue(value)).toBe(false);
      const result = validateJSONValue(value);
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.errors[0]).toEqual({ path: "", keyword: "type", message: "value nested too deeply or cyclic", schemaPath: "" });
      expect(() => parseJSONValue(value)).toThrow(/^invalid JSONValue: \(root\): value nested too deeply or cyclic/);
    }
  });

  it("a value as deep as JSON usually is still passes", () => {
    expect(isJSONValue(nestedObjects(200))).toBe(true);
    expect(validateJSONValue(nestedArrays(200)).ok).toBe(true);
  });

  it("a cyclic object or array: false, and the same root error", () => {
    const object: Record<string, unknown> = { a: 1 };
    object.self = object;
    const array: unknown[] = [];
    array.push(array);
    for (const value of [object, array]) {
      expect(isJSONValue(value)).toBe(false);
      const result = validateJSONValue(value);
      expect(!result.ok && result.errors[0]!.message).toBe("value nested too deeply or cyclic");
    }
  });

  it("a cyclic value under a definition that is not recursive is read to the schema's depth only", () => {
    const metadata: Record<string, unknown> = { ttlMs: 1 };
    metadata.self = metadata;
    expect(() => isNotificationMetaObject(metadata)).not.toThrow();
    expect(() => validateNotificationMetaObject(metadata)).not.toThrow();
  });
});

describe("values whose reading throws", () => {
  it("a getter that throws: false, and a root error saying the value could not be read", () => {
    const value = {
      ...task(),
      get status(): string {
        throw new Error("boom");
      },
    };
    expect(isTask(value)).toBe(false);
    const result = validateTask(value);
    expect(!result.ok && result.errors[0]).toEqual({ path: "", keyword: "type", message: "value could not be read: a getter or Proxy threw", schemaPath: "" });
  });

  const throwing = (trap: keyof ProxyHandler<object>) =>
    new Proxy(task(), {
      [trap]() {
        throw new TypeError(`${trap} says no`);
      },
    });

  for (const trap of ["get", "getPrototypeOf", "has", "ownKeys", "getOwnPropertyDescriptor"] as const) {
    it(`a Proxy whose ${trap} trap throws is answered, never thrown`, () => {
      const value = throwing(trap);
      expect(() => isTask(value)).not.toThrow();
      expect(() => isJSONObject(value)).not.toThrow();
      const result = validateTask(value);
      // A trap the check never reaches leaves the value judged by what it reads.
      if (!result.ok) expect(result.errors.length).toBeGreaterThan(0);
      expect(() => parseJSONValue(value)).not.toThrow(TypeError);
    });
  }

  it("a revoked Proxy (Array.isArray and every read throw): false", () => {
    const { proxy, revoke } = Proxy.revocable(task(), {});
    revoke();
    expect(isTask(proxy)).toBe(false);
    expect(isJSONValue(proxy)).toBe(false);
    expect(validateJSONValue(proxy).ok).toBe(false);
  });

  it("what a getter throws may itself be hostile: still a plain answer", () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("no message either");
        },
        getPrototypeOf() {
          throw new Error("no prototype either");
        },
      },
    );
    const value = {
      ...task(),
      get taskId(): string {
        throw hostile;
      },
    };
    const result = validateTask(value);
    expect(!result.ok && result.errors[0]!.message).toBe("value could not be read: a getter or Proxy threw");
  });

  it("a getter that answers differently on each read still gets an error", () => {
    let reads = 0;
    const value = {
      ...task(),
      get taskId(): unknown {
        return reads++ === 0 ? 42 : "t-1";
      },
    };
    const result = validateTask(value);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.length).toBeGreaterThan(0);
  });
});

describe("only plain JSON objects are objects", () => {
  class Holder {
    ttlMs = 1;
  }

  it("a Map, Set, Date, class instance, array or boxed string is no object of a definition without required properties", () => {
    for (const value of [new Map(), new Set(), new Date(), new Holder(), Object.assign([], { ttlMs: 1 }), new String("x"), /x/]) {
      expect(isNotificationMetaObject(value), String(value)).toBe(false);
      const result = validateNotificationMetaObject(value);
      expect(!result.ok && result.errors.map((e) => [e.path, e.keyword]), String(value)).toEqual([["", "type"]]);
      expect(isJSONObject(value)).toBe(false);
    }
  });

  it("the error says what the object is instead", () => {
    const message = (value: unknown) => {
      const result = validateNotificationMetaObject(value);
      return result.ok ? undefined : result.errors[0]!.message;
    };
    expect([message(new Map()), message(new Date()), message(new Holder()), message(Object.create(Object.create(Object.create(null))))]).toEqual([
      "expected an object, got a Map",
      "expected an object, got a Date",
      "expected an object, got an instance of Holder",
      "expected an object, got an object that is not plain JSON",
    ]);
  });

  it("a plain object, one without a prototype, one from another realm and one with its own constructor property are objects", () => {
    const bare = Object.assign(Object.create(null) as object, { ttlMs: 1 });
    const foreign = runInNewContext("({ ttlMs: 1 })") as object;
    const parsed = JSON.parse('{ "ttlMs": 1, "constructor": "mine" }') as object;
    for (const value of [{ ttlMs: 1 }, bare, foreign, parsed]) {
      expect(isNotificationMetaObject(value)).toBe(true);
      expect(validateNotificationMetaObject(value).ok).toBe(true);
    }
    expect(isJSONObject(runInNewContext("new Map()"))).toBe(false);
    expect(isJSONObject(runInNewContext("[]"))).toBe(false);
  });
});

describe("a failure anywhere fails the whole value (the test is guarded at the entry only)", () => {
  // A generated set whose definitions negate and count a recursive one: with a catch around each
  // reference, the inner failure would read "no match" and `not` or `oneOf` would turn it into a match.
  const URI = "http://x.test/tree.json";
  const defs = {
    Tree: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Tree" } } } },
    NotTree: { not: { $ref: "#/$defs/Tree" } },
    OneTreeOrString: { oneOf: [{ $ref: "#/$defs/Tree" }, { type: "object", required: ["name"] }] },
  };
  let loaded: LoadedModules;
  let validators: Record<string, (value: unknown) => unknown>;
  beforeAll(async () => {
    const { files } = await generateFromMemory({
      documents: [{ uri: URI, json: { $defs: defs } }],
      roots: Object.keys(defs).map((name) => ({ name, uri: `${URI}#/$defs/${name}` })),
    });
    loaded = loadGeneratedModules(files, "hostile-validators");
    validators = await loaded.import("validators.ts");
  });
  afterAll(() => loaded?.remove());

  it("a cyclic tree is no Tree, and not a match of `not: Tree` or of a oneOf either", () => {
    const tree: { children: unknown[]; name?: string } = { children: [] };
    tree.children.push(tree);
    expect(validators.isTree!(tree)).toBe(false);
    expect(validators.isNotTree!(tree)).toBe(false);
    tree.name = "named";
    expect(validators.isOneTreeOrString!(tree)).toBe(false);
    expect(validators.validateNotTree!(tree)).toMatchObject({ ok: false, errors: [{ path: "", message: "value nested too deeply or cyclic" }] });
  });

  it("a getter that throws deep inside is no match of `not` either", () => {
    const tree = {
      children: [
        {
          get children(): unknown {
            throw new Error("boom");
          },
        },
      ],
    };
    expect(validators.isNotTree!(tree)).toBe(false);
    expect(validators.isTree!({ children: [{ children: [] }] })).toBe(true);
    expect(validators.isNotTree!({ children: 1 })).toBe(true);
  });
});
