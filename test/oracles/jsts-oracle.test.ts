import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile, type Options as JstsOptions } from "json-schema-to-typescript";
import { Node, Project, ts, type SourceFile, type Type } from "ts-morph";
import { beforeAll, describe, expect, it } from "vitest";
import { generate, readConfigFile, type GeneratedSet, type ResolvedSet } from "../../generator/index.js";
import { bindSchemas } from "../../generator/bind/bindings.js";
import { readSchemaFile } from "../../generator/load/documents.js";
import { projectRoot } from "../support/paths.js";

/**
 * json-schema-to-typescript ("jsts") as an oracle for the generated types. Both tools read the same
 * schema files; for every definition both declare, the two types must be mutually assignable
 * (checked by the TypeScript checker under strict + exactOptionalPropertyTypes), except for the
 * differences listed below, each with its reason. The lists are checked both ways: an unlisted
 * difference fails, and a listed one that no longer differs exactly as written fails too.
 */

const SETS = ["tasks-2025-11-25", "ext-tasks-2026-05-22", "elicitation-codex"] as const;
type SetName = (typeof SETS)[number];

// ---------------------------------------------------------------------------------------------
// The written list of differences.

/** jsts is wrong about the schema: where these apply, our type may be the narrower one. */
const JSTS_FAULTS = {
  notEmptyMap:
    "jsts maps `additionalProperties: {not: {}}` (no property allowed) to `{[k: string]: {[k: string]: unknown}}`, an open map of objects; " +
    "ours is `{[key: string]: never}`, which admits exactly the values that validate (the empty object)",
  numberedDuplicate:
    "jsts declares a `$ref` that has a sibling keyword (`task: {$ref: TaskMetadata, description}`) again under a numbered name instead of reusing the definition",
  inlinesRemotePrimitive:
    "jsts names a definition reached by `$ref` into another document only when it is an object or array schema; " +
    "`RequestId`/`ProgressToken` (`type: [string, integer]`) are inlined at each use and never declared",
} as const;

/** A documented choice of ours (README.md › The generated API) that makes jsts's type differ without jsts being wrong. */
const OUR_CHOICES = {
  noImplicitIndexSignature:
    "README.md › The generated API: an object without an `additionalProperties` keyword is typed by its known properties with no index signature; " +
    "jsts adds `[k: string]: unknown` (its default `additionalProperties: true`), and an interface is not assignable to a type with an index signature",
  rootHoldsOnlyDefs:
    "the root schema only holds `$defs` and asserts nothing, so the generator declares nothing for it; jsts declares the root as an open object",
} as const;

type Reason = keyof typeof JSTS_FAULTS | keyof typeof OUR_CHOICES;
const REASONS: Record<Reason, string> = { ...JSTS_FAULTS, ...OUR_CHOICES };
const isJstsFault = (reason: Reason): boolean => Object.hasOwn(JSTS_FAULTS, reason);

interface ExpectedDifference {
  readonly genToJsts: boolean;
  readonly jstsToGen: boolean;
  readonly reason: Reason;
}

/** Ours is an interface without an index signature, jsts's has one: only jsts → ours holds. */
const indexSignature: ExpectedDifference = { genToJsts: false, jstsToGen: true, reason: "noImplicitIndexSignature" };

