/**
 * Rename hints: a property removed and another added in the same definition, with names close
 * enough that the pair is probably one property renamed (`ttl` → `ttlMs`, `pollInterval` →
 * `pollIntervalMs`, `notifications/tasks/status` → `notifications/tasks`). A hint only; both
 * changes are still reported and classified on their own.
 */
import { editDistance } from "../config/suggest.js";

/** How alike two names are, 0..1; 0 when they are not worth pairing. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  // One name extends the other: a unit or qualifier added or dropped (ttl → ttlMs).
  if (short.length >= 3 && (long.startsWith(short) || long.endsWith(short))) return 0.9;
  const ratio = 1 - editDistance(x, y, { swaps: false }) / Math.max(x.length, y.length);
  return ratio >= 0.6 ? ratio : 0;
}

/** Pairs names of `removed` with names of `added`, most alike first; each name is used once. */
export function pairRenames(removed: readonly string[], added: readonly string[]): [string, string][] {
  const candidates: { from: string; to: string; score: number }[] = [];
  for (const from of removed) {
    for (const to of added) {
      const score = similarity(from, to);
      if (score > 0) candidates.push({ from, to, score });
    }
  }
  candidates.sort((p, q) => q.score - p.score || p.from.localeCompare(q.from) || p.to.localeCompare(q.to));
  const usedFrom = new Set<string>();
  const usedTo = new Set<string>();
  const pairs: [string, string][] = [];
  for (const c of candidates) {
    if (usedFrom.has(c.from) || usedTo.has(c.to)) continue;
    usedFrom.add(c.from);
    usedTo.add(c.to);
    pairs.push([c.from, c.to]);
  }
  return pairs;
}

