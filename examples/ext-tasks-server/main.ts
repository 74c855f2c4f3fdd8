/**
 * Entry point: `npm run example:ext-tasks-server`. Environment (README, Scaling out):
 * PORT (default 3000; 0 picks a free one), HOST (default 127.0.0.1), TASK_STORE (default in memory),
 * INSTANCE_ID (default host name and process id; names this instance in logs and as its tasks' lease holder),
 * TASK_LEASE_MS (a running task's lease; default the server's), MCP_TOKEN_SECRET (when set, callers need a
 * bearer token signed with it, auth.ts, and own tasks by its subject; default unset: unauthenticated).
 */
import { hostname } from "node:os";
import { hmacTokens } from "./auth.js";
import { startExampleServer } from "./server.js";
import { StoreConfigError, storeFromEnv } from "./store.js";

const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got ${process.env.PORT}`);
  process.exit(2);
}
const instanceId = process.env.INSTANCE_ID || `${hostname()}-${process.pid}`;
const leaseDuration = process.env.TASK_LEASE_MS === undefined ? undefined : Number(process.env.TASK_LEASE_MS);
if (leaseDuration !== undefined && !(Number.isInteger(leaseDuration) && leaseDuration >= 100)) {
  console.error(`TASK_LEASE_MS must be a whole number of milliseconds, at least 100, got ${process.env.TASK_LEASE_MS}`);
  process.exit(2);
}

const tokenSecret = process.env.MCP_TOKEN_SECRET;
if (tokenSecret !== undefined && Buffer.byteLength(tokenSecret) < 32) {
  console.error("MCP_TOKEN_SECRET must be at least 32 bytes");
  process.exit(2);
}

const chosen = await storeFromEnv(process.env.TASK_STORE).catch((error: unknown) => {
  if (!(error instanceof StoreConfigError)) throw error;
  console.error(error.message);
  process.exit(2);
});

const server = await startExampleServer({
  port,
  ...(process.env.HOST ? { host: process.env.HOST } : {}),
  ...(chosen.store ? { store: chosen.store } : {}),
  instanceId,
  ...(leaseDuration ? { leaseDuration } : {}),
  ...(tokenSecret ? { verifyToken: hmacTokens(tokenSecret).verify } : {}),
});
// Tests and scripts read this line to find the server.
console.log(`ext-tasks example server listening on ${server.url} (instance ${instanceId}, store ${chosen.description})`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void server
      .close()
      .then(() => chosen.close())
      .then(() => process.exit(0));
  });
}