/** Rows (named as in the table) whose verdict is not "mutual", per set. */
const EXPECTED_DIFFERENCES: Record<SetName, Record<string, ExpectedDifference>> = {
  "tasks-2025-11-25": {
    // This schema (and the core stand-in) writes no `additionalProperties` on most objects.
    TaskMetadata: indexSignature,
    RelatedTaskMetadata: indexSignature,
    Task: indexSignature,
    CreateTaskResult: indexSignature,
    TaskAugmentedRequestParams: indexSignature,
    GetTaskRequest: indexSignature,
    GetTaskPayloadRequest: indexSignature,
    CancelTaskRequest: indexSignature,
    ListTasksRequest: indexSignature,
    ListTasksResult: indexSignature,
    TaskStatusNotificationParams: indexSignature,
    TaskStatusNotification: indexSignature,
    TaskServerCapabilities: indexSignature,
    TaskClientCapabilities: indexSignature,
    PaginatedRequestParams: indexSignature,
    NotificationParams: indexSignature,
    "TaskMetadata ← TaskMetadata1": indexSignature,
  },
  "ext-tasks-2026-05-22": {
    TasksExtensionCapability: { genToJsts: true, jstsToGen: false, reason: "notEmptyMap" },
    // The config binds InputRequest/InputResponse to the input requests and results of
    // schemas/mcp-input-requests-2025-11-25.schema.json, which (like MCP's own schema) writes no
    // `additionalProperties` on its objects; the ext-tasks definitions holding them differ through them.
    DetailedTask: indexSignature,
    GetTaskResult: indexSignature,
    InputRequest: indexSignature,
    InputRequests: indexSignature,
    InputRequiredTask: indexSignature,
    InputResponse: indexSignature,
    InputResponses: indexSignature,
    TaskStatusNotificationParams: indexSignature,
    TaskStatusNotification: indexSignature,
    UpdateTaskRequest: indexSignature,
    // The bound definitions themselves, declared by both tools.
    ElicitRequest: indexSignature,
    ElicitRequestURLParams: indexSignature,
    TaskMetadata: indexSignature,
    ElicitRequestFormParams: indexSignature,
    CreateMessageRequest: indexSignature,
    CreateMessageRequestParams: indexSignature,
    SamplingMessage: indexSignature,
    SamplingMessageContentBlock: indexSignature,
    ModelPreferences: indexSignature,
    ModelHint: indexSignature,
    ToolChoice: indexSignature,
    Tool: indexSignature,
    ListRootsRequest: indexSignature,
    RequestParams: indexSignature,
    ElicitResult: indexSignature,
    CreateMessageResult: indexSignature,
    ListRootsResult: indexSignature,
    Root: indexSignature,
  },
  "elicitation-codex": {
    // The root object and its four `oneOf` branches have no `additionalProperties` keyword.
    McpServerElicitationRequestParams: indexSignature,
  },
};

/** Definitions the generator declares and jsts does not, per set. */
const NOT_IN_JSTS: Record<SetName, Record<string, Reason>> = {
  "tasks-2025-11-25": { RequestId: "inlinesRemotePrimitive", ProgressToken: "inlinesRemotePrimitive" },
  // (InputRequest and InputResponse were missing while they were `anyOf: [{}, {}, {}]` placeholders; the config binds them now.)
  "ext-tasks-2026-05-22": {},
  "elicitation-codex": {},
};

/** Declarations only jsts has (numbered duplicates name the definition they copy), per set. */
const ONLY_IN_JSTS: Record<SetName, Record<string, { reason: Reason; copyOf?: string }>> = {
  "tasks-2025-11-25": { Root: { reason: "rootHoldsOnlyDefs" }, TaskMetadata1: { reason: "numberedDuplicate", copyOf: "TaskMetadata" } },
  "ext-tasks-2026-05-22": { MCPTasksExtension: { reason: "rootHoldsOnlyDefs" } },
  "elicitation-codex": {},
};

// ---------------------------------------------------------------------------------------------
// Running jsts.

const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, "utf8"));

/**
 * jsts's default options, except: `unreachableDefinitions` (one named declaration per definition,
 * named by its key), no banner and no prettier pass (speed), and a resolver that reads the set's
 * remote URLs from their configured local files. Both built-in resolvers are off, so an unmapped
 * remote `$ref` fails instead of reaching the network or the disk.
 */
