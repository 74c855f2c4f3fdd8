/**
 * Multi round-trip requests (mrtr.mdx): a request answers an InputRequiredResult, the client
 * answers its input requests and retries with the answers and the state. Here: reading that
 * result, the retry's params, and the errors of a round trip that cannot go on. The answers are
 * checked in input-answers.ts; the engine runs the rounds.
 */
import { isObject, ownValue, ValidationFailed, type JsonObject } from "../protocol/json.js";
import { InvalidResponseError, prefixed } from "./core.js";
import type { RoundTripProfile } from "./profile.js";

/** How many times a request may ask for input before the client gives up (a server may ask again, but not forever). */
export const DEFAULT_MAX_INPUT_ROUNDS = 16;

/** An input request of a request (not a task) could not be answered: no handler for its method, the handler threw, or its answer is invalid. */
export class InputRequestError extends Error {
  override readonly name = "InputRequestError";
  constructor(
    /** The request that asked (`tools/call`). */
    readonly method: string,
    /** The input request's key. */
    readonly key: string,
    /** The input request's method, when it has one. */
    readonly inputMethod: string | undefined,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(`${method}, input "${key}"${inputMethod ? ` (${inputMethod})` : ""}: ${message}`, options);
  }
}

/** A request kept asking for input after `maxInputRounds` answers. */
export class InputRoundsExceededError extends Error {
  override readonly name = "InputRoundsExceededError";
  constructor(
    readonly method: string,
    readonly maxInputRounds: number,
  ) {
    super(`${method}: still asks for input after ${maxInputRounds} rounds (maxInputRounds)`);
  }
}

/** The input requests and the state of an InputRequiredResult, checked: it must carry at least one of them. */
export function readInputRequired(
  profile: RoundTripProfile,
  method: string,
  result: JsonObject,
  validate: boolean,
): {
  readonly requests?: { readonly [key: string]: unknown };
  readonly state?: string;
} {
  const requests = ownValue(result, profile.requestsField);
  const state = ownValue(result, profile.stateField);
  if (state !== undefined && typeof state !== "string") {
    throw new InvalidResponseError(method, `${profile.stateField} is not a string`, result);
  }
  if (requests === undefined) {
    if (state === undefined) {
      throw new InvalidResponseError(
        method,
        `an ${profile.resultType} result carries neither ${profile.requestsField} nor ${profile.stateField}`,
        result,
      );
    }
    return { state };
  }
  if (!isObject(requests)) throw new InvalidResponseError(method, `${profile.requestsField} is not an object`, result);
  if (validate) {
    const checked = profile.requests.validate(requests);
    if (!checked.ok) {
      throw new ValidationFailed(profile.requests.type, prefixed(`/${profile.requestsField}`, checked.errors));
    }
  }
  return state === undefined ? { requests } : { requests, state };
}

/** The retry's params: the original ones, the answers, and the state exactly as it came (each only when there is one). */
export function retryParams(
  profile: RoundTripProfile,
  params: JsonObject,
  answers: JsonObject | undefined,
  state: string | undefined,
): JsonObject {
  const retry: JsonObject = { ...params };
  delete retry[profile.responsesField];
  delete retry[profile.stateField];
  if (answers !== undefined) retry[profile.responsesField] = answers;
  if (state !== undefined) retry[profile.stateField] = state;
  return retry;
}

/** Why the handlers of a round are told to stop once it is over. */
export function roundEnded(method: string, round: number): Error {
  const error = new Error(`round ${round} of ${method} ended`);
  error.name = "AbortError";
  return error;
}
