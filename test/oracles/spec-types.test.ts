import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Project, ts, type SourceFile } from "ts-morph";
import { beforeAll, describe, expect, it } from "vitest";
import { generate, readConfigFile, type GeneratedFile } from "../../generator/index.js";
import { fixturePath, projectRoot } from "../support/paths.js";

/**
 * The generated 2025-11-25 types against the specification's own TypeScript
 * (`test/fixtures/seeds/tasks-2025-11-25.schema.ts`). Every type the spec exports must be assignable to the
 * generated type of the same name (the generated type is never narrower), and the two must be
 * equivalent wherever the JSON Schema says as much as the TypeScript does.
 *
 * The compiler decides: `checker.isTypeAssignableTo` on the declared types of both files, in an
 * in-memory program compiled with the options generated code must satisfy. A probe file that
 * assigns each type to its namesake, in both directions, cross-checks the checker API against
 * the diagnostics a user would see.
 */

const SET_NAME = "tasks-2025-11-25";

/**
 * The spec names whose generated type is strictly wider, each with the reason the JSON Schema says
 * less than the TypeScript there. Every other spec name must be equivalent.
 */
const WIDER_BY_SCHEMA: Readonly<Record<string, string>> = {
  CreateTaskResult:
    "spec `extends Result` inherits `[key: string]: unknown`; the schema has no `additionalProperties` keyword, so (README.md › The generated API) no index signature, and an interface without one is not assignable to one with it",
  ListTasksResult:
    "spec `extends PaginatedResult extends Result` inherits `[key: string]: unknown`; the schema has no `additionalProperties` keyword, so (README.md › The generated API) no index signature",
  TaskServerCapabilities:
    "spec types tasks.list / tasks.cancel / tasks.requests.tools.call as `Record<string, never>` (empty); the schema says only `{\"type\":\"object\"}`, generated as `object`",
  TaskClientCapabilities:
    "spec types tasks.list / tasks.cancel / tasks.requests.{sampling.createMessage,elicitation.create} as `Record<string, never>`; the schema says only `{\"type\":\"object\"}`",
};

/** Where the schema is as strict as the TypeScript (`integer` has no TS counterpart; both read `number`). */
const EXPECTED_EQUIVALENT = [
  "TaskStatus",
  "TaskMetadata",
  "RelatedTaskMetadata",
  "Task",
  "GetTaskRequest",
  "GetTaskResult",
  "GetTaskPayloadRequest",
  "GetTaskPayloadResult",
  "CancelTaskRequest",
  "CancelTaskResult",
  "ListTasksRequest",
  "TaskStatusNotificationParams",
  "TaskStatusNotification",
  "TaskAugmentedRequestParams",
  "ToolTaskSupport",
];

const GEN_TYPES = "/gen/types.ts";
const SPEC_FILE = "/spec/spec.ts";
const PROBE_FILE = "/probe/probe.ts";

interface Verdict {
  readonly name: string;
  /** The spec type is assignable to the generated one (the generated type is never narrower). */
  readonly specToGen: boolean;
  readonly genToSpec: boolean;
}

interface Judgement {
  readonly specNames: readonly string[];
  readonly genNames: readonly string[];
  /** One per spec name that the generated types also export, by the checker API. */
  readonly verdicts: readonly Verdict[];
  /** The same questions answered by the probe file's diagnostics. */
  readonly probed: readonly Verdict[];
  /** Diagnostics of the generated files and the spec file (the probe's are expected). */
  readonly diagnostics: readonly string[];
}

/**
 * An in-memory program: generated files in /gen, the spec in /spec, compiled as an ESM package
 * (the package.json makes NodeNext treat the .ts files as ESM, so `./types.js` imports resolve
 * and `verbatimModuleSyntax` accepts them) with the options README.md › The generated API promises generated code meets.
 */
function buildProject(genFiles: readonly GeneratedFile[], specText: string): Project {
  const project = new Project({
    useInMemoryFileSystem: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      noEmit: true,
    },
  });
  project.getFileSystem().writeFileSync("/package.json", JSON.stringify({ type: "module" }));
  for (const file of genFiles) project.createSourceFile(`/gen/${file.name}`, file.contents);
  project.createSourceFile(SPEC_FILE, specText);
  return project;
}

/** The exported type declarations of a file, by name. */
function exportedTypes(file: SourceFile): Map<string, ts.Type> {
  const types = new Map<string, ts.Type>();
  for (const symbol of file.getExportSymbols()) {
    const target = symbol.isAlias() ? symbol.getAliasedSymbolOrThrow() : symbol;
    // Not `hasFlags`: it demands every bit of the composite `Type` mask, which no symbol has.
    if (target.getFlags() & ts.SymbolFlags.Type) types.set(symbol.getName(), target.getDeclaredType().compilerType);
  }
  return types;
}

