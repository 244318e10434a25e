/**
 * Issue 16, item 6: manifest strings of millions of characters (the SDK writes a 9 M-character
 * asset name as given) never surface as an untyped `RangeError` from a regular expression: the
 * package validates, and `verify: 'full'` exports succeed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, validatePackage } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';

const GUIDE = '---\ntype: Reference\ntitle: Guide\noctx:\n  document_id: 019c1234-5678-7abc-8def-0123456789ab\n---\n\n# Guide\n\nPortable context.\n';

describe('manifest strings of millions of characters', () => {
  it('exports with verify: full and validates a package whose asset name has 9 M characters', async () => {
    const out = join(tempDir(), 'long.octx');
    const name = 'n'.repeat(9_000_000);
    const builder = new PackageBuilder({ asset: { id: '019c0000-0000-7000-8000-000000000001', name }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
    builder.addDocument({ path: 'guide.md', markdown: GUIDE });
    const result = await builder.export({ output: out, verify: 'full' });
    const report = await validatePackage(out);
    expect(report.issues).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.packageDigest).toBe(result.packageDigest);
  }, 60_000);
});
