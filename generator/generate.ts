/**
 * The pipeline, end to end and in memory, and the one place that runs its stages in order:
 * schema files ─load─▶ documents ─bind─▶ registry ─lower─▶ IR ─analyze─▶ model ─emit─▶ files ─format─▶ result.
 * Each stage's folder does its one job and calls no later stage; nothing here touches the output
 * folder; writing is the caller's choice (see output/files.ts).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { analyze, type Model } from "./analyze/model.js";
import type { MethodMapping } from "./analyze/methods.js";
import { sourcePath, type AllOfMode, type ResolvedConfig, type ResolvedSet } from "./config/config.js";
import type { ChosenName } from "./names.js";
import { mergeIntersections } from "./analyze/merge.js";
import { formatLocation, GeneratorError, type Diagnostic, type SourceLocation } from "./diagnostics.js";
import { choiceError } from "./analyze/naming.js";
import { getByPointer, parsePointer } from "./load/json-pointer.js";
import { fileHeader, type HeaderInfo } from "./emit/header.js";
import { partModules, partNeedsLine, type PartsOrigin, type RuntimePart } from "./emit/runtime-parts.js";
import type { Dialect } from "./load/dialect.js";
import { checkDefinitionNames } from "./emit/exports.js";
import { emitIndex } from "./emit/index-module.js";
import { mtsName, withMjsSpecifiers } from "./emit/module-extension.js";
import { emitStandardSchemas, STANDARD_SCHEMA_NAMESPACE } from "./emit/standard-schema.js";
import { emitStatusHelpers } from "./emit/status.js";
import { emitTypes } from "./emit/types.js";
import { staticFileName, staticModule, withImports, type StaticModuleName } from "./emit/templates.js";
import { emitValidators } from "./emit/validators/module.js";
import { emitClient } from "./emit/stubs/client.js";
import { emitServer } from "./emit/stubs/server.js";
import { protocolFacts, type ProtocolFacts } from "./analyze/protocol/facts.js";
import { structuralFlowChecks } from "./analyze/protocol/flow-checks.js";
import { emitElicitation } from "./emit/elicitation/emit.js";
import type { SchemaFile } from "./load/documents.js";
import { formatAll } from "./output/format.js";
import { startFormattingEarly, stopEarlyHelpers } from "./output/format-helpers.js";
import { emitJavaScript, MODULE_PACKAGE_JSON } from "./output/javascript.js";
import { inputFingerprint, reusableBody, withFingerprint } from "./output/reuse.js";
import type { GeneratedFile, GeneratedSet } from "./output/files.js";
import { lowerMemoryRoots, lowerSetDefinitions } from "./lower/lower-set.js";
import { coreDocument, coreFlowRoots } from "./lower/core-definitions.js";
import { readSetFiles, registerMemoryDocuments, registerSetDocuments } from "./load/set-documents.js";
import type { SchemaRegistry } from "./load/registry.js";
import type { Definition } from "./ir/nodes.js";
import { bindSchemas } from "./bind/bindings.js";
import { visitNodes } from "./ir/walk.js";
import { dedupe, lintSchemas, withoutSilenced, type LintDiagnostic } from "./lint/lint.js";
import { VERSION } from "./version.js";

export interface GenerateResult {
  readonly sets: readonly GeneratedSet[];
  /** Lint findings of every set (warnings; they do not change the output), each naming its set; without the rules a set's config sets to "off". */
  readonly diagnostics: readonly LintDiagnostic[];
  /** With `notes: true`: what the run does quietly (lint's notes, `--verbose`), from the same analysis of each set. */
  readonly notes?: readonly SetNote[];
}

export interface GenerateOptions {
  /** Also work out each set's notes (as `lint` gives them) from the analysis generating made. */
  readonly notes?: boolean;
}

/** Generates every set of a resolved config; throws GeneratorError on bad input. */
export async function generate(config: ResolvedConfig, options: GenerateOptions = {}): Promise<GenerateResult> {
  // A set with no output yet has nothing to reuse: formatting will come, and its helper thread can
  // load prettier now, on another core, while this thread generates.
  if (config.sets.some((set) => !existsSync(set.outDir))) startFormattingEarly();
  try {
    return await generateAndFormat(config, options.notes === true);
  } finally {
    await stopEarlyHelpers();
  }
}

