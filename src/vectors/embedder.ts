/**
 * The embedder contract and {@link embedAll}, which drives an embedder over a stream of texts
 * with bounded concurrency, bounded memory, retries and in-order delivery.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { OctxError, issue } from '../model/errors.js';
import pLimit from 'p-limit';
import { abortedError, throwIfAborted } from './abort.js';
import type { VectorConfigInput } from './config.js';

/**
 * Anything that turns texts into vectors. `config` describes the whole pipeline (model,
 * revision, dimensions, normalized and every setting that changes the output, including
 * `input_template`); it becomes `vectors/config.json` and its fingerprint.
 *
 * `embed` returns one vector per text, in the order of `texts`. It should honour
 * `options.signal`. Throwing an `OctxError` marks the failure as permanent (no retry); any
 * other error is treated as transient and retried by {@link embedAll}.
 */
export interface Embedder {
  readonly config: VectorConfigInput;
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<Float32Array[] | Float64Array[] | number[][]>;
  /**
   * Optional: called once before `config` is read, for an embedder that learns part of its config
   * from the service (e.g. the output width of a remote model).
   */
  prepare?(options?: { signal?: AbortSignal }): Promise<void>;
}

/** One text to embed, with the id of the record it belongs to. */
export interface EmbedItem {
  readonly id: string;
  readonly text: string;
}

/** A vector as an embedder returns it; stored as float32 (`PackageBuilder.addVector` takes the same three forms). */
export type EmbeddedVector = Float32Array | Float64Array | number[];

/** Options of {@link embedAll}. */
export interface EmbedAllOptions {
  /** Texts to embed; read lazily, never all at once. */
  readonly items: AsyncIterable<EmbedItem> | Iterable<EmbedItem>;
  readonly embedder: Embedder;
  /** Texts per `embed` call (default 64). */
  readonly batchSize?: number;
  /** `embed` calls running at once (default 2). */
  readonly concurrency?: number;
  /** Extra attempts after a transient failure (default 3, so at most 4 calls per batch). */
  readonly retries?: number;
  /** First retry delay; doubles per attempt, plus up to 20 % jitter (default 200 ms). */
  readonly retryDelayMs?: number;
  /** Cancels with `OCTX_ABORTED`; also passed on to `embed`. */
  readonly signal?: AbortSignal;
  /** Receives each batch's ids and vectors, in input order, one batch at a time. */
  readonly onBatch: (ids: string[], vectors: EmbeddedVector[]) => void;
  /** Called after each delivered batch with the number of texts delivered so far. */
  readonly onProgress?: (done: number) => void;
}

/** Result of {@link embedAll}. */
export interface EmbedAllResult {
  /** Number of texts embedded and delivered. */
  readonly embedded: number;
}

/**
 * Embeds `items` in batches of `batchSize` with at most `concurrency` `embed` calls running.
 *
 * - **Order:** batches reach `onBatch` in input order even when calls finish out of order, so
 *   the output is deterministic whatever the timing.
 * - **Memory:** at most `concurrency × 2` batches are read but not yet delivered; the input is
 *   pulled only as fast as batches complete.
 * - **Retries:** an error that is not an `OctxError` is retried `retries` times with exponential
 *   backoff (`retryDelayMs × 2^attempt`, +0–20 % jitter); then `OCTX_EMBEDDER_FAILED` with the
 *   last error as `cause`. An `OctxError` (from `embed`, `onBatch` or a result check) is
 *   permanent and thrown as it is.
 * - **Result check:** a result that is not an array of one vector (array, `Float32Array` or `Float64Array`)
 *   per text is `OCTX_EMBEDDER_FAILED` (not retried: it is a bug, not a hiccup).
 * - **Abort:** `signal` stops reading, cancels running calls (their signal is aborted) and
 *   drops queued ones; the promise rejects with `OCTX_ABORTED` without waiting for calls that
 *   ignore their signal. After the promise settles `onBatch` is never called again.
 *
 * The first failure stops everything in the same way and is what the promise rejects with.
 */
