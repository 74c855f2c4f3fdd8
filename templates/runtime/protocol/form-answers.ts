/**
 * The one rule for an answer that accepts an elicitation form, copied into every set that has a
 * client or a server (as `form-answers.ts`). Every path that receives such an answer judges it
 * here, on both sides: the client before it sends a task's input (`tasks/update`), a multi
 * round-trip retry's `inputResponses`, or its answer to the server's own request (2025-11-25); the
 * server when `tasks/update`, a retry (request-state.ts) or `tasks/result`'s side channel brings it.
 *
 * 1. The form's defaults fill the fields the answer leaves out (SEP-1034: a field's `default` is
 *    what the user accepted when they did not change it); the answer's own values win.
 * 2. The envelope (`action`, `_meta`, ...) is checked by the schema's validator WITHOUT the content
 *    when the form judges the content: the core schemas type ElicitResult's content numbers as
 *    integers while their forms ask for any number (NumberSchema), so 95.5 for a `number` field is
 *    right by the form and wrong by the envelope's type.
 * 3. The content is checked by the form's own check (the set's `validateElicitationContent`),
 *    whose errors name the field.
 *
 * An answer that accepts no form (declined, cancelled, URL mode, another method) is the schema's
 * alone. The checks come in as functions, so this module imports nothing generated.
 */
import { isObject, ownValue, type JsonObject, type ValidationError } from "./json.js";
import { FORM_METHOD } from "./constants.js";

/** The input request an answer answers: its method and params. */
export interface AnsweredRequest {
  readonly method: string;
  readonly params?: unknown;
}

/** An input request (`{ method, params }`, as asked or as stored) as its answer is judged; anything else has no method. */
export function answeredRequest(request: unknown): AnsweredRequest {
  const method = isObject(request) ? ownValue(request, "method") : undefined;
  return {
    method: typeof method === "string" ? method : "",
    params: isObject(request) ? ownValue(request, "params") : undefined,
  };
}

/** How a path judges an answer; `Problem` is whatever that path reports (an Error, a list of errors). */
export interface FormAnswerChecks<Problem> {
  /** The schema's check of the answer: sees an accepted form's answer without its content when `form` judges that. */
  readonly envelope: (answer: unknown) => Problem | undefined;
  /** The form's own check of an accepted content; absent: the content is the schema's to check, with the envelope. */
  readonly form?: ((requestedSchema: unknown, content: unknown) => Problem | undefined) | undefined;
}

export type FormAnswerResult<Problem> =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: Problem };

/**
 * The answer as it is sent or kept (an accepted form with its defaults filled in), or the first
 * problem: the envelope's, else the form's. An answer that is no object is the envelope check's.
 */
export function checkFormAnswer<Problem>(
  request: AnsweredRequest,
  answer: unknown,
  checks: FormAnswerChecks<Problem>,
): FormAnswerResult<Problem> {
  if (!isObject(answer)) {
    const problem = checks.envelope(answer);
    return problem === undefined ? { ok: true, value: answer } : { ok: false, problem };
  }
  const form = acceptedForm(request, answer);
  const filled = form === undefined ? answer : withFormDefaults(request.params as JsonObject, answer);
  const judgedByForm = form !== undefined && checks.form !== undefined;
  const envelope = checks.envelope(judgedByForm ? withoutContent(filled) : filled);
  if (envelope !== undefined) return { ok: false, problem: envelope };
  if (judgedByForm) {
    const problem = checks.form!(form, ownValue(filled, "content") ?? {});
    if (problem !== undefined) return { ok: false, problem };
  }
  return { ok: true, value: filled };
}

/** The form an answer fills in: the `requestedSchema` of a form-mode elicitation that the answer accepts; undefined otherwise. */
export function acceptedForm(request: AnsweredRequest, answer: JsonObject): unknown {
  if (request.method !== FORM_METHOD || !isObject(request.params)) return undefined;
  if (ownValue(answer, "action") !== "accept" || ownValue(request.params, "mode") === "url") return undefined;
  return ownValue(request.params, "requestedSchema");
}

/**
 * An accepting answer with the form's defaults for the fields it leaves out (SEP-1034: a field's
 * `default` is what the user accepted when they did not change it). The answer's values win.
 */
export function withFormDefaults(params: JsonObject, answer: JsonObject): JsonObject {
  const content = ownValue(answer, "content");
  // Content that is no object is left for the checks to refuse, not replaced by the defaults.
  if (ownValue(answer, "action") !== "accept" || (content !== undefined && !isObject(content))) return answer;
  const schema = ownValue(params, "requestedSchema");
  const properties = isObject(schema) ? ownValue(schema, "properties") : undefined;
  if (!isObject(properties)) return answer;
  const defaults: JsonObject = {};
  for (const [name, field] of Object.entries(properties)) {
    const value = isObject(field) ? ownValue(field, "default") : undefined;
    if (isFieldValue(value)) defaults[name] = Array.isArray(value) ? [...value] : value;
  }
  if (Object.keys(defaults).length === 0) return answer;
  return { ...answer, content: { ...defaults, ...(content as JsonObject | undefined) } };
}

/** An answer without its form content (whose own check is the form's). */
export function withoutContent(answer: JsonObject): JsonObject {
  if (!Object.hasOwn(answer, "content")) return answer;
  const { content: _content, ...rest } = answer;
  return rest;
}

/** A value a form field can hold (text, a number, yes/no, the options of a multi-select). */
function isFieldValue(value: unknown): value is string | number | boolean | string[] {
  return (
    typeof value === "string" ||
    typeof value === "number" ||
    typeof value === "boolean" ||
    (Array.isArray(value) && value.every((v) => typeof v === "string"))
  );
}

/** The set's check of a form's content (`validateElicitationContent` of its elicitation.ts), its errors located in the content (`/score`). */
export type FormContentCheck = (
  requestedSchema: unknown,
  content: unknown,
) => { readonly ok: boolean; readonly errors?: readonly ValidationError[] };

/** A form check for `checkFormAnswer` whose errors are located under `at`, the content's place in what the validator sees. */
export function locatedFormCheck(
  check: FormContentCheck | undefined,
  at: string,
): ((requestedSchema: unknown, content: unknown) => readonly ValidationError[] | undefined) | undefined {
  if (!check) return undefined;
  return (requestedSchema, content) => {
    const checked = check(requestedSchema, content);
    return checked.ok ? undefined : (checked.errors ?? []).map((e) => ({ ...e, path: at + e.path }));
  };
}
