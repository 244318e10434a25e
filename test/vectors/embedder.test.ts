import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { OctxError } from '../../src/model/errors.js';
import type { VectorConfigInput } from '../../src/vectors/config.js';
import type { EmbedItem, EmbeddedVector, Embedder } from '../../src/vectors/embedder.js';
import { embedAll } from '../../src/vectors/embedder.js';

const config: VectorConfigInput = { model: 'test/fake', dimensions: 2, normalized: false };

/** Vector for a text "t<n>": [n, -n], so order mistakes are visible. */
function vec(text: string): number[] {
  const n = Number(text.slice(1));
  return [n, -n];
}

function items(n: number): EmbedItem[] {
  return Array.from({ length: n }, (_, i) => ({ id: `id-${i}`, text: `t${i}` }));
}

class FakeEmbedder implements Embedder {
  readonly config = config;
  calls = 0;
  active = 0;
  maxActive = 0;
  constructor(private readonly impl: (texts: string[], call: number, signal?: AbortSignal) => Promise<EmbeddedVector[]>) {}
  async embed(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]> {
    const call = this.calls++;
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      return (await this.impl(texts, call, options?.signal)) as number[][];
    } finally {
      this.active--;
    }
  }
}

async function rejection(p: Promise<unknown>): Promise<OctxError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof OctxError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

