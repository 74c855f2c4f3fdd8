/**
 * Task status subscriptions (`subscriptions/listen`, SEP-2663 § Task Status Notifications): the
 * method and meta names, the sink a transport gives, and the reading of a listen request's filter.
 */
export {
  LISTEN_METHOD,
  RELATED_TASK_META,
  SUBSCRIPTION_ACKNOWLEDGED,
  SUBSCRIPTION_ID_META,
} from "../protocol/constants.js";
import { isObject, ownValue, type JsonObject } from "../protocol/json.js";
import { JSON_RPC_ERROR_CODES, JsonRpcError, type JsonRpcResponse } from "./json-rpc.js";
import { LIMIT_ERROR_CODES, ServerLimitError } from "./store.js";

/** Open listen streams one owner may hold on one server instance, by default (`maxListenStreamsPerOwner`). */
export const DEFAULT_MAX_LISTEN_STREAMS_PER_OWNER = 10;

/** How long the server keeps a listen stream open before ending it gracefully, by default (`maxListenDuration`, ms). */
export const DEFAULT_MAX_LISTEN_DURATION = 5 * 60 * 1000;

/** The answer to a listen request of an owner that holds its maximum of open streams on this server (-32013). */
export class ListenLimitError extends ServerLimitError {
  override readonly name: string = "ListenLimitError";
  constructor(max: number) {
    super(
      LIMIT_ERROR_CODES.OwnerListenLimit,
      `Too many open subscriptions/listen streams: this owner holds its maximum of ${max} on this server (maxListenStreamsPerOwner)`,
      "maxListenStreamsPerOwner",
      max,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Task status subscriptions (`subscriptions/listen`, SEP-2663 § Task Status Notifications)

/** Where a subscription's messages go: the response stream of its `subscriptions/listen` request. */
export interface ListenSink {
  /** Writes one JSON-RPC message on the stream. */
  send(message: JsonObject): void;
  /** Closes the stream (after the graceful result, when the server ends the subscription). */
  end(): void;
}

/**
 * How `listen` answered: at once (an error, or a request that is not a listen request), or with
 * an open stream. `end` ends it gracefully: the result to the listen request, then the end of the
 * stream (a transport limit, shutdown); a client that goes away ends it silently.
 */
export type ListenOutcome =
  { readonly kind: "answered"; readonly response: JsonRpcResponse } | { readonly kind: "streaming"; end(): void };

/** The task ids a listen request asks about (undefined: none asked); a malformed filter is -32602. */
export function listenTaskIds(params: JsonObject | undefined): readonly string[] | undefined {
  const notifications = params === undefined ? undefined : ownValue(params, "notifications");
  if (!isObject(notifications)) {
    throw new JsonRpcError(JSON_RPC_ERROR_CODES.InvalidParams, "Invalid params: notifications must be an object");
  }
  const taskIds = ownValue(notifications, "taskIds");
  if (taskIds === undefined) return undefined;
  if (!Array.isArray(taskIds) || !taskIds.every((id) => typeof id === "string")) {
    throw new JsonRpcError(
      JSON_RPC_ERROR_CODES.InvalidParams,
      "Invalid params: notifications.taskIds must be an array of strings",
    );
  }
  return taskIds;
}
