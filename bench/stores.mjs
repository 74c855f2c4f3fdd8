// `npm run bench:stores`: the example server (examples/ext-tasks-server) on each task store, one
// instance and three behind the test round-robin proxy (test/support/round-robin-proxy.ts), in one run.
//
// Per row: `tasks/get` of an existing task (requests/s, latency p50/p99) and create→complete
// (`tools/call slow_compute {seconds: 0}` answers a task at once; the client polls `tasks/get` until
// it reads `completed`: tasks/s and the latency of the whole, p50/p99). Ratios are against the
// in-memory store on one instance, measured in the same run. Three in-memory instances share nothing
// (a task is unknown to the other two), so that row is reported as such, not measured.
// Redis and PostgreSQL are private servers on free loopback ports in temporary folders (the test
// helpers test/support/redis-server.ts and postgres-server.ts); a store whose server binaries are
// missing is reported as skipped, with the reason.
//
// Client and servers share this machine: the figures compare the stores, they are not capacities.
//
// Usage: node bench/stores.mjs [--gets N] [--tasks N] [--in-flight N] [--only memory,sqlite,redis,postgres] [--write]
// (--write: README's table, see lib/results.mjs)
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { benchOptions, markdownTable, positiveInteger as positive, publishSection, usageError } from "./lib/results.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { values } = benchOptions({ gets: { type: "string" }, tasks: { type: "string" }, "in-flight": { type: "string" }, only: { type: "string" } });
const GETS = positive(values.gets ?? 4000, "--gets");
const TASKS = positive(values.tasks ?? 400, "--tasks");
const IN_FLIGHT = positive(values["in-flight"] ?? 16, "--in-flight");
const KNOWN_STORES = ["memory", "sqlite", "redis", "postgres"];
const STORES = (values.only ?? KNOWN_STORES.join(",")).split(",");
// Refused before anything starts: a private server left running by a refusal mid-run would outlive the script.
for (const name of STORES) if (!KNOWN_STORES.includes(name)) usageError(`--only: unknown store ${name} (${KNOWN_STORES.join(", ")})`);

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-bench-stores-"));
const children = new Set();
const cleanups = [];
try {
  const support = await loadSupport(["round-robin-proxy.ts", "redis-server.ts", "postgres-server.ts", "store-servers.ts"]);
  console.error(`example server per store, 1 instance and 3 behind a round-robin proxy`);
  const rows = [];
  for (const name of STORES) {
    const backend = await startBackend(name, support);
    if (backend.skipped) {
      rows.push({ store: name, instances: "–", skipped: backend.skipped });
      console.error(`${name}: skipped (${backend.skipped})`);
      continue;
    }
    cleanups.push(backend.stop);
    for (const count of [1, 3]) {
      if (name === "memory" && count === 3) {
        rows.push({ store: name, instances: "3", skipped: "not shared: a task is unknown to the other instances" });
        continue;
      }
      const instances = await Promise.all(Array.from({ length: count }, (_, i) => startInstance({ TASK_STORE: backend.url, INSTANCE_ID: `bench-${name}-${i}` })));
      const proxy = count > 1 ? await support["round-robin-proxy.ts"].startRoundRobinProxy(instances.map((i) => new URL(i.url).origin)) : undefined;
      try {
        const url = proxy ? `${proxy.url}/mcp` : instances[0].url;
        const measured = await measure(url);
        rows.push({ store: name, instances: String(count), ...measured });
        console.error(`${name} ×${count}: tasks/get ${fmt(measured.get.rate)}/s, create→complete ${fmt(measured.cycle.rate)}/s`);
      } finally {
        await proxy?.close();
        for (const instance of instances) await instance.stop();
      }
    }
  }
  print(rows);
} finally {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  for (const stop of cleanups.reverse()) await stop().catch(() => {});
  rmSync(work, { recursive: true, force: true });
}

// --- stores and instances -----------------------------------------------------------------

/** The TASK_STORE value of each store, after starting its private server when it needs one. */
async function startBackend(name, support) {
  switch (name) {
    case "memory":
      return { url: "memory:", stop: async () => {} };
    case "sqlite":
      return { url: `sqlite:${join(work, "tasks.db")}`, stop: async () => {} };
    case "redis":
    case "postgres": {
      const servers = support["store-servers.ts"];
      if (!servers) return { skipped: "test/support/store-servers.ts is missing" };
      const reason = servers.skipReason(name);
      if (reason) return { skipped: reason };
      const server = await servers.startStoreServer(name);
      return { url: server.url, stop: () => server.stop() };
    }
    default:
      throw new Error(`internal: no backend for store ${name}`);
  }
}

/** One example process (`examples/ext-tasks-server/run.mjs`, PORT=0); resolves once it listens. */
function startInstance(env) {
  const child = spawn(process.execPath, [join(root, "examples/ext-tasks-server/run.mjs")], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let output = "";
    const read = (chunk) => {
      output += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output)?.[1];
      if (url)
        resolve({
          url,
          stop: async () => {
            child.kill("SIGTERM");
            await exited;
            children.delete(child);
          },
        });
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.once("exit", (code, signal) => reject(new Error(`the example server exited (${code ?? signal}):\n${output}`)));
  });
}

