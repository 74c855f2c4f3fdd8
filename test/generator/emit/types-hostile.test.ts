import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, isAbsolute, join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { templateTypeGlobals } from "../../../generator/emit/exports.js";
import { STATUS_TEMPLATE_GLOBALS } from "../../../generator/emit/status.js";
import { runCli } from "../../support/cli.js";
import { importGeneratedModule } from "../../support/generated-modules.js";
import { projectRoot } from "../../support/paths.js";
import { treeSnapshot } from "../../support/tree.js";
import { STRICT_COMPILER_OPTIONS, typeCheckInMemory } from "../../support/typescript.js";
import { filesBelow } from "../../support/pack.js";

/**
 * Exit 0 means it compiles: for hostile schemas (index signatures beside properties,
 * recursion, definitions named like globals or like what the generated modules export, hostile
 * property names and comments) the generated set compiles under plain `strict` and under the full
 * flag set, with no DOM or Node typings, and its types say what the schema says: a `check.ts`
 * written beside the output assigns right values and, under `@ts-expect-error`, wrong ones (a
 * wrong value that type-checks leaves the directive unused, which is a diagnostic). Schemas that
 * have no value or no possible name stop with one located line, exit 2, nothing written.
 */

const FIXTURES = join(projectRoot, "test", "fixtures", "hostile-types");

/** No DOM: without `lib`, target ES2022 would bring in the DOM library. */
const LIB = ["lib.es2022.d.ts"];

const OPTION_SETS: Readonly<Record<string, ts.CompilerOptions>> = {
  "plain strict": {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
    lib: LIB,
    skipLibCheck: true,
    noEmit: true,
  },
  "full flag set": { ...STRICT_COMPILER_OPTIONS, noUnusedLocals: true, noUnusedParameters: true, lib: LIB, noEmit: true },
};

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-types-hostile-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Generates a fixture with the ad-hoc CLI into a fresh folder; returns the files written (name → text). */
async function generateFixture(fixture: string): Promise<Map<string, string>> {
  const out = join(work, fixture.replace(/\.schema\.json$/, ""));
  const { code, stderr } = await runCli(["--schema", join(FIXTURES, fixture), "--out", out]);
  expect(code, stderr).toBe(0);
  return new Map(filesBelow(out).map((name) => [name, readFileSync(join(out, name), "utf8")]));
}

/** Every diagnostic of `files` (name → text) compiled as one folder of an ESM package, formatted. */
function diagnostics(files: ReadonlyMap<string, string>, options: ts.CompilerOptions): string[] {
  return typeCheckInMemory(files, options, { roots: (name) => name.endsWith(".ts") }).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.message, " ");
    return d.file === undefined ? `TS${d.code}: ${text}` : `${d.file}:${d.line} TS${d.code}: ${text}`;
  });
}

/** Asserts that the set plus `check` (a module of type assertions, may be "") compiles under both option sets. */
function expectCompiles(files: ReadonlyMap<string, string>, check: string): void {
  const withCheck = new Map(files);
  if (check) withCheck.set("check.ts", check);
  for (const [name, options] of Object.entries(OPTION_SETS)) {
    expect(diagnostics(withCheck, options), name).toEqual([]);
  }
}

/** The names types.ts declares, in order. */
function declaredNames(files: ReadonlyMap<string, string>): string[] {
  return [...files.get("types.ts")!.matchAll(/^export (?:type|interface) ([\w$]+)/gm)].map((m) => m[1]!);
}

