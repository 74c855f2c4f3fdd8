/**
 * The server's own requests to the client (2025-11-25): answering them with the input handlers
 * (`answerServerRequestWith`), the capabilities the handlers declare, and the client as a task
 * receiver (`TaskReceiver`) for the requests the server sends as tasks.
 */
import { isObject, ownValue, type JsonObject } from "../protocol/json.js";
import { JSON_RPC_ERROR_CODES, RELATED_TASK_META } from "../protocol/constants.js";
import {
  JsonRpcResponseError,
  objectOr,
  rpcErrorOf,
  type TasksClientServerRequest,
  type TasksClientSignal,
} from "./core.js";
import { checkServerAnswer, runInputHandler, type InputHandlerTable } from "./input-answers.js";
import type { ReceiverServer, ServerRequestsProfile } from "./profile.js";

// ---------------------------------------------------------------------------------------------
// The server's own requests (2025-11-25)
//
// Where tasks have no `tasks/update`, a task that needs input sends its client requests of its own
// (an elicitation, a sampling request) tied to it with the related-task `_meta`; `tasks/result`
// delivers them, and any other server request comes the same way (the transport's `onRequest`).
// The client answers them with the same typed input handlers a wait uses for tasks/update.

/** The task a request is tied to (its related-task `_meta`), if any. */
export function relatedTaskId(params: JsonObject | undefined): string | undefined {
  const meta = params === undefined ? undefined : ownValue(params, "_meta");
  const related = isObject(meta) ? ownValue(meta, RELATED_TASK_META) : undefined;
  const taskId = isObject(related) ? ownValue(related, "taskId") : undefined;
  return typeof taskId === "string" ? taskId : undefined;
}

/** Runs the handler of one server request and checks its answer; rejects with the JSON-RPC error to answer. */
export async function answerServerRequestWith(
  profile: ServerRequestsProfile,
  handlers: InputHandlerTable,
  request: TasksClientServerRequest,
  context: {
    readonly taskId: string;
    readonly signal: TasksClientSignal;
    readonly report: (error: unknown) => void;
  },
): Promise<object> {
  const { method } = request;
  if (method === "ping") return {};
  const params = request.params ?? {};
  let running: Promise<unknown> | undefined;
  try {
    running = runInputHandler(
      profile.routing,
      handlers,
      { method, params },
      {
        taskId: context.taskId,
        key: String(request.id),
        method,
        signal: context.signal,
      },
    );
  } catch (error) {
    running = Promise.reject(error);
  }
  if (!running)
    throw new JsonRpcResponseError(method, JSON_RPC_ERROR_CODES.MethodNotFound, `Method not found: ${method}`);
  let answer: unknown;
  try {
    answer = await running;
  } catch (error) {
    // A handler may answer an error of its own choosing; anything else is the client's failure.
    if (error instanceof JsonRpcResponseError) throw error;
    context.report(error);
    throw new JsonRpcResponseError(method, JSON_RPC_ERROR_CODES.InternalError, `${method}: the handler failed`);
  }
  const checked = checkServerAnswer(profile, method, params, answer);
  if (checked instanceof Error) {
    context.report(checked);
    throw new JsonRpcResponseError(method, JSON_RPC_ERROR_CODES.InternalError, `${method}: ${checked.message}`);
  }
  return checked;
}

/** The capabilities of the methods the handlers answer (an elicitation is answered even without one, but declared only with one). */
export function capabilitiesOf(profile: ServerRequestsProfile, handlers: InputHandlerTable): JsonObject {
  const capabilities: JsonObject = {};
  for (const [method, capability] of Object.entries(profile.capabilities)) {
    if (typeof handlers[method] !== "function") continue;
    for (const [name, value] of Object.entries(capability)) {
      capabilities[name] = mergeObjects(objectOr(capabilities[name]), objectOr(value));
    }
  }
  return capabilities;
}

