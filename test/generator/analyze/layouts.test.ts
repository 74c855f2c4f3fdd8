import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFromMemory, type MemoryDocument } from "../../../generator/index.js";
import type { Model } from "../../../generator/analyze/model.js";
import { fixturePath } from "../../support/paths.js";
import { compileSets, FULL_STRICT_OPTIONS, oracleAjv } from "../../support/schema-oracle.js";
import { constantsOf, mutatedValues, validish, type SchemaObject } from "../../support/schema-values.js";
import { importGeneratedModule, writeGeneratedSources } from "../../support/generated-modules.js";

/**
 * Stubs derived from meaning, not layout (ARCHITECTURE.md › Stubs): the newest Tasks revision writes
 * each request as `allOf [{ $ref JSONRPCRequest }, { method, params }]`. Written in other layouts that
 * mean the same thing (keys reordered, the JSON-RPC envelope inlined into each message, the core
 * definitions moved into a second document reached by absolute URI), it gives the same method
 * table, the same exported API of client.ts and server.ts (read with the TypeScript compiler), and
 * validators that agree with ajv on the original schema.
 */

const SCHEMA = JSON.parse(readFileSync(fixturePath("mcp-spec", "ext-tasks-e434597", "schema.json"), "utf8")) as { $defs: Record<string, unknown> } & SchemaObject;
const MAIN = "https://example.test/ext-tasks.json";
const CORE = "https://example.test/mcp-core.json";

type Json = unknown;

/** Every object's keys in reverse order, all the way down (`skip`: objects whose own key order is left, their values still reversed). */
function reversedKeys(value: Json, keepOrderOf?: (key: string) => boolean, key?: string): Json {
  if (Array.isArray(value)) return value.map((v) => reversedKeys(v, keepOrderOf));
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value).map(([k, v]) => [k, reversedKeys(v, keepOrderOf, k)] as const);
  return Object.fromEntries(key !== undefined && keepOrderOf?.(key) ? entries : entries.reverse());
}

/** `value` with each `{ "$ref": r }` for which `replace(r)` answers replaced by that answer. */
function replacingRefs(value: Json, replace: (ref: string) => Json | undefined): Json {
  if (Array.isArray(value)) return value.map((v) => replacingRefs(v, replace));
  if (value === null || typeof value !== "object") return value;
  const ref = (value as { $ref?: unknown }).$ref;
  const replacement = typeof ref === "string" ? replace(ref) : undefined;
  if (replacement !== undefined) return replacement;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replacingRefs(v, replace)]));
}

/** The `$defs` names a schema refers to locally. */
function localRefs(value: Json, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => localRefs(v, found));
  else if (value !== null && typeof value === "object") {
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === "string" && ref.startsWith("#/$defs/")) found.add(ref.slice("#/$defs/".length));
    Object.values(value).forEach((v) => localRefs(v, found));
  }
  return found;
}

interface Layout {
  readonly documents: readonly MemoryDocument[];
  /** The definitions of the main document, declared as the set's roots. */
  readonly roots: readonly string[];
}

const single = (json: typeof SCHEMA): Layout => ({ documents: [{ uri: MAIN, json }], roots: Object.keys(json.$defs) });

/** Each message's `$ref` to the envelope replaced by a copy of the envelope, which is no definition of its own any more. */
function envelopeInlined(): Layout {
  const schema = structuredClone(SCHEMA);
  const envelopes: Record<string, Json> = {
    "#/$defs/JSONRPCRequest": schema.$defs.JSONRPCRequest,
    "#/$defs/JSONRPCNotification": schema.$defs.JSONRPCNotification,
  };
  for (const [name, def] of Object.entries(schema.$defs)) {
    if (!name.startsWith("JSONRPC")) schema.$defs[name] = replacingRefs(def, (ref) => (ref in envelopes ? structuredClone(envelopes[ref]) : undefined));
  }
  // Without the envelope definitions, no inlined copy can be folded back into a reference to one (analyze/dedupe.ts).
  delete schema.$defs.JSONRPCRequest;
  delete schema.$defs.JSONRPCNotification;
  expect(JSON.stringify(schema)).not.toContain('"#/$defs/JSONRPC');
  return single(schema);
}

/** JSONRPCRequest, JSONRPCNotification, Result, NotificationParams and all they reach, moved into a second document. */
function coreSplit(): Layout {
  const schema = structuredClone(SCHEMA);
  const moved = new Set<string>();
  const pending = ["JSONRPCRequest", "JSONRPCNotification", "Result", "NotificationParams"];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (moved.has(name)) continue;
    moved.add(name);
    pending.push(...localRefs(schema.$defs[name]));
  }
  const core = { $schema: schema.$schema, $id: CORE, $defs: Object.fromEntries([...moved].map((name) => [name, schema.$defs[name]])) };
  for (const name of moved) delete schema.$defs[name];
  for (const [name, def] of Object.entries(schema.$defs)) {
    schema.$defs[name] = replacingRefs(def, (ref) => (ref.startsWith("#/$defs/") && moved.has(ref.slice(8)) ? { $ref: `${CORE}${ref}` } : undefined));
  }
  expect([...moved]).toEqual(expect.arrayContaining(["RequestId", "ResultMetaObject", "NotificationMetaObject", "Implementation"]));
  return { documents: [{ uri: MAIN, json: { ...schema, $id: MAIN } }, { uri: CORE, json: core }], roots: Object.keys(schema.$defs) };
}