describe("index signatures beside declared properties", () => {
  it("admit every declared property's type, undefined for optional ones, under both flag sets", async () => {
    const files = await generateFixture("index-signatures.schema.json");
    expectCompiles(
      files,
      `import type { OptionalBesideTypedExtra, RequiredOfOtherTypes, PatternBesideProperties, PatternOpen, PropertyNamesBesideProperties, RequiredUndeclared } from "./index.js";
export const extraString: OptionalBesideTypedExtra = { a: "x", other: "y" };
// @ts-expect-error extra properties are strings
export const extraNumber: OptionalBesideTypedExtra = { other: 1 };
// @ts-expect-error a declared property keeps its own type
export const declaredWrong: OptionalBesideTypedExtra = { a: 1 };
// An extra property may be absent, so reading one can give undefined.
export const readExtra = (value: OptionalBesideTypedExtra): string | undefined => value["other"];
export const requiredOthers: RequiredOfOtherTypes = { n: 1, flag: true, extra: "s" };
// @ts-expect-error n is required
export const missingRequired: RequiredOfOtherTypes = { flag: true };
// @ts-expect-error n is a number
export const requiredWrong: RequiredOfOtherTypes = { n: "1", flag: true };
export const pattern: PatternBesideProperties = { a: "x", "x-rate": 1 };
// @ts-expect-error neither the pattern's number nor a's string
export const patternWrong: PatternBesideProperties = { "x-rate": true };
export const patternOpen: PatternOpen = { a: "x", "x-rate": 1, anything: [true] };
export const names: PropertyNamesBesideProperties = { a: "x", b: "y" };
export const requiredUndeclared: RequiredUndeclared = { z: "s" };
// @ts-expect-error z is required
export const requiredUndeclaredMissing: RequiredUndeclared = { a: "s" };
`,
    );
  });
});

describe("$ref cycles", () => {
  it("through objects and arrays generate, compile and validate finite values", async () => {
    const files = await generateFixture("recursion-through-containers.schema.json");
    expectCompiles(
      files,
      `import type { TreeNode, Json, ListAlias } from "./index.js";
export const tree: TreeNode = { value: "root", children: [{ value: "leaf", children: [] }] };
// @ts-expect-error a child is a TreeNode too
export const badTree: TreeNode = { value: "root", children: [{ children: [] }] };
export const json: Json = { a: [1, "x", null, { b: true }] };
export const list: ListAlias = { head: 1, tail: { head: 2 } };
// @ts-expect-error the tail's head is an integer
export const badList: ListAlias = { head: 1, tail: { head: "2" } };
`,
    );
    const validators = await importTranspiled(files, "recursion", ["isTreeNode", "isJson", "isListAlias"]);
    expect(validators.isTreeNode({ value: "a", children: [{ value: "b", children: [{ value: "c" }] }] })).toBe(true);
    expect(validators.isTreeNode({ value: "a", children: [{ value: "b", children: [{ value: 3 }] }] })).toBe(false);
    expect(validators.isJson({ a: [1, { b: [null] }] })).toBe(true);
    expect(validators.isJson(1)).toBe(true);
    expect(validators.isListAlias({ head: 1, tail: { head: 2, tail: { head: 3 } } })).toBe(true);
    expect(validators.isListAlias({ head: 1, tail: { head: 2, tail: { head: "3" } } })).toBe(false);
  });

  it("a definition that is false compiles with no unused parameter and no unreachable code, and accepts nothing", async () => {
    const files = await generateFixture("false-definition.schema.json");
    const check = `import type { Nothing, Holder } from "./index.js";
// @ts-expect-error no value is a Nothing
export const nothing: Nothing = 1;
export const holder: Holder = { name: "x" };
// @ts-expect-error never may only be absent
export const badHolder: Holder = { never: 1 };
`;
    expectCompiles(files, check);
    // Unreachable code (a \`return true\` after \`return false\`) is an error where a project says so.
    const withCheck = new Map([...files, ["check.ts", check]]);
    expect(diagnostics(withCheck, { ...OPTION_SETS["full flag set"], allowUnreachableCode: false })).toEqual([]);
    const validators = await importTranspiled(files, "false-definition", ["isNothing", "validateNothing", "isHolder"]);
    for (const value of [null, 0, "", {}, []]) {
      expect(validators.isNothing(value)).toBe(false);
      expect(validators.validateNothing(value) as unknown).toMatchObject({ ok: false, errors: [{ path: "", message: "no value is allowed here" }] });
    }
    expect(validators.isHolder({ name: "x" })).toBe(true);
    expect(validators.isHolder({ never: null })).toBe(false);
    expect(validators.isHolder({ alsoNever: 1 })).toBe(false);
  });

  const cycles: readonly [fixture: string, pointer: string, cycle: string][] = [
    ["ref-cycle-self.error.schema.json", "#/$defs/A/$ref", "A → A"],
    ["ref-cycle-two.error.schema.json", "#/$defs/A/$ref", "A → B → A"],
    ["ref-cycle-allof.error.schema.json", "#/$defs/A/allOf/1/$ref", "A → A"],
    ["ref-cycle-anyof.error.schema.json", "#/$defs/A/anyOf/1/$ref", "A → B → A"],
    ["ref-cycle-not.error.schema.json", "#/$defs/A/not/$ref", "A → A"],
    ["ref-cycle-if.error.schema.json", "#/$defs/A/if/$ref", "A → A"],
    ["ref-cycle-root.error.schema.json", "#/anyOf/1/$ref", "Loop → Loop"],
  ];
  for (const [fixture, pointer, cycle] of cycles) {
    it(`with no object or array in between are a located error: ${fixture}`, async () => {
      await expectRejected(fixture, pointer, `"$ref" cycle ${cycle} with no object or array in between has no value`);
    });
  }
});

