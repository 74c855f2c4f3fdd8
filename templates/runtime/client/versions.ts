/**
 * Which protocol revision the client speaks after the server refused one (-32022, "unsupported
 * protocol version"): the client's most preferred among those the server supports.
 */
import { isObject, ownValue } from "../protocol/json.js";
import { UNSUPPORTED_PROTOCOL_VERSION } from "../protocol/constants.js";
import { JsonRpcResponseError, type BodyCheck } from "./core.js";

/**
 * The revision to retry with after a -32022 "unsupported protocol version" answer: the client's
 * most preferred one among the server's `data.supported`; undefined for any other error, when
 * the two share none, or when the set's check of the error's `data` rejects it (the error then
 * reaches the caller as it came).
 */
export function retryVersion(
  error: unknown,
  supported: readonly string[],
  data?: BodyCheck<unknown>,
): string | undefined {
  if (!(error instanceof JsonRpcResponseError) || error.code !== UNSUPPORTED_PROTOCOL_VERSION) return undefined;
  if (data && !data.validate(error.data).ok) return undefined;
  const offered = isObject(error.data) ? ownValue(error.data, "supported") : undefined;
  if (!Array.isArray(offered)) return undefined;
  return supported.find((version) => offered.includes(version));
}
