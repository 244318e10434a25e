/**
 * `HttpEmbedder` against an embeddings server started here on 127.0.0.1 that speaks the OpenAI
 * wire format and misbehaves on request: rate limits (429 with and without `Retry-After`), server
 * errors, slow answers, malformed bodies, a permanent 401.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpEmbedder, OctxError, PackageBuilder, embedAll, newId, openPackage, validatePackage, type EmbedItem, type HttpEmbedderRetry } from 'octx-export';
import { tempDir } from '../helpers/temp.js';

const DIMENSIONS = 8;

/** The server's embedding of a text: 8 floats from its SHA-256, unit length when `normalized`. */
function vectorOf(text: string, normalized = true): number[] {
  const h = createHash('sha256').update(text).digest();
  const v = Array.from({ length: DIMENSIONS }, (_, i) => (h.readInt16BE(i * 2) / 32768) * 3);
  if (!normalized) return v;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** What the server does with request number `n` (1-based). */
type Action = 'ok' | 'malformed' | { status: number; retryAfter?: string; body?: string } | { delayMs: number };

interface Received {
  readonly input: string[];
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

let server: Server;
let baseURL: string;
let plan: (n: number, input: string[]) => Action = () => 'ok';
let normalizedVectors = true;
const received: Received[] = [];

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  const input = body.input as string[];
  received.push({ input, headers: req.headers, body });
  const action = plan(received.length, input);
  if (req.url !== '/v1/embeddings') return void res.writeHead(404).end();
  if (action === 'malformed') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": [');
  if (typeof action === 'object' && 'status' in action) {
    res.writeHead(action.status, { 'content-type': 'application/json', ...(action.retryAfter !== undefined ? { 'retry-after': action.retryAfter } : {}) });
    return void res.end(action.body ?? JSON.stringify({ error: { message: `injected ${action.status}` } }));
  }
  if (typeof action === 'object' && 'delayMs' in action) await new Promise((r) => setTimeout(r, action.delayMs));
  // Answer out of order: the client must sort by `index`.
  const data = input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text, normalizedVectors) })).reverse();
  if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model }));
}

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterEach(() => {
  plan = () => 'ok';
  normalizedVectors = true;
  received.length = 0;
});

/** An embedder for these tests: short waits so retries take milliseconds. */
function embedder(extra: Partial<ConstructorParameters<typeof HttpEmbedder>[0]> = {}, retries: HttpEmbedderRetry[] = []): HttpEmbedder {
  return new HttpEmbedder({ baseURL, model: 'test-embed', apiKey: 'sk-secret', retryBaseMs: 5, timeoutMs: 2_000, onRetry: (r) => retries.push(r), ...extra });
}

const items = (n: number): EmbedItem[] => Array.from({ length: n }, (_, i) => ({ id: `record-${i}`, text: `text number ${i}` }));

