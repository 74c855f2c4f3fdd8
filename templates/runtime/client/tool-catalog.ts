/**
 * What the generated Tasks client knows about the server's tools, copied unchanged into every set
 * that has a client (as `tool-catalog.ts`): `tools/list` read page by page and cached, each tool's
 * `execution.taskSupport` (where the revision has it), and its `x-mcp-header` annotations checked
 * against the rules of the Streamable HTTP transport ("Custom Headers from Tool Parameters"). A
 * tool whose annotations break those rules is left out of the list, as that text requires, and
 * reported. The cache stays fresh for the result's `ttlMs` where the server sends one (0: look
 * again next time), otherwise until `notifications/tools/list_changed` (see ARCHITECTURE.md, "Stubs").
 */
import { InvalidResponseError } from "./core.js";
import { isObject, ownValue, pointerToken, type JsonObject } from "../protocol/json.js";

export const TOOLS_LIST = "tools/list";
export const TOOLS_LIST_CHANGED = "notifications/tools/list_changed";
/** The most pages of `tools/list` read for one catalog: a server that pages on forever gets InvalidResponseError, not a client that never stops asking. */
export const MAX_TOOLS_PAGES = 1_000;

/** A tool as `tools/list` describes it: the fields the client reads, and whatever else the server said. */
export type ToolDescription = JsonObject & { readonly name: string };

/** How a tool runs as a task (its `execution.taskSupport`), "forbidden" when it says nothing. */
export type ToolTaskSupportValue = "forbidden" | "optional" | "required";

/** One `x-mcp-header` annotation: the `{Name}` of `Mcp-Param-{Name}`, and the chain of `properties` keys to the argument. */
export interface HeaderAnnotation {
  readonly header: string;
  readonly path: readonly string[];
}

/** What the client knows of one tool. */
export interface CatalogEntry {
  readonly tool: ToolDescription;
  readonly taskSupport: ToolTaskSupportValue;
  readonly headers: readonly HeaderAnnotation[];
}

/** A tool the client leaves out: its `x-mcp-header` annotations break the transport's rules. */
export class ToolRejectedError extends Error {
  override readonly name = "ToolRejectedError";
  constructor(
    readonly tool: string,
    /** What is wrong, each as `/pointer/in/inputSchema: problem`. */
    readonly problems: readonly string[],
  ) {
    super(`tool ${JSON.stringify(tool)} is left out: ${problems.join("; ")}`);
  }
}

/** What the catalog needs from its client. */
export interface CatalogClient {
  /** One page of `tools/list` (the cursor of the page, none for the first). */
  listPage(cursor: string | undefined): Promise<JsonObject>;
  /** Told about each tool left out. */
  report(error: unknown): void;
}

/** Tools by name, and until when they are fresh (epoch milliseconds). */
interface Snapshot {
  readonly entries: ReadonlyMap<string, CatalogEntry | ToolRejectedError>;
  readonly freshUntil: number;
}

/**
 * The server's tools as the client last read them. Concurrent lookups share one read; a read that
 * fails is not kept, so the next lookup reads again.
 */
export class ToolCatalog {
  readonly #client: CatalogClient;
  /** Whether `x-mcp-header` annotations are checked (and mirrored): the revision routes by headers. */
  readonly #headers: boolean;
  #snapshot: Snapshot | undefined;
  #loading: Promise<Snapshot> | undefined;
  /** Bumped by `invalidate`, so a read begun before a change is not kept after it. */
  #generation = 0;

  /** The `execution.taskSupport` values the set's schema allows (any other reads as "forbidden"). */
  readonly #taskSupport: readonly string[];

  constructor(
    client: CatalogClient,
    options: {
      readonly headers: boolean;
      readonly taskSupport?: readonly string[];
    },
  ) {
    this.#client = client;
    this.#headers = options.headers;
    this.#taskSupport = options.taskSupport ?? TASK_SUPPORT_VALUES;
  }

  /** The tool list changed: the next lookup reads it again. */
  invalidate(): void {
    this.#generation++;
    this.#snapshot = undefined;
    this.#loading = undefined;
  }

  /** The tools the client may call (those left out are not among them), read again when stale or when `refresh`. */
  async tools(refresh = false): Promise<ToolDescription[]> {
    const snapshot = await this.#current(refresh);
    return [...snapshot.entries.values()].flatMap((entry) => (entry instanceof ToolRejectedError ? [] : [entry.tool]));
  }

