import { GUIDE_MD, type FileMap } from '../read/helpers.js';
import { xorshiftBytes } from './bytes.js';

/**
 * The archive both verification suites read: entry sizes out of path order, so the largest-first
 * reading order (and the two threads' groups) differ from the manifest order.
 */
export const VERIFY_SIZES = [40_000, 3_000_000, 10, 700_000, 0, 2_500_000, 5_000, 1_200_000, 90, 64 * 1024];

/** Its files: a guide document and one binary extension file per size. */
export const VERIFY_FILES: FileMap = Object.fromEntries([
  ['knowledge/guide.md', GUIDE_MD],
  ...VERIFY_SIZES.map((n, i) => [`extensions/x/f${String(i).padStart(2, '0')}.bin`, xorshiftBytes(n, i + 1)] as const),
]);

/** Its listed paths, in manifest order. */
export const VERIFY_LISTED = Object.keys(VERIFY_FILES).sort();
