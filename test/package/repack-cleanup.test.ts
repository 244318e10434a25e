import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OctxError, PackageBuilder, repackPackage } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';

/** Paths this process has open (Linux). */
function openPaths(): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      out.push(readlinkSync(join('/proc/self/fd', fd)));
    } catch {
      /* closed meanwhile */
    }
  }
  return out;
}

describe('repackPackage cleanup', () => {
  it.runIf(process.platform === 'linux')('closes the source and reports an OctxError when the staging folder cannot be created', async () => {
    // repack.ts opens the source (openPackage) and then calls createSpillDir()/new PayloadSpill()
    // before its try/finally: when they throw, the source descriptor is never closed and the raw
    // ENOENT escapes instead of an OctxError.
    const dir = tempDir();
    const src = join(dir, 'src.octx');
    await new PackageBuilder({ asset: { id: '019c0000-0000-7000-8000-000000000001', name: 'X' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } })
      .addDocument({ path: 'a.md', markdown: '# A\n\nhello\n' })
      .export({ output: src });
    const error = await repackPackage(src, join(dir, 'out.octx'), { tempDir: join(dir, 'missing') }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    expect(openPaths()).not.toContain(src);
    expect(error).toBeInstanceOf(OctxError);
  });

  it('refuses a compression level outside 0–9 before doing anything', async () => {
    const dir = tempDir();
    await expect(repackPackage(join(dir, 'missing.octx'), join(dir, 'out.octx'), { compressionLevel: 10 })).rejects.toMatchObject({
      code: 'OCTX_OPTIONS_INVALID',
      issues: [expect.objectContaining({ field: 'compressionLevel' })],
    });
    expect(readdirSync(dir)).toEqual([]);
  });
});
