import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import type { ArchiveLimits } from '../read/limits.js';
import { openPackage } from '../read/open-package.js';
import { validatePackage } from '../read/validate-package.js';
import { computePackageDigest } from './digest.js';

/**
 * How a written archive is checked before it is published:
 * - `full`: the package validator, every rule of the format and of each declared capability
 *   (what the reference requires before publishing);
 * - `integrity`: re-read every entry through the safe reader (CRC, sizes, names), re-hash it
 *   against `files[]` and recompute the package digest, in one pass. The planner has already
 *   checked the content; this proves the bytes on disk are the ones planned.
 */
export type VerifyMode = 'full' | 'integrity';

/**
 * Verifies a written archive; throws `OCTX_VALIDATION_ERROR` (full) or `OCTX_INTEGRITY_ERROR`
 * (integrity) with every problem, so nothing is published.
 */
export async function verifyArchive(path: string, expectedDigest: string, mode: VerifyMode, limits?: Partial<ArchiveLimits>, signal?: AbortSignal): Promise<void> {
  const options = limits ? { limits } : {};
  if (mode === 'full') {
    const report = await validatePackage(path, options);
    if (!report.valid || !report.fullyValidated || report.packageDigest !== expectedDigest) {
      const errors = report.issues.filter((i) => i.severity === 'error');
      throw OctxError.aggregate('OCTX_VALIDATION_ERROR', 'the written package failed its own validation; nothing was published:', errors.length > 0 ? errors : report.issues, report);
    }
    return;
  }
  const issues: OctxIssue[] = [];
  let pkg;
  try {
    pkg = await openPackage(path, options);
  } catch (e) {
    throw new OctxError('OCTX_INTEGRITY_ERROR', `the written archive cannot be re-opened: ${(e as Error).message}`, { cause: e });
  }
  try {
    const digest = computePackageDigest(pkg.manifest);
    if (digest !== expectedDigest) issues.push(issue({ code: 'OCTX_PACKAGE_DIGEST_MISMATCH', path: 'manifest.json', message: `package digest ${digest} differs from the planned ${expectedDigest}` }));
    for (const f of pkg.listedFiles()) {
      if (signal?.aborted) throw new OctxError('OCTX_ABORTED', 'export cancelled while verifying the archive');
      try {
        // The reader's stream checks CRC-32, the size and, at its end, the listed SHA-256.
        for await (const _ of pkg.openFile(f.path)) void _;
      } catch (e) {
        issues.push(e instanceof OctxError ? e.issues[0]! : issue({ code: 'OCTX_ARCHIVE_CORRUPT', path: f.path, message: (e as Error).message }));
      }
    }
  } finally {
    await pkg.close();
  }
  if (issues.length > 0) throw OctxError.aggregate('OCTX_INTEGRITY_ERROR', 'the written archive does not hold the planned bytes; nothing was published:', issues);
}
