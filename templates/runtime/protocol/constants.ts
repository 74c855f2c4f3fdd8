/**
 * The protocol's fixed facts that client and server both speak: method names, `_meta` keys and error
 * codes that no schema decides (the schema-derived ones reach the engines through their profiles).
 * Each fact is written here once; every static module imports it from here.
 */

/** JSON-RPC's own error codes; a set's `ErrorCode` adds the ones its revision defines. */
export const JSON_RPC_ERROR_CODES = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** The error codes the Tasks extension and the stateless revision add to JSON-RPC's. */
export const TASKS_EXTENSION_ERROR_CODES = {
  /** A Streamable HTTP routing header disagrees with the body (or is missing). */
  HeaderMismatch: -32020,
  /** The request needs a client capability it did not declare. */
  MissingRequiredClientCapability: -32021,
} as const;

/** -32022: the server speaks none of the protocol versions the request declares (its `data` lists the supported ones). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** The first revision whose requests declare themselves in `_meta` (the stateless one, without the initialize handshake; revisions are dates, so they compare as strings). */
export const STATELESS_PROTOCOL_VERSION = "2026-07-28";

/** The extension identifier clients declare in `_meta` client capabilities to use tasks. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** `_meta` keys of the stateless revision and the Tasks extension. */
export const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";
export const CLIENT_INFO_META = "io.modelcontextprotocol/clientInfo";
export const CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities";
export const SERVER_INFO_META = "io.modelcontextprotocol/serverInfo";
export const SUBSCRIPTION_ID_META = "io.modelcontextprotocol/subscriptionId";
export const RELATED_TASK_META = "io.modelcontextprotocol/related-task";

/** Task status subscriptions (SEP-2663 § Task Status Notifications). */
export const LISTEN_METHOD = "subscriptions/listen";
export const SUBSCRIPTION_ACKNOWLEDGED = "notifications/subscriptions/acknowledged";

/** Discovery of a stateless server's capabilities. */
export const DISCOVER_METHOD = "server/discover";

/** The request a form elicitation is sent as. */
export const FORM_METHOD = "elicitation/create";
