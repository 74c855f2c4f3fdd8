/**
 * Schema lint: constructs that make data impossible, or that do not mean what they seem to,
 * reported as `file#/json/pointer: [rule-id] message` (see rules.ts for the ids). Lint reads a
 * set after lowering and before analyze, so each finding points at the keyword where it is
 * written. Findings are warnings: they never change what is generated.
 */
import { formatDiagnostic, type Diagnostic } from "../diagnostics.js";
import type { Definition } from "../ir/nodes.js";
import { definitionsById } from "../ir/query.js";
import { visitNodes } from "../ir/walk.js";
import type { SchemaRegistry } from "../load/registry.js";
import { lintRaw } from "./raw.js";
import type { IrRuleContext } from "./rule.js";
import { IR_RULES } from "./rules.js";

export { LINT_RULES, type LintRule, type LintRuleId } from "./rules.js";

/** A finding of one schema set. */
export interface LintDiagnostic extends Diagnostic {
  /** The schema set it was found in. */
  readonly set: string;
}

export interface LintInput {
  readonly registry: SchemaRegistry;
  /** The lowered definitions, in source order. */
  readonly definitions: readonly Definition[];
  /** Merged-intersection mode: the intersections the merge leaves as they are (see IrRuleContext). */
  readonly unmergedIntersections?: ReadonlySet<string>;
}

export function lintSchemas(input: LintInput): Diagnostic[] {
  const found = [
    ...lintIr(input.definitions, input.unmergedIntersections),
    ...lintRaw(input.registry, input.definitions),
  ];
  const unique = dedupe(found);
  // In the order of the definitions they sit in (source order), then as found.
  const rank = (d: Diagnostic) => {
    let best = -1;
    let bestLength = -1;
    input.definitions.forEach((def, i) => {
      if (def.loc.file !== d.location.file) return;
      const p = def.loc.pointer;
      const inside = d.location.pointer === p || d.location.pointer.startsWith(`${p}/`);
      if (inside && p.length > bestLength) {
        best = i;
        bestLength = p.length;
      }
    });
    return best < 0 ? input.definitions.length : best;
  };
  const ranks = new Map(unique.map((d) => [d, rank(d)]));
  return [...unique].sort((a, b) => ranks.get(a)! - ranks.get(b)!);
}

/** Runs the IR rules on every node of every definition, parents first. */
function lintIr(definitions: readonly Definition[], unmergedIntersections: ReadonlySet<string> | undefined): Diagnostic[] {
  const context: IrRuleContext = { definitions: definitionsById(definitions), ...(unmergedIntersections ? { unmergedIntersections } : {}) };
  const found: Diagnostic[] = [];
  for (const def of definitions) {
    visitNodes(def.node, (node) => {
      for (const rule of IR_RULES) for (const finding of rule.check(node, context)) found.push({ severity: "warning", ...finding });
    });
  }
  return found;
}

/** One finding per line of output: the same text at the same place is reported once. */
export function dedupe<T extends Diagnostic>(diagnostics: readonly T[]): T[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = formatDiagnostic(d);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Warnings become errors (`--strict`). */
export function strictly<T extends Diagnostic>(diagnostics: readonly T[]): T[] {
  return diagnostics.map((d) => ({ ...d, severity: "error" }));
}

export function countBySeverity(diagnostics: readonly Diagnostic[]): { errors: number; warnings: number } {
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  return { errors, warnings: diagnostics.length - errors };
}

/** A set's rules set to `off` in the config, by id (see config.ts LintSetting). */
export type RuleSettings = Readonly<Partial<Record<string, "off" | "warn">>>;

/** A set's findings without those of the rules its config sets to `off`. */
export function withoutSilenced<T extends Diagnostic>(diagnostics: readonly T[], settings: RuleSettings | undefined): T[] {
  return settings ? diagnostics.filter((d) => settings[d.rule] !== "off") : [...diagnostics];
}

/**
 * The findings the command prints while generating: a bundled set's schemas ship with
 * mcp-tasks-gen, so its findings are not the user's to fix; they are left to `mcp-tasks-gen lint`
 * unless the config sets their rule to `warn` for the set (`--strict` would fail on them otherwise).
 */
export function userFindings<T extends LintDiagnostic>(
  diagnostics: readonly T[],
  sets: readonly { readonly name: string; readonly bundled?: string; readonly lint?: RuleSettings }[],
): T[] {
  const byName = new Map(sets.map((set) => [set.name, set]));
  return diagnostics.filter((d) => {
    const set = byName.get(d.set);
    return set?.bundled === undefined || set.lint?.[d.rule] === "warn";
  });
}
