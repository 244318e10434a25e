import { expect } from 'vitest';
import { verifyEntries } from '../../src/export/verify-entries.js';
import type { OctxIssue } from '../../src/model/errors.js';
import { sourceOf, type OctxPackage } from '../../src/read/open-package.js';
import type { PackageSource } from '../../src/read/source.js';

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
