/**
 * The report's small histograms: integer counts (events per chunk, …) in fixed bins that keep the
 * zero bin apart — "which chunks carry no events" is the question people ask first — and
 * real values (vector norms) in equal-width bins.
 */
import type { Histogram } from './report-data.js';

/** Lower bounds of the count bins; the last bin is open. */
const COUNT_BOUNDS = [0, 1, 2, 3, 4, 5, 10, 20, 50, 100] as const;

/** The histogram of the integer values in `values` (typed array of counts). */
export function countHistogram(values: ArrayLike<number>): Histogram {
  const counts = new Array<number>(COUNT_BOUNDS.length).fill(0);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    let b = COUNT_BOUNDS.length - 1;
    while (b > 0 && v < COUNT_BOUNDS[b]!) b--;
    counts[b]!++;
  }
  const labels = COUNT_BOUNDS.map((lo, i) => {
    const next = COUNT_BOUNDS[i + 1];
    if (next === undefined) return `${lo}+`;
    return next === lo + 1 ? String(lo) : `${lo}–${next - 1}`;
  });
  return { labels, counts };
}

/** Digits of a bin bound: enough to tell 20 bins of `[min, max]` apart. */
function boundDigits(min: number, max: number, bins: number): number {
  const width = (max - min) / bins;
  if (!(width > 0)) return 4;
  return Math.min(8, Math.max(2, Math.ceil(-Math.log10(width)) + 1));
}

/**
 * `bins` equal-width bins from `min` to `max` over `values` (the first `n` of them). All values
 * equal: one bin. Labels are the lower bounds.
 */
export function valueHistogram(values: ArrayLike<number>, n: number, min: number, max: number, bins = 20): Histogram {
  if (n === 0) return { labels: [], counts: [] };
  if (!(max > min)) return { labels: [min.toFixed(4)], counts: [n] };
  const counts = new Array<number>(bins).fill(0);
  const scale = bins / (max - min);
  for (let i = 0; i < n; i++) {
    const b = Math.min(bins - 1, Math.floor((values[i]! - min) * scale));
    counts[b]!++;
  }
  const digits = boundDigits(min, max, bins);
  const labels = counts.map((_, i) => (min + i / scale).toFixed(digits));
  return { labels, counts };
}
