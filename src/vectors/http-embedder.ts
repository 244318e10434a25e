/**
 * An {@link Embedder} for any service that speaks the OpenAI embeddings wire format
 * (`POST {baseURL}/embeddings` with `{ model, input: string[], dimensions? }`, answered with
 * `{ data: [{ index, embedding: number[] }] }`): OpenAI, Azure OpenAI, Ollama, vLLM,
 * text-embeddings-inference and most gateways. It uses `fetch`; no vendor SDK.
 *
 * It trusts the service with the texts and the key, not with the process: every answer is read
 * under a byte cap, placed strictly by `index`, and redirects never leave the origin.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import { OctxError, issue } from '../model/errors.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';
import type { JsonObject } from '../model/json.js';
import type { OctxCode } from '../model/codes.js';
import { abortedError, throwIfAborted } from './abort.js';
import type { VectorConfigInput } from './config.js';
import { MAX_VECTOR_DIMENSIONS } from './config.js';
import { checkInteger, type Embedder } from './embedder.js';
import { EmbeddingsResponseError, parseEmbeddingsResponse } from './embeddings-response.js';
import { readCappedBody } from './http-body.js';

/** Same-origin 307/308 redirects followed per request before the request fails. */
export const HTTP_EMBEDDER_MAX_REDIRECTS = 5;

/** Bytes of an error answer (4xx/5xx) read for its message; the rest is not read. */
const ERROR_BODY_BYTES = 64 * 1024;

/**
 * The default {@link HttpEmbedderOptions.maxResponseBytes} for a request of `texts` texts whose
 * vectors have `dimensions` numbers (the largest allowed width while the width is still unknown):
 * `1 MiB + texts × (512 + 48 × dimensions)` bytes. 48 bytes per number is about twice the longest
 * JSON float (`-1.2345678901234567e-308`, 24 characters) with room for pretty-printing; 512 bytes
 * per item and 1 MiB per answer leave room for `object`, `index`, `usage` and other fields.
 */
export function defaultMaxResponseBytes(texts: number, dimensions: number | undefined): number {
  return 1024 * 1024 + texts * (512 + 48 * (dimensions ?? MAX_VECTOR_DIMENSIONS));
}

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
  /** Retries after a 408, 409, 429, a 5xx, a network error, a timeout or a body that is not JSON (default 5). */
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
  /**
   * Largest answer accepted, in bytes after decompression, counted while the body streams: a
   * longer (or endless, or compression-bomb) body is cancelled at the cap and the request fails
   * with `OCTX_EMBEDDER_RESPONSE_INVALID`, not retried. Default per request:
   * {@link defaultMaxResponseBytes} (`1 MiB + texts × (512 + 48 × dimensions)`).
   */
  readonly maxResponseBytes?: number;
  /**
   * The `fetch` to use (default: the global one); for proxies, custom agents and tests. It is
   * called with `redirect: 'manual'` and must honour it (the global `fetch` does), or redirects
   * escape the same-origin rule.
   */
  readonly fetch?: typeof fetch;
}

/** Statuses worth another attempt: timeouts, conflicts, rate limits and server errors. */
function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A failed attempt: `retry` says whether another attempt may succeed; `code` is the code it fails with. */
class AttemptFailure extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
    readonly code: OctxCode = 'OCTX_EMBEDDER_FAILED',
  ) {
    super(message);
  }
}

/** An answer the client will not use: the batch fails with `OCTX_EMBEDDER_RESPONSE_INVALID`. */
function unusable(message: string, status: number | undefined, retry = false): AttemptFailure {
  return new AttemptFailure(message, retry, status, undefined, 'OCTX_EMBEDDER_RESPONSE_INVALID');
}

/** A URL fit for a message: scheme, host, port and path; never user info, query or fragment (they may hold secrets). */
function displayUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** Redirect statuses; only 307 and 308 keep the method and the body. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

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
  maxResponseBytes: true,
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
 * Answers are held to the wire format: every item needs an integer `index` from 0 to n − 1, each
 * exactly once (any order; an item without one is not placed by position), the right count and
 * width, finite numbers, and at most `maxResponseBytes` decoded bytes. Redirects are followed only
 * within the origin of `baseURL` and only as 307/308 (same method, body and headers), at most
 * {@link HTTP_EMBEDDER_MAX_REDIRECTS} times; any other redirect fails before anything is sent
 * there, so the texts and the key never reach another origin.
 *
 * Failures are typed and permanent (the builder does not retry them again):
 * `OCTX_EMBEDDER_FAILED` for an HTTP error, a network error or a timeout (after the retries),
 * `OCTX_EMBEDDER_RESPONSE_INVALID` for an answer that breaks the rules above or a refused
 * redirect. The message names the endpoint URL (without user info or query) and the HTTP status,
 * never the key or a header value; `report` holds `status`, `attempts` and `url`; `embedAll` (and
 * so `builder.embed`) adds the record ids of the batch.
 */
