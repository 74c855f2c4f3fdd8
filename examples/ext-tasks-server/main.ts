/** Entry point: `npm run example:ext-tasks-server` (port from PORT, default 3000; 0 picks a free one). */
import { startExampleServer } from "./server.js";

const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got ${process.env.PORT}`);
  process.exit(2);
}

const server = await startExampleServer({ port, ...(process.env.HOST ? { host: process.env.HOST } : {}) });
// Tests and scripts read this line to find the server.
console.log(`ext-tasks example server listening on ${server.url}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