describe("definition names", () => {
  it("keep the names of JavaScript and TypeScript globals, which generated code never needs in their module", async () => {
    const files = await generateFixture("global-names.schema.json");
    const schema = JSON.parse(readFileSync(join(FIXTURES, "global-names.schema.json"), "utf8")) as { $defs: object };
    expect(declaredNames(files)).toEqual(Object.keys(schema.$defs));
    // No global is referred to by a name inside types.ts: it declares them all itself.
    expect(files.get("types.ts")).not.toMatch(/globalThis\.|Record</);
    expectCompiles(
      files,
      `import type { Error, Record, Array, Date, JSON, Readonly, Extract } from "./index.js";
import { isError, isArray, isJSON } from "./index.js";
export const error: Error = { code: 1, message: "m", data: { p: { state: "pending" } }, at: "2024-" };
// @ts-expect-error Error is the schema's Error, which requires a code, not the global one
export const globalError: Error = new globalThis.Error("m");
export const record: Record = { p: { state: "settled" } };
// @ts-expect-error Record is the schema's map of Promise definitions
export const wrongRecord: Record = { p: Promise.resolve(1) };
export const array: Array = ["a"];
// @ts-expect-error Array holds String definitions, that is strings
export const wrongArray: Array = [1];
export const date: Date = "2024-01-01";
export const json: JSON = { code: 2, message: "x" };
export const tuple: Readonly = [true, { error: { code: 1, message: "m" } }];
export const extract: Extract = { status: "done" };
// @ts-expect-error status is the schema's Exclude enum
export const wrongExtract: Extract = { status: "other" };
export const checks = [isError({ code: 1, message: "m" }), isArray(["a", "b"]), isJSON([])];
`,
    );
  });

  it("PascalCase names that start with $ or _ or are not identifiers, and keep Object.prototype member names", async () => {
    const files = await generateFixture("odd-names.schema.json");
    expect(declaredNames(files)).toEqual([
      "Proto",
      "constructor",
      "prototype",
      "toString",
      "hasOwnProperty",
      "valueOf",
      "Dollar",
      "Underscore",
      "NotAnIdentifier",
      "N2faCode",
      "Default",
      "Await",
      "Keyof",
      "Readonly",
      "Infer",
      "Unique",
    ]);
    expectCompiles(
      files,
      `import type { Proto, constructor, hasOwnProperty } from "./index.js";
import { isProto, ishasOwnProperty } from "./index.js";
export const proto: Proto = { x: "s" };
export const ctor: constructor = { proto: { x: "s" } };
// @ts-expect-error proto is the Proto definition
export const wrongCtor: constructor = { proto: {} };
export const own: hasOwnProperty = { ctor: {} };
export const checks = [isProto({ x: "s" }), ishasOwnProperty({ ctor: {} })];
`,
    );
  });

  it("named like the validators' runtime helpers compile everywhere but in validators.ts", async () => {
    const files = await generateFixture("runtime-helper-names.schema.json");
    expect(declaredNames(files)).toEqual(["Object", "describe", "report"]);
    for (const [name, options] of Object.entries(OPTION_SETS)) {
      expect(diagnostics(new Map([["types.ts", files.get("types.ts")!]]), options), name).toEqual([]);
      expect(diagnostics(files, options), name).toEqual([]);
    }
  });

  // The validators reach their runtime through the `$runtime` namespace and name private helpers
  // with a leading `$`, which no definition name has: nothing of theirs can clash.
  it("named like the validators' runtime helpers compile as a whole set", async () => {
    expectCompiles(await generateFixture("runtime-helper-names.schema.json"), "");
  });

  it("used beside the global of that name as a value compile (a type-only import does not shadow a value)", async () => {
    const files = await generateFixture("value-global.schema.json");
    expect(files.get("elicitation.ts")).toMatch(/^import type \{ Number \} from "\.\/types\.js";$/m);
    // The global is used as a value in the static form module the set's elicitation.ts binds.
    expect(files.get("runtime/protocol/elicitation-forms.ts")).toMatch(/\bNumber\(/);
    expectCompiles(files, `import type { Number } from "./index.js";\nexport const form: Number = { type: "object", properties: {} };\n`);
  });

  it("imported into status.ts beside the global type of that name are imported under an alias", async () => {
    // The extension draft with its TaskStatus definition named Exclude, a global type status.ts uses.
    const draft = readFileSync(join(projectRoot, "schemas", "ext-tasks-2026-05-22.schema.json"), "utf8");
    const renamed = draft.replace('\n    "TaskStatus": {', '\n    "Exclude": {').replaceAll('"#/$defs/TaskStatus"', '"#/$defs/Exclude"');
    expect(renamed).not.toBe(draft);
    writeFileSync(join(work, "status-named-exclude.schema.json"), renamed);
    const out = join(work, "status-named-exclude");
    const { code, stderr } = await runCli(["--schema", join(work, "status-named-exclude.schema.json"), "--out", out]);
    expect(code, stderr).toBe(0);
    const files = new Map(filesBelow(out).map((name) => [name, readFileSync(join(out, name), "utf8")]));
    expect(files.get("status.ts")).toMatch(/^import type \{ Exclude as ExcludeDefinition, DetailedTask \} from "\.\/types\.js";$/m);
    expectCompiles(
      files,
      `import type { Exclude, ActiveStatus } from "./index.js";
export const status: Exclude = "working";
export const active: ActiveStatus = "input_required";
// @ts-expect-error a terminal status is not active
export const terminal: ActiveStatus = "completed";
`,
    );
  });

  it("status.ts aliases exactly the global types its template uses", () => {
    expect([...templateTypeGlobals("status.ts.hbs")].sort()).toEqual([...STATUS_TEMPLATE_GLOBALS].sort());
    // The parse finds type uses, not value uses: the client's Error is a type, its Date only a value.
    expect(templateTypeGlobals("client.ts.hbs")).toContain("Promise");
    expect(templateTypeGlobals("client.ts.hbs")).not.toContain("Date");
  });

  it("that a template module needs as a global type are a located error naming the remedy", async () => {
    // The extension draft with its Task definition named Promise: client.ts imports the task type
    // and also declares its methods' results as the global Promise type. (The client's error
    // classes, which used the global Error type, are in the static client-core.ts, which imports no
    // definitions; a Task named Error no longer clashes.)
    const draft = readFileSync(join(projectRoot, "schemas", "ext-tasks-2026-05-22.schema.json"), "utf8");
    const renamed = draft.replace('\n    "Task": {', '\n    "Promise": {').replaceAll('"#/$defs/Task"', '"#/$defs/Promise"');
    expect(renamed).not.toBe(draft);
    const fixture = "task-named-promise.schema.json";
    writeFileSync(join(work, fixture), renamed);
    const { stderr } = await expectRejected(
      join(work, fixture),
      "#/$defs/Promise",
      'the definition name "Promise" is the name of a global type that the generated client.ts uses beside this definition',
    );
    expect(stderr).toContain("=PromiseDefinition'");
  });

  it("named like a global type only the static client-core.ts uses (Error) generate and compile", async () => {
    // The draft with its Task definition named Error, run by the CLI like the fixtures above.
    const draft = readFileSync(join(projectRoot, "schemas", "ext-tasks-2026-05-22.schema.json"), "utf8");
    const renamed = draft.replace('\n    "Task": {', '\n    "Error": {').replaceAll('"#/$defs/Task"', '"#/$defs/Error"');
    writeFileSync(join(work, "task-named-error.schema.json"), renamed);
    const out = join(work, "task-named-error");
    const { code, stderr } = await runCli(["--schema", join(work, "task-named-error.schema.json"), "--out", out]);
    expect(code, stderr).toBe(0);
    const files = new Map(filesBelow(out).map((name) => [name, readFileSync(join(out, name), "utf8")]));
    expect(files.get("client.ts")).toMatch(/^\s+Error,$/m);
    expectCompiles(files, `import type { Error } from "./index.js";\nexport const task: Error["status"] = "working";\n`);
  });

  const exported: readonly [fixture: string, name: string, module: string][] = [
    ["exported-is-prefix.error.schema.json", "isFoo", "validators"],
    ["exported-validate-prefix.error.schema.json", "validateFoo", "validators"],
    ["exported-parse-prefix.error.schema.json", "parseFoo", "validators"],
  ];
  for (const [fixture, name, module] of exported) {
    it(`that another generated module exports are a located error naming the remedy: ${name}`, async () => {
      const pointer = `#/$defs/${name}`;
      const { stderr } = await expectRejected(
        fixture,
        pointer,
        `the definition name "${name}" is also exported by the generated ${module}.ts, and index.ts cannot export both`,
      );
      // An ad-hoc run: the remedy is the exact flag to pass for this definition (a config run
      // prints the entry of the set's "names" instead: test/generator/analyze/naming.test.ts).
      const location = stderr.slice(0, stderr.indexOf(": "));
      expect(stderr).toContain(`to choose a name, pass --name '${location}=${name}Definition'`);
    });
  }
});

describe("property names and comments", () => {
  it("quote what is not an identifier and escape what would end a comment or start a tag", async () => {
    const files = await generateFixture("hostile-keys.schema.json");
    const types = files.get("types.ts")!;
    // The comments hold the schema's text: no `*/` from the schema closes one, no `@` starts a tag.
    const source = ts.createSourceFile("types.ts", types, ts.ScriptTarget.ES2022, true);
    const keys = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === "Keys")!;
    const [doc] = ts.getJSDocCommentsAndTags(keys) as ts.JSDoc[];
    expect(doc!.tags ?? []).toEqual([]);
    expect(ts.getTextOfJSDocComment(doc!.comment)).toContain("Ends *\\/ here.");
    expect(keys.members.map((m) => (m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) ? m.name.text : "?"))).toEqual(
      expect.arrayContaining(['with "quotes"', "back\\slash", "new\nline", "*/", "/*", "line\u2028separator", "paragraph\u2029separator", "", "__proto__", "constructor", "${x}"]),
    );
    expectCompiles(
      files,
      `import type { Keys, KeysNested, KeyMap } from "./index.js";
export const keys: Keys = {
  "*/": "closing",
  "": "empty",
  'with "quotes"': "q",
  "back\\\\slash": 1,
  "new\\nline": true,
  "line\\u2028separator": "l",
  ["__proto__"]: "p",
  // A literal that omits an optional property named like an Object.prototype member fails to
  // type-check (TypeScript compares Object's own toString with it), so these are given.
  constructor: 1,
  toString: "t",
  "1e3": "n",
  mixed: { "k\\u2028": [1, "x"], "*/": {} },
  nothing: null,
  separator: "\\u2028\\u2029",
};
export const mixedValues: Keys["mixed"][] = ["a", 1, null, true, []];
// @ts-expect-error 2 is not in the enum
export const notInEnum: Keys["mixed"] = 2;
// @ts-expect-error const null admits only null
export const notNull: Keys["nothing"] = "null";
// @ts-expect-error "*/" is required
export const missingClosing: Keys = { "": "e", mixed: "a", nothing: null, constructor: 1, toString: "t" };
// @ts-expect-error back\\slash is a number
export const wrongBackslash: Keys = { "*/": "c", "": "e", mixed: "a", nothing: null, constructor: 1, toString: "t", "back\\\\slash": "1" };
export const nested: KeysNested = { "*/": "*/", "a b": "s" };
// @ts-expect-error the const is "*/"
export const wrongNested: KeysNested = { "*/": "*" };
export const map: KeyMap = { "*/": 1, "": 2, "\\u2028": 3 };
// @ts-expect-error only the listed names
export const wrongMap: KeyMap = { other: 1 };
`,
    );
  });
});