const LAYOUTS: Record<string, () => Layout> = {
  original: () => single(SCHEMA),
  "keys reordered within every schema": () => single(reversedKeys(SCHEMA, (key) => key === "$defs") as typeof SCHEMA),
  "JSON-RPC envelope inlined into each message": envelopeInlined,
  "core definitions in a second document, by absolute URI": coreSplit,
};

interface Generated {
  readonly dir: string;
  readonly model: Model;
  readonly files: ReadonlyMap<string, string>;
}

let workDir: string;
const generated = new Map<string, Generated>();

async function generateLayout(name: string, layout: Layout): Promise<Generated> {
  const { files, model } = await generateFromMemory({
    documents: layout.documents,
    roots: layout.roots.map((root) => ({ name: root, uri: `${MAIN}#/$defs/${root}` })),
    format: false,
  });
  const dir = join(workDir, name.replace(/[^a-z]+/g, "-"));
  writeGeneratedSources(files, dir);
  return { dir, model, files: new Map(files.map((f) => [f.name, f.contents])) };
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-layouts-"));
  for (const [name, layout] of Object.entries(LAYOUTS)) generated.set(name, await generateLayout(name, layout()));
}, 120_000);

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const original = () => generated.get("original")!;
const others = Object.keys(LAYOUTS).filter((name) => name !== "original");

/** Each exported declaration of a module, printed without comments, by name. */
function exportedDeclarations(program: ts.Program, file: string): Map<string, string> {
  const source = program.getSourceFile(file)!;
  const printer = ts.createPrinter({ removeComments: true });
  const found = new Map<string, string>();
  for (const statement of source.statements) {
    const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isExportDeclaration(statement)) {
      found.set(`export ${statement.moduleSpecifier ? (statement.moduleSpecifier as ts.StringLiteral).text : ""}`, printer.printNode(ts.EmitHint.Unspecified, statement, source));
    } else if (exported) {
      const names = ts.isVariableStatement(statement)
        ? statement.declarationList.declarations.map((d) => d.name.getText(source))
        : [(statement as ts.DeclarationStatement).name?.getText(source) ?? "default"];
      for (const name of names) found.set(name, printer.printNode(ts.EmitHint.Unspecified, statement, source));
    }
  }
  return found;
}

/** The names a module imports from the set's types.ts. */
function typeImports(program: ts.Program, file: string): string[] {
  const source = program.getSourceFile(file)!;
  return source.statements.flatMap((s) =>
    ts.isImportDeclaration(s) && (s.moduleSpecifier as ts.StringLiteral).text === "./types.js" && s.importClause?.namedBindings && ts.isNamedImports(s.importClause.namedBindings)
      ? s.importClause.namedBindings.elements.map((e) => e.name.text)
      : [],
  );
}

