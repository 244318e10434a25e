/**
 * `HttpEmbedder` against embeddings servers that answer wrongly or with hostility, each started
 * here on 127.0.0.1: indices that are missing, strings, null, fractional, out of range or
 * repeated (a wrong assignment must never pass as valid); redirects to another origin (the texts
 * and the key must never reach it); endless, oversized and compressed-bomb bodies (a typed error,
 * quickly, with bounded memory); and failures whose message must name the URL and the records,
 * never the key.
 */
import { brotliCompressSync, constants as zlibConstants, createBrotliCompress, gzipSync } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpEmbedder, OctxError, PackageBuilder, embedAll, newId, type EmbedItem, type HttpEmbedderOptions } from 'octx-export';
import { answer, correct, startEmbeddingsServer, vectorOf, writeRepeatedly, type EmbeddingsServer } from '../helpers/embeddings-server.js';

const KEY = 'sk-test-0123456789abcdef';
const AZURE_KEY = 'azure-key-fedcba9876543210';

let main: EmbeddingsServer;
let other: EmbeddingsServer;
/** 512 MiB of spaces, brotli-compressed (about 1 KB). */
let brotliBomb: Buffer;

beforeAll(async () => {
  main = await startEmbeddingsServer();
  other = await startEmbeddingsServer();
  const compressor = createBrotliCompress({ params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } });
  const parts: Buffer[] = [];
  compressor.on('data', (d: Buffer) => parts.push(d));
  const mib = Buffer.alloc(1 << 20, 0x20);
  for (let i = 0; i < 512; i++) if (!compressor.write(mib)) await new Promise((r) => compressor.once('drain', r));
  await new Promise<void>((resolve) => compressor.end(resolve));
  brotliBomb = Buffer.concat(parts);
});
afterAll(async () => {
  await main.close();
  await other.close();
});
afterEach(() => {
  main.handler = correct;
  other.handler = correct;
  main.received.length = 0;
  other.received.length = 0;
});

function embedder(extra: Partial<HttpEmbedderOptions> = {}): HttpEmbedder {
  return new HttpEmbedder({
    baseURL: main.baseURL,
    model: 'test',
    apiKey: KEY,
    headers: { 'api-key': AZURE_KEY },
    dimensions: 8,
    normalized: false,
    maxRetries: 0,
    timeoutMs: 10_000,
    ...extra,
  });
}

async function failure(p: Promise<unknown>): Promise<OctxError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(OctxError);
  return e as OctxError;
}

const f32 = (v: readonly number[]): number[] => Array.from(Float32Array.from(v));
const TEXTS = ['alpha', 'beta', 'gamma', 'delta'];

/** Serves `data` items built from the request's input by `shape`. */
function serveData(shape: (input: string[]) => unknown[]): void {
  main.handler = (r, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: shape(r.input) }));
}
const item = (index: unknown, text: string): Record<string, unknown> => ({ object: 'embedding', ...(index === undefined ? {} : { index }), embedding: vectorOf(text) });

