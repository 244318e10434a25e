import type { Worker } from 'node:worker_threads';
import { deflateBlock, outputChunkBytes } from './deflate-block.js';
import { WorkerThread } from './worker-thread.js';

/**
 * One thread that compresses background blocks with zlib's synchronous API, so the caller's
 * thread only copies bytes and posts messages, and compression takes one core, not the whole
 * libuv pool.
 *
 * Why not the libuv pool (`zlib.deflateRaw`)? It runs up to four compressions at once beside the
 * producer's own thread; on a 2-core machine that takes the producer's core away from it while its
 * `add*` loop is the critical path. Measured on the W bench export (quiet, 5 paired runs): 8.8 %
 * less wall time and 38 MiB lower peak RSS with this thread from the first block (the pool also
 * keeps a zlib state per job and allocator arenas per thread). One compressing thread keeps pace
 * with a producer; what it cannot take stays within the caller's in-flight bound and is compressed
 * at export time, on the pool.
 *
 * The worker is started from source text (`eval`), so it needs no file of its own: it works the
 * same from the ESM build, the CommonJS build, the sources and a bundle. It is shared by every
 * builder of the process, referenced only while it has jobs (an idle worker never keeps the
 * process alive) and stopped after {@link IDLE_STOP_MS} without work. When it cannot start, jobs go
 * to the libuv pool (same bytes); when it dies with jobs in hand, those jobs fail (a spill
 * compresses such blocks again at export time) and later ones go to the pool.
 */

/** An idle worker is stopped after this long (its isolate and zlib state cost ~10–15 MiB). */
export const IDLE_STOP_MS = 2000;

/**
 * Jobs are posted in batches: a batch goes out once it holds this many raw bytes, or when the
 * caller's synchronous run ends (a microtask), whichever comes first, so a run of small documents
 * costs one message and one wake-up of the worker, not one each.
 */
export const BATCH_BYTES = 256 * 1024;

