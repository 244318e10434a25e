/**
 * "Did you mean …?" for mistyped commands and options: the closest known name by edit distance
 * (an adjacent swap counts as one edit, so `bulid` → `build`), offered only when it is close.
 */
import { editDistance } from '../model/edit-distance.js';

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
