/**
 * Multi round-trip requests on the server side (`InputRequiredResult`, the 2026-07-28 revision's
 * `mrtr.mdx`), copied unchanged into every set whose server is the Tasks extension's (as
 * `request-state.ts`). A handler of `tools/call`, `prompts/get` or `resources/read` answers "input
 * required" with the input requests it needs and gets the client's answers on the retry, typed and
 * checked, with any state it carries across rounds sealed in `requestState`.
 *
 * `requestState` passes through the client, so it is attacker-controlled input. It is sealed with
 * HMAC-SHA256 (Web Crypto, so Node 20+, Deno, Bun and workers) under a key the application
 * supplies; the sealed payload binds the principal (the request's owner), an expiry, the method
 * and a digest of its salient params (params without `_meta`, `inputResponses` and
 * `requestState`, as canonical JSON), the input request keys issued, and the application's data.
 * State that fails any check is rejected with -32602 and one fixed message: the client learns
 * nothing about which check failed. Sealed state is not secret (the payload is readable base64url
 * JSON) and not single-use (a replay within the expiry by the same principal on the same request
 * is accepted): keep secrets out of it and enforce once-only effects on the server.
 * README.md › Multi round-trip requests lists these properties and the tests that prove them.
 *
 * Needs only Web-standard globals (`crypto.subtle`, `TextEncoder`), declared here, no package.
 */
import {
  isObject,
  ownValue,
  pointerToken,
  ValidationFailed,
  type JsonObject,
  type ValidationError,
  type ValidationResult,
} from "../protocol/json.js";
import { checkFormAnswer, type FormContentCheck } from "../protocol/form-answers.js";
import {
  invalidParamsData,
  JSON_RPC_ERROR_CODES,
  JsonRpcError,
  MAX_REPORTED_ERRORS,
  type RequestContext,
} from "./core.js";
import { base64url, fromBase64url } from "../protocol/base64.js";
import { CLIENT_CAPABILITIES_META, FORM_METHOD, TASKS_EXTENSION_ERROR_CODES } from "../protocol/constants.js";

// ---------------------------------------------------------------------------------------------
// Web Crypto, as the host has it

interface CryptoKeyLike {
  readonly type: string;
}

/** The part of `crypto.subtle` sealing uses. */
interface SubtleLike {
  importKey(
    format: "raw",
    key: Uint8Array,
    algorithm: { name: "HMAC"; hash: "SHA-256" },
    extractable: false,
    usages: readonly ("sign" | "verify")[],
  ): Promise<CryptoKeyLike>;
  sign(algorithm: "HMAC", key: CryptoKeyLike, data: Uint8Array): Promise<ArrayBuffer>;
  verify(algorithm: "HMAC", key: CryptoKeyLike, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
  digest(algorithm: "SHA-256", data: Uint8Array): Promise<ArrayBuffer>;
}

/** Web-standard globals of Node 20+, Deno, Bun, workers and browsers. */
interface Host {
  readonly crypto: { readonly subtle: SubtleLike };
  readonly TextEncoder: new () => { encode(text: string): Uint8Array };
  readonly TextDecoder: new (label: "utf-8", options: { fatal: true }) => { decode(bytes: Uint8Array): string };
}

const host = globalThis as unknown as Host;

// ---------------------------------------------------------------------------------------------
// Sealing

/** Which requests may answer "input required" (mrtr.mdx › Supported Requests). */
export type InputRequiredMethod = "tools/call" | "prompts/get" | "resources/read";

/** A JSON value, as application data carried in `requestState`. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

export interface RequestStateOptions {
  /**
   * HMAC keys, newest first: the first seals, every one opens (rotate by putting the new key first
   * and dropping the old one after the expiry has passed). Each at least 32 bytes (a string counts
   * its UTF-8 bytes). Share them between the instances that serve one endpoint.
   */
  readonly keys: readonly (string | Uint8Array)[];
  /** How long sealed state stays valid, in milliseconds. Default DEFAULT_REQUEST_STATE_TTL_MS. */
  readonly ttlMs?: number;
  /** The clock (default `Date.now`): tests inject one. */
  readonly now?: () => number;
}

/** Default lifetime of sealed state: 10 minutes, enough for a user to answer a form. */
export const DEFAULT_REQUEST_STATE_TTL_MS = 10 * 60 * 1000;

