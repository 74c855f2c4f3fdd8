/**
 * The Streamable HTTP transport's request headers as the client writes them: `Mcp-Method` and
 * `Mcp-Name` (routing), `Mcp-Param-{Name}` (a tool's annotated arguments), each value plain or
 * `=?base64?…?=` by one rule (`encodeHeaderValue`, protocol/header-values.ts).
 */
import { isObject, ownValue, pointerToken, ValidationFailed, type JsonObject } from "../protocol/json.js";
import { encodeHeaderValue } from "../protocol/header-values.js";
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
