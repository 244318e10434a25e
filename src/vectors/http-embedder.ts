/**
 * An {@link Embedder} for any service that speaks the OpenAI embeddings wire format
 * (`POST {baseURL}/embeddings` with `{ model, input: string[], dimensions? }`, answered with
 * `{ data: [{ index, embedding: number[] }] }`): OpenAI, Azure OpenAI, Ollama, vLLM,
 * text-embeddings-inference and most gateways. It uses `fetch`; no vendor SDK.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import { OctxError, issue } from '../model/errors.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';
import type { JsonObject } from '../model/json.js';
import { abortedError, throwIfAborted } from './abort.js';
import type { VectorConfigInput } from './config.js';
import { MAX_VECTOR_DIMENSIONS } from './config.js';
import { checkInteger, type Embedder } from './embedder.js';

/** One retry the client is about to make, as reported to {@link HttpEmbedderOptions.onRetry}. */
export interface HttpEmbedderRetry {
  /** The attempt that failed (1 for the first request). */
  readonly attempt: number;
  /** HTTP status of the failed attempt; `undefined` for a network error, a timeout or a malformed body. */
  readonly status?: number;
  /** Why the attempt failed, for a person. */
  readonly reason: string;
  /** How long the client waits before the next attempt. */
  readonly delayMs: number;
  /** Texts in the request. */
  readonly texts: number;
}

/** Options of {@link HttpEmbedder}. */
export interface HttpEmbedderOptions {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; `/embeddings` is appended. */
  readonly baseURL: string;
  /** The model name sent with every request and recorded in the vector config. */
  readonly model: string;
  /**
   * Output width. When given it is sent as `dimensions` (models that can shorten their output
   * honour it) and checked against every response; when absent it is measured on the first request.
   */
  readonly dimensions?: number;
  /** Sent as `Authorization: Bearer …`. Never recorded in the config. */
  readonly apiKey?: string;
  /** Extra request headers (e.g. `api-key` for Azure). Never recorded in the config. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Texts per request (default 64). */
  readonly batchSize?: number;
  /** Characters per request, summed over its texts (default 200,000); a longer single text goes alone. */
  readonly maxBatchChars?: number;
  /** Requests one `embed` call runs at once (default 1; the builder's `embed(…, { concurrency })` multiplies it). */
  readonly concurrency?: number;
  /** Time allowed for one request, response body included (default 60,000 ms). */
  readonly timeoutMs?: number;
  /** Retries after a 408, 409, 429, a 5xx, a network error, a timeout or a malformed body (default 5). */
  readonly maxRetries?: number;
  /** First retry delay, doubled per attempt, with up to 25 % jitter (default 500 ms); a `Retry-After` header wins. */
  readonly retryBaseMs?: number;
  /** Longest single wait, `Retry-After` included (default 60,000 ms). */
  readonly maxRetryDelayMs?: number;
  /**
   * Whether the service returns unit-length vectors. When absent it is measured on the first
   * response (every vector's L2 norm within 1e-3 of 1).
   */
  readonly normalized?: boolean;
  /** Revision recorded in the config (e.g. the model's release date); part of the fingerprint. */
  readonly revision?: string;
  /** Other pipeline settings to record in the config (`input_template`, `pooling`, …); part of the fingerprint. */
  readonly settings?: JsonObject;
  /** Called before each retry: what failed and how long the client waits. */
  readonly onRetry?: (retry: HttpEmbedderRetry) => void;
  /** The `fetch` to use (default: the global one); for proxies, custom agents and tests. */
  readonly fetch?: typeof fetch;
}

/** Statuses worth another attempt: timeouts, conflicts, rate limits and server errors. */
function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A failed attempt: `retry` says whether another attempt may succeed. */
class AttemptFailure extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** `Retry-After` as milliseconds (delta-seconds or an HTTP date), or `undefined`. */
function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Every key of {@link HttpEmbedderOptions}; another one is a misspelling, refused. */
const HTTP_EMBEDDER_OPTION_KEYS = keysOf<HttpEmbedderOptions>({
  baseURL: true,
  model: true,
  dimensions: true,
  apiKey: true,
  headers: true,
  batchSize: true,
  maxBatchChars: true,
  concurrency: true,
  timeoutMs: true,
  maxRetries: true,
  retryBaseMs: true,
  maxRetryDelayMs: true,
  normalized: true,
  revision: true,
  settings: true,
  onRetry: true,
  fetch: true,
});

