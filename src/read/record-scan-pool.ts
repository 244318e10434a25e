/**
 * Structure JSONL files checked on worker threads (issue 23 item 4): a pool of
 * `os.availableParallelism()` workers (at most one per structure file), each scanning one file
 * ({@link RecordScanner}) while the main thread streams, hashes and sends its bytes. Results
 * come back as compact typed arrays and are replayed on the main thread in file order, so the
 * report is the one the in-thread check gives.
 *
 * The worker file is this module's sibling, found by {@link siblingWorkerEntry} in every build.
 * When it cannot be found, or a worker does not start, the caller checks in-thread.
 */
import { availableParallelism } from 'node:os';
import { siblingWorkerEntry, type WorkerEntry } from '../package/worker-entry.js';
import { WorkerThread } from '../package/worker-thread.js';
import type { RecordScan, RecordScanOptions } from './record-scan.js';
// Imported for the builds (an entry only a Worker names would not be emitted); it does nothing here.
import { RECORD_SCAN_MARK } from './record-scan-worker.js';

/**
 * When validatePackage uses workers: by size (`auto`), always, or never. The default is `never`:
 * measured on the 2-core bench machine, workers made validation slower and larger (a 6,000-document
 * package, 45 MiB of JSONL: 2.9 s and 225–250 MiB against 2.6 s and 157–160 MiB in-thread when
 * the structure pass started after the documents; level in time, still larger, since the jobs
 * start before the documents): the workers' start-up, chunk copies and the replay cost about
 * what the parsing they take over saves on two shared cores. `auto` is for measuring larger
 * packages (BENCHMARKS.md).
 */
export type StructureWorkerMode = 'auto' | 'always' | 'never';

/**
 * In `auto` mode, structure bytes (stored size) below which no worker is started. Workers cost
 * 30–40 MiB of RSS (their isolates and module graphs): on the 2,000-document folder (15 MiB of
 * JSONL) they took validate from 118 to ~155 MiB, above issue 23's memory target.
 */
export const WORKER_MIN_TOTAL_BYTES = 32 * 1024 * 1024;
/** A file below this is checked in-thread even when others go to workers. */
export const WORKER_MIN_FILE_BYTES = 512 * 1024;
/** Bytes sent to one worker and not yet scanned, before the sender waits. */
const MAX_OUTSTANDING_BYTES = 4 * 1024 * 1024;

let mode: StructureWorkerMode = 'never';
let started = 0;

/** Workers that have started scanning since the process began (for tests and diagnostics). */
export function structureWorkersStarted(): number {
  return started;
}

/** Sets the worker mode (module-wide; tests, diagnostics, measurements); returns the previous one. */
export function setStructureWorkers(next: StructureWorkerMode): StructureWorkerMode {
  const previous = mode;
  mode = next;
  return previous;
}

let entryOverride: string | undefined;

/**
 * Starts workers from `file` instead of the located worker module (tests: a file that cannot be
 * loaded proves the in-thread fallback); `undefined` restores the default.
 */
export function overrideStructureWorkerFile(file: string | undefined): void {
  entryOverride = file;
}

/** Whether a structure layer of `totalBytes` is checked on workers. */
export function structureWorkersFor(totalBytes: number): boolean {
  return mode === 'always' || (mode === 'auto' && totalBytes >= WORKER_MIN_TOTAL_BYTES);
}

/** Whether one file of `bytes` goes to a worker (when workers are used at all). */
export function fileToWorker(bytes: number): boolean {
  return mode === 'always' || bytes >= WORKER_MIN_FILE_BYTES;
}

/** One file being scanned by a worker. */
export class RecordScanJob {
  private thread: WorkerThread | undefined;
  private outstanding = 0;
  private drained: (() => void) | undefined;
  private aborted = false;
  private resolveScan!: (scan: RecordScan) => void;
  private rejectScan!: (e: Error) => void;
  /** The worker's result. */
  readonly result: Promise<RecordScan>;
  /** `true` once the worker runs, `false` when it could not start (check in-thread then). */
  readonly started: Promise<boolean>;

