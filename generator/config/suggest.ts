/** "Did you mean": the known word a misspelt one most likely meant. */

/** The candidate closest to `word` (case-insensitively) within `maxDistance` edits, first in `candidates` on a tie. */
export function nearest(word: string, candidates: readonly string[], maxDistance = 2): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
 * neighbouring characters each count one (`shcemas` is one edit from `schemas`, not two). With
 * `swaps: false`, a swap counts two, as in plain Levenshtein distance (the diff's rename hints).
 */
export function editDistance(a: string, b: string, { swaps = true }: { readonly swaps?: boolean } = {}): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (swaps && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, rows[i - 2]![j - 2]! + 1);
      row.push(distance);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}