export async function embedAll(options: EmbedAllOptions): Promise<EmbedAllResult> {
  const { items, embedder, signal, onBatch, onProgress } = options;
  const batchSize = options.batchSize ?? 64;
  const concurrency = options.concurrency ?? 2;
  const retries = options.retries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 200;
  checkInteger('batchSize', batchSize, 1);
  checkInteger('concurrency', concurrency, 1);
  checkInteger('retries', retries, 0);
  if (typeof retryDelayMs !== 'number' || !Number.isFinite(retryDelayMs) || retryDelayMs < 0) {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'retryDelayMs', message: 'retryDelayMs must be a finite number ≥ 0' });
  }
  throwIfAborted(signal);

  const limit = pLimit(concurrency);
  const maxPending = concurrency * 2;
  // One controller for every running call: aborted by the caller's signal or by a failure.
  const stop = new AbortController();
  const results = new Map<number, { ids: string[]; vectors: EmbeddedVector[] }>();
  let launched = 0;
  let delivered = 0;
  let embedded = 0;
  let failed = false;
  let failure: unknown;
  let wake: (() => void) | undefined;

  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  // Only the main loop waits, and it checks its condition synchronously before waiting, so a
  // single wake slot cannot miss a notification.
  const changed = (): Promise<void> => new Promise<void>((resolve) => (wake = resolve));
  const fail = (e: unknown): void => {
    if (!failed) {
      failed = true;
      failure = e;
      stop.abort(e);
      limit.clearQueue();
    }
    notify();
  };
  const onAbort = (): void => fail(abortedError(signal));
  signal?.addEventListener('abort', onAbort, { once: true });

  const deliver = (): void => {
    for (let r = results.get(delivered); r !== undefined && !failed; r = results.get(delivered)) {
      results.delete(delivered);
      delivered++;
      try {
        onBatch(r.ids, r.vectors);
        embedded += r.ids.length;
        onProgress?.(embedded);
      } catch (e) {
        fail(e);
      }
    }
  };
  const launch = (ids: string[], texts: string[]): void => {
    const index = launched++;
    limit(() => embedBatch(embedder, texts, ids, retries, retryDelayMs, stop.signal, signal)).then((vectors) => {
      if (failed) return;
      results.set(index, { ids, vectors });
      deliver();
      notify();
    }, fail);
  };
  const room = async (): Promise<void> => {
    while (!failed && launched - delivered >= maxPending) await changed();
  };

  const iterator: Iterator<EmbedItem> | AsyncIterator<EmbedItem> = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  let exhausted = false;
  try {
    let ids: string[] = [];
    let texts: string[] = [];
    while (!failed) {
      const step = iterator.next();
      const r = step instanceof Promise ? await step : step;
      if (r.done === true) {
        exhausted = true;
        break;
      }
      const item = r.value;
      if (typeof item?.id !== 'string' || typeof item.text !== 'string') {
        fail(OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'items', message: `item ${launched * batchSize + ids.length} must be { id: string, text: string }` }));
        break;
      }
      ids.push(item.id);
      texts.push(item.text);
      if (ids.length === batchSize) {
        await room();
        if (failed) break;
        launch(ids, texts);
        ids = [];
        texts = [];
      }
    }
    if (!failed && ids.length > 0) {
      await room();
      if (!failed) launch(ids, texts);
    }
    while (!failed && delivered < launched) await changed();
  } catch (e) {
    fail(e); // the item source threw
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!exhausted) await closeIterator(iterator);
  }
  if (failed) throw failure;
  return { embedded };
}

async function closeIterator(iterator: Iterator<EmbedItem> | AsyncIterator<EmbedItem>): Promise<void> {
  try {
    await iterator.return?.();
  } catch {
    // The source's own cleanup failure must not hide the real error.
  }
}