/**
 * Runs the CLI on a fixture (a name in FIXTURES, or a path) that must be refused, into a folder that already holds a generated
 * set, and checks the contract: exit 2, one line `…/<fixture><pointer>: <message>…`, nothing
 * written (the folder is byte-identical).
 */
async function expectRejected(fixture: string, pointer: string, message: string): Promise<{ stderr: string }> {
  const schema = isAbsolute(fixture) ? fixture : join(FIXTURES, fixture);
  fixture = basename(fixture);
  const out = join(work, `refused-${fixture}`);
  const good = await runCli(["--schema", join(FIXTURES, "recursion-through-containers.schema.json"), "--out", out]);
  expect(good.code, good.stderr).toBe(0);
  const before = treeSnapshot(out);
  const { code, stdout, stderr } = await runCli(["--schema", schema, "--out", out]);
  expect(stderr).toMatch(/^[^\n]+\n$/);
  // The line starts with the fixture's path (however the CLI displays it) and the pointer.
  const at = stderr.indexOf(`${fixture}${pointer}: ${message}`);
  expect(at, stderr).toBeGreaterThanOrEqual(0);
  expect(stderr.slice(0, at)).toMatch(/^[^\s#]*$/);
  expect(code).toBe(2);
  expect(stdout).toBe("");
  expect(treeSnapshot(out)).toEqual(before);
  // A fresh target is not even created.
  const fresh = join(work, `fresh-${fixture}`);
  expect((await runCli(["--schema", schema, "--out", fresh])).code).toBe(2);
  expect(existsSync(fresh)).toBe(false);
  return { stderr };
}

type Predicate = (value: unknown) => boolean;

/** Transpiles a generated set to JavaScript in a temp folder and imports the named validators from it. */
async function importTranspiled<N extends string>(files: ReadonlyMap<string, string>, name: string, exports: readonly N[]): Promise<Record<N, Predicate>> {
  const module = await importGeneratedModule<{ [name: string]: unknown }>(files, join(work, `js-${name}`));
  const picked = {} as Record<N, Predicate>;
  for (const exported of exports) {
    const value = module[exported];
    if (typeof value !== "function") throw new Error(`validators.ts exports no function ${exported}`);
    picked[exported] = value as Predicate;
  }
  return picked;
}
