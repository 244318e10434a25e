/**
 * The `.octx` ZIP reader: yauzl 3.4.0 walks the central directory and streams the raw entry
 * data (inflated here, with `zlib` and larger output chunks than yauzl's own inflater), and
 * this module adds every check the reference reader applies and yauzl does not (deps.md §8,
 * OCTX-REFERENCE §3.2): raw-name decoding with the UTF-8 flag, path safety, link/special-file
 * modes, encryption and method, local-versus-central header equality, overlapping entries,
 * duplicate names, resource limits, and a CRC-32 check of every byte read. Nothing is ever
 * written to disk: entries are only exposed as streams.
 *
 * Its parts: the positional reads (`zip-fd-reader.ts`) and the header checks
 * (`zip-entry-checks.ts`).
 */
import { constants as fsConstants, fstat, open as fsOpen, type Stats } from 'node:fs';
import type { Readable } from 'node:stream';
import { crc32 as crc32Of, createInflateRaw, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { OctxError } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import {
  SizeBudget,
  VerifyStream,
  assertNoCollisions,
  checkedWhole,
  collect,
  connect,
  deferredVerified,
  ListedSource,
  tooLarge,
  type PackageSource,
  type RawEntryName,
  type StoredData,
} from './source.js';
import { checkCentralEntry, checkLocalHeader, mapOpenError, mapStreamError, readLocalHeads, zipFailure } from './zip-entry-checks.js';
import { preadExact, readEndOfCentralDirectory } from './zip-eocd.js';
import { FdReader, RUN_BYTES, readRange, runsOf } from './zip-fd-reader.js';

/** The central directory is held in memory while it is walked; refuse absurd sizes first. */
const MAX_CENTRAL_DIRECTORY_BYTES = 256 * 1024 * 1024;

/** `e` naming `path` (inflate and read failures carry none). */
function withPath(e: OctxError, path: string): OctxError {
  const first = e.issues[0]!;
  return first.path === undefined ? OctxError.of({ ...first, path }) : e;
}

/** {@link checkedEntry}'s answer for data that did not inflate within the declared size. */
const INFLATE_FAILED = Symbol('inflate failed');

/**
 * One entry's bytes from its stored data `raw`, with the checks of the streamed read: inflated
 * (never beyond one byte more than declared), then size and CRC-32 ({@link checkedWhole}).
 * {@link INFLATE_FAILED} when inflating failed: the caller re-reads the entry as a stream.
 */
function checkedEntry(f: ZipFileEntry, raw: Buffer): Buffer | OctxError | typeof INFLATE_FAILED {
  let bytes = raw;
  if (f.method !== 0) {
    try {
      // One output buffer of the entry's size: zlib's default 16 KiB chunk per small document
      // was garbage that waited for a GC, several MiB at a build's peak (see BENCHMARKS.md).
      bytes = inflateRawSync(raw, { chunkSize: Math.max(64, f.size + 1), maxOutputLength: f.size + 1 });
    } catch {
      return INFLATE_FAILED;
    }
  }
  return checkedWhole({ path: f.name, size: f.size, crc32: f.crc32, sizeCode: 'OCTX_ARCHIVE_CORRUPT' }, bytes.length, crc32Of(bytes)) ?? bytes;
}

/**
 * One regular file of the archive: only what reading it needs. Not yauzl's `Entry`, which keeps
 * some twenty fields and views of the central directory per entry, for the source's whole life
 * (a package of 100,000 small pages held tens of MiB of them).
 */
interface ZipFileEntry {
  readonly name: string;
  /** ZIP compression method: 0 (stored) or 8 (deflated), as checked at open. */
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly crc32: number;
  /** Offset of the entry's data, from its local header (checked when the archive was opened). */
  readonly dataStart: number;
}

/**
 * Output chunk size of the inflater. zlib's default (16 KiB) costs one libuv pool round trip per
 * 16 KiB of output, and every round trip costs main-thread time: with 256 KiB chunks, inflating
 * a large entry takes a fraction of the time (see BENCHMARKS.md).
 */
const INFLATE_CHUNK = 256 * 1024;

function statFd(fd: number): Promise<Stats> {
  return new Promise((resolve, reject) => fstat(fd, (err, st) => (err ? reject(err) : resolve(st))));
}

/**
 * Opens read-only and non-blocking: if the path became a FIFO since it was checked, open(2)
 * returns at once (and `fstat` refuses it) instead of waiting for a writer. No effect on
 * regular files.
 */
function openFd(path: string): Promise<number> {
  const flags = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0);
  return new Promise((resolve, reject) => fsOpen(path, flags, (err, fd) => (err ? reject(err) : resolve(fd))));
}