  constructor(pool: RecordScanPool, entry: WorkerEntry, options: RecordScanOptions) {
    this.result = new Promise<RecordScan>((resolve, reject) => {
      this.resolveScan = resolve;
      this.rejectScan = reject;
    });
    this.result.catch(() => undefined);
    this.started = pool.acquire().then((slot) => {
      if (!slot) return false;
      const thread: WorkerThread = WorkerThread.start({
        entry,
        name: 'structure worker',
        workerData: { [RECORD_SCAN_MARK]: options },
        handshake: true,
        onMessage: (message) => {
          const m = message as { ack?: number; scan?: RecordScan };
          if (m.ack !== undefined) {
            this.outstanding -= m.ack;
            if (this.outstanding <= MAX_OUTSTANDING_BYTES && this.drained) {
              const d = this.drained;
              this.drained = undefined;
              d();
            }
          } else if (m.scan) {
            this.resolveScan(m.scan);
            // Its result is in: the worker ends (and frees its slot).
            void thread.terminate();
          }
        },
        // Whatever ends the worker frees its slot, fails a scan still running and releases a
        // sender waiting on its back-pressure.
        onEnd: (e) => {
          pool.untrack(thread);
          this.rejectScan(e);
          this.drained?.();
        },
      });
      if (!thread.running) {
        pool.release();
        return false;
      }
      this.thread = thread;
      pool.track(thread);
      return thread.ready.then((ok) => {
        if (ok) started++;
        return ok;
      });
    });
  }

  /** Stops the job (the pool is closing): the sender stops waiting and its next send throws. */
  abort(): void {
    this.aborted = true;
    this.rejectScan(new Error('structure worker pool closed'));
    const d = this.drained;
    this.drained = undefined;
    d?.();
  }

  /** Sends one chunk (a copy: the caller's buffer may be pooled); waits while the worker is behind. */
  async send(chunk: Buffer): Promise<void> {
    if (this.aborted) throw new Error('structure worker pool closed');
    const copy = new Uint8Array(chunk.byteLength);
    copy.set(chunk);
    this.outstanding += copy.byteLength;
    this.thread!.post(copy, [copy.buffer]);
    if (this.outstanding > MAX_OUTSTANDING_BYTES) {
      await new Promise<void>((resolve) => (this.drained = resolve));
    }
  }

  /** Ends the file; resolves with the scan. */
  end(): Promise<RecordScan> {
    this.thread!.post(null);
    return this.result;
  }
}

/** At most `size` scanning workers at once; {@link close} ends them all. */
export class RecordScanPool {
  private active = 0;
  private readonly queue: (() => void)[] = [];
  private readonly workers = new Set<WorkerThread>();

  private constructor(
    private readonly size: number,
    private readonly entry: WorkerEntry,
  ) {}

  private readonly jobs = new Set<RecordScanJob>();
  private closed = false;

  /** A pool, or `undefined` when the worker file cannot be located (check in-thread). */
  static create(files: number): RecordScanPool | undefined {
    const entry = entryOverride !== undefined ? { file: entryOverride } : siblingWorkerEntry('record-scan-pool', 'record-scan-worker');
    if (!entry) return undefined;
    return new RecordScanPool(Math.max(1, Math.min(files, availableParallelism())), entry);
  }

  /** Starts scanning one file (its worker starts once a slot is free). */
  start(options: RecordScanOptions): RecordScanJob {
    const job = new RecordScanJob(this, this.entry, options);
    this.jobs.add(job);
    return job;
  }

  /** Waits for a free slot: `true`, or `false` once the pool is closed (start nothing then). */
  async acquire(): Promise<boolean> {
    if (this.closed) return false;
    if (this.active < this.size) {
      this.active++;
      return true;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
    return !this.closed;
  }

  /** Frees a slot (handing it to the next waiter). */
  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.active--;
  }

  /** Counts a running worker against its slot. */
  track(w: WorkerThread): void {
    this.workers.add(w);
  }

  /** A worker ended: its slot is free (once). */
  untrack(w: WorkerThread): void {
    if (this.workers.delete(w)) this.release();
  }

  /** Ends every worker still running (after a failure, or at the end). */
  async close(): Promise<void> {
    // A sender still streaming (the validation ended early) must not wait on a worker forever.
    this.closed = true;
    for (const job of this.jobs) job.abort();
    this.jobs.clear();
    for (const waiting of this.queue.splice(0)) waiting();
    const all = [...this.workers];
    this.workers.clear();
    await Promise.all(all.map((w) => w.terminate()));
  }
}
