/**
 * The fixture tools of the official conformance Tasks scenarios, written the way a tool author
 * would use the generated server: a task-supporting tool creates a task when (and only when)
 * the request declares the tasks extension, returns the task at once, and finishes the work in
 * the background through its TaskHandle.
 */
import {
  JsonRpcError,
  missingTasksExtension,
  hasTasksExtension,
  TaskStateError,
  type AbortSignalLike,
  type RequestContext,
  type TaskHandle,
  type TasksServer,
} from "../../generated/ext-tasks-draft/server.js";
import type { ElicitRequest, ElicitRequestFormParamsRequestedSchema } from "../../generated/ext-tasks-draft/types.js";

type JsonObject = { [key: string]: unknown };

/** Whether a tool can run as a task: never, when the client allows it, or only as a task. */
export type TaskSupport = "forbidden" | "optional" | "required";

export interface ToolCall {
  readonly args: JsonObject;
  /** Answers to a previous round's input requests (SEP-2322 multi-round-trip). */
  readonly inputResponses: JsonObject;
  readonly context: RequestContext;
  readonly tasks: TasksServer;
  /** Logs what goes wrong in background work. */
  readonly log: (message: string, error?: unknown) => void;
}

export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly taskSupport: TaskSupport;
  /** The tools/call result (without `resultType`, which the caller adds unless it is a created task). */
  call(call: ToolCall): Promise<JsonObject>;
}

const text = (value: string) => ({ content: [{ type: "text", text: value }] });

/** An elicitation request as an entry of `inputRequests`. */
function elicit(message: string, properties: ElicitRequestFormParamsRequestedSchema["properties"], required: string[]): ElicitRequest {
  return {
    method: "elicitation/create",
    params: { mode: "form", message, requestedSchema: { type: "object", properties, required } },
  };
}

/** A multi-round-trip answer: what the client needs to send before the call can go on. */
function inputRequired(inputRequests: JsonObject): JsonObject {
  return { resultType: "input_required", inputRequests };
}