describe('HttpEmbedder', () => {
  it('embeds 1,000 records in order through 429s, 5xx answers and a malformed body, with bounded requests', async () => {
    const failures = new Map<number, Action>([
      [2, { status: 429 }],
      [3, { status: 429, retryAfter: '0' }],
      [5, { status: 500 }],
      [7, 'malformed'],
      [9, { status: 503 }],
    ]);
    plan = (n) => failures.get(n) ?? 'ok';
    const retries: HttpEmbedderRetry[] = [];
    const e = embedder({ dimensions: DIMENSIONS, normalized: true, batchSize: 64 }, retries);
    const delivered: { id: string; vector: number[] }[] = [];
    const result = await embedAll({
      items: items(1000),
      embedder: e,
      batchSize: 64,
      concurrency: 4,
      onBatch: (ids, vectors) => ids.forEach((id, i) => delivered.push({ id, vector: Array.from(vectors[i]!) })),
    });
    expect(result.embedded).toBe(1000);
    expect(delivered.map((d) => d.id)).toEqual(items(1000).map((i) => i.id));
    for (const [i, d] of delivered.entries()) expect(d.vector).toEqual(Array.from(Float32Array.from(vectorOf(`text number ${i}`))));
    // Every injected failure was retried once, visibly, and nothing more was sent.
    expect(retries.map((r) => r.status ?? 0).sort((x, y) => x - y)).toEqual([200, 429, 429, 500, 503]);
    expect(retries.filter((r) => r.status === 429).map((r) => r.delayMs === 0)).toContain(true);
    expect(e.requests).toBe(Math.ceil(1000 / 64) + failures.size);
    expect(received).toHaveLength(e.requests);
  });

  it('fails fast on a 401, with the status and the record ids of the batch, and no retry', async () => {
    plan = () => ({ status: 401, body: '{"error":{"message":"invalid api key"}}' });
    const retries: HttpEmbedderRetry[] = [];
    const e = embedder({ dimensions: DIMENSIONS, normalized: true }, retries);
    const failure = await embedAll({ items: items(3), embedder: e, onBatch: () => undefined }).catch((x: unknown) => x);
    expect(failure).toBeInstanceOf(OctxError);
    const err = failure as OctxError;
    expect(err.code).toBe('OCTX_EMBEDDER_FAILED');
    expect(err.message).toContain('HTTP 401');
    expect(err.report).toMatchObject({ status: 401, attempts: 1, recordIds: ['record-0', 'record-1', 'record-2'] });
    expect(err.issues.map((i) => i.recordId)).toEqual(['record-0', 'record-1', 'record-2']);
    expect(retries).toEqual([]);
    expect(e.requests).toBe(1);
  });

  it('honours Retry-After in seconds and gives up after maxRetries with the last status', async () => {
    plan = () => ({ status: 429, retryAfter: '1' });
    const retries: HttpEmbedderRetry[] = [];
    const e = embedder({ dimensions: DIMENSIONS, normalized: true, maxRetries: 1, maxRetryDelayMs: 1_000 }, retries);
    const started = Date.now();
    const err = (await e.embed(['a']).catch((x: unknown) => x)) as OctxError;
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(retries.map((r) => r.delayMs)).toEqual([1000]);
    expect(err.code).toBe('OCTX_EMBEDDER_FAILED');
    expect(err.report).toMatchObject({ status: 429, attempts: 2 });
    expect(e.requests).toBe(2);
  });

  it('retries an answer slower than timeoutMs', async () => {
    plan = (n) => (n === 1 ? { delayMs: 600 } : 'ok');
    const retries: HttpEmbedderRetry[] = [];
    const e = embedder({ dimensions: DIMENSIONS, normalized: true, timeoutMs: 200 }, retries);
    const [v] = await e.embed(['slow']);
    expect(Array.from(v!)).toEqual(Array.from(Float32Array.from(vectorOf('slow'))));
    expect(retries).toHaveLength(1);
    expect(retries[0]!.status).toBeUndefined();
    expect(retries[0]!.reason).toContain('within 200 ms');
  });

  it('splits requests by count and by characters, and sends the model, the dimensions and the key', async () => {
    const e = embedder({ dimensions: DIMENSIONS, normalized: true, batchSize: 3, maxBatchChars: 25 });
    const texts = ['aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc', 'd', 'e', 'f', 'g', 'x'.repeat(40)];
    const vectors = await e.embed(texts);
    expect(vectors.map((v) => Array.from(v))).toEqual(texts.map((t) => Array.from(Float32Array.from(vectorOf(t)))));
    expect(received.map((r) => r.input)).toEqual([['aaaaaaaaaa', 'bbbbbbbbbb'], ['cccccccccc', 'd', 'e'], ['f', 'g'], ['x'.repeat(40)]]);
    expect(received[0]!.body).toMatchObject({ model: 'test-embed', dimensions: DIMENSIONS, encoding_format: 'float' });
    expect(received[0]!.headers.authorization).toBe('Bearer sk-secret');
  });

  it('measures dimensions and normalized on its first request, and its config names neither URL nor key', async () => {
    normalizedVectors = false;
    const e = embedder({ revision: '2026-01', settings: { pooling: 'mean' } });
    expect(() => e.config).toThrow(/prepare/);
    await e.prepare();
    expect(e.config).toEqual({ pooling: 'mean', model: 'test-embed', revision: '2026-01', dimensions: DIMENSIONS, normalized: false });
    expect(JSON.stringify(e.config)).not.toMatch(/127\.0\.0\.1|sk-secret/);
    expect(received[0]!.body.dimensions).toBeUndefined();
  });

  it('refuses a response of the wrong width without retrying', async () => {
    const e = embedder({ dimensions: 4, normalized: true });
    const err = (await e.embed(['a']).catch((x: unknown) => x)) as OctxError;
    // An answer that breaks the wire format has its own code (it was OCTX_EMBEDDER_FAILED before issue 24).
    expect(err.code).toBe('OCTX_EMBEDDER_RESPONSE_INVALID');
    expect(err.message).toContain('8 dimensions; expected 4');
    expect(e.requests).toBe(1);
  });

  it('stops with OCTX_ABORTED when the signal aborts during a backoff', async () => {
    plan = () => ({ status: 503, retryAfter: '5' });
    const controller = new AbortController();
    const e = embedder({ dimensions: DIMENSIONS, normalized: true, onRetry: () => controller.abort() });
    const err = (await e.embed(['a'], { signal: controller.signal }).catch((x: unknown) => x)) as OctxError;
    expect(err.code).toBe('OCTX_ABORTED');
  });

  it('refuses options it cannot use', () => {
    expect(() => new HttpEmbedder({ baseURL: 'ftp://example.invalid', model: 'm' })).toThrow(/http or https/);
    expect(() => new HttpEmbedder({ baseURL: 'not a url', model: 'm' })).toThrow(/absolute/);
    expect(() => new HttpEmbedder({ baseURL, model: '' })).toThrow(/model/);
    expect(() => new HttpEmbedder({ baseURL, model: 'm', batchSize: 0 })).toThrow(/batchSize/);
  });

  it('works with builder.embed, which prepares it first, and the package validates', async () => {
    const doc = newId();
    const chunk = newId();
    const event = newId();
    const entity = newId();
    const builder = new PackageBuilder({ asset: { name: 'HTTP embeddings' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } })
      .addDocument({ path: 'guide.md', markdown: `---\ntype: Guide\ntitle: Guide\noctx:\n  document_id: ${doc}\n---\n\n# Guide\n\nInstall it.\n` })
      .addChunk({ id: chunk, document_id: doc, ordinal: 0, text: 'Install it.' })
      .addEvent({ id: event, title: 'Installation', content: 'The guide explains how to install.' })
      .addEntity({ id: entity, name: 'Product', type: 'software' })
      .linkChunkEvent({ chunk_id: chunk, event_id: event })
      .linkEventEntity({ event_id: event, entity_id: entity });
    await builder.embed('chunks', embedder(), { concurrency: 2 });
    const output = join(tempDir(), 'http.octx');
    const result = await builder.export({ output });
    expect(result.report.vectors.targets.chunks.status).toBe('written');
    expect((await validatePackage(output)).valid).toBe(true);
    const pkg = await openPackage(output);
    try {
      expect(await pkg.vectorConfig()).toMatchObject({ model: 'test-embed', dimensions: DIMENSIONS, normalized: true });
      const rows = [];
      for await (const row of pkg.vectors('chunks')) rows.push(row);
      expect(rows.map((r) => r.recordId)).toEqual([chunk]);
    } finally {
      await pkg.close();
    }
  });
});