function jstsOptions(set: ResolvedSet, extra: Partial<JstsOptions> = {}): Partial<JstsOptions> {
  // Remote URLs map to their configured files; the files a binding reaches are read by their file URL.
  const bound = new Set(boundInput(set).extra.map((f) => f.path));
  const localFile = (url: string) => {
    const resource = url.split("#")[0]!;
    if (set.remotes[resource]) return set.remotes[resource];
    const path = resource.startsWith("file:") ? fileURLToPath(resource) : resource;
    return bound.has(path) ? path : undefined;
  };
  return {
    unreachableDefinitions: true,
    bannerComment: "",
    format: false,
    $refOptions: {
      resolve: {
        file: false,
        http: false,
        configuredRemotes: {
          order: 1,
          canRead: (file: { url: string }) => localFile(file.url) !== undefined,
          read: (file: { url: string }) => readFileSync(localFile(file.url)!, "utf8"),
        },
      },
    },
    ...extra,
  };
}

/** The set's one input schema (every configured set has exactly one), as its bindings rewrite it: both tools read the same schema. */
function inputSchema(set: ResolvedSet): Record<string, unknown> {
  expect(set.schemas).toHaveLength(1);
  return boundInput(set).inputs[0]!.json as Record<string, unknown>;
}

function boundInput(set: ResolvedSet) {
  return bindSchemas(set.bindings, [readSchemaFile(set.schemas[0]!, set.schemas[0]!)], [], (path) => path);
}

const defKeys = (schema: Record<string, unknown>): string[] =>
  ["$defs", "definitions"].flatMap((container) => {
    const defs = schema[container];
    return defs && typeof defs === "object" ? Object.keys(defs) : [];
  });

/** Zod writes a `$schema` into every `$defs` entry (the ext-tasks seed does). */
function withoutNestedDialects(schema: Record<string, unknown>): Record<string, unknown> {
  const defs = schema.$defs as Record<string, Record<string, unknown>>;
  return { ...schema, $defs: Object.fromEntries(Object.entries(defs).map(([k, { $schema: _dialect, ...body }]) => [k, body])) };
}

// ---------------------------------------------------------------------------------------------
// Comparing declarations with the type checker.

interface Row {
  /** The definition name, or `Name ← Name1` for a jsts numbered duplicate. */
  readonly name: string;
  readonly genToJsts: boolean;
  readonly jstsToGen: boolean;
}

const verdictOf = (row: Pick<Row, "genToJsts" | "jstsToGen">): string =>
  row.genToJsts && row.jstsToGen ? "mutual" : row.jstsToGen ? "ours wider" : row.genToJsts ? "jsts wider" : "unrelated";

/** Exported interfaces and type aliases of a file, by name. */
function declaredTypes(file: SourceFile): Map<string, Type> {
  const types = new Map<string, Type>();
  for (const [name, decls] of file.getExportedDeclarations()) {
    const decl = decls.find((d) => Node.isInterfaceDeclaration(d) || Node.isTypeAliasDeclaration(d));
    if (decl) types.set(name, decl.getType());
  }
  return types;
}

function newProject(): Project {
  return new Project({
    useInMemoryFileSystem: true,
    compilerOptions: {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      noEmit: true,
    },
  });
}

/** A type error leaves an error type behind, which is assignable both ways: refuse any. */
function expectNoDiagnostics(file: SourceFile): void {
  const messages = file.getPreEmitDiagnostics().map((d) => {
    const text = d.getMessageText();
    return `${file.getFilePath()}:${d.getLineNumber()}: ${typeof text === "string" ? text : text.getMessageText()}`;
  });
  expect(messages).toEqual([]);
}

/**
 * One row per name both files declare, plus one per `copies` entry (a jsts numbered duplicate
 * compared with our declaration of the definition it copies).
 */
function compare(project: Project, gen: SourceFile, jsts: SourceFile, copies: Readonly<Record<string, string>> = {}): Row[] {
  const checker = project.getTypeChecker();
  const genTypes = declaredTypes(gen);
  const jstsTypes = declaredTypes(jsts);
  const pairs: [string, Type, Type][] = [];
  for (const [name, genType] of genTypes) {
    const jstsType = jstsTypes.get(name);
    if (jstsType) pairs.push([name, genType, jstsType]);
  }
  for (const [copy, original] of Object.entries(copies)) {
    const genType = genTypes.get(original);
    const jstsType = jstsTypes.get(copy);
    if (!genType || !jstsType) throw new Error(`cannot compare ${original} with ${copy}: a declaration is missing`);
    pairs.push([`${original} ← ${copy}`, genType, jstsType]);
  }
  return pairs.map(([name, g, j]) => ({ name, genToJsts: checker.isTypeAssignableTo(g, j), jstsToGen: checker.isTypeAssignableTo(j, g) }));
}

