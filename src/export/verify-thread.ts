/**
 * `integrity` verification on two threads (issue 23 item 4): a worker re-opens the written
 * archive and verifies one group of entries while the main thread verifies the other, so SHA-256
 * and CRC-32 of the package's bytes run on two cores instead of one. The worker file is this
 * module's sibling ({@link siblingWorkerEntry}); when it cannot be found, does not start or dies,
 * its entries are verified in-thread, so every byte is still re-read and re-hashed.
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import type { OctxIssue } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import { siblingWorkerEntry, type WorkerEntry } from '../package/worker-entry.js';
import { WorkerThread } from '../package/worker-thread.js';
// Imported for the builds (an entry only a Worker names would not be emitted); it does nothing here.
import { VERIFY_WORKER_MARK, type VerifyJob } from './verify-worker.js';

/** When `integrity` verification uses a worker: by size and cores (`auto`, the default), always, or never. */
export type VerifyWorkerMode = 'auto' | 'always' | 'never';

/**
 * In `auto` mode, packages below this are verified in-thread (an export counts its payload bytes;
 * `verifyArchive` called without a started worker, the archive's bytes on disk). A worker costs
 * ~40–50 MiB of peak RSS and 0.1–0.2 s of CPU to start (its isolate, the reader's module graph,
 * its read buffers; measured on the built SDK, 2-core machine), which only pays when there are
 * enough bytes to hash; small exports stay as lean as before.
 */
export const VERIFY_WORKER_MIN_BYTES = 32 * 1024 * 1024;

let mode: VerifyWorkerMode = 'auto';
let started = 0;
let entryOverride: string | undefined;

/** Sets the worker mode (module-wide; tests, diagnostics, measurements); returns the previous one. */
export function setVerifyWorkers(next: VerifyWorkerMode): VerifyWorkerMode {
  const previous = mode;
  mode = next;
  return previous;
}

/** Verify workers that have started (loaded their modules) since the process began (tests, diagnostics). */
export function verifyWorkersStarted(): number {
  return started;
}

/**
 * Starts verify workers from `file` instead of the located worker module (tests: a file that
 * cannot be loaded proves the in-thread fallback); `undefined` restores the default.
 */
export function overrideVerifyWorkerFile(file: string | undefined): void {
  entryOverride = file;
}

/**
 * In `auto` mode, other processes may keep at most `cores − 2 + SPARE_CORE_LOAD` cores busy (one
 * core for the main thread, one for the worker). Measured on a 2-core machine shared by other jobs
 * (load 6–7, W bench package): two threads made verification slower (0.95–1.05 s against 0.83 s
 * in-thread, median of 6 paired runs) and cost 0.2–0.3 s more CPU, since no core was idle to take
 * the worker's half.
 */
export const SPARE_CORE_LOAD = 0.5;

/** Below this window a {@link CpuSample} says too little; the load average decides instead. */
const MIN_SAMPLE_MS = 200;

/** Machine-wide busy CPU time, this process's CPU time and the time, at one instant. */
export interface CpuSample {
  readonly busyMs: number;
  readonly ownMs: number;
  readonly at: number;
}

/** Takes a {@link CpuSample} (cheap: one read of the kernel's CPU counters). */
export function sampleCpu(): CpuSample {
  let busyMs = 0;
  for (const c of cpus()) busyMs += c.times.user + c.times.nice + c.times.sys + c.times.irq;
  const own = process.cpuUsage();
  return { busyMs, ownMs: (own.user + own.system) / 1000, at: performance.now() };
}

/**
 * How many cores other processes kept busy since `since` (this process's own threads — its
 * background deflate, say — do not count, unlike in the load average); `undefined` when the window
 * is shorter than {@link MIN_SAMPLE_MS} or the counters say nothing.
 */
export function othersBusyCores(since: CpuSample, now: CpuSample = sampleCpu()): number | undefined {
  const wall = now.at - since.at;
  if (wall < MIN_SAMPLE_MS || now.busyMs <= since.busyMs) return undefined;
  return Math.max(0, (now.busyMs - since.busyMs - (now.ownMs - since.ownMs)) / wall);
}

/**
 * Whether a package of `bytes` is verified on two threads: always, never, or (`auto`) when it is
 * large enough ({@link VERIFY_WORKER_MIN_BYTES}), the machine has {@link VERIFY_WORKER_MIN_CORES} cores or more and other
 * processes leave one idle ({@link SPARE_CORE_LOAD}). `othersBusy` comes from
 * {@link othersBusyCores}; without it, the 1-minute load average less the export itself (about 1;
 * Windows reports no load average). The result changes only the timing: the bytes and the issues
 * are the same either way.
 */
