/**
 * Task status subscriptions (subscriptions.mdx) on the client: the listen streams a client opens for
 * its waits (`ListenStreams`, a wait's `openStream`), and what a message on a stream is to its
 * subscription. The method and `_meta` names are protocol/constants.ts's.
 */
import { isObject, ownValue, type JsonObject } from "../protocol/json.js";
import {
  JSON_RPC_ERROR_CODES,
  LISTEN_METHOD,
  SUBSCRIPTION_ACKNOWLEDGED,
  SUBSCRIPTION_ID_META,
  TASKS_EXTENSION_ERROR_CODES,
} from "../protocol/constants.js";
import {
  abortReason,
  checkBody,
  host,
  JsonRpcResponseError,
  objectOr,
  readResult,
  type BodyCheck,
  type TasksClientListen,
  type TasksClientRequest,
  type TasksClientSignal,
} from "./core.js";
import { routingHeaders } from "./headers.js";
import type { StreamEnd } from "./task-wait.js";

/** The request that opens a notification stream (re-exported for the client's tests and callers). */
export { LISTEN_METHOD } from "../protocol/constants.js";

/** Listen streams a client keeps open at once, by default. */
export const DEFAULT_MAX_LISTEN_STREAMS = 4;

/**
 * What a message on a listen stream is to the subscription `id`: its acknowledgement (with the
 * agreed task ids), a notification of it, or not its own. An acknowledgement the set's
 * `acknowledgement` check rejects throws its ValidationFailed.
 */
export function listenMessage(
  message: unknown,
  id: string | number,
  acknowledgement?: BodyCheck<unknown>,
):
  | { readonly kind: "acknowledged"; readonly taskIds: readonly unknown[] }
  | { readonly kind: "notification" }
  | { readonly kind: "other" } {
  const params = isObject(message) ? ownValue(message, "params") : undefined;
  const meta = isObject(params) ? ownValue(params, "_meta") : undefined;
  // Every message of a subscription carries its id; anything else (another subscription's) is not this one's.
  if (
    !isObject(meta) ||
    ownValue(meta, SUBSCRIPTION_ID_META) !== id ||
    ownValue(message as JsonObject, "id") !== undefined
  )
    return { kind: "other" };
  if (ownValue(message as JsonObject, "method") !== SUBSCRIPTION_ACKNOWLEDGED) return { kind: "notification" };
  // The set's check of the acknowledgement's params (its filter), where it has one: throws ValidationFailed.
  if (acknowledgement) checkBody(acknowledgement, params as JsonObject);
  const taskIds = ownValue(objectOr(ownValue(params as JsonObject, "notifications")), "taskIds");
  return {
    kind: "acknowledged",
    taskIds: Array.isArray(taskIds) ? taskIds : [],
  };
}

/** What the listen streams need of the client that opens them. */
export interface ListenClient {
  /** The tasks extension's id, which `server/discover` capabilities must declare. */
  readonly extensionId: string;
  /** The set's checks of the acknowledgement and of a -32021 answer's `data`, where results are validated. */
  readonly checks: {
    readonly acknowledged: BodyCheck<unknown> | undefined;
    readonly missingCapability: BodyCheck<unknown> | undefined;
  };
  closed(): boolean;
  nextId(): number;
  /** Params as the client sends them on the extension (its `_meta`). */
  withExtension(params: JsonObject): JsonObject;
  /** Sends `server/discover`; its result is checked by checkDiscovered. */
  discover(): Promise<JsonObject>;
  /** `server/discover`'s result checked as the set checks it (throws where it fails). */
  checkDiscovered(result: JsonObject): JsonObject;
  /** A status notification read on a stream, handled as every notification is (listeners and waits). */
  notification(message: unknown): void;
  report(error: unknown): void;
}

/**
 * The listen streams of one client: at most `maxStreams` open at once, one per wait that asks
 * (`open`), and whether the server takes listen requests at all, asked once.
 */
export class ListenStreams {
  readonly #listen: TasksClientListen;
  readonly #maxStreams: number;
  readonly #client: ListenClient;
  #open = 0;
  /** Whether the server takes listen requests: asked of `server/discover` once, false after a refusal. */
  #offered: Promise<boolean> | undefined;