/**
 * Embeds texts through an OpenAI-compatible embeddings endpoint, with batching by count and by
 * characters, bounded concurrency, retries with exponential backoff and jitter (honouring
 * `Retry-After`) and a per-request timeout.
 *
 * ```ts
 * const embedder = new HttpEmbedder({ baseURL: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text' });
 * await builder.embed('chunks', embedder, { concurrency: 4 });
 * ```
 *
 * Its {@link config} names the model, the dimensions, `normalized` and the settings you pass —
 * never the URL, the key or the headers. When `dimensions` or `normalized` is not given, the
 * first request measures it; `builder.embed` makes that request through {@link prepare} before it
 * reads the config.
 *
 * Failures are `OCTX_EMBEDDER_FAILED` (permanent: the builder does not retry them again) with the
 * HTTP status in the message and in `report.status`; the builder adds the record ids of the batch.
 */
export class HttpEmbedder implements Embedder {
  readonly #url: string;
  readonly #model: string;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #batchSize: number;
  readonly #maxBatchChars: number;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #retryBaseMs: number;
  readonly #maxRetryDelayMs: number;
  readonly #requestedDimensions: number | undefined;
  readonly #limit: ReturnType<typeof pLimit>;
  readonly #options: HttpEmbedderOptions;
  readonly #fetch: typeof fetch;
  #dimensions: number | undefined;
  #normalized: boolean | undefined;
  #config: VectorConfigInput | undefined;
  /** Requests sent, retries included (for reports and tests). */
  #requests = 0;

