/**
 * The Streamable HTTP transport's request headers as the client writes them: `Mcp-Method` and
 * `Mcp-Name` (routing), `Mcp-Param-{Name}` (a tool's annotated arguments), each value plain or
 * `=?base64?…?=` by one rule (`encodeHeaderValue`, with protocol/base64.ts's codec).
 */
import { isObject, ownValue, pointerToken, ValidationFailed, type JsonObject } from "../protocol/json.js";
import { base64 } from "../protocol/base64.js";
import { clientError, type TasksClientHeaders } from "./core.js";
import type { HeaderAnnotation } from "./tool-catalog.js";

/** The params field `Mcp-Name` mirrors, by method (the Streamable HTTP transport's standard request headers). */
const NAME_SOURCES: { readonly [method: string]: string } = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/**
 * Streamable HTTP routing headers: `Mcp-Method`, and `Mcp-Name` for what the request is about
 * (the task for the extension's task methods; the tool, prompt or resource), encoded where unsafe.
 */
export function routingHeaders(taskMethods: readonly string[], method: string, params: JsonObject): TasksClientHeaders {
  const source = taskMethods.includes(method)
    ? "taskId"
    : Object.hasOwn(NAME_SOURCES, method)
      ? NAME_SOURCES[method]
      : undefined;
  const name = source === undefined ? undefined : ownValue(params, source);
  return typeof name === "string"
    ? { "Mcp-Method": method, "Mcp-Name": encodeHeaderValue(name) }
    : { "Mcp-Method": method };
}

/**
 * `Mcp-Param-{Name}` headers of a tool call (the Streamable HTTP transport's custom headers): each
 * annotated argument, read at its exact property path, as a string (integers in decimal, booleans
 * `true`/`false`) encoded by `encodeHeaderValue`; an absent or null argument has no header. An
 * argument of another kind cannot be mirrored, so the call is not sent.
 */
export function paramHeaders(
  annotations: readonly HeaderAnnotation[],
  args: JsonObject | undefined,
): TasksClientHeaders {
  const headers: { [name: string]: string } = {};
  for (const { header, path } of annotations) {
    let value: unknown = args;
    for (const key of path) value = isObject(value) ? ownValue(value, key) : undefined;
    if (value === undefined || value === null) continue;
    let text: string;
    if (typeof value === "string") text = value;
    else if (typeof value === "boolean") text = value ? "true" : "false";
    else if (typeof value === "number" && Number.isSafeInteger(value)) text = String(value);
    else {
      const pointer = `/arguments/${path.map(pointerToken).join("/")}`;
      throw new ValidationFailed("CallToolRequestParams", [
        clientError(pointer, "x-mcp-header", `Mcp-Param-${header} takes a string, a safe integer or a boolean`),
      ]);
    }
    headers[`Mcp-Param-${header}`] = encodeHeaderValue(text);
  }
  return headers;
}

/**
 * A header value as the Streamable HTTP transport carries it: as it is when it is plain visible
 * ASCII or space without leading or trailing space; otherwise (non-ASCII, control characters,
 * edge whitespace, or a value that itself looks like the sentinel) `=?base64?{UTF-8 in Base64}?=`.
 * The same rule serves `Mcp-Name` and `Mcp-Param-{Name}`.
 */
export function encodeHeaderValue(value: string): string {
  const plain =
    /^[\x20-\x7e]*$/.test(value) &&
    !value.startsWith(" ") &&
    !value.endsWith(" ") &&
    !(value.startsWith("=?base64?") && value.endsWith("?="));
  return plain ? value : `=?base64?${base64(utf8(value))}?=`;
}

/** UTF-8 bytes of a string; a lone surrogate becomes U+FFFD, as TextEncoder writes it. */
function utf8(text: string): number[] {
  const bytes: number[] = [];
  for (const char of text) {
    let code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else {
      bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    }
  }
  return bytes;
}
