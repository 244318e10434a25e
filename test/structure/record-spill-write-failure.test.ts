/**
 * When a record spill's write fails in a flush (EIO, ENOSPC),
 * the lines buffered since the last flush are lost — on their own, the spill's `lines` then
 * count more lines than its file holds (as in 1fc0277). The builder must therefore never package
 * that state: after the failure every later `add*` and the export fail with `OCTX_IO_ERROR`.
 */
import type * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const io = vi.hoisted(() => ({ failNextSpillWrite: false }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  return {
    ...real,
    writeSync: (...args: Parameters<typeof real.writeSync>): number => {
      if (io.failNextSpillWrite && /payload-spill/.test(new Error().stack ?? '')) {
        io.failNextSpillWrite = false;
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      return (real.writeSync as (...a: Parameters<typeof real.writeSync>) => number)(...args);
    },
  };
});
const { PackageBuilder } = await import('../../src/index.js');

const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd0);

describe('a record spill write that fails', () => {
  it('poisons the builder: every later add and the export fail with OCTX_IO_ERROR', async () => {
    const b = new PackageBuilder({ asset: { id: id(1), name: 'E' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } }).addDocument({
      path: 'a.md',
      markdown: `---\noctx:\n  document_id: ${DOC}\n---\n# A\n\nOne.\n`,
    });
    const failed: number[] = [];
    for (let i = 0; i < 400; i++) {
      // Armed at 150: the next flush of the chunks spill (256 KiB of 2 KB lines, ~i = 240) fails.
      if (i === 150) io.failNextSpillWrite = true;
      try {
        b.addChunk({ id: id(0x10000 + i), document_id: DOC, ordinal: i, text: 'z'.repeat(2000) });
      } catch (e) {
        expect(e).toMatchObject({ code: 'OCTX_IO_ERROR', message: expect.stringMatching(/ENOSPC/) });
        failed.push(i);
      }
    }
    expect(failed.length).toBeGreaterThan(0);
    // Once one failed, all the later ones did too.
    expect(failed).toEqual(Array.from({ length: failed.length }, (_, k) => 400 - failed.length + k));
    await expect(b.export({ output: join(tempDir(), 'e.octx') })).rejects.toMatchObject({ code: 'OCTX_IO_ERROR' });
  });
});