function walkCentralDirectory(zip: yauzl.ZipFile, onEntry: (e: yauzl.Entry) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err?: unknown): void => {
      if (done) return;
      done = true;
      zip.removeAllListeners('entry');
      zip.removeAllListeners('end');
      if (err === undefined) resolve();
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on, unchanged, what onEntry threw or mapOpenError made of yauzl's error
      else reject(err);
    };
    zip.on('entry', (e: yauzl.Entry) => {
      try {
        onEntry(e);
        zip.readEntry();
      } catch (err) {
        finish(err);
      }
    });
    zip.on('end', () => finish());
    // Keep a listener for late errors so they cannot crash the process.
    zip.on('error', (err: unknown) => finish(mapOpenError(err)));
    zip.readEntry();
  });
}

/**
 * Opens a ZIP package and checks its whole structure before anything is read (see the module
 * comment for the list of checks).
 * @throws OctxError `OCTX_OPEN_ERROR`, `OCTX_ARCHIVE_INVALID`, `OCTX_ARCHIVE_CORRUPT`,
 *   `OCTX_SECURITY_ERROR` or `OCTX_RESOURCE_LIMIT`
 */
export async function openZipSource(path: string, limits: ArchiveLimits): Promise<PackageSource> {
  let fd: number;
  try {
    fd = await openFd(path);
  } catch (e) {
    throw OctxError.of({ code: 'OCTX_OPEN_ERROR', message: `cannot open ${path}: ${(e as Error).message}` });
  }
  const reader = new FdReader(fd);
  let zip: yauzl.ZipFile | undefined;
  try {
    const st = await statFd(fd);
    if (!st.isFile()) throw OctxError.of({ code: 'OCTX_OPEN_ERROR', message: `${path} is not a regular file` });
    const size = st.size;
    const eocd = await readEndOfCentralDirectory(fd, size);
    if (eocd.entryCount > limits.maxEntries) {
      throw zipFailure('OCTX_RESOURCE_LIMIT', `the archive declares ${eocd.entryCount} entries, above maxEntries ${limits.maxEntries}`);
    }
    const cdRegion = size - eocd.cdOffset;
    if (cdRegion > MAX_CENTRAL_DIRECTORY_BYTES) throw zipFailure('OCTX_RESOURCE_LIMIT', `the central directory is larger than ${MAX_CENTRAL_DIRECTORY_BYTES} bytes`);
    reader.setCache(eocd.cdOffset, await preadExact(fd, cdRegion, eocd.cdOffset));

    zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
      yauzl.fromRandomAccessReader(reader, size, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false, strictFileNames: true }, (err, z) =>
        err ? reject(mapOpenError(err)) : resolve(z),
      );
    });
    const z = zip;
    if (z.entryCount !== eocd.entryCount) throw zipFailure('OCTX_ARCHIVE_INVALID', 'the archive has inconsistent entry counts');
    const budget = new SizeBudget(limits);
    const seen: RawEntryName[] = [];
    const all: { entry: yauzl.Entry; name: string; isDirectory: boolean }[] = [];
    await walkCentralDirectory(z, (e) => {
      const checked = checkCentralEntry(e, limits, budget);
      seen.push(checked);
      all.push({ entry: e, ...checked });
    });
    // yauzl stops after the declared count; extra or missing headers show up as a size gap.
    if ((z.readEntryCursor as unknown as number) !== eocd.cdOffset + eocd.cdSize) {
      // (@types/yauzl types readEntryCursor as boolean; yauzl keeps the byte offset there.)
      throw zipFailure('OCTX_ARCHIVE_INVALID', 'the central directory size does not match the headers it contains');
    }
    assertNoCollisions(seen);

    const ranges: { start: number; end: number; name: string }[] = [];
    const dataStarts = new Map<yauzl.Entry, number>();
    // Read first, checked after in central-directory order: the first bad entry is the one reported.
    const heads = await readLocalHeads(
      fd,
      all.map((a) => a.entry),
      size,
    );
    for (let i = 0; i < all.length; i++) {
      const a = all[i]!;
      const end = await checkLocalHeader(fd, a.entry, a.name, size, heads[i]);
      if (end > eocd.cdOffset) throw zipFailure('OCTX_ARCHIVE_INVALID', `entry "${a.name}" overlaps the central directory`, a.name);
      ranges.push({ start: a.entry.relativeOffsetOfLocalHeader, end, name: a.name });
      dataStarts.set(a.entry, end - a.entry.compressedSize);
    }
    ranges.sort((x, y) => x.start - y.start);
    for (let i = 1; i < ranges.length; i++) {
      if (ranges[i]!.start < ranges[i - 1]!.end) {
        throw zipFailure('OCTX_ARCHIVE_INVALID', `entries "${ranges[i - 1]!.name}" and "${ranges[i]!.name}" overlap`);
      }
    }

    const files = new Map<string, ZipFileEntry>();
    const order: string[] = [];
    for (const a of all) {
      if (a.isDirectory) continue;
      const e = a.entry;
      files.set(a.name, { name: a.name, method: e.compressionMethod, compressedSize: e.compressedSize, size: e.uncompressedSize, crc32: e.crc32, dataStart: dataStarts.get(e)! });
      order.push(a.name);
    }
    return new ZipSource(path, z, reader, files, order, limits);
  } catch (e) {
    if (zip) zip.close();
    else reader.close(() => undefined);
    throw mapOpenError(e);
  }
}

