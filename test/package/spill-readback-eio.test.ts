/**
 * The background's read-back of a block from the raw file is an optimisation (the block can be
 * compressed at export from the same file). When that read fails (EIO), the caller's write has
 * already succeeded: the bytes are on disk, hashed and cut (found by the issue 23 review).
 */
import type * as Fs from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { segmentBytes } from '../helpers/spill.js';

const fault = vi.hoisted(() => ({ failReads: 0 }));
vi.mock('node:fs', async (importActual) => {
  const actual = await importActual<typeof Fs>();
  const readSync = ((...args: Parameters<typeof actual.readSync>) => {
    if (fault.failReads > 0) {
      fault.failReads--;
      throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', errno: -5, syscall: 'read' });
    }
    return actual.readSync(...args);
  }) as typeof actual.readSync;
  return { ...actual, default: { ...actual, readSync }, readSync };
});

const { BackgroundDeflate } = await import('../../src/package/background-deflate.js');
const { BLOCK_BYTES } = await import('../../src/package/deflate-block.js');
const { PayloadSpill } = await import('../../src/package/payload-spill.js');
const { tempDir } = await import('../helpers/temp.js');

describe('PayloadSpill: EIO on the background read-back', () => {
  it('does not fail a write whose bytes are on disk: the block is left for compress()', async () => {
    const dir = tempDir();
    const spill = new PayloadSpill({ rawFile: join(dir, 'raw'), deflatedFile: join(dir, 'def'), background: new BackgroundDeflate({ level: 6 }) });
    const raw = Buffer.from('the river at red cliffs '.repeat(Math.ceil((2 * BLOCK_BYTES + 10) / 24)));
    fault.failReads = 1;
    let thrown: unknown;
    try {
      spill.write(raw);
    } catch (e) {
      thrown = e;
    }
    const entry = spill.endEntry();
    // It used to throw OCTX_IO_ERROR (which poisons a PackageBuilder), though the raw file held
    // every byte and the entry was complete.
    expect(thrown, `write threw ${(thrown as { code?: string })?.code}`).toBeUndefined();
    await spill.compress([entry], 6);
    const stream = segmentBytes(spill.segments(entry, 'deflate', 6));
    spill.close();
    expect(inflateRawSync(stream).equals(raw)).toBe(true);
  });
});
