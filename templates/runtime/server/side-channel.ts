/**
 * Input on tasks/result (2025-11-25): the requests a task sends the client on `tasks/result` and the
 * answers it keeps, as types and pure helpers; `engine.ts` runs them.
 */
import { checkFormAnswer, locatedFormCheck, type FormContentCheck } from "../protocol/form-answers.js";
import { isObject, ownValue, type JsonObject, type ValidationResult } from "../protocol/json.js";
import { JSON_RPC_ERROR_CODES, JsonRpcError, type JsonRpcErrorObject } from "./json-rpc.js";
import { RELATED_TASK_META } from "./listen.js";
import { type InputTask, type ServerProfile, type StoredInputOf } from "./profile.js";

// ---------------------------------------------------------------------------------------------
// Input on tasks/result (2025-11-25)
//
// A task of this revision asks for input by sending requests of its own (an elicitation, a
// sampling request) tied to the task with the related-task `_meta`; it shows `input_required`
// meanwhile. The client reads them on `tasks/result`, which it calls on seeing `input_required`:
// the server sends each pending request through the transport's `sendRequest` (on that call's
// response stream), and the client's answer resolves `requireInput`. Pending requests and answers
// are kept in the task record (the input part the newer revisions use), so a `tasks/result` served
// by another process sharing a durable store delivers them too, and a handle resumed after a
// restart reads an answer with `input(key)`.

/** A validator of the set (`validateElicitResult`, ...), or `anyObject` where the set lacks the type. */
export type ObjectValidator<T> = (value: unknown) => ValidationResult<T>;

/** The requests tasks may send on `tasks/result`, by method: validators of their params and of the answers. */
export interface SideChannelProfile {
  readonly methods: {
    readonly [method: string]: {
      readonly params: ObjectValidator<object>;
      readonly result: ObjectValidator<object>;
    };
  };
}

/** Accepts any JSON object: the validator of a request or answer whose type the set does not define. */
export function anyObject(value: unknown): ValidationResult<JsonObject> {
  return isObject(value)
    ? { ok: true, value }
    : {
        ok: false,
        errors: [
          {
            path: "",
            keyword: "type",
            message: "must be an object",
            schemaPath: "",
          },
        ],
      };
}

/** What a validator accepts. */
type Validated<V> = V extends ObjectValidator<infer T> ? T : never;

/** The side-channel methods of a profile: each method's params and result, from its validators. */
export type SideChannelMethodsOf<Profile extends ServerProfile> = Profile extends {
  readonly sideChannel: { readonly methods: infer M };
}
  ? {
      [K in keyof M & string]: M[K] extends {
        readonly params: infer P;
        readonly result: infer R;
      }
        ? { params: Validated<P>; result: Validated<R> }
        : never;
    }
  : never;

/** A request a task sends its client, typed by method. */
export type SideChannelRequestOf<Methods, M extends keyof Methods> = Methods[M] extends { readonly params: infer P }
  ? { readonly method: M; readonly params: P }
  : never;

/** What a handle adds where tasks ask for input on `tasks/result`. */
export interface SideChannelHandleOf<
  Methods extends {
    readonly [method: string]: { params: object; result: object };
  },
> {
  /**
   * Asks the client for input: the task shows `input_required`, the request goes to the client on
   * its next `tasks/result` (with the related-task `_meta`), and its answer, checked against the
   * method's result type, is returned. A JSON-RPC error answer rejects with JsonRpcError. Keys are
   * unique for the task's lifetime (reusing one throws); several requests may be pending at once.
   */
  requireInput<M extends keyof Methods & string>(
    key: string,
    request: SideChannelRequestOf<Methods, M>,
  ): Promise<Methods[M]["result"]>;
  /** The answer to an input request made earlier (also by a previous process, with a durable store). */
  input(key: string): Promise<Methods[keyof Methods]["result"]>;
}