  /** One tool: what the client knows of it, why it is left out, or undefined when the server does not list it. */
  async entry(name: string, refresh = false): Promise<CatalogEntry | ToolRejectedError | undefined> {
    return (await this.#current(refresh)).entries.get(name);
  }

  #current(refresh: boolean): Promise<Snapshot> {
    const snapshot = this.#snapshot;
    if (!refresh && snapshot && Date.now() < snapshot.freshUntil) return Promise.resolve(snapshot);
    if (!refresh && this.#loading) return this.#loading;
    const generation = this.#generation;
    const loading = this.#read().then((read) => {
      if (generation === this.#generation) this.#snapshot = read;
      return read;
    });
    this.#loading = loading;
    const release = () => {
      if (this.#loading === loading) this.#loading = undefined;
    };
    loading.then(release, release);
    return loading;
  }

  /** Every page of `tools/list`. */
  async #read(): Promise<Snapshot> {
    const entries = new Map<string, CatalogEntry | ToolRejectedError>();
    const seen = new Set<string>();
    let freshFor = Infinity;
    let cursor: string | undefined;
    for (let pages = 1; ; pages++) {
      const page = await this.#client.listPage(cursor);
      const tools = ownValue(page, "tools");
      if (!Array.isArray(tools)) throw new InvalidResponseError(TOOLS_LIST, "tools is not an array", page);
      const ttl = ownValue(page, "ttlMs");
      if (typeof ttl === "number" && ttl >= 0) freshFor = Math.min(freshFor, ttl);
      for (const tool of tools) {
        if (!isObject(tool) || typeof ownValue(tool, "name") !== "string") {
          throw new InvalidResponseError(TOOLS_LIST, "a tool without a name", page);
        }
        const entry = this.#entryOf(tool as ToolDescription);
        if (entry instanceof ToolRejectedError) this.#client.report(entry);
        entries.set(tool.name as string, entry);
      }
      const next = ownValue(page, "nextCursor");
      if (typeof next !== "string") break;
      // A cursor that comes back would page forever.
      if (seen.has(next))
        throw new InvalidResponseError(TOOLS_LIST, `the cursor ${JSON.stringify(next)} came back`, page);
      seen.add(next);
      if (pages >= MAX_TOOLS_PAGES) {
        throw new InvalidResponseError(TOOLS_LIST, `more than ${MAX_TOOLS_PAGES} pages (MAX_TOOLS_PAGES)`, page);
      }
      cursor = next;
    }
    return { entries, freshUntil: Date.now() + freshFor };
  }