/**
 * The test helpers this bench shares (TypeScript): transpiled into the work folder, imported. A helper
 * missing from test/support is left out (its store is then reported as skipped).
 */
async function loadSupport(names) {
  const dir = join(work, "support");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  const modules = {};
  for (const name of names) {
    let source;
    try {
      source = readFileSync(join(root, "test", "support", name), "utf8");
    } catch {
      continue;
    }
    const { outputText } = ts.transpileModule(source, {
      fileName: name,
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    writeFileSync(join(dir, name.replace(/\.ts$/, ".js")), outputText);
  }
  for (const name of names) {
    try {
      modules[name] = await import(pathToFileURL(join(dir, name.replace(/\.ts$/, ".js"))).href);
    } catch (error) {
      if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
    }
  }
  return modules;
}

// --- measuring ----------------------------------------------------------------------------

async function measure(url) {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const post = client(url, agent);
  try {
    const long = await post("tools/call", { name: "slow_compute", arguments: { seconds: 300, label: "bench" } }, "slow_compute");
    if (long.resultType !== "task") throw new Error(`slow_compute did not create a task: ${JSON.stringify(long)}`);
    const taskId = long.task?.taskId ?? long.taskId;
    const get = async () => {
      const task = await post("tasks/get", { taskId }, taskId);
      if (task.status !== "working") throw new Error(`tasks/get: unexpected ${JSON.stringify(task)}`);
    };
    const cycle = async () => {
      const created = await post("tools/call", { name: "slow_compute", arguments: { seconds: 0, label: "bench" } }, "slow_compute");
      const id = created.task?.taskId ?? created.taskId;
      for (;;) {
        const task = await post("tasks/get", { taskId: id }, id);
        if (task.status === "completed") return;
        if (task.status !== "working") throw new Error(`create→complete: task ended ${task.status}`);
      }
    };
    await lanes(get, Math.ceil(GETS / 5)); // warm-up (JIT, connections, the store's caches)
    await lanes(cycle, Math.ceil(TASKS / 5));
    const result = { get: await lanes(get, GETS), cycle: await lanes(cycle, TASKS) };
    await post("tasks/cancel", { taskId }, taskId);
    return result;
  } finally {
    agent.destroy();
  }
}

/** Runs `operation` `count` times, IN_FLIGHT at a time; operations per second and latency percentiles (ms). */
async function lanes(operation, count) {
  const latencies = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next++ < count) {
        const t = performance.now();
        await operation();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { rate: count / seconds, p50: at(0.5), p99: at(0.99) };
}

/** A JSON-RPC client of the example's stateless envelope; rejects on an error answer or a non-200 status. */
function client(url, agent) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  let id = 0;
  return (method, params, name) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: { ...params, _meta: meta } });
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
          if (res.statusCode !== 200) return reject(new Error(`${method}: HTTP ${res.statusCode} ${text}`));
          const answer = JSON.parse(text);
          if (answer.error) reject(new Error(`${method}: ${JSON.stringify(answer.error)}`));
          else resolve(answer.result);
        });
      });
      req.on("error", reject);
      req.end(body);
    });
}

// --- output -------------------------------------------------------------------------------

function print(rows) {
  const base = rows.find((r) => r.store === "memory" && r.instances === "1" && !r.skipped);
  const ratio = (value, of) => (base ? `${(value / of).toFixed(2)}×` : "–");
  const header = ["store", "instances", "tasks/get /s", "p50 ms", "p99 ms", "× memory", "create→complete /s", "p50 ms", "p99 ms", "× memory"];
  const cells = rows.map((r) =>
    r.skipped
      ? [r.store, r.instances, `— ${r.skipped}`, "", "", "", "", "", "", ""]
      : [
          r.store,
          r.instances,
          fmt(r.get.rate),
          ms(r.get.p50),
          ms(r.get.p99),
          ratio(r.get.rate, base?.get.rate),
          fmt(r.cycle.rate),
          ms(r.cycle.p50),
          ms(r.cycle.p99),
          ratio(r.cycle.rate, base?.cycle.rate),
        ],
  );
  publishSection({
    name: "stores",
    markdown: [
      `tasks/get: ${fmt(GETS)} reads of one running task; create→complete: ${fmt(TASKS)} tasks; ${IN_FLIGHT} requests in flight on keep-alive connections. × memory: per second against the in-memory store on one instance, this run.`,
      "",
      markdownTable(header, cells, header.map((_, i) => (i < 2 ? "l" : "r"))),
    ].join("\n"),
  });
}

function ms(n) {
  return n.toFixed(n < 10 ? 2 : 1);
}

function fmt(n) {
  return Math.round(n).toLocaleString("en-US");
}

