/**
 * Input handlers and the answers they give, on every path that asks the client for input: routing
 * an input request to its handler (`runInputHandler`), and checking the answer before it is sent,
 * as `tasks/update` carries it (`checkAnswer`), as a multi round-trip retry carries it
 * (`checkRoundTripAnswer`) and as the answer to a server's own request (`checkServerAnswer`). An
 * accepted form is judged by protocol/form-answers.ts on all three.
 */
import { isObject, ownValue, pointerToken, ValidationFailed, type JsonObject } from "../protocol/json.js";
import { answeredRequest, checkFormAnswer, type AnsweredRequest } from "../protocol/form-answers.js";
import { FORM_METHOD } from "../protocol/constants.js";
import { checkBody, clientError } from "./core.js";
import type {
  ClientInput,
  FormCheck,
  InputRequestContext,
  RoundTripProfile,
  ServerRequestsProfile,
} from "./profile.js";

/** The form's own check of accepted answers to `method`, for form-answers.ts (undefined: the schema checks the content). */
export function formJudge(
  forms: FormCheck | undefined,
  method: string,
): ((schema: unknown, content: unknown) => Error | undefined) | undefined {
  return forms?.method === method ? (schema, content) => forms.problem(schema, content) : undefined;
}

/** A `FormCheck` from the set's content validator and the error it raises (`validateElicitationContent`, `ElicitationContentInvalid`). */
export function formCheck<Invalid, Errors>(
  method: string,
  validate: (
    requestedSchema: unknown,
    content: unknown,
  ) =>
    | { readonly ok: true }
    | {
        readonly ok: false;
        readonly invalid: Invalid;
        readonly errors: Errors;
      },
  invalid: new (invalid: Invalid, errors: Errors) => Error,
): FormCheck {
  return {
    method,
    problem: (requestedSchema, content) => {
      const checked = validate(requestedSchema, content);
      return checked.ok ? undefined : new invalid(checked.invalid, checked.errors);
    },
  };
}

/** Handlers as the engine looks them up: by method. */
export type InputHandlerTable = {
  readonly [method: string]: ((params: unknown, context: InputRequestContext) => unknown) | undefined;
};

/** Runs the handler of an input request's method; undefined when there is none and the method has no default answer. */
export function runInputHandler(
  routing: ClientInput["routing"],
  handlers: InputHandlerTable,
  request: unknown,
  context: InputRequestContext,
): Promise<unknown> | undefined {
  const params = isObject(request) ? ownValue(request, "params") : undefined;
  const handler = handlers[context.method];
  if (!routing) {
    // Untyped: any method with a handler, given its params as an object.
    if (handler) return answerWith(() => handler(isObject(params) ? params : {}, context));
    return context.method === FORM_METHOD ? Promise.resolve({ action: "cancel" }) : undefined;
  }
  const route = Object.hasOwn(routing, context.method) ? routing[context.method] : undefined;
  if (!route) return undefined;
  // Snapshots are validated (unless `validateResults: false`), so the request is one the schema describes.
  if (handler) return answerWith(() => handler(route.params ? params : undefined, context));
  // Without a handler the user was never asked: the elicitation is cancelled.
  return route.cancelByDefault ? Promise.resolve({ action: "cancel" }) : undefined;
}

/** A handler's answer as a promise, a throw included. */
function answerWith<R>(handler: () => R): Promise<Awaited<R>> {
  return new Promise<Awaited<R>>((resolve) => resolve(handler() as Awaited<R>));
}

/**
 * The answer as `tasks/update` carries it, or why it cannot be sent: answers are results, so JSON
 * objects, and must pass the schema; an accepted form (of `request`, the input request answered)
 * is judged by form-answers.ts: its defaults filled in, its content checked by the form.
 */
export function checkAnswer<Answer>(
  input: ClientInput,
  taskId: string,
  key: string,
  answer: unknown,
  request: AnsweredRequest = { method: "" },
): { readonly ok: true; readonly value: Answer } | { readonly ok: false; readonly error: Error } {
  const { params } = input.update;
  if (!isObject(answer)) {
    const path = `/${input.responsesField}/${pointerToken(key)}`;
    return {
      ok: false,
      error: new ValidationFailed(params.type, [clientError(path, "type", "an answer must be an object")]),
    };
  }
  const checked = checkFormAnswer(request, answer, {
    envelope: (envelope) => {
      const valid = params.validate({
        taskId,
        [input.responsesField]: { [key]: envelope },
      });
      return valid.ok ? undefined : new ValidationFailed(params.type, valid.errors);
    },
    // An accepted form must fit the form it answers: the user sees the field errors, nothing is sent.
    form: formJudge(input.forms, request.method),
  });
  return checked.ok ? { ok: true, value: checked.value as Answer } : { ok: false, error: checked.problem };
}

/** The answer as the retry carries it, or why it cannot be sent: an object that passes the schema, an accepted form judged by form-answers.ts. */
export function checkRoundTripAnswer(
  profile: RoundTripProfile,
  forms: FormCheck | undefined,
  key: string,
  method: string,
  request: unknown,
  answer: unknown,
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: Error } {
  const { responses } = profile;
  if (!isObject(answer)) {
    return {
      ok: false,
      error: new ValidationFailed(responses.type, [
        clientError(`/${pointerToken(key)}`, "type", "an answer must be an object"),
      ]),
    };
  }
  const checked = checkFormAnswer({ ...answeredRequest(request), method }, answer, {
    envelope: (envelope) => {
      const valid = responses.validate({ [key]: envelope });
      return valid.ok ? undefined : new ValidationFailed(responses.type, valid.errors);
    },
    // An accepted form must fit the form it answers: the user sees the field errors, nothing is sent.
    form: formJudge(forms, method),
  });
  return checked.ok ? { ok: true, value: checked.value } : { ok: false, error: checked.problem };
}

/** The answer as it is sent, or why it cannot be: an accepted form judged by form-answers.ts (defaults, envelope, form). */
export function checkServerAnswer(
  profile: ServerRequestsProfile,
  method: string,
  params: JsonObject,
  answer: unknown,
): object | Error {
  if (!isObject(answer)) return new ValidationFailed(method, [clientError("", "type", "an answer must be an object")]);
  const check = profile.results && Object.hasOwn(profile.results, method) ? profile.results[method] : undefined;
  const checked = checkFormAnswer({ method, params }, answer, {
    envelope: (envelope) => {
      if (!check) return undefined;
      try {
        checkBody(check, envelope as JsonObject);
        return undefined;
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
    },
    form: formJudge(profile.forms, method),
  });
  return checked.ok ? (checked.value as JsonObject) : checked.problem;
}