  #entryOf(tool: ToolDescription): CatalogEntry | ToolRejectedError {
    const taskSupport = taskSupportOf(tool, this.#taskSupport);
    if (!this.#headers) return { tool, taskSupport, headers: [] };
    const annotations = headerAnnotations(ownValue(tool, "inputSchema"));
    return annotations.ok
      ? { tool, taskSupport, headers: annotations.headers }
      : new ToolRejectedError(tool.name, annotations.problems);
  }
}

/** The values of `execution.taskSupport` the client acts on. */
const TASK_SUPPORT_VALUES: readonly ToolTaskSupportValue[] = ["forbidden", "optional", "required"];

/**
 * A tool's `execution.taskSupport`: "forbidden" when absent, as the 2025-11-25 schema defines, and
 * for a value the set's schema does not allow (`allowed`, from its Tool) or the client does not know.
 */
export function taskSupportOf(
  tool: JsonObject,
  allowed: readonly string[] = TASK_SUPPORT_VALUES,
): ToolTaskSupportValue {
  const execution = ownValue(tool, "execution");
  const support = isObject(execution) ? ownValue(execution, "taskSupport") : undefined;
  return (support === "optional" || support === "required") && allowed.includes(support) ? support : "forbidden";
}

// ---------------------------------------------------------------------------------------------
// x-mcp-header annotations

export const HEADER_ANNOTATION = "x-mcp-header";

/** RFC 9110 `token` (`1*tchar`): which also keeps out spaces, colons, control characters and non-ASCII. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The JSON types a mirrored parameter may have ("number" is not one). */
const PRIMITIVE = new Set(["string", "integer", "boolean"]);

/** Keywords whose value is a subschema, an array of subschemas, or a map of them: where an annotation is not statically reachable. */
const SCHEMA_KEYWORDS = [
  "additionalProperties",
  "items",
  "additionalItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
];
const SCHEMA_ARRAY_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const SCHEMA_MAP_KEYWORDS = ["patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];

/**
 * A tool's `x-mcp-header` annotations, or every way they break the rules of the Streamable HTTP
 * transport: a name that is empty or not an HTTP token, two names equal ignoring case, an
 * annotated parameter whose `type` is not integer, string or boolean (a nullable one is fine), and
 * an annotation not reached from the root through `properties` keys alone (under `items`,
 * `anyOf`, `$ref`'s `$defs`, …). Other keywords are data, not schemas, and are not searched.
 */
export function headerAnnotations(
  inputSchema: unknown,
): { readonly ok: true; readonly headers: HeaderAnnotation[] } | { readonly ok: false; readonly problems: string[] } {
  const headers: HeaderAnnotation[] = [];
  const problems: string[] = [];
  const visit = (schema: unknown, pointer: string, path: readonly string[] | undefined): void => {
    if (!isObject(schema)) return;
    if (Object.hasOwn(schema, HEADER_ANNOTATION)) {
      const problem = annotationProblem(schema, path);
      if (problem) problems.push(`${pointer}: ${problem}`);
      else
        headers.push({
          header: schema[HEADER_ANNOTATION] as string,
          path: path!,
        });
    }
    const properties = ownValue(schema, "properties");
    if (isObject(properties)) {
      for (const [name, sub] of Object.entries(properties))
        visit(sub, `${pointer}/properties/${pointerToken(name)}`, path ? [...path, name] : undefined);
    }
    for (const keyword of SCHEMA_KEYWORDS) visit(ownValue(schema, keyword), `${pointer}/${keyword}`, undefined);
    for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
      const list = ownValue(schema, keyword);
      if (Array.isArray(list)) list.forEach((sub, i) => visit(sub, `${pointer}/${keyword}/${i}`, undefined));
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      const map = ownValue(schema, keyword);
      if (isObject(map))
        for (const [name, sub] of Object.entries(map))
          visit(sub, `${pointer}/${keyword}/${pointerToken(name)}`, undefined);
    }
  };
  visit(inputSchema, "", []);
  const byName = new Map<string, string>();
  for (const { header } of headers) {
    const earlier = byName.get(header.toLowerCase());
    if (earlier !== undefined)
      problems.push(
        `x-mcp-header ${JSON.stringify(header)} repeats ${JSON.stringify(earlier)} (names are compared ignoring case)`,
      );
    else byName.set(header.toLowerCase(), header);
  }
  return problems.length === 0 ? { ok: true, headers } : { ok: false, problems };
}

/** What is wrong with one annotation, or undefined. `path` is the chain of `properties` keys to it, undefined when it is not reached that way. */
function annotationProblem(schema: JsonObject, path: readonly string[] | undefined): string | undefined {
  const name = schema[HEADER_ANNOTATION];
  if (path === undefined || path.length === 0)
    return "x-mcp-header must be on a property reached from the root through properties alone";
  if (typeof name !== "string" || name === "") return "x-mcp-header must be a non-empty string";
  if (!TOKEN.test(name)) return `x-mcp-header ${JSON.stringify(name)} is not an HTTP field-name token`;
  const type = ownValue(schema, "type");
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : [];
  const primitive =
    types.some((t) => PRIMITIVE.has(t as string)) && types.every((t) => PRIMITIVE.has(t as string) || t === "null");
  return primitive
    ? undefined
    : `x-mcp-header is only allowed on a parameter of type integer, string or boolean (type is ${JSON.stringify(type ?? null)})`;
}

/** A call asked to run as a task (`task` in its options) names a tool whose `execution.taskSupport` is "forbidden" (or says nothing): it is not sent. */
export class TaskForbiddenError extends Error {
  override readonly name = "TaskForbiddenError";
  constructor(readonly tool: string) {
    super(
      `tool ${JSON.stringify(tool)} does not run as a task (its execution.taskSupport is "forbidden"): call it without \`task\``,
    );
  }
}

/** Whether a call to a tool with this `taskSupport` runs as a task when the caller does not say. */
export function wantsTask(taskSupport: ToolTaskSupportValue, preferTasks: boolean): boolean {
  return taskSupport === "required" || (taskSupport === "optional" && preferTasks);
}
