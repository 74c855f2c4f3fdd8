/**
 * The library API: everything the CLI does, callable in-process.
 *
 * ```ts
 * import { generate, readConfigFile, writeSets } from "mcp-tasks-gen";
 * const result = await generate(readConfigFile("mcp-tasks-gen.config.json"));
 * writeSets(result.sets);
 * ```
 */
export {
  generate,
  generateFromMemory,
  lint,
  lintSets,
  loadSet,
  lowerSet,
  type GenerateOptions,
  type GenerateResult,
  type LoadedSet,
  type LoweredSet,
  type MemoryDocument,
  type MemorySet,
  type SetNote,
} from "./generate.js";
export { LINT_RULES, type LintDiagnostic, type LintRule, type LintRuleId } from "./lint/lint.js";
export {
  diffModels,
  diffSets,
  hasBreaking,
  renderDiffJson,
  renderDiffText,
  type ApiChange,
  type ApiDiff,
  type ChangeKind,
  type Flow,
  type Impact,
  type RevisionInput,
} from "./diff/index.js";
export {
  readConfigFile,
  resolveConfig,
  checkConfig,
  DEFAULT_CONFIG_FILE,
  type UserConfig,
  type SchemaSetConfig,
  type ResolvedConfig,
  type ResolvedSet,
} from "./config/config.js";
export type { ChosenName } from "./names.js";
export {
  writeSets,
  compareSets,
  manifestOf,
  type GeneratedSet,
  type GeneratedFile,
  type Difference,
  type WriteOptions,
} from "./output/files.js";
export { MANIFEST_FILE } from "./output/manifest.js";
export { GeneratorError, formatDiagnostic, type Diagnostic, type SourceLocation } from "./diagnostics.js";
export { VERSION } from "./version.js";