/** jsts names a copy `Name1`, `Name2`, ...: map such names back to a definition where one fits. */
function numberedDuplicates(jstsNames: Iterable<string>, definitions: readonly string[]): Record<string, string> {
  const copies: Record<string, string> = {};
  for (const name of jstsNames) {
    const original = /^(.*\D)\d+$/.exec(name)?.[1];
    if (original && !definitions.includes(name) && definitions.includes(original)) copies[name] = original;
  }
  return copies;
}

function printTable(set: SetName, rows: readonly Row[]): void {
  const width = Math.max(...rows.map((r) => r.name.length));
  const yes = (b: boolean) => (b ? "yes" : "NO").padEnd(10);
  const lines = rows.map((r) => {
    const listed = EXPECTED_DIFFERENCES[set][r.name];
    return `${r.name.padEnd(width)}  ${yes(r.genToJsts)}${yes(r.jstsToGen)}${verdictOf(r).padEnd(11)}${listed ? listed.reason : ""}`;
  });
  console.log([`jsts oracle, ${set}:`, `${"name".padEnd(width)}  gen→jsts  jsts→gen  verdict    listed reason`, ...lines].join("\n"));
}

// ---------------------------------------------------------------------------------------------

interface SetUnderTest {
  readonly set: ResolvedSet;
  readonly schema: Record<string, unknown>;
  readonly generated: GeneratedSet;
  /** Names the generator is expected to declare: input definitions, used remote ones, a titled root. */
  readonly definitions: string[];
  readonly genNames: Set<string>;
  readonly jstsNames: Set<string>;
  readonly jstsCode: string;
  readonly copies: Record<string, string>;
  /** jsts as configured (its defaults). */
  readonly rows: Row[];
  /** jsts with its `additionalProperties` default turned to `false`, i.e. our reading of a missing keyword. */
  readonly closedRows: Row[];
}

// Without core schemas: jsts reads the seed schema only, so the core definitions a set takes for its stubs
// (README › Core definitions) have no counterpart there; test/generator/lower/core-definitions.test.ts checks them.
const repoConfig = readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json"));
const config = { ...repoConfig, sets: repoConfig.sets.map(({ core: _core, ...set }) => set) };
const project = newProject();
const sets = new Map<SetName, SetUnderTest>();
const get = (name: SetName): SetUnderTest => sets.get(name) ?? expect.unreachable(`set ${name} was not loaded`);

