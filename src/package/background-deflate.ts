import { deflateBlock } from './deflate-block.js';
import { deflateOnThread } from './deflate-thread.js';

/** Options of {@link BackgroundDeflate}. */
export interface BackgroundDeflateOptions {
  /** zlib level the blocks are compressed at (1–9). */
  readonly level: number;
  /**
   * Memory allowed in flight (default 16 MiB): each job counts its input, its dictionary and
   * {@link JOB_OVERHEAD_BYTES}. Beyond it new blocks are not started: they stay on disk and are
   * compressed at export time, so a caller that never yields cannot make memory grow.
   */
  readonly maxInFlightBytes?: number;
  /** Bytes spilled (text compressed here, and vectors: {@link BackgroundDeflate.countSpilled}) before the compressing thread takes over (default {@link THREAD_AFTER_BYTES}; 0: the thread from the start). */
  readonly threadAfterBytes?: number;
  /** Jobs submitted before the compressing thread takes over, whatever their size (default {@link THREAD_AFTER_JOBS}). */
  readonly threadAfterJobs?: number;
}

/**
 * Bytes a builder spills — the text its background compresses, and its vectors (counted with
 * {@link BackgroundDeflate.countSpilled}) — before its compression moves from the libuv pool to
 * the compressing thread (`deflate-thread.ts`). The thread's isolate costs a fixed ~10 MiB of
 * RSS, which small exports do not win back; large ones do, in wall time and in peak RSS (the
 * pool's four concurrent zlib states and per-thread allocator arenas). Vectors count because
 * they make a build large as much as text does: counting them moves a build with vectors to the
 * thread earlier in its run, which shortens its collection at the same peak RSS (figures in
 * BENCHMARKS.md).
 */
export const THREAD_AFTER_BYTES = 32 << 20;

/**
 * Jobs submitted on the libuv pool before compression moves to the thread, however small they
 * are. A pool job pays a zlib stream of its own (its set-up on the caller's thread, a ~256 KiB
 * state on the pool's), which a block of a few hundred bytes does not win back: a tree of many
 * small pages spills little text but makes one job per page. The thread takes them in batches
 * (one message for many pages; figures in BENCHMARKS.md). The first few dozen jobs stay on the
 * pool so a build of a handful of pages never starts the thread (~10 MiB of RSS); past that, each
 * pool job costs the producer's thread several times what a batched thread job does, and a
 * folder of a few thousand pages paid it a thousand times before switching.
 */
export const THREAD_AFTER_JOBS = 64;

/** Default bound of memory held by background compression. */
export const DEFAULT_MAX_IN_FLIGHT_BYTES = 16 << 20;

/**
 * Below this fraction of the bound in flight, {@link BackgroundDeflate.drain} does not yield to
 * the event loop. A turn costs about 0.1 ms, and a producer draining after every document would
 * pay it each time; below the threshold the deliveries are batched into the next turn (see
 * BENCHMARKS.md). Memory stays within the bound: undelivered jobs count in it.
 */
export const DRAIN_YIELD_FRACTION = 0.5;

/**
 * What one job holds besides its input: the copy posted to the compressing thread (see
 * `deflate-thread.ts`), zlib's deflate state (~256 KiB at the default windowBits/memLevel; one
 * per job on the libuv pool) and the output. Counting only raw bytes let thousands of tiny
 * documents start at once (8,000 small documents: 1.9 GB RSS, with one pool stream per job).
 */
export const JOB_OVERHEAD_BYTES = 288 * 1024;

/**
 * Compresses blocks while the caller keeps adding records, with a bound on the bytes in flight:
 * the first {@link THREAD_AFTER_BYTES} (or {@link THREAD_AFTER_JOBS} jobs) on the libuv pool, the rest on the process's compressing
 * thread (`deflate-thread.ts`). Completions are delivered when the event loop turns: an async caller
 * gets compression overlapped with its own work for free; a synchronous caller fills the bound
 * and leaves the rest for export time (where blocks are compressed in parallel).
 */
