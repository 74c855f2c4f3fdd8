import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationFailed } from "../../../templates/runtime/protocol/json.js";
import { paramHeaders } from "../../../templates/runtime/client/headers.js";
import { encodeHeaderValue } from "../../../templates/runtime/protocol/header-values.js";
import { headerAnnotations, taskSupportOf, ToolCatalog, ToolRejectedError } from "../../../templates/runtime/client/tool-catalog.js";

/**
 * The parts of the client's tool handling that do not depend on a schema set
 * (templates/runtime/client/tool-catalog.ts and the header helpers of templates/runtime/client/headers.ts): the rules of the
 * Streamable HTTP transport's custom headers (README.md › Client stubs), as tables of cases, with
 * Node's Buffer as the oracle of the Base64 form.
 */

/** Decodes the transport's header value form back to the string it carries. */
function decodeHeaderValue(value: string): string {
  const match = /^=\?base64\?(.*)\?=$/s.exec(value);
  return match ? Buffer.from(match[1]!, "base64").toString("utf8") : value;
}

describe("encodeHeaderValue", () => {
  // The encoding examples of the transport specification's "Value Encoding" and its SEP's edge cases.
  it.each([
    ["us-west1", "us-west1"],
    ["Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="],
    [" padded ", "=?base64?IHBhZGRlZCA=?="],
    ["line1\nline2", "=?base64?bGluZTEKbGluZTI=?="],
    ["=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="],
    [" us-west1", "=?base64?IHVzLXdlc3Qx?="],
    ["us-west1 ", "=?base64?dXMtd2VzdDEg?="],
    ["us west 1", "us west 1"],
    ["日本語", "=?base64?5pel5pys6Kqe?="],
    ["line1\r\nline2", "=?base64?bGluZTENCmxpbmUy?="],
    ["\tindented", "=?base64?CWluZGVudGVk?="],
    ["", ""],
  ])("%j → %s", (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded);
  });

  it("is plain exactly for visible ASCII and inner spaces, and decodes back to the value otherwise (property, Buffer as oracle)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme-ascii" }), fc.constantFrom("=?base64?x?=", " a", "a\t")), (value) => {
        const encoded = encodeHeaderValue(value);
        const safe = /^[\x20-\x7e]*$/.test(value) && !/^ | $/.test(value) && !(value.startsWith("=?base64?") && value.endsWith("?="));
        if (safe) expect(encoded).toBe(value);
        else {
          expect(encoded).toMatch(/^=\?base64\?[A-Za-z0-9+/]*={0,2}\?=$/);
          // A lone surrogate has no UTF-8 form: both sides write U+FFFD.
          expect(decodeHeaderValue(encoded)).toBe(Buffer.from(value, "utf8").toString("utf8"));
        }
        expect(encoded).toMatch(/^[\x20-\x7e]*$/);
      }),
      { numRuns: 500 },
    );
  });
});

