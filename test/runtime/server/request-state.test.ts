import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  createInputRounds,
  createRequestStateSealer,
  INVALID_REQUEST_STATE,
  type RequestBinding,
} from "../../../templates/runtime/server/request-state.js";
import { base64url, fromBase64url } from "../../../templates/runtime/protocol/base64.js";
import { JsonRpcError, requestContext, type RequestContext } from "../../../templates/runtime/server/core.js";
import { validateElicitationContent } from "../../../generated/ext-tasks-draft/elicitation.js";
import type { ElicitRequest, CreateMessageRequest, InputRequiredResult } from "../../../generated/ext-tasks-draft/types.js";
import {
  validateCreateMessageResult,
  validateElicitResult,
  validateInputRequiredResult,
  validateListRootsResult,
} from "../../../generated/ext-tasks-draft/validators.js";
import { ValidationFailed } from "../../../templates/runtime/protocol/json.js";
import { projectRoot } from "../../support/paths.js";
import { STRICT_COMPILER_OPTIONS, typeCheckInMemory } from "../../support/typescript.js";
import { filesBelow } from "../../support/pack.js";

/**
 * Sealed `requestState` (templates/runtime/server/request-state.ts, README › Multi round-trip requests):
 * each property the README states is proved here by a state that must be rejected, next to the
 * same state accepted when only that one thing is put right.
 */

const KEY = "k".repeat(32);
const OTHER_KEY = "o".repeat(32);
const binding: RequestBinding = {
  owner: "alice",
  method: "tools/call",
  params: { name: "deploy", arguments: { env: "prod", replicas: 2 } },
};

