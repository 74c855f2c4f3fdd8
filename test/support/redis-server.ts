/**
 * A private redis-server for tests: on a free loopback port, its files in a temporary folder,
 * stopped (and the folder removed) by `stop()`. Never the standard port, never a shared instance.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The redis-server binary on PATH, or undefined. */
export function findRedisServer(): string | undefined {
  const found = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
}

/** A free TCP port on loopback (the OS picks one; it is free again when this returns). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on the port (and answers PING, for Redis). */
async function waitForPing(port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port });
      socket.once("error", () => resolve(false));
      socket.once("connect", () => socket.write("PING\r\n"));
      socket.once("data", (data) => {
        socket.destroy();
        resolve(data.toString().startsWith("+PONG"));
      });
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Stops the server and starts it again on the same port and data (the append-only file). */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts redis-server on `port` (default: a free one). */
export async function startRedisServer(binary: string, port?: number): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-redis-"));
  port ??= await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      binary,
      ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "yes", "--appendfsync", "everysec", "--protected-mode", "yes"],
      { stdio: "ignore" },
    );
    await waitForPing(port!, 10_000);
  };
  const halt = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once("exit", () => resolve());
      running.kill("SIGTERM");
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    restart: async (downMs = 200) => {
      await halt();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await start();
    },
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
