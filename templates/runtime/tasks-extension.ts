/**
 * The Tasks extension's request rules, copied unchanged into every set whose schema declares tasks
 * as an extension capability (as `tasks-extension.ts`): the client declares the extension per
 * request in `_meta` client capabilities (-32021 without it), and over Streamable HTTP the routing
 * headers must agree with the body (-32020).
 */
import { isObject, ownValue } from "./runtime.js";
import { headerValue, JsonRpcError, type HeaderCheckOf, type RequestContext } from "./server-core.js";

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
  const name = headerValue(context.headers, "mcp-name");
  const taskId = isObject(params) ? ownValue(params, "taskId") : undefined;
  if (name === undefined) return { code: mismatch, message: "Missing Mcp-Name header (it must carry params.taskId)" };
  if (name !== taskId) return { code: mismatch, message: "Mcp-Name header does not match params.taskId" };
  return undefined;
};
