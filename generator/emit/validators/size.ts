/**
 * How big one generated function may get: the one splitting rule. TypeScript's control-flow
 * analysis walks back through every condition of a function to type each reference to a narrowed
 * variable, and gives up (TS2563, "too large for control flow analysis") somewhere past two
 * thousand; a long `a || b || …` chain even overflows its binder's stack; prettier's and the
 * compiler's recursion overflow on very deep code. So no function body weighs more than
 * MAX_FUNCTION_WEIGHT (codegen/nodes.ts `weight`: one per statement and per condition): heavier
 * code moves into private helper functions, and since every level of nesting is a few statements,
 * the same rule bounds how deep code gets inside one function.
 */
import { conditions, type Expr } from "./codegen/nodes.js";

/** The most a function body weighs (roughly its statements and conditions); far below the compiler's limit. */
export const MAX_FUNCTION_WEIGHT = 150;

/**
 * The weight an operand adds to a chain of tests (`a || b || …`, or a sum of match counts): the
 * operator that joins it and its conditions; a call to a private helper weighs HELPER_CALL_WEIGHT,
 * the call and the function it stands for (so a chain of fifty helper calls is as heavy as a
 * function may be).
 */
export function splitWeight(test: Expr): number {
  if (test.kind === "call" && test.callee.kind === "id" && typeof test.callee.name === "string" && test.callee.name.startsWith("$")) {
    return HELPER_CALL_WEIGHT;
  }
  return 1 + Math.max(1, conditions(test));
}

const HELPER_CALL_WEIGHT = 3;

/** Whether a chain of tests is heavier than one function should hold. */
export function heavy(tests: readonly Expr[]): boolean {
  let sum = 0;
  for (const test of tests) sum += splitWeight(test);
  return sum > MAX_FUNCTION_WEIGHT;
}

/** Consecutive runs of items, each as heavy as allowed (an item heavier than that stands alone). */
export function chunkByWeight<T>(items: readonly T[], weightOf: (item: T) => number, max = MAX_FUNCTION_WEIGHT): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let weight = 0;
  for (const item of items) {
    const w = weightOf(item);
    if (current.length > 0 && weight + w > max) {
      chunks.push(current);
      current = [];
      weight = 0;
    }
    current.push(item);
    weight += w;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
