import { createReadStream, createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import ZipStream from 'zip-stream';
import { OctxError } from '../model/errors.js';

/** One ZIP entry to write: its name and where its bytes come from. */
export interface ZipEntrySpec {
  /** Logical path inside the archive (already validated). */
  readonly name: string;
  /** In-memory bytes, a file on disk, or a stream opener; files and streams are opened only when their turn comes. */
  readonly source: ZipEntrySource;
  /** Uncompressed size in bytes. */
  readonly size: number;
  /** STORE (true) or DEFLATE (false). */
  readonly store: boolean;
}

/** Where an entry's bytes come from. */
export type ZipEntrySource = { readonly bytes: Buffer } | { readonly file: string } | { readonly open: () => Readable };

/** What was written for one entry. */
export interface WrittenZipEntry {
  readonly name: string;
  readonly size: number;
  readonly compressedSize: number;
  readonly method: 'store' | 'deflate';
}

/** Options for {@link writeZip}. */
export interface WriteZipOptions {
  /** zlib level for deflated entries (0–9). */
  readonly level: number;
  /** Called after each entry; may throw to abort the archive (e.g. a ratio policy). */
  readonly onEntry?: (entry: WrittenZipEntry, index: number) => void;
  readonly signal?: AbortSignal;
}

/**
 * Entries carry this fixed time: ZIP timestamps must not make identical input differ. 1980-01-01
 * is the DOS epoch, the value the reference writer uses; zip-stream writes it in UTC.
 */
export const FIXED_ENTRY_DATE = new Date('1980-01-01T00:00:00Z');
/** Regular file, rw-r--r--. */
export const ENTRY_MODE = 0o644;

/** Read payload files in 1 MiB chunks: the default 64 KiB leaves the deflate pipeline idle. */
const READ_CHUNK = 1 << 20;

/**
 * Writes a ZIP (ZIP64 when needed) with entries in exactly the given order, fixed timestamps and
 * modes, the UTF-8 name flag for non-ASCII names, STORE or DEFLATE per entry and no encryption.
 *
 * Uses zip-stream (archiver's own engine, identical bytes) directly rather than archiver: one
 * entry at a time with a callback means a failing source stream rejects here instead of hanging
 * `finalize()`, entries cannot be reordered by concurrent `stat` calls, and `pipeline` resolves
 * only when the file is flushed (archiver's `finalize()` resolves earlier).
 */
export async function writeZip(outPath: string, entries: readonly ZipEntrySpec[], options: WriteZipOptions): Promise<WrittenZipEntry[]> {
  const zip = new ZipStream({ zlib: { level: options.level }, forceLocalTime: false });
  const out = createWriteStream(outPath, { flags: 'wx' });
  const done = pipeline(zip as unknown as NodeJS.ReadableStream, out);
  // Keep the pipeline's rejection observed while entries are appended.
  let pipelineError: unknown;
  done.catch((e: unknown) => {
    pipelineError = e;
  });
  const written: WrittenZipEntry[] = [];
  try {
    for (const [index, entry] of entries.entries()) {
      if (options.signal?.aborted) throw new OctxError('OCTX_ABORTED', 'export cancelled while writing the archive');
      if (pipelineError) throw pipelineError;
      const source = 'bytes' in entry.source ? entry.source.bytes : 'file' in entry.source ? createReadStream(entry.source.file, { highWaterMark: READ_CHUNK }) : entry.source.open();
      const archived = await new Promise<{ size: number; csize: number }>((resolve, reject) => {
        if (!Buffer.isBuffer(source)) source.once('error', reject);
        zip.entry(source, { name: entry.name, date: FIXED_ENTRY_DATE, mode: ENTRY_MODE, store: entry.store, type: 'file' }, (err, archiveEntry) => {
          if (err) reject(err);
          else resolve({ size: Number(archiveEntry!.getSize()), csize: Number(archiveEntry!.getCompressedSize()) });
        });
      });
      if (archived.size !== entry.size) {
        throw new OctxError('OCTX_IO_ERROR', `${entry.name} changed while it was archived (${entry.size} bytes expected, ${archived.size} read)`);
      }
      const w: WrittenZipEntry = { name: entry.name, size: archived.size, compressedSize: archived.csize, method: entry.store ? 'store' : 'deflate' };
      written.push(w);
      try {
        options.onEntry?.(w, index);
      } catch (e) {
        throw new CallbackError(e);
      }
    }
    zip.finalize();
    await done;
    return written;
  } catch (e) {
    zip.destroy();
    out.destroy();
    await done.catch(() => undefined);
    if (e instanceof CallbackError) throw e.inner;
    if (e instanceof OctxError) throw e;
    throw new OctxError('OCTX_IO_ERROR', `writing ${outPath} failed: ${(e as Error).message}`, { cause: e });
  }
}

/** Carries an error thrown by the caller's `onEntry` through unchanged. */
class CallbackError extends Error {
  constructor(readonly inner: unknown) {
    super('onEntry failed');
  }
}