describe("layouts that mean the same thing give the same stubs", () => {
  it("every layout has the same method table and status model, with client.ts and server.ts", () => {
    const table = original().model.methods;
    expect(table.requests.map((r) => r.method)).toEqual(["tasks/cancel", "tasks/get", "tasks/update"]);
    expect(table.requests.every((r) => r.params && r.result)).toBe(true);
    expect(table.notifications.map((n) => n.method)).toEqual(["notifications/tasks"]);
    // The inlined layout really is inline: its messages are intersections with an object envelope, no reference.
    const inlined = generated.get("JSON-RPC envelope inlined into each message")!.model;
    const getTask = inlined.definitions.find((d) => d.name === "GetTaskRequest")!.node;
    expect(getTask.kind === "intersection" && getTask.parts.map((p) => p.kind)).toEqual(["object", "object"]);
    for (const name of others) {
      const { model, files } = generated.get(name)!;
      expect(model.methods, name).toEqual(table);
      expect(model.status, name).toEqual(original().model.status);
      expect([...files.keys()], name).toEqual(expect.arrayContaining(["client.ts", "server.ts", "elicitation.ts", "status.ts"]));
    }
  });

  it("every layout compiles under the full strict flag set", () => {
    const results = compileSets([...generated.values()].map((g) => g.dir));
    for (const [dir, result] of results) expect(result.full, dir).toEqual([]);
  }, 120_000);

  it("client.ts and server.ts export the same declarations, and the types they import are mutually assignable", () => {
    const files = [...generated.values()].flatMap((g) => ["client.ts", "server.ts", "types.ts"].map((f) => join(g.dir, f)));
    const program = ts.createProgram(files, FULL_STRICT_OPTIONS);
    const checker = program.getTypeChecker();
    const declaredType = (dir: string, name: string): ts.Type => {
      const module = checker.getSymbolAtLocation(program.getSourceFile(join(dir, "types.ts"))!)!;
      const symbol = checker.getExportsOfModule(module).find((s) => s.name === name);
      expect(symbol, `${dir}/types.ts exports ${name}`).toBeDefined();
      return checker.getDeclaredTypeOfSymbol(symbol!);
    };
    for (const module of ["client.ts", "server.ts"]) {
      const expected = exportedDeclarations(program, join(original().dir, module));
      expect(expected.size).toBeGreaterThan(3);
      const imported = typeImports(program, join(original().dir, module));
      // Guards against comparing nothing: each stub binds the set's task and created-task types.
      expect(imported).toEqual(expect.arrayContaining(["CreateTaskResult", "DetailedTask"]));
      for (const name of others) {
        const { dir } = generated.get(name)!;
        expect(exportedDeclarations(program, join(dir, module)), `${name}: ${module}`).toEqual(expected);
        expect(typeImports(program, join(dir, module)), `${name}: ${module}`).toEqual(imported);
        for (const type of imported) {
          const mine = declaredType(dir, type);
          const theirs = declaredType(original().dir, type);
          expect(checker.isTypeAssignableTo(mine, theirs) && checker.isTypeAssignableTo(theirs, mine), `${name}: ${type}`).toBe(true);
        }
      }
    }
  }, 120_000);

  it("the validators of every layout agree with ajv on the original schema", async () => {
    // The definitions the stubs validate with: each method's message, params and result, and the task shapes.
    const { methods, status } = original().model;
    const names = [
      ...new Set([
        ...methods.requests.flatMap((r) => [r.message, r.params!, r.result!]),
        ...methods.notifications.flatMap((n) => [n.message, n.params!]),
        "CreateTaskResult",
        status!.taskType!,
        status!.variantUnion!.name,
      ]),
    ].filter((name) => name in SCHEMA.$defs);
    expect(names).toEqual(expect.arrayContaining(["GetTaskRequest", "GetTaskResult", "UpdateTaskRequest", "TaskStatusNotification"]));
    const documents = new Map<string, SchemaObject>([[MAIN, { ...SCHEMA, $id: MAIN }]]);
    const ajv = oracleAjv("2020-12", documents);
    const place = { set: { documents }, baseUri: MAIN };
    const constants = constantsOf({ documents });
    const validators = new Map<string, Record<string, (value: unknown) => boolean>>();
    for (const [name, g] of generated) {
      validators.set(name, await importGeneratedModule<Record<string, (value: unknown) => boolean>>(g.files, g.dir));
    }
    let accepted = 0;
    let rejected = 0;
    for (const name of names) {
      const schema = SCHEMA.$defs[name] as SchemaObject;
      const oracle = ajv.getSchema(`${MAIN}#/$defs/${name}`)!;
      const values = fc.sample(fc.oneof(validish(schema, place), mutatedValues(validish(schema, place), constants)), { numRuns: 120, seed: 4345 });
      for (const value of values) {
        const verdict = oracle(value) === true;
        verdict ? accepted++ : rejected++;
        for (const [layout, module] of validators) expect(module[`is${name}`]!(value), `${layout}: is${name}(${JSON.stringify(value)})`).toBe(verdict);
      }
    }
    // Both verdicts were tried, or agreement proves little.
    expect(accepted).toBeGreaterThan(50);
    expect(rejected).toBeGreaterThan(50);
  }, 120_000);
});

describe("definition order", () => {
  it("reordering the $defs themselves reorders only the method lists, which follow the source order (README › The generated API)", async () => {
    const reordered = await generateLayout("defs reordered", single(reversedKeys(SCHEMA) as typeof SCHEMA));
    expect(reordered.model.methods.requests.map((r) => r.method)).toEqual([...original().model.methods.requests.map((r) => r.method)].reverse());
    const sorted = (text: string) => text.replace(/\[("tasks\/[^\]]*)\]/g, (_, list: string) => `[${[...list.matchAll(/"[^"]*"/g)].map((m) => m[0]).sort().join(", ")}]`);
    const program = ts.createProgram([join(original().dir, "client.ts"), join(reordered.dir, "client.ts"), join(original().dir, "server.ts"), join(reordered.dir, "server.ts")], FULL_STRICT_OPTIONS);
    for (const module of ["client.ts", "server.ts"]) {
      const mine = [...exportedDeclarations(program, join(reordered.dir, module))].map(([k, v]) => [k, sorted(v)]);
      const theirs = [...exportedDeclarations(program, join(original().dir, module))].map(([k, v]) => [k, sorted(v)]);
      expect(new Map(mine as [string, string][])).toEqual(new Map(theirs as [string, string][]));
    }
  }, 60_000);
});