describe('HttpEmbedder: the index of each embedding', () => {
  it('puts each vector where its index says, whatever the order of the answer', async () => {
    main.handler = (r, res) => void res.writeHead(200).end(answer(r.input, 8, [2, 0, 3, 1]));
    const vectors = await embedder().embed(TEXTS);
    expect(vectors.map((v) => Array.from(v))).toEqual(TEXTS.map((t) => f32(vectorOf(t))));
  });

  const bad: [string, (input: string[]) => unknown[]][] = [
    ['string indices, reversed', (input) => input.map((t, i) => item(String(i), t)).reverse()],
    ['null indices, reversed', (input) => input.map((t) => item(null, t)).reverse()],
    ['no index at all, reversed', (input) => input.map((t) => item(undefined, t)).reverse()],
    ['some items without an index', (input) => input.map((t, i) => item(i === 1 ? undefined : i, t))],
    ['a fractional index', (input) => input.map((t, i) => item(i === 2 ? 1.5 : i, t))],
    ['a negative index', (input) => input.map((t, i) => item(i === 0 ? -1 : i, t))],
    ['an index out of range', (input) => input.map((t, i) => item(i === 3 ? 4 : i, t))],
    ['a repeated index', (input) => input.map((t, i) => item(i === 3 ? 2 : i, t))],
    ['a boolean index', (input) => input.map((t, i) => item(i === 0 ? true : i, t))],
    ['an index beyond the safe integers', (input) => input.map((t, i) => item(i === 0 ? 2 ** 60 : i, t))],
    ['one embedding too few', (input) => input.slice(1).map((t, i) => item(i, t))],
    ['one embedding too many', (input) => [...input, 'extra'].map((t, i) => item(i, t))],
    ['an embedding that is not an array', (input) => input.map((t, i) => ({ index: i, embedding: i === 1 ? 'AAAA' : vectorOf(t) }))],
    ['an item that is not an object', (input) => input.map((t, i) => (i === 1 ? 5 : item(i, t)))],
  ];
  for (const [name, shape] of bad) {
    it(`refuses ${name} with OCTX_EMBEDDER_RESPONSE_INVALID, naming the URL and the records`, async () => {
      serveData(shape);
      const ids = TEXTS.map((_, i) => `rec-${i}`);
      const err = await failure(embedAll({ items: TEXTS.map((text, i) => ({ id: ids[i]!, text })), embedder: embedder(), batchSize: 4, onBatch: () => undefined }));
      expect(err.code).toBe('OCTX_EMBEDDER_RESPONSE_INVALID');
      expect(err.message).toContain(`${main.baseURL}/embeddings`);
      expect(err.message).toContain('rec-0');
      expect(err.issues.map((i) => i.recordId)).toEqual(ids);
      expect(main.received).toHaveLength(1); // a broken answer is not asked again
    });
  }

  it('refuses a vector of the wrong width with the same code', async () => {
    main.handler = (r, res) => void res.writeHead(200).end(answer(r.input, 6));
    expect((await failure(embedder().embed(TEXTS))).code).toBe('OCTX_EMBEDDER_RESPONSE_INVALID');
  });
});

describe('HttpEmbedder: redirects', () => {
  for (const status of [301, 302, 303, 307, 308]) {
    it(`refuses a ${status} to another origin: the other server receives nothing`, async () => {
      main.handler = (_r, res) => void res.writeHead(status, { location: `${other.baseURL}/embeddings` }).end();
      const err = await failure(embedder().embed(TEXTS));
      expect(err.code).toBe('OCTX_EMBEDDER_RESPONSE_INVALID');
      expect(err.message).toContain(`redirect (HTTP ${status})`);
      expect(err.message).not.toContain(KEY);
      expect(other.received).toEqual([]);
      expect(main.received).toHaveLength(1);
    });
  }

  it('refuses a redirect to the same host on another port, or to a URL with credentials', async () => {
    const otherPort = new URL(other.origin).port;
    for (const location of [`http://localhost:${otherPort}/v1/embeddings`, `http://user:pw@127.0.0.1:${new URL(main.origin).port}/v2/embeddings`]) {
      main.handler = (r, res) => void (r.path === '/v1/embeddings' ? res.writeHead(307, { location }).end() : correct(r, res));
      expect((await failure(embedder().embed(TEXTS))).code).toBe('OCTX_EMBEDDER_RESPONSE_INVALID');
    }
    expect(other.received).toEqual([]);
    expect(main.received.map((r) => r.path)).toEqual(['/v1/embeddings', '/v1/embeddings']);
  });

  it('follows a 307/308 on the same origin with the same method, body and headers', async () => {
    main.handler = (r, res) => {
      if (r.path === '/v1/embeddings') return void res.writeHead(307, { location: '/v2/embeddings' }).end();
      if (r.path === '/v2/embeddings') return void res.writeHead(308, { location: `${main.origin}/v3/embeddings` }).end();
      void correct(r, res);
    };
    const vectors = await embedder().embed(TEXTS);
    expect(vectors.map((v) => Array.from(v))).toEqual(TEXTS.map((t) => f32(vectorOf(t))));
    expect(main.received.map((r) => [r.method, r.path, r.input.length, r.headers.authorization, r.headers['api-key']])).toEqual(
      ['/v1/embeddings', '/v2/embeddings', '/v3/embeddings'].map((p) => ['POST', p, 4, `Bearer ${KEY}`, AZURE_KEY]),
    );
  });

  it('refuses a 302/303 on the same origin (it would turn the POST into a GET) and stops a redirect loop', async () => {
    main.handler = (_r, res) => void res.writeHead(303, { location: '/v1/other' }).end();
    expect((await failure(embedder().embed(TEXTS))).message).toContain('HTTP 303');
    main.received.length = 0;
    main.handler = (_r, res) => void res.writeHead(307, { location: '/v1/embeddings' }).end();
    const err = await failure(embedder().embed(TEXTS));
    expect(err.code).toBe('OCTX_EMBEDDER_RESPONSE_INVALID');
    expect(err.message).toContain('redirects');
    expect(main.received.length).toBeLessThanOrEqual(6);
  });
});

