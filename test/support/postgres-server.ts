/**
 * A private PostgreSQL server for tests: a fresh cluster (initdb) in a temporary folder, on a free
 * loopback port, its socket in that folder, stopped and removed by `stop()`. Debian keeps the
 * server binaries in /usr/lib/postgresql/<version>/bin, which need not be on PATH: they are
 * looked for there too. PostgreSQL refuses to run as root, so as root the cluster belongs to the
 * `postgres` user and its commands run as that user (runuser).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./redis-server.js";

export interface PostgresBinaries {
  readonly initdb: string;
  readonly pgCtl: string;
}

/** initdb and pg_ctl on PATH or in the newest /usr/lib/postgresql/<version>/bin; undefined when missing. */
export function findPostgresBinaries(): PostgresBinaries | undefined {
  const onPath = (name: string) => {
    const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
    return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
  };
  const initdb = onPath("initdb");
  const pgCtl = onPath("pg_ctl");
  if (initdb && pgCtl) return { initdb, pgCtl };
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")) && existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : { initdb: join(root, versions[0], "bin", "initdb"), pgCtl: join(root, versions[0], "bin", "pg_ctl") };
}

export interface PostgresServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** The uid and gid of the `postgres` user, when running as root. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

export async function startPostgresServer(binaries: PostgresBinaries): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-pg-"));
  const user = postgresUser();
  if (user) chownSync(dir, user.uid, user.gid);
  // As root, as the postgres user; otherwise as ourselves.
  const run = (command: string, args: string[]) => {
    const [file, argv] = user ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
    const result = spawnSync(file, argv, { encoding: "utf8", cwd: dir });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
  const data = join(dir, "data");
  const port = await freePort();
  run(binaries.initdb, ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  run(binaries.pgCtl, ["-D", data, "-o", settings, "-l", join(dir, "server.log"), "-w", "-t", "30", "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      try {
        run(binaries.pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
