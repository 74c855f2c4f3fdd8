/**
 * The generated validators the stubs' engines check the flows' messages with (ARCHITECTURE.md ›
 * Stubs): taken from the set's core flows (core-flows.ts) by what each message is, never by a
 * definition's name, so a schema that names them otherwise still wires them. A check the set lacks
 * is absent, and the engine then reads that message structurally, as it does without core definitions.
 */
import type { CoreFlows } from "./core-flows.js";

/** A definition and its generated validator. */
export interface FlowCheck {
  readonly type: string;
  readonly validate: string;
}

export interface FlowChecks {
  /** The params of `subscriptions/listen` (the server checks them before it opens a stream). */
  readonly listenParams?: FlowCheck;
  /** The params of the listen stream's acknowledgement (the client checks them before it trusts the agreed task ids). */
  readonly listenAcknowledged?: FlowCheck;
  /** The whole InputRequiredResult of a multi round-trip request. */
  readonly inputRequired?: FlowCheck;
  /** One page of `tools/list`. */
  readonly toolsPage?: FlowCheck;
  /** The result of `server/discover`. */
  readonly discover?: FlowCheck;
  /** The `data` of a -32022 "unsupported protocol version" error (what a retry picks its version from). */
  readonly unsupportedVersion?: FlowCheck;
  /** The `data` of a -32021 "missing required client capability" error (the client gives up a listen stream for it). */
  readonly missingCapability?: FlowCheck;
}

/** JSON-RPC error codes of the stateless revisions (the Streamable HTTP transport's and the base protocol's). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

const check = (type: string): FlowCheck => ({ type, validate: `validate${type}` });

/** The checks a set's flows give (see the module comment). */
export function flowChecks(flows: CoreFlows): FlowChecks {
  const listenParams = flows.listen?.request.params;
  const acknowledgedParams = flows.listen?.acknowledged?.params;
  const toolsPage = flows.requests["tools/list"]?.result;
  const discover = flows.requests["server/discover"]?.result;
  const versionData = flows.errors.find((e) => e.code === UNSUPPORTED_PROTOCOL_VERSION)?.data;
  const capabilityData = flows.errors.find((e) => e.code === MISSING_REQUIRED_CLIENT_CAPABILITY)?.data;
  return {
    ...(listenParams ? { listenParams: check(listenParams) } : {}),
    ...(acknowledgedParams ? { listenAcknowledged: check(acknowledgedParams) } : {}),
    ...(flows.inputRequired ? { inputRequired: { type: flows.inputRequired.type, validate: flows.inputRequired.validate } } : {}),
    ...(toolsPage ? { toolsPage } : {}),
    ...(discover ? { discover } : {}),
    ...(versionData ? { unsupportedVersion: check(versionData) } : {}),
    ...(capabilityData ? { missingCapability: check(capabilityData) } : {}),
  };
}
