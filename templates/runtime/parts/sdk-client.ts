/**
 * Runtime part `sdk-client`: the set's Tasks client (`client.ts`) over a connected
 * `@modelcontextprotocol/sdk` 1.x `Client`.
 *
 * Peer: `@modelcontextprotocol/sdk` ^1.24 (the 1.x line with tasks; tested with 1.32), installed by
 * the application. A set gets this file only when its config asks for it (`"runtime": ["sdk-client"]`).
 *
 *   const sdk = new Client({ name: "app", version: "1.0.0" });
 *   await sdk.connect(transport);
 *   const tasks = createTasksClient(sdkClientTransport(sdk));
 *
 * Requests go through the SDK's own request API with a loose result schema (the SDK's
 * `ResultSchema`: any object), so the generated validators, not the SDK's, judge the result; the
 * SDK still owns ids, the connection, and any session. A JSON-RPC error from the server becomes
 * the JSON-RPC error response it was; the SDK's local failures (connection closed, its own
 * timeout) and an aborted request reject, as a transport failure should.
 *
 * Notifications: the adapter listens through the SDK's `fallbackNotificationHandler` (chaining to
 * one set before it), which sees every notification without a method-specific handler. If the
 * application registers its own handler for the task status notification with
 * `setNotificationHandler`, the SDK gives it to that handler only; forward it from there with
 * `tasksClient.handleNotification(notification)`.
 *
 * Server requests: `onRequest` answers through the SDK's `fallbackRequestHandler` (chaining to one
 * set before it for other methods), which sees every request without a method-specific handler, so
 * the generated client's handlers answer `elicitation/create` and `sampling/createMessage` (and
 * check the answers) unless the application registered its own SDK handler for them. Declare the
 * capabilities they need before connecting: `sdk.registerCapabilities(tasksClient.capabilities())`.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError, ResultSchema } from "@modelcontextprotocol/sdk/types.js";

/** A JSON-RPC request as the generated clients send it. */
export interface AdapterRequest {
  readonly jsonrpc: "2.0";
  readonly id: string | number;
  readonly method: string;
  readonly params?: { readonly [key: string]: unknown };
}

/** What `send` gets besides the request (as the generated clients pass it). */
export interface AdapterSendOptions {
  readonly signal: {
    readonly aborted: boolean;
    readonly reason?: unknown;
    addEventListener(type: "abort", listener: () => void, options?: { readonly once?: boolean }): void;
    removeEventListener(type: "abort", listener: () => void): void;
  };
}

export interface SdkClientTransport {
  /** The generated client's `send`: headers are ignored (the SDK transport sets its own). */
  readonly send: (request: AdapterRequest, headers: unknown, options: AdapterSendOptions) => Promise<unknown>;
  /** The generated client's `onNotification`. */
  readonly onNotification: (listener: (notification: unknown) => void) => () => void;
  /** The generated client's `onRequest`: the server's requests, answered by the handler (its rejection's `code`, `message` and `data` become the error answer). */
  readonly onRequest: (handler: (request: AdapterServerRequest) => Promise<object>) => () => void;
}

/** A request from the server, as the generated client's handler takes it. */
export interface AdapterServerRequest {
  readonly id: string | number;
  readonly method: string;
  readonly params?: { readonly [key: string]: unknown };
}

/** The largest delay `setTimeout` takes: the SDK's own request timeout is turned off this way; the generated client times requests itself. */
const NO_TIMEOUT = 2_147_483_647;

/** Codes the SDK raises itself, for a connection that closed or a request it timed out: not answers from the server. */
const LOCAL_CODES: ReadonlySet<number> = new Set([ErrorCode.ConnectionClosed, ErrorCode.RequestTimeout]);

export function sdkClientTransport(client: Client): SdkClientTransport {
  return {
    async send(request, _headers, { signal }) {
      try {
        const result = await client.request(
          { method: request.method, ...(request.params ? { params: { ...request.params } } : {}) },
          ResultSchema,
          {
            signal: signal as AbortSignal,
            timeout: NO_TIMEOUT,
          },
        );
        return { jsonrpc: "2.0", id: request.id, result };
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (error instanceof McpError && !LOCAL_CODES.has(error.code)) {
          return { jsonrpc: "2.0", id: request.id, error: errorObject(error) };
        }
        throw error;
      }
    },
    onNotification(listener) {
      const previous = client.fallbackNotificationHandler;
      const handler = async (notification: Parameters<NonNullable<Client["fallbackNotificationHandler"]>>[0]) => {
        listener({ jsonrpc: "2.0", ...notification });
        await previous?.(notification);
      };
      client.fallbackNotificationHandler = handler;
      return () => {
        if (client.fallbackNotificationHandler !== handler) return;
        if (previous) client.fallbackNotificationHandler = previous;
        else delete client.fallbackNotificationHandler;
      };
    },
    onRequest(answer) {
      const previous = client.fallbackRequestHandler;
      const handler: NonNullable<Client["fallbackRequestHandler"]> = async (request, extra) => {
        try {
          return (await answer({
            id: request.id,
            method: request.method,
            ...(request.params ? { params: { ...request.params } } : {}),
          })) as never;
        } catch (error) {
          const code = isObject(error) ? error.code : undefined;
          // A method the generated client does not answer may be the previous handler's.
          if (code === ErrorCode.MethodNotFound && previous) return previous(request, extra);
          if (typeof code === "number" && Number.isInteger(code) && error instanceof Error) {
            throw new RpcAnswerError(code, error.message, (error as { data?: unknown }).data);
          }
          throw error;
        }
      };
      client.fallbackRequestHandler = handler;
      return () => {
        if (client.fallbackRequestHandler !== handler) return;
        if (previous) client.fallbackRequestHandler = previous;
        else delete client.fallbackRequestHandler;
      };
    },
  };
}

function isObject(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === "object" && value !== null;
}

/**
 * An error the SDK answers as it is: it sends any thrown error with a numeric `code` as that code,
 * its message and its data (an McpError would put "MCP error <code>: " before the message).
 */
class RpcAnswerError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The JSON-RPC error object an McpError was made from (the SDK prefixes the message with "MCP error <code>: "). */
function errorObject(error: McpError): { code: number; message: string; data?: unknown } {
  const prefix = `MCP error ${error.code}: `;
  const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return error.data === undefined ? { code: error.code, message } : { code: error.code, message, data: error.data };
}
