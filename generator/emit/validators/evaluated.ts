/**
 * Annotation tracking for `unevaluatedProperties` and `unevaluatedItems`: which properties (items)
 * a schema evaluates, through its in-place applicators, as the 2020-12 spec collects annotations —
 * `properties`, `patternProperties`, `additionalProperties`, `prefixItems`, `items`, `contains`
 * (2020-12), a nested `unevaluated*`; across `allOf`, `$ref`, the valid variants of `anyOf`/`oneOf`,
 * `if` with `then` when it holds and `else` when not, `dependentSchemas` whose property is present;
 * never through `not`.
 *
 * Worked out statically as far as the schema decides it (after ajv's `evaluated` tracking): names,
 * patterns and a prefix length known when the code is generated, tested in the loop as constants.
 * Only where a branch decides (a variant of an `anyOf`, an `if`) does the generated code ask at run
 * time, once per value before the loop (`hoist`), whether that branch holds.
 */
import type { Model } from "../../analyze/model.js";
import type { DefinitionId, Node } from "../../ir/nodes.js";
import { enterRef, jsonTypes } from "../../ir/query.js";
import { literal, num, UNDEFINED } from "./conditions.js";
import { and, call, compare, constant, FALSE, id, index, Local, member, not, or, TRUE, type Expr, type Stmt } from "./codegen/nodes.js";
import { propertyAccess, type ModuleScope } from "./scope.js";

/** The boolean mode's tests this module asks for (guard-mode.ts provides them; an interface, so no import circle). */
export interface BooleanTests {
  /** A test of `node` on `v` that narrows nothing at its call site. */
  opaque(node: Node, v: Expr, owner: string): Expr;
  /** A boolean expression testing `v`. */
  expression(node: Node, v: Expr, owner: string): Expr;
}

/** What a schema evaluates of one value: known for certain, plus what holds when a branch does. */
interface Evaluation {
  /** Every property (item). */
  all: boolean;
  readonly names: Set<string>;
  readonly patterns: Set<string>;
  /** Items before this index. */
  prefix: number;
  /** Items matching one of these (`contains`). */
  readonly contains: Node[];
  /** What holds when `test` does (or, `negated`, when it does not). */
  readonly branches: { readonly test: Expr; readonly negated?: boolean; readonly evaluation: Evaluation }[];
}

export type Evaluated = "properties" | "items";

const empty = (): Evaluation => ({ all: false, names: new Set(), patterns: new Set(), prefix: 0, contains: [], branches: [] });

function isEmpty(e: Evaluation): boolean {
  return !e.all && e.names.size === 0 && e.patterns.size === 0 && e.prefix === 0 && e.contains.length === 0 && e.branches.length === 0;
}

function mergeInto(into: Evaluation, from: Evaluation): void {
  into.all ||= from.all;
  from.names.forEach((n) => into.names.add(n));
  from.patterns.forEach((p) => into.patterns.add(p));
  into.prefix = Math.max(into.prefix, from.prefix);
  into.contains.push(...from.contains);
  into.branches.push(...from.branches);
}

export class EvaluatedTracker {
  constructor(
    private readonly model: Model,
    private readonly scope: ModuleScope,
    private readonly guard: BooleanTests,
  ) {}

  /**
   * A test over `key` (a property name) or `i` (an index) of the parameter `value`: true when `node`
   * evaluates it. `hoist` declares a run-time branch decision once, before the loop, and returns
   * the name it is read by. `containsEvaluates`: whether `contains` counts (2020-12).
   */
  test(node: Node, what: Evaluated, at: Expr, owner: string, containsEvaluates: boolean, hoist: (test: Expr) => Expr): Expr {
    const evaluation = this.evaluation(node, what, owner, containsEvaluates, new Set());
    return this.render(evaluation, what, at, owner, hoist);
  }

  /** Statements declaring the branch decisions a test reads, and the `hoist` that collects them. */
  static hoisting(): { readonly statements: Stmt[]; readonly hoist: (test: Expr) => Expr } {
    const statements: Stmt[] = [];
    const known = new Map<Expr, Expr>();
    return {
      statements,
      hoist: (test) => {
        const existing = known.get(test);
        if (existing) return existing;
        const local = new Local("holds");
        statements.push(constant(local, test));
        known.set(test, id(local));
        return id(local);
      },
    };
  }