export class BackgroundDeflate {
  /** zlib level of every block compressed here. */
  readonly level: number;
  readonly #maxInFlight: number;
  #inFlightBytes = 0;
  /** Raw bytes submitted so far, and vector bytes counted ({@link countSpilled}): pool or thread, see {@link THREAD_AFTER_BYTES}. */
  #spilledBytes = 0;
  readonly #threadAfterBytes: number;
  /** Jobs submitted so far ({@link THREAD_AFTER_JOBS}). */
  #submitted = 0;
  readonly #threadAfterJobs: number;
  readonly #jobs = new Set<Promise<void>>();

  constructor(options: BackgroundDeflateOptions) {
    this.level = options.level;
    this.#maxInFlight = options.maxInFlightBytes ?? DEFAULT_MAX_IN_FLIGHT_BYTES;
    this.#threadAfterBytes = options.threadAfterBytes ?? THREAD_AFTER_BYTES;
    this.#threadAfterJobs = options.threadAfterJobs ?? THREAD_AFTER_JOBS;
  }

  /**
   * Counts bytes the caller spilled that are not compressed here (a builder's vectors): they make
   * the build large as much as its text does, so they count towards {@link THREAD_AFTER_BYTES}.
   */
  countSpilled(bytes: number): void {
    this.#spilledBytes += bytes;
  }

  /** Whether jobs submitted now go to the compressing thread (else to the libuv pool): after {@link THREAD_AFTER_BYTES} spilled or {@link THREAD_AFTER_JOBS} jobs. */
  get onThread(): boolean {
    return this.#spilledBytes >= this.#threadAfterBytes || this.#submitted >= this.#threadAfterJobs;
  }

  /** Memory currently held by running jobs (inputs, dictionaries and zlib state). */
  get inFlightBytes(): number {
    return this.#inFlightBytes;
  }

  /**
   * Whether a job of `bytes` (input plus dictionary) would start now: lets a caller skip
   * preparing a block that {@link trySubmit} would refuse.
   */
  hasRoomFor(bytes: number): boolean {
    return this.#inFlightBytes === 0 || this.#inFlightBytes + bytes + JOB_OVERHEAD_BYTES <= this.#maxInFlight;
  }

  /**
   * Starts compressing `raw` unless the bound is reached. `done` receives the compressed block
   * (or the error) when the event loop next turns. Returns whether the job started.
   */
  trySubmit(raw: Buffer, dictionary: Buffer | undefined, done: (error: Error | undefined, compressed?: Buffer) => void): boolean {
    const cost = raw.length + (dictionary?.length ?? 0) + JOB_OVERHEAD_BYTES;
    // One job is always allowed, so a block larger than the bound still makes progress.
    if (!this.hasRoomFor(cost - JOB_OVERHEAD_BYTES)) return false;
    this.#inFlightBytes += cost;
    const onThread = this.onThread;
    this.#spilledBytes += raw.length;
    this.#submitted += 1;
    const job: Promise<void> = (onThread ? deflateOnThread : deflateBlock)(raw, dictionary, this.level).then(
      (out) => done(undefined, out),
      (e: unknown) => done(e instanceof Error ? e : new Error(String(e))),
    );
    const tracked = job.finally(() => {
      this.#inFlightBytes -= cost;
      this.#jobs.delete(tracked);
    });
    this.#jobs.add(tracked);
    return true;
  }

  /**
   * Lets finished jobs deliver their results and resolves once at most three quarters of the
   * bound are in flight (enough queued work to keep compression busy while the caller continues):
   * await it between batches in a CPU-bound producer loop so compression keeps pace. Below
   * {@link DRAIN_YIELD_FRACTION} of the bound in flight it resolves at once: finished jobs stay
   * counted until a later call delivers them together.
   */
  async drain(): Promise<void> {
    if (this.#jobs.size === 0) return;
    if (this.#inFlightBytes < this.#maxInFlight * DRAIN_YIELD_FRACTION) return;
    // Completions arrive as macrotasks: a bare microtask would not let any of them run.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#inFlightBytes > this.#maxInFlight * 0.75 && this.#jobs.size > 0) await Promise.race(this.#jobs);
  }

  /** Resolves once every started job has finished (its `done` has run). */
  async settle(): Promise<void> {
    while (this.#jobs.size > 0) await Promise.all([...this.#jobs]);
  }
}