/** The input part of a stored task where tasks ask for input on `tasks/result`: the requests as sent, the answers as received. */
export interface StoredSideChannelInput
  extends
    StoredInputOf<
      {
        readonly [key: string]: {
          readonly method: string;
          readonly params: object;
        };
      },
      { readonly [key: string]: object }
    >,
    StoredInputErrorsOf {}

/** The stored part of a side-channel input request that the client answered with an error. */
export interface StoredInputErrorsOf {
  /** JSON-RPC errors the client answered, by key (an answer is either here or in `inputResponses`). */
  readonly inputErrors?: { readonly [key: string]: JsonRpcErrorObject };
}

/** The answer to record for a delivered request: the client's result, or its error. */
export type SideChannelOutcome =
  { readonly ok: true; readonly result: JsonObject } | { readonly ok: false; readonly error: JsonRpcErrorObject };

/** The record after the answer to `key` arrived: it leaves the pending requests; the task works again once none is left. */
export function withSideChannelAnswer<Task extends InputTask & StoredInputErrorsOf>(
  task: Task,
  key: string,
  outcome: SideChannelOutcome,
): Task | undefined {
  if (!Object.hasOwn(task.inputRequests, key)) return undefined;
  const pending = Object.fromEntries(Object.entries(task.inputRequests).filter(([k]) => k !== key));
  const stillWaiting = Object.keys(pending).length > 0;
  return {
    ...task,
    status: stillWaiting || task.status !== "input_required" ? task.status : "working",
    inputRequests: pending,
    ...(outcome.ok
      ? { inputResponses: { ...task.inputResponses, [key]: outcome.result } }
      : { inputErrors: { ...task.inputErrors, [key]: outcome.error } }),
  };
}

/** The request as the client receives it: its params tied to the task with the related-task `_meta`. */
export function sideChannelRequest(taskId: string, request: unknown): { method: string; params: JsonObject } {
  const method = isObject(request) ? ownValue(request, "method") : undefined;
  const params = isObject(request) ? ownValue(request, "params") : undefined;
  if (typeof method !== "string" || !isObject(params))
    throw new Error("corrupt task record: an input request without method or params");
  const meta = ownValue(params, "_meta");
  return {
    method,
    params: {
      ...params,
      _meta: {
        ...(isObject(meta) ? meta : {}),
        [RELATED_TASK_META]: { taskId },
      },
    },
  };
}

/**
 * What the client answered to a request with these `params`, checked against the method's result
 * validator (an accepted form judged by form-answers.ts with `forms`, the set's form check): an
 * invalid answer is recorded as -32602.
 */
export function sideChannelOutcome(
  profile: SideChannelProfile,
  method: string,
  answer: unknown,
  params?: unknown,
  forms?: FormContentCheck,
): SideChannelOutcome {
  const validate = Object.hasOwn(profile.methods, method) ? profile.methods[method]!.result : anyObject;
  const checked = checkFormAnswer({ method, params }, answer, {
    envelope: (envelope) => {
      const valid = validate(envelope);
      return valid.ok ? undefined : valid.errors;
    },
    form: locatedFormCheck(forms, "/content"),
  });
  if (checked.ok) return { ok: true, result: checked.value as JsonObject };
  // One line, however many errors the answer has: the first five and how many more.
  const more = checked.problem.length - 5;
  const detail =
    checked.problem
      .slice(0, 5)
      .map((e) => `${e.path || "/"}: ${e.message}`)
      .join("; ") + (more > 0 ? `; and ${more} more` : "");
  return {
    ok: false,
    error: {
      code: JSON_RPC_ERROR_CODES.InvalidParams,
      message: `${method}: invalid answer from the client (${detail})`,
    },
  };
}

/**
 * The outcome of a request the client could not answer: its JSON-RPC error answer; undefined for
 * a transport failure (the client went away), after which the request stays pending and the next
 * `tasks/result` delivers it again.
 */
export function sideChannelFailure(error: unknown): SideChannelOutcome | undefined {
  return error instanceof JsonRpcError ? { ok: false, error: error.toJSON() } : undefined;
}
