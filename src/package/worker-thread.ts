/**
 * One worker thread of the SDK, started, watched and ended the one way every worker of the SDK is
 * (the compressing thread of `package/`, the structure scan of `read/`, the archive verification
 * of `export/`):
 *
 * - **start**: `new Worker` never throws out of here; a worker that cannot be made reports
 *   `ready === false`, and the caller does the work on the main thread (every worker of the SDK
 *   has an in-thread path that gives the same bytes and issues);
 * - **no inherited `execArgv`**: loaders and preloads the process was started with (`--import
 *   tsx`, instrumentation, `--inspect`) would only add start-up time and memory to a worker that
 *   runs the SDK's own modules or a piece of source text, and some cannot load eval'd source at
 *   all. A worker started from TypeScript sources registers tsx itself (see `worker-entry.ts`);
 * - **ready**: with `handshake`, the worker says `{ ready: true }` once its modules are loaded and
 *   `ready` resolves `true` then; without, as soon as it is made;
 * - **errors**: an `error` event, an exit, a message that cannot be deserialised or a
 *   `{ error }` message from the worker all end it: `onEnd` is called once with the reason,
 *   `ready` resolves `false` if it had not said ready, and the worker is terminated;
 * - **settle on stop**: {@link WorkerThread.terminate} (an abort, an idle stop, a result that is
 *   in) also calls `onEnd` once, so no job the caller keeps for this worker is left pending.
 */
import { Worker, type ResourceLimits, type TransferListItem, type WorkerOptions } from 'node:worker_threads';
import type { WorkerEntry } from './worker-entry.js';

/** Makes the `Worker` (tests: one that throws, or one that dies mid-job). */
export type WorkerCreate = (file: string | URL, options: WorkerOptions) => Worker;

/** Options of {@link WorkerThread.start}. */
export interface WorkerThreadOptions {
  /** The worker's code: a file, or source text (`eval`). */
  readonly entry: WorkerEntry;
  /** Names the worker in the errors it ends with (`verify worker`). */
  readonly name: string;
  /** `workerData` of the worker. */
  readonly workerData?: unknown;
  /** V8 heap limits of the worker. */
  readonly resourceLimits?: ResourceLimits;
  /** Whether the worker says `{ ready: true }` once loaded (then {@link WorkerThread.ready} waits for it). */
  readonly handshake: boolean;
  /** Every message but the handshake and `{ error }`. */
  readonly onMessage: (message: unknown) => void;
  /**
   * Called once when the worker ends, whatever ends it (its failure, its exit, or
   * {@link WorkerThread.terminate}), with the reason: settle here what the worker was doing.
   */
  readonly onEnd?: (reason: Error) => void;
  /** Makes the `Worker` instead of `new Worker(file, options)`. */
  readonly create?: WorkerCreate;
}

const defaultCreate: WorkerCreate = (file, options) => new Worker(file, options);

/** The message a worker sends when it fails (`{ error: message }`). */
function workerError(message: unknown): string | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const error = (message as { error?: unknown }).error;
  if (error === undefined) return undefined;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

function isReady(message: unknown): boolean {
  return message !== null && typeof message === 'object' && !Array.isArray(message) && (message as { ready?: unknown }).ready === true;
}

/** One running (or failed) worker thread; see the module comment. */
export class WorkerThread {
  readonly #worker: Worker | undefined;
  readonly #name: string;
  readonly #onEnd: ((reason: Error) => void) | undefined;
  #ended = false;
  #settleReady: (ready: boolean) => void = () => undefined;
  /** `true` once the worker runs (said ready, with `handshake`); `false` when it could not start or ended first. */
  readonly ready: Promise<boolean>;

  private constructor(options: WorkerThreadOptions) {
    this.#name = options.name;
    this.#onEnd = options.onEnd;
    let worker: Worker | undefined;
    try {
      worker = (options.create ?? defaultCreate)(options.entry.file, {
        execArgv: [],
        ...(options.entry.eval ? { eval: true } : {}),
        ...(options.workerData !== undefined ? { workerData: options.workerData } : {}),
        ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
      });
    } catch {
      worker = undefined;
    }
    this.#worker = worker;
    if (worker === undefined) {
      this.#ended = true;
      this.ready = Promise.resolve(false);
      return;
    }
    this.ready = options.handshake ? new Promise<boolean>((resolve) => (this.#settleReady = resolve)) : Promise.resolve(true);
    const onMessage = options.onMessage;
    worker.on('message', (m: unknown) => {
      if (this.#ended) return;
      if (options.handshake && isReady(m)) {
        this.#settleReady(true);
        return;
      }
      const error = workerError(m);
      if (error !== undefined) this.#fail(new Error(`${this.#name}: ${error}`));
      else onMessage(m);
    });
    worker.on('error', (e: unknown) => this.#fail(e instanceof Error ? e : new Error(`${this.#name}: ${String(e)}`)));
    // A message that cannot be read would leave its job unanswered forever: the worker has failed.
    worker.on('messageerror', (e: unknown) => this.#fail(e instanceof Error ? e : new Error(`${this.#name}: unreadable message`)));
    worker.on('exit', (code: number) => this.#fail(new Error(`${this.#name} exited (${code})`), false));
  }

  /**
   * Starts a worker. Never throws: when the worker cannot be made, {@link ready} is `false` at
   * once and `onEnd` is not called (there was nothing to end).
   */
  static start(options: WorkerThreadOptions): WorkerThread {
    return new WorkerThread(options);
  }

  /** True until the worker has ended (failed, exited or been terminated), or when it never started. */
  get running(): boolean {
    return !this.#ended;
  }

  /** Posts a message (dropped once the worker has ended: its `onEnd` has settled the job). */
  post(message: unknown, transfer?: readonly TransferListItem[]): void {
    if (this.#ended) return;
    this.#worker!.postMessage(message, transfer);
  }

  /** Lets the worker keep the process alive (while it has jobs). */
  ref(): void {
    this.#worker?.ref();
  }

  /** Lets the process exit while the worker is idle. */
  unref(): void {
    this.#worker?.unref();
  }

  /**
   * Stops the worker now; `onEnd` gets `reason` (default: `<name> terminated`) unless the worker
   * had already ended. Safe to call more than once.
   */
  async terminate(reason?: Error): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#end(reason ?? new Error(`${this.#name} terminated`));
    await worker.terminate();
  }

  /** The worker failed or exited on its own: end it and settle. */
  #fail(reason: Error, stop = true): void {
    if (this.#ended) return;
    this.#end(reason);
    if (stop) void this.#worker!.terminate();
  }

  #end(reason: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    // Late events of a stopped worker (an error while it is torn down) have nowhere to go.
    const worker = this.#worker!;
    worker.removeAllListeners('error');
    worker.on('error', () => undefined);
    this.#settleReady(false);
    this.#onEnd?.(reason);
  }
}