export function verifyWorkerFor(bytes: number, othersBusy?: number, cores: number = availableParallelism()): boolean {
  if (mode !== 'auto') return mode === 'always';
  const others = othersBusy ?? Math.max(0, (loadavg()[0] ?? 0) - 1);
  return bytes >= VERIFY_WORKER_MIN_BYTES && cores >= VERIFY_WORKER_MIN_CORES && others <= cores - 2 + SPARE_CORE_LOAD;
}

/**
 * In `auto` mode, machines with fewer cores verify in-thread. On the 2-core bench machine, quiet
 * (load 1.5), two threads were slower even with the second core idle: a W export took 4.19 s
 * against 4.10 s (whole process, median of 5 paired runs, ratio 1.00–1.04), with 3 % more CPU
 * and 45 MiB more peak RSS: the main thread, the worker and the libuv pool's inflate then share
 * two cores. Not measured on a larger machine; `setVerifyWorkers('always')` measures it there.
 */
export const VERIFY_WORKER_MIN_CORES = 4;

/**
 * Splits entries of `sizes` into two groups of about equal bytes (greedy, largest first, ties in
 * index order), each group's indices ascending. The first group is the main thread's.
 */
export function splitByBytes(sizes: readonly number[]): [number[], number[]] {
  const order = sizes.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b);
  const groups: [number[], number[]] = [[], []];
  const load = [0, 0];
  for (const i of order) {
    const g = load[1]! < load[0]! ? 1 : 0;
    groups[g].push(i);
    load[g]! += sizes[i]!;
  }
  return [groups[0].sort((a, b) => a - b), groups[1].sort((a, b) => a - b)];
}

/** One worker verifying one group of entries of an archive. */
export class VerifyWorker {
  readonly #thread: WorkerThread | undefined;
  #listener: ((m: WorkerMessage) => void) | undefined;
  #failure: ((e: Error) => void) | undefined;
  /** `true` once the worker has loaded; `false` when it could not start (verify in-thread then). */
  readonly ready: Promise<boolean>;

  private constructor(entry: WorkerEntry | undefined) {
    if (!entry) {
      this.ready = Promise.resolve(false);
      return;
    }
    this.#thread = WorkerThread.start({
      entry,
      name: 'verify worker',
      workerData: { [VERIFY_WORKER_MARK]: true },
      handshake: true,
      onMessage: (m) => this.#listener?.(m as WorkerMessage),
      // A failure, an exit or a stop: the group in hand is verified in-thread.
      onEnd: (e) => this.#failure?.(e),
    });
    this.ready = this.#thread.ready.then((ok) => {
      if (ok) started++;
      return ok;
    });
  }

  /**
   * Starts a worker (it reports whether it started in {@link ready}). Start it before the archive
   * is complete, so that its start-up (an isolate, the reader's modules) overlaps the writing.
   */
  static start(): VerifyWorker {
    const entry = entryOverride !== undefined ? { file: entryOverride } : siblingWorkerEntry('verify-thread', 'verify-worker');
    return new VerifyWorker(entry);
  }

  /**
   * Re-opens the archive at `path` on the worker and verifies the entries at `paths` (call once,
   * after {@link ready} said `true`); resolves with the issue of each (aligned, `undefined` when
   * intact) and tells `onEntry` the index and stored size of each entry checked. Rejects when the
   * worker fails or is terminated.
   */
  verify(path: string, limits: Partial<ArchiveLimits> | undefined, paths: readonly string[], onEntry: (index: number, bytes: number) => void): Promise<(OctxIssue | undefined)[]> {
    const thread = this.#thread!;
    return new Promise((resolve, reject) => {
      if (!thread.running) {
        reject(new Error('verify worker is not running'));
        return;
      }
      this.#failure = reject;
      this.#listener = (m) => {
        if (m.entry !== undefined) onEntry(m.entry, m.bytes ?? 0);
        else if (m.issues) resolve(m.issues.map((i) => i ?? undefined));
      };
      const job: VerifyJob = { path, paths, ...(limits ? { limits } : {}) };
      thread.post(job);
    });
  }

  /** Stops the worker (at once: an abort, or its result is in); safe to call more than once. */
  async terminate(): Promise<void> {
    await this.#thread?.terminate();
  }
}

/** What the worker sends besides its handshake and `{ error }` (handled by {@link WorkerThread}). */
interface WorkerMessage {
  readonly entry?: number;
  readonly bytes?: number;
  readonly issues?: readonly (OctxIssue | null)[];
}
