// `node examples/conformance-client/run.mjs <server-url>`: a client of the official MCP conformance
// suite's client scenarios, built only from generated code: the Tasks clients of the sets
// `ext-tasks-draft` (stateless revision 2026-07-28) and `tasks-2025-11-25` (initialize handshake),
// each over its `http-client` runtime part. The suite runs it as
// `conformance client --command "node examples/conformance-client/run.mjs" --scenario <name>` and sets
// MCP_CONFORMANCE_SCENARIO (which flow to run), MCP_CONFORMANCE_PROTOCOL_VERSION (the revision of
// its mock server) and, for some scenarios, MCP_CONFORMANCE_CONTEXT (the calls to make); the
// dispatch follows the suite's reference client (examples/clients/typescript/everything-client.ts).
//
// Runs on Node 20 without a TypeScript loader: the generated folders are transpiled (types
// stripped) into MCP_TASKS_GEN_CLIENT_BUILD when set (kept, and reused when already there), or
// into a temporary folder removed on exit.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SETS = ["ext-tasks-draft", "tasks-2025-11-25"];
/** The first revision without the initialize handshake. */
const STATELESS = "2026-07-28";
const CLIENT_INFO = { name: "mcp-tasks-gen-conformance-client", version: "1.0.0" };

const serverUrl = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION || "2025-11-25";
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};

if (!serverUrl || !scenario) {
  console.error("usage: MCP_CONFORMANCE_SCENARIO=<name> node examples/conformance-client/run.mjs <server-url>");
  process.exit(2);
}

const build = buildGenerated();
const draft = await load("ext-tasks-draft");
const v2025 = await load("tasks-2025-11-25");

/** One flow per scenario (the reference client's names). */
const SCENARIOS = {
  initialize: listAndCallFirstTool,
  tools_call: listAndCallFirstTool,
  "request-metadata": requestMetadata,
  "sep-2322-client-request-state": multiRoundTrip,
  "http-standard-headers": standardHeaders,
  "http-custom-headers": customHeaders,
  "http-invalid-tool-headers": invalidToolHeaders,
  "sse-retry": sseRetry,
  "elicitation-sep1034-client-defaults": elicitationDefaults,
};