  /** @throws OctxError `OCTX_OPTIONS_INVALID` for a bad URL, model or number option. */
  constructor(options: HttpEmbedderOptions) {
    assertKnownKeys(options, HTTP_EMBEDDER_OPTION_KEYS, 'HttpEmbedder options');
    let base: URL;
    try {
      base = new URL(options.baseURL);
    } catch {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'baseURL', message: `baseURL must be an absolute http(s) URL (got ${JSON.stringify(options.baseURL)})` });
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'baseURL', message: `baseURL must use http or https (got ${base.protocol})` });
    }
    if (typeof options.model !== 'string' || options.model.trim() === '')
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'model', message: 'model must be a non-empty string' });
    this.#url = `${base.href.replace(/\/+$/, '')}/embeddings`;
    this.#model = options.model;
    this.#batchSize = checkInteger('batchSize', options.batchSize ?? 64, 1);
    this.#maxBatchChars = checkInteger('maxBatchChars', options.maxBatchChars ?? 200_000, 1);
    this.#timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? 60_000, 1);
    this.#maxRetries = checkInteger('maxRetries', options.maxRetries ?? 5, 0);
    this.#retryBaseMs = checkInteger('retryBaseMs', options.retryBaseMs ?? 500, 0);
    this.#maxRetryDelayMs = checkInteger('maxRetryDelayMs', options.maxRetryDelayMs ?? 60_000, 0);
    this.#limit = pLimit(checkInteger('concurrency', options.concurrency ?? 1, 1));
    this.#requestedDimensions = options.dimensions === undefined ? undefined : checkInteger('dimensions', options.dimensions, 1, MAX_VECTOR_DIMENSIONS);
    this.#dimensions = this.#requestedDimensions;
    this.#normalized = options.normalized;
    this.#headers = {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      ...options.headers,
    };
    this.#fetch = options.fetch ?? fetch;
    this.#options = options;
  }

  /** Requests sent so far, retries included. */
  get requests(): number {
    return this.#requests;
  }

  /**
   * The vector config: model, revision, dimensions, normalized and the settings given.
   * @throws OctxError `OCTX_EMBEDDER_FAILED` while dimensions or normalized are still unknown: call
   *   {@link prepare} first (`builder.embed` does).
   */
  get config(): VectorConfigInput {
    if (this.#config) return this.#config;
    if (this.#dimensions === undefined || this.#normalized === undefined) {
      throw OctxError.of({
        code: 'OCTX_EMBEDDER_FAILED',
        message: 'the HttpEmbedder has not measured its dimensions/normalized yet: await embedder.prepare() (or pass both options)',
      });
    }
    this.#config = Object.freeze({
      ...this.#options.settings,
      model: this.#model,
      ...(this.#options.revision !== undefined ? { revision: this.#options.revision } : {}),
      dimensions: this.#dimensions,
      normalized: this.#normalized,
    });
    return this.#config;
  }

  /**
   * Measures what the options do not state (dimensions, normalized) with one request of one
   * short text. Does nothing when both are known.
   */
  async prepare(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#dimensions !== undefined && this.#normalized !== undefined) return;
    await this.embed(['dimension probe'], options);
  }

  /**
   * Embeds `texts`, in order. Splits them into requests by count and by characters and runs up to
   * `concurrency` requests at once.
   * @throws OctxError `OCTX_EMBEDDER_FAILED` (with `report.status`), `OCTX_ABORTED`
   */
  async embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    throwIfAborted(options.signal);
    const batches: { start: number; texts: string[] }[] = [];
    let current: string[] = [];
    let chars = 0;
    let start = 0;
    texts.forEach((text, i) => {
      if (current.length > 0 && (current.length === this.#batchSize || chars + text.length > this.#maxBatchChars)) {
        batches.push({ start, texts: current });
        current = [];
        chars = 0;
        start = i;
      }
      current.push(text);
      chars += text.length;
    });
    if (current.length > 0) batches.push({ start, texts: current });
    const out = new Array<Float32Array>(texts.length);
    await Promise.all(
      batches.map((b) =>
        this.#limit(async () => {
          const vectors = await this.#request(b.texts, options.signal);
          for (let i = 0; i < vectors.length; i++) out[b.start + i] = vectors[i]!;
        }),
      ),
    );
    return out;
  }

  /** One request with its retries. */
  async #request(texts: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    for (let attempt = 1; ; attempt++) {
      throwIfAborted(signal);
      try {
        return await this.#attempt(texts, signal);
      } catch (e) {
        if (signal?.aborted) throw abortedError(signal);
        if (!(e instanceof AttemptFailure)) throw e;
        if (!e.retry || attempt > this.#maxRetries) {
          const tries = attempt === 1 ? '' : ` after ${attempt} attempts`;
          const message = `the embeddings service failed${tries}: ${e.message}`;
          throw new OctxError('OCTX_EMBEDDER_FAILED', message, {
            issues: [issue({ code: 'OCTX_EMBEDDER_FAILED', message })],
            report: { status: e.status, attempts: attempt },
            cause: e,
          });
        }
        const backoff = this.#retryBaseMs * 2 ** (attempt - 1) * (1 + Math.random() * 0.25);
        const delayMs = Math.min(this.#maxRetryDelayMs, e.retryAfterMs ?? backoff);
        this.#options.onRetry?.({ attempt, status: e.status, reason: e.message, delayMs, texts: texts.length });
        try {
          await sleep(delayMs, undefined, signal ? { signal } : undefined);
        } catch {
          throw abortedError(signal);
        }
      }
    }
  }

  /** One HTTP request: the vectors, or an {@link AttemptFailure}. */
  async #attempt(texts: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const body: Record<string, unknown> = { model: this.#model, input: texts, encoding_format: 'float' };
    if (this.#requestedDimensions !== undefined) body.dimensions = this.#requestedDimensions;
    this.#requests++;
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(this.#url, { method: 'POST', headers: this.#headers, body: JSON.stringify(body), signal: combined });
      text = await response.text();
    } catch (e) {
      if (signal?.aborted) throw abortedError(signal);
      const reason = timeout.aborted ? `no complete answer within ${this.#timeoutMs} ms` : `network error: ${e instanceof Error ? e.message : String(e)}`;
      throw new AttemptFailure(reason, true);
    }
    if (!response.ok) {
      const detail = text.length > 200 ? `${text.slice(0, 200)}…` : text;
      throw new AttemptFailure(
        `HTTP ${response.status}${detail ? `: ${detail}` : ''}`,
        retryable(response.status),
        response.status,
        retryAfterMs(response.headers.get('retry-after')),
      );
    }
    return this.#vectors(text, texts.length, response.status);
  }

  /** Parses and checks a response body: one finite vector per text, in `index` order, of the right width. */
  #vectors(text: string, expected: number, status: number): Float32Array[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AttemptFailure(`malformed response body (not JSON, ${text.length} characters)`, true, status);
    }
    const data = (parsed as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== expected) {
      throw new AttemptFailure(`malformed response body: expected data with ${expected} embeddings, got ${Array.isArray(data) ? data.length : typeof data}`, true, status);
    }
    const out = new Array<Float32Array>(expected);
    for (let i = 0; i < data.length; i++) {
      const item = data[i] as { index?: unknown; embedding?: unknown } | null;
      const index = typeof item?.index === 'number' ? item.index : i;
      const embedding = item?.embedding;
      if (!Number.isInteger(index) || index < 0 || index >= expected || out[index] !== undefined || !Array.isArray(embedding)) {
        throw new AttemptFailure(`malformed response body: embedding ${i} has no valid index or no vector`, true, status);
      }
      const vector = Float32Array.from(embedding as unknown[], (v) => (typeof v === 'number' ? v : Number.NaN));
      if (!vector.every(Number.isFinite)) throw new AttemptFailure(`embedding ${index} holds a value that is not a finite number`, false, status);
      this.#measure(vector, status);
      out[index] = vector;
    }
    return out;
  }

  /** Fixes dimensions and normalized from the first vector seen, and holds later ones to them. */
  #measure(vector: Float32Array, status: number): void {
    if (this.#dimensions === undefined) this.#dimensions = vector.length;
    if (vector.length !== this.#dimensions) throw new AttemptFailure(`an embedding has ${vector.length} dimensions; expected ${this.#dimensions}`, false, status);
    if (this.#normalized === undefined) {
      let sum = 0;
      for (const v of vector) sum += v * v;
      this.#normalized = Math.abs(Math.sqrt(sum) - 1) <= 1e-3;
    }
  }
}
