import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import * as ext from "../../../generated/ext-tasks-draft/server.js";
import pg from "pg";
import { PostgresTaskStore } from "../../../generated/ext-tasks-draft/runtime/parts/postgres-store.js";
import { RedisTaskStore } from "../../../generated/ext-tasks-draft/runtime/parts/redis-store.js";
import { SqliteTaskStore } from "../../../generated/ext-tasks-draft/runtime/parts/sqlite-store.js";
import { findPostgresBinaries, startPostgresServer, type PostgresServer } from "../../support/postgres-server.js";
import { findRedisServer, startRedisServer, type RedisServer } from "../../support/redis-server.js";
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

/** Under CI=true a missing server is a failure, elsewhere a printed reason to skip. */
function missing(what: string, install: string): string {
  const reason = `${what} not found (${install})`;
  if (process.env.CI === "true") throw new Error(`CI=true: ${reason}; .ci/run installs it`);
  return reason;
}

const redisBinary = findRedisServer();
let redis: Promise<RedisServer> | undefined;
afterAll(async () => (await redis)?.stop());
let redisSpaces = 0;

describeTaskStoreContract("Redis", () => {
  if (!redisBinary) return missing("redis-server", "apt-get install redis-server");
  return {
    space: async () => {
      const server = await (redis ??= startRedisServer(redisBinary));
      // A fresh key prefix per space, in its own hash tag.
      const keyPrefix = `{space-${++redisSpaces}}:`;
      return {
        durable: true,
        open: async (options: StoreOptions = {}) => new RedisTaskStore<ext.StoredTask>(server.url, { ...options, keyPrefix }) as ContractStore,
        dropChannel: async () => server.restart(),
      };
    },
  };
});

const postgresBinaries = findPostgresBinaries();
let postgres: Promise<PostgresServer> | undefined;
let admin: pg.Pool | undefined;
afterAll(async () => {
  await admin?.end();
  await (await postgres)?.stop();
});
let postgresSpaces = 0;

describeTaskStoreContract("PostgreSQL", () => {
  if (!postgresBinaries) return missing("PostgreSQL's initdb and pg_ctl", "apt-get install postgresql");
  return {
    space: async () => {
      const server = await (postgres ??= startPostgresServer(postgresBinaries));
      admin ??= new pg.Pool({ connectionString: server.url, max: 1 });
      // A fresh table per space (a schema-qualified name for one of them, to prove those work).
      const n = ++postgresSpaces;
      const table = n === 2 ? "public.tasks_space_2" : `tasks_space_${n}`;
      return {
        durable: true,
        open: async (options: StoreOptions = {}) => new PostgresTaskStore<ext.StoredTask>(server.url, { ...options, table }) as ContractStore,
        // Kills the listening connection, as a server restart or a network cut would.
        dropChannel: async () => {
          await admin!.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()");
        },
      };
    },
  };
});
