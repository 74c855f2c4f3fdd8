/**
 * Multi round-trip requests (`InputRequiredResult`, mrtr.mdx) in the example: the fixture tools
 * and the prompt of the official conformance scenarios `input-required-result-*` and the
 * diagnostic tools of `server-stateless`, written the way an application uses the generated
 * `request-state.ts`: a handler asks for what it needs with `round.inputRequired(...)`, reads the
 * answers of the retry with `round.collect(...)` (checked and typed), and carries its own state
 * across rounds sealed in `requestState`.
 */
import { randomBytes } from "node:crypto";
import { validateElicitationContent } from "../../generated/ext-tasks-draft/elicitation.js";
import { createInputRounds, type AnswerTypes, type InputRound } from "../../generated/ext-tasks-draft/runtime/server/request-state.js";
import { JsonRpcError, type RequestContext } from "../../generated/ext-tasks-draft/server.js";
import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitRequestFormParamsRequestedSchema,
  ElicitResult,
  InputRequiredResult,
  ListRootsRequest,
  ListRootsResult,
} from "../../generated/ext-tasks-draft/types.js";
import {
  validateCreateMessageResult,
  validateElicitResult,
  validateInputRequiredResult,
  validateListRootsResult,
} from "../../generated/ext-tasks-draft/validators.js";

type JsonObject = { [key: string]: unknown };

/** The answer types of this set, by input method. */
export type Answers = AnswerTypes<ElicitResult, CreateMessageResult, ListRootsResult>;
/** A round whose "input required" answers are the set's InputRequiredResult, checked by its generated validator. */
export type Round = InputRound<Answers, InputRequiredResult>;

/**
 * The rounds of this server. The key signing `requestState` comes from MCP_REQUEST_STATE_KEY
 * (every instance behind one endpoint needs the same); without it a random one per process,
 * which is right for a single instance.
 */
export function exampleInputRounds(key: string | undefined = process.env.MCP_REQUEST_STATE_KEY) {
  return createInputRounds({
    keys: [key ?? randomBytes(32)],
    validators: {
      "elicitation/create": validateElicitResult,
      "sampling/createMessage": validateCreateMessageResult,
      "roots/list": validateListRootsResult,
      elicitationContent: validateElicitationContent,
    },
    inputRequiredResult: validateInputRequiredResult,
  });
}

/** A fixture: listed by tools/list, called with its round. */
export interface RoundTool {
  readonly name: string;
  readonly description: string;
  call(args: JsonObject, round: Round, context: RequestContext): Promise<JsonObject>;
}

const text = (value: string) => ({ content: [{ type: "text", text: value }] });

/** A one-field form. */
function form(message: string, field: string, type: "string" | "boolean" = "string"): ElicitRequest {
  const requestedSchema: ElicitRequestFormParamsRequestedSchema = {
    type: "object",
    properties: { [field]: type === "boolean" ? { type: "boolean" } : { type: "string" } },
    required: [field],
  };
  return { method: "elicitation/create", params: { mode: "form", message, requestedSchema } };
}

function sampling(question: string, maxTokens: number): CreateMessageRequest {
  return {
    method: "sampling/createMessage",
    params: { messages: [{ role: "user", content: { type: "text", text: question } }], maxTokens },
  };
}

const roots: ListRootsRequest = { method: "roots/list", params: {} };

/** A form field of an accepted answer, or a placeholder for a declined one. */
function field(answer: ElicitResult, name: string): string {
  const value = answer.action === "accept" ? answer.content?.[name] : undefined;
  return value === undefined ? `(${answer.action})` : String(value);
}

function sampled(answer: CreateMessageResult): string {
  const first = Array.isArray(answer.content) ? answer.content[0] : answer.content;
  return first && first.type === "text" ? first.text : `(${first?.type ?? "nothing"})`;
}

const listed = (answer: ListRootsResult) => answer.roots.map((root) => root.uri).join(", ") || "no roots";

/** The state these tools seal: which step the call is at, and what earlier rounds answered. */
type Step = { readonly step: string; readonly name?: string };

function stepOf(round: Round): Step | undefined {
  const state = round.state;
  return typeof state === "object" && state !== null && !Array.isArray(state) && typeof (state as Step).step === "string" ? (state as Step) : undefined;
}

/** Asks one name and greets; no state (the retry needs nothing but the answer). */
async function greetByName(round: Round): Promise<JsonObject> {
  const asked = { user_name: form("What is your name?", "name") };
  const got = round.collect(asked);
  if (!got.complete) return { ...(await round.inputRequired(got.missing)) };
  return text(`Hello, ${field(got.answers.user_name, "name")}!`);
}

/** Asks a confirmation with sealed state; the retry must bring the state back (tampered state never gets here: -32602). */
async function confirmWithState(round: Round): Promise<JsonObject> {
  const asked = { confirm: form("Please confirm", "ok", "boolean") };
  const got = round.collect(asked);
  if (!got.complete || stepOf(round)?.step !== "confirming") return { ...(await round.inputRequired(asked, { step: "confirming" })) };
  return text(`state-ok: confirmed ${field(got.answers.confirm, "ok")}`);
}

