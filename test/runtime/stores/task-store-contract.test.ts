import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import * as ext from "../../../generated/ext-tasks-draft/server.js";
import { SqliteTaskStore } from "../../../generated/ext-tasks-draft/sqlite-store.js";
import { describeTaskStoreContract, type ContractStore, type StoreOptions } from "../../support/task-store-contract.js";

/**
 * The one TaskStore contract suite (test/support/task-store-contract.ts), run against every store
 * this package generates.
 */

/** The in-memory store: every "instance" of a space is the one object (it lives in one process). */
class ClosableInMemoryTaskStore extends ext.InMemoryTaskStore {
  close(): void {}
}

describeTaskStoreContract("in-memory", () => ({
  space: async () => {
    let store: ClosableInMemoryTaskStore | undefined;
    return {
      durable: false,
      open: async (options: StoreOptions = {}) => (store ??= new ClosableInMemoryTaskStore(options)) as ContractStore,
    };
  },
}));

const sqliteDir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-contract-sqlite-"));
afterAll(() => rmSync(sqliteDir, { recursive: true, force: true }));
let sqliteFiles = 0;

describeTaskStoreContract("SQLite", () => ({
  space: async () => {
    const file = join(sqliteDir, `tasks-${++sqliteFiles}.db`);
    return {
      durable: true,
      // A fast poll: other connections' changes arrive through the file.
      open: async (options: StoreOptions = {}) => new SqliteTaskStore<ext.StoredTask>(file, { ...options, eventPollInterval: 20 }) as ContractStore,
    };
  },
}));
