/**
 * `export({ previous })`: the counts of what changed since a previous package, added to the
 * export's report once the new package is published.
 */
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import { changeCounts, type PackageChangeCounts } from '../read/diff/change-counts.js';
import { diffPackages } from '../read/diff/diff-packages.js';

/** The part of an export result this touches (typed structurally: the result type lives in package-builder.ts). */
interface ResultWithReport {
  readonly output: string;
  readonly report: { readonly warnings: readonly OctxIssue[]; readonly changes?: PackageChangeCounts };
}

/**
 * `result` with `report.changes` against `previous`; when `previous` cannot be read or compared,
 * `result` with a warning instead (the package is already published: it must not fail now).
 */
export async function withChanges<R extends ResultWithReport>(result: R, previous: string, limits: Partial<ArchiveLimits> | undefined): Promise<R> {
  try {
    const diff = await diffPackages(previous, result.output, { sampleSize: 0, ...(limits ? { limits } : {}) });
    return { ...result, report: { ...result.report, changes: changeCounts(diff) } };
  } catch (e) {
    if (!(e instanceof OctxError)) throw e;
    const first = e.issues[0]!;
    const warning = issue({
      code: first.code,
      severity: 'warning',
      field: 'previous',
      message: `no change summary against ${previous}: ${first.message}`,
    });
    return { ...result, report: { ...result.report, warnings: [...result.report.warnings, warning] } };
  }
}
