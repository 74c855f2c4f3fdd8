// `npm run bench:hostile`: how much a flood of invalid requests slows the example server down for
// everyone else.
//
// The example server (examples/ext-tasks-server: the generated ext-tasks-draft Tasks server behind
// the generated `http-server` part) runs in its own process on 127.0.0.1. A driver in this process
// sends valid requests (`tasks/get` of an existing task and a sync `tools/call`, alternately) on
// keep-alive connections, a fixed number in flight, for a fixed time, and counts the answers. It does
// so alone and while a worker thread floods the same server with invalid requests, in interleaved
// rounds, and prints the medians and their ratio (valid throughput under the flood / alone; 1.0:
// the flood costs the valid callers nothing). The flood, each kind in turn on many connections:
// Content-Type text/plain (415), Accept text/html (406), Host evil.example (403), a body that is
// not JSON (400), `__proto__` as the method (-32601), tasks/get of a task that is not there (-32602); plus
// slow bodies held open the whole phase (headers and half a body, then silence: the server answers 408 after
// its 10 s body timeout, longer than a phase, so they hold connections; any answer they do get is counted).
// Client, flood and server share this machine's cores: compare the ratio, not the absolute figures.
//
// Usage: node bench/hostile.mjs [--rounds N] [--seconds S] [--flood-connections N] [--slow-bodies N] [--write]
// (--write: README's tables, see lib/results.mjs)
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { benchOptions, markdownTable, positiveInteger as positive, publishSection } from "./lib/results.mjs";

const VERSION = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

if (isMainThread) await main();
else await flood(workerData);

async function main() {
  const root = dirname(dirname(fileURLToPath(import.meta.url)));
  const { values } = benchOptions({
    rounds: { type: "string" },
    seconds: { type: "string" },
    "flood-connections": { type: "string" },
    "slow-bodies": { type: "string" },
  });
  const rounds = positive(values.rounds ?? 5, "--rounds");
  const seconds = positive(values.seconds ?? 2, "--seconds");
  const floodConnections = positive(values["flood-connections"] ?? 32, "--flood-connections");
  const slowBodies = positive(values["slow-bodies"] ?? 50, "--slow-bodies");
  const inFlight = 16;

  const server = await startExample(root);
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  try {
    const created = await post(server.url, agent, "tools/call", { name: "slow_compute", arguments: { seconds: 300, label: "bench" } }, "slow_compute");
    const taskId = created.body.result.taskId;
    let turn = 0;
    const valid = () =>
      turn++ % 2
        ? post(server.url, agent, "tasks/get", { taskId }, taskId)
        : post(server.url, agent, "tools/call", { name: "greet", arguments: { name: "bench" } }, "greet");
    /** Valid answers per second for `ms`, `inFlight` at a time; throws on any answer that is not a result. */
    const measure = async (ms) => {
      let answered = 0;
      const end = performance.now() + ms;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (performance.now() < end) {
            const { status, body } = await valid();
            if (status !== 200 || !body.result) throw new Error(`a valid request was answered ${status}: ${JSON.stringify(body)}`);
            answered++;
          }
        }),
      );
      return answered / ((performance.now() - start) / 1000);
    };

    const method =
      `Valid requests (\`tasks/get\` and a sync \`tools/call\`), ${inFlight} in flight, ${seconds} s per phase, ${rounds} interleaved rounds, medians; ` +
      `the flood: ${floodConnections} connections of invalid requests and ${slowBodies} slow bodies held open. No valid request failed.`;
    await measure(1000); // warm-up (both processes JIT)
    const alone = [];
    const underFlood = [];
    const floodRates = [];
    const floodKinds = new Map();
    for (let round = 0; round < rounds; round++) {
      const phases = round % 2 ? ["flood", "alone"] : ["alone", "flood"];
      for (const phase of phases) {
        if (phase === "alone") {
          alone.push(await measure(seconds * 1000));
          continue;
        }
        const worker = new Worker(fileURLToPath(import.meta.url), {
          workerData: { url: server.url, connections: floodConnections, slowBodies },
        });
        const started = new Promise((resolve) => worker.once("message", resolve));
        await started;
        const rate = await measure(seconds * 1000);
        const counts = await new Promise((resolve, reject) => {
          worker.once("message", resolve);
          worker.once("error", reject);
          worker.postMessage("stop");
        });
        await worker.terminate();
        underFlood.push(rate);
        floodRates.push(counts.answered / counts.seconds);
        for (const [kind, n] of Object.entries(counts.statuses)) floodKinds.set(kind, (floodKinds.get(kind) ?? 0) + n);
      }
    }
    const ratio = median(underFlood) / median(alone);
    const validTable = markdownTable(
      ["valid requests", "answers/s (median)"],
      [
        ["alone", fmt(median(alone))],
        ["during the flood", fmt(median(underFlood))],
        ["ratio (during / alone)", `${ratio.toFixed(2)}×`],
        ["all answers (valid and refused) during the flood / valid alone", `${((median(underFlood) + median(floodRates)) / median(alone)).toFixed(2)}×`],
      ],
    );
    const floodTable = markdownTable(
      ["invalid requests of the flood", "answered"],
      [
        ["per second (median)", fmt(median(floodRates))],
        ...[...floodKinds].filter(([status]) => !status.includes("slow body")).sort().map(([status, n]) => [`in all, HTTP ${status}`, fmt(n)]),
        [
          `slow bodies answered within their phase (the server's body timeout is 10 s, a phase ${seconds} s)`,
          [...floodKinds].filter(([status]) => status.includes("slow body")).map(([status, n]) => `${fmt(n)} (${status})`).join(", ") || "0",
        ],
      ],
    );
    publishSection({ name: "hostile", markdown: [method, "", validTable, "", floodTable].join("\n") });
    await post(server.url, agent, "tasks/cancel", { taskId }, taskId);
  } finally {
    agent.destroy();
    server.child.kill("SIGTERM");
  }
}