async function generateAndFormat(config: ResolvedConfig, notes: boolean): Promise<GenerateResult> {
  const unformatted = await asJavaScriptWhereAsked(
    config.sets,
    config.sets.map((set) => withExtension(set.extension, generateSet(set, config.rootDir, notes))),
  );
  // Format every module of every set in one batch, so the work can be shared between threads.
  const formatted = await formatModules(unformatted.flatMap((set) => set.files.map((file) => ({ ...file, existing: join(set.outDir, file.name) }))));
  let next = 0;
  const sets = unformatted.map(({ diagnostics: _lint, notes: _notes, ...set }, i) => {
    const files = set.files.map(() => formatted[next++]!);
    // A JavaScript set's folder says its .js files are ES modules (see output/javascript.ts); .mjs files say it themselves.
    const configured = config.sets[i]!;
    return { ...set, files: configured.emit === "js" && configured.extension !== ".mts" ? [...files, MODULE_PACKAGE_JSON] : files };
  });
  const diagnostics = dedupe(unformatted.flatMap((set) => set.diagnostics));
  return notes ? { sets, diagnostics, notes: unformatted.flatMap((set) => set.notes) } : { sets, diagnostics };
}

/**
 * A set's modules under the extension its config asks for (see emit/module-extension.ts). A static
 * module's import lines grow, so it is formatted again like any other module.
 */
function withExtension<S extends { readonly files: readonly GeneratedModule[] }>(extension: ".mts" | undefined, set: S): S {
  if (extension !== ".mts") return set;
  return { ...set, files: set.files.map((f) => ({ name: mtsName(f.name), header: f.header, code: withMjsSpecifiers(f.code) })) };
}

/** The sets whose config asks for JavaScript, with their modules compiled to `.js` and `.d.ts` (same header). */
async function asJavaScriptWhereAsked<S extends { readonly outDir: string; readonly files: readonly GeneratedModule[] }>(
  configured: readonly ResolvedSet[],
  sets: readonly S[],
): Promise<S[]> {
  const compiled = await emitJavaScript(
    sets.map((set, i) => ({ outDir: set.outDir, modules: set.files, javascript: configured[i]!.emit === "js" })),
  );
  return sets.map((set, i) => {
    const modules = compiled[i];
    // Each .js and .d.ts keeps its .ts module's header (a runtime part's names what it needs).
    const headers = new Map(set.files.map((f) => [f.name.replace(/\.ts$/, ""), f.header]));
    const headerOf = (name: string) => headers.get(name.replace(/(\.d\.ts|\.js)$/, "")) ?? "";
    return modules ? { ...set, files: modules.map((m) => ({ name: m.name, header: headerOf(m.name), code: m.code })) } : set;
  });
}

/** Lints every set of a resolved config without emitting anything (`mcp-tasks-gen lint`). */
export function lint(config: ResolvedConfig): readonly LintDiagnostic[] {
  return lintSets(config).diagnostics;
}

/** A remark of `lint` about a set that is not a finding: why it gets no client.ts or server.ts. */
export interface SetNote {
  readonly set: string;
  readonly message: string;
}

/**
 * Lint findings of every set, and notes on what the normal run does quietly (a set without task
 * methods gets no stubs). A set that defines task methods but cannot get stubs stops here too, with
 * the located error generating would give.
 */
export function lintSets(config: ResolvedConfig): { readonly diagnostics: readonly LintDiagnostic[]; readonly notes: readonly SetNote[] } {
  const notes: SetNote[] = [];
  const diagnostics = config.sets.flatMap((set) => {
    const { model, diagnostics: found } = loadSet(set, config.rootDir);
    notes.push(...setNotes(set, protocolFacts(model)));
    return withoutSilenced(found, set.lint).map((d) => ({ ...d, set: set.name }));
  });
  return { diagnostics: dedupe(diagnostics), notes };
}

/** A set's notes from its protocol facts: why it gets no stubs, or that its flows are checked structurally (no core schema). */
function setNotes(set: ResolvedSet, protocol: ProtocolFacts): SetNote[] {
  if ("noStubsReason" in protocol) return [{ set: set.name, message: `gets no client.ts or server.ts: ${protocol.noStubsReason}` }];
  if (set.core) return [];
  const structural = structuralFlowChecks(protocol.server.flows, protocol.server.extension, protocol.server.resultTag === "modeled");
  return structural ? [{ set: set.name, message: structural }] : [];
}

/**
 * The notes of a set being generated, from the protocol facts generating computed; a set generated
 * without stubs has none computed, so they are worked out here, and where they cannot be (the stubs
 * could not be made) the reason is the note: generating without stubs goes on.
 */