/** Resolves to the error `promise` rejects with (fails when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<JsonRpcError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(JsonRpcError);
    return error as JsonRpcError;
  }
  throw new Error("expected a rejection");
}

async function expectRejected(promise: Promise<unknown>): Promise<void> {
  const error = await rejection(promise);
  expect(error.code).toBe(-32602);
  // One message for every failure: nothing says which check failed.
  expect(error.message).toBe(INVALID_REQUEST_STATE);
  expect(error.data).toBeUndefined();
}

describe("request state sealing", () => {
  it("round trips the issued keys and the application data", async () => {
    const sealer = createRequestStateSealer({ keys: [KEY] });
    const token = await sealer.seal(binding, ["confirm"], { step: 2, names: ["a", "b"] });
    expect(await sealer.open(binding, token)).toEqual({ issued: ["confirm"], data: { step: 2, names: ["a", "b"] } });
  });

  it("rejects a token with any byte of its payload or its MAC flipped", async () => {
    const sealer = createRequestStateSealer({ keys: [KEY] });
    const token = await sealer.seal(binding, ["confirm"], { step: 1 });
    const parts = token.split(".");
    expect(parts).toHaveLength(2);
    for (const [index, part] of parts.entries()) {
      const bytes = fromBase64url(part!)!;
      for (let at = 0; at < bytes.length; at++) {
        const flipped = Uint8Array.from(bytes);
        flipped[at] = flipped[at]! ^ 0x01;
        const tampered = parts.map((p, i) => (i === index ? base64url(flipped) : p)).join(".");
        await expectRejected(sealer.open(binding, tampered));
      }
    }
    await expect(sealer.open(binding, token)).resolves.toBeDefined();
  });

  it("rejects the conformance suite's tampering (a suffix) and a payload re-encoded with other fields", async () => {
    const sealer = createRequestStateSealer({ keys: [KEY] });
    const token = await sealer.seal(binding, [], { admin: false });
    await expectRejected(sealer.open(binding, `${token}-TAMPERED`));
    const [payload, mac] = token.split(".");
    const forged = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8")) as { a: unknown };
    forged.a = { admin: true };
    await expectRejected(sealer.open(binding, `${Buffer.from(JSON.stringify(forged)).toString("base64url")}.${mac}`));
  });

  it("rejects state once its expiry has passed (injected clock)", async () => {
    let now = 1_000_000;
    const sealer = createRequestStateSealer({ keys: [KEY], ttlMs: 60_000, now: () => now });
    const token = await sealer.seal(binding, [], null);
    now += 59_999;
    await expect(sealer.open(binding, token)).resolves.toEqual({ issued: [], data: null });
    now += 1;
    await expectRejected(sealer.open(binding, token));
  });

  it("defaults to a 10-minute expiry", async () => {
    let now = 0;
    const sealer = createRequestStateSealer({ keys: [KEY], now: () => now });
    const token = await sealer.seal(binding, [], 1);
    now = 10 * 60 * 1000 - 1;
    await expect(sealer.open(binding, token)).resolves.toBeDefined();
    now += 1;
    await expectRejected(sealer.open(binding, token));
  });

  it("rejects state presented by another principal", async () => {
    const sealer = createRequestStateSealer({ keys: [KEY] });
    const token = await sealer.seal(binding, [], 1);
    await expectRejected(sealer.open({ ...binding, owner: "mallory" }, token));
    await expect(sealer.open({ ...binding }, token)).resolves.toBeDefined();
  });

  it("rejects state presented on another method or with other salient params", async () => {
    const sealer = createRequestStateSealer({ keys: [KEY] });
    const token = await sealer.seal(binding, [], 1);
    await expectRejected(sealer.open({ ...binding, method: "prompts/get" }, token));
    await expectRejected(sealer.open({ ...binding, params: { name: "destroy", arguments: binding.params.arguments } }, token));
    await expectRejected(sealer.open({ ...binding, params: { name: "deploy", arguments: { env: "dev", replicas: 2 } } }, token));
    await expectRejected(sealer.open({ ...binding, params: { ...binding.params, task: { ttl: 1 } } }, token));
  });

  it("binds only the salient params: _meta, inputResponses, requestState and key order do not count", async () => {
    const sealer = createRequestStateSealer({ keys: [KEY] });
    const token = await sealer.seal(binding, [], 1);
    const retry = {
      arguments: { replicas: 2, env: "prod" },
      name: "deploy",
      _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
      inputResponses: { confirm: { action: "accept" } },
      requestState: token,
    };
    await expect(sealer.open({ ...binding, params: retry }, token)).resolves.toEqual({ issued: [], data: 1 });
  });

  it("rotates keys: the first seals, every one opens, a dropped key's state is rejected", async () => {
    const old = createRequestStateSealer({ keys: [OTHER_KEY] });
    const rotated = createRequestStateSealer({ keys: [KEY, OTHER_KEY] });
    const newOnly = createRequestStateSealer({ keys: [KEY] });
    const oldToken = await old.seal(binding, [], "old");
    await expect(rotated.open(binding, oldToken)).resolves.toEqual({ issued: [], data: "old" });
    await expectRejected(newOnly.open(binding, oldToken));
    const newToken = await rotated.seal(binding, [], "new");
    await expect(newOnly.open(binding, newToken)).resolves.toEqual({ issued: [], data: "new" });
    await expectRejected(old.open(binding, newToken));
  });

  it("rejects malformed tokens with -32602: not a string, wrong shape, bad base64url", async () => {
    const sealer = createRequestStateSealer({ keys: [KEY] });
    const token = await sealer.seal(binding, [], 1);
    const [payload, mac] = token.split(".");
    for (const bad of [42, null, {}, "", "abc", `${token}.x`, `${payload}=.${mac}`, `${payload}.${mac}=`, `${payload}+.${mac}`, `${payload}.${mac}!`, `${payload}A.${mac}`]) {
      await expectRejected(sealer.open(binding, bad));
    }
  });

  it("rejects a correctly signed payload that is not JSON, or not a state", async () => {
    // Signed with the server's key, so only the parsing can reject them.
    const sign = (body: Buffer) => `${body.toString("base64url")}.${createHmac("sha256", KEY).update(body).digest("base64url")}`;
    const sealer = createRequestStateSealer({ keys: [KEY] });
    await expectRejected(sealer.open(binding, sign(Buffer.from("not json"))));
    await expectRejected(sealer.open(binding, sign(Buffer.from([0xff, 0xfe]))));
    await expectRejected(sealer.open(binding, sign(Buffer.from(JSON.stringify({ v: 1, p: "alice" })))));
    await expectRejected(sealer.open(binding, sign(Buffer.from("[1,2]"))));
    // The same signing of a real payload is accepted: the rejections above are the parser's.
    const real = Buffer.from((await sealer.seal(binding, [], 1)).split(".")[0]!, "base64url");
    await expect(sealer.open(binding, sign(real))).resolves.toEqual({ issued: [], data: 1 });
  });

  it("refuses to start without a key, or with a key shorter than 32 bytes", () => {
    expect(() => createRequestStateSealer({ keys: [] })).toThrow(/at least one key/);
    expect(() => createRequestStateSealer({ keys: ["short"] })).toThrow(/key 0 has 5 bytes/);
    expect(() => createRequestStateSealer({ keys: [KEY, randomBytes(16)] })).toThrow(/key 1 has 16 bytes/);
    expect(() => createRequestStateSealer({ keys: [randomBytes(32)] })).not.toThrow();
  });
});

describe("base64url and canonical JSON", () => {
  it("encodes and decodes as Node's base64url does, for every length", () => {
    for (let length = 0; length < 40; length++) {
      const bytes = randomBytes(length);
      const text = base64url(bytes);
      expect(text).toBe(bytes.toString("base64url"));
      expect(Buffer.from(fromBase64url(text)!)).toEqual(bytes);
    }
    expect(fromBase64url("A")).toBeUndefined();
    expect(fromBase64url("AB")).toBeUndefined(); // non-zero unused bits: not the canonical form of any bytes
    expect(fromBase64url("AA==")).toBeUndefined();
  });

  it("sorts keys at every level and drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 2 }], c: undefined } })).toBe('{"a":{"d":[2,{"x":2,"y":1}]},"b":1}');
  });
});

describe("input rounds: the handler API", () => {
  const rounds = createInputRounds({
    keys: [KEY],
    validators: {
      "elicitation/create": validateElicitResult,
      "sampling/createMessage": validateCreateMessageResult,
      "roots/list": validateListRootsResult,
      elicitationContent: validateElicitationContent,
    },
  });
  const confirm: ElicitRequest = {
    method: "elicitation/create",
    params: { mode: "form", message: "Sure?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } },
  };
  const question: CreateMessageRequest = {
    method: "sampling/createMessage",
    params: { messages: [{ role: "user", content: { type: "text", text: "Name?" } }], maxTokens: 10 },
  };
  const everything = { elicitation: {}, sampling: {}, roots: {} };
  const context = (owner: string, capabilities: object = everything): RequestContext =>
    requestContext({ _meta: { "io.modelcontextprotocol/clientCapabilities": capabilities } }, { owner });

  /** A tool that needs a confirmation and a sampled name, carrying a counter in its state. */
  const handler = rounds.handler("tools/call", async (_params, _context, round) => {
    const got = round.collect({ confirm, question });
    if (!got.complete) return round.inputRequired(got.missing, { asked: Object.keys(got.missing) });
    // Typed: an ElicitResult and a CreateMessageResult.
    const ok = got.answers.confirm.action === "accept" && got.answers.confirm.content?.ok === true;
    return { ok, model: got.answers.question.model, state: round.state ?? null };
  });

  const accept = { action: "accept", content: { ok: true } };
  const sampled = { role: "assistant", content: { type: "text", text: "Ann" }, model: "m1" };

  it("answers input_required with the requests and sealed state, then completes on the retry, typed", async () => {
    const params = { name: "t", arguments: {} };
    const first = (await handler(params, context("alice"))) as { resultType: string; inputRequests: object; requestState: string };
    expect(first.resultType).toBe("input_required");
    expect(first.inputRequests).toEqual({ confirm, question });
    expect(typeof first.requestState).toBe("string");
    const retry = { ...params, inputResponses: { confirm: accept, question: sampled }, requestState: first.requestState };
    expect(await handler(retry, context("alice"))).toEqual({ ok: true, model: "m1", state: { asked: ["confirm", "question"] } });
  });

  it("re-asks only what is missing, and ignores answers to keys it did not ask", async () => {
    const params = { name: "t", arguments: {}, inputResponses: { confirm: accept, extra: { anything: 1 } } };
    const again = (await handler(params, context("alice"))) as { inputRequests: object };
    expect(again.inputRequests).toEqual({ question });
  });

  it("with state, counts only answers to the keys its round issued", async () => {
    const params = { name: "t", arguments: {} };
    const onlyConfirm = rounds.handler("tools/call", async (_p, _c, round) => {
      if (!round.hasState) return round.inputRequired({ confirm }, 1);
      return { collected: round.collect({ confirm, question }).answers };
    });
    const first = (await onlyConfirm(params, context("alice"))) as { requestState: string };
    const retry = { ...params, inputResponses: { confirm: accept, question: sampled }, requestState: first.requestState };
    expect(await onlyConfirm(retry, context("alice"))).toEqual({ collected: { confirm: accept } });
  });

  it("rejects the retry's state from another principal or on other arguments", async () => {
    const params = { name: "t", arguments: { a: 1 } };
    const first = (await handler(params, context("alice"))) as { requestState: string };
    const answers = { confirm: accept, question: sampled };
    await expectRejected(handler({ ...params, inputResponses: answers, requestState: first.requestState }, context("bob")));
    await expectRejected(handler({ name: "t", arguments: { a: 2 }, inputResponses: answers, requestState: first.requestState }, context("alice")));
  });

  it("rejects malformed answers with -32602: not an object, not the method's result, a form not filled in", async () => {
    const params = { name: "t", arguments: {} };
    for (const inputResponses of [null, 3, { confirm: 12345 }, { confirm: { action: "maybe" } }, { question: { role: "assistant" } }, { confirm: { action: "accept", content: { ok: "yes" } } }, { confirm: { action: "accept", content: {} } }]) {
      const error = await rejection(Promise.resolve(handler({ ...params, inputResponses }, context("alice"))));
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/^Invalid params: inputResponses/);
    }
    // A declined form has no content to check.
    const declined = (await handler({ ...params, inputResponses: { confirm: { action: "decline" }, question: sampled } }, context("alice"))) as { ok: boolean };
    expect(declined.ok).toBe(false);
  });

  it("never asks what the client did not declare: -32021 naming the capability", async () => {
    const error = await rejection(Promise.resolve(handler({ name: "t", arguments: {} }, context("alice", { sampling: {} }))));
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } });
    const supports = rounds.handler("tools/call", (_p, _c, round) => ({
      methods: ["elicitation/create", "sampling/createMessage", "roots/list", "ping"].filter((m) => round.supports(m)),
    }));
    expect(await supports({}, context("alice", { sampling: {}, roots: {} }))).toEqual({ methods: ["sampling/createMessage", "roots/list"] });
    expect(await supports({}, context("alice", { elicitation: { url: {} } }))).toEqual({ methods: [] });
    expect(await supports({}, context("alice", { elicitation: { form: {} } }))).toEqual({ methods: ["elicitation/create"] });
  });

  it("checks an elicitation's mode: url needs elicitation.url, a form elicitation.form or an empty elicitation", async () => {
    const visit: ElicitRequest = { method: "elicitation/create", params: { mode: "url", message: "Sign in", url: "https://example.com/login" } };
    const ask = (request: ElicitRequest) => rounds.handler("tools/call", (_p, _c, round) => round.inputRequired({ it: request }));
    const outcome = async (request: ElicitRequest, elicitation: object) => {
      try {
        return ((await ask(request)({}, context("alice", { elicitation }))) as { resultType: string }).resultType;
      } catch (error) {
        return (error as JsonRpcError).data;
      }
    };
    expect(await outcome(visit, { url: {} })).toBe("input_required");
    expect(await outcome(visit, {})).toEqual({ requiredCapabilities: { elicitation: { url: {} } } });
    expect(await outcome(visit, { form: {} })).toEqual({ requiredCapabilities: { elicitation: { url: {} } } });
    expect(await outcome(confirm, {})).toBe("input_required");
    expect(await outcome(confirm, { form: {} })).toBe("input_required");
    expect(await outcome(confirm, { url: {} })).toEqual({ requiredCapabilities: { elicitation: { form: {} } } });
  });

  it("answers at least one of inputRequests and requestState", async () => {
    const empty = rounds.handler("tools/call", (_p, _c, round) => round.inputRequired({}));
    await expect(Promise.resolve().then(() => empty({}, context("alice")))).rejects.toThrow(/give input requests, state, or both/);
    const stateOnly = rounds.handler("tools/call", (_p, _c, round) => round.inputRequired({}, 1));
    const answer = (await stateOnly({}, context("alice"))) as object;
    expect(Object.keys(answer).sort()).toEqual(["requestState", "resultType"]);
  });
});