export const roundTools: readonly RoundTool[] = [
  {
    name: "test_input_required_result_elicitation",
    description: "Asks the user's name (one elicitation), then greets them.",
    call: (_args, round) => greetByName(round),
  },
  {
    name: "test_input_required_result_sampling",
    description: "Asks the client's model a question (one sampling request), then answers with its reply.",
    async call(_args, round) {
      const got = round.collect({ capital_question: sampling("What is the capital of France?", 100) });
      if (!got.complete) return { ...(await round.inputRequired(got.missing)) };
      return text(`The model said: ${sampled(got.answers.capital_question)}`);
    },
  },
  {
    name: "test_input_required_result_list_roots",
    description: "Asks the client's roots, then lists them.",
    async call(_args, round) {
      const got = round.collect({ client_roots: roots });
      if (!got.complete) return { ...(await round.inputRequired(got.missing)) };
      return text(`Roots: ${listed(got.answers.client_roots)}`);
    },
  },
  {
    name: "test_input_required_result_request_state",
    description: "Asks a confirmation with sealed requestState; the retry must echo it.",
    call: (_args, round) => confirmWithState(round),
  },
  {
    name: "test_input_required_result_tampered_state",
    description: "Like test_input_required_result_request_state: a requestState that fails verification is rejected (-32602).",
    call: (_args, round) => confirmWithState(round),
  },
  {
    name: "test_input_required_result_multiple_inputs",
    description: "Asks an elicitation, a sampling and the roots at once, with requestState.",
    async call(_args, round) {
      const asked = {
        user_name: form("What is your name?", "name"),
        greeting: sampling("Generate a greeting", 50),
        client_roots: roots,
      };
      const got = round.collect(asked);
      if (!got.complete || stepOf(round)?.step !== "all") return { ...(await round.inputRequired(asked, { step: "all" })) };
      const { user_name, greeting, client_roots } = got.answers;
      return text(`${sampled(greeting)}, ${field(user_name, "name")} (roots: ${listed(client_roots)})`);
    },
  },
  {
    name: "test_input_required_result_multi_round",
    description: "Asks a name, then a colour, in two rounds; the name travels in sealed requestState.",
    async call(_args, round) {
      const step = stepOf(round);
      if (step?.step === "color") {
        const got = round.collect({ step2: form("Step 2: What is your favorite color?", "color") });
        if (got.complete) return text(`${step.name ?? "?"} likes ${field(got.answers.step2, "color")}.`);
        return { ...(await round.inputRequired(got.missing, step)) };
      }
      const asked = { step1: form("Step 1: What is your name?", "name") };
      const got = round.collect(asked);
      if (step?.step !== "name" || !got.complete) return { ...(await round.inputRequired(asked, { step: "name" })) };
      const next = { step2: form("Step 2: What is your favorite color?", "color") };
      return { ...(await round.inputRequired(next, { step: "color", name: field(got.answers.step1, "name") })) };
    },
  },
  {
    name: "test_input_required_result_capabilities",
    description: "Asks for a name by whatever the client declared (elicitation, else sampling).",
    async call(_args, round) {
      const asked = round.supports("elicitation/create")
        ? { user_name: form("What is your name?", "name") }
        : { user_name: sampling("Make up a name", 20) };
      const got = round.collect(asked);
      if (!got.complete) return { ...(await round.inputRequired(got.missing)) };
      const answer = got.answers.user_name;
      return text(`Name: ${"action" in answer ? field(answer, "name") : sampled(answer)}`);
    },
  },
  {
    name: "test_missing_capability",
    description: "Needs sampling: a client that did not declare it gets -32021.",
    async call(_args, round) {
      const got = round.collect({ answer: sampling("Say something", 20) });
      if (!got.complete) return { ...(await round.inputRequired(got.missing)) };
      return text(`The model said: ${sampled(got.answers.answer)}`);
    },
  },
  {
    name: "test_streaming_elicitation",
    description: "Asks a confirmation through inputRequests (never a request on the response stream).",
    async call(_args, round) {
      const got = round.collect({ confirm: form("Go on?", "answer") });
      if (!got.complete) return { ...(await round.inputRequired(got.missing)) };
      return text(`Answer: ${field(got.answers.confirm, "answer")}`);
    },
  },
  {
    name: "test_logging_tool",
    description: "Does its work without logging: the request set no log level.",
    async call() {
      return text("Done, nothing logged.");
    },
  },
];

/** The prompt of `input-required-result-non-tool-request`. */
export const PROMPT = {
  name: "test_input_required_result_prompt",
  description: "A prompt that asks the user for its context first.",
} as const;

/** prompts/get: the one prompt, after one elicitation. */
export async function getPrompt(params: JsonObject, round: Round): Promise<JsonObject> {
  if (params.name !== PROMPT.name) throw new JsonRpcError(-32602, `Unknown prompt: ${String(params.name).slice(0, 100)}`);
  const got = round.collect({ user_context: form("What context should the prompt use?", "context") });
  if (!got.complete) return { ...(await round.inputRequired(got.missing)) };
  return {
    description: PROMPT.description,
    messages: [{ role: "user", content: { type: "text", text: `Use this context: ${field(got.answers.user_context, "context")}` } }],
  };
}
