/**
 * The per-entry check of `integrity` verification, shared by the main thread and the verify
 * worker ({@link ./verify-worker.ts}): each listed entry is re-read through the package reader,
 * whose stream checks CRC-32, the sizes and, at its end, the listed SHA-256 (small entries: the
 * same checks on whole entries read in runs).
 */
import type { Readable } from 'node:stream';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { listedDigestProblem, sourceOf, type ListedFile, type OctxPackage } from '../read/open-package.js';

/**
 * Entries re-read at once. Inflate runs on the libuv pool and CRC-32 plus SHA-256 on the
 * calling thread, so a few entries in flight keep that thread busy; more only adds buffered
 * memory (~1–4 MiB per stream).
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
 * Entries up to this size are re-read in runs of adjacent entries (`readMany` of the package's
 * source, ZIP only) instead of one stream each: a stream, an inflater and a few pool round trips
 * per small document cost more than its bytes (see BENCHMARKS.md).
 */
export const SMALL_ENTRY_BYTES = 256 * 1024;

/**
 * Re-reads each of `files` through the package reader and returns the issue of each entry
 * (`undefined` when it is intact), aligned with `files` whatever order the reads finish in.
 * Small entries ({@link SMALL_ENTRY_BYTES}) are read in runs of adjacent entries, with the same
 * checks and the same issues as a stream (size, CRC-32, SHA-256); the others stream,
 * {@link VERIFY_WIDTH} at a time, largest first (a large entry started last would run alone at
 * the end). `onEntry` is told each entry's index and stored size once it is checked. On abort no
 * further entry is opened, the open ones are destroyed, and once they have all settled (so no
 * entry stream outlives the call) it rejects with `OCTX_ABORTED`.
 */
export async function verifyEntries(
  pkg: OctxPackage,
  files: readonly ListedFile[],
  signal: AbortSignal | undefined,
  onEntry?: (index: number, bytes: number) => void,
): Promise<(OctxIssue | undefined)[]> {
  if (signal?.aborted) throw verifyAborted();
  const source = sourceOf(pkg);
  const sizes = storedSizes(pkg, files);
  const batched: number[] = [];
  const streamed: number[] = [];
  for (let i = 0; i < files.length; i++) {
    const small = source.readMany !== undefined && source.has(files[i]!.path) && sizes[i]! <= SMALL_ENTRY_BYTES;
    (small ? batched : streamed).push(i);
  }
  streamed.sort((a, b) => sizes[b]! - sizes[a]! || a - b);
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
      return issueOf(e, path);
    } finally {
      if (stream) open.delete(stream);
    }
  };
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < streamed.length && !signal?.aborted) {
      const i = streamed[next++]!;
      found[i] = await verifyOne(files[i]!.path);
      onEntry?.(i, sizes[i]!);
    }
  };
  const batch = async (): Promise<void> => {
    if (batched.length === 0) return;
    const indexes = new Map<string, number[]>();
    for (const i of batched) {
      const path = files[i]!.path;
      const list = indexes.get(path);
      if (list) list.push(i);
      else indexes.set(path, [i]);
    }
    const settled = new Set<string>();
    /** What the caller's `onEntry` threw: it passes through, as it does from a stream lane. */
    let callerError: { error: unknown } | undefined;
    const settle = (path: string, entryIssue: OctxIssue | undefined): void => {
      settled.add(path);
      for (const i of indexes.get(path)!) {
        found[i] = entryIssue;
        try {
          onEntry?.(i, sizes[i]!);
        } catch (error) {
          callerError = { error };
          throw error;
        }
      }
    };
    try {
      await source.readMany!([...indexes.keys()], (path, result) => {
        if (signal?.aborted) throw verifyAborted();
        if (result instanceof OctxError) return settle(path, issueOf(result, path));
        // As openFile() checks: against the first listing of a path.
        settle(path, listedDigestProblem(pkg, path, result)?.issues[0]);
      });
    } catch (e) {
      if (callerError) throw callerError.error;
      if (signal?.aborted) return;
      // A failure of the reading itself (the package closed under it, say): each entry not yet
      // checked gets it as its issue, as a stream that failed to open would.
      for (const path of indexes.keys()) if (!settled.has(path)) settle(path, issueOf(e, path));
    }
  };
  let results: PromiseSettledResult<void>[];
  try {
    results = await Promise.allSettled([batch(), ...Array.from({ length: Math.min(VERIFY_WIDTH, streamed.length) }, lane)]);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) throw verifyAborted();
  for (const r of results) if (r.status === 'rejected') throw r.reason;
  return found;
}

/** The issue of an entry whose re-read failed with `e`. */
function issueOf(e: unknown, path: string): OctxIssue {
  if (!(e instanceof OctxError)) return issue({ code: 'OCTX_ARCHIVE_CORRUPT', path, message: (e as Error).message });
  // Inflate failures carry no path; with several entries in flight, say which one failed.
  const first = e.issues[0]!;
  return first.path === undefined ? issue({ ...first, path }) : first;
}
