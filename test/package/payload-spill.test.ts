import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BackgroundDeflate } from '../../src/package/background-deflate.js';
import { BLOCK_BYTES, DEFLATE_END } from '../../src/package/deflate-block.js';
import { deflateBlockSync } from '../helpers/deflate.js';
import { PayloadSpill, type SpilledEntry } from '../../src/package/payload-spill.js';
import { tempDir } from '../helpers/temp.js';
import { mixedText, segmentBytes } from '../helpers/spill.js';

function spillIn(dir: string, background?: BackgroundDeflate): PayloadSpill {
  return new PayloadSpill({ rawFile: join(dir, 'raw'), deflatedFile: join(dir, 'deflated'), ...(background ? { background } : {}) });
}

describe('deflate blocks', () => {
  it('sync-flushed blocks primed with the previous 32 KiB concatenate into one stream that inflates to the input', () => {
    const raw = mixedText(3 * BLOCK_BYTES + 12345);
    const blocks: Buffer[] = [];
    for (let off = 0; off < raw.length; off += BLOCK_BYTES) {
      const dictionary = off === 0 ? undefined : raw.subarray(Math.max(0, off - 32768), off);
      blocks.push(deflateBlockSync(raw.subarray(off, off + BLOCK_BYTES), dictionary, 6));
    }
    const stream = Buffer.concat([...blocks, DEFLATE_END]);
    expect(inflateRawSync(stream).equals(raw)).toBe(true);
    // Within 1 % of one-shot deflate: the dictionary keeps the ratio.
    expect(stream.length / deflateRawSync(raw, { level: 6 }).length).toBeLessThan(1.01);
  });

  it('ends an empty entry with the final empty block alone', () => {
    expect(inflateRawSync(DEFLATE_END)).toHaveLength(0);
  });
});