describe("headerAnnotations (x-mcp-header rules)", () => {
  const annotated = (schema: Record<string, unknown>) => ({ type: "object", properties: { value: schema } });

  it("reads annotations at their properties path, nested objects included", () => {
    expect(
      headerAnnotations({
        type: "object",
        properties: {
          region: { type: "string", "x-mcp-header": "Region" },
          count: { type: "integer", "x-mcp-header": "Count" },
          flag: { type: ["boolean", "null"], "x-mcp-header": "Flag" },
          target: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
          method: { type: "string", "x-mcp-header": "Method" },
          "x-mcp-header": { type: "string" },
          query: { type: "string", default: { "x-mcp-header": "NotAnAnnotation" } },
        },
      }),
    ).toEqual({
      ok: true,
      headers: [
        { header: "Region", path: ["region"] },
        { header: "Count", path: ["count"] },
        { header: "Flag", path: ["flag"] },
        { header: "Zone", path: ["target", "zone"] },
        { header: "Method", path: ["method"] },
      ],
    });
  });

  // The invalid tools of the conformance suite's http-invalid-tool-headers scenario, and the reachability rule's cases.
  it.each([
    ["empty name", annotated({ type: "string", "x-mcp-header": "" }), "non-empty"],
    ["object type", annotated({ type: "object", "x-mcp-header": "Data" }), "type"],
    ["array type", annotated({ type: "array", items: { type: "string" }, "x-mcp-header": "Items" }), "type"],
    ["null type", annotated({ type: "null", "x-mcp-header": "Nil" }), "type"],
    ["number type", annotated({ type: "number", "x-mcp-header": "Score" }), "type"],
    ["no type", annotated({ enum: ["a"], "x-mcp-header": "E" }), "type"],
    ["space", annotated({ type: "string", "x-mcp-header": "My Region" }), "token"],
    ["colon", annotated({ type: "string", "x-mcp-header": "Region:Primary" }), "token"],
    ["non-ASCII", annotated({ type: "string", "x-mcp-header": "Région" }), "token"],
    ["control character", annotated({ type: "string", "x-mcp-header": "Region\t1" }), "token"],
    ["not a string", annotated({ type: "string", "x-mcp-header": 7 }), "non-empty string"],
    ["under items", { type: "object", properties: { list: { type: "array", items: { type: "string", "x-mcp-header": "L" } } } }, "properties alone"],
    ["under anyOf", { type: "object", anyOf: [{ properties: { a: { type: "string", "x-mcp-header": "A" } } }] }, "properties alone"],
    ["under $defs", { type: "object", $defs: { a: { type: "string", "x-mcp-header": "A" } }, properties: { a: { $ref: "#/$defs/a" } } }, "properties alone"],
    ["on the root", { type: "object", "x-mcp-header": "Root" }, "properties alone"],
    ["same name twice", { type: "object", properties: { a: { type: "string", "x-mcp-header": "Region" }, b: { type: "string", "x-mcp-header": "Region" } } }, "repeats"],
    ["same name ignoring case", { type: "object", properties: { a: { type: "string", "x-mcp-header": "MyField" }, b: { type: "string", "x-mcp-header": "myfield" } } }, "repeats"],
  ])("rejects %s", (_case, schema, problem) => {
    const checked = headerAnnotations(schema);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? [] : checked.problems.join("\n")).toContain(problem);
  });
});

describe("paramHeaders", () => {
  const annotations = [
    { header: "Region", path: ["region"] },
    { header: "Priority", path: ["priority"] },
    { header: "Verbose", path: ["verbose"] },
    { header: "Zone", path: ["target", "zone"] },
    { header: "Greeting", path: ["greeting"] },
  ];

  it("mirrors strings as they are, integers in decimal, booleans in lowercase, encoded; null and absent have no header", () => {
    expect(paramHeaders(annotations, { region: "us-west1", priority: 42, verbose: false, target: { zone: "b" }, greeting: "Hello, 世界", query: "x" })).toEqual({
      "Mcp-Param-Region": "us-west1",
      "Mcp-Param-Priority": "42",
      "Mcp-Param-Verbose": "false",
      "Mcp-Param-Zone": "b",
      "Mcp-Param-Greeting": "=?base64?SGVsbG8sIOS4lueVjA==?=",
    });
    expect(paramHeaders(annotations, { region: "r", verbose: null, target: "not an object" })).toEqual({ "Mcp-Param-Region": "r" });
    expect(paramHeaders(annotations, undefined)).toEqual({});
  });

  it.each([3.5, 2 ** 60, { a: 1 }, [1]])("refuses %j, which has no header form, before anything is sent", (value) => {
    expect(() => paramHeaders(annotations, { priority: value })).toThrow(ValidationFailed);
  });
});

