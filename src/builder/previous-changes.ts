/**
 * `export({ previous })`: the counts of what changed since a previous package, added to the
 * export's report once the new package is published.
 */
import { copyFile, link, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { createSpillDir, removeSpillDir } from '../package/spill-dir.js';
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
export async function withChanges<R extends ResultWithReport>(result: R, previous: string, limits: Partial<ArchiveLimits> | undefined, kept: string = previous): Promise<R> {
  try {
    const diff = await diffPackages(kept, result.output, { sampleSize: 0, ...(limits ? { limits } : {}) });
    const counts = changeCounts(diff);
    // Named as the caller gave it, also when it was read from where it was kept aside.
    const changes = { ...counts, against: { ...counts.against, path: previous } };
    return { ...result, report: { ...result.report, changes } };
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

/** A previous package kept aside by {@link keepOverwrittenPrevious}. */
export interface KeptPrevious {
  /** Where the old package is now readable. */
  readonly path: string;
  /** Removes the kept package. */
  remove(): Promise<void>;
}

/**
 * When `previous` is the very file the export will replace (`overwrite` of the same path or a
 * link to it), a hard link to it (a copy across file systems) in a private spill folder: the
 * comparison runs after publishing, when the old package would otherwise be gone and the new one
 * compared with itself. Anything else (another file, a folder, a missing path, bad options left to
 * the export's own checks): `undefined`.
 */
export async function keepOverwrittenPrevious(previous: unknown, output: unknown, tempDir: string | undefined): Promise<KeptPrevious | undefined> {
  if (typeof previous !== 'string' || typeof output !== 'string' || previous === '' || output === '') return undefined;
  const [old, out] = await Promise.all([stat(previous).catch(() => undefined), stat(output).catch(() => undefined)]);
  if (!old?.isFile() || out === undefined || old.dev !== out.dev || old.ino !== out.ino) return undefined;
  const dir = createSpillDir(tempDir);
  const path = join(dir, 'previous.octx');
  try {
    await link(previous, path).catch(() => copyFile(previous, path));
  } catch {
    await removeSpillDir(dir);
    return undefined; // the comparison then reports what it can (a warning, never a failed export)
  }
  return { path, remove: () => removeSpillDir(dir) };
}
