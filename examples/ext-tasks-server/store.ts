/**
 * Where the example keeps its tasks, from `TASK_STORE` (README, Scaling out):
 * - unset or `memory:` — in this process (lost on exit; not shared between instances);
 * - `sqlite:<file>` — an SQLite file (several processes on one machine may share it);
 *
 * A store is created only when asked for, so its peer (better-sqlite3) is loaded only then.
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
      const { SqliteTaskStore } = await import("../../generated/ext-tasks-draft/sqlite-store.js");
      const store = new SqliteTaskStore<StoredTask>(file);
      return { store, description: `sqlite:${file}`, close: async () => store.close() };
    }
    default:
      throw new StoreConfigError(`TASK_STORE: unsupported store "${value.replace(/\/\/[^@/]*@/, "//…@")}" (use memory:, sqlite:<file>)`);
  }
}