/** The smallest key accepted, in bytes (HMAC-SHA256's output size). */
export const MIN_REQUEST_STATE_KEY_BYTES = 32;

/** What state is bound to: who asked, and which request (its method and salient params). */
export interface RequestBinding {
  readonly owner: string;
  readonly method: string;
  readonly params: JsonObject;
}

/** What a sealed state holds once opened and verified. */
export interface OpenedState {
  /** The input request keys issued with it (answers to other keys are ignored). */
  readonly issued: readonly string[];
  /** The application's data, as sealed. */
  readonly data: JsonValue | undefined;
}

export interface RequestStateSealer {
  /** Seals `data` and the issued keys for a retry of exactly this request by this owner. */
  seal(binding: RequestBinding, issued: readonly string[], data: JsonValue | undefined): Promise<string>;
  /** Opens a client's `requestState` for this request; a JsonRpcError -32602 when it fails any check. */
  open(binding: RequestBinding, requestState: unknown): Promise<OpenedState>;
}

const STATE_VERSION = 1;

/** The one message for every rejected state: which check failed is not the client's business. */
export const INVALID_REQUEST_STATE = "Invalid params: requestState is invalid or has expired";

/** The sealed payload (short names keep the token small). */
interface Payload {
  readonly v: typeof STATE_VERSION;
  /** Principal. */
  readonly p: string;
  /** Method. */
  readonly m: string;
  /** SHA-256 of the canonical salient params, base64url. */
  readonly d: string;
  /** Expiry, ms since the epoch. */
  readonly e: number;
  /** Issued input request keys. */
  readonly k: readonly string[];
  /** Application data. */
  readonly a?: JsonValue;
}

/** A sealer of request state under `options.keys`; throws at once on a missing or short key. */
export function createRequestStateSealer(options: RequestStateOptions): RequestStateSealer {
  if (options.keys.length === 0) throw new Error("request state: at least one key is needed");
  const secrets = options.keys.map((key, i) => {
    const bytes = typeof key === "string" ? utf8(key) : key;
    if (bytes.byteLength < MIN_REQUEST_STATE_KEY_BYTES) {
      throw new Error(
        `request state: key ${i} has ${bytes.byteLength} bytes, at least ${MIN_REQUEST_STATE_KEY_BYTES} are needed`,
      );
    }
    return bytes;
  });
  const ttlMs = options.ttlMs ?? DEFAULT_REQUEST_STATE_TTL_MS;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new Error("request state: ttlMs must be a positive number");
  const now = options.now ?? (() => Date.now());
  let imported: Promise<CryptoKeyLike[]> | undefined;
  const keys = () =>
    (imported ??= Promise.all(
      secrets.map((secret) =>
        host.crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]),
      ),
    ));

  return {
    async seal(binding, issued, data) {
      const payload: Payload = {
        v: STATE_VERSION,
        p: binding.owner,
        m: binding.method,
        d: await paramsDigest(binding.params),
        e: now() + ttlMs,
        k: [...issued],
        ...(data === undefined ? {} : { a: data }),
      };
      const body = utf8(JSON.stringify(payload));
      const [signer] = await keys();
      const mac = new Uint8Array(await host.crypto.subtle.sign("HMAC", signer!, body));
      return `${base64url(body)}.${base64url(mac)}`;
    },

    async open(binding, requestState) {
      const reject = () => new JsonRpcError(JSON_RPC_ERROR_CODES.InvalidParams, INVALID_REQUEST_STATE);
      if (typeof requestState !== "string") throw reject();
      const parts = requestState.split(".");
      if (parts.length !== 2) throw reject();
      const body = fromBase64url(parts[0]!);
      const mac = fromBase64url(parts[1]!);
      if (!body || !mac) throw reject();
      if (!(await verifiedByAny(await keys(), mac, body))) throw reject();
      // Authentic from here on: the payload is what this server sealed.
      const payload = parsePayload(body);
      if (!payload || now() >= payload.e) throw reject();
      if (payload.p !== binding.owner || payload.m !== binding.method) throw reject();
      if (payload.d !== (await paramsDigest(binding.params))) throw reject();
      return { issued: payload.k, data: payload.a };
    },
  };
}

