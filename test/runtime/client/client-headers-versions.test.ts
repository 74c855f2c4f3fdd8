import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { routingHeaders } from "../../../templates/runtime/client/headers.js";
import { encodeHeaderValue } from "../../../templates/runtime/protocol/header-values.js";
import { retryVersion } from "../../../templates/runtime/client/versions.js";
import { JsonRpcResponseError as TemplateRpcError } from "../../../templates/runtime/client/core.js";
import { createTasksClient, JsonRpcResponseError, type TasksClientRequest } from "../../../generated/ext-tasks-draft/index.js";
import { validateUnsupportedProtocolVersionErrorData } from "../../../generated/ext-tasks-draft/validators.js";
import {
  STATELESS_PROTOCOL_VERSION as SERVED_STATELESS_VERSION,
  TASKS_EXTENSION_ERROR_CODES,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../../../templates/runtime/protocol/constants.js";
import {
  MISSING_REQUIRED_CLIENT_CAPABILITY as LINTED_MISSING_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION as LINTED_UNSUPPORTED_VERSION,
} from "../../../generator/analyze/protocol/flow-checks.js";
import { STATELESS_PROTOCOL_VERSION } from "../../../generator/analyze/protocol/client-features.js";

/**
 * What the generated client puts on the wire for Streamable HTTP (README › Runtime parts): the
 * `Mcp-Method` and `Mcp-Name` routing headers of every method the transport names (unsafe values in
 * the `=?base64?…?=` form), and the protocol revision and client identity in `_meta`, configured
 * once on the client, with one retry after a -32022 "unsupported protocol version" answer.
 */

const PV = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";

describe("encodeHeaderValue", () => {
  // The examples of the Streamable HTTP transport text (2026-07-28, value encoding).
  it.each([
    ["us-west1", "us-west1"],
    ["us west 1", "us west 1"],
    ["file:///projects/myapp/config.json", "file:///projects/myapp/config.json"],
    ["Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="],
    [" padded ", "=?base64?IHBhZGRlZCA=?="],
    ["line1\nline2", "=?base64?bGluZTEKbGluZTI=?="],
    ["=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="],
    ["\tindented", "=?base64?CWluZGVudGVk?="],
    ["trailing\t", "=?base64?dHJhaWxpbmcJ?="],
    ["a\tb", "=?base64?YQli?="],
    ["", ""],
  ])("%j → %s", (value, header) => {
    expect(encodeHeaderValue(value)).toBe(header);
  });

  it("keeps visible ASCII with inner spaces as it is and encodes every other value as the UTF-8 bytes in Base64 (Node's Buffer as the oracle)", () => {
    const safe = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" })), (value) => {
        const plain = safe.test(value) && !(value.startsWith("=?base64?") && value.endsWith("?="));
        const expected = plain ? value : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
        expect(encodeHeaderValue(value)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe("routingHeaders", () => {
  it.each([
    ["tools/call", { name: "get_weather" }, { "Mcp-Method": "tools/call", "Mcp-Name": "get_weather" }],
    ["prompts/get", { name: "greeting" }, { "Mcp-Method": "prompts/get", "Mcp-Name": "greeting" }],
    ["resources/read", { uri: "file:///a b.txt" }, { "Mcp-Method": "resources/read", "Mcp-Name": "file:///a b.txt" }],
    ["resources/read", { uri: "file:///café" }, { "Mcp-Method": "resources/read", "Mcp-Name": "=?base64?ZmlsZTovLy9jYWbDqQ==?=" }],
    ["tools/call", { name: "=?base64?x?=" }, { "Mcp-Method": "tools/call", "Mcp-Name": "=?base64?PT9iYXNlNjQ/eD89?=" }],
    ["tasks/get", { taskId: "t-1" }, { "Mcp-Method": "tasks/get", "Mcp-Name": "t-1" }],
    ["tools/list", { name: "not a name source" }, { "Mcp-Method": "tools/list" }],
    ["resources/read", { name: "the uri is the source" }, { "Mcp-Method": "resources/read" }],
  ])("%s %j", (method, params, headers) => {
    expect(routingHeaders(["tasks/get"], method, params)).toEqual(headers);
  });
});

/** A client over a scripted peer: `answer` gets each request and returns the response. */
function scripted(answer: (request: TasksClientRequest, headers: Record<string, string>) => unknown, options: object = {}) {
  const sent: { request: TasksClientRequest; headers: Record<string, string> }[] = [];
  const client = createTasksClient({
    send: async (request, headers) => {
      sent.push({ request, headers: { ...headers } });
      return answer(request, { ...headers });
    },
    ...options,
  });
  return { client, sent };
}

const ok = (request: TasksClientRequest) => ({ jsonrpc: "2.0", id: request.id, result: { resultType: "complete" } });
const unsupported = (request: TasksClientRequest, supported: unknown) => ({
  jsonrpc: "2.0",
  id: request.id,
  error: { code: -32022, message: "Unsupported protocol version", data: { supported, requested: "x" } },
});
const metaOf = (request: TasksClientRequest) => request.params!._meta as Record<string, unknown>;

describe("protocol version and client info in _meta, from the client's options", () => {
  it("every request carries protocolVersion, clientInfo and the capabilities; a request's own _meta keeps its other entries", async () => {
    const { client, sent } = scripted(ok, { protocolVersion: "2026-07-28", clientInfo: { name: "c", version: "1" } });
    await client.request("tools/list");
    await client.request("tools/call", { name: "x", _meta: { progressToken: 1 } });
    for (const { request } of sent) {
      expect(metaOf(request)).toMatchObject({ [PV]: "2026-07-28", [CLIENT_INFO]: { name: "c", version: "1" } });
      expect(metaOf(request)["io.modelcontextprotocol/clientCapabilities"]).toEqual({ extensions: { "io.modelcontextprotocol/tasks": {} } });
    }
    expect(metaOf(sent[1]!.request).progressToken).toBe(1);
    expect(sent[1]!.headers).toEqual({ "Mcp-Method": "tools/call", "Mcp-Name": "x" });
  });

  it("the `meta` option still configures the version when `protocolVersion` is not given", async () => {
    const { client, sent } = scripted(ok, { meta: { [PV]: "2026-07-28" } });
    await client.request("tools/list");
    expect(metaOf(sent[0]!.request)[PV]).toBe("2026-07-28");
    expect(metaOf(sent[0]!.request)[CLIENT_INFO]).toBeUndefined();
  });

  it("without either, every request declares the revision the set was generated for (its core schema's RequestMetaObject requires one)", async () => {
    const { client, sent } = scripted(ok);
    await client.request("tools/list");
    await client.request("tools/call", { name: "x" });
    expect(sent.map((s) => metaOf(s.request)[PV])).toEqual([STATELESS_PROTOCOL_VERSION, STATELESS_PROTOCOL_VERSION]);
  });

  it("the options still override the set's revision: `protocolVersion` first, then `meta`", async () => {
    const chosen = scripted(ok, { protocolVersion: "2027-01-01", meta: { [PV]: "2026-12-01" } });
    await chosen.client.request("tools/list");
    expect(metaOf(chosen.sent[0]!.request)[PV]).toBe("2027-01-01");
    const fromMeta = scripted(ok, { meta: { [PV]: "2026-12-01" } });
    await fromMeta.client.request("tools/list");
    expect(metaOf(fromMeta.sent[0]!.request)[PV]).toBe("2026-12-01");
  });

  it("the generator's stateless revision is the one the http-server part serves", () => {
    expect(STATELESS_PROTOCOL_VERSION).toBe(SERVED_STATELESS_VERSION);
  });

  it("the generator's -32022 and -32021 (its checks of a set's error data) are the runtime's", () => {
    expect(LINTED_UNSUPPORTED_VERSION).toBe(UNSUPPORTED_PROTOCOL_VERSION);
    expect(LINTED_MISSING_CAPABILITY).toBe(TASKS_EXTENSION_ERROR_CODES.MissingRequiredClientCapability);
  });
});

describe("-32022 unsupported protocol version", () => {
  it("is retried once, with a new id, in the client's preferred revision among the server's; later requests keep it", async () => {
    let rejected = false;
    const { client, sent } = scripted(
      (request) => {
        if (!rejected) {
          rejected = true;
          return unsupported(request, ["2026-09-01", "2026-07-28", "2025-11-25"]);
        }
        return ok(request);
      },
      { protocolVersion: "2026-12-01", supportedProtocolVersions: ["2026-12-01", "2026-07-28", "2026-09-01"] },
    );
    expect(await client.request("tools/list")).toEqual({ resultType: "complete" });
    await client.request("tools/list");
    expect(sent.map((s) => [s.request.id, metaOf(s.request)[PV]])).toEqual([
      [1, "2026-12-01"],
      [2, "2026-07-28"],
      [3, "2026-07-28"],
    ]);
  });

  it("a second -32022 for the retry is the answer (no loop)", async () => {
    const { client, sent } = scripted((request) => unsupported(request, ["2026-07-28"]), { protocolVersion: "2026-07-28" });
    const error = await client.request("tools/list").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcResponseError);
    expect((error as JsonRpcResponseError).code).toBe(-32022);
    expect(sent).toHaveLength(2);
  });

  it("is not retried when its data fails the set's generated UnsupportedProtocolVersionErrorData validator (no `requested`, or a version that is no string)", async () => {
    for (const data of [{ supported: ["2026-07-28"] }, { requested: "x", supported: ["2026-07-28", 7] }]) {
      const { client, sent } = scripted(
        (request) => ({ jsonrpc: "2.0", id: request.id, error: { code: -32022, message: "Unsupported protocol version", data } }),
        { protocolVersion: "2026-12-01", supportedProtocolVersions: ["2026-12-01", "2026-07-28"] },
      );
      await expect(client.request("tools/list")).rejects.toMatchObject({ code: -32022, data });
      expect(sent).toHaveLength(1);
    }
    // Unchecked results (validateResults: false): the structural reading alone decides, and the retry happens.
    let rejected = false;
    const unchecked = scripted(
      (request) => {
        if (rejected) return ok(request);
        rejected = true;
        return { jsonrpc: "2.0", id: request.id, error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"] } } };
      },
      { protocolVersion: "2026-12-01", supportedProtocolVersions: ["2026-12-01", "2026-07-28"], validateResults: false },
    );
    await unchecked.client.request("tools/list");
    expect(unchecked.sent.map((s) => metaOf(s.request)[PV])).toEqual(["2026-12-01", "2026-07-28"]);
    // The same data is enough for the structural reading alone (a set without the definition).
    const dataCheck = { type: "UnsupportedProtocolVersionErrorData", validate: validateUnsupportedProtocolVersionErrorData };
    const error = (data: unknown) => new TemplateRpcError("tools/list", -32022, "m", data);
    expect(retryVersion(error({ supported: ["a"] }), ["a"])).toBe("a");
    expect(retryVersion(error({ supported: ["a"] }), ["a"], dataCheck)).toBeUndefined();
    expect(retryVersion(error({ requested: "b", supported: ["a"] }), ["a"], dataCheck)).toBe("a");
  });

  it("is not retried when the client supports none of the server's revisions", async () => {
    const { client, sent } = scripted((request) => unsupported(request, ["2027-01-01"]), { protocolVersion: "2026-07-28" });
    await expect(client.request("tools/list")).rejects.toMatchObject({ code: -32022 });
    expect(sent).toHaveLength(1);
  });

  it("retryVersion reads only a -32022 with a list of versions", () => {
    const error = (code: number, data: unknown) => new TemplateRpcError("m", code, "x", data);
    expect(retryVersion(error(-32022, { supported: ["b", "a"] }), ["a", "b"])).toBe("a");
    expect(retryVersion(error(-32022, { supported: "a" }), ["a"])).toBeUndefined();
    expect(retryVersion(error(-32022, undefined), ["a"])).toBeUndefined();
    expect(retryVersion(error(-32602, { supported: ["a"] }), ["a"])).toBeUndefined();
    expect(retryVersion(new Error("x"), ["a"])).toBeUndefined();
  });
});
