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
  /** What `tools/call` completes with (`CallToolResult`): `callTool`'s result, at once or as its task's result. */
  readonly toolResult?: FlowCheck;
  /** The result of `server/discover`. */
  readonly discover?: FlowCheck;
  /** The `data` of a -32022 "unsupported protocol version" error (what a retry picks its version from). */
  readonly unsupportedVersion?: FlowCheck;
  /** The `data` of a -32021 "missing required client capability" error (the client gives up a listen stream for it). */
  readonly missingCapability?: FlowCheck;
}

/**
 * JSON-RPC error codes of the stateless revisions (the Streamable HTTP transport's and the base protocol's): the
 * runtime's protocol/constants.ts holds them too (the generator does not import the runtime it copies;
 * test/runtime/client/client-headers-versions.test.ts holds the two equal).
 */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

const check = (type: string): FlowCheck => ({ type, validate: `validate${type}` });

/** The checks a set's flows give (see the module comment). */
export function flowChecks(flows: CoreFlows): FlowChecks {
  const listenParams = flows.listen?.request.params;
  const acknowledgedParams = flows.listen?.acknowledged?.params;
  const toolsPage = flows.requests["tools/list"]?.result;
  const toolResult = flows.requests["tools/call"]?.result;
  const discover = flows.requests["server/discover"]?.result;
  const versionData = flows.errors.find((e) => e.code === UNSUPPORTED_PROTOCOL_VERSION)?.data;
  const capabilityData = flows.errors.find((e) => e.code === MISSING_REQUIRED_CLIENT_CAPABILITY)?.data;
  return {
    ...(listenParams ? { listenParams: check(listenParams) } : {}),
    ...(acknowledgedParams ? { listenAcknowledged: check(acknowledgedParams) } : {}),
    ...(flows.inputRequired ? { inputRequired: { type: flows.inputRequired.type, validate: flows.inputRequired.validate } } : {}),
    ...(toolsPage ? { toolsPage } : {}),
    ...(toolResult ? { toolResult } : {}),
    ...(discover ? { discover } : {}),
    ...(versionData ? { unsupportedVersion: check(versionData) } : {}),
    ...(capabilityData ? { missingCapability: check(capabilityData) } : {}),
  };
}

/**
 * What a flow check reads, in words, for the note below. A `tools/call` result without its check is
 * handed back as it came (nothing of it is read), so the note has nothing to say about it.
 */
const FLOW_CHECK_WORDS: Readonly<Record<Exclude<keyof FlowChecks, "toolResult">, string>> = {
  listenParams: "subscriptions/listen params",
  listenAcknowledged: "the listen acknowledgement",
  inputRequired: "InputRequiredResult (multi round-trip)",
  toolsPage: "tools/list pages",
  discover: "server/discover results",
  unsupportedVersion: "-32022 error data",
  missingCapability: "-32021 error data",
};

/**
 * The note for a Tasks set without a `core` schema whose flows would check messages with core definitions
 * (following an upstream revision by naming its schema under `schemas` used to drop the
 * bundled set's core without a word): which messages the stubs then read structurally. The
 * stateless extension revisions (results tagged with `resultType` in the schema) use every flow
 * check; 2025-11-25 only the tools/list pages; the 2026-05-22 extension revision none.
 */
export function structuralFlowChecks(flows: CoreFlows, extension: boolean, stateless: boolean): string | undefined {
  const checks = flowChecks(flows);
  const used: readonly (keyof typeof FLOW_CHECK_WORDS)[] = !extension ? ["toolsPage"] : stateless ? (Object.keys(FLOW_CHECK_WORDS) as (keyof typeof FLOW_CHECK_WORDS)[]) : [];
  const absent = used.filter((key) => checks[key] === undefined);
  if (absent.length === 0) return undefined;
  return (
    `has no "core" schema, so the stubs check ${absent.map((k) => FLOW_CHECK_WORDS[k]).join(", ")} structurally (no generated validator); ` +
    `name the revision's core MCP schema under "core" (as the bundled sets do) to generate and use them`
  );
}