/** Runs `task`, sampling the process RSS; returns the error, the time taken and the RSS growth. */
async function measured(task: () => Promise<unknown>): Promise<{ err: OctxError; ms: number; rssGrowth: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const started = performance.now();
  try {
    const err = await failure(task());
    return { err, ms: performance.now() - started, rssGrowth: Math.max(peak, process.memoryUsage.rss()) - before };
  } finally {
    clearInterval(sampler);
  }
}

const MIB = 1 << 20;

describe('HttpEmbedder: the response-size cap', () => {
  const spaces = Buffer.alloc(64 * 1024, 0x20);
  const gzipMember = gzipSync(Buffer.alloc(MIB, 0x20), { level: 9 });
  const bodies: [string, (res: ServerResponse) => Promise<void>][] = [
    ['an endless chunked body', (res) => (res.writeHead(200, { 'content-type': 'application/json' }), writeRepeatedly(res, spaces))],
    ['a 500 MB body with its length declared', (res) => (res.writeHead(200, { 'content-length': String(500 * 1000 * 1000) }), writeRepeatedly(res, spaces, 500 * 1000 * 1000))],
    // gzip members may follow one another: each 1 MiB of spaces is about 1 KB, for ever.
    ['an endless gzip bomb', (res) => (res.writeHead(200, { 'content-encoding': 'gzip' }), writeRepeatedly(res, gzipMember))],
    ['a brotli bomb (512 MiB in about 1 KB)', async (res) => void res.writeHead(200, { 'content-encoding': 'br', 'content-length': String(brotliBomb.length) }).end(brotliBomb)],
  ];
  for (const [name, send] of bodies) {
    it(`stops ${name} at the cap: typed, within seconds, with bounded memory`, async () => {
      main.handler = (_r, res) => send(res);
      const { err, ms, rssGrowth } = await measured(() => embedder().embed(['one text']));
      expect(err.code).toBe('OCTX_EMBEDDER_RESPONSE_INVALID');
      expect(err.message).toMatch(/more than [\d,]+ bytes/);
      expect(ms).toBeLessThan(5_000);
      expect(rssGrowth).toBeLessThan(100 * MIB);
    });
  }

  it('takes maxResponseBytes as the cap, and counts bytes after decompression', async () => {
    const body = answer(TEXTS);
    main.handler = (_r, res) => void res.writeHead(200, { 'content-encoding': 'br' }).end(brotliCompressSync(body));
    expect(Array.from((await embedder({ maxResponseBytes: body.length }).embed(TEXTS))[0]!)).toEqual(f32(vectorOf('alpha')));
    const err = await failure(embedder({ maxResponseBytes: body.length - 1 }).embed(TEXTS));
    expect(err.message).toContain(`more than ${(body.length - 1).toLocaleString('en-US')} bytes`);
    expect(() => embedder({ maxResponseBytes: 0 })).toThrow(/maxResponseBytes/);
  });

  it('bounds the body of an error status too', async () => {
    main.handler = (_r, res) => (res.writeHead(500), writeRepeatedly(res, spaces));
    const { err, ms, rssGrowth } = await measured(() => embedder().embed(['one text']));
    expect(err.code).toBe('OCTX_EMBEDDER_FAILED');
    expect(err.message).toContain('HTTP 500');
    expect(ms).toBeLessThan(5_000);
    expect(rssGrowth).toBeLessThan(100 * MIB);
  });
});

