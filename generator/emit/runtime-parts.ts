/**
 * Runtime parts: transports, the HTTP handler and a durable store, written into a set's folder
 * only when its config asks for them (`"runtime": [...]`). Each is a static module
 * (templates/runtime/parts/<part>.ts) that may import Node's built-in modules or its one
 * third-party peer, which its file header names; without parts a set's folder imports nothing from
 * outside itself and compiles with `types: []`. This is the one list of the parts: the static
 * module list (templates.ts) takes their modules from here.
 */
import { GeneratorError, type SourceLocation } from "../diagnostics.js";
import { appendPointer } from "../load/json-pointer.js";
import { nearest } from "../config/suggest.js";

export const RUNTIME_PARTS = [
  "http-client",
  "http-server",
  "stdio",
  "sdk-client",
  "sdk-server",
  "sqlite-store",
  "redis-store",
  "postgres-store",
] as const;
export type RuntimePart = (typeof RUNTIME_PARTS)[number];

/** The folder of `templates/runtime/` (and of a set's `runtime/`) that holds the parts. */
const PARTS_FOLDER = "parts";

/** A part's own module, and the module two parts share (the MCP router of stdio and http-server). */
export type PartModule = `${typeof PARTS_FOLDER}/${RuntimePart}` | `${typeof PARTS_FOLDER}/mcp-router`;

/** A part's own module (what else it needs, the set follows from its imports). */
export function partModule(part: RuntimePart): PartModule {
  return `${PARTS_FOLDER}/${part}`;
}

/** Every module in the parts folder: each part's own, then the one they share. */
export const PART_MODULES: readonly PartModule[] = [...RUNTIME_PARTS.map(partModule), `${PARTS_FOLDER}/mcp-router`];

/** What of the set's stubs a part builds on. */
type PartNeed = "client" | "server" | "extension-server" | "session-server";

interface PartSpec {
  readonly needs: PartNeed;
  /** The header line naming what it needs from outside the set. */
  readonly needsLine: string;
  /** What its file may import from outside the set: module specifiers or their prefixes (`node:`). */
  readonly imports: readonly string[];
  /** What it is, for messages and help. */
  readonly summary: string;
}

const NODE = "Node.js 20+ and its typings (@types/node); no package";

export const PART_SPECS: Readonly<Record<RuntimePart, PartSpec>> = {
  "http-client": {
    needs: "client",
    needsLine: "the Fetch API and its typings (@types/node or the DOM library); no package",
    imports: [],
    summary: "the Tasks client over Streamable HTTP with fetch",
  },
  "http-server": {
    needs: "extension-server",
    needsLine: NODE,
    imports: ["node:"],
    summary: "an HTTP handler (node:http and Fetch shapes) for the stateless 2026-07-28 revision",
  },
  stdio: {
    needs: "server",
    needsLine: NODE,
    imports: ["node:"],
    summary: "stdio transport: a client that spawns the server, and the server loop",
  },
  "sdk-client": {
    needs: "client",
    needsLine: "peer @modelcontextprotocol/sdk ^1.24 (install it in your project)",
    imports: ["@modelcontextprotocol/sdk/"],
    summary: "the Tasks client over a connected @modelcontextprotocol/sdk Client",
  },
  "sdk-server": {
    needs: "session-server",
    needsLine: "peer @modelcontextprotocol/sdk ^1.24 (install it in your project)",
    imports: ["@modelcontextprotocol/sdk/"],
    summary: "the 2025-11-25 Tasks server mounted in an @modelcontextprotocol/sdk Server, and the SDK's TaskStore over the set's stores",
  },
  "sqlite-store": {
    needs: "server",
    needsLine: "peer better-sqlite3 ^12 (install it, and @types/better-sqlite3 and @types/node, in your project)",
    imports: ["node:", "better-sqlite3"],
    summary: "a durable TaskStore on SQLite",
  },
  "redis-store": {
    needs: "server",
    needsLine: "peer ioredis ^5 (install it, and @types/node, in your project)",
    imports: ["node:", "ioredis"],
    summary: "a TaskStore on Redis shared by several server instances (Lua compare-and-set, pub/sub events, worker leases)",
  },
  "postgres-store": {
    needs: "server",
    needsLine: "peer pg ^8 (install it, and @types/pg and @types/node, in your project)",
    imports: ["node:", "pg"],
    summary: "a TaskStore on PostgreSQL shared by several server instances (versioned UPDATE, LISTEN/NOTIFY events, worker leases)",
  },
};

/** What is wrong with entry `i` of a list of parts as written (unknown, with the nearest name; listed twice), or undefined. */
export function partEntryProblem(parts: readonly string[], i: number): string | undefined {
  const part = parts[i]!;
  if (!(RUNTIME_PARTS as readonly string[]).includes(part)) {
    const guess = nearest(part, RUNTIME_PARTS);
    return `unknown runtime part "${part}"; ${guess ? `did you mean "${guess}"?` : `the parts are ${RUNTIME_PARTS.join(", ")}`}`;
  }
  return parts.indexOf(part) === i ? undefined : `"${part}" is listed twice`;
}