function generatedSetNotes(set: ResolvedSet, model: Model, protocol: ProtocolFacts | undefined): SetNote[] {
  if (protocol) return setNotes(set, protocol);
  try {
    return setNotes(set, protocolFacts(model));
  } catch (e) {
    if (!(e instanceof GeneratorError)) throw e;
    return [{ set: set.name, message: `its notes could not be worked out: ${e.message}` }];
  }
}

/**
 * The header stays as written; prettier formats the code below it, except where an existing file
 * (`existing`) already holds exactly that formatting (see output/reuse.ts) or the code is a static
 * module, formatted as written.
 */
async function formatModules(files: readonly (GeneratedModule & { existing?: string })[]): Promise<GeneratedFile[]> {
  const inputs = files.map((f) => inputFingerprint(f.code));
  const reused = files.map((f, i) => (f.formatted ? f.code : f.existing ? reusableBody(f.existing, inputs[i]!) : undefined));
  const toFormat = files.filter((_, i) => reused[i] === undefined);
  const formatted = await formatAll(toFormat.map((f) => f.code));
  let next = 0;
  return files.map((f, i) => ({ name: f.name, contents: withFingerprint(f.header, inputs[i]!, reused[i] ?? formatted[next++]!) }));
}

interface GeneratedModule {
  readonly name: string;
  readonly header: string;
  readonly code: string;
  /** A static module as written in templates/runtime/: already formatted (compiled to JavaScript it is not, and loses this). */
  readonly formatted?: true;
}

export interface LoadedSet {
  readonly model: Model;
  /** What the validators read: the model itself, or in merged `allOf` mode the merged model. */
  readonly validatorModel: Model;
  readonly sources: readonly SchemaFile[];
  /** Lint findings (see generator/lint/). */
  readonly diagnostics: readonly Diagnostic[];
}

export interface LoweredSet {
  readonly registry: SchemaRegistry;
  /** Every definition, lowered (not yet analyzed), in source order. */
  readonly definitions: readonly Definition[];
  readonly sources: readonly SchemaFile[];
}

/**
 * Load, bind and lower one set: its schemas as IR, before analyze rewrites anything. The stages in
 * order: read the set's files; apply its bindings to the inputs; share the core schema's definitions
 * with the set's own; register every document; lower the set's definitions, then the core
 * definitions it takes (those its stubs' flows use, and those the config adds).
 */
export function lowerSet(set: ResolvedSet, rootDir: string): LoweredSet {
  const display = sourceDisplay(set, rootDir);
  const files = readSetFiles({ schemas: set.schemas, remotes: set.remotes, ...(set.core ? { core: set.core.schema } : {}) }, display);
  // Bindings rewrite the inputs and bring in the files they reach (see bind/bindings.ts).
  const bound = bindSchemas(set.bindings, files.inputs, files.remotes.map((r) => r.file), display);
  const coreRemote = files.remotes.find((r) => r.file === files.core);
  const core = files.core && set.core ? coreDocument(files.core, coreRemote?.url, bound.inputs, set.core.include) : undefined;
  const { registry, roots, coreRoot } = registerSetDocuments({ default: set.defaultDialect, remotesInherit: set.dialectChosen !== true }, { remotes: files.remotes, extra: bound.extra, inputs: bound.inputs, ...(core ? { core } : {}) });
  bound.checkRefs(registry);
  const options = { extraAnnotations: set.annotations };
  const coreSelection =
    core && coreRoot
      ? { root: coreRoot, shared: core.shared, names: [...(set.stubs === false ? [] : coreFlowRoots(registry, coreRoot, options)), ...core.included] }
      : undefined;
  const definitions = lowerSetDefinitions(registry, roots, coreSelection, options);
  const coreSource = core && !coreRemote ? [core.file] : [];
  return { registry, definitions, sources: [...files.inputs, ...files.remotes.map((r) => r.file), ...bound.extra, ...coreSource] };
}

/** How a set's files are named in output and messages: bundled ones by their package name, others relative to `rootDir`. */
function sourceDisplay(set: ResolvedSet, rootDir: string): (path: string) => string {
  return (path) => set.sourceNames?.[path] ?? sourcePath(path, rootDir);
}