describe('HttpEmbedder: failures name the URL and the records, never the key', () => {
  const items = (n: number): EmbedItem[] => Array.from({ length: n }, (_, i) => ({ id: `id-${i}`, text: `t${i}` }));

  for (const dimensions of [8, undefined]) {
    it(`a 401 ${dimensions === undefined ? 'without' : 'with'} dimensions`, async () => {
      // The server echoes the key it was sent, as some do: it must not reach the message.
      main.handler = (r, res) => void res.writeHead(401).end(`bad key ${String(r.headers['api-key'])} / ${String(r.headers.authorization)}`);
      const e = embedder({ dimensions, baseURL: `${main.baseURL}?api-version=2024-02-01&key=qs-secret` });
      const err = await failure(embedAll({ items: items(12), embedder: e, batchSize: 12, onBatch: () => undefined }));
      expect(err.code).toBe('OCTX_EMBEDDER_FAILED');
      expect(err.message).toContain('HTTP 401');
      expect(err.message).toContain(`${main.baseURL}/embeddings`);
      expect(err.message).toMatch(/12 records: id-0, id-1, id-2, id-3, id-4, … and 7 more/);
      for (const secret of [KEY, AZURE_KEY, 'qs-secret']) expect(JSON.stringify([err.message, err.issues, err.report])).not.toContain(secret);
      expect(main.received[0]!.path).toBe('/v1/embeddings?api-version=2024-02-01&key=qs-secret');
    });
  }

  it('a refused connection names the URL and the records', async () => {
    const gone = await startEmbeddingsServer();
    await gone.close();
    const err = await failure(embedAll({ items: items(2), embedder: embedder({ baseURL: gone.baseURL }), onBatch: () => undefined }));
    expect(err.code).toBe('OCTX_EMBEDDER_FAILED');
    expect(err.message).toContain(`${gone.baseURL}/embeddings`);
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(err.message).toContain('2 records: id-0, id-1');
  });

  it('a timeout names the URL', async () => {
    main.handler = () => new Promise((r) => setTimeout(r, 1_000));
    const err = await failure(embedder({ timeoutMs: 100 }).embed(['slow']));
    expect(err.message).toContain(`${main.baseURL}/embeddings`);
    expect(err.message).toContain('within 100 ms');
  });

  it('the probe of builder.embed (no dimensions given) names the URL and says it ran before any record', async () => {
    main.handler = (_r, res) => void res.writeHead(403).end();
    const doc = newId();
    const builder = new PackageBuilder({ asset: { name: 'x' }, release: { version: '1.0.0' } })
      .addDocument({ path: 'a.md', markdown: `---\ntype: Guide\ntitle: A\noctx:\n  document_id: ${doc}\n---\n\n# A\n` })
      .addChunk({ id: newId(), document_id: doc, ordinal: 0, text: 'hello' });
    try {
      const err = await failure(builder.embed('chunks', embedder({ dimensions: undefined, normalized: undefined })));
      expect(err.code).toBe('OCTX_EMBEDDER_FAILED');
      expect(err.message).toContain(`${main.baseURL}/embeddings`);
      expect(err.message).toContain('probe');
    } finally {
      await builder.dispose();
    }
  });

  it('refuses a baseURL with credentials without echoing them', () => {
    const err = (() => {
      try {
        embedder({ baseURL: 'http://user:hunter2@127.0.0.1:1/v1' });
      } catch (e) {
        return e as OctxError;
      }
    })();
    expect(err?.code).toBe('OCTX_OPTIONS_INVALID');
    expect(err?.message).not.toContain('hunter2');
  });
});
