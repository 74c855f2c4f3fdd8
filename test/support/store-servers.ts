import { findPostgresBinaries, startPostgresServer } from "./postgres-server.js";
import { findRedisServer, startRedisServer } from "./redis-server.js";

/**
 * The shared stores the scale-out tests run the example on, as private servers (redis-server.ts,
 * postgres-server.ts): one name per kind, one way to start, one rule for skipping.
 */
export const STORE_KINDS = ["redis", "postgres"] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

export interface StoreServer {
  /** The example's TASK_STORE value for it. */
  readonly url: string;
  readonly port: number;
  /** Stops it for good (and removes its files). */
  stop(): Promise<void>;
  /** Redis only: stops it, waits `downMs`, starts it again on the same port and data. */
  restart?(downMs: number): Promise<void>;
}

/** Why `kind` cannot run on this machine; undefined when it can, and always under CI=true (where a missing server must fail, not skip). */
export function skipReason(kind: StoreKind): string | undefined {
  if (process.env.CI === "true") return undefined;
  if (kind === "redis") return findRedisServer() ? undefined : "redis-server is not installed (Debian package redis-server)";
  return findPostgresBinaries() ? undefined : "PostgreSQL's initdb and pg_ctl are not installed (Debian package postgresql)";
}

/** Starts a private server of `kind` on a free loopback port; fails loudly when its binaries are missing. */
export async function startStoreServer(kind: StoreKind): Promise<StoreServer> {
  if (kind === "redis") {
    const binary = findRedisServer();
    if (!binary) throw new Error("redis-server is not installed; .ci/run installs it");
    return startRedisServer(binary);
  }
  const binaries = findPostgresBinaries();
  if (!binaries) throw new Error("PostgreSQL's initdb and pg_ctl are not installed; .ci/run installs them");
  return startPostgresServer(binaries);
}