/** Waits, or stops early (rejecting) when the signal aborts. */
function sleep(ms: number, signal?: AbortSignalLike): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error("aborted"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error("aborted"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Creates a task for the call and runs `work` in the background; answers the CreateTaskResult.
 * Work that throws fails the task with -32603; work cut short by cancellation is left alone (the
 * task is already `cancelled`).
 */
async function runAsTask(call: ToolCall, work: (task: TaskHandle) => Promise<void>): Promise<JsonObject> {
  const task = endsDurably(await call.tasks.createTask(call.context), call.log);
  void (async () => {
    try {
      await work(task);
    } catch (error) {
      if (task.signal.aborted || error instanceof TaskStateError) return;
      call.log(`task ${task.taskId} failed`, error);
      await task.fail({ code: -32603, message: "Internal error" }).catch(() => {});
    }
  })();
  return task.createResult;
}

/** How long a finished task's last write is retried while the store is unreachable. */
const FINAL_WRITE_RETRY_MS = 10 * 60_000;

/**
 * The handle, with `complete` and `fail` retried while the store is unreachable (README, Scaling out):
 * otherwise a task whose work ends during a store outage would stay `working` for good, its lease
 * renewed by this live instance. A refused change (TaskStateError: finished elsewhere, swept, gone)
 * or a cancelled task ends the retries: the task has its one terminal state already.
 */
function endsDurably(task: TaskHandle, log: ToolCall["log"]): TaskHandle {
  const retried =
    <A>(write: (argument: A) => Promise<void>) =>
    async (argument: A): Promise<void> => {
      const giveUpAt = Date.now() + FINAL_WRITE_RETRY_MS;
      for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
        try {
          return await write(argument);
        } catch (error) {
          if (error instanceof TaskStateError || error instanceof JsonRpcError || task.signal.aborted || Date.now() > giveUpAt) throw error;
          log(`task ${task.taskId}: its last write failed, retrying in ${delay} ms`, error);
          await sleep(delay);
        }
      }
    };
  const complete = retried((result: JsonObject) => task.complete(result));
  const fail = retried((error: Parameters<TaskHandle["fail"]>[0]) => task.fail(error));
  return new Proxy(task, {
    get(target, key) {
      if (key === "complete") return complete;
      if (key === "fail") return fail;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function answerOf(responses: JsonObject, key: string): JsonObject | undefined {
  const answer = Object.hasOwn(responses, key) ? responses[key] : undefined;
  return typeof answer === "object" && answer !== null && !Array.isArray(answer) ? (answer as JsonObject) : undefined;
}

function accepted(answer: unknown): JsonObject | undefined {
  if (typeof answer !== "object" || answer === null) return undefined;
  const { action, content } = answer as { action?: unknown; content?: unknown };
  if (action !== "accept") return undefined;
  return typeof content === "object" && content !== null ? (content as JsonObject) : {};
}

function numberArg(args: JsonObject, name: string, fallback: number): number {
  const value = args[name];
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) throw new JsonRpcError(-32602, `Invalid arguments: ${name} must be a non-negative number`);
  return value;
}

function stringArg(args: JsonObject, name: string, fallback: string): string {
  const value = args[name];
  if (value === undefined) return fallback;
  if (typeof value !== "string") throw new JsonRpcError(-32602, `Invalid arguments: ${name} must be a string`);
  return value;
}

const MAX_SECONDS = 300;

export const tools: readonly Tool[] = [
  {
    name: "greet",
    description: "Greets someone, synchronously.",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    taskSupport: "forbidden",
    async call({ args }) {
      return text(`Hello, ${stringArg(args, "name", "World")}!`);
    },
  },
  {
    name: "slow_compute",
    description: "Sleeps `seconds`, then answers. Runs as a task when the client supports tasks; cancelling stops it.",
    inputSchema: { type: "object", properties: { seconds: { type: "number", minimum: 0 }, label: { type: "string" } } },
    taskSupport: "optional",
    async call(call) {
      const seconds = Math.min(numberArg(call.args, "seconds", 1), MAX_SECONDS);
      const label = stringArg(call.args, "label", "compute");
      const answer = text(`${label}: computed after ${seconds}s`);
      if (!hasTasksExtension(call.context)) {
        await sleep(seconds * 1000, call.context.signal);
        return answer;
      }
      return runAsTask(call, async (task) => {
        await sleep(seconds * 1000, task.signal);
        await task.complete(answer);
      });
    },
  },
  {
    name: "failing_job",
    description: "A task that ends with a tool error (completed, isError: true). Requires task support.",
    inputSchema: { type: "object", properties: {} },
    taskSupport: "required",
    async call(call) {
      return runAsTask(call, async (task) => {
        await task.update("working on it");
        await sleep(300, task.signal);
        await task.complete({ ...text("The job failed: the input was rejected."), isError: true });
      });
    },
  },
  {
    name: "protocol_error_job",
    description: "A job that crashes: as a task it ends failed with a JSON-RPC error.",
    inputSchema: { type: "object", properties: {} },
    taskSupport: "optional",
    async call(call) {
      const crash = { code: -32603, message: "Internal error: the job crashed" };
      if (!hasTasksExtension(call.context)) throw new JsonRpcError(crash.code, crash.message);
      return runAsTask(call, async (task) => {
        await sleep(300, task.signal);
        await task.fail(crash);
      });
    },
  },
  {
    name: "confirm_delete",
    description: "Asks for confirmation (one elicitation), then deletes the file.",
    inputSchema: { type: "object", properties: { filename: { type: "string" } }, required: ["filename"] },
    taskSupport: "optional",
    async call(call) {
      const filename = stringArg(call.args, "filename", "file.txt");
      const request = elicit(`Delete ${filename}?`, { confirm: { type: "boolean", title: "Delete the file" } }, ["confirm"]);
      const outcome = (answer: unknown) =>
        text(accepted(answer)?.confirm === true ? `Deleted ${filename}.` : `Kept ${filename}.`);
      if (!hasTasksExtension(call.context)) {
        const answer = answerOf(call.inputResponses, "confirm");
        return answer ? outcome(answer) : inputRequired({ confirm: request });
      }
      return runAsTask(call, async (task) => {
        const answer = await task.requireInput("confirm", request);
        await task.complete(outcome(answer));
      });
    },
  },
  {
    name: "multi_input",
    description: "Asks two questions at once; either may be answered first.",
    inputSchema: { type: "object", properties: {} },
    taskSupport: "optional",
    async call(call) {
      const requests = {
        first: elicit("First name?", { name: { type: "string" } }, ["name"]),
        second: elicit("Second name?", { name: { type: "string" } }, ["name"]),
      };
      const outcome = (first: unknown, second: unknown) =>
        text(`Got ${String(accepted(first)?.name ?? "nothing")} and ${String(accepted(second)?.name ?? "nothing")}.`);
      if (!hasTasksExtension(call.context)) {
        const first = answerOf(call.inputResponses, "first");
        const second = answerOf(call.inputResponses, "second");
        if (first && second) return outcome(first, second);
        return inputRequired(Object.fromEntries(Object.entries(requests).filter(([key]) => !answerOf(call.inputResponses, key))));
      }
      return runAsTask(call, async (task) => {
        const [first, second] = await Promise.all([task.requireInput("first", requests.first), task.requireInput("second", requests.second)]);
        await task.complete(outcome(first, second));
      });
    },
  },
  {
    name: "test_tool_with_task",
    description: "Gathers a name by multi-round-trip input, then finishes the work as a task. Requires task support.",
    inputSchema: { type: "object", properties: {} },
    taskSupport: "required",
    async call(call) {
      const name = accepted(answerOf(call.inputResponses, "user_name"))?.name;
      if (typeof name !== "string") {
        return inputRequired({ user_name: elicit("What is your name?", { name: { type: "string", title: "Name" } }, ["name"]) });
      }
      return runAsTask(call, async (task) => {
        await sleep(200, task.signal);
        await task.complete(text(`Hello, ${name}! Your task is done.`));
      });
    },
  },
];

/** Runs a tools/call: finds the tool, applies its task support rule, and tags the result. */
export async function callTool(name: string, call: ToolCall): Promise<JsonObject> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new JsonRpcError(-32602, `Unknown tool: ${name.slice(0, 100)}`);
  // A task-only tool cannot serve a client that did not declare tasks (judged per request).
  if (tool.taskSupport === "required" && !hasTasksExtension(call.context)) throw missingTasksExtension();
  const result = await tool.call(call);
  return typeof result.resultType === "string" ? result : { resultType: "complete", ...result };
}
