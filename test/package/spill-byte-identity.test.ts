/**
 * A spill's DEFLATE streams are the same bytes whatever compressed its blocks
 * (no background, the libuv pool, the compressing thread, both across the threshold, a tiny
 * in-flight bound), whether the caller drains or not, at every level, for empty, tiny, exactly
 * BLOCK_BYTES and multi-block entries, and snapshot tails.
 */
// @module-tag heavy (54 compressions of 8 MiB each: seconds of CPU, not an inner-loop test)
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BackgroundDeflate } from '../../src/package/background-deflate.js';
import { BLOCK_BYTES } from '../../src/package/deflate-block.js';
import { PayloadSpill, type SpilledEntry } from '../../src/package/payload-spill.js';
import { tempDir } from '../helpers/temp.js';
import { mixedText, segmentBytes } from '../helpers/spill.js';

const SIZES = [0, 1, 4095, 4096, BLOCK_BYTES - 1, BLOCK_BYTES, BLOCK_BYTES + 1, 2 * BLOCK_BYTES, 3 * BLOCK_BYTES + 777];
const WRITE = [1000, 65_536, BLOCK_BYTES + 3];
// The inputs, made once: every path at every level compresses the same texts (making them is
// about as slow as compressing them).
const TEXTS = SIZES.map((size, i) => mixedText(size, i + 1));

interface Path {
  readonly name: string;
  readonly background: (level: number) => BackgroundDeflate | undefined;
  readonly drain: boolean;
}

const PATHS: Path[] = [
  { name: 'none', background: () => undefined, drain: false },
  { name: 'pool', background: (level) => new BackgroundDeflate({ level, threadAfterBytes: Number.MAX_SAFE_INTEGER }), drain: true },
  { name: 'thread', background: (level) => new BackgroundDeflate({ level, threadAfterBytes: 0 }), drain: true },
  { name: 'thread, no drain', background: (level) => new BackgroundDeflate({ level, threadAfterBytes: 0 }), drain: false },
  { name: 'mixed', background: (level) => new BackgroundDeflate({ level, threadAfterBytes: 2 * BLOCK_BYTES + 5 }), drain: true },
  { name: 'mixed, tiny bound', background: (level) => new BackgroundDeflate({ level, threadAfterBytes: BLOCK_BYTES, maxInFlightBytes: 1 }), drain: true },
];

async function run(dir: string, path: Path, level: number): Promise<Buffer[]> {
  const background = path.background(level);
  const spill = new PayloadSpill({ rawFile: join(dir, `${path.name}-${level}.raw`), deflatedFile: join(dir, `${path.name}-${level}.def`), background });
  const entries: SpilledEntry[] = [];
  for (const [i, size] of SIZES.entries()) {
    const raw = TEXTS[i]!;
    const step = WRITE[(i + 2) % WRITE.length]!;
    for (let o = 0; o < raw.length; o += step) {
      spill.write(raw.subarray(o, o + step));
      if (path.drain) await background?.drain();
    }
    // A snapshot of a growing entry (tail) too, then its end.
    if (size > 0) entries.push(spill.snapshot());
    entries.push(spill.endEntry());
  }
  await spill.compress(entries, level);
  const streams = entries.map((e) => segmentBytes(spill.segments(e, 'deflate', level)));
  spill.close();
  return streams;
}

describe('spill DEFLATE bytes do not depend on the compression path', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9])(
    'level %i',
    async (level) => {
      const dir = tempDir();
      const reference = await run(dir, PATHS[0]!, level);
      for (const path of PATHS.slice(1)) {
        const got = await run(dir, path, level);
        expect(got.length).toBe(reference.length);
        got.forEach((s, i) => expect(s.equals(reference[i]!), `${path.name}, entry ${i}`).toBe(true));
      }
      // And they inflate to the input.
      let k = 0;
      for (const [i, size] of SIZES.entries()) {
        const raw = TEXTS[i]!;
        if (size > 0) k++;
        expect(inflateRawSync(reference[k++]!).equals(raw)).toBe(true);
      }
    },
    120_000,
  );
});
