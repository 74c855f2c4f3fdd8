import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  Node,
  Project,
  SyntaxKind,
  ts,
  type InterfaceDeclaration,
  type SourceFile,
  type Type,
  type TypeAliasDeclaration,
} from "ts-morph";
import { describe, expect, it } from "vitest";
import { STRICT_COMPILER_OPTIONS } from "../../support/typescript.js";
import { generate, readConfigFile, type GeneratedSet } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";

/**
 * The shapes the design asks of generated types, checked on the generator's in-memory output
 * with the TypeScript checker (ts-morph): what a union's members resolve to, what a property's
 * type refers to, which names are declared. Text snapshots live in snapshots.test.ts; these
 * tests say *why* a shape is right, so they keep failing for the right reason after an update.
 */

const config = readConfigFile(join(projectRoot, "mcp-tasks-gen.config.json"));
const { sets } = await generate(config);

const COMPILER_OPTIONS = STRICT_COMPILER_OPTIONS;

interface LoadedSet {
  readonly project: Project;
  readonly folder: string;
  readonly types: SourceFile;
  readonly files: readonly SourceFile[];
}

/** One in-memory ts-morph project per set: its files under `/<set>/`, in an ESM package. */
function load(name: string): LoadedSet {
  const set: GeneratedSet | undefined = sets.find((s) => s.name === name);
  if (!set) throw new Error(`the generator produced no set named ${name}`);
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: COMPILER_OPTIONS });
  project.createSourceFile("/package.json", '{ "type": "module" }');
  const folder = `/${name}`;
  const files = set.files.map((f) => project.createSourceFile(`${folder}/${f.name}`, f.contents));
  return { project, folder, types: project.getSourceFileOrThrow(`${folder}/types.ts`), files };
}

const loaded = new Map<string, LoadedSet>();
const setNamed = (name: string): LoadedSet => loaded.get(name) ?? loaded.set(name, load(name)).get(name)!;

/** The interface or type alias `name` declared in types.ts (throws when there is none). */
function declaration(set: LoadedSet, name: string): InterfaceDeclaration | TypeAliasDeclaration {
  const found = set.types.getInterface(name) ?? set.types.getTypeAlias(name);
  if (!found) throw new Error(`types.ts declares no ${name}`);
  return found;
}

/** The declared type of a property of an interface (or of a type alias that is an object literal), as a type node. */
function propertyTypeNode(set: LoadedSet, owner: string, property: string): Node {
  const decl = declaration(set, owner);
  const members = Node.isInterfaceDeclaration(decl) ? decl : decl.getTypeNodeOrThrow().asKindOrThrow(SyntaxKind.TypeLiteral);
  return members.getPropertyOrThrow(property).getTypeNodeOrThrow();
}

/** The name a type node refers to, when it is a plain reference to a declaration of types.ts; otherwise its text in brackets. */
function referencedName(set: LoadedSet, node: Node): string {
  if (!Node.isTypeReference(node)) return `<${node.getKindName()}: ${node.getText()}>`;
  const target = node.getTypeName().getSymbol()?.getDeclarations()[0];
  if (target?.getSourceFile() !== set.types) return `<reference outside types.ts: ${node.getText()}>`;
  return node.getTypeName().getText();
}

/** Names of the named declarations a union type resolves to (`__type` for an anonymous object literal). */
function unionMemberNames(type: Type): string[] {
  if (!type.isUnion()) return [`<not a union: ${type.getText()}>`];
  return type.getUnionTypes().map((t) => t.getAliasSymbol()?.getName() ?? t.getSymbol()?.getName() ?? t.getText());
}

/**
 * The member type nodes of the union a declaration stands for: `type X = A | B` or, with fields
 * shared by every variant, `type X = { … } & (A | B)`. Throws when the declaration is neither.
 */
function variantNodes(decl: InterfaceDeclaration | TypeAliasDeclaration): Node[] {
  const unwrap = (node: Node): Node => (Node.isParenthesizedTypeNode(node) ? unwrap(node.getTypeNode()) : node);
  const top = Node.isTypeAliasDeclaration(decl) ? unwrap(decl.getTypeNodeOrThrow()) : undefined;
  const parts = top && Node.isIntersectionTypeNode(top) ? top.getTypeNodes().map(unwrap) : top ? [top] : [];
  const unions = parts.filter((n) => Node.isUnionTypeNode(n));
  if (unions.length !== 1) throw new Error(`expected one top-level union in ${decl.getText()}`);
  return unions[0]!.getTypeNodes();
}

/** Every top-level declared name of a file: types, interfaces, functions, classes, enums, variables. */
function declaredNames(file: SourceFile): string[] {
  return file.getStatements().flatMap((statement) => {
    if (Node.isVariableStatement(statement)) return statement.getDeclarations().map((d) => d.getName());
    if (
      Node.isInterfaceDeclaration(statement) ||
      Node.isTypeAliasDeclaration(statement) ||
      Node.isClassDeclaration(statement) ||
      Node.isEnumDeclaration(statement) ||
      Node.isFunctionDeclaration(statement) ||
      Node.isModuleDeclaration(statement)
    ) {
      return [statement.getName() ?? "<anonymous>"];
    }
    return [];
  });
}