describe('PayloadSpill', () => {
  it('hashes each entry once as it is written: size, SHA-256 and CRC-32 of its raw bytes', () => {
    const dir = tempDir();
    const spill = spillIn(dir);
    const a = mixedText(5000, 1);
    const b = mixedText(2 * BLOCK_BYTES + 7, 2);
    spill.write(a);
    const ea = spill.endEntry();
    spill.write(b.subarray(0, 100));
    spill.write(b.subarray(100));
    const eb = spill.endEntry();
    spill.close();
    expect(ea).toMatchObject({ rawOffset: 0, size: a.length, sha256: createHash('sha256').update(a).digest('hex'), crc32: crc32(a), firstBlock: 0, endBlock: 1 });
    expect(eb).toMatchObject({ rawOffset: a.length, size: b.length, sha256: createHash('sha256').update(b).digest('hex'), crc32: crc32(b), firstBlock: 1, endBlock: 4 });
    expect(segmentBytes(spill.segments(eb, 'store', 6)).equals(b)).toBe(true);
  });

  it('compresses at export what the background did not, and each entry inflates on its own', async () => {
    const dir = tempDir();
    const spill = spillIn(dir);
    const inputs = [mixedText(3 * BLOCK_BYTES, 3), mixedText(10, 4), Buffer.alloc(0), mixedText(BLOCK_BYTES + 1, 5)];
    const entries: SpilledEntry[] = inputs.map((buf) => {
      spill.write(buf);
      return spill.endEntry();
    });
    await spill.compress(entries, 6);
    for (const [i, e] of entries.entries()) {
      const stream = segmentBytes(spill.segments(e, 'deflate', 6));
      expect(stream.length).toBe(spill.deflatedSize(e, 6));
      expect(inflateRawSync(stream).equals(inputs[i]!)).toBe(true);
    }
    spill.close();
  });

  it('refuses to hand out blocks that are not compressed at the requested level', async () => {
    const dir = tempDir();
    const spill = spillIn(dir);
    spill.write(mixedText(1000));
    const e = spill.endEntry();
    expect(() => spill.deflatedSize(e, 6)).toThrow(/not compressed at level 6/);
    await spill.compress([e], 6);
    expect(() => spill.segments(e, 'deflate', 9)).toThrow(/not compressed at level 9/);
    spill.close();
  });

  it('compresses in the background while the caller writes, within its memory bound, with the same bytes as at export', async () => {
    const inputs = Array.from({ length: 12 }, (_, i) => mixedText(BLOCK_BYTES / 2 + i * 1000, i + 10));
    const streams = async (background: BackgroundDeflate | undefined): Promise<{ streams: Buffer[]; deflatedBefore: number; deflatedAfter: number; maxInFlight: number }> => {
      const dir = tempDir();
      const spill = spillIn(dir, background);
      let maxInFlight = 0;
      const entries = inputs.map((buf) => {
        spill.write(buf);
        maxInFlight = Math.max(maxInFlight, background?.inFlightBytes ?? 0);
        return spill.endEntry();
      });
      await background?.settle();
      const size = (): number => {
        try {
          return statSync(join(dir, 'deflated')).size;
        } catch {
          return 0;
        }
      };
      const deflatedBefore = size();
      await spill.compress(entries, 6);
      const deflatedAfter = size();
      const out = entries.map((e) => segmentBytes(spill.segments(e, 'deflate', 6)));
      spill.close();
      return { streams: out, deflatedBefore, deflatedAfter, maxInFlight };
    };
    const bound = 2 * BLOCK_BYTES;
    const withBackground = await streams(new BackgroundDeflate({ level: 6, maxInFlightBytes: bound }));
    const atExport = await streams(undefined);
    // Same bytes whichever thread compressed them, so archives stay reproducible.
    expect(withBackground.streams.map((s) => s.toString('base64'))).toEqual(atExport.streams.map((s) => s.toString('base64')));
    // The synchronous loop never yielded: the bound stopped new jobs, export compressed the rest.
    expect(withBackground.maxInFlight).toBeLessThanOrEqual(bound);
    expect(withBackground.deflatedBefore).toBeGreaterThan(0);
    expect(withBackground.deflatedAfter).toBeGreaterThan(withBackground.deflatedBefore);
    expect(atExport.deflatedBefore).toBe(0);
  });

  it('leaves nothing for export when the caller drains', async () => {
    const dir = tempDir();
    const background = new BackgroundDeflate({ level: 6, maxInFlightBytes: 2 * BLOCK_BYTES });
    const spill = spillIn(dir, background);
    const entries: SpilledEntry[] = [];
    for (let i = 0; i < 10; i++) {
      spill.write(mixedText(BLOCK_BYTES / 2, i));
      entries.push(spill.endEntry());
      await background.drain();
    }
    await background.settle();
    const before = statSync(join(dir, 'deflated')).size;
    await spill.compress(entries, 6);
    expect(statSync(join(dir, 'deflated')).size).toBe(before);
    // Another level means compressing again, from the raw bytes.
    await spill.compress(entries, 1);
    expect(statSync(join(dir, 'deflated')).size).toBeGreaterThan(before);
    expect(inflateRawSync(segmentBytes(spill.segments(entries[3]!, 'deflate', 1))).equals(mixedText(BLOCK_BYTES / 2, 3))).toBe(true);
    spill.close();
  });

  it('snapshots a growing entry without ending it', async () => {
    const dir = tempDir();
    const spill = spillIn(dir);
    const first = mixedText(300_000, 7);
    const more = mixedText(BLOCK_BYTES, 8);
    spill.write(first);
    const s1 = spill.snapshot();
    spill.write(more);
    const s2 = spill.snapshot();
    await spill.compress([s1, s2], 6);
    const all = Buffer.concat([first, more]);
    expect(s1).toMatchObject({ size: first.length, sha256: createHash('sha256').update(first).digest('hex') });
    expect(s2).toMatchObject({ rawOffset: 0, size: all.length, crc32: crc32(all), sha256: createHash('sha256').update(all).digest('hex') });
    expect(inflateRawSync(segmentBytes(spill.segments(s1, 'deflate', 6))).equals(first)).toBe(true);
    expect(inflateRawSync(segmentBytes(spill.segments(s2, 'deflate', 6))).equals(all)).toBe(true);
    spill.close();
  });

  it('keeps no reference to written buffers: the caller may reuse one at once (issue 23, memory)', async () => {
    // Blocks going to the background compressor are read back from the raw file, so a spill holds
    // no raw bytes between cuts; a buffer overwritten right after write() must not change a byte.
    const dir = tempDir();
    const background = new BackgroundDeflate({ level: 6 });
    const spill = spillIn(dir, background);
    const raw = mixedText(3 * BLOCK_BYTES + 777, 21);
    const scratch = Buffer.alloc(100_000);
    for (let off = 0; off < raw.length; off += scratch.length) {
      const n = raw.copy(scratch, 0, off, Math.min(raw.length, off + scratch.length));
      spill.write(scratch.subarray(0, n));
      scratch.fill(0x41); // reused before any background job has run
    }
    const entry = spill.endEntry();
    await background.settle();
    await spill.compress([entry], 6);
    expect(entry).toMatchObject({ size: raw.length, sha256: createHash('sha256').update(raw).digest('hex'), crc32: crc32(raw) });
    expect(inflateRawSync(segmentBytes(spill.segments(entry, 'deflate', 6))).equals(raw)).toBe(true);
    // The background did compress blocks (the test is about its input, not the export path).
    expect(statSync(join(dir, 'deflated')).size).toBeGreaterThan(0);
    spill.close();
  });

  it('cancels compression at export with OCTX_ABORTED', async () => {
    const dir = tempDir();
    const spill = spillIn(dir);
    spill.write(mixedText(3 * BLOCK_BYTES));
    const e = spill.endEntry();
    await expect(spill.compress([e], 6, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'OCTX_ABORTED' });
    spill.close();
  });
});