/** The flood, in a worker thread: invalid requests on `connections` connections and slow bodies, until told to stop. */
async function flood({ url, connections, slowBodies }) {
  const target = new URL(url);
  const port = Number(target.port);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const statuses = {};
  let answered = 0;
  let stopped = false;
  const headers = (method, extra = {}) => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    "mcp-method": method,
    ...extra,
  });
  const body = (method, params = {}) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { _meta: META, ...params } });
  const kinds = [
    { headers: headers("ping", { "content-type": "text/plain" }), body: body("ping") },
    { headers: headers("ping", { accept: "text/html" }), body: body("ping") },
    { headers: headers("ping", { host: "evil.example" }), body: body("ping") },
    { headers: headers("ping"), body: '{"jsonrpc": "2.0", "id": 1, "method": ' },
    { headers: headers("__proto__", { "mcp-name": "x" }), body: body("__proto__", { name: "x" }) },
    { headers: headers("tasks/get", { "mcp-name": "nope" }), body: body("tasks/get", { taskId: "nope" }) },
  ];
  const send = (kind) =>
    new Promise((resolve) => {
      const req = request(url, { method: "POST", agent, headers: { ...kind.headers, "content-length": Buffer.byteLength(kind.body) } });
      req.on("response", (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => {
          let code = "";
          try {
            code = ` ${JSON.parse(text).error.code}`;
          } catch {}
          const key = `${res.statusCode}${code}`;
          statuses[key] = (statuses[key] ?? 0) + 1;
          answered++;
          resolve();
        });
      });
      req.on("error", () => {
        statuses["connection error"] = (statuses["connection error"] ?? 0) + 1;
        resolve();
      });
      req.end(kind.body);
    });
  // Slow bodies: half a body, then silence; reopened when the server times one out.
  const sockets = new Set();
  const slow = () => {
    if (stopped) return;
    const socket = connect(port, "127.0.0.1");
    sockets.add(socket);
    const text = body("ping");
    socket.write(`POST /mcp HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/json\r\ncontent-length: ${text.length}\r\n\r\n${text.slice(0, 20)}`);
    // The server's answer to a slow body (its status line: 408 when it timed the body out) is counted too.
    let head = "";
    socket.on("data", (chunk) => {
      if (head === null) return;
      head += chunk.toString("latin1");
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      if (!status && head.length < 64) return;
      const key = status ? `${status[1]} (slow body)` : "slow body: not HTTP";
      statuses[key] = (statuses[key] ?? 0) + 1;
      answered++;
      head = null;
    });
    socket.on("error", () => {});
    socket.once("close", () => {
      sockets.delete(socket);
      slow();
    });
  };
  for (let i = 0; i < slowBodies; i++) slow();
  const start = performance.now();
  let next = 0;
  const loops = Array.from({ length: connections }, async () => {
    while (!stopped) await send(kinds[next++ % kinds.length]);
  });
  parentPort.postMessage("started");
  await new Promise((resolve) => parentPort.once("message", resolve));
  stopped = true;
  const seconds = (performance.now() - start) / 1000;
  await Promise.all(loops);
  for (const socket of sockets) socket.destroy();
  agent.destroy();
  parentPort.postMessage({ answered, seconds, statuses });
}

/** One valid request on the keep-alive agent: its status and JSON body. */
function post(url, agent, method, params, name) {
  const text = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: META } });
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      agent,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": Buffer.byteLength(text),
        "mcp-protocol-version": VERSION,
        "mcp-method": method,
        "mcp-name": name,
      },
    });
    req.on("response", (res) => {
      let answer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (answer += chunk));
      res.on("end", () => resolve({ status: res.statusCode, body: JSON.parse(answer) }));
    });
    req.on("error", reject);
    req.end(text);
  });
}

/** Starts the example server the way `npm run example:ext-tasks-server` does, on a free port. */
function startExample(root) {
  const child = spawn(process.execPath, [join(root, "examples/ext-tasks-server/run.mjs")], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let errors = "";
  child.stderr.on("data", (chunk) => (errors += chunk));
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output)?.[1];
      if (url) resolve({ url, child });
    });
    child.once("exit", (code) => reject(new Error(`the example server exited (${code}):\n${output}${errors}`)));
  });
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function fmt(n) {
  return Math.round(n).toLocaleString("en-US");
}