  private render(e: Evaluation, what: Evaluated, at: Expr, owner: string, hoist: (test: Expr) => Expr): Expr {
    if (e.all) return TRUE;
    const v = id("value");
    const tests: Expr[] = [];
    if (what === "properties") {
      const names = [...e.names];
      if (names.length > 0 && names.length <= 8) tests.push(...names.map((n) => compare(at, "===", literal(n))));
      else if (names.length > 8) tests.push(call(member(this.scope.constant("keys", `new Set<string>(${JSON.stringify(names)})`), "has"), at));
      for (const pattern of e.patterns) {
        tests.push(call(member(this.scope.constant("PATTERN", `new RegExp(${JSON.stringify(pattern)}, "u")`), "test"), at));
      }
    } else {
      if (e.prefix > 0) tests.push(compare(at, "<", num(e.prefix)));
      for (const contains of e.contains) tests.push(this.guard.expression(contains, index(v, at), owner));
    }
    for (const branch of e.branches) {
      const rest = this.render(branch.evaluation, what, at, owner, hoist);
      if (rest.kind === "bool" && !rest.value) continue;
      const holds = hoist(branch.test);
      tests.push(and(branch.negated ? not(holds) : holds, rest));
    }
    return tests.length === 0 ? FALSE : or(...tests);
  }

  /**
   * Whether `node` holds for the value, which is known to be an object (an array, for items) here:
   * of a union by JSON type (a schema without `type`), only the variants of that type can.
   */
  private holds(node: Node, what: Evaluated, owner: string): Expr {
    if (node.kind === "union" && node.byType) {
      const type = what === "properties" ? "object" : "array";
      const candidates = node.variants.filter((variant) => jsonTypes(variant, this.model.byId)?.has(type) ?? true);
      if (candidates.length === 1) return this.guard.opaque(candidates[0]!, id("value"), owner);
    }
    return this.guard.opaque(node, id("value"), owner);
  }

  private evaluation(node: Node, what: Evaluated, owner: string, containsEvaluates: boolean, seen: ReadonlySet<DefinitionId>): Evaluation {
    const of = (n: Node, s = seen) => this.evaluation(n, what, owner, containsEvaluates, s);
    const out = empty();
    switch (node.kind) {
      case "object":
        if (what !== "properties") return out;
        node.properties.forEach((p) => out.names.add(p.name));
        node.patternProperties.forEach((p) => out.patterns.add(p.pattern));
        out.all = node.additional !== undefined;
        for (const dependency of node.dependentSchemas) {
          const inner = of(dependency.node);
          if (isEmpty(inner)) continue;
          const present = compare(propertyAccess(id("value"), dependency.name, this.scope), "!==", UNDEFINED);
          out.branches.push({ test: present, evaluation: inner });
        }
        return out;
      case "map":
        out.all = what === "properties";
        return out;
      case "array":
        if (what !== "items") return out;
        out.prefix = node.prefixItems.length;
        out.all = node.items !== undefined;
        if (node.contains && containsEvaluates) out.contains.push(node.contains);
        return out;
      case "intersection":
        node.parts.forEach((part) => mergeInto(out, of(part)));
        return out;
      case "union": {
        const evaluations = node.variants.map((variant) => of(variant));
        const evaluating = evaluations.flatMap((e, i) => (isEmpty(e) ? [] : [i]));
        // Variants told apart by JSON type: a value of the one type that evaluates anything can
        // only be valid through that variant (and the union must hold where this is asked).
        if (node.byType && evaluating.length === 1) return evaluations[evaluating[0]!]!;
        for (const i of evaluating) {
          out.branches.push({ test: this.holds(node.variants[i]!, what, owner), evaluation: evaluations[i]! });
        }
        return out;
      }
      case "conditional": {
        const holds = this.holds(node.if, what, owner);
        const then = of(node.if);
        if (node.then) mergeInto(then, of(node.then));
        if (!isEmpty(then)) out.branches.push({ test: holds, evaluation: then });
        const otherwise = node.else ? of(node.else) : empty();
        if (!isEmpty(otherwise)) out.branches.push({ test: holds, negated: true, evaluation: otherwise });
        return out;
      }
      case "ref": {
        const next = enterRef(node, this.model.byId, seen);
        return next ? of(next.definition.node, next.seen) : out;
      }
      case "unevaluated": {
        const own = what === "properties" ? node.properties : node.items;
        if (own) out.all = true;
        else mergeInto(out, of(node.node));
        return out;
      }
      case "not": // `not` keeps no annotations
      case "unknown":
      case "never":
      case "primitive":
      case "literal":
        return out;
    }
  }
}

/** Whether a node can be an object (so `unevaluatedProperties` has something to check). */
export function mayBeObject(node: Node, model: Model): boolean {
  const types = jsonTypes(node, model.byId);
  return types === undefined || types.has("object");
}

/** Whether a node can be an array. */
export function mayBeArray(node: Node, model: Model): boolean {
  const types = jsonTypes(node, model.byId);
  return types === undefined || types.has("array");
}
