/**
 * Where the example keeps its tasks, from `TASK_STORE` (README, Scaling out):
 * - unset or `memory:` — in this process (lost on exit; not shared between instances);
 * - `sqlite:<file>` — an SQLite file (several processes on one machine may share it);
 * - `redis://…` (`rediss://` with TLS) — Redis (the `redis-store` runtime part, peer ioredis);
 * - `postgres://…` or `postgresql://…` — PostgreSQL (the `postgres-store` runtime part, peer pg).
 * Redis and PostgreSQL are shared by every instance given the same URL, on any machine.
 *
 * A store is created only when asked for, so its peer is loaded only then.
 */
import type { StoredTask, TaskStore } from "../../generated/ext-tasks-draft/server.js";

export interface ChosenStore {
  /** undefined: the server's default in-memory store. */
  readonly store?: TaskStore;
  /** What the startup line says (no credentials). */
  readonly description: string;
  close(): Promise<void>;
}

/** Thrown for a `TASK_STORE` the example cannot use; main prints the message and exits 2. */
export class StoreConfigError extends Error {
  override readonly name = "StoreConfigError";
}

/** Opens the store `TASK_STORE` names (see the module comment). */
export async function storeFromEnv(value: string | undefined): Promise<ChosenStore> {
  if (value === undefined || value === "" || value === "memory:") return { description: "memory", close: async () => {} };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  switch (scheme) {
    case "sqlite": {
      const file = value.slice("sqlite:".length);
      if (!file) throw new StoreConfigError("TASK_STORE=sqlite:<file> needs a file name");
      const { SqliteTaskStore } = await import("../../generated/ext-tasks-draft/runtime/parts/sqlite-store.js");
      const store = new SqliteTaskStore<StoredTask>(file);
      return { store, description: `sqlite:${file}`, close: async () => store.close() };
    }
    case "redis":
    case "rediss": {
      const { RedisTaskStore } = await import("../../generated/ext-tasks-draft/runtime/parts/redis-store.js");
      const store = new RedisTaskStore<StoredTask>(value);
      return { store, description: withoutCredentials(value), close: () => store.close() };
    }
    case "postgres":
    case "postgresql": {
      const { PostgresTaskStore } = await import("../../generated/ext-tasks-draft/runtime/parts/postgres-store.js");
      const store = new PostgresTaskStore<StoredTask>(value);
      return { store, description: withoutCredentials(value), close: () => store.close() };
    }
    default:
      throw new StoreConfigError(
        `TASK_STORE: unsupported store "${withoutCredentials(value)}" (use memory:, sqlite:<file>, redis://host:port, postgres://user@host:port/database)`,
      );
  }
}

/** The URL with any user:password@ part masked, for logs. */
function withoutCredentials(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//…@");
}
