/**
 * Task status subscriptions (subscriptions.mdx): what a message on a listen stream is to its
 * subscription. The engine opens the streams; the method and `_meta` names are protocol/constants.ts's.
 */
import { isObject, ownValue, type JsonObject } from "../protocol/json.js";
import { SUBSCRIPTION_ACKNOWLEDGED, SUBSCRIPTION_ID_META } from "../protocol/constants.js";
import { checkBody, objectOr, type BodyCheck } from "./core.js";

/** The request that opens a notification stream (re-exported for the client's tests and callers). */
export { LISTEN_METHOD } from "../protocol/constants.js";

/** Listen streams a client keeps open at once, by default. */
export const DEFAULT_MAX_LISTEN_STREAMS = 4;

/**
 * What a message on a listen stream is to the subscription `id`: its acknowledgement (with the
 * agreed task ids), a notification of it, or not its own. An acknowledgement the set's
 * `acknowledgement` check rejects throws its ValidationFailed.
 */
export function listenMessage(
  message: unknown,
  id: string | number,
  acknowledgement?: BodyCheck<unknown>,
):
  | { readonly kind: "acknowledged"; readonly taskIds: readonly unknown[] }
  | { readonly kind: "notification" }
  | { readonly kind: "other" } {
  const params = isObject(message) ? ownValue(message, "params") : undefined;
  const meta = isObject(params) ? ownValue(params, "_meta") : undefined;
  // Every message of a subscription carries its id; anything else (another subscription's) is not this one's.
  if (
    !isObject(meta) ||
    ownValue(meta, SUBSCRIPTION_ID_META) !== id ||
    ownValue(message as JsonObject, "id") !== undefined
  )
    return { kind: "other" };
  if (ownValue(message as JsonObject, "method") !== SUBSCRIPTION_ACKNOWLEDGED) return { kind: "notification" };
  // The set's check of the acknowledgement's params (its filter), where it has one: throws ValidationFailed.
  if (acknowledgement) checkBody(acknowledgement, params as JsonObject);
  const taskIds = ownValue(objectOr(ownValue(params as JsonObject, "notifications")), "taskIds");
  return {
    kind: "acknowledged",
    taskIds: Array.isArray(taskIds) ? taskIds : [],
  };
}
