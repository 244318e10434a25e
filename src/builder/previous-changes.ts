/**
 * `export({ previous })`: the counts of what changed since a previous package, added to the
 * export's report once the new package is published.
 */
import { access, constants, copyFile, link, realpath, stat } from 'node:fs/promises';
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
export async function withChanges<R extends ResultWithReport>(
  result: R,
  previous: string,
  limits: Partial<ArchiveLimits> | undefined,
  kept: string = previous,
  atStart: PreviousAtStart = { exists: true },
): Promise<R> {
  // Missing when the export started: whatever is there now is the new package.
  if (!atStart.exists) return withWarning(result, 'OCTX_OPEN_ERROR', `no change summary against ${previous}: it did not exist when the export started`);
  try {
    const diff = await diffPackages(kept, result.output, { sampleSize: 0, ...(limits ? { limits } : {}) });
    const counts = changeCounts(diff);
    // Named as the caller gave it, also when it was read from where it was kept aside.
    const changes = { ...counts, against: { ...counts.against, path: previous } };
    return { ...result, report: { ...result.report, changes } };
  } catch (e) {
    // The package is published: whatever fails now is a warning, never a rejected export.
    const first = e instanceof OctxError ? e.issues[0] : undefined;
    return withWarning(result, first?.code ?? 'OCTX_OPEN_ERROR', `no change summary against ${previous}: ${first?.message ?? (e instanceof Error ? e.message : String(e))}`);
  }
}

function withWarning<R extends ResultWithReport>(result: R, code: OctxIssue['code'], message: string): R {
  const warning = issue({ code, severity: 'warning', field: 'previous', message });
  return { ...result, report: { ...result.report, warnings: [...result.report.warnings, warning] } };
}

/** What `previous` was when the export started: `problem` says why it cannot be compared. */
export interface PreviousAtStart {
  readonly exists: boolean;
  readonly problem?: string;
}

/**
 * Looks at `previous` before anything is written (symlinks followed): missing, not a file, or not
 * readable is a `problem` (a warning after publication, a refusal under `strict`). A value that is
 * not a path is left to the export's option check.
 */
export async function previousAtStart(previous: unknown): Promise<PreviousAtStart> {
  if (typeof previous !== 'string' || previous === '') return { exists: true };
  const s = await stat(previous).catch((e: NodeJS.ErrnoException) => e);
  if (s instanceof Error)
    return s.code === 'ENOENT' || s.code === 'ENOTDIR' ? { exists: false, problem: 'it does not exist' } : { exists: true, problem: `it cannot be read (${s.code ?? s.message})` };
  if (!s.isFile()) return { exists: true, problem: 'it is not a file' };
  const readable = await access(previous, constants.R_OK).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e.code ?? e.message,
  );
  return readable === undefined ? { exists: true } : { exists: true, problem: `it cannot be read (${readable})` };
}

/**
 * Under `strict`, a previous package that cannot be compared refuses the export before anything
 * is written: a strict build promises a report without warnings, and this one would come only
 * after publication.
 * @throws OctxError `OCTX_STRICT_VIOLATION` (its issue: `OCTX_OPEN_ERROR`, field `previous`)
 */
export function refuseUnreadablePrevious(previous: string, atStart: PreviousAtStart): void {
  if (atStart.problem === undefined) return;
  const headline = `strict: the previous package ${previous} cannot be compared (${atStart.problem}); nothing was written`;
  throw OctxError.aggregate('OCTX_STRICT_VIOLATION', headline, [issue({ code: 'OCTX_OPEN_ERROR', field: 'previous', message: `previous ${previous}: ${atStart.problem}` })]);
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
    // link() of a symlink links the symlink itself, which would then name the new package.
    const real = await realpath(previous);
    await link(real, path).catch(() => copyFile(real, path));
  } catch {
    await removeSpillDir(dir);
    return undefined; // the comparison then reports what it can (a warning, never a failed export)
  }
  return { path, remove: () => removeSpillDir(dir) };
}