describe('embedAll', () => {
  it('delivers batches in input order with concurrency 3 even when calls finish out of order', async () => {
    // Earlier calls are slower, so they finish after later ones.
    const embedder = new FakeEmbedder(async (texts, call) => {
      await sleep(call % 3 === 0 ? 30 : call % 3 === 1 ? 15 : 1);
      return texts.map(vec);
    });
    const delivered: string[][] = [];
    const vectors: EmbeddedVector[] = [];
    const progress: number[] = [];
    const result = await embedAll({
      items: items(23),
      embedder,
      batchSize: 4,
      concurrency: 3,
      onBatch: (ids, vs) => {
        delivered.push(ids);
        vectors.push(...vs);
      },
      onProgress: (done) => progress.push(done),
    });
    expect(result).toEqual({ embedded: 23 });
    expect(delivered.map((b) => b.length)).toEqual([4, 4, 4, 4, 4, 3]);
    expect(delivered.flat()).toEqual(items(23).map((i) => i.id));
    expect(vectors).toEqual(items(23).map((i) => vec(i.text)));
    expect(progress).toEqual([4, 8, 12, 16, 20, 23]);
    expect(embedder.maxActive).toBe(3);
    expect(embedder.calls).toBe(6);
  });

  it('pulls the input lazily: at most concurrency × 2 batches ahead of delivery', async () => {
    let pulled = 0;
    let delivered = 0;
    let maxAhead = 0;
    function* source(): Generator<EmbedItem> {
      for (let i = 0; i < 200; i++) {
        pulled++;
        maxAhead = Math.max(maxAhead, pulled - delivered);
        yield { id: `id-${i}`, text: `t${i}` };
      }
    }
    const embedder = new FakeEmbedder(async (texts, call) => {
      await sleep(call % 2 === 0 ? 5 : 1);
      return texts.map(vec);
    });
    await embedAll({ items: source(), embedder, batchSize: 5, concurrency: 2, onBatch: (ids) => (delivered += ids.length) });
    expect(delivered).toBe(200);
    // 2 × 2 batches of 5 waiting, plus the item being read into the next batch.
    expect(maxAhead).toBeLessThanOrEqual(2 * 2 * 5 + 5);
  });

  it('accepts an async iterable and an empty input', async () => {
    async function* source(): AsyncGenerator<EmbedItem> {
      for (const it of items(5)) {
        await sleep(0);
        yield it;
      }
    }
    const got: string[] = [];
    const embedder = new FakeEmbedder(async (texts) => texts.map(vec));
    expect(await embedAll({ items: source(), embedder, batchSize: 2, onBatch: (ids) => got.push(...ids) })).toEqual({ embedded: 5 });
    expect(got).toEqual(items(5).map((i) => i.id));
    expect(await embedAll({ items: [], embedder, onBatch: () => undefined })).toEqual({ embedded: 0 });
  });

  it('retries transient failures with backoff (fails twice, then succeeds)', async () => {
    const embedder = new FakeEmbedder(async (texts, call) => {
      if (call < 2) throw new Error(`flaky ${call}`);
      return texts.map(vec);
    });
    const started = Date.now();
    const got: string[] = [];
    const r = await embedAll({ items: items(3), embedder, batchSize: 10, retries: 3, retryDelayMs: 10, onBatch: (ids) => got.push(...ids) });
    expect(r.embedded).toBe(3);
    expect(got).toEqual(['id-0', 'id-1', 'id-2']);
    expect(embedder.calls).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(10 + 20 - 2); // 10 ms, then 20 ms
  });

  it('gives up after the last retry with OCTX_EMBEDDER_FAILED and the cause', async () => {
    const boom = new Error('service unavailable');
    const embedder = new FakeEmbedder(async () => {
      throw boom;
    });
    const e = await rejection(embedAll({ items: items(3), embedder, retries: 2, retryDelayMs: 1, onBatch: () => undefined }));
    expect(e.code).toBe('OCTX_EMBEDDER_FAILED');
    expect(e.cause).toBe(boom);
    expect(e.message).toContain('service unavailable');
    expect(e.message).toContain('3 attempts');
    expect(e.issues[0]?.recordId).toBe('id-0');
    expect(embedder.calls).toBe(3);
  });

  it('treats an OctxError from the embedder as permanent', async () => {
    const embedder = new FakeEmbedder(async () => {
      throw OctxError.of({ code: 'OCTX_EMBEDDER_FAILED', message: 'empty text' });
    });
    const e = await rejection(embedAll({ items: items(2), embedder, retryDelayMs: 1, onBatch: () => undefined }));
    expect(e.message).toContain('empty text');
    expect(embedder.calls).toBe(1);
  });

  it('refuses a result with the wrong number of vectors (not retried)', async () => {
    const embedder = new FakeEmbedder(async (texts) => texts.slice(1).map(vec));
    const e = await rejection(embedAll({ items: items(4), embedder, batchSize: 4, retryDelayMs: 1, onBatch: () => undefined }));
    expect(e.code).toBe('OCTX_EMBEDDER_FAILED');
    expect(e.message).toContain('3 vectors for 4 texts');
    expect(embedder.calls).toBe(1);
    const notVectors = new FakeEmbedder(async (texts) => texts.map(() => 'x' as unknown as number[]));
    expect((await rejection(embedAll({ items: items(1), embedder: notVectors, onBatch: () => undefined }))).code).toBe('OCTX_EMBEDDER_FAILED');
  });

  it('stops on an error thrown by onBatch and never calls it again', async () => {
    const embedder = new FakeEmbedder(async (texts) => texts.map(vec));
    let calls = 0;
    const failure = OctxError.of({ code: 'OCTX_VECTOR_VALUE_INVALID', message: 'bad vector' });
    const e = await rejection(
      embedAll({
        items: items(20),
        embedder,
        batchSize: 2,
        concurrency: 3,
        onBatch: () => {
          calls++;
          if (calls === 2) throw failure;
        },
      }),
    );
    expect(e).toBe(failure);
    await sleep(20);
    expect(calls).toBe(2);
  });

  it('aborts: running calls see the signal, the promise rejects with OCTX_ABORTED, nothing is delivered later', async () => {
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const embedder = new FakeEmbedder(async (texts, call, signal) => {
      if (signal) signals.push(signal);
      if (call === 0) return texts.map(vec);
      await sleep(1000, undefined, signal ? { signal } : {});
      return texts.map(vec);
    });
    const batches: string[][] = [];
    const p = embedAll({
      items: items(20),
      embedder,
      batchSize: 2,
      concurrency: 2,
      signal: controller.signal,
      onBatch: (ids) => {
        batches.push(ids);
        setTimeout(() => controller.abort(new Error('stop')), 5);
      },
    });
    const e = await rejection(p);
    expect(e.code).toBe('OCTX_ABORTED');
    expect((e.cause as Error).message).toBe('stop');
    expect(batches).toEqual([['id-0', 'id-1']]);
    expect(signals.some((s) => s.aborted)).toBe(true);
    await sleep(20);
    expect(batches).toHaveLength(1);
  });

  it('aborts during a retry delay and before starting', async () => {
    const controller = new AbortController();
    const embedder = new FakeEmbedder(async () => {
      setTimeout(() => controller.abort(), 5);
      throw new Error('flaky');
    });
    const started = Date.now();
    const e = await rejection(embedAll({ items: items(1), embedder, retryDelayMs: 10_000, signal: controller.signal, onBatch: () => undefined }));
    expect(e.code).toBe('OCTX_ABORTED');
    expect(Date.now() - started).toBeLessThan(5000);

    const already = AbortSignal.abort();
    const idle = new FakeEmbedder(async (texts) => texts.map(vec));
    expect((await rejection(embedAll({ items: items(3), embedder: idle, signal: already, onBatch: () => undefined }))).code).toBe('OCTX_ABORTED');
    expect(idle.calls).toBe(0);
  });

  it('validates its options and items', async () => {
    const embedder = new FakeEmbedder(async (texts) => texts.map(vec));
    const bad = async (extra: Record<string, unknown>): Promise<string> => (await rejection(embedAll({ items: items(1), embedder, onBatch: () => undefined, ...extra }))).code;
    expect(await bad({ batchSize: 0 })).toBe('OCTX_OPTIONS_INVALID');
    expect(await bad({ concurrency: 1.5 })).toBe('OCTX_OPTIONS_INVALID');
    expect(await bad({ retries: -1 })).toBe('OCTX_OPTIONS_INVALID');
    expect(await bad({ retryDelayMs: Number.NaN })).toBe('OCTX_OPTIONS_INVALID');
    const e = await rejection(embedAll({ items: [{ id: 'a', text: 3 } as unknown as EmbedItem], embedder, onBatch: () => undefined }));
    expect(e.code).toBe('OCTX_OPTIONS_INVALID');
  });
});