describe("ToolCatalog", () => {
  function catalog(pages: Record<string, unknown>[][], options: { headers?: boolean; ttlMs?: number } = {}) {
    const reads: (string | undefined)[] = [];
    const reported: unknown[] = [];
    const cat = new ToolCatalog(
      {
        listPage: async (cursor) => {
          reads.push(cursor);
          const index = cursor === undefined ? 0 : Number(cursor);
          return { tools: pages[index]!, ...(index + 1 < pages.length ? { nextCursor: String(index + 1) } : {}), ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }) };
        },
        report: (error) => reported.push(error),
      },
      { headers: options.headers ?? true },
    );
    return { cat, reads, reported };
  }
  const bad = { name: "bad", inputSchema: { type: "object", properties: { v: { type: "number", "x-mcp-header": "V" } } } };

  it("reads every page once, shares a read between concurrent lookups, and leaves out (and reports) invalid tools", async () => {
    const { cat, reads, reported } = catalog([[{ name: "a" }], [bad, { name: "c", execution: { taskSupport: "required" } }]]);
    const [tools, entry] = await Promise.all([cat.tools(), cat.entry("c")]);
    expect(tools.map((t) => t.name)).toEqual(["a", "c"]);
    expect(entry).toMatchObject({ taskSupport: "required", headers: [] });
    expect(await cat.entry("bad")).toBeInstanceOf(ToolRejectedError);
    expect(await cat.entry("missing")).toBeUndefined();
    expect(reads).toEqual([undefined, "1"]);
    expect(reported).toHaveLength(1);
    expect((reported[0] as ToolRejectedError).message).toContain('tool "bad" is left out: /properties/v');
  });

  it("keeps the list until it is invalidated (list_changed) or refreshed, or for ttlMs when the server says (0: read each time)", async () => {
    const kept = catalog([[{ name: "a" }]]);
    await kept.cat.entry("a");
    await kept.cat.entry("a");
    expect(kept.reads).toHaveLength(1);
    kept.cat.invalidate();
    await kept.cat.entry("a");
    await kept.cat.tools(true);
    expect(kept.reads).toHaveLength(3);
    const stale = catalog([[{ name: "a" }]], { ttlMs: 0 });
    await stale.cat.entry("a");
    await stale.cat.entry("a");
    expect(stale.reads).toHaveLength(2);
  });

  it("a read that fails is not kept; a cursor that comes back is an error; headers unchecked where the revision has none", async () => {
    let fail = true;
    const cat = new ToolCatalog(
      {
        listPage: async () => {
          if (fail) throw new Error("down");
          return { tools: [bad] };
        },
        report: () => {},
      },
      { headers: false },
    );
    await expect(cat.entry("bad")).rejects.toThrow("down");
    fail = false;
    expect(await cat.entry("bad")).toMatchObject({ headers: [], taskSupport: "forbidden" });
    const looping = new ToolCatalog({ listPage: async () => ({ tools: [], nextCursor: "same" }), report: () => {} }, { headers: true });
    await expect(looping.tools()).rejects.toThrow("came back");
  });

  it.each([
    [{}, "forbidden"],
    [{ execution: {} }, "forbidden"],
    [{ execution: { taskSupport: "optional" } }, "optional"],
    [{ execution: { taskSupport: "required" } }, "required"],
    [{ execution: { taskSupport: "sometimes" } }, "forbidden"],
  ])("taskSupport of %j is %s", (tool, support) => {
    expect(taskSupportOf(tool)).toBe(support);
  });

  it("reads only the values the set's schema allows: one it leaves out is forbidden, in the catalog too", async () => {
    const allowed = ["forbidden", "required"];
    expect(taskSupportOf({ execution: { taskSupport: "optional" } }, allowed)).toBe("forbidden");
    expect(taskSupportOf({ execution: { taskSupport: "required" } }, allowed)).toBe("required");
    const catalog = new ToolCatalog(
      { listPage: async () => ({ tools: [{ name: "o", execution: { taskSupport: "optional" } }, { name: "r", execution: { taskSupport: "required" } }] }), report: () => {} },
      { headers: false, taskSupport: allowed },
    );
    expect((await catalog.entry("o"))).toMatchObject({ taskSupport: "forbidden" });
    expect((await catalog.entry("r"))).toMatchObject({ taskSupport: "required" });
  });
});
