/**
 * "Did you mean …?" for mistyped commands and options: the closest known name by edit distance
 * (an adjacent swap counts as one edit, so `bulid` → `build`), offered only when it is close.
 */

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `input`, or undefined when none is close enough: at most 2 edits,
 * and fewer than half the input's length (so `ab` is not "corrected" to `build`). A candidate
 * that starts with the input (an abbreviation such as `--over`) also counts.
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const bare = input.replace(/^-+/, '');
  for (const c of candidates) {
    const distance = editDistance(input, c);
    if (distance < bestDistance) {
      best = c;
      bestDistance = distance;
    }
  }
  if (best !== undefined && bestDistance <= 2 && bestDistance * 2 < Math.max(bare.length, 1)) return best;
  if (bare.length >= 3) return candidates.find((c) => c.replace(/^-+/, '').startsWith(bare));
  return undefined;
}

/** `; did you mean "x"?` or nothing. */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const hit = closest(input, candidates);
  return hit !== undefined ? `; did you mean ${JSON.stringify(hit)}?` : '';
}
