/**
 * What a client profile says about its tasks: what they tell a wait (task-wait.ts: terminal
 * statuses, poll interval, expiry, outcomes, how input requests are read, answered and checked),
 * which task a result created, and whether a created task already carries its outcome.
 */
import { isObject, ownValue, type JsonObject } from "../protocol/json.js";
import { answeredRequest } from "../protocol/form-answers.js";
import { JsonRpcResponseError, rpcErrorOf } from "./core.js";
import { checkAnswer, runInputHandler, type InputHandlerTable } from "./input-answers.js";
import type { ClientInput, ClientProfile, ClientTypes } from "./profile.js";
import type { InputProfile, TaskWaitProfile, WaitSnapshot } from "./task-wait.js";

/** What the profile's tasks tell a wait (see task-wait.ts). */
export function waitProfile<T extends ClientTypes>(
  profile: ClientProfile<T>,
): TaskWaitProfile<T["snapshot"], T["result"], T["payload"], T["answer"], T["handlers"]> {
  const { fields, errors, input } = profile;
  const read = (task: T["snapshot"], field: string) => ownValue(task as unknown as JsonObject, field);
  const completed = fields.completed;
  const failed = fields.failed;
  return {
    isTerminalStatus: (status) => profile.isTerminalStatus(status),
    pollInterval: (task) => {
      const interval = fields.pollInterval === undefined ? undefined : read(task, fields.pollInterval);
      return typeof interval === "number" ? interval : undefined;
    },
    expiry: (task) => expiryOf(read(task, fields.ttl), task),
    completed:
      completed === undefined
        ? (_task, payload) => payload() as Promise<unknown> as Promise<T["result"]>
        : (task) => read(task, completed) as T["result"],
    failed:
      failed === undefined
        ? // The failure itself is what `tasks/result` answers: the request's JSON-RPC error (or a result saying why).
          (task, payload) =>
            payload().then(
              (result) => new errors.failed(task, undefined, result),
              (error: unknown) =>
                new errors.failed(task, error instanceof JsonRpcResponseError ? error.toJSON() : undefined, undefined, {
                  cause: error,
                }),
            )
        : (task) => new errors.failed(task, rpcErrorOf(read(task, failed))),
    cancelled: (task) => new errors.cancelled(task),
    payloadDeliversInput: profile.payloadDeliversInput,
    ...(input ? { input: inputProfile<T>(input) } : {}),
  };
}

/** When the task's retention ends: `createdAt` + its TTL (undefined when unlimited or unreadable). */
function expiryOf(ttl: unknown, task: WaitSnapshot & { readonly createdAt?: unknown }): number | undefined {
  const createdAt = typeof task.createdAt === "string" ? Date.parse(task.createdAt) : Number.NaN;
  return typeof ttl === "number" && !Number.isNaN(createdAt) ? createdAt + ttl : undefined;
}

/** How a wait answers input requests. */
function inputProfile<T extends ClientTypes>(
  input: ClientInput,
): InputProfile<T["snapshot"], T["answer"], T["handlers"]> {
  return {
    requests: (task) =>
      ownValue(task as unknown as JsonObject, input.requestsField) as {
        readonly [key: string]: unknown;
      },
    run: (handlers, request, context) =>
      runInputHandler(input.routing, handlers as InputHandlerTable, request, context),
    check: (taskId, key, method, request, answer) =>
      checkAnswer<T["answer"]>(input, taskId, key, answer, {
        ...answeredRequest(request),
        method,
      }),
  };
}

/** The id of the task a result created, if it created one. */
export function createdTaskId<T extends ClientTypes>(
  profile: ClientProfile<T>,
  result: JsonObject,
): string | undefined {
  if (profile.created.flat && profile.resultTag !== "none" && ownValue(result, "resultType") !== "task")
    return undefined;
  const task = profile.created.flat ? result : ownValue(result, "task");
  const taskId = isObject(task) ? ownValue(task, "taskId") : undefined;
  return typeof taskId === "string" ? taskId : undefined;
}

/** Whether a created task carries what its status inlines in `tasks/get`. */
export function inlinesOutcome(
  inlined: readonly { readonly status: string; readonly field: string }[],
  body: JsonObject,
): boolean {
  const status = ownValue(body, "status");
  return inlined.some((entry) => status === entry.status && Object.hasOwn(body, entry.field));
}
