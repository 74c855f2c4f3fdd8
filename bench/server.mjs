// `npm run bench:server`: how fast the generated Tasks server answers, and what its HTTP handler costs.
//
// 1. tasks/get throughput, in one process, over the SDK's InMemoryTransport: the generated
//    2025-11-25 server (behind a minimal JSON-RPC peer) against the SDK 1.32 `Server` with its
//    `InMemoryTaskStore`. Both answer the same stream of tasks/get requests for existing tasks,
//    sent by the same driver with the same number of requests in flight, in interleaved rounds;
//    the median requests/s of each and their ratio are printed (goal: at least 3×). Measured twice:
//    with a raw JSON-RPC driver (the servers' own cost) and with the SDK `Client` as caller
//    (end to end, the client's Zod parsing included).
// 2. Over loopback HTTP, each server in its own process and this process the load generator (so its
//    CPU is not counted): the example server (examples/ext-tasks-server, in-memory store) answering
//    `tasks/get` of one running task and a sync `tools/call`, and a bare `node:http` server that reads
//    each body and answers the very bytes the example sent for that `tasks/get`. 32 keep-alive
//    connections per row, interleaved rounds after a warm-up, medians. Per row: requests/s and the
//    server process's CPU per request (its own process.cpuUsage() delta over the round, read over IPC
//    by bench/lib/cpu-probe.mjs, ÷ requests answered), which other load on the machine barely moves;
//    the ratio generated / bare is taken round by round (goal: CPU ≤ 1.5×).
//
// Usage: node bench/server.mjs [--rounds N] [--requests N] [--http-rounds N] [--http-requests N] [--http-only] [--write]
// (--http-only: the HTTP rows alone)
// (--write puts the tables into README.md between <!-- bench:server --> markers, bench/lib/results.mjs)
// Server processes get NODE options from --server-node-args "…" (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p").
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { transpileSet } from "./lib/generated.mjs";
import { benchOptions, positiveInteger as positive, publishSection } from "./lib/results.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { values } = benchOptions({
  rounds: { type: "string" },
  requests: { type: "string" },
  "http-rounds": { type: "string" },
  "http-requests": { type: "string" },
  "server-node-args": { type: "string" },
  "http-only": { type: "boolean" },
});
const ROUNDS = positive(values.rounds ?? 9, "--rounds");
const REQUESTS = positive(values.requests ?? 20_000, "--requests");
const HTTP_ROUNDS = positive(values["http-rounds"] ?? 7, "--http-rounds");
const HTTP_PER_ROUND = Math.ceil(positive(values["http-requests"] ?? 35_000, "--http-requests") / HTTP_ROUNDS);
const HTTP_WARMUP = 5_000;
const IN_FLIGHT = 32;
const TASKS = 100;
// What every stateless request carries (the example speaks the 2026-07-28 draft revision).
const PROTOCOL_VERSION = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

const serverArgs = values["server-node-args"]?.split(/\s+/).filter(Boolean) ?? [];

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-bench-server-"));
const servers = [];
const sections = [];
try {
  if (!values["http-only"]) {
    transpileSet(join(root, "generated", "tasks-2025-11-25"), join(work, "tasks-2025-11-25"));
    const generated = await import(pathToFileURL(join(work, "tasks-2025-11-25", "server.js")).href);
    sections.push(
      `\`tasks/get\` over the SDK's InMemoryTransport, in one process: ${ROUNDS} interleaved rounds of ${fmt(REQUESTS)} requests, ${IN_FLIGHT} in flight, ${TASKS} tasks.`,
    );
    const raw = await compare(await generatedPeer(generated), await sdkPeer(), rawDriver);
    sections.push(table(["`tasks/get`, raw JSON-RPC driver", "requests/s (median)"], raw));
    const viaClient = await compare(await generatedPeer(generated), await sdkPeer(), clientDriver);
    sections.push(table(["`tasks/get`, SDK `Client` as caller", "requests/s (median)"], viaClient));
  }
  sections.push(
    `Over loopback HTTP, each server in its own process, this script the load generator: ${HTTP_ROUNDS} interleaved rounds of ${fmt(HTTP_PER_ROUND)} requests per row after ${fmt(HTTP_WARMUP)} to warm up, ${IN_FLIGHT} keep-alive connections per row. CPU is the server process's own (\`process.cpuUsage()\` over the round ÷ requests).`,
  );
  sections.push(table(["loopback HTTP, 32 keep-alive connections", "requests/s (median)", "server µs CPU / request (median)"], await httpRows()));
  publishSection({ name: "server", markdown: sections.join("\n\n") });
} finally {
  for (const child of servers) if (child.exitCode === null) child.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
}

// --- contenders ---------------------------------------------------------------------------