beforeAll(async () => {
  const result = await generate(config);
  const files = new Map<SetName, { gen: SourceFile; jsts: SourceFile; closed: SourceFile }>();
  const inputs = new Map<SetName, { set: ResolvedSet; schema: Record<string, unknown>; generated: GeneratedSet; jstsCode: string }>();
  for (const name of SETS) {
    const set = config.sets.find((s) => s.name === name);
    const generated = result.sets.find((s) => s.name === name);
    if (!set || !generated) throw new Error(`set ${name} is missing from the config or the generator's result`);
    const schema = inputSchema(set);
    const jstsCode = await compile(schema, "Root", jstsOptions(set));
    // The oracle is jsts with its defaults; this second reading only checks the stated reason of
    // the index-signature differences (see the last test of each set).
    const closedCode = await compile(schema, "Root", jstsOptions(set, { additionalProperties: false }));
    // Every generated file goes in (whatever the generator writes now), so types.ts resolves any import.
    for (const file of generated.files) project.createSourceFile(`/gen/${name}/${file.name}`, file.contents);
    files.set(name, {
      gen: project.getSourceFileOrThrow(`/gen/${name}/types.ts`),
      jsts: project.createSourceFile(`/jsts/${name}.ts`, jstsCode),
      closed: project.createSourceFile(`/jsts-closed/${name}.ts`, closedCode),
    });
    inputs.set(name, { set, schema, generated, jstsCode });
  }
  // Only now, with every file in place: adding a file rebuilds the program, and types taken from
  // an older program must not be compared with newer ones.
  for (const name of SETS) {
    const { gen, jsts, closed } = files.get(name)!;
    const input = inputs.get(name)!;
    const genNames = new Set(declaredTypes(gen).keys());
    const jstsNames = new Set(declaredTypes(jsts).keys());
    const remoteDefs = Object.values(input.set.remotes).flatMap((path) => defKeys(readJson(path)));
    const title = typeof input.schema.title === "string" && genNames.has(input.schema.title) ? [input.schema.title] : [];
    const definitions = [...defKeys(input.schema), ...remoteDefs.filter((d) => genNames.has(d)), ...title];
    const copies = numberedDuplicates(jstsNames, definitions);
    sets.set(name, {
      ...input,
      definitions,
      genNames,
      jstsNames,
      copies,
      rows: compare(project, gen, jsts, copies),
      closedRows: compare(project, gen, closed, copies),
    });
  }
});

describe("the assignability check can fail (controls)", () => {
  it("reports a deliberately different pair as not mutually assignable, in the right direction", () => {
    const control = newProject();
    const ours = control.createSourceFile("/ours.ts", "export interface T { id: string; ttl: number | null }\nexport type U = 'a' | 'b';");
    const theirs = control.createSourceFile("/theirs.ts", "export interface T { id: string; ttl: number }\nexport type U = 'b' | 'a';");
    for (const file of [ours, theirs]) expectNoDiagnostics(file);
    expect(compare(control, ours, theirs)).toEqual([
      { name: "T", genToJsts: false, jstsToGen: true },
      { name: "U", genToJsts: true, jstsToGen: true },
    ]);
  });

  it("catches a one-property narrowing of the real generated Task", () => {
    const { generated } = get("tasks-2025-11-25");
    const types = generated.files.find((f) => f.name === "types.ts")!.contents;
    const narrowed = types.replace("ttl: number | null;", "ttl: number;");
    expect(narrowed).not.toBe(types);
    const control = newProject();
    const gen = control.createSourceFile("/gen.ts", narrowed);
    // Against the closed reading the untouched Task is mutual (asserted below), so only the edit can break it.
    const jsts = control.createSourceFile("/jsts.ts", project.getSourceFileOrThrow("/jsts-closed/tasks-2025-11-25.ts").getFullText());
    expectNoDiagnostics(gen);
    expect(get("tasks-2025-11-25").closedRows.find((r) => r.name === "Task")).toEqual({ name: "Task", genToJsts: true, jstsToGen: true });
    expect(compare(control, gen, jsts).find((r) => r.name === "Task")).toEqual({ name: "Task", genToJsts: true, jstsToGen: false });
  });
});

describe("the written list of differences", () => {
  it("uses every reason, and only jsts faults and documented choices", () => {
    const used = new Set<Reason>([
      ...SETS.flatMap((s) => Object.values(EXPECTED_DIFFERENCES[s]).map((d) => d.reason)),
      ...SETS.flatMap((s) => Object.values(NOT_IN_JSTS[s])),
      ...SETS.flatMap((s) => Object.values(ONLY_IN_JSTS[s]).map((d) => d.reason)),
    ]);
    expect([...used].sort()).toEqual(Object.keys(REASONS).sort());
    for (const s of SETS) for (const d of Object.values(EXPECTED_DIFFERENCES[s])) expect(d.genToJsts && d.jstsToGen).toBe(false);
  });
});

