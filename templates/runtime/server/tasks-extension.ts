/**
 * The Tasks extension's request rules, copied unchanged into every set whose schema declares tasks
 * as an extension capability (as `tasks-extension.ts`): the client declares the extension per
 * request in `_meta` client capabilities (-32021 without it), and over Streamable HTTP the routing
 * headers must agree with the body (-32020), `Mcp-Name` read in its plain or Base64 form
 * (protocol/header-values.ts). The codes and names are protocol/constants.ts's.
 */
import { isObject, ownValue } from "../protocol/json.js";
import { CLIENT_CAPABILITIES_META, TASKS_EXTENSION, TASKS_EXTENSION_ERROR_CODES } from "../protocol/constants.js";
import { decodeHeaderValue } from "../protocol/header-values.js";
import {
  headerValue,
  JsonRpcError,
  type HeaderCheckOf,
  type HeaderValue,
  type JsonRpcErrorObject,
  type RequestContext,
} from "./core.js";

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