/** Two capability objects merged, nested objects too. */
export function mergeObjects(a: JsonObject, b: JsonObject): JsonObject {
  const merged: JsonObject = { ...a };
  for (const [key, value] of Object.entries(b)) {
    merged[key] = isObject(value) && isObject(merged[key]) ? mergeObjects(merged[key] as JsonObject, value) : value;
  }
  return merged;
}

// ---------------------------------------------------------------------------------------------
// The client as a task receiver (2025-11-25)
//
// The server may send an elicitation or a sampling request as a task (`params.task`) to a client
// that declares `tasks.requests.elicitation.create` (or `sampling.createMessage`). The client
// answers the task at once (`{ task }`), runs the handler meanwhile, and answers the server's
// `tasks/*` requests about it. The tasks are those of the set's own server (`server.ts`): the same
// store, status machine and answers as a server's tasks, with the server as their only owner.

/** The requests about the client's tasks the server may send. */
export const TASK_RECEIVER_METHODS: readonly string[] = ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"];

/** The `tasks` capability of a receiver: list, cancel, and each request with a handler under `requests` (`elicitation/create` → `elicitation.create`). */
export function receiverCapabilities(profile: ServerRequestsProfile, handlers: InputHandlerTable): JsonObject {
  const requests: JsonObject = {};
  for (const method of Object.keys(profile.routing)) {
    if (typeof handlers[method] !== "function") continue;
    const [group, name] = method.split("/");
    if (!group || !name) continue;
    requests[group] = { ...objectOr(requests[group]), [name]: {} };
  }
  if (Object.keys(requests).length === 0) return {};
  return { tasks: { list: {}, cancel: {}, requests } };
}

/** The client's tasks: requests the server sent as tasks, run by the handlers, kept by the set's server. */
export class TaskReceiver {
  readonly #server: ReceiverServer;
  readonly #report: (error: unknown) => void;
  #nextId = 1;

  constructor(server: ReceiverServer, report: (error: unknown) => void) {
    this.#server = server;
    this.#report = report;
  }

  /** Creates the task and answers `{ task }` at once; the handler's answer completes it, its error fails it. */
  async start(
    augmentField: string,
    request: TasksClientServerRequest,
    run: (plain: TasksClientServerRequest, signal: TasksClientSignal, taskId: string) => Promise<object>,
  ): Promise<object> {
    const { [augmentField]: augmentation, ...params } = request.params ?? {};
    const ttl = isObject(augmentation) ? ownValue(augmentation, "ttl") : undefined;
    const handle = await this.#server.createTask({}, typeof ttl === "number" || ttl === null ? { ttl } : {});
    void run({ id: request.id, method: request.method, params }, handle.signal, handle.taskId)
      .then(
        (result) => handle.complete(result as JsonObject),
        (error: unknown) =>
          handle.fail(
            error instanceof JsonRpcResponseError
              ? error.toJSON()
              : {
                  code: JSON_RPC_ERROR_CODES.InternalError,
                  message: String(error),
                },
          ),
      )
      .catch((error: unknown) => {
        // Cancelled meanwhile: the status machine refuses to finish it, as it should.
        if (!handle.signal.aborted) this.#report(error);
      });
    return handle.createResult;
  }

  /** Answers `tasks/*` about the client's tasks as the set's server does. */
  async answer(request: TasksClientServerRequest): Promise<object> {
    const message = {
      jsonrpc: "2.0",
      id: this.#nextId++,
      method: request.method,
      params: request.params ?? {},
    };
    const response = await this.#server.handle(message);
    const error = isObject(response) ? rpcErrorOf(ownValue(response, "error")) : undefined;
    if (error) throw new JsonRpcResponseError(request.method, error.code, error.message, error.data);
    const result = isObject(response) ? ownValue(response, "result") : undefined;
    if (!isObject(result))
      throw new JsonRpcResponseError(request.method, JSON_RPC_ERROR_CODES.InternalError, "Internal error");
    return result;
  }

  close(): void {
    this.#server.close();
  }
}
