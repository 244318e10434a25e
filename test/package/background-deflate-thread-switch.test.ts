/**
 * When a builder's background compression moves from the libuv pool to the compressing thread
 * (issue 23): after THREAD_AFTER_BYTES spilled, text and vectors alike, or after THREAD_AFTER_JOBS jobs.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PackageBuilder } from '../../src/index.js';
import { inflateRawSync } from 'node:zlib';
import { BackgroundDeflate } from '../../src/package/background-deflate.js';
import { DEFLATE_END } from '../../src/package/deflate-block.js';

const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

afterEach(() => vi.restoreAllMocks());

describe('BackgroundDeflate: pool, then thread', () => {
  it('moves to the thread once the text it compressed and the bytes counted reach the threshold', async () => {
    const background = new BackgroundDeflate({ level: 6, threadAfterBytes: 1000 });
    expect(background.onThread).toBe(false);
    const done: (Buffer | undefined)[] = [];
    expect(background.trySubmit(Buffer.alloc(600, 'a'), undefined, (_, out) => done.push(out))).toBe(true);
    expect(background.onThread).toBe(false);
    // Vector bytes, say: not compressed here, but they count.
    background.countSpilled(399);
    expect(background.onThread).toBe(false);
    background.countSpilled(1);
    expect(background.onThread).toBe(true);
    await background.settle();
    expect(done).toHaveLength(1);
  });

  it('moves to the thread after threadAfterJobs jobs, however small (a tree of many small pages)', async () => {
    const background = new BackgroundDeflate({ level: 6, threadAfterJobs: 3 });
    const done: (Buffer | undefined)[] = [];
    const page = (n: number): Buffer => Buffer.from(`---\ntitle: Page ${n}\n---\n# Page ${n}\n`);
    // Each result by its page: pool jobs run on several libuv threads and finish in any order.
    for (let n = 0; n < 3; n++) {
      expect(background.onThread).toBe(false);
      expect(background.trySubmit(page(n), undefined, (_, out) => (done[n] = out))).toBe(true);
    }
    expect(background.onThread).toBe(true);
    expect(background.trySubmit(page(3), undefined, (_, out) => (done[3] = out))).toBe(true);
    await background.settle();
    // Pool or thread, each block is the same raw DEFLATE of its page.
    expect(done.map((out) => inflateRawSync(Buffer.concat([out!, DEFLATE_END])).toString())).toEqual([0, 1, 2, 3].map((n) => page(n).toString()));
  });

  it('is on the thread from the start with threadAfterBytes 0', () => {
    expect(new BackgroundDeflate({ level: 6, threadAfterBytes: 0 }).onThread).toBe(true);
  });
});

describe('PackageBuilder counts its vectors', () => {
  it('as dimensions × 4 bytes each', async () => {
    const counted = vi.spyOn(BackgroundDeflate.prototype, 'countSpilled');
    const doc = id(0xd0c);
    const b = new PackageBuilder({ asset: { id: id(1), name: 'Handbook' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } })
      .addDocument({ path: 'a.md', markdown: `---\ntype: Reference\ntitle: A\noctx:\n  document_id: ${doc}\n---\n\n# A\n` })
      .setVectorConfig({ model: 'm', dimensions: 3, normalized: false })
      .addChunk({ id: id(0x10), document_id: doc, ordinal: 0, text: 'x' })
      .addVector('chunks', id(0x10), [1, 0, 0]);
    expect(counted).toHaveBeenCalledWith(12);
    await b.dispose();
  });
});