/** Diagnostics of a probe file compiled next to a set's files (the set's own files are proven clean in compile-generated.test.ts). */
function probe(set: LoadedSet, code: string): string[] {
  const file = set.project.createSourceFile(`${set.folder}/probe.ts`, code, { overwrite: true });
  try {
    return file.getPreEmitDiagnostics().map((d) => `TS${d.getCode()}: ${ts.flattenDiagnosticMessageText(d.compilerObject.messageText, " ")}`);
  } finally {
    set.project.removeSourceFile(file);
  }
}

const normalize = (text: string) => text.replace(/\s+/g, " ").trim();

describe("ext-tasks-2026-05-22", () => {
  const ext = () => setNamed("ext-tasks-2026-05-22");

  it("declares DetailedTask as exactly the union of the five named status variants", () => {
    const names = unionMemberNames(declaration(ext(), "DetailedTask").getType());
    expect(names.sort()).toEqual(["CancelledTask", "CompletedTask", "FailedTask", "InputRequiredTask", "WorkingTask"]);
  });

  it.each([
    ["GetTaskResult", "DetailedTask"],
    ["CreateTaskResult", "Task"],
    ["TaskStatusNotificationParams", "DetailedTask"],
  ])("%s refers to %s instead of repeating its object literals", (name, target) => {
    const decl = declaration(ext(), name);
    const referenced = decl.getDescendantsOfKind(SyntaxKind.TypeReference).map((r) => referencedName(ext(), r));
    expect(referenced).toContain(target);
    // A repeated task literal would declare the task's own fields inline.
    const inlineFields = decl.getDescendantsOfKind(SyntaxKind.PropertySignature).map((p) => p.getName());
    expect(inlineFields.filter((f) => ["taskId", "status", "createdAt", "ttlMs"].includes(f))).toEqual([]);
  });

  it("types InputRequiredTask.inputRequests as InputRequests", () => {
    expect(referencedName(ext(), propertyTypeNode(ext(), "InputRequiredTask", "inputRequests"))).toBe("InputRequests");
  });

  it("types UpdateTaskRequestParams.inputResponses as InputResponses", () => {
    expect(referencedName(ext(), propertyTypeNode(ext(), "UpdateTaskRequest", "params"))).toBe("UpdateTaskRequestParams");
    expect(referencedName(ext(), propertyTypeNode(ext(), "UpdateTaskRequestParams", "inputResponses"))).toBe("InputResponses");
  });

  it("keeps definitions with identical bodies as distinct declarations", () => {
    const names = new Set(declaredNames(ext().types));
    for (const name of ["InputRequest", "InputResponse", "InputRequests", "InputResponses", "CancelTaskResult", "UpdateTaskResult"]) {
      expect(names.has(name), name).toBe(true);
    }
  });

  describe("DetailedTask assignability (the compiler decides)", () => {
    const base = 'taskId: "t", createdAt: "", lastUpdatedAt: "", ttlMs: null';
    const assign = (fields: string) => probe(ext(), `import type { DetailedTask } from "./types.js";\nexport const t: DetailedTask = { ${fields} };\n`);

    it("accepts a completed task with its result", () => {
      expect(assign(`${base}, status: "completed", result: {}`)).toEqual([]);
    });

    it("rejects a completed task without result", () => {
      expect(assign(`${base}, status: "completed"`).join("\n")).toMatch(/TS2322: .*Property 'result' is missing/);
    });

    it('rejects an unknown status ("done")', () => {
      expect(assign(`${base}, status: "done"`).join("\n")).toMatch(/TS2322: Type '"done"' is not assignable/);
    });

    it("accepts a failed task with error, and rejects one with result instead", () => {
      expect(assign(`${base}, status: "failed", error: {}`)).toEqual([]);
      expect(assign(`${base}, status: "failed", result: {}`).join("\n")).toMatch(/TS2353: .*'result' does not exist in type 'FailedTask'/);
    });
  });
});

describe("tasks-2025-11-25", () => {
  const spec = () => setNamed("tasks-2025-11-25");

  it("names GetTaskRequest.params from its place (GetTaskRequestParams), not after a look-alike (RelatedTaskMetadata)", () => {
    expect(referencedName(spec(), propertyTypeNode(spec(), "GetTaskRequest", "params"))).toBe("GetTaskRequestParams");
    expect(propertyTypeNode(spec(), "GetTaskRequestParams", "taskId").getText()).toBe("string");
  });
});