describe.each(SETS)("json-schema-to-typescript oracle: %s", (name) => {
  it("both declaration files type-check cleanly (no error type can hide a difference)", () => {
    for (const path of [`/gen/${name}/types.ts`, `/jsts/${name}.ts`, `/jsts-closed/${name}.ts`]) {
      expectNoDiagnostics(project.getSourceFileOrThrow(path));
    }
  });

  it("the generator declares every definition; jsts lacks only the listed ones", () => {
    const { definitions, genNames, jstsNames } = get(name);
    expect(definitions.filter((d) => !genNames.has(d))).toEqual([]);
    expect(definitions.filter((d) => !jstsNames.has(d)).sort()).toEqual(Object.keys(NOT_IN_JSTS[name]).sort());
  });

  it("every jsts declaration is compared, or listed (numbered duplicates mapped back to their definition)", () => {
    const { genNames, jstsNames, copies } = get(name);
    const onlyInJsts = [...jstsNames].filter((n) => !genNames.has(n));
    expect(onlyInJsts.sort()).toEqual(Object.keys(ONLY_IN_JSTS[name]).sort());
    const listedCopies = Object.entries(ONLY_IN_JSTS[name]).flatMap(([n, entry]) => (entry.copyOf ? [[n, entry.copyOf]] : []));
    expect(copies).toEqual(Object.fromEntries(listedCopies));
  });

  it("every definition not listed is mutually assignable; every listed one differs exactly as written", () => {
    const { rows } = get(name);
    printTable(name, rows);
    expect(rows.length).toBeGreaterThan(0);
    const actual = Object.fromEntries(rows.filter((r) => !(r.genToJsts && r.jstsToGen)).map((r) => [r.name, r]));
    const expected = Object.fromEntries(
      Object.entries(EXPECTED_DIFFERENCES[name]).map(([n, d]) => [n, { name: n, genToJsts: d.genToJsts, jstsToGen: d.jstsToGen }]),
    );
    expect(actual).toEqual(expected);
  });

  it("our type is never narrower than jsts's, except where jsts is at fault", () => {
    const narrower = get(name).rows.filter((r) => !r.jstsToGen).map((r) => r.name);
    const excused = Object.entries(EXPECTED_DIFFERENCES[name]).filter(([, d]) => !d.jstsToGen);
    expect(excused.filter(([, d]) => !isJstsFault(d.reason))).toEqual([]);
    expect(narrower).toEqual(excused.map(([n]) => n));
  });

  it("each index-signature difference is only that: with jsts reading a missing keyword as ours, the pair is mutual", () => {
    const { rows, closedRows } = get(name);
    const closed = new Map(closedRows.map((r) => [r.name, r]));
    for (const row of rows) {
      const listed = EXPECTED_DIFFERENCES[name][row.name];
      // A difference with another reason must not be explained away by the index signature.
      const expected = listed?.reason === "noImplicitIndexSignature" ? { genToJsts: true, jstsToGen: true } : { genToJsts: row.genToJsts, jstsToGen: row.jstsToGen };
      expect(closed.get(row.name)).toEqual({ name: row.name, ...expected });
    }
  });
});

describe("jsts input handling", () => {
  it("reads the Zod-style nested `$schema` in every `$defs` entry as if it were absent (no pre-processing needed)", async () => {
    const { set, schema, jstsCode } = get("ext-tasks-2026-05-22");
    const nested = Object.values(schema.$defs as Record<string, Record<string, unknown>>).filter((d) => "$schema" in d);
    expect(nested.length).toBeGreaterThan(0);
    expect(await compile(withoutNestedDialects(schema), "Root", jstsOptions(set))).toBe(jstsCode);
  });

  it("never falls back to the network or the disk for an unmapped remote `$ref`", async () => {
    const { set } = get("tasks-2025-11-25");
    const schema = { $defs: { X: { $ref: "https://example.invalid/unmapped.json#/$defs/Y" } } };
    // "Unable to resolve" comes from the resolver lookup; with http on, jsts would report "Error downloading".
    await expect(compile(schema, "Root", jstsOptions(set))).rejects.toThrow(/^Unable to resolve \$ref pointer "https:\/\/example\.invalid\/unmapped\.json"$/);
  });
});
