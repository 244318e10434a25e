/**
 * Issue 24, item 9: an export with a tiny `limits.maxCompressionRatio` (e.g. 1) wrote entries
 * deflated up to 100:1, then its own verification could not re-open the archive under that limit
 * and the export failed with `OCTX_INTEGRITY_ERROR`, as if the bytes were broken. The writer now
 * stores every entry that would deflate beyond the limit, and a limit the written archive still
 * breaks is reported as `OCTX_RESOURCE_LIMIT`.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PackageBuilder, isOctxError } from '../../src/index.js';
import { verifyArchive } from '../../src/export/verify-archive.js';
import { validatePackage } from '../../src/read/index.js';
import { inspectZip } from '../helpers/zip-inspect.js';
import { cleanupTempDirs, tempDir } from './helpers.js';

afterAll(cleanupTempDirs);

async function build(output: string, limits?: { maxCompressionRatio: number }): Promise<string> {
  const b = new PackageBuilder({ asset: { name: 'Ratio' } });
  b.addDocument({ path: 'a.md', markdown: `# A\n\n${'hello world '.repeat(4000)}\n` });
  const result = await b.export({ output, ...(limits ? { limits } : {}) });
  return result.packageDigest;
}

/** The ZIP method of every entry (0 stored, 8 deflated). */
const methods = (path: string): number[] => [...new Set(inspectZip(path).map((e) => e.method))];

describe('limits.maxCompressionRatio at export', () => {
  it('a ratio of 3 deflates only the entries that stay within 3:1', async () => {
    const out = join(await tempDir(), 'three.octx');
    await build(out, { maxCompressionRatio: 3 });
    for (const e of inspectZip(out)) if (e.method === 8) expect(e.size / e.compressedSize).toBeLessThanOrEqual(3);
    expect((await validatePackage(out, { limits: { maxCompressionRatio: 3 } })).valid).toBe(true);
  });

  it('a ratio of 1 stores every entry: the export succeeds and validates under that limit', async () => {
    const dir = await tempDir();
    const out = join(dir, 'one.octx');
    await build(out, { maxCompressionRatio: 1 });
    expect(methods(out)).toEqual([0]);
    const report = await validatePackage(out, { limits: { maxCompressionRatio: 1 } });
    expect(report.issues).toEqual([]);
    expect(report.valid).toBe(true);
    // With the default limits the same content is deflated: the ratio changes the method only.
    const normal = join(dir, 'default.octx');
    await build(normal);
    expect(methods(normal)).toContain(8);
    expect((await validatePackage(normal, { limits: { maxCompressionRatio: 1 } })).issues.map((i) => i.code)).toContain('OCTX_RESOURCE_LIMIT');
  });

  it('a ratio below 1 is the same: nothing is deflated (stored entries are not ratio-checked)', async () => {
    const out = join(await tempDir(), 'half.octx');
    await build(out, { maxCompressionRatio: 0.5 });
    expect(methods(out)).toEqual([0]);
    expect((await validatePackage(out, { limits: { maxCompressionRatio: 0.5 } })).valid).toBe(true);
  });

  it('verification reports an archive that breaks the ratio as OCTX_RESOURCE_LIMIT, not OCTX_INTEGRITY_ERROR', async () => {
    const out = join(await tempDir(), 'deflated.octx');
    const digest = await build(out);
    let error: unknown;
    try {
      await verifyArchive(out, digest, 'integrity', { maxCompressionRatio: 1 });
    } catch (e) {
      error = e;
    }
    expect(isOctxError(error) && error.code).toBe('OCTX_RESOURCE_LIMIT');
    expect(isOctxError(error) && error.message).toMatch(/maxCompressionRatio 1/);
    await expect(verifyArchive(out, digest, 'integrity')).resolves.toBeUndefined();
  });
});