/** Whether one of the keys made `mac` over `body` (`verify` compares in constant time). */
async function verifiedByAny(keys: readonly CryptoKeyLike[], mac: Uint8Array, body: Uint8Array): Promise<boolean> {
  for (const key of keys) if (await host.crypto.subtle.verify("HMAC", key, mac, body)) return true;
  return false;
}

function parsePayload(body: Uint8Array): Payload | undefined {
  let value: unknown;
  try {
    value = JSON.parse(new host.TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const { v, p, m, d, e, k } = value as { [key: string]: unknown };
  const keysOk = Array.isArray(k) && k.every((key) => typeof key === "string");
  if (
    v !== STATE_VERSION ||
    typeof p !== "string" ||
    typeof m !== "string" ||
    typeof d !== "string" ||
    typeof e !== "number" ||
    !keysOk
  ) {
    return undefined;
  }
  return value as unknown as Payload;
}

/** The params that identify a request: all but `_meta`, `inputResponses` and `requestState`. */
export function salientParams(params: JsonObject): JsonObject {
  const { _meta, inputResponses, requestState, ...rest } = params;
  return rest;
}

/** SHA-256 of the canonical JSON of the salient params, base64url. */
export async function paramsDigest(params: JsonObject): Promise<string> {
  const digest = await host.crypto.subtle.digest("SHA-256", utf8(canonicalJson(salientParams(params))));
  return base64url(new Uint8Array(digest));
}

/** JSON with object keys sorted at every level, so equal values have one text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  if (isObject(value)) {
    const entries = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function utf8(text: string): Uint8Array {
  return new host.TextEncoder().encode(text);
}

// ---------------------------------------------------------------------------------------------
// Input rounds: the handler API

/** An input request as `inputRequests` carries it. */
export interface InputRequestLike {
  readonly method: string;
  readonly params?: unknown;
}

/** The validators of the answers, from the set (`validateElicitResult`, ... in validators.ts). */
export interface InputAnswerValidators<Elicit, Sample, Roots> {
  readonly "elicitation/create": (value: unknown) => ValidationResult<Elicit>;
  readonly "sampling/createMessage": (value: unknown) => ValidationResult<Sample>;
  readonly "roots/list": (value: unknown) => ValidationResult<Roots>;
  /** An accepted form's content against the form asked: the set's `validateElicitationContent` (elicitation.ts), whose errors name the field. */
  readonly elicitationContent: FormContentCheck;
}

/** The answer type of each input method. */
export interface AnswerTypes<Elicit, Sample, Roots> {
  readonly "elicitation/create": Elicit;
  readonly "sampling/createMessage": Sample;
  readonly "roots/list": Roots;
}

type AnyAnswers = AnswerTypes<unknown, unknown, unknown>;

/** Input requests by key, as a handler asks them. */
export type InputRequestsLike = { readonly [key: string]: InputRequestLike };

/** The answers to `Asked`, typed by each request's method. */
export type AnswersOf<Asked extends InputRequestsLike, Types extends AnyAnswers> = {
  -readonly [K in keyof Asked]: Asked[K]["method"] extends keyof Types ? Types[Asked[K]["method"]] : never;
};

/** What a round collected for the requests a handler needs. */
export type Collected<Asked extends InputRequestsLike, Types extends AnyAnswers> =
  | { readonly complete: true; readonly answers: AnswersOf<Asked, Types> }
  | { readonly complete: false; readonly answers: Partial<AnswersOf<Asked, Types>>; readonly missing: Partial<Asked> };

/** The answer a handler gives when it needs input: the wire `InputRequiredResult`. */
export interface InputRequiredAnswer {
  readonly resultType: "input_required";
  readonly inputRequests?: InputRequestsLike;
  readonly requestState?: string;
}

/** One attempt at a request, as its handler sees it; `Answer` is the set's InputRequiredResult where the options give its validator. */
export interface InputRound<Types extends AnyAnswers, Answer = InputRequiredAnswer> {
  /** The application data sealed by the previous round (verified), or undefined (first round, or no state sent). */
  readonly state: JsonValue | undefined;
  /** Whether the client sent `requestState`. */
  readonly hasState: boolean;
  /**
   * The answers to `asked` the client sent, each checked (-32602 for a malformed one) and typed;
   * answers to keys not asked (or, with state, not issued by the previous round) are ignored.
   */
  collect<Asked extends InputRequestsLike>(asked: Asked): Collected<Asked, Types>;
  /** Whether the client declared the capability an input method needs (`elicitation` for forms, `sampling`, `roots`). */
  supports(method: string): boolean;
  /**
   * The "input required" answer: `inputRequests` (only what the client declared it supports:
   * anything else throws -32021) and, when `state` is given, `requestState` sealed for a retry of
   * this request by this principal. At least one of the two must be given. With the set's
   * `inputRequiredResult` validator the answer is checked by it before it is returned (an input
   * request the schema rejects throws its ValidationFailed, never reaching the client) and typed as it.
   */
  inputRequired(inputRequests: InputRequestsLike | undefined, state?: JsonValue): Promise<Answer>;
}

/** A handler that may answer "input required". */
export type InputRoundHandler<Types extends AnyAnswers, Answer = InputRequiredAnswer> = (
  params: JsonObject,
  context: RequestContext,
  round: InputRound<Types, Answer>,
) => object | Promise<object>;

export interface InputRoundsOptions<Elicit, Sample, Roots, Answer = InputRequiredAnswer> extends RequestStateOptions {
  readonly validators: InputAnswerValidators<Elicit, Sample, Roots>;
  /** The set's generated InputRequiredResult validator (`validateInputRequiredResult`): each answer is checked by it and typed as it. */
  readonly inputRequiredResult?: (value: unknown) => ValidationResult<Answer>;
}

export interface InputRounds<Types extends AnyAnswers, Answer = InputRequiredAnswer> {
  /** A method handler (for the HTTP handler's or stdio server's `methods`) around `handle`. */
  handler(
    method: InputRequiredMethod,
    handle: InputRoundHandler<Types, Answer>,
  ): (params: JsonObject, context: RequestContext) => Promise<object>;
  /** The sealer under it, for handlers that build their own answers. */
  readonly sealer: RequestStateSealer;
}

/** Capability each input method needs, in `_meta` client capabilities (mrtr.mdx › Server Requirements). */
const CAPABILITY_OF: { readonly [method: string]: string } = {
  [FORM_METHOD]: "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/** Multi round-trip handling with state sealed under `options.keys`. */
export function createInputRounds<Elicit, Sample, Roots, Answer = InputRequiredAnswer>(
  options: InputRoundsOptions<Elicit, Sample, Roots, Answer>,
): InputRounds<AnswerTypes<Elicit, Sample, Roots>, Answer> {
  const sealer = createRequestStateSealer(options);
  // Without the set's validator the answer is the structural InputRequiredAnswer (Answer's default).
  const checkAnswer = (answer: InputRequiredAnswer): Answer => {
    if (!options.inputRequiredResult) return answer as Answer;
    const checked = options.inputRequiredResult(answer);
    if (!checked.ok) throw new ValidationFailed("InputRequiredResult", checked.errors);
    return checked.value;
  };
  return {
    sealer,
    handler: (method, handle) => async (params, context) => {
      const binding: RequestBinding = { owner: context.owner, method, params };
      const sent = ownValue(params, "requestState");
      const opened = sent === undefined ? undefined : await sealer.open(binding, sent);
      const responses = ownValue(params, "inputResponses");
      if (responses !== undefined && !isObject(responses)) {
        throw new JsonRpcError(JSON_RPC_ERROR_CODES.InvalidParams, "Invalid params: inputResponses must be an object");
      }
      const round: InputRound<AnswerTypes<Elicit, Sample, Roots>, Answer> = {
        state: opened?.data,
        hasState: opened !== undefined,
        collect: (asked) => collect(asked, responses ?? {}, opened?.issued, options.validators),
        supports: (inputMethod) => missingCapabilityFor(context, { method: inputMethod }) === undefined,
        async inputRequired(inputRequests, state) {
          const asking = inputRequests !== undefined && Object.keys(inputRequests).length > 0;
          // mrtr.mdx: at least one of inputRequests and requestState in every InputRequiredResult.
          if (!asking && state === undefined) throw new Error("inputRequired: give input requests, state, or both");
          for (const request of Object.values(inputRequests ?? {})) {
            const missing = missingCapabilityFor(context, request);
            if (missing) throw missing;
          }
          const issued = Object.keys(inputRequests ?? {});
          return checkAnswer({
            resultType: "input_required",
            ...(asking ? { inputRequests } : {}),
            ...(state === undefined ? {} : { requestState: await sealer.seal(binding, issued, state) }),
          });
        },
      };
      return handle(params, context, round);
    },
  };
}

function collect<Asked extends InputRequestsLike, Types extends AnyAnswers>(
  asked: Asked,
  responses: JsonObject,
  issued: readonly string[] | undefined,
  validators: InputAnswerValidators<unknown, unknown, unknown>,
): Collected<Asked, Types> {
  const answers: { [key: string]: unknown } = {};
  const missing: { [key: string]: InputRequestLike } = {};
  for (const [key, request] of Object.entries(asked)) {
    const answer = issued === undefined || issued.includes(key) ? ownValue(responses, key) : undefined;
    if (answer === undefined) missing[key] = request;
    else answers[key] = checkedAnswer(key, request, answer, validators);
  }
  return Object.keys(missing).length === 0
    ? { complete: true, answers: answers as AnswersOf<Asked, Types> }
    : { complete: false, answers: answers as Partial<AnswersOf<Asked, Types>>, missing: missing as Partial<Asked> };
}

/**
 * The answer if it is a valid result of the request's method, else -32602: an accepted form is
 * judged by form-answers.ts (its defaults filled in, the envelope by the method's validator, the
 * content by the form, whose first error the message names and whose errors `data` carries).
 */
function checkedAnswer(
  key: string,
  request: InputRequestLike,
  answer: unknown,
  validators: InputAnswerValidators<unknown, unknown, unknown>,
): unknown {
  const invalid = (what: string, errors?: readonly ValidationError[]) =>
    new JsonRpcError(
      JSON_RPC_ERROR_CODES.InvalidParams,
      `Invalid params: inputResponses["${key.slice(0, 100)}"] ${what}`,
      errors &&
        invalidParamsData(
          errors
            .slice(0, MAX_REPORTED_ERRORS)
            .map((e) => ({ ...e, path: `/inputResponses/${pointerToken(key)}/content${e.path}` })),
          errors.length,
        ),
    );
  const method = request.method as keyof AnyAnswers;
  const validate = Object.hasOwn(CAPABILITY_OF, method) ? validators[method] : undefined;
  if (!validate) throw new Error(`input request "${key}": unknown method ${request.method}`);
  const checked = checkFormAnswer(request, answer, {
    envelope: (envelope) => (validate(envelope).ok ? undefined : invalid(`is not a valid ${request.method} result`)),
    form: (requestedSchema, content) => {
      const filled = validators.elicitationContent(requestedSchema, content);
      const first = filled.errors?.[0];
      return filled.ok
        ? undefined
        : invalid(
            `does not fill in the form asked${first ? ` (${first.path || "/"}: ${first.message})` : ""}`,
            filled.errors,
          );
    },
  });
  if (!checked.ok) throw checked.problem;
  return checked.value;
}

function declaredCapabilities(context: RequestContext): JsonObject {
  const declared = ownValue(context.meta, CLIENT_CAPABILITIES_META);
  return isObject(declared) ? declared : {};
}

/**
 * -32021 naming what the client must declare for this request, or undefined when it did: the
 * method's capability, and for an elicitation its mode (`url` needs `elicitation.url`; a form needs
 * `elicitation.form`, or an empty `elicitation` as clients wrote it before modes existed).
 */
function missingCapabilityFor(context: RequestContext, request: InputRequestLike): JsonRpcError | undefined {
  const capability = Object.hasOwn(CAPABILITY_OF, request.method) ? CAPABILITY_OF[request.method]! : request.method;
  const declared = ownValue(declaredCapabilities(context), capability);
  let required: JsonObject = {};
  let ok = isObject(declared);
  if (request.method === FORM_METHOD) {
    const mode = isObject(request.params) && ownValue(request.params, "mode") === "url" ? "url" : "form";
    required = { [mode]: {} };
    const modes = isObject(declared) ? declared : {};
    const none = ownValue(modes, "form") === undefined && ownValue(modes, "url") === undefined;
    ok = isObject(declared) && (isObject(ownValue(modes, mode)) || (mode === "form" && none));
  }
  if (ok) return undefined;
  return new JsonRpcError(
    TASKS_EXTENSION_ERROR_CODES.MissingRequiredClientCapability,
    `Missing required client capability: ${capability}${request.method === FORM_METHOD ? `.${Object.keys(required)[0]}` : ""}`,
    { requiredCapabilities: { [capability]: required } },
  );
}