/** The part whose own module this is, if it is one (not the module parts share, nor a module outside the parts folder). */
export function partOfModule(module: string): RuntimePart | undefined {
  return RUNTIME_PARTS.find((part) => partModule(part) === module);
}

/** The header line of a part's own file; undefined for the helper modules parts share. */
export function partNeedsLine(module: string): string | undefined {
  const part = partOfModule(module);
  return part ? PART_SPECS[part].needsLine : undefined;
}

/** Where a set asked for its parts: the config's array, or the `--runtime` flag. */
export type PartsOrigin = SourceLocation | { readonly flag: string };

/** What the set's stubs offer the parts. */
export interface StubsOffered {
  readonly client: boolean;
  readonly server: boolean;
  /** The server speaks the Tasks extension (the stateless revision). */
  readonly extension: boolean;
  /** The set said `"stubs": false`. */
  readonly stubsOff: boolean;
}

/**
 * The own modules of the asked-for parts, in order (the modules they import come with them, see
 * templates.ts `withImports`); a part the set cannot use is a config error at the entry that asks for it.
 */
export function partModules(parts: readonly RuntimePart[], offered: StubsOffered, origin: PartsOrigin | undefined): PartModule[] {
  return parts.map((part, i) => {
    const missing = missingNeed(PART_SPECS[part].needs, offered);
    if (missing) throw partError(origin, i, part, missing);
    return partModule(part);
  });
}

function missingNeed(need: PartNeed, offered: StubsOffered): string | undefined {
  const what =
    need === "client"
      ? "a Tasks client"
      : need === "server"
        ? "a Tasks server"
        : need === "extension-server"
          ? "a Tasks server of the extension (stateless) revision"
          : "a Tasks server of the 2025-11-25 kind (the revision the SDK speaks)";
  if (offered.stubsOff) return `needs ${what}, but the set says "stubs": false`;
  if (need === "client" && !offered.client) return `needs ${what}, and this set's schemas define no task methods for one`;
  if (need !== "client" && !offered.server) return `needs ${what}, and this set's schemas define no task methods for one`;
  if (need === "extension-server" && !offered.extension) {
    return `needs ${what}; this set's server is the 2025-11-25 kind (sessions): mount it inside the MCP SDK instead (README, "Runtime parts")`;
  }
  if (need === "session-server" && offered.extension) {
    return `needs ${what}; this set's server is the extension's (stateless): serve it with "http-server" or "stdio" instead`;
  }
  return undefined;
}

function partError(origin: PartsOrigin | undefined, index: number, part: RuntimePart, detail: string): GeneratorError {
  if (!origin) return new GeneratorError(undefined, `runtime part "${part}" ${detail}`, "config");
  if ("flag" in origin) return new GeneratorError(undefined, `${origin.flag}: "${part}" ${detail}`, "config");
  return new GeneratorError({ file: origin.file, pointer: appendPointer(origin.pointer, index) }, `"${part}" ${detail}`, "config");
}

/** A package a part needs in the project that uses it; `dev`: typings only, a dev dependency. */
export interface PartPeer {
  readonly name: string;
  /** The version range the part is written for (absent: any). */
  readonly range?: string;
  readonly dev: boolean;
}

const NODE_TYPES: PartPeer = { name: "@types/node", dev: true };
const SDK: PartPeer = { name: "@modelcontextprotocol/sdk", range: "^1.24", dev: false };

/**
 * The packages each part needs installed, as its header line names them, for `init` to print. The
 * Fetch API's typings of `http-client` come from `@types/node` in a Node project (a browser project
 * has the DOM library instead).
 */
export const PART_PEERS: Readonly<Record<RuntimePart, readonly PartPeer[]>> = {
  "http-client": [NODE_TYPES],
  "http-server": [NODE_TYPES],
  stdio: [NODE_TYPES],
  "sdk-client": [SDK],
  "sdk-server": [SDK],
  "sqlite-store": [{ name: "better-sqlite3", range: "^12", dev: false }, { name: "@types/better-sqlite3", dev: true }, NODE_TYPES],
  "redis-store": [{ name: "ioredis", range: "^5", dev: false }, NODE_TYPES],
  "postgres-store": [{ name: "pg", range: "^8", dev: false }, { name: "@types/pg", dev: true }, NODE_TYPES],
};

/** The `npm install` commands for the peers of these parts: dependencies, then typings; each package once. */
export function peerInstallCommands(parts: readonly RuntimePart[]): string[] {
  const peers = new Map<string, PartPeer>();
  for (const part of parts) for (const peer of PART_PEERS[part]) peers.set(peer.name, peer);
  const spec = (peer: PartPeer) => (peer.range ? `${peer.name}@${peer.range}` : peer.name);
  const runtime = [...peers.values()].filter((p) => !p.dev).map(spec);
  const typings = [...peers.values()].filter((p) => p.dev).map(spec);
  return [...(runtime.length > 0 ? [`npm install ${runtime.join(" ")}`] : []), ...(typings.length > 0 ? [`npm install --save-dev ${typings.join(" ")}`] : [])];
}
