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
import type { Round } from "./input-rounds.js";

type JsonObject = { [key: string]: unknown };

/** Whether a tool can run as a task: never, when the client allows it, or only as a task. */
export type TaskSupport = "forbidden" | "optional" | "required";

export interface ToolCall {
  readonly args: JsonObject;
  /** This attempt's multi round-trip input (SEP-2322): the checked answers of a retry, and how to ask (input-rounds.ts). */
  readonly round: Round;
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
  const task = await call.tasks.createTask(call.context);
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
    name: "weather",
    description: "Tells the weather of a region; the region is mirrored into the Mcp-Param-Region header (x-mcp-header).",
    inputSchema: {
      type: "object",
      properties: { region: { type: "string", "x-mcp-header": "Region" }, days: { type: "integer", minimum: 1, "x-mcp-header": "Days" } },
      required: ["region"],
    },
    taskSupport: "forbidden",
    async call({ args }) {
      return text(`Sunny in ${stringArg(args, "region", "nowhere")} for ${numberArg(args, "days", 1)} day(s).`);
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
        const got = call.round.collect({ confirm: request });
        return got.complete ? outcome(got.answers.confirm) : { ...(await call.round.inputRequired(got.missing)) };
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
      // The conformance suite answers both with `{ name, confirm }`; the server judges an accepted form's
      // content by the form, so the form has both fields (only `name` required).
      const fields = { name: { type: "string" }, confirm: { type: "boolean" } } as const;
      const requests = {
        first: elicit("First name?", fields, ["name"]),
        second: elicit("Second name?", fields, ["name"]),
      };
      const outcome = (first: unknown, second: unknown) =>
        text(`Got ${String(accepted(first)?.name ?? "nothing")} and ${String(accepted(second)?.name ?? "nothing")}.`);
      if (!hasTasksExtension(call.context)) {
        const got = call.round.collect(requests);
        if (got.complete) return outcome(got.answers.first, got.answers.second);
        return { ...(await call.round.inputRequired(got.missing)) };
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
      const asked = { user_name: elicit("What is your name?", { name: { type: "string", title: "Name" } }, ["name"]) };
      const got = call.round.collect(asked);
      const name = got.complete ? accepted(got.answers.user_name)?.name : undefined;
      if (typeof name !== "string") return { ...(await call.round.inputRequired(asked)) };
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
