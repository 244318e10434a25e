/**
 * When a builder's background compression moves from the libuv pool to the compressing thread
 * (issue 23): after THREAD_AFTER_BYTES spilled, text and vectors alike.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PackageBuilder } from '../../src/index.js';
import { BackgroundDeflate } from '../../src/package/background-deflate.js';

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
