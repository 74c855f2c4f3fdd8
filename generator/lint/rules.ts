/**
 * The lint rules, one file each in rules/ (named by the rule's id), listed here in the order
 * `--help`, the README and `lint --json` show them.
 */
import type { IrRule, LintRuleId, RawRule } from "./rule.js";
import { duplicateBranch } from "./rules/duplicate-branch.js";
import { placeholderUnion } from "./rules/placeholder-union.js";
import { otherDialectKeyword } from "./rules/other-dialect-keyword.js";
import { refSiblingsIgnored } from "./rules/ref-siblings-ignored.js";
import { unknownFormat } from "./rules/unknown-format.js";
import { unreachableProperty } from "./rules/unreachable-property.js";
import { unsatisfiable } from "./rules/unsatisfiable.js";

export type { LintRuleId } from "./rule.js";

export interface LintRule {
  readonly id: LintRuleId;
  /** What the rule finds, in one sentence (for `--help`, the README and `lint --json`). */
  readonly summary: string;
}

const RULES: readonly (IrRule | RawRule)[] = [unreachableProperty, unsatisfiable, refSiblingsIgnored, unknownFormat, placeholderUnion, duplicateBranch, otherDialectKeyword];

export const LINT_RULES: readonly LintRule[] = RULES.map(({ id, summary }) => ({ id, summary }));

/**
 * The rules over the IR, in the order their findings at one node are reported (an intersection's
 * unreachable properties before its contradictions).
 */
export const IR_RULES: readonly IrRule[] = RULES.filter((r): r is IrRule => r.reads === "ir");

/** The rules over the raw JSON, in the order their findings at one schema object are reported. */
export const RAW_RULES: readonly RawRule[] = [unknownFormat, refSiblingsIgnored, otherDialectKeyword];
