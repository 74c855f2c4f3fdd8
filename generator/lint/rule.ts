/**
 * What a lint rule is. Rules that read the lowered IR see every node once (before analyze
 * simplifies it, so a contradiction is seen where it is written, not after it has become
 * `never`); rules that read the raw JSON see every schema object that is generated (lowering
 * drops what they are about: see raw.ts). Ids never change once published (users filter on
 * them); messages may be improved. To add a rule: a file in rules/ named by its id, its id in
 * LintRuleId below, and an entry in rules.ts (RULES; a raw rule in RAW_RULES too).
 */
import type { Diagnostic, SourceLocation } from "../diagnostics.js";
import type { Node } from "../ir/nodes.js";
import type { DefinitionsById } from "../ir/query.js";
import type { Dialect } from "../load/dialect.js";

export type LintRuleId =
  | "unreachable-property"
  | "unsatisfiable"
  | "ref-siblings-ignored"
  | "unknown-format"
  | "placeholder-union"
  | "duplicate-branch"
  | "other-dialect-keyword";

/** A finding before its severity is set (lint reports warnings; `--strict` makes them errors). */
export type Finding = Omit<Diagnostic, "severity">;

export interface IrRuleContext {
  /** The lowered definitions, so rules can look through `$ref`s. */
  readonly definitions: DefinitionsById;
  /**
   * In merged-intersection mode, the locations of the intersections the merge leaves as they are
   * (their branches still judge the whole value). Intersections not listed are read as the
   * TypeScript intersection, where a sibling's property is reachable. Undefined: JSON Schema mode.
   */
  readonly unmergedIntersections?: ReadonlySet<string>;
}

export interface IrRule {
  readonly id: LintRuleId;
  /** What the rule finds, in one sentence (for `--help`, the README and `lint --json`). */
  readonly summary: string;
  readonly reads: "ir";
  /** The findings at one node (its descendants are checked on their own). */
  check(node: Node, context: IrRuleContext): Finding[];
}

export interface RawRuleContext {
  /** The dialect the schema object is read in. */
  readonly dialect: Dialect;
  /** The location of a keyword (or a deeper token) of the schema object. */
  at(...tokens: (string | number)[]): SourceLocation;
}

export interface RawRule {
  readonly id: LintRuleId;
  readonly summary: string;
  readonly reads: "raw";
  /** The findings at one schema object of the raw JSON (its subschemas are checked on their own). */
  check(schema: Readonly<Record<string, unknown>>, context: RawRuleContext): Finding[];
}