// CommonJS source of the worker. It must keep no garbage: it allocates almost no JS objects, so
// its collector would run only once ~64 MiB of dead buffers had piled up (measured: +42 MiB of
// peak RSS on a 2,000-document build). So every buffer it touches goes back to the main thread,
// transferred: the input (and dictionary) it was sent, and zlib's output buffer itself — one
// chunk as large as the block's deflate bound (`chunkSize`, from `outputChunkBytes` on the
// posting side), sent whole with the output's length (a small one,
// carved from Node's 8 KiB allocation pool, is copied out instead: the pool must stay attached).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { deflateRawSync, constants } = require('node:zlib');
parentPort.on('message', (batch) => {
  const replies = [];
  const transfer = [];
  for (const job of batch) {
    transfer.push(job.raw);
    if (job.dictionary) transfer.push(job.dictionary);
    try {
      const options = { level: job.level, finishFlush: constants.Z_SYNC_FLUSH, chunkSize: job.chunkSize };
      if (job.dictionary) options.dictionary = new Uint8Array(job.dictionary);
      const out = deflateRawSync(new Uint8Array(job.raw), options);
      const whole = out.byteOffset === 0 && out.buffer.byteLength >= 16384;
      const bytes = whole ? out.buffer : out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength);
      replies.push({ id: job.id, bytes, length: out.byteLength, raw: job.raw, dictionary: job.dictionary });
      transfer.push(bytes);
    } catch (e) {
      replies.push({ id: job.id, error: String((e && e.message) || e), raw: job.raw, dictionary: job.dictionary });
    }
  }
  parentPort.postMessage(replies, transfer);
});
`;

interface PostedJob {
  readonly id: number;
  readonly raw: ArrayBuffer;
  readonly dictionary: ArrayBuffer | undefined;
  readonly level: number;
  /** zlib's output buffer size: {@link outputChunkBytes} of the block. */
  readonly chunkSize: number;
}

interface Job {
  readonly resolve: (out: Buffer) => void;
  readonly reject: (e: Error) => void;
}

interface WorkerReply {
  readonly id: number;
  /** zlib's output buffer; the output is its first `length` bytes. */
  readonly bytes?: ArrayBuffer;
  readonly length?: number;
  readonly error?: string;
}

/** A copy of `bytes` in an ArrayBuffer of its own, which can be transferred. */
function ownCopy(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** How the worker is made (tests replace it to simulate a worker that cannot start). */
export type WorkerFactory = (source: string) => Worker;

/** Its isolate is kept small: it runs zlib and a message loop, nothing else. */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8, codeRangeSizeMb: 1 };

/** The compressing thread: use {@link deflateOnThread}; the class is exported for tests. */
export class DeflateThread {
  #worker: WorkerThread | undefined;
  readonly #jobs = new Map<number, Job>();
  #nextId = 0;
  #batch: PostedJob[] = [];
  #batchBytes = 0;
  #batchTransfer: ArrayBuffer[] = [];
  #idleTimer: NodeJS.Timeout | undefined;
  /** Set once the worker cannot be used: every job then goes to the pool. */
  #broken = false;
  readonly #factory: WorkerFactory | undefined;
  readonly #idleStopMs: number;

  constructor(factory?: WorkerFactory, idleStopMs = IDLE_STOP_MS) {
    this.#factory = factory;
    this.#idleStopMs = idleStopMs;
  }

  /** Jobs posted and not yet answered. */
  get pending(): number {
    return this.#jobs.size;
  }

  /** True while a worker thread is running. */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** Deflates one block: raw DEFLATE ended with a sync flush, the same bytes as {@link deflateBlock}. */
  deflate(raw: Buffer, dictionary: Buffer | undefined, level: number): Promise<Buffer> {
    const worker = this.#broken ? undefined : this.#start();
    if (worker === undefined) return deflateBlock(raw, dictionary, level);
    return new Promise<Buffer>((resolve, reject) => {
      const id = this.#nextId++;
      const rawCopy = ownCopy(raw);
      const dictionaryCopy = dictionary && dictionary.length > 0 ? ownCopy(dictionary) : undefined;
      this.#jobs.set(id, { resolve, reject });
      if (this.#jobs.size === 1) {
        clearTimeout(this.#idleTimer);
        worker.ref();
      }
      if (this.#batch.length === 0) queueMicrotask(() => this.#post());
      this.#batch.push({ id, raw: rawCopy, dictionary: dictionaryCopy, level, chunkSize: outputChunkBytes(raw.length) });
      this.#batchTransfer.push(rawCopy);
      if (dictionaryCopy) this.#batchTransfer.push(dictionaryCopy);
      this.#batchBytes += raw.length;
      if (this.#batchBytes >= BATCH_BYTES) this.#post();
    });
  }

  /** Sends the jobs gathered so far to the worker. */
  #post(): void {
    if (this.#batch.length === 0) return;
    const batch = this.#batch;
    const transfer = this.#batchTransfer;
    this.#batch = [];
    this.#batchTransfer = [];
    this.#batchBytes = 0;
    // The worker died after these jobs were gathered: #lost has already failed them.
    this.#worker?.post(batch, transfer);
  }

  #start(): WorkerThread | undefined {
    if (this.#worker) return this.#worker;
    const factory = this.#factory;
    const worker: WorkerThread = WorkerThread.start({
      entry: { file: WORKER_SOURCE, eval: true },
      name: 'the compressing thread',
      resourceLimits: RESOURCE_LIMITS,
      handshake: false,
      onMessage: (replies) => {
        for (const reply of replies as readonly WorkerReply[]) this.#answer(reply);
      },
      onEnd: () => this.#lost(worker),
      ...(factory ? { create: (source: string | URL) => factory(String(source)) } : {}),
    });
    if (!worker.running) {
      this.#broken = true;
      return undefined;
    }
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  #answer(reply: WorkerReply): void {
    const job = this.#jobs.get(reply.id);
    if (!job) return;
    this.#jobs.delete(reply.id);
    if (reply.bytes) job.resolve(Buffer.from(reply.bytes, 0, reply.length));
    else job.reject(new Error(`deflate failed: ${reply.error ?? 'no output'}`));
    if (this.#jobs.size === 0) this.#idle();
  }

  /** No job left: let the process exit, and stop the worker if nothing comes for a while. */
  #idle(): void {
    const worker = this.#worker;
    if (!worker) return;
    worker.unref();
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#worker !== worker || this.#jobs.size > 0) return;
      this.#worker = undefined;
      void worker.terminate();
    }, this.#idleStopMs);
    this.#idleTimer.unref();
  }

  /**
   * The worker stopped. Unless it was stopped on purpose while idle, its pending jobs fail (no
   * second copy of their bytes is kept: a spill compresses a failed background block again at
   * export time) and later jobs go to the pool.
   */
  #lost(worker: WorkerThread): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    clearTimeout(this.#idleTimer);
    this.#batch = [];
    this.#batchTransfer = [];
    this.#batchBytes = 0;
    if (this.#jobs.size === 0) return;
    this.#broken = true;
    const jobs = [...this.#jobs.values()];
    this.#jobs.clear();
    for (const job of jobs) job.reject(new Error('the compressing thread stopped'));
  }

  /** Stops the worker now (tests): pending jobs fail and later ones go to the pool. */
  async stop(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    await worker.terminate();
  }
}

let shared: DeflateThread | undefined;

/**
 * Deflates one block on the process's compressing thread (started on first use, stopped when
 * idle), or on the libuv pool when no worker can run. Same bytes as {@link deflateBlock}.
 */
export function deflateOnThread(raw: Buffer, dictionary: Buffer | undefined, level: number): Promise<Buffer> {
  shared ??= new DeflateThread();
  return shared.deflate(raw, dictionary, level);
}
