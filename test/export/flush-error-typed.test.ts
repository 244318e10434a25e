/**
 * A writeback error reported by the background flush (`startFlush`) fails the export, as it must,
 * with a typed error (`OCTX_IO_ERROR`, the output path) like every other I/O failure of an export,
 * not a bare Node error (found by the issue 23 review).
 */
import { existsSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { PackageBuilder, isOctxError } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';

describe('export: the background flush fails', () => {
  it('fails the export with OCTX_IO_ERROR and publishes nothing', async () => {
    const probe = await open(join(tempDir(), 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    const real = proto.sync;
    let calls = 0;
    const eio = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', syscall: 'fsync' });
    vi.spyOn(proto, 'sync').mockImplementation(function (this: unknown) {
      calls += 1;
      return calls === 1 ? Promise.reject(eio) : real.call(this);
    });
    const dir = tempDir();
    const out = join(dir, 'h.octx');
    const b = new PackageBuilder({ asset: { name: 'H' }, release: { version: '1.0.0' } });
    b.addDocument({ path: 'guide.md', markdown: '# Guide\n\nBody.\n' });
    let error: unknown;
    try {
      await b.export({ output: out });
    } catch (e) {
      error = e;
    }
    vi.restoreAllMocks();
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    expect(isOctxError(error), `got ${String(error)}`).toBe(true);
    expect((error as { code?: string }).code).toBe('OCTX_IO_ERROR');
    expect((error as Error).message).toContain(out);
  });
});
