import type { ProgressListener } from '../model/progress.js';
import { stat } from 'node:fs/promises';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import { openPackage, type OctxPackage } from '../read/open-package.js';
import { validatePackage } from '../read/validate-package.js';
import { computePackageDigest } from '../package/digest.js';
import { storedSizes, verifyAborted, verifyEntries } from './verify-entries.js';
import { VerifyWorker, splitByBytes, verifyWorkerFor } from './verify-thread.js';

/**
 * How a written archive is checked before it is published:
 * - `full`: the package validator, every rule of the format and of each declared capability
 *   (what the reference requires before publishing);
 * - `integrity`: re-read every entry through the safe reader (CRC, sizes, names), re-hash it
 *   against `files[]` and recompute the package digest, in one pass. The planner has already
 *   checked the content; this proves the bytes on disk are the ones planned. Large archives are
 *   verified on two threads (`verify-thread.ts`), with the same result.
 */
export type VerifyMode = 'full' | 'integrity';

/**
 * Verifies a written archive; throws `OCTX_VALIDATION_ERROR` (full) or `OCTX_INTEGRITY_ERROR`
 * (integrity) with every problem, so nothing is published — or `OCTX_RESOURCE_LIMIT` when what
 * failed is only a limit the archive breaks (the writer keeps within the limits it knows).
 * `started` is the caller's decision about the verify worker: a worker it started early
 * ({@link VerifyWorker.start}, so that its start-up overlapped the writing), which `integrity`
 * uses and always terminates, or `null` for none. Left out, `integrity` decides itself
 * ({@link verifyWorkerFor} on the archive's size).
 */
export async function verifyArchive(
  path: string,
  expectedDigest: string,
  mode: VerifyMode,
  limits?: Partial<ArchiveLimits>,
  signal?: AbortSignal,
  onProgress?: ProgressListener,
  started?: VerifyWorker | null,
): Promise<void> {
  const options = limits ? { limits } : {};
  if (mode === 'full') {
    await started?.terminate();
    const report = await validatePackage(path, { ...options, ...(onProgress ? { onProgress } : {}) });
    if (!report.valid || !report.fullyValidated || report.packageDigest !== expectedDigest) {
      const errors = report.issues.filter((i) => i.severity === 'error');
      throw OctxError.aggregate(
        'OCTX_VALIDATION_ERROR',
        'the written package failed its own validation; nothing was published:',
        errors.length > 0 ? errors : report.issues,
        report,
      );
    }
    return;
  }
  const issues: OctxIssue[] = [];
  // Started before the main thread opens the archive, so the worker's start-up overlaps it.
  const worker = started === undefined ? await workerBySize(path) : (started ?? undefined);
  try {
    let pkg;
    try {
      pkg = await openPackage(path, options);
    } catch (e) {
      // A limit the archive breaks is that limit, not a broken archive: say which one.
      if (e instanceof OctxError && e.code === 'OCTX_RESOURCE_LIMIT') throw e;
      throw new OctxError('OCTX_INTEGRITY_ERROR', `the written archive cannot be re-opened: ${(e as Error).message}`, { cause: e });
    }
    try {
      const digest = computePackageDigest(pkg.manifest);
      if (digest !== expectedDigest)
        issues.push(issue({ code: 'OCTX_PACKAGE_DIGEST_MISMATCH', path: 'manifest.json', message: `package digest ${digest} differs from the planned ${expectedDigest}` }));
      issues.push(...(await verifyAllEntries(pkg, path, limits, worker, signal, onProgress)));
    } finally {
      await pkg.close();
    }
  } finally {
    await worker?.terminate();
  }
  if (issues.length > 0 && issues.every((i) => i.code === 'OCTX_RESOURCE_LIMIT')) {
    throw OctxError.aggregate('OCTX_RESOURCE_LIMIT', 'the written archive breaks the export limits; nothing was published:', issues);
  }
  if (issues.length > 0) throw OctxError.aggregate('OCTX_INTEGRITY_ERROR', 'the written archive does not hold the planned bytes; nothing was published:', issues);
}

/** A verify worker when the archive at `path` is large enough ({@link verifyWorkerFor}), else none. */
async function workerBySize(path: string): Promise<VerifyWorker | undefined> {
  const size = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  return verifyWorkerFor(size) ? VerifyWorker.start() : undefined;
}

/**
 * Verifies every listed entry, on the main thread and, with a `worker`, on it too (two groups of
 * about equal bytes); returns one issue per entry that failed, in manifest order, exactly as the
 * in-thread check does. The worker's group is verified in-thread when it did not start or fails.
 * On abort the worker is stopped, and once the main thread's reads have settled it rejects with
 * `OCTX_ABORTED`.
 */
async function verifyAllEntries(
  pkg: OctxPackage,
  path: string,
  limits: Partial<ArchiveLimits> | undefined,
  worker: VerifyWorker | undefined,
  signal: AbortSignal | undefined,
  onProgress?: ProgressListener,
): Promise<OctxIssue[]> {
  const files = pkg.listedFiles();
  const sizes = storedSizes(pkg, files);
  const totalBytes = sizes.reduce((n, s) => n + s, 0);
  const checked = new Array<boolean>(files.length).fill(false);
  let completed = 0;
  let bytes = 0;
  const report = (i: number): void => {
    // An entry re-checked in-thread after its worker died counts once.
    if (checked[i]) return;
    checked[i] = true;
    completed += 1;
    bytes += sizes[i]!;
    onProgress?.({ phase: 'verify', kind: 'entries', completed, total: files.length, bytes, totalBytes });
  };
  onProgress?.({ phase: 'verify', kind: 'entries', completed, total: files.length, bytes, totalBytes });
  const [mine, theirs] = worker ? splitByBytes(sizes) : [files.map((_, i) => i), []];
  const inThread = (group: readonly number[]): Promise<(OctxIssue | undefined)[]> =>
    verifyEntries(
      pkg,
      group.map((i) => files[i]!),
      signal,
      (k) => report(group[k]!),
    );
  const onWorker = async (): Promise<(OctxIssue | undefined)[]> => {
    if (theirs.length === 0) return [];
    if (!worker || !(await worker.ready) || signal?.aborted) return inThread(theirs);
    try {
      return await worker.verify(
        path,
        limits,
        theirs.map((i) => files[i]!.path),
        (k) => report(theirs[k]!),
      );
    } catch {
      if (signal?.aborted) throw verifyAborted();
      return inThread(theirs);
    }
  };
  const stop = (): void => void worker?.terminate();
  signal?.addEventListener('abort', stop);
  let results;
  try {
    // Both settle before anything is returned or thrown: no entry stream outlives the call.
    results = await Promise.allSettled([inThread(mine), onWorker()]);
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  if (signal?.aborted) throw verifyAborted();
  for (const r of results) if (r.status === 'rejected') throw r.reason;
  const found = new Array<OctxIssue | undefined>(files.length);
  const [a, b] = results as [PromiseFulfilledResult<(OctxIssue | undefined)[]>, PromiseFulfilledResult<(OctxIssue | undefined)[]>];
  mine.forEach((i, k) => (found[i] = a.value[k]));
  theirs.forEach((i, k) => (found[i] = b.value[k]));
  return found.filter((i): i is OctxIssue => i !== undefined);
}
