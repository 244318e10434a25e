import type { ProgressListener } from '../model/progress.js';
import type { Readable } from 'node:stream';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import { openPackage, sourceOf, type ListedFile, type OctxPackage } from '../read/open-package.js';
import { validatePackage } from '../read/validate-package.js';
import { computePackageDigest } from '../package/digest.js';

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
 * (integrity) with every problem, so nothing is published — or `OCTX_RESOURCE_LIMIT` when what
 * failed is only a limit the archive breaks (the writer keeps within the limits it knows).
 */
export async function verifyArchive(
  path: string,
  expectedDigest: string,
  mode: VerifyMode,
  limits?: Partial<ArchiveLimits>,
  signal?: AbortSignal,
  onProgress?: ProgressListener,
): Promise<void> {
  const options = limits ? { limits } : {};
  if (mode === 'full') {
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
    issues.push(...(await verifyEntries(pkg, pkg.listedFiles(), signal, onProgress)));
  } finally {
    await pkg.close();
  }
  if (issues.length > 0 && issues.every((i) => i.code === 'OCTX_RESOURCE_LIMIT')) {
    throw OctxError.aggregate('OCTX_RESOURCE_LIMIT', 'the written archive breaks the export limits; nothing was published:', issues);
  }
  if (issues.length > 0) throw OctxError.aggregate('OCTX_INTEGRITY_ERROR', 'the written archive does not hold the planned bytes; nothing was published:', issues);
}

/**
 * Entries re-read at once in `integrity` mode. Inflate runs on the libuv pool and CRC-32 plus
 * SHA-256 on the main thread, so a few entries in flight keep both cores busy (the bench's
 * validate floor reads four at a time); more only adds buffered memory (~1–4 MiB per stream).
 */
const VERIFY_WIDTH = 4;

/**
 * Re-reads every listed entry through the package reader, {@link VERIFY_WIDTH} at a time, and
 * returns one issue per entry that failed, in manifest order whatever order the reads finish in.
 * On abort no further entry is opened, the open ones are destroyed, and once they have all
 * settled (so no entry stream outlives the call) it rejects with `OCTX_ABORTED`.
 */
async function verifyEntries(pkg: OctxPackage, files: readonly ListedFile[], signal: AbortSignal | undefined, onProgress?: ProgressListener): Promise<OctxIssue[]> {
  const aborted = (): OctxError => new OctxError('OCTX_ABORTED', 'export cancelled while verifying the archive');
  if (signal?.aborted) throw aborted();
  const source = sourceOf(pkg);
  const sizes = files.map((f) => (source.has(f.path) ? source.size(f.path) : 0));
  // Largest first: a large JSONL or Arrow file started last would run alone at the end.
  const order = files.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b);
  const found: (OctxIssue | undefined)[] = new Array<OctxIssue | undefined>(files.length);
  const totalBytes = sizes.reduce((n, s) => n + s, 0);
  let completed = 0;
  let bytes = 0;
  onProgress?.({ phase: 'verify', kind: 'entries', completed, total: files.length, bytes, totalBytes });
  const open = new Set<Readable>();
  const onAbort = (): void => {
    for (const s of open) s.destroy();
  };
  signal?.addEventListener('abort', onAbort);

  const verifyOne = async (path: string): Promise<OctxIssue | undefined> => {
    let stream: Readable | undefined;
    try {
      // The reader's stream checks CRC-32, the size and, at its end, the listed SHA-256.
      stream = pkg.openFile(path);
      open.add(stream);
      for await (const _ of stream) void _;
      return undefined;
    } catch (e) {
      if (!(e instanceof OctxError)) return issue({ code: 'OCTX_ARCHIVE_CORRUPT', path, message: (e as Error).message });
      // Inflate failures carry no path; with several entries in flight, say which one failed.
      const first = e.issues[0]!;
      return first.path === undefined ? issue({ ...first, path }) : first;
    } finally {
      if (stream) open.delete(stream);
    }
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < order.length && !signal?.aborted) {
      const i = order[next++]!;
      found[i] = await verifyOne(files[i]!.path);
      completed += 1;
      bytes += sizes[i]!;
      onProgress?.({ phase: 'verify', kind: 'entries', completed, total: files.length, bytes, totalBytes });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(VERIFY_WIDTH, order.length) }, worker));
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) throw aborted();
  return found.filter((i): i is OctxIssue => i !== undefined);
}