/** Load, lower and analyze one set: everything up to (not including) emitting. */
export function loadSet(set: ResolvedSet, rootDir: string): LoadedSet {
  const { registry, definitions, sources } = lowerSet(set, rootDir);
  const chosen = chosenNamesOf(set, rootDir);
  checkChoicesExist(chosen, sources);
  const clashes: Diagnostic[] = [];
  const onClash = (warning: Diagnostic) => clashes.push(warning);
  const model = analyze(definitions, { chosen, onClash, ...(set.origin ? { setOrigin: set.origin } : {}) }, set.methods, set.statuses);
  checkChoicesUsed(chosen, model);
  const validatorModel = validatorModelOf(model, set.allOf);
  const unmergedIntersections = set.allOf === "merged" ? intersectionLocations(validatorModel) : undefined;
  // Name clashes resolved by a fallback name come first: they say what the generated names are.
  const diagnostics = [...clashes, ...lintSchemas({ registry, definitions, ...(unmergedIntersections ? { unmergedIntersections } : {}) })];
  return { model, validatorModel, sources, diagnostics };
}

/** A set's chosen names by the location of the schema each names, as the set's files are shown (`file#/pointer`). */
function chosenNamesOf(set: ResolvedSet, rootDir: string): Map<string, ChosenName> {
  const display = sourceDisplay(set, rootDir);
  return new Map((set.names ?? []).map((choice) => [formatLocation({ file: display(choice.file), pointer: choice.pointer }), choice]));
}

/** A chosen name must name a schema of the set: one that names nothing is a typo to report, not a wish to ignore. */
function checkChoicesExist(chosen: ReadonlyMap<string, ChosenName>, sources: readonly SchemaFile[]): void {
  for (const choice of chosen.values()) {
    const file = sources.find((s) => s.path === choice.file);
    if (!file) throw choiceError(choice, "names nothing: that file is not one of this set's schema files");
    if (getByPointer(file.json, parsePointer(choice.pointer)) === undefined) throw choiceError(choice, `names nothing: the file has nothing at #${choice.pointer}`);
  }
}

/** A chosen name must name something that gets a name: a definition, a root or an inline shape that is hoisted. */
function checkChoicesUsed(chosen: ReadonlyMap<string, ChosenName>, model: Model): void {
  const named = new Set(model.definitions.map((d) => formatLocation(d.loc)));
  for (const [where, choice] of chosen) {
    if (named.has(where)) continue;
    throw choiceError(
      choice,
      `the schema at #${choice.pointer} does not become a type of its own (only definitions, roots, and inline objects and discriminated unions do), so it has no name to choose`,
    );
  }
}

/** Types mean the TypeScript intersection in both modes; only validators read the merged model. */
function validatorModelOf(model: Model, allOf: AllOfMode): Model {
  return allOf === "merged" ? mergeIntersections(model) : model;
}

/** Where the intersections a model still holds sit (`file#/pointer`). */
function intersectionLocations(model: Model): Set<string> {
  const found = new Set<string>();
  for (const def of model.definitions) {
    visitNodes(def.node, (node) => {
      if (node.kind === "intersection") found.add(formatLocation(node.loc));
    });
  }
  return found;
}

function generateSet(
  set: ResolvedSet,
  rootDir: string,
  notes: boolean,
): Omit<GeneratedSet, "files"> & { files: GeneratedModule[]; diagnostics: LintDiagnostic[]; notes: SetNote[] } {
  const { model, validatorModel, sources, diagnostics } = loadSet(set, rootDir);
  // The last pass of analyze, for a set that gets stubs: the facts both stub emitters read.
  const protocol = set.stubs === false ? undefined : protocolFacts(model);
  // `emit` is recorded only for JavaScript, so TypeScript output reads as it always has.
  const options = {
    allOf: set.allOf,
    defaultDialect: set.defaultDialect,
    ...(set.emit === "js" ? { emit: "js" } : {}),
    ...(set.stubs === false ? { stubs: false } : {}),
  };
  const files = emitModules(model, validatorModel, protocol, { version: VERSION, sources, options }, set.origin, set);
  return {
    name: set.name,
    outDir: set.outDir,
    files,
    ...(set.outDirOrigin ? { outDirOrigin: set.outDirOrigin } : {}),
    // Rules the config sets to "off" for this set go before the findings of all sets are merged
    // (a finding two sets share stays for the set that did not silence it).
    diagnostics: withoutSilenced(diagnostics, set.lint).map((d) => ({ ...d, set: set.name })),
    notes: notes ? generatedSetNotes(set, model, protocol) : [],
  };
}

/** What a set asks for beyond types and validators (see ResolvedSet). */
interface StubsAndParts {
  readonly stubs?: boolean;
  readonly runtime?: readonly RuntimePart[];
  readonly runtimeOrigin?: PartsOrigin;
}

/**
 * Every module of a set, from its model, not yet formatted: the static modules the set needs (see
 * templates/runtime/), copied as they are, and the modules emitted from the model; then the
 * runtime parts the set asks for, each with a header line naming what it needs from outside.
 */
