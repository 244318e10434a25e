/**
 * How the reader groups the documents it reads in manifest order: runs of small documents, read
 * together with `PackageSource.readMany` (one read per run of adjacent ZIP entries, inflated in
 * place), and the other documents one by one. A stream and an inflater per page of a few hundred
 * bytes cost many times its bytes (figures in BENCHMARKS.md).
 */
import type { PackageSource } from './source.js';

/** Documents up to this size are read in runs. */
export const SMALL_DOCUMENT_BYTES = 256 * 1024;
/** A run holds at most this many documents… */
export const RUN_DOCUMENTS = 4096;
/** …and about this many bytes (its last document may pass it by up to {@link SMALL_DOCUMENT_BYTES}). */
export const RUN_BYTES = 8 * 1024 * 1024;

/** Documents `paths[start, end)`: a run to read with `readMany` (`small`), or documents to read one by one. */
export interface DocumentRun {
  readonly start: number;
  readonly end: number;
  readonly small: boolean;
}

/**
 * Splits `paths` (in the order they are to be handed out) into runs. Without `readMany` (a
 * folder package) every document is read on its own, and so is a path the container lacks (its
 * reader reports it in its turn).
 */
export function* documentRuns(source: PackageSource, paths: readonly string[], maxFileSize: number): Generator<DocumentRun> {
  const limit = Math.min(SMALL_DOCUMENT_BYTES, maxFileSize);
  const small = (p: string): boolean => source.readMany !== undefined && source.has(p) && source.size(p) <= limit;
  for (let start = 0; start < paths.length;) {
    let end = start;
    if (small(paths[start]!)) {
      for (let bytes = 0; end < paths.length && end - start < RUN_DOCUMENTS && bytes < RUN_BYTES && small(paths[end]!); end++) bytes += source.size(paths[end]!);
      yield { start, end, small: true };
    } else {
      while (end < paths.length && !small(paths[end]!)) end++;
      yield { start, end, small: false };
    }
    start = end;
  }
}