describe('BackgroundDeflate memory bound (review)', () => {
  it('bounds the jobs in flight, not only their raw bytes: each job holds ~256 KiB of zlib state', async () => {
    // Every deflateRaw() call allocates its zlib context (window 64 KiB + prev 64 KiB + head 64 KiB
    // + pending 64 KiB at windowBits 15 / memLevel 8, plus a 16 KiB output chunk) when it is
    // submitted, not when the pool thread picks it up. Small documents are one tiny block each, so
    // a raw-bytes-only bound admits thousands of jobs: 8,000 ~70-byte documents added in a sync
    // loop peaked at 1.9 GB RSS (207 MB at level 0), 40,000 x 200 B at 8.6 GB.
    const background = new BackgroundDeflate({ level: 6 });
    let started = 0;
    for (let i = 0; i < 300; i++) if (background.trySubmit(Buffer.from(`# Doc ${i}\n\nA short document.\n`), undefined, () => undefined)) started++;
    await background.settle();
    // The default 16 MiB bound cannot pay for more than 64 zlib contexts of 256 KiB.
    expect(started).toBeLessThanOrEqual(64);
  });

  it('hasRoomFor answers what trySubmit would do, and always admits a first job', async () => {
    const background = new BackgroundDeflate({ level: 6, maxInFlightBytes: 1.5 * BLOCK_BYTES });
    expect(background.hasRoomFor(4 * BLOCK_BYTES)).toBe(true); // nothing in flight: one job always starts
    expect(background.trySubmit(mixedText(BLOCK_BYTES / 2), undefined, () => undefined)).toBe(true);
    expect(background.hasRoomFor(BLOCK_BYTES / 2)).toBe(false);
    expect(background.trySubmit(mixedText(BLOCK_BYTES / 2), undefined, () => undefined)).toBe(false);
    expect(background.hasRoomFor(1000)).toBe(true);
    expect(background.trySubmit(Buffer.from('x'.repeat(1000)), undefined, () => undefined)).toBe(true);
    await background.settle();
    expect(background.inFlightBytes).toBe(0);
  });
});
