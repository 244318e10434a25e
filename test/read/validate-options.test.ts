/**
 * Issue 24, item 9: `validatePackage(path, { consumer })` looked the name up with `Object.hasOwn`,
 * which converts its key with String(): `['sag-1.7']`, `new String('sag-1.7')` and
 * `{ toString: () => 'sag-1.7' }` were all taken for the consumer. Only the exact primitive
 * strings are accepted now; the other options are checked the same way.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { isOctxError } from '../../src/index.js';
import { PackageBuilder } from '../../src/index.js';
import { openPackage, validatePackage } from '../../src/read/index.js';
import { GUIDE_MD, cleanupTempDirs, entriesOf, writeDir } from './helpers.js';

afterAll(cleanupTempDirs);

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isOctxError(e)) return `${e.code}:${e.issues[0]?.field ?? ''}`;
    throw e;
  }
  return 'accepted';
}

describe('validatePackage options are not coerced', () => {
  it('consumer: only the primitive strings of known consumers', async () => {
    const dir = await writeDir(entriesOf({ files: { 'knowledge/guide.md': GUIDE_MD } }));
    const coerced: unknown[] = [['sag-1.7'], new String('sag-1.7'), { toString: () => 'sag-1.7' }, ['seed'], 17, null, true];
    for (const consumer of coerced) {
      expect(await refusal(validatePackage(dir, { consumer } as never)), String(consumer)).toBe('OCTX_OPTIONS_INVALID:consumer');
    }
    const report = await validatePackage(dir, { consumer: 'sag-1.7' });
    expect(report.valid).toBe(true);
    expect(report.consumer?.name).toBe('sag-1.7');
    // The builder's consumer goes through the same check.
    const b = new PackageBuilder({ asset: { name: 'A' } });
    b.addDocument({ path: 'a.md', markdown: '# A\n' });
    expect(await refusal(b.export({ output: `${dir}.octx`, consumer: new String('sag-1.7') } as never))).toBe('OCTX_OPTIONS_INVALID:consumer');
    await b.dispose();
  });

  it('maxIssues, onProgress, limits and the target are not coerced either', async () => {
    const dir = await writeDir(entriesOf({ files: { 'knowledge/guide.md': GUIDE_MD } }));
    expect(await refusal(validatePackage(dir, { maxIssues: new Number(5) } as never))).toBe('OCTX_OPTIONS_INVALID:maxIssues');
    expect(await refusal(validatePackage(dir, { maxIssues: '5' } as never))).toBe('OCTX_OPTIONS_INVALID:maxIssues');
    expect(await refusal(validatePackage(dir, { onProgress: 'log' } as never))).toBe('OCTX_OPTIONS_INVALID:onProgress');
    expect(await refusal(validatePackage(dir, { limits: { maxEntries: new Number(5) } } as never))).toBe('OCTX_OPTIONS_INVALID:limits.maxEntries');
    expect(await refusal(validatePackage(dir, { limits: { maxEntries: '5' } } as never))).toBe('OCTX_OPTIONS_INVALID:limits.maxEntries');
    expect(await refusal(validatePackage(new String(dir) as never))).toBe('OCTX_OPTIONS_INVALID:target');
    expect(await refusal(validatePackage({ toString: () => dir } as never))).toBe('OCTX_OPTIONS_INVALID:target');
    expect(await refusal(openPackage(new String(dir) as never))).toBe('OCTX_OPTIONS_INVALID:path');
    // An open package is still a valid target.
    const pkg = await openPackage(dir);
    try {
      expect((await validatePackage(pkg)).valid).toBe(true);
    } finally {
      await pkg.close();
    }
  });
});
