import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/**
 * The CLI's cap on V8's young generation, the largest single part of `build`'s and `validate`'s
 * peak RSS on a folder of a few thousand documents. V8 grows the new space (two semi-spaces) up
 * to 2 × 16 MiB as objects survive its scavenges, and a build has plenty that survive (records,
 * documents, spill buffers), so both semi-spaces are fully committed at the peak. Capped at
 * 8 MiB, `build` and `validate` peak lower in the same wall time, and more frequent scavenges
 * also free dead Buffers sooner. The price is a little CPU on large inputs (figures in
 * BENCHMARKS.md).
 *
 * `--max-semi-space-size` would say it directly, but it is read once, when the heap is set up: it
 * could only come from a `#!` line (`env -S`, which npm's shims and BusyBox do not all accept),
 * `NODE_OPTIONS` or a re-exec. What V8 does read at every growth is `--semi-space-growth-factor`,
 * which may be changed at run time (`v8.setFlagsFromString`; Node keeps V8's flags writable for
 * it). So a timer watches the new space and sets the factor to 1 (no growth) once the cap is
 * reached, and back to V8's default of 2 when V8 has shrunk it below (it does, when allocation
 * slows down): the new space can pass the cap by at most one growth, up to V8's own maximum.
 * The factor is set again at every look while at the cap, because creating an isolate (a worker
 * thread: the compressing thread, a verification worker) resets it to 2. A flag is process-wide,
 * so the CLI's worker threads keep their new space at its initial size too: they hash and
 * compress in native code and allocate little, so the cap does not slow them down (see
 * BENCHMARKS.md).
 *
 * For the CLI process only: an SDK must not change the V8 flags of the application it runs in.
 */

/** New-space capacity (both semi-spaces, as `v8.getHeapSpaceStatistics()` reports it) the CLI keeps to: 8 MiB. */
export const YOUNG_GENERATION_CAP_BYTES = 8 << 20;

/** How often the new space is looked at (an interval that never keeps the process alive). */
export const YOUNG_GENERATION_POLL_MS = 10;

/** V8's default `--semi-space-growth-factor`. */
const DEFAULT_GROWTH_FACTOR = 2;

/** Options of {@link capYoungGeneration}. */
export interface YoungGenerationCapOptions {
  /** New-space capacity to stop growing at, in bytes (default {@link YOUNG_GENERATION_CAP_BYTES}). */
  readonly capBytes?: number;
  /** Milliseconds between looks (default {@link YOUNG_GENERATION_POLL_MS}). */
  readonly pollMs?: number;
  /** The process's V8 options, to leave a young generation sized by the user alone (default: `process.execArgv` and `NODE_OPTIONS`). */
  readonly v8Options?: readonly string[];
}

/**
 * Whether the user sized the young generation themselves (`--max-semi-space-size`,
 * `--semi-space-growth-factor`, … on the command line or in `NODE_OPTIONS`): then the CLI
 * leaves it as they set it.
 */
export function userSizesYoungGeneration(v8Options: readonly string[]): boolean {
  return v8Options.some((option) => /^--.*(?:semi[-_]space|young[-_]generation)/.test(option));
}

/** The new space's committed capacity in bytes (0 when V8 does not report one). */
export function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Keeps V8's new space at about `capBytes` in this process until the returned function is called
 * (which gives V8 back its default growth). Does nothing, and returns a no-op, when the user sized
 * the young generation themselves.
 */
export function capYoungGeneration(options: YoungGenerationCapOptions = {}): () => void {
  const v8Options = options.v8Options ?? [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)];
  if (userSizesYoungGeneration(v8Options)) return () => {};
  const capBytes = options.capBytes ?? YOUNG_GENERATION_CAP_BYTES;
  let growthStopped = false;
  const setGrowth = (stop: boolean): void => {
    setFlagsFromString(`--semi-space-growth-factor=${stop ? 1 : DEFAULT_GROWTH_FACTOR}`);
    growthStopped = stop;
  };
  const look = (): void => {
    const atCap = newSpaceBytes() >= capBytes;
    // Said again at every look while at the cap: V8 sets a factor below 2 back to 2 whenever an
    // isolate is created, so each worker thread the process starts would lift the cap.
    if (atCap || growthStopped) setGrowth(atCap);
  };
  look();
  const timer = setInterval(look, options.pollMs ?? YOUNG_GENERATION_POLL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (growthStopped) setGrowth(false);
  };
}