export class HttpEmbedder implements Embedder {
  readonly #url: URL;
  readonly #displayUrl: string;
  /** The key and header values, blanked out of every message (a server may echo them). */
  readonly #secrets: readonly string[];
  readonly #maxResponseBytes: number | undefined;
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

  /** @throws OctxError `OCTX_OPTIONS_INVALID` for a bad URL (or one with user info), model or number option. */
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
    if (base.username !== '' || base.password !== '') {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'baseURL', message: 'baseURL must not carry credentials (user:password@): pass apiKey or headers' });
    }
    if (typeof options.model !== 'string' || options.model.trim() === '')
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'model', message: 'model must be a non-empty string' });
    // `/embeddings` goes on the path; a query (Azure's `api-version`) stays a query.
    const url = new URL(base.href);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/embeddings`;
    url.hash = '';
    this.#url = url;
    this.#displayUrl = displayUrl(url);
    this.#maxResponseBytes = options.maxResponseBytes === undefined ? undefined : checkInteger('maxResponseBytes', options.maxResponseBytes, 1);
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
    this.#secrets = [options.apiKey ?? '', ...Object.values(options.headers ?? {})].filter((v) => typeof v === 'string' && v.length >= 4);
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
    throwIfAborted(options.signal);
    await this.#request(['dimension probe'], options.signal, true);
  }

  /**
   * Embeds `texts`, in order. Splits them into requests by count and by characters and runs up to
   * `concurrency` requests at once.
   * @throws OctxError `OCTX_EMBEDDER_FAILED`, `OCTX_EMBEDDER_RESPONSE_INVALID` (with
   *   `report.status`, `report.attempts`, `report.url`), `OCTX_ABORTED`
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

  /** One request with its retries; `probe` marks the request {@link prepare} sends before any record. */
  async #request(texts: string[], signal: AbortSignal | undefined, probe = false): Promise<Float32Array[]> {
    for (let attempt = 1; ; attempt++) {
      throwIfAborted(signal);
      try {
        return await this.#attempt(texts, signal);
      } catch (e) {
        if (signal?.aborted) throw abortedError(signal);
        if (!(e instanceof AttemptFailure)) throw e;
        if (!e.retry || attempt > this.#maxRetries) {
          const tries = attempt === 1 ? '' : ` after ${attempt} attempts`;
          const what = probe ? ' (the probe that measures dimensions/normalized, sent before any record; pass both options to skip it)' : '';
          const verb = e.code === 'OCTX_EMBEDDER_RESPONSE_INVALID' ? 'gave an unusable answer' : 'failed';
          const message = this.#redact(`the embeddings service at ${this.#displayUrl} ${verb}${tries}${what}: ${e.message}`);
          throw new OctxError(e.code, message, {
            issues: [issue({ code: e.code, message })],
            // No `cause`: the attempt's own message may hold an echoed secret; this one is redacted.
            report: { status: e.status, attempts: attempt, url: this.#displayUrl },
          });
        }
        const backoff = this.#retryBaseMs * 2 ** (attempt - 1) * (1 + Math.random() * 0.25);
        const delayMs = Math.min(this.#maxRetryDelayMs, e.retryAfterMs ?? backoff);
        this.#options.onRetry?.({ attempt, status: e.status, reason: this.#redact(e.message), delayMs, texts: texts.length });
        try {
          await sleep(delayMs, undefined, signal ? { signal } : undefined);
        } catch {
          throw abortedError(signal);
        }
      }
    }
  }

  /** `text` with every secret (the key, header values) blanked out. */
  #redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.split(secret).join('[redacted]');
    return out;
  }

  /** One HTTP request, same-origin 307/308 redirects included: the vectors, or an {@link AttemptFailure}. */
  async #attempt(texts: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const body: Record<string, unknown> = { model: this.#model, input: texts, encoding_format: 'float' };
    if (this.#requestedDimensions !== undefined) body.dimensions = this.#requestedDimensions;
    const payload = JSON.stringify(body);
    const cap = this.#maxResponseBytes ?? defaultMaxResponseBytes(texts.length, this.#dimensions);
    let url = this.#url;
    try {
      for (let redirects = 0; ; redirects++) {
        this.#requests++;
        // Redirects are ours to judge: fetch would follow them to any origin with the body and custom headers.
        const response = await this.#fetch(url, { method: 'POST', headers: this.#headers, body: payload, signal: combined, redirect: 'manual' });
        if (REDIRECTS.has(response.status) || response.type === 'opaqueredirect') {
          void response.body?.cancel().catch(() => undefined);
          url = this.#redirectTarget(url, response, redirects);
          continue;
        }
        if (!response.ok) {
          const { bytes, truncated } = await readCappedBody(response, Math.min(cap, ERROR_BODY_BYTES));
          const text = new TextDecoder().decode(bytes);
          const detail = text.length > 200 || truncated ? `${text.slice(0, 200)}…` : text;
          throw new AttemptFailure(
            `HTTP ${response.status}${detail ? `: ${detail}` : ''}`,
            retryable(response.status),
            response.status,
            retryAfterMs(response.headers.get('retry-after')),
          );
        }
        const { bytes, truncated } = await readCappedBody(response, cap);
        if (truncated) {
          const hint = this.#maxResponseBytes === undefined ? ' (the default for this batch; raise it with maxResponseBytes)' : ' (maxResponseBytes)';
          throw unusable(`the answer holds more than ${cap.toLocaleString('en-US')} bytes${hint}; it was not read further`, response.status);
        }
        return this.#vectors(new TextDecoder().decode(bytes), texts.length, response.status);
      }
    } catch (e) {
      if (e instanceof AttemptFailure) throw e;
      if (signal?.aborted) throw abortedError(signal);
      const reason = timeout.aborted ? `no complete answer within ${this.#timeoutMs} ms` : `network error: ${networkReason(e)}`;
      throw new AttemptFailure(reason, true);
    }
  }

  /**
   * Where a redirect from `from` may go: a 307/308 to the same origin (scheme, host and port),
   * without user info, at most {@link HTTP_EMBEDDER_MAX_REDIRECTS} times. Anything else fails
   * here, before a byte is sent to the new location.
   */
  #redirectTarget(from: URL, response: Response, redirects: number): URL {
    const status = response.status;
    const location = response.headers.get('location');
    let target: URL | undefined;
    try {
      target = location === null ? undefined : new URL(location, from);
    } catch {
      target = undefined;
    }
    const to = target === undefined ? 'no valid Location' : displayUrl(target);
    const refuse = (why: string): AttemptFailure => unusable(`redirect (HTTP ${status}) to ${to} refused: ${why}`, status);
    if (target === undefined) throw refuse('point baseURL at the final URL');
    if (target.origin !== from.origin) throw refuse(`another origin than ${from.origin}; the texts and the key are not sent there (point baseURL at it if you trust it)`);
    if (target.username !== '' || target.password !== '') throw refuse('the location carries credentials');
    if (status !== 307 && status !== 308) throw refuse('it would turn the POST into a GET (only 307 and 308 are followed)');
    if (redirects >= HTTP_EMBEDDER_MAX_REDIRECTS) throw refuse(`more than ${HTTP_EMBEDDER_MAX_REDIRECTS} redirects`);
    return target;
  }

  /** Parses and checks a body (see {@link parseEmbeddingsResponse}), then fixes or checks dimensions and normalized. */
  #vectors(text: string, expected: number, status: number): Float32Array[] {
    let vectors: Float32Array[];
    try {
      vectors = parseEmbeddingsResponse(text, expected, this.#dimensions);
    } catch (e) {
      if (e instanceof EmbeddingsResponseError) throw unusable(e.message, status, e.retry);
      throw e;
    }
    for (const vector of vectors) this.#measure(vector, status);
    return vectors;
  }

  /** Fixes dimensions and normalized from the first vector seen, and holds later ones to them. */
  #measure(vector: Float32Array, status: number): void {
    if (this.#dimensions === undefined) this.#dimensions = vector.length;
    if (vector.length !== this.#dimensions) throw unusable(`an embedding has ${vector.length} dimensions; expected ${this.#dimensions}`, status);
    if (this.#normalized === undefined) {
      let sum = 0;
      for (const v of vector) sum += v * v;
      this.#normalized = Math.abs(Math.sqrt(sum) - 1) <= 1e-3;
    }
  }
}

/** A network error's reason, with the system code undici keeps in `cause` (`fetch failed` alone says little). */
function networkReason(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : undefined;
  return detail !== undefined && !e.message.includes(detail) ? `${e.message} (${detail})` : e.message;
}