class ZipSource extends ListedSource<ZipFileEntry> implements PackageSource {
  readonly kind = 'zip' as const;
  private closed = false;

  constructor(
    path: string,
    private readonly zip: yauzl.ZipFile,
    private readonly reader: FdReader,
    files: ReadonlyMap<string, ZipFileEntry>,
    order: readonly string[],
    private readonly limits: ArchiveLimits,
  ) {
    super(path, files, order);
  }

  open(name: string): Readable {
    const f = this.entry(name);
    const verify = new VerifyStream({ path: name, size: f.size, crc32: f.crc32, sizeCode: 'OCTX_ARCHIVE_CORRUPT' });
    return deferredVerified(
      () =>
        new Promise<Readable>((resolve, reject) => {
          if (this.closed) {
            reject(OctxError.of({ code: 'OCTX_OPEN_ERROR', path: name, message: 'the package is closed' }));
            return;
          }
          // The low-level call skips yauzl's second read of the local header (one more pool
          // round trip per entry): the header was read and checked when the archive was opened.
          // Raw bytes, inflated here with larger output chunks than yauzl's inflater.
          this.zip.openReadStreamLowLevel(f.dataStart, f.compressedSize, 0, f.compressedSize, false, null, (err, raw) => {
            if (err) reject(err);
            else if (f.method === 0) resolve(raw);
            else {
              // A small entry gets a small output buffer: allocating 256 KiB per small document
              // made verifying many small documents several times slower (see BENCHMARKS.md).
              const inflate = createInflateRaw({ chunkSize: Math.max(64, Math.min(INFLATE_CHUNK, f.size + 1)) });
              connect(raw, inflate);
              resolve(inflate);
            }
          });
        }),
      verify,
      mapStreamError,
    );
  }

  async readMany(names: readonly string[], each: (name: string, result: Buffer | OctxError) => void): Promise<void> {
    const entries = names.map((name) => this.entry(name)).sort((a, b) => a.dataStart - b.dataStart);
    // A reference of our own: close() must not release the descriptor under these reads.
    this.reader.holdRef();
    try {
      let scratch: Buffer | undefined;
      // A run: entries whose data lie close together (a local header apart).
      for (const { first, end, start, stop } of runsOf(
        entries.length,
        (k) => entries[k]!.dataStart,
        (k) => entries[k]!.dataStart + entries[k]!.compressedSize,
      )) {
        if (this.closed) throw OctxError.of({ code: 'OCTX_OPEN_ERROR', path: entries[first]!.name, message: 'the package is closed' });
        const span = stop - start;
        let buf: Buffer;
        if (span <= RUN_BYTES) buf = scratch ??= Buffer.allocUnsafe(RUN_BYTES);
        else buf = Buffer.allocUnsafe(span);
        let failure: OctxError | undefined;
        try {
          await readRange(this.reader, buf, span, start);
        } catch (e) {
          failure = mapStreamError(e);
        }
        for (let k = first; k < end; k++) {
          const f = entries[k]!;
          const raw = buf.subarray(f.dataStart - start, f.dataStart - start + f.compressedSize);
          const result = failure ? withPath(failure, f.name) : checkedEntry(f, raw);
          // Data that does not inflate: the stream decides what to report (a stream that saw
          // more than the declared bytes before the damage says so; one whole-entry call cannot).
          each(f.name, result === INFLATE_FAILED ? await this.#streamed(f.name) : result);
        }
      }
    } finally {
      this.reader.dropRef();
    }
  }

  /** One entry through {@link open}: its bytes, or the error the stream raised. */
  async #streamed(name: string): Promise<Buffer | OctxError> {
    try {
      return await collect(this.open(name));
    } catch (e) {
      return withPath(mapStreamError(e), name);
    }
  }

  storedData(name: string): StoredData {
    const f = this.entry(name);
    // Only STORE and DEFLATE pass the checks made when the archive was opened.
    return { method: f.method === 0 ? 'store' : 'deflate', offset: f.dataStart, compressedSize: f.compressedSize, size: f.size, crc32: f.crc32 };
  }

  async readAll(name: string, maxBytes: number = this.limits.maxFileSize): Promise<Buffer> {
    const size = this.size(name);
    if (size > maxBytes) throw tooLarge(name, size, maxBytes);
    return collect(this.open(name));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Unrefs the reader: the descriptor closes once the last open entry stream ends.
    this.zip.close();
  }
}
