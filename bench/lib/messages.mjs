// Inputs of `npm run bench` (bench/validators.mjs) for GetTaskResult of the ext-tasks draft, and
// the hand-written reference check.
//
// Every message goes through JSON.parse, so its objects have the shapes (hidden classes) a
// validator sees on the wire, not the ones an object literal would give.

const base = {
  taskId: "786512e2-9e0d-44bd-8f29-789f320fe840",
  createdAt: "2025-11-25T10:30:00Z",
  lastUpdatedAt: "2025-11-25T10:40:00Z",
  ttlMs: 60000,
};

// The seed's GetTaskResult is allOf [Result (with `_meta`), DetailedTask (additionalProperties:
// false)], so a conforming validator rejects `_meta`: no valid message carries it.
const valid = {
  working: { ...base, status: "working", statusMessage: "The operation is in progress.", pollIntervalMs: 5000 },
  input_required: {
    ...base,
    status: "input_required",
    statusMessage: "Waiting for confirmation.",
    inputRequests: {
      "confirm-delete": {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Delete 3 files?",
          requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
        },
      },
    },
  },
  completed: {
    ...base,
    status: "completed",
    ttlMs: null,
    result: { content: [{ type: "text", text: "Current weather in New York: 72°F, partly cloudy" }], isError: false },
  },
  failed: {
    ...base,
    status: "failed",
    statusMessage: "The tool raised a JSON-RPC error.",
    error: { code: -32603, message: "Internal error: upstream service unavailable" },
  },
  cancelled: { ...base, status: "cancelled", statusMessage: "The task was cancelled by request.", pollIntervalMs: 5000 },
};

const { result: _dropped, ...completedWithoutResult } = valid.completed;

/** Typical mistakes a peer makes; each is one change to an otherwise valid message. */
const invalid = {
  "status not a TaskStatus": { ...valid.working, status: "done" },
  "completed without result": completedWithoutResult,
  "ttlMs as a string": { ...valid.cancelled, ttlMs: "60000" },
  "extra property (resultType)": { ...valid.failed, resultType: "complete" },
  "not an object (null)": null,
};

const fromWire = (value) => JSON.parse(JSON.stringify(value));
const labelled = (group, valid) => Object.entries(group).map(([label, value]) => ({ label, value: fromWire(value), valid }));

/** `{ label, value, valid }` per input, grouped as the tables report them. */
export const inputs = {
  valid: labelled(valid, true),
  invalid: labelled(invalid, false),
};

const isPlainObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * GetTaskResult checked the way someone would write it by hand from the schema: an object, the
 * common fields with their types (required ones present, optional ones when present), a status
 * switch for the property each status adds, and no keys besides the ones the status allows.
 * (`inputRequests` values are unconstrained in the seed, and `propertyNames: {type: string}`
 * always holds for JSON, so neither needs more.)
 */
export function handIsGetTaskResult(v) {
  if (!isPlainObject(v)) return false;
  if (typeof v.taskId !== "string" || typeof v.createdAt !== "string" || typeof v.lastUpdatedAt !== "string") return false;
  if (v.ttlMs !== null && typeof v.ttlMs !== "number") return false; // required: undefined fails both
  if (v.statusMessage !== undefined && typeof v.statusMessage !== "string") return false;
  if (v.pollIntervalMs !== undefined && typeof v.pollIntervalMs !== "number") return false;
  let extra = ""; // the required property the status adds, if any
  switch (v.status) {
    case "working":
    case "cancelled":
      break;
    case "input_required":
      if (!isPlainObject(v.inputRequests)) return false;
      extra = "inputRequests";
      break;
    case "completed":
      if (!isPlainObject(v.result)) return false;
      extra = "result";
      break;
    case "failed":
      if (!isPlainObject(v.error)) return false;
      extra = "error";
      break;
    default:
      return false;
  }
  for (const key in v) {
    switch (key) {
      case "taskId":
      case "status":
      case "statusMessage":
      case "createdAt":
      case "lastUpdatedAt":
      case "ttlMs":
      case "pollIntervalMs":
        break;
      default:
        if (key !== extra) return false;
    }
  }
  return true;
}

// The 2026-08-21 revision (`ext-tasks-draft`): every result carries `resultType` and may carry more
// (its objects are open), times are integers, and a task's input requests are typed requests.
const draftValid = Object.fromEntries(Object.entries(valid).map(([status, message]) => [status, { resultType: "complete", ...message }]));
const { result: _draftDropped, ...draftCompletedWithoutResult } = draftValid.completed;

/** The same mistakes, in the newest revision's terms (an extra property is allowed there; a fractional `ttlMs` is not). */
const draftInvalid = {
  "status not a TaskStatus": { ...draftValid.working, status: "done" },
  "completed without result": draftCompletedWithoutResult,
  "ttlMs as a string": { ...draftValid.cancelled, ttlMs: "60000" },
  "ttlMs not an integer": { ...draftValid.failed, ttlMs: 1.5 },
  "not an object (null)": null,
};

/** Inputs of GetTaskResult per benched set, `{ label, value, valid }` as `inputs` above. */
export const inputsBySet = {
  "ext-tasks-2026-05-22": inputs,
  "ext-tasks-draft": { valid: labelled(draftValid, true), invalid: labelled(draftInvalid, false) },
};