const run = SCENARIOS[scenario];
if (!run) {
  console.error(`unknown scenario ${JSON.stringify(scenario)}; this client runs: ${Object.keys(SCENARIOS).join(", ")}`);
  process.exit(2);
}
const session = connect();
try {
  await run(session);
} catch (error) {
  console.error(`${scenario}: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
} finally {
  session.client.close();
  await session.http.close();
}

// ---------------------------------------------------------------------------------------------
// The flows

/** `initialize`, `tools_call`: list the tools and call the first with two numbers. */
async function listAndCallFirstTool({ client }) {
  const { tools } = await client.request("tools/list");
  if (tools[0]) await client.callTool({ name: tools[0].name, arguments: { a: 2, b: 3 } });
}

/** `request-metadata`: every request declares the revision (header and `_meta`); the first is answered -32022 and retried. */
async function requestMetadata({ client }) {
  await client.request("server/discover");
  await client.request("tools/list");
}

/**
 * `sep-2322-client-request-state`: each tool answers `input_required` first; the client answers its
 * elicitation and retries. A call of another tool between the rounds must carry no state of the first.
 */
async function multiRoundTrip({ client }) {
  let unrelatedCalled = false;
  const inputHandlers = {
    "elicitation/create": async () => {
      if (!unrelatedCalled) {
        unrelatedCalled = true;
        await client.callTool({ name: "test_mrtr_unrelated", arguments: {} });
      }
      return { action: "accept", content: { confirmed: true } };
    },
  };
  await client.request("tools/list");
  await client.callTool({ name: "test_mrtr_echo_state", arguments: {} }, { inputHandlers });
  await client.callTool({ name: "test_mrtr_no_state", arguments: {} }, { inputHandlers });
  await client.callTool({ name: "test_mrtr_no_result_type", arguments: {} }, { inputHandlers });
}

/** `http-standard-headers`: one request of every kind that carries `Mcp-Method` and `Mcp-Name`. */
async function standardHeaders({ client }) {
  const { tools } = await client.request("tools/list");
  for (const tool of tools) await client.callTool({ name: tool.name, arguments: {} });
  const { resources } = await client.request("resources/list");
  for (const resource of resources) await client.request("resources/read", { uri: resource.uri });
  const { prompts } = await client.request("prompts/list");
  for (const prompt of prompts) await client.request("prompts/get", { name: prompt.name, arguments: {} });
}

/** `http-custom-headers`: the calls the scenario's context lists, after `tools/list` told the client their schemas. */
async function customHeaders({ client }) {
  await client.request("tools/list");
  for (const call of context.toolCalls ?? []) await client.callTool({ name: call.name, arguments: call.arguments });
}

/**
 * `http-invalid-tool-headers`: call every listed tool the client accepts; a tool whose
 * `x-mcp-header` annotations break the rules must be refused by the client, never sent.
 */
async function invalidToolHeaders({ client }) {
  const { tools } = await client.request("tools/list");
  for (const tool of tools) {
    try {
      await client.callTool({ name: tool.name, arguments: sampleArguments(tool.inputSchema) });
    } catch (error) {
      console.error(`${tool.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** `sse-retry`: the call's stream ends before its response; the transport resumes it after `retry:` with `Last-Event-ID`. */
async function sseRetry({ client }) {
  const { tools } = await client.request("tools/list");
  for (const tool of tools) await client.callTool({ name: tool.name, arguments: {} });
}

/** `elicitation-sep1034-client-defaults`: the server asks (on the GET stream) during the call; an empty accept gets the form's defaults. */
async function elicitationDefaults({ client }) {
  const { tools } = await client.request("tools/list");
  const tool = tools.find((t) => t.name === "test_client_elicitation_defaults");
  if (!tool) throw new Error("the server lists no test_client_elicitation_defaults tool");
  await client.callTool({ name: tool.name, arguments: {} });
}

// ---------------------------------------------------------------------------------------------
// The client

/** The generated client of the scenario's revision over the http-client transport. */
function connect() {
  // The user's answer to every elicitation: accept the form as shown, its defaults filled in (SEP-1034).
  const inputHandlers = {
    "elicitation/create": (params) => {
      const shown = draft.elicitation.elicitationDefaults(params?.requestedSchema);
      return { action: "accept", content: shown.ok ? shown.value : {} };
    },
  };
  if (version >= STATELESS) {
    const http = draft.http.streamableHttpTransport({ url: serverUrl });
    const client = draft.client.createTasksClient({
      ...http,
      protocolVersion: version,
      supportedProtocolVersions: [...new Set([version, STATELESS])],
      clientInfo: CLIENT_INFO,
      clientCapabilities: { elicitation: {} },
    });
    return { http, client };
  }
  const http = v2025.http.streamableHttpTransport({
    url: serverUrl,
    protocolVersion: version,
    clientInfo: CLIENT_INFO,
    capabilities: { elicitation: { form: { applyDefaults: true } } },
  });
  // The client answers the server's requests (`onRequest` of the transport) with its input handlers.
  const client = v2025.client.createTasksClient({ ...http, inputHandlers });
  return { http, client };
}

/** Arguments that satisfy a tool's input schema's required properties, by their type. */
function sampleArguments(schema) {
  const properties = schema?.properties ?? {};
  const sample = { string: "x", integer: 1, number: 1, boolean: true };
  const args = {};
  for (const name of schema?.required ?? []) args[name] = sample[properties[name]?.type] ?? "x";
  return args;
}

// ---------------------------------------------------------------------------------------------
// Loading the generated sets

/** The transpiled sets' folder (built unless MCP_TASKS_GEN_CLIENT_BUILD already holds them). */
function buildGenerated() {
  const kept = process.env.MCP_TASKS_GEN_CLIENT_BUILD;
  const work = kept ?? mkdtempSync(join(tmpdir(), "mcp-tasks-gen-conformance-client-"));
  if (!kept) process.on("exit", () => rmSync(work, { recursive: true, force: true }));
  if (kept && SETS.every((set) => existsSync(join(work, set, "index.js")))) return work;
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, "package.json"), '{ "type": "module" }\n');
  for (const set of SETS) {
    const from = join(root, "generated", set);
    const to = join(work, set);
    mkdirSync(to, { recursive: true });
    // The set's static runtime sits in its runtime/ subfolder (runtime/parts/http-client.ts, ...).
    for (const name of readdirSync(from, { recursive: true, encoding: "utf8" }).filter((n) => n.endsWith(".ts"))) {
      const { outputText } = ts.transpileModule(readFileSync(join(from, name), "utf8"), {
        fileName: name,
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      });
      mkdirSync(dirname(join(to, name)), { recursive: true });
      writeFileSync(join(to, name.replace(/\.ts$/, ".js")), outputText);
    }
  }
  return work;
}

async function load(set) {
  const from = (name) => import(pathToFileURL(join(build, set, `${name}.js`)).href);
  return {
    client: await from("client"),
    http: await from("runtime/parts/http-client"),
    ...(existsSync(join(build, set, "elicitation.js")) ? { elicitation: await from("elicitation") } : {}),
  };
}