/** Each check on its own line, so a diagnostic's line number names the check that failed. */
function probeText(names: readonly string[]): { text: string; lines: Map<number, { name: string; direction: "specToGen" | "genToSpec" }> } {
  const out = ['import type * as Gen from "../gen/types.js";', 'import type * as Spec from "../spec/spec.js";'];
  const lines = new Map<number, { name: string; direction: "specToGen" | "genToSpec" }>();
  for (const name of names) {
    out.push(`export const specToGen_${name} = (value: Spec.${name}): Gen.${name} => value;`);
    lines.set(out.length, { name, direction: "specToGen" });
    out.push(`export const genToSpec_${name} = (value: Gen.${name}): Spec.${name} => value;`);
    lines.set(out.length, { name, direction: "genToSpec" });
  }
  return { text: out.join("\n") + "\n", lines };
}

const describeDiagnostic = (d: ts.Diagnostic): string =>
  `${d.file?.fileName ?? "?"}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;

const compileErrors = (project: Project): string[] =>
  ts.getPreEmitDiagnostics(project.getProgram().compilerObject).map(describeDiagnostic);

/** Compares the spec file with generated files, by the checker API and by the probe file. */
function judge(genFiles: readonly GeneratedFile[], specText: string): Judgement {
  const project = buildProject(genFiles, specText);
  const diagnostics = compileErrors(project);

  const checker = project.getTypeChecker().compilerObject;
  const spec = exportedTypes(project.getSourceFileOrThrow(SPEC_FILE));
  const gen = exportedTypes(project.getSourceFileOrThrow(GEN_TYPES));
  // Guard against the checks below passing vacuously over an empty list.
  if (spec.size === 0 || gen.size === 0) throw new Error(`no exported types found (spec: ${spec.size}, generated: ${gen.size})`);
  const shared = [...spec.keys()].filter((name) => gen.has(name));
  const verdicts = shared.map((name): Verdict => {
    const [specType, genType] = [spec.get(name)!, gen.get(name)!];
    // An unresolved reference reads as the error type (an `any`), assignable both ways: refuse it.
    for (const [where, type] of [["spec", specType], ["generated", genType]] as const) {
      if (type.flags & ts.TypeFlags.Any) throw new Error(`the ${where} type ${name} is any`);
    }
    return { name, specToGen: checker.isTypeAssignableTo(specType, genType), genToSpec: checker.isTypeAssignableTo(genType, specType) };
  });

  const probe = probeText(shared);
  const probeFile = project.createSourceFile(PROBE_FILE, probe.text);
  const failed = new Set<string>();
  for (const diagnostic of probeFile.getPreEmitDiagnostics()) {
    const check = probe.lines.get(diagnostic.getLineNumber() ?? -1);
    if (!check) throw new Error(`unexpected probe diagnostic: ${describeDiagnostic(diagnostic.compilerObject)}`);
    failed.add(`${check.direction}:${check.name}`);
  }
  const probed = shared.map((name): Verdict => ({
    name,
    specToGen: !failed.has(`specToGen:${name}`),
    genToSpec: !failed.has(`genToSpec:${name}`),
  }));
  return { specNames: [...spec.keys()], genNames: [...gen.keys()], verdicts, probed, diagnostics };
}

const equivalentNames = (verdicts: readonly Verdict[]): string[] =>
  verdicts.filter((v) => v.specToGen && v.genToSpec).map((v) => v.name).sort();

function printTable(verdicts: readonly Verdict[]): void {
  const width = Math.max(...verdicts.map((v) => v.name.length));
  const mark = (ok: boolean) => (ok ? "yes" : "NO ");
  const rows = verdicts.map((v) => {
    const verdict = !v.specToGen
      ? "GENERATED IS NARROWER (generator bug)"
      : v.genToSpec
        ? "equivalent"
        : `one-way: ${WIDER_BY_SCHEMA[v.name] ?? "UNEXPLAINED (schema as strict as the TS: generator bug?)"}`;
    return `${v.name.padEnd(width)}  ${mark(v.specToGen)}        ${mark(v.genToSpec)}        ${verdict}`;
  });
  console.log([`${"name".padEnd(width)}  spec→gen  gen→spec  verdict`, ...rows].join("\n"));
}

/** Replaces the one occurrence of `find`, so a control cannot pass by editing nothing. */
function replaceOnce(text: string, find: string, replacement: string): string {
  const count = text.split(find).length - 1;
  if (count !== 1) throw new Error(`expected one occurrence of ${JSON.stringify(find)}, found ${count}`);
  return text.replace(find, replacement);
}

/** The generated files with types.ts passed through `edit`. */
function withEditedTypes(files: readonly GeneratedFile[], edit: (text: string) => string): GeneratedFile[] {
  return files.map((file) => (file.name === "types.ts" ? { name: file.name, contents: edit(file.contents) } : file));
}

let genFiles: readonly GeneratedFile[];
let specText: string;
let actual: Judgement;

beforeAll(async () => {
  const result = await generate(readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json")));
  const set = result.sets.find((s) => s.name === SET_NAME);
  if (!set) throw new Error(`the generator produced no set named ${SET_NAME}`);
  // The comparison is about types: types.ts and what it imports (nothing). The other modules use
  // the types, so a deliberately narrowed copy (below) would also break them, which is not the point.
  genFiles = set.files.filter((f) => f.name === "types.ts");
  specText = readFileSync(fixturePath("seeds", "tasks-2025-11-25.schema.ts"), "utf8");
  actual = judge(genFiles, specText);
});

describe("the comparison method is sound", () => {
  it("the checker API rejects string → number, and compile errors in memory are reported", () => {
    const project = buildProject([], "export const n: number = 'x';\n");
    const checker = project.getTypeChecker().compilerObject;
    expect(checker.isTypeAssignableTo(checker.getStringType(), checker.getNumberType())).toBe(false);
    expect(checker.isTypeAssignableTo(checker.getNumberType(), checker.getNumberType())).toBe(true);
    // The clean-compile assertion below is only worth something if errors do surface here.
    expect(compileErrors(project)).toEqual([expect.stringContaining("not assignable to type 'number'")]);
  });

  it("the generated files and the spec compile cleanly together, so no type degrades to an error type", () => {
    expect(actual.diagnostics).toEqual([]);
  });

  it("the probe file's diagnostics agree with the checker API on every name and direction", () => {
    expect(actual.probed).toEqual(actual.verdicts);
  });

  it("detects a generated type made narrower: Task.ttl as `number` breaks spec → generated for Task and everything holding one", () => {
    const narrowed = judge(withEditedTypes(genFiles, (t) => replaceOnce(t, "ttl: number | null;", "ttl: number;")), specText);
    expect(narrowed.diagnostics).toEqual([]);
    const notAssignable = narrowed.verdicts.filter((v) => !v.specToGen).map((v) => v.name).sort();
    expect(notAssignable).toEqual(
      ["CancelTaskResult", "CreateTaskResult", "GetTaskResult", "ListTasksResult", "Task", "TaskStatusNotification", "TaskStatusNotificationParams"].sort(),
    );
    expect(narrowed.probed).toEqual(narrowed.verdicts);
  });

  it("detects a generated type made wider: Task.ttl as `number | null | string` keeps spec → generated but ends Task's equivalence", () => {
    const widened = judge(withEditedTypes(genFiles, (t) => replaceOnce(t, "ttl: number | null;", "ttl: number | null | string;")), specText);
    expect(widened.diagnostics).toEqual([]);
    const task = widened.verdicts.find((v) => v.name === "Task");
    expect(task).toEqual({ name: "Task", specToGen: true, genToSpec: false });
    expect(equivalentNames(widened.verdicts)).not.toContain("Task");
    expect(widened.probed).toEqual(widened.verdicts);
  });
});

describe("generated 2025-11-25 types against the specification's TypeScript", () => {
  it("the spec file exports the types this test classifies, each once (none unlisted, none stale)", () => {
    const classified = [...EXPECTED_EQUIVALENT, ...Object.keys(WIDER_BY_SCHEMA)].sort();
    expect(new Set(classified).size).toBe(classified.length);
    expect([...actual.specNames].sort()).toEqual(classified);
  });

  it("every exported spec name is exported by the generated types", () => {
    const missing = actual.specNames.filter((name) => !actual.genNames.includes(name));
    expect(missing).toEqual([]);
  });

  it("every spec type is assignable to its generated namesake (the generated type is never narrower)", () => {
    printTable(actual.verdicts);
    const narrower = actual.verdicts.filter((v) => !v.specToGen).map((v) => v.name);
    expect(narrower).toEqual([]);
  });

  it("the types are equivalent exactly where the schema is as strict as the TypeScript", () => {
    const equivalent = equivalentNames(actual.verdicts);
    const oneWay = actual.verdicts.filter((v) => !(v.specToGen && v.genToSpec)).map((v) => v.name);
    console.log(`equivalent (${equivalent.length}): ${equivalent.join(", ")}`);
    console.log(`one-way (${oneWay.length}):\n${oneWay.map((n) => `  ${n}: ${WIDER_BY_SCHEMA[n] ?? "UNEXPLAINED"}`).join("\n")}`);
    expect(equivalent).toEqual([...EXPECTED_EQUIVALENT].sort());
  });

  it("the generated types declare every $defs entry of the schema under its own name", () => {
    const schema = JSON.parse(readFileSync(join(projectRoot, "schemas", `${SET_NAME}.schema.json`), "utf8")) as { $defs: Record<string, unknown> };
    const defs = Object.keys(schema.$defs);
    expect(defs.length).toBeGreaterThan(0);
    expect(defs.filter((name) => !actual.genNames.includes(name))).toEqual([]);
  });
});