/** One batch with retries; resolves to vectors checked for count and kind. */
async function embedBatch(
  embedder: Embedder,
  texts: string[],
  ids: string[],
  retries: number,
  retryDelayMs: number,
  stop: AbortSignal,
  userSignal: AbortSignal | undefined,
): Promise<EmbeddedVector[]> {
  const stopped = (): unknown => (userSignal?.aborted ? abortedError(userSignal) : (stop.reason ?? abortedError()));
  for (let attempt = 0; ; attempt++) {
    if (stop.aborted) throw stopped();
    let out: unknown;
    try {
      out = await embedder.embed(texts, { signal: stop });
    } catch (e) {
      if (stop.aborted) throw stopped();
      if (e instanceof OctxError) throw withBatchIds(e, ids);
      if (attempt >= retries) {
        const message = `the embedder failed on ${texts.length} texts (first record ${ids[0] ?? '?'}) after ${attempt + 1} attempts: ${e instanceof Error ? e.message : String(e)}`;
        throw new OctxError('OCTX_EMBEDDER_FAILED', message, {
          cause: e,
          issues: [issue({ code: 'OCTX_EMBEDDER_FAILED', message, ...(ids[0] !== undefined ? { recordId: ids[0] } : {}) })],
        });
      }
      const delay = retryDelayMs * 2 ** attempt * (1 + Math.random() * 0.2);
      try {
        await sleep(delay, undefined, { signal: stop });
      } catch {
        throw stopped();
      }
      continue;
    }
    return checkResult(out, texts.length, ids);
  }
}

/** Record ids for a message: the first five and how many more (`3 records: a, b, c`; `12 records: a, …, e, … and 7 more`). */
function describeRecordIds(ids: readonly string[]): string {
  const shown = ids.slice(0, 5).join(', ');
  const more = ids.length > 5 ? `, … and ${ids.length - 5} more` : '';
  return `${ids.length} record${ids.length === 1 ? '' : 's'}: ${shown}${more}`;
}

/**
 * An embedder's own `OCTX_EMBEDDER_FAILED`/`OCTX_EMBEDDER_RESPONSE_INVALID` names no record (it
 * sees only texts): add the batch's ids to the message (first few and the count), one issue per
 * record id, and the ids as `report.recordIds`, so the caller knows what failed.
 */
function withBatchIds(e: OctxError, ids: readonly string[]): OctxError {
  if ((e.code !== 'OCTX_EMBEDDER_FAILED' && e.code !== 'OCTX_EMBEDDER_RESPONSE_INVALID') || ids.length === 0 || e.issues.some((i) => i.recordId !== undefined)) return e;
  const report = typeof e.report === 'object' && e.report !== null ? { ...e.report, recordIds: [...ids] } : { recordIds: [...ids] };
  const message = `${e.message} (batch of ${describeRecordIds(ids)})`;
  return new OctxError(e.code, message, { issues: ids.map((recordId) => issue({ code: e.code, recordId, message: e.message })), report, cause: e });
}

function checkResult(out: unknown, expected: number, ids: readonly string[]): EmbeddedVector[] {
  const bad = (message: string, recordId?: string): OctxError => OctxError.of({ code: 'OCTX_EMBEDDER_FAILED', ...(recordId !== undefined ? { recordId } : {}), message });
  if (!Array.isArray(out)) throw bad('the embedder did not return an array of vectors', ids[0]);
  if (out.length !== expected) throw bad(`the embedder returned ${out.length} vectors for ${expected} texts`, ids[0]);
  for (let i = 0; i < out.length; i++) {
    const v: unknown = out[i];
    if (!(v instanceof Float32Array) && !(v instanceof Float64Array) && !Array.isArray(v))
      throw bad(`vector ${i} of the batch is neither a Float32Array, a Float64Array nor an array`, ids[i]);
  }
  return out as EmbeddedVector[];
}

/**
 * `value` when it is an integer from `min` to `max`; the one check of the vector modules' integer
 * options (embedAll's and HttpEmbedder's).
 * @throws OctxError `OCTX_OPTIONS_INVALID` naming `field`
 */
export function checkInteger(field: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field, message: `${field} must be an integer ${range}, got ${String(value)}` });
  }
  return value;
}
