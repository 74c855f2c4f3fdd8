/**
 * The JSON-RPC routing the runtime parts `http-server` and `stdio` share: `tasks/*` goes to the
 * set's Tasks server, every other method to the application's own handler for it (`tools/call`,
 * `tools/list`, ...), anything else answers -32601. Needs nothing outside the set.
 */
import { isObject, ownValue, type JsonObject } from "../protocol/json.js";
import {
  JSON_RPC_ERROR_CODES,
  JsonRpcError,
  methodNotFound,
  readEnvelope,
  requestContext,
  type Envelope,
  respond,
  type JsonRpcErrorObject,
  type JsonRpcResponse,
  type RequestContext,
  type TransportContext,
} from "../server/core.js";
import type { ListenOutcome, ListenSink } from "../server/engine.js";

/** What the router needs of the set's Tasks server (`createTasksServer(...)` has it). */
export interface TasksHandler {
  handle(message: unknown, transport?: TransportContext): Promise<JsonRpcResponse | undefined>;
  /** `subscriptions/listen` for task status notifications, where the server has them (transports that stream use it). */
  listen?(message: unknown, transport: TransportContext, sink: ListenSink): Promise<ListenOutcome>;
}

/**
 * The application's answer to one of its own methods: the result object. Throw a `JsonRpcError`
 * to answer with that error; any other exception answers -32603 "Internal error".
 */
export type MethodHandler = (params: JsonObject, context: RequestContext) => object | Promise<object>;

/** The application's handling of a notification it receives (no answer is sent). */
export type NotificationHandler = (params: JsonObject, context: RequestContext) => void | Promise<void>;

export interface RouterOptions {
  /** The set's Tasks server: answers every `tasks/*` request. */
  readonly tasks: TasksHandler;
  /** The application's own methods, by name (`tools/call`, `tools/list`, ...). */
  readonly methods?: { readonly [method: string]: MethodHandler };
  /** The application's notification handlers, by method; other notifications are ignored. */
  readonly notifications?: { readonly [method: string]: NotificationHandler };
  /** Told about every unexpected exception (the client only sees -32603). Default: none. */
  readonly onError?: (error: unknown) => void;
}

/**
 * Answers one JSON-RPC message; never throws. Undefined for a notification. A caller that has
 * read the message's envelope already passes it, so it is read once.
 */
export type Router = (
  message: unknown,
  transport: TransportContext,
  envelope?: Envelope,
) => Promise<JsonRpcResponse | undefined>;

/** The router over the Tasks server and the application's methods. */
export function createRouter(options: RouterOptions): Router {
  const methods = options.methods ?? {};
  const notifications = options.notifications ?? {};
  const report = options.onError ?? (() => {});
  const errorObject = (error: unknown): JsonRpcErrorObject => {
    if (error instanceof JsonRpcError) return error.toJSON();
    report(error);
    return { code: JSON_RPC_ERROR_CODES.InternalError, message: "Internal error" };
  };
  return async (message, transport, envelope = readEnvelope(message)) => {
    if (envelope.kind === "notification") {
      await notify(message as JsonObject, transport);
      return undefined;
    }
    if (envelope.kind === "request" && isTaskMethod(envelope.method) && !Object.hasOwn(methods, envelope.method)) {
      return options.tasks.handle(message, transport);
    }
    return respond(
      message,
      async (method, params) => {
        const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
        if (!handler) throw methodNotFound(method);
        return handler(paramsOf(params), requestContext(params, transport));
      },
      errorObject,
    );
  };

  async function notify(message: JsonObject, transport: TransportContext): Promise<void> {
    const method = ownValue(message, "method") as string;
    const handler = Object.hasOwn(notifications, method) ? notifications[method] : undefined;
    if (!handler) return void (await options.tasks.handle(message, transport));
    const params = ownValue(message, "params");
    try {
      await handler(isObject(params) ? params : {}, requestContext(params, transport));
    } catch (error) {
      report(error);
    }
  }
}

/** The methods the Tasks server answers (every revision's are `tasks/...`). */
export function isTaskMethod(method: string): boolean {
  return method.startsWith("tasks/");
}

/** A request's params as handlers get them: an object (`{}` when absent); anything else is -32602. */
function paramsOf(params: unknown): JsonObject {
  if (params === undefined) return {};
  if (!isObject(params))
    throw new JsonRpcError(JSON_RPC_ERROR_CODES.InvalidParams, "Invalid params: params must be an object");
  return params;
}
