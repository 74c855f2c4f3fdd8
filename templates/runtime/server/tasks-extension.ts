/**
 * The Tasks extension's request rules, copied unchanged into every set whose schema declares tasks
 * as an extension capability (as `tasks-extension.ts`): the client declares the extension per
 * request in `_meta` client capabilities (-32021 without it), and over Streamable HTTP the routing
 * headers must agree with the body (-32020), `Mcp-Name` read in its plain or Base64 form.
 */
import { isObject, ownValue } from "../protocol/json.js";
import {
  headerValue,
  JsonRpcError,
  type HeaderCheckOf,
  type HeaderValue,
  type JsonRpcErrorObject,
  type RequestContext,
} from "./core.js";

/** The error codes the extension adds to JSON-RPC's. */
export const TASKS_EXTENSION_ERROR_CODES = {
  /** A Streamable HTTP routing header disagrees with the body (or is missing). */
  HeaderMismatch: -32020,
  /** The request needs a client capability it did not declare. */
  MissingRequiredClientCapability: -32021,
} as const;

/** The extension identifier clients declare in `_meta` client capabilities to use tasks. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The `_meta` key under which a request carries its client capabilities. */
export const CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities";

/** Whether the request declares the tasks extension in its `_meta` client capabilities (judged per request, never remembered). */
export function hasTasksExtension(context: Pick<RequestContext, "meta">): boolean {
  const capabilities = ownValue(context.meta, CLIENT_CAPABILITIES_META);
  const extensions = isObject(capabilities) ? ownValue(capabilities, "extensions") : undefined;
  return isObject(extensions) && isObject(ownValue(extensions, TASKS_EXTENSION));
}

/** The -32021 error for a request that needs the tasks extension and did not declare it. */
export function missingTasksExtension(): JsonRpcError {
  return new JsonRpcError(
    TASKS_EXTENSION_ERROR_CODES.MissingRequiredClientCapability,
    `Missing required client capability: extension ${TASKS_EXTENSION}`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/**
 * The Streamable HTTP routing rule: when the transport has headers, `Mcp-Method` must equal the
 * method and `Mcp-Name` must be present and equal `params.taskId` (-32020 otherwise). Transports
 * without headers (stdio, in-process) pass.
 */
export const checkRoutingHeaders: HeaderCheckOf<string> = (method, params, context) => {
  if (!context.headers) return undefined;
  const mismatch = TASKS_EXTENSION_ERROR_CODES.HeaderMismatch;
  const mcpMethod = headerValue(context.headers, "mcp-method");
  if (mcpMethod !== undefined && mcpMethod !== method) {
    return { code: mismatch, message: "Mcp-Method header does not match the request method" };
  }
  return checkNameHeader(context.headers, params, "taskId");
};

/**
 * `Mcp-Name` against the params member it carries (`taskId`, a tool's or prompt's `name`, a
 * resource's `uri`): present, a value a header may carry (plain or Base64), and equal to it (-32020
 * otherwise). Shared by the Tasks server's check above and the HTTP handler's for other methods.
 */
export function checkNameHeader(
  headers: { readonly [name: string]: HeaderValue },
  params: unknown,
  field: string,
): JsonRpcErrorObject | undefined {
  const mismatch = TASKS_EXTENSION_ERROR_CODES.HeaderMismatch;
  const name = headerValue(headers, "mcp-name");
  if (name === undefined) return { code: mismatch, message: `Missing Mcp-Name header (it must carry params.${field})` };
  const decoded = decodeHeaderValue(name);
  if (decoded === undefined)
    return {
      code: mismatch,
      message: "Mcp-Name header is not valid (characters a header may not carry, or a bad Base64 form)",
    };
  const expected = isObject(params) ? ownValue(params, field) : undefined;
  if (decoded !== expected) return { code: mismatch, message: `Mcp-Name header does not match params.${field}` };
  return undefined;
}

const BASE64_SENTINEL = /^=\?base64\?(.*)\?=$/s;
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** The host's UTF-8 decoder (Node 20+, Deno, Bun, workers and browsers have it). */
const { TextDecoder: Utf8Decoder } = globalThis as unknown as {
  readonly TextDecoder: new (label: "utf-8", options: { fatal: true }) => { decode(bytes: Uint8Array): string };
};

/**
 * A header value as the client meant it (streamable-http.mdx › Value Encoding): the
 * `=?base64?…?=` form of `Mcp-Name` and `Mcp-Param-{Name}` decoded as UTF-8, anything else literal.
 * Undefined for a value with characters a header may not carry, or a malformed encoded value: bad
 * padding, characters outside the alphabet, non-zero padding bits, or bytes that are not UTF-8.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  // RFC 9110 field values: visible ASCII, space and tab; anything else had to be sent in the Base64 form.
  if (!/^[\x20-\x7e\t]*$/.test(raw)) return undefined;
  const encoded = BASE64_SENTINEL.exec(raw)?.[1];
  if (encoded === undefined) return raw;
  if (!STRICT_BASE64.test(encoded)) return undefined;
  const digits = encoded.replace(/=+$/, "");
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of digits) {
    value = (value << 6) | BASE64_ALPHABET.indexOf(char);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((value >> bits) & 255);
    }
  }
  if ((value & ((1 << bits) - 1)) !== 0) return undefined;
  try {
    return new Utf8Decoder("utf-8", { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}
