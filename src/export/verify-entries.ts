/**
 * The per-entry check of `integrity` verification, shared by the main thread and the verify
 * worker ({@link ./verify-worker.ts}): each listed entry is re-read through the package reader,
 * whose stream checks CRC-32, the sizes and, at its end, the listed SHA-256.
 */
import type { Readable } from 'node:stream';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { sourceOf, type ListedFile, type OctxPackage } from '../read/open-package.js';

/**
 * Entries re-read at once. Inflate runs on the libuv pool and CRC-32 plus SHA-256 on the
 * calling thread, so a few entries in flight keep that thread busy (the bench's validate floor
 * reads four at a time); more only adds buffered memory (~1–4 MiB per stream).
 */
const VERIFY_WIDTH = 4;

/** The error of a verification cancelled by its signal. */
export function verifyAborted(): OctxError {
  return new OctxError('OCTX_ABORTED', 'export cancelled while verifying the archive');
}

/** The stored size of each of `files` in the container (0 when it is missing). */
export function storedSizes(pkg: OctxPackage, files: readonly ListedFile[]): number[] {
  const source = sourceOf(pkg);
  return files.map((f) => (source.has(f.path) ? source.size(f.path) : 0));
}

/**
 * Re-reads each of `files` through the package reader, {@link VERIFY_WIDTH} at a time, largest
 * first (a large entry started last would run alone at the end), and returns the issue of each
 * entry (`undefined` when it is intact), aligned with `files` whatever order the reads finish in.
 * `onEntry` is told each entry's index and stored size once it is checked. On abort no further
 * entry is opened, the open ones are destroyed, and once they have all settled (so no entry
 * stream outlives the call) it rejects with `OCTX_ABORTED`.
 */
export async function verifyEntries(
  pkg: OctxPackage,
  files: readonly ListedFile[],
  signal: AbortSignal | undefined,
  onEntry?: (index: number, bytes: number) => void,
): Promise<(OctxIssue | undefined)[]> {
  if (signal?.aborted) throw verifyAborted();
  const sizes = storedSizes(pkg, files);
  const order = files.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b);
  const found: (OctxIssue | undefined)[] = new Array<OctxIssue | undefined>(files.length).fill(undefined);
  const open = new Set<Readable>();
  const onAbort = (): void => {
    for (const s of open) s.destroy();
  };
  signal?.addEventListener('abort', onAbort);

  const verifyOne = async (path: string): Promise<OctxIssue | undefined> => {
    let stream: Readable | undefined;
    try {
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
  const lane = async (): Promise<void> => {
    while (next < order.length && !signal?.aborted) {
      const i = order[next++]!;
      found[i] = await verifyOne(files[i]!.path);
      onEntry?.(i, sizes[i]!);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(VERIFY_WIDTH, order.length) }, lane));
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) throw verifyAborted();
  return found;
}
