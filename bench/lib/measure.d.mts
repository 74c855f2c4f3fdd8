/** Types of measure.mjs (see there). */
export interface Contender {
  name: string;
  call(input: unknown): unknown;
  score(result: never): number;
}
export function makeLoop(name: string, call: (input: unknown) => unknown): (score: (result: never) => number, inputs: readonly unknown[], times: number) => number;
export function quantile(xs: readonly number[], q: number): number;
export function ratioSpread(a: readonly number[], b: readonly number[]): { low: number; high: number };
export function measure(
  contenders: readonly Contender[],
  groups: Record<string, readonly unknown[]>,
  options: { seconds: number; minRounds?: number; batchMs?: number; warmSeconds?: number },
): {
  results: { name: string; opsPerSec: Record<string, number>; samples: Record<string, number[]> }[];
  rounds: number;
  sink: number;
  times: Record<string, number>;
};
export function measureInterleaved(
  tasks: readonly (Contender & { inputs: readonly unknown[] })[],
  options: { seconds: number; minRounds?: number; batchMs?: number; warmSeconds?: number },
): { opsPerSec: number[]; samples: number[][]; rounds: number; sink: number };
/** Nested objects of numbers merged key by key, each number the median over the trees that have it. */
export function medianOfRuns<T>(trees: readonly (T | undefined)[]): T | undefined;
