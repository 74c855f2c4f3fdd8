// `npm run bench:server`: how fast the generated Tasks server answers.
//
// 1. tasks/get throughput, in one process, over the SDK's InMemoryTransport: the generated
//    2025-11-25 server (behind a minimal JSON-RPC peer) against the SDK 1.32 `Server` with its
//    `InMemoryTaskStore`. Both answer the same stream of tasks/get requests for existing tasks,
//    sent by the same driver with the same number of requests in flight, in interleaved rounds;
//    the median requests/s of each and their ratio are printed (goal: at least 3×). Measured twice:
//    with a raw JSON-RPC driver (the servers' own cost) and with the SDK `Client` as the caller
//    (end to end, the client's Zod parsing included).
// 2. The example server (examples/ext-tasks-server, separate process) over loopback HTTP:
//    requests/s of tasks/get and of a sync tools/call, keep-alive connections, a bounded number
//    of requests in interleaved rounds after a warm-up, 127.0.0.1 only. The client runs in this
//    process and the server in its own, on the same machine: the figure is a floor, not a capacity.
//
// Usage: node bench/server.mjs [--rounds N] [--requests N] [--http-requests N]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { transpileSet } from "./lib/generated.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { values } = parseArgs({
  options: { rounds: { type: "string" }, requests: { type: "string" }, "http-requests": { type: "string" } },
});
const ROUNDS = positive(values.rounds ?? 9, "--rounds");
const REQUESTS = positive(values.requests ?? 20_000, "--requests");
const HTTP_REQUESTS = positive(values["http-requests"] ?? 20_000, "--http-requests");
const IN_FLIGHT = 32;
const HTTP_ROUNDS = 5;
const TASKS = 100;

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-bench-server-"));
let child;
try {
  transpileSet(join(root, "generated", "tasks-2025-11-25"), join(work, "tasks-2025-11-25"));
  const generated = await import(pathToFileURL(join(work, "tasks-2025-11-25", "server.js")).href);

  console.log(`tasks/get over InMemoryTransport: ${ROUNDS} interleaved rounds of ${REQUESTS} requests, ${IN_FLIGHT} in flight, ${TASKS} tasks`);
  const raw = await compare(await generatedPeer(generated), await sdkPeer(), rawDriver);
  table(["tasks/get, raw JSON-RPC driver", "requests/s (median)"], raw);
  const viaClient = await compare(await generatedPeer(generated), await sdkPeer(), clientDriver);
  table(["tasks/get, SDK Client as caller", "requests/s (median)"], viaClient);

  console.log(`\nexample server over loopback HTTP: ${HTTP_REQUESTS} requests per row in ${HTTP_ROUNDS} interleaved rounds, ${IN_FLIGHT} keep-alive connections`);
  const http = await startExample();
  child = http.child;
  table(["example server (Streamable HTTP)", "requests/s (median)"], await httpRows(http.url));
} finally {
  if (child && child.exitCode === null) child.kill("SIGTERM");
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

/** Starts the example server the way `npm run example:ext-tasks-server` does, on a free port. */
function startExample() {
  const child = spawn(process.execPath, [join(root, "examples/ext-tasks-server/run.mjs")], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output)?.[1];
      if (url) resolve({ url, child });
    });
    child.once("exit", (code) => reject(new Error(`the example server exited (${code}):\n${output}`)));
  });
}

async function httpRows(url) {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  const post = (method, params, name) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } });
      const req = request(url, {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": Buffer.byteLength(body),
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
          "mcp-name": name,
        },
      });
      req.on("response", (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => {
          const answer = JSON.parse(text);
          if (answer.error) reject(new Error(`${method}: ${JSON.stringify(answer.error)}`));
          else resolve(answer.result);
        });
      });
      req.on("error", reject);
      req.end(body);
    });
  const created = await post("tools/call", { name: "slow_compute", arguments: { seconds: 300, label: "bench" } }, "slow_compute");
  const rows = [
    { label: "tasks/get", send: () => post("tasks/get", { taskId: created.taskId }, created.taskId), samples: [] },
    { label: "tools/call greet (sync)", send: () => post("tools/call", { name: "greet", arguments: { name: "bench" } }, "greet"), samples: [] },
  ];
  /** `count` requests of a row, `IN_FLIGHT` at a time; requests/s. */
  const run = async (row, count) => {
    let next = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < count) await row.send();
      }),
    );
    return count / ((performance.now() - start) / 1000);
  };
  for (const row of rows) await run(row, 2000); // warm-up (both processes JIT)
  const perRound = Math.ceil(HTTP_REQUESTS / HTTP_ROUNDS);
  for (let round = 0; round < HTTP_ROUNDS; round++) {
    for (const row of round % 2 ? [...rows].reverse() : rows) row.samples.push(await run(row, perRound));
  }
  await post("tasks/cancel", { taskId: created.taskId }, created.taskId);
  agent.destroy();
  return rows.map((row) => [row.label, fmt(median(row.samples))]);
}

// --- output -------------------------------------------------------------------------------

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  console.log(`\n${line(header)}\n|${widths.map((w, i) => (i === 0 ? ` ${"-".repeat(w)} ` : ` ${"-".repeat(w - 1)}: `)).join("|")}|`);
  for (const row of rows) console.log(line(row));
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function fmt(n) {
  return Math.round(n).toLocaleString("en-US");
}

function positive(value, flag) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} expects a positive integer, got ${value}`);
  return n;
}
