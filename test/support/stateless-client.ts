import { INSTANCE_HEADER } from "./round-robin-proxy.js";

/**
 * A bare JSON-RPC client of the example server's stateless envelope (2026-07-28 with the Tasks extension),
 * for the scale-out tests: every answer comes back as seen on the wire (HTTP status, body, and which
 * instance behind the proxy answered), never retried here; callers decide what is safe to repeat.
 */
export interface Answer {
  /** HTTP status; 0 when no answer came (connection failed, timed out). */
  readonly status: number;
  readonly body?: { result?: any; error?: { code: number; message: string; data?: unknown } } | undefined;
  /** The instance index the proxy reports (INSTANCE_HEADER); undefined without a proxy. */
  readonly instance?: number;
  /** Why no answer came, when status is 0. */
  readonly failure?: string;
}

let nextId = 1;

/** POSTs one request as `token`'s caller (a bearer token is the example's owner identity). */
export async function post(url: string, method: string, params: Record<string, unknown>, token: string, timeoutMs = 10_000): Promise<Answer> {
  const name = method === "tools/call" ? params.name : params.taskId;
  try {
    const response = await fetch(url, {
      method: "POST",
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(typeof name === "string" ? { "mcp-name": name } : {}),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: nextId++,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
          },
        },
      }),
    });
    const text = await response.text();
    const header = response.headers.get(INSTANCE_HEADER);
    let body: Answer["body"];
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined; // the proxy's own 502/503 answers are plain text
    }
    return { status: response.status, body, ...(header === null ? {} : { instance: Number(header) }) };
  } catch (error) {
    return { status: 0, failure: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/** The task id a tools/call answer created (CreateTaskResult), or undefined. */
export function createdTaskId(answer: Answer): string | undefined {
  const result = answer.body?.result;
  return result?.resultType === "task" ? (result.task?.taskId ?? result.taskId) : undefined;
}
