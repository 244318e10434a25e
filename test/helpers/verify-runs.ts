import { expect } from 'vitest';
import { verifyEntries } from '../../src/export/verify-entries.js';
import type { OctxIssue } from '../../src/model/errors.js';
import { sourceOf, type OctxPackage } from '../../src/read/open-package.js';
import type { PackageSource } from '../../src/read/source.js';
import { manifestFor, rawZip, writeBytes } from '../read/helpers.js';
import { xorshiftBytes } from './bytes.js';

/**
 * Issues of every listed entry of `pkg`, verified through runs of small entries (`readMany`,
 * asserted to be used once) or, with `readMany` hidden, one stream per entry: the differential
 * suites compare the two.
 */
export async function verifyAll(pkg: OctxPackage, runs: boolean): Promise<(OctxIssue | undefined)[]> {
  const source = sourceOf(pkg);
  const readMany = source.readMany?.bind(source);
  let calls = 0;
  // An own property shadows the prototype's method for this package only.
  Object.defineProperty(source, 'readMany', {
    configurable: true,
    value: runs
      ? (...args: Parameters<NonNullable<PackageSource['readMany']>>) => {
          calls += 1;
          return readMany!(...args);
        }
      : undefined,
  });
  try {
    const found = await verifyEntries(pkg, pkg.listedFiles(), undefined);
    expect(calls).toBe(runs ? 1 : 0);
    return found;
  } finally {
    delete (source as { readMany?: unknown }).readMany;
  }
}

/**
 * Writes a package of `count` small documents of 8,000 text-like bytes each (seeds from `seed`),
 * stored or deflated, and returns its path: enough adjacent small entries for several runs.
 */
export async function smallDocumentsPackage(count: number, seed: number, method: 0 | 8): Promise<string> {
  const files: Record<string, Buffer> = {};
  for (let i = 0; i < count; i++) files[`knowledge/d${String(i).padStart(3, '0')}.md`] = xorshiftBytes(8000, seed + i, { textLike: true });
  const manifest = `${JSON.stringify(manifestFor({ files }), null, 2)}\n`;
  return writeBytes(rawZip([{ name: 'manifest.json', data: manifest }, ...Object.entries(files).map(([name, data]) => ({ name, data, method }))]));
}