describe("elicitation-codex", () => {
  const codex = () => setNamed("elicitation-codex");
  const schema = JSON.parse(readFileSync(join(projectRoot, "schemas", "codex-mcp-elicitation-request-params.schema.json"), "utf8")) as {
    required: string[];
    oneOf: { required: string[]; properties: { mode: { enum?: string[]; const?: string } } }[];
  };
  /** The schema's own account: mode value → the fields its branch requires (plus the root's). */
  const requiredByMode = new Map(
    schema.oneOf.map((branch) => [branch.properties.mode.const ?? branch.properties.mode.enum?.[0], [...schema.required, ...branch.required]]),
  );

  it("reads four modes from the schema (guards the expectations below)", () => {
    expect([...requiredByMode.keys()].sort()).toEqual(["form", "openai/form", "openaiForm", "url"]);
  });

  it("declares McpServerElicitationRequestParams as a union of one named interface per mode", () => {
    const decl = declaration(codex(), "McpServerElicitationRequestParams");
    const variants = variantNodes(decl).map((n) => referencedName(codex(), n));
    expect(variants).toHaveLength(requiredByMode.size);
    expect(new Set(variants).size).toBe(variants.length);

    const modes = new Map<string, string>();
    for (const variant of variants) {
      // A single string literal (written inline or through an alias), so TypeScript narrows on `mode`.
      const mode = codex().types.getInterfaceOrThrow(variant).getPropertyOrThrow("mode").getType();
      expect(mode.isStringLiteral(), `${variant}.mode: ${mode.getText()}`).toBe(true);
      modes.set(String(mode.getLiteralValue()), variant);
    }
    expect([...modes.keys()].sort()).toEqual([...requiredByMode.keys()].sort());

    for (const [mode, variant] of modes) {
      const iface = codex().types.getInterfaceOrThrow(variant);
      const required = iface.getProperties().filter((p) => !p.hasQuestionToken()).map((p) => p.getName());
      const branchOnly = requiredByMode.get(mode)!.filter((f) => !schema.required.includes(f));
      expect(required.sort(), variant).toEqual(expect.arrayContaining(branchOnly));
    }
  });

  it("narrows on mode: each resolved member requires its mode's fields, root fields included", () => {
    const type = declaration(codex(), "McpServerElicitationRequestParams").getType();
    expect(type.isUnion()).toBe(true);
    const seen: string[] = [];
    for (const member of type.getUnionTypes()) {
      const modeType = member.getPropertyOrThrow("mode").getTypeAtLocation(codex().types);
      expect(modeType.isStringLiteral(), modeType.getText()).toBe(true);
      const mode = modeType.getLiteralValue() as string;
      seen.push(mode);
      const required = member.getProperties().filter((p) => !p.isOptional()).map((p) => p.getName());
      expect(required, mode).toEqual(expect.arrayContaining(requiredByMode.get(mode) ?? ["<unknown mode>"]));
    }
    expect(seen.sort()).toEqual([...requiredByMode.keys()].sort());
  });
});

describe("every set", () => {
  it("declares no numbered duplicate names (Task1, Params2, …)", () => {
    // Checked: every name a file exports (the API users read and import) and every declaration of
    // types.ts. Not checked: private helpers of validators.ts such as `$isTaskPart1`, which number
    // the branches of one definition's check rather than duplicate a name.
    const report: Record<string, string[]> = {};
    for (const set of sets) {
      const loadedSet = setNamed(set.name);
      const names = new Set([...declaredNames(loadedSet.types), ...loadedSet.files.flatMap((f) => [...f.getExportedDeclarations().keys()])]);
      // Guards against a collector that finds nothing and so passes vacuously.
      expect(names.size, set.name).toBeGreaterThan(10);
      // Names whose digits are the thing's own, not a count: StandardSchemaV1 (the interface's published
      // name) and the Base64 codec's `base64`/`fromBase64` (runtime/protocol/base64.ts).
      const OWN_DIGITS = new Set(["StandardSchemaV1", "base64", "fromBase64"]);
      report[set.name] = [...names].filter((n) => /[A-Za-z]\d+$/.test(n) && !OWN_DIGITS.has(n));
    }
    expect(report).toEqual(Object.fromEntries(sets.map((s) => [s.name, []])));
  });

  describe.each(config.sets.map((s) => [s.name, s.schemas] as const))("%s", (name, schemaFiles) => {
    // Only the set's input schemas; remote documents contribute just what they are referenced for.
    const definitions = schemaFiles.flatMap((file) => {
      const json = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      const defs = (json.$defs ?? json.definitions ?? {}) as Record<string, { description?: unknown }>;
      return Object.entries(defs).map(([key, def]) => ({ key, description: typeof def.description === "string" ? def.description : undefined }));
    });

    it("has definitions to check", () => {
      expect(definitions.length).toBeGreaterThan(0);
    });

    it("exports every definition under its own name, with its description as JSDoc", () => {
      const types = setNamed(name).types;
      const exported = types.getExportedDeclarations();
      const problems: string[] = [];
      for (const { key, description } of definitions) {
        const decl = exported.get(key)?.find((d) => Node.isInterfaceDeclaration(d) || Node.isTypeAliasDeclaration(d));
        if (!decl || !(Node.isInterfaceDeclaration(decl) || Node.isTypeAliasDeclaration(decl))) {
          problems.push(`${key}: not exported as a type`);
          continue;
        }
        if (description === undefined) continue;
        const doc = decl.getJsDocs().at(-1)?.getInnerText();
        if (doc === undefined || normalize(doc) !== normalize(description)) problems.push(`${key}: JSDoc ${JSON.stringify(doc)} ≠ description ${JSON.stringify(description)}`);
      }
      expect(problems).toEqual([]);
    });
  });
});
