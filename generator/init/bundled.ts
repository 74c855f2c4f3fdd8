/**
 * The schema sets that ship with mcp-tasks-gen, by name: what `mcp-tasks-gen init` offers and
 * what a config set's `"bundled"` field names. Their files live in the installed package's own
 * `schemas/` folder; headers and messages name them `mcp-tasks-gen:schemas/<file>`, the same on
 * every machine whatever the install layout (npm, pnpm, a workspace).
 */
import { readdirSync } from "node:fs";
import type { JsonValue } from "../ir/nodes.js";
import { dirname, join } from "node:path";
import { templatesDir } from "../emit/templates.js";
import type { RuntimePart } from "../emit/runtime-parts.js";

export interface BundledSet {
  /** What the set is, for the `$comment` `init` writes. */
  readonly description: string;
  /** Schema files, relative to the package root. */
  readonly schemas: readonly string[];
  /** Remote `$ref` URLs and the bundled files that stand for them, relative to the package root. */
  readonly remotes: Readonly<Record<string, string>>;
  /** Definitions given real shapes (see bind/bindings.ts), `$ref`s relative to the package root. */
  readonly bindings?: Readonly<Record<string, JsonValue>>;
  /** The runtime parts the set can take (what its stubs offer; test/generator/emit/runtime-parts.test.ts holds this to generation). */
  readonly parts: readonly RuntimePart[];
}

/** The 2026-05-22 extension revision's placeholders, bound to the request and result shapes a task's input takes. */
const INPUT_FILE = "schemas/mcp-input-requests-2025-11-25.schema.json";
const INPUT_BINDINGS: Readonly<Record<string, JsonValue>> = {
  InputRequest: { anyOf: ["ElicitRequest", "CreateMessageRequest", "ListRootsRequest"].map((d) => ({ $ref: `${INPUT_FILE}#/$defs/${d}` })) },
  InputResponse: { anyOf: ["ElicitResult", "CreateMessageResult", "ListRootsResult"].map((d) => ({ $ref: `${INPUT_FILE}#/$defs/${d}` })) },
};

/** The MCP 2025-11-25 core schema, which the 2025-11-25 Tasks schema `$ref`s remotely. */
const CORE_2025_11_25_URL = "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/main/schema/2025-11-25/schema.json";

export const BUNDLED_SETS: Readonly<Record<string, BundledSet>> = {
  "tasks-2025-11-25": {
    description:
      "The Tasks protocol of MCP 2025-11-25 (tasks/get, tasks/result, tasks/cancel, tasks/list; task-augmented requests): types, validators, status helpers, client and server. Its remote $refs into the MCP core schema resolve to a bundled copy of the definitions they need.",
    schemas: ["schemas/tasks-2025-11-25.schema.json"],
    remotes: { [CORE_2025_11_25_URL]: "schemas/mcp-core-2025-11-25.schema.json" },
    parts: ["http-client", "stdio", "sdk-client", "sdk-server", "sqlite-store", "redis-store", "postgres-store"],
  },
  "ext-tasks-draft": {
    description:
      "The MCP Tasks extension (SEP-2663, draft; io.modelcontextprotocol/tasks), its newest revision (2026-08-21): types, validators, status helpers, client and server. Its InputRequest/InputResponse are the elicitation, sampling and roots requests and results.",
    schemas: ["schemas/ext-tasks-draft.schema.json"],
    remotes: {},
    parts: ["http-client", "http-server", "stdio", "sdk-client", "sqlite-store", "redis-store", "postgres-store"],
  },
  "ext-tasks-2026-05-22": {
    description:
      "The MCP Tasks extension (SEP-2663; io.modelcontextprotocol/tasks) as of its 2026-05-22 revision, for projects pinned to it: types, validators, status helpers, client and server. Its placeholder InputRequest/InputResponse are bound to the elicitation, sampling and roots requests and results.",
    schemas: ["schemas/ext-tasks-2026-05-22.schema.json"],
    remotes: {},
    bindings: INPUT_BINDINGS,
    parts: ["http-client", "http-server", "stdio", "sdk-client", "sqlite-store", "redis-store", "postgres-store"],
  },
  "elicitation-codex": {
    description: "MCP elicitation request params as the Codex host emits them: types and validators.",
    schemas: ["schemas/codex-mcp-elicitation-request-params.schema.json"],
    remotes: {},
    parts: [],
  },
};

export const BUNDLED_SET_NAMES: readonly string[] = Object.keys(BUNDLED_SETS);

/** The prefix that names a file of the installed package in headers and messages. */
export const PACKAGE_PREFIX = "mcp-tasks-gen:";

/** The root folder of the installed package (where `templates/` and `schemas/` are). */
export function packageRoot(): string {
  return dirname(templatesDir());
}

/** A bundled set with its files as absolute paths into the installed package; undefined for an unknown name. */
export function bundledSet(
  name: string,
): { readonly schemas: string[]; readonly remotes: Record<string, string>; readonly bindings?: Readonly<Record<string, JsonValue>> } | undefined {
  if (!Object.hasOwn(BUNDLED_SETS, name)) return undefined;
  const set = BUNDLED_SETS[name]!;
  const root = packageRoot();
  return {
    schemas: set.schemas.map((file) => join(root, file)),
    remotes: Object.fromEntries(Object.entries(set.remotes).map(([url, file]) => [url, join(root, file)])),
    ...(set.bindings ? { bindings: set.bindings } : {}),
  };
}

/**
 * `mcp-tasks-gen:schemas/<file>` for every file of the installed package's `schemas/` folder, by
 * absolute path: how a bundled set's headers and messages name the files it reads (its schemas,
 * remote documents, and any other bundled file they reach).
 */
export function bundledSchemaNames(): Record<string, string> {
  const dir = join(packageRoot(), "schemas");
  return Object.fromEntries(readdirSync(dir).map((file) => [join(dir, file), `${PACKAGE_PREFIX}schemas/${file}`]));
}