/** The generated server behind a peer that hands each message to `handle` and sends the answer back. */
async function generatedPeer(generated) {
  const tasks = generated.createTasksServer();
  const taskIds = [];
  for (let i = 0; i < TASKS; i++) taskIds.push((await tasks.createTask({ owner: "bench" }, { ttl: 3_600_000 })).taskId);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.onmessage = (message) => {
    if (message.method === "initialize") return void serverSide.send({ jsonrpc: "2.0", id: message.id, result: initializeResult("generated") });
    if (message.id === undefined) return;
    void tasks.handle(message, { owner: "bench" }).then((response) => serverSide.send(response));
  };
  await serverSide.start();
  return { name: "generated 2025-11-25 server", transport: clientSide, taskIds };
}

/** The SDK 1.32 Server with its InMemoryTaskStore answering tasks/get itself. */
async function sdkPeer() {
  const taskStore = new InMemoryTaskStore();
  const server = new Server({ name: "sdk", version: "1.32.2" }, { capabilities: initializeResult("sdk").capabilities, taskStore });
  const taskIds = [];
  for (let i = 0; i < TASKS; i++) {
    const task = await taskStore.createTask({ ttl: 3_600_000 }, i, { method: "tools/call", params: { name: "bench" } });
    taskIds.push(task.taskId);
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return {
    name: "SDK 1.32 Server + InMemoryTaskStore",
    transport: clientSide,
    taskIds,
    close: async () => {
      taskStore.cleanup(); // its TTL timers would keep the process alive
      await server.close();
    },
  };
}

function initializeResult(name) {
  return {
    protocolVersion: "2025-11-25",
    capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    serverInfo: { name, version: "0" },
  };
}

// --- drivers ------------------------------------------------------------------------------

/** Sends `count` tasks/get requests as raw JSON-RPC, `IN_FLIGHT` at a time; checks every answer is the task. */
function rawDriver(peer) {
  const { transport, taskIds } = peer;
  return {
    async start() {
      await transport.start();
    },
    run(count) {
      return new Promise((resolve, reject) => {
        let sent = 0;
        let answered = 0;
        const send = () => {
          const id = sent++;
          void transport.send({ jsonrpc: "2.0", id, method: "tasks/get", params: { taskId: taskIds[id % taskIds.length] } });
        };
        transport.onmessage = (message) => {
          if (message.result?.status !== "working") return reject(new Error(`${peer.name}: unexpected answer ${JSON.stringify(message)}`));
          if (++answered === count) resolve();
          else if (sent < count) send();
        };
        for (let i = 0; i < Math.min(IN_FLIGHT, count); i++) send();
      });
    },
  };
}

/** The same through the SDK Client (`client.experimental.tasks.getTask`). */
function clientDriver(peer) {
  const client = new Client({ name: "bench", version: "0" }, { capabilities: {} });
  return {
    async start() {
      await client.connect(peer.transport);
    },
    async run(count) {
      let next = 0;
      const lane = async () => {
        while (next < count) {
          const task = await client.experimental.tasks.getTask(peer.taskIds[next++ % peer.taskIds.length]);
          if (task.status !== "working") throw new Error(`${peer.name}: unexpected answer ${JSON.stringify(task)}`);
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    },
  };
}

/** Interleaved rounds (alternating which goes first), after a warm-up; median requests/s of each and the ratio. */
async function compare(ours, theirs, makeDriver) {
  const contenders = [ours, theirs].map((peer) => ({ peer, driver: makeDriver(peer), samples: [] }));
  for (const c of contenders) await c.driver.start();
  for (const c of contenders) await c.driver.run(REQUESTS); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...contenders].reverse() : contenders;
    for (const c of order) {
      const start = performance.now();
      await c.driver.run(REQUESTS);
      c.samples.push(REQUESTS / ((performance.now() - start) / 1000));
    }
  }
  for (const c of contenders) await c.peer.close?.();
  const [a, b] = contenders.map((c) => median(c.samples));
  return [
    [ours.name, fmt(a)],
    [theirs.name, fmt(b)],
    ["ratio (generated / SDK)", `${(a / b).toFixed(2)}× ${a / b >= 3 ? "(goal ≥ 3×: met)" : "(goal ≥ 3×: NOT met)"}`],
  ];
}

// --- HTTP ---------------------------------------------------------------------------------

/**
 * Starts a server process on a free loopback port and waits for its "listening on URL" line. The process
 * loads bench/lib/cpu-probe.mjs, so `cpu()` reads its own CPU time over IPC.
 */
function startServer(script, env = {}) {
  const child = spawn(process.execPath, ["--import", pathToFileURL(join(root, "bench/lib/cpu-probe.mjs")).href, ...serverArgs, script], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  servers.push(child);
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output)?.[1];
      if (url) resolve({ url, child, cpu: () => cpuOf(child) });
    });
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}):\n${output}`)));
  });
}

/** The server process's CPU time so far (user + system, µs). */
function cpuOf(child) {
  return new Promise((resolve) => {
    child.once("message", (message) => resolve(message.cpu));
    child.send("cpu");
  });
}

/** One request, built once: its body and headers are the same bytes every time it is sent. */
function preparedRequest(url, method, params, name) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: META } }));
  const { hostname, port, pathname } = new URL(url);
  return {
    method,
    body,
    options: {
      hostname,
      port,
      path: pathname,
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": body.length,
        "mcp-protocol-version": PROTOCOL_VERSION,
        "mcp-method": method,
        "mcp-name": name,
      },
    },
  };
}

/** Sends a prepared request (to `url`'s server) on `agent`; resolves with the status, headers and body text. */
function send(agent, prepared, url = undefined) {
  return new Promise((resolve, reject) => {
    const options = url ? { ...prepared.options, port: new URL(url).port } : prepared.options;
    const req = request({ ...options, agent });
    req.on("response", (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(prepared.body);
  });
}

/**
 * The loopback HTTP rows: the example server (in-memory store) and a bare node:http server that sends the bytes
 * the example sent for the same tasks/get, each in its own process, loaded by this one over the same 32 keep-alive
 * connections per server, in interleaved rounds after a warm-up. Per row: median requests/s and median µs of the
 * server process's CPU per request (its process.cpuUsage() delta over the round ÷ requests answered).
 */
async function httpRows() {
  const example = await startServer(join(root, "examples/ext-tasks-server/run.mjs"));
  const setupAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const call = async (prepared) => {
    const answer = await send(setupAgent, prepared);
    const parsed = JSON.parse(answer.text);
    if (parsed.error) throw new Error(`${prepared.method}: ${JSON.stringify(parsed.error)}`);
    return { ...answer, result: parsed.result };
  };
  const created = await call(
    preparedRequest(example.url, "tools/call", { name: "slow_compute", arguments: { seconds: 300, label: "bench" } }, "slow_compute"),
  );
  const taskId = created.result.taskId;
  const getTask = preparedRequest(example.url, "tasks/get", { taskId }, taskId);
  const greet = preparedRequest(example.url, "tools/call", { name: "greet", arguments: { name: "bench" } }, "greet");
  // What the example answers to this tasks/get: the bare server sends exactly these bytes (Node adds Date,
  // Connection and Keep-Alive to both).
  const sample = await call(getTask);
  const { date: _date, connection: _connection, "keep-alive": _keepAlive, ...headers } = sample.headers;
  const bare = await startServer(join(root, "bench/lib/bare-http-server.mjs"), {
    BARE_ANSWER: JSON.stringify({ status: sample.status, headers, body: sample.text }),
  });
  setupAgent.destroy();

  const expected = sample.text;
  const rows = [
    { label: "bare `node:http`, the same answer bytes", server: bare, prepared: getTask, expect: expected },
    { label: "generated (example server): `tasks/get`", server: example, prepared: getTask, expect: expected },
    { label: "generated (example server): `tools/call` greet (sync)", server: example, prepared: greet },
  ];
  for (const row of rows) {
    row.agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    row.rates = [];
    row.cpus = [];
  }
  /** `count` requests of a row, `IN_FLIGHT` at a time on its own keep-alive connections; requests/s and server µs CPU/request. */
  const run = async (row, count) => {
    let next = 0;
    const cpuBefore = await row.server.cpu();
    const start = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < count) {
          const answer = await send(row.agent, row.prepared, row.server.url);
          if (answer.status !== 200 || (row.expect !== undefined && answer.text !== row.expect)) {
            throw new Error(`${row.label}: unexpected answer ${answer.status} ${answer.text}`);
          }
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    const cpu = (await row.server.cpu()) - cpuBefore;
    return { rate: count / seconds, cpuPerRequest: cpu / count };
  };
  for (const row of rows) await run(row, HTTP_WARMUP); // warm-up (every process JITs)
  for (let round = 0; round < HTTP_ROUNDS; round++) {
    for (const row of round % 2 ? [...rows].reverse() : rows) {
      const { rate, cpuPerRequest } = await run(row, HTTP_PER_ROUND);
      row.rates.push(rate);
      row.cpus.push(cpuPerRequest);
    }
  }
  for (const row of rows) row.agent.destroy();
  await call(preparedRequest(example.url, "tasks/cancel", { taskId }, taskId)).catch(() => {});
  // Same-run ratios, round by round: the median of each round's ratio (robust to load that changes between rounds).
  const cpuRatio = median(rows[1].cpus.map((cpu, i) => cpu / rows[0].cpus[i]));
  const rateRatio = median(rows[1].rates.map((rate, i) => rate / rows[0].rates[i]));
  return [
    ...rows.map((row) => [row.label, fmt(median(row.rates)), median(row.cpus).toFixed(1)]),
    [
      "`tasks/get`: generated / bare (median of the rounds' ratios)",
      `${rateRatio.toFixed(2)}×`,
      `${cpuRatio.toFixed(2)}× ${cpuRatio <= 1.5 ? "(goal ≤ 1.5×: met)" : "(goal ≤ 1.5×: NOT met)"}`,
    ],
  ];
}

// --- output -------------------------------------------------------------------------------

/** A markdown table; the first column left-aligned, the others right-aligned. */
function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? ` ${"-".repeat(w)} ` : ` ${"-".repeat(w - 1)}: `)).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function fmt(n) {
  return Math.round(n).toLocaleString("en-US");
}