function emitModules(
  model: Model,
  validatorModel: Model,
  protocol: ProtocolFacts | undefined,
  headerInfo: HeaderInfo,
  setOrigin?: SourceLocation,
  asked: StubsAndParts = {},
): GeneratedModule[] {
  const header = fileHeader(headerInfo);
  const stubs = asked.stubs ?? true;
  const modules: { file: string; code: string; typeOnly: boolean; namespace?: string }[] = [
    { file: "types", code: emitTypes(model), typeOnly: true },
  ];
  const statics: StaticModuleName[] = ["protocol/json"];
  modules.push({ file: "validators", code: emitValidators(validatorModel), typeOnly: false });
  if (model.definitions.length > 0) {
    const code = emitStandardSchemas(model);
    modules.push({ file: "standard-schema", code, typeOnly: false, namespace: STANDARD_SCHEMA_NAMESPACE });
  }
  if (model.status) modules.push({ file: "status", code: emitStatusHelpers(model.status), typeOnly: false });
  const elicitation = emitElicitation(model);
  if (elicitation) {
    statics.push("protocol/elicitation-forms");
    modules.push({ file: "elicitation", code: elicitation, typeOnly: false });
  }
  const built = protocol && "server" in protocol ? protocol : undefined;
  const client = built ? emitClient(built.client, model) : undefined;
  if (client) {
    statics.push(...client.statics);
    modules.push({ file: "client", code: client.code, typeOnly: false });
  }
  const server = built ? emitServer(built.server, built.hasForms) : undefined;
  if (server) {
    statics.push(...server.statics);
    modules.push({ file: "server", code: server.code, typeOnly: false });
  }
  const index = emitIndex(modules.map((m) => ({ ...m, file: `${m.file}.js` })));
  const emitted = [...modules, { file: "index", code: index }];
  // Static modules are not re-exported by index.ts (what of them is public, the emitted modules
  // re-export), so their names cannot clash with a definition's.
  checkDefinitionNames(model.definitions, emitted, setOrigin);
  const offered = { client: client !== undefined, server: server !== undefined, extension: server?.statics.includes("server/tasks-extension") ?? false, stubsOff: !stubs };
  statics.push(...partModules(asked.runtime ?? [], offered, asked.runtimeOrigin));
  const headerOf = (file: StaticModuleName) => {
    const needs = partNeedsLine(file);
    return needs ? fileHeader({ ...headerInfo, needs }) : header;
  };
  return [
    ...withImports(statics).map((file) => ({ name: staticFileName(file), header: headerOf(file), code: staticModule(file), formatted: true as const })),
    ...emitted.map((m) => ({ name: `${m.file}.ts`, header, code: m.code })),
  ];
}

/** A schema held in memory, known by a URI. */
export interface MemoryDocument {
  readonly uri: string;
  readonly json: unknown;
  /** How messages name it (default: the URI). */
  readonly display?: string;
}

export interface MemorySet {
  /** Every document `$ref`s may reach (remote documents included). */
  readonly documents: readonly MemoryDocument[];
  /** The schemas to declare, each under a name, found by URI (a fragment may point inside). */
  readonly roots: readonly { readonly name: string; readonly uri: string }[];
  readonly defaultDialect?: Dialect;
  readonly allOf?: AllOfMode;
  /** Run prettier over the output (default true). */
  readonly format?: boolean;
  /** What the revision lacks for the stubs, by method (a config set's `methods`, see analyze/methods.ts). */
  readonly methods?: ReadonlyMap<string, MethodMapping>;
}

/**
 * Generates a set from schemas in memory, declaring exactly the given roots (and what they
 * reference). For tools and tests that have no files, such as the JSON Schema Test Suite runner.
 */
export async function generateFromMemory(input: MemorySet): Promise<{ files: GeneratedFile[]; model: Model }> {
  const dialect = input.defaultDialect ?? "2020-12";
  const model = analyze(lowerMemoryRoots(registerMemoryDocuments(input.documents, dialect), input.roots, dialect), {}, input.methods);
  const allOf = input.allOf ?? "json-schema";
  const headerInfo = { version: VERSION, sources: [], options: { allOf, defaultDialect: input.defaultDialect ?? "2020-12" } };
  const modules = emitModules(model, validatorModelOf(model, allOf), protocolFacts(model), headerInfo);
  const files =
    input.format ?? true ? await formatModules(modules) : modules.map((m) => ({ name: m.name, contents: m.header + m.code }));
  return { files, model };
}
