/**
 * The edit distance used to spot misspelt names. A local function rather than a dependency: the
 * only one installed (`fast-levenshtein`, a transitive dev dependency) has no transpositions,
 * and the optimal-string-alignment variant below is twenty lines.
 */

/**
 * Damerau-Levenshtein distance in its optimal-string-alignment form: insertions, deletions,
 * substitutions and swaps of two neighbouring characters each cost 1 (`sumary` → `summary` is 1,
 * `ordnial` → `ordinal` is 1). Compares UTF-16 code units. Stops early and returns `max + 1` once
 * the distance is certainly above `max`.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  // Three rows of the dynamic-programming table: two back (for swaps), one back, current.
  let twoBack = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) d = Math.min(d, twoBack[j - 2]! + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [twoBack, prev, cur] = [prev, cur, twoBack];
  }
  return Math.min(prev[b.length]!, max + 1);
}

/** `parentId`, `parent-id`, `Parent ID` → `parent_id`: a name in lower snake case, for comparing spellings. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-\s.]+/g, '_')
    .toLowerCase();
}