  constructor(listen: TasksClientListen, maxStreams: number, client: ListenClient) {
    this.#listen = listen;
    this.#maxStreams = maxStreams;
    this.#client = client;
  }

  /**
   * One listen stream for one task, as the wait's `openStream`: the messages of this subscription
   * (its id in `_meta`) are read, the acknowledgement must agree to the task, and its status
   * notifications go where every notification goes (the client's `notification`).
   */
  async open(taskId: string, signal: TasksClientSignal, acknowledged: () => void): Promise<StreamEnd> {
    const client = this.#client;
    if (client.closed() || !(await this.#offersListen())) return "unsupported";
    if (signal.aborted) return "ended";
    // No stream free: poll for now, as after a drop.
    if (this.#open >= this.#maxStreams) return "dropped";
    const params = client.withExtension({
      notifications: { taskIds: [taskId] },
    });
    const request: TasksClientRequest = {
      jsonrpc: "2.0",
      id: client.nextId(),
      method: LISTEN_METHOD,
      params,
    };
    // The stream stops with the wait, or when the server does not agree to the task.
    const stream = new host.AbortController();
    const stop = () => stream.abort(abortReason(signal));
    signal.addEventListener("abort", stop, { once: true });
    let refused = false;
    const onMessage = (message: unknown) => {
      let read: ReturnType<typeof listenMessage>;
      try {
        read = listenMessage(message, request.id, client.checks.acknowledged);
      } catch (error) {
        // An acknowledgement the schema rejects agrees to nothing: poll instead.
        refused = true;
        client.report(error);
        stream.abort(error);
        return;
      }
      if (read.kind === "acknowledged") {
        if (read.taskIds.includes(taskId)) acknowledged();
        else {
          refused = true;
          stream.abort(new Error(`the server does not send notifications for task ${taskId}`));
        }
      } else if (read.kind === "notification") client.notification(message);
    };
    this.#open++;
    try {
      const response = await this.#listen(request, routingHeaders([], LISTEN_METHOD, params), {
        signal: stream.signal,
        onMessage,
      });
      if (response === undefined) return "dropped";
      readResult(response, request);
      return "ended";
    } catch (error) {
      if (refused) return "unsupported";
      if (signal.aborted) return "ended";
      client.report(error);
      if (!(error instanceof JsonRpcResponseError && this.#refusesListen(error))) return "dropped";
      // The server takes no listen requests from this client after all: poll from now on.
      this.#offered = Promise.resolve(false);
      return "unsupported";
    } finally {
      this.#open--;
      signal.removeEventListener("abort", stop);
    }
  }

  /**
   * Whether an error answer to a listen request means the server will not take one from this
   * client again: it has none (-32601), or it names a client capability this client lacks
   * (-32021, with `data` the set's check accepts where it has one; reopening would not change it).
   */
  #refusesListen(error: JsonRpcResponseError): boolean {
    if (error.code === JSON_RPC_ERROR_CODES.MethodNotFound) return true;
    if (error.code !== TASKS_EXTENSION_ERROR_CODES.MissingRequiredClientCapability) return false;
    const data = this.#client.checks.missingCapability;
    return data === undefined || data.validate(error.data).ok;
  }

  /**
   * Whether the server may take listen requests: its `server/discover` capabilities declare the
   * tasks extension, whose status notifications travel on `subscriptions/listen`. Asked once; a
   * discovery lost to the transport is asked again by the next wait.
   */
  #offersListen(): Promise<boolean> {
    const client = this.#client;
    this.#offered ??= client.discover().then(
      (answer) => {
        const capabilities = objectOr(ownValue(client.checkDiscovered(answer), "capabilities"));
        return isObject(ownValue(objectOr(ownValue(capabilities, "extensions")), client.extensionId));
      },
      (error: unknown) => {
        client.report(error);
        if (!(error instanceof JsonRpcResponseError)) this.#offered = undefined;
        return false;
      },
    );
    return this.#offered;
  }
}
