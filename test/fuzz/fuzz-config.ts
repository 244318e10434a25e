/**
 * Run settings of the property-based tests. `npm test` runs them short, with a fixed seed, so a
 * failure reproduces; `npm run fuzz` runs them longer with a fresh seed (set FUZZ_SEED to replay
 * one that failed: fast-check prints it, with the shrunk counterexample and its path).
 *
 * FUZZ_RUNS   runs per property (default: each test's short count)
 * FUZZ_SEED   an integer, or `random` (default: a fixed seed)
 */
import type { Parameters } from 'fast-check';

/** The fixed seed of the short runs in `npm test`. */
export const DEFAULT_SEED = 160_016;

/** fast-check parameters for one property: `shortRuns` unless FUZZ_RUNS says otherwise. */
export function fuzzParameters<T>(shortRuns: number): Parameters<T> {
  const runs = process.env.FUZZ_RUNS === undefined ? shortRuns : Number(process.env.FUZZ_RUNS);
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`FUZZ_RUNS must be a positive integer (got ${process.env.FUZZ_RUNS})`);
  const seedText = process.env.FUZZ_SEED;
  const seed = seedText === undefined ? DEFAULT_SEED : seedText === 'random' ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : Number(seedText);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer or "random" (got ${seedText})`);
  return { numRuns: runs, seed, verbose: 1 };
}

/** A test timeout that grows with the number of runs (ms per run), never below a minute. */
export function fuzzTimeout(shortRuns: number, msPerRun: number): number {
  const runs = process.env.FUZZ_RUNS === undefined ? shortRuns : Number(process.env.FUZZ_RUNS);
  return Math.max(60_000, runs * msPerRun * 3);
}