describe("input rounds checked by the set's generated InputRequiredResult validator", () => {
  const validators = {
    "elicitation/create": validateElicitResult,
    "sampling/createMessage": validateCreateMessageResult,
    "roots/list": validateListRootsResult,
    elicitationContent: validateElicitationContent,
  };
  const rounds = createInputRounds({ keys: [KEY], validators, inputRequiredResult: validateInputRequiredResult });
  const context = requestContext({ _meta: { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } } }, { owner: "alice" });
  const ask = (request: unknown) =>
    rounds.handler("tools/call", async (_params, _context, round) => {
      const answer: InputRequiredResult = await round.inputRequired({ confirm: request as ElicitRequest }, { step: 1 });
      return answer;
    })({ name: "t" }, context);

  it("a valid answer passes as the set's InputRequiredResult", async () => {
    const confirm = { method: "elicitation/create", params: { mode: "form", message: "Sure?", requestedSchema: { type: "object", properties: {} } } };
    expect(await ask(confirm)).toMatchObject({ resultType: "input_required", inputRequests: { confirm } });
  });

  it("an input request the schema rejects throws the validator's ValidationFailed, with its schema path, instead of reaching the client", async () => {
    const error = await ask({ method: "elicitation/create", params: { mode: "form", message: 7, requestedSchema: { type: "object", properties: {} } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as ValidationFailed).typeName).toBe("InputRequiredResult");
    expect((error as ValidationFailed).errors.map((e) => e.schemaPath)).toEqual(
      // The params fit neither the form nor the URL variant.
      [expect.stringMatching(/ext-tasks-draft(\.core)?\.schema\.json#\/\$defs\/ElicitRequestParams\/anyOf$/)],
    );
  });

  it("without the validator the same answer goes out as it is (the structural InputRequiredAnswer)", async () => {
    const plain = createInputRounds({ keys: [KEY], validators });
    const answer = await plain.handler("tools/call", (_p, _c, round) => round.inputRequired({ confirm: { method: "elicitation/create", params: { message: 7 } } }))({ name: "t" }, context);
    expect(answer).toMatchObject({ resultType: "input_required", inputRequests: { confirm: { params: { message: 7 } } } });
  });
});

describe("README's multi round-trip block (Server stubs › Multi round-trip requests)", () => {
  it("type-checks strictly beside the generated set", () => {
    const prefix = "./generated/mcp-tasks/ext-tasks-draft/";
    const setDir = join(projectRoot, "generated", "ext-tasks-draft");
    const readme = readFileSync(join(projectRoot, "README.md"), "utf8");
    const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).find((code) => code.startsWith("// rounds.ts\n"));
    expect(block, "README has a ```ts block starting with // rounds.ts").toBeDefined();
    expect(block).toContain(`from "${prefix}runtime/server/request-state.js"`);
    const files = new Map<string, string>();
    for (const name of filesBelow(setDir).filter((n) => n.endsWith(".ts") && n !== "runtime/parts/sqlite-store.ts")) files.set(name, readFileSync(join(setDir, name), "utf8"));
    files.set("readme-rounds.ts", block!.replaceAll(prefix, "./"));
    const options = { ...STRICT_COMPILER_OPTIONS, lib: ["lib.es2022.d.ts"], types: ["node"], typeRoots: [join(projectRoot, "node_modules", "@types")] };
    const diagnostics = typeCheckInMemory(files, options, { roots: (name) => name === "readme-rounds.ts" || name === "runtime/server/request-state.ts" });
    expect(diagnostics.map((d) => `${d.file}:${d.line} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.message, "\n")}`)).toEqual([]);
  });
});
