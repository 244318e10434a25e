/**
 * The `.octx` ZIP reader: yauzl 3.4.0 walks the central directory and streams the raw entry
 * data (inflated here, with `zlib` and larger output chunks than yauzl's own inflater), and
 * this module adds every check the reference reader applies and yauzl does not (deps.md §8,
 * OCTX-REFERENCE §3.2): raw-name decoding with the UTF-8 flag, path safety, link/special-file
 * modes, encryption and method, local-versus-central header equality, overlapping entries,
 * duplicate names, resource limits, and a CRC-32 check of every byte read. Nothing is ever
 * written to disk: entries are only exposed as streams.
 */
import { close as fsClose, constants as fsConstants, fstat, open as fsOpen, read as fsRead, type Stats } from 'node:fs';
import { Readable } from 'node:stream';
import { crc32 as crc32Of, createInflateRaw, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { OctxError } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import {
  SizeBudget,
  VerifyStream,
  assertNoCollisions,
  checkedWhole,
  assertSafeName,
  collect,
  connect,
  deferredVerified,
  missing,
  safeForMessage,
  tooLarge,
  type PackageSource,
  type RawEntryName,
} from './source.js';
import { preadExact, preadInto, readEndOfCentralDirectory } from './zip-eocd.js';

/** The central directory is held in memory while it is walked; refuse absurd sizes first. */
const MAX_CENTRAL_DIRECTORY_BYTES = 256 * 1024 * 1024;
const LOCAL_HEADER_SIG = 0x04034b50;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_STRONG_ENCRYPTION = 0x0040;
const FLAG_UTF8 = 0x0800;
const FLAG_MASKED_HEADERS = 0x2000;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** "Version made by" hosts whose external attributes carry a Unix mode: Unix and macOS. */
const UNIX_HOSTS: ReadonlySet<number> = new Set([3, 19]);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * yauzl random-access reader over one file descriptor. The central directory region is read
 * into memory once, because yauzl walks it with two tiny reads per entry (yauzl#96: 70 000
 * entries took 9 s with plain fd reads); entry data is streamed with positional reads, so any
 * number of entries can be read concurrently from the one descriptor.
 *
 * yauzl reference-counts the reader (the ZipFile and every open entry stream hold a reference)
 * and closes it when the count drops to zero. A stream destroyed early (a `break`, an abort, a
 * failed sibling read) releases its reference while its last positional read may still be
 * queued on the libuv pool, so closing is deferred until no read is in flight, and reads asked
 * for after `close()` are refused: a recycled descriptor number is never read.
 * @internal exported for tests
 */
export class FdReader extends yauzl.RandomAccessReader {
  private cache: { start: number; buf: Buffer } | undefined;
  private closed = false;
  private inFlight = 0;
  private onClosed: ((err: Error | null) => void) | undefined;

  constructor(private readonly fd: number) {
    super();
  }

  /** Takes one of yauzl's references (untyped in @types/yauzl): the descriptor stays open until {@link dropRef}. */
  holdRef(): void {
    (this as unknown as { ref(): void }).ref();
  }

  /** Gives back a reference of {@link holdRef}; the last one closes the reader. */
  dropRef(): void {
    (this as unknown as { unref(): void }).unref();
  }

  /** Serves reads of `[start, start + buf.length)` from memory. */
  setCache(start: number, buf: Buffer): void {
    this.cache = { start, buf };
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return new RangeStream(this, start, end);
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null, bytesRead?: number) => void): void {
    const c = this.cache;
    if (c && position >= c.start && position + length <= c.start + c.buf.length) {
      c.buf.copy(buffer, offset, position - c.start, position - c.start + length);
      // Asynchronously, like a real read: yauzl's lazy entry loop must not recurse.
      process.nextTick(callback, null, length);
      return;
    }
    this.pread(buffer, offset, length, position, callback);
  }

  /** A positional read of the descriptor, refused once the reader is closing. */
  pread(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null, bytesRead: number) => void): void {
    if (this.closed) {
      process.nextTick(callback, new Error('the archive is closed'), 0);
      return;
    }
    this.inFlight += 1;
    fsRead(this.fd, buffer, offset, length, position, (err, n) => {
      this.inFlight -= 1;
      if (this.closed && this.inFlight === 0) this.release();
      callback(err, n);
    });
  }

  override close(callback: (err: Error | null) => void): void {
    if (this.closed) {
      process.nextTick(callback, null);
      return;
    }
    this.closed = true;
    this.cache = undefined;
    this.onClosed = callback;
    if (this.inFlight === 0) this.release();
  }

  /** Closes the descriptor once `close()` was asked for and the last read has returned. */
  private release(): void {
    const callback = this.onClosed;
    if (callback === undefined) return;
    this.onClosed = undefined;
    fsClose(this.fd, (err) => callback(err ?? null));
  }
}

/**
 * Positional reads of `[start, end)` through the shared {@link FdReader}. Not
 * `fs.createReadStream`: its `destroy()` closes the descriptor even with `autoClose: false`, and
 * yauzl destroys every range stream when an entry ends — which would close the archive under
 * the next entry.
 */
class RangeStream extends Readable {
  private pos: number;

  constructor(
    private readonly reader: FdReader,
    start: number,
    private readonly end: number,
  ) {
    super({ highWaterMark: 1024 * 1024 });
    this.pos = start;
  }

  override _read(size: number): void {
    const n = Math.min(size, this.end - this.pos);
    if (n <= 0) {
      this.push(null);
      return;
    }
    const buf = Buffer.allocUnsafe(n);
    this.reader.pread(buf, 0, n, this.pos, (err, bytes) => {
      if (this.destroyed) return;
      if (err) this.destroy(err);
      else if (bytes === 0) this.destroy(new Error('unexpected EOF'));
      else {
        this.pos += bytes;
        this.push(bytes < n ? buf.subarray(0, bytes) : buf);
      }
    });
  }
}

/**
 * Where the reader needs many small pieces of an archive — every local header at open, the data of
 * small entries in {@link ZipSource.readMany} — nearby pieces are read with one positional read
 * instead of one asynchronous read each (~0.1 ms of round trip apiece: 1,216 documents cost ~120 ms
 * of every open). A run spans at most this many bytes…
 */
export const RUN_BYTES = 1024 * 1024;
/**
 * …and bridges gaps of at most this many bytes (more than a local header with a long name), so
 * that the data of large entries between the pieces is not read for nothing.
 */
export const RUN_GAP_BYTES = 64 * 1024;

/** Pieces `[first, end)` of a list sorted by offset, read together as bytes `[start, stop)`. */
interface Run {
  readonly first: number;
  readonly end: number;
  readonly start: number;
  readonly stop: number;
}

/**
 * Groups `count` pieces, sorted by their first byte (`startOf`; `stopOf` is one past their last),
 * into runs of at most {@link RUN_BYTES} that bridge gaps of at most {@link RUN_GAP_BYTES}; a piece
 * longer than a run is a run of its own.
 */
function* runsOf(count: number, startOf: (i: number) => number, stopOf: (i: number) => number): Generator<Run> {
  let first = 0;
  while (first < count) {
    const start = startOf(first);
    let stop = stopOf(first);
    let end = first + 1;
    for (; end < count; end++) {
      const next = Math.max(stop, stopOf(end));
      if (startOf(end) - stop > RUN_GAP_BYTES || next - start > RUN_BYTES) break;
      stop = next;
    }
    yield { first, end, start, stop };
    first = end;
  }
}

/** Reads `length` bytes at `position` into `buf` through the reader (short reads continue; EOF fails). */
function readRange(reader: FdReader, buf: Buffer, length: number, position: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = 0;
    const step = (): void => {
      if (done === length) {
        resolve();
        return;
      }
      reader.pread(buf, done, length - done, position + done, (err, n) => {
        if (err) reject(err);
        else if (n === 0) reject(new Error('unexpected EOF'));
        else {
          done += n;
          step();
        }
      });
    };
    step();
  });
}

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
  if (f.entry.compressionMethod !== 0) {
    try {
      // One output buffer of the entry's size: zlib's default 16 KiB chunk per small document
      // was garbage that waited for a GC (+8 MiB at the peak of a 2,000-document build).
      bytes = inflateRawSync(raw, { chunkSize: Math.max(64, f.size + 1), maxOutputLength: f.size + 1 });
    } catch {
      return INFLATE_FAILED;
    }
  }
  return checkedWhole({ path: f.name, size: f.size, crc32: f.crc32, sizeCode: 'OCTX_ARCHIVE_CORRUPT' }, bytes.length, crc32Of(bytes)) ?? bytes;
}

/** One regular file of the archive. */
interface ZipFileEntry {
  readonly entry: yauzl.Entry;
  readonly name: string;
  readonly size: number;
  readonly crc32: number;
  /** Offset of the entry's data, from its local header (checked when the archive was opened). */
  readonly dataStart: number;
}

/**
 * Output chunk size of the inflater. zlib's default (16 KiB) costs one libuv pool round trip per
 * 16 KiB of output, and every round trip costs main-thread time (~60 µs on the bench machine):
 * inflating 100 MiB of (repetitive) text took 87 ms with 256 KiB chunks instead of 460 ms.
 */
const INFLATE_CHUNK = 256 * 1024;

function fail(code: 'OCTX_SECURITY_ERROR' | 'OCTX_ARCHIVE_INVALID' | 'OCTX_ARCHIVE_CORRUPT' | 'OCTX_RESOURCE_LIMIT', message: string, path?: string): OctxError {
  return OctxError.of({ code, message, ...(path === undefined ? {} : { path }) });
}

/** Maps a yauzl error raised while the central directory is read. */
function mapOpenError(e: unknown): OctxError {
  if (e instanceof OctxError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (/strong encryption/i.test(message)) return fail('OCTX_SECURITY_ERROR', `encrypted entry: ${message}`);
  if (/size mismatch/i.test(message)) return fail('OCTX_ARCHIVE_CORRUPT', message);
  return fail('OCTX_ARCHIVE_INVALID', message);
}

/** Maps an error raised while an entry is streamed: inflate failures and size lies. */
function mapStreamError(e: unknown): OctxError {
  if (e instanceof OctxError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (/signature|overflows file bounds|unexpected EOF/i.test(message)) return fail('OCTX_ARCHIVE_INVALID', message);
  return fail('OCTX_ARCHIVE_CORRUPT', `entry data unreadable: ${message}`);
}

/** Decodes a raw entry name: strict UTF-8 with bit 11, otherwise ASCII only (§3.2). */
function decodeName(raw: Buffer, flags: number): string {
  if ((flags & FLAG_UTF8) !== 0) {
    try {
      return strictUtf8.decode(raw);
    } catch {
      throw fail('OCTX_ARCHIVE_INVALID', 'an entry name flagged UTF-8 is not valid UTF-8');
    }
  }
  for (const b of raw) {
    if (b >= 0x80) {
      // Without the flag, readers disagree (CP437 vs UTF-8): two tools would see two names.
      throw fail('OCTX_SECURITY_ERROR', `entry name "${safeForMessage(raw.toString('latin1'))}" has non-ASCII bytes but no UTF-8 flag`);
    }
  }
  return raw.toString('latin1');
}

function checkCentralEntry(e: yauzl.Entry, limits: ArchiveLimits, budget: SizeBudget): { name: string; isDirectory: boolean } {
  const flags = e.generalPurposeBitFlag;
  const raw = e.fileNameRaw;
  const decoded = decodeName(raw, flags);
  // Info-ZIP Unicode Path field: another reader may show this name instead; refuse a mismatch.
  for (const x of e.extraFields) {
    if (x.id === 0x7075 && x.data.length >= 5 && x.data[0] === 1) {
      let alt: string;
      try {
        alt = strictUtf8.decode(x.data.subarray(5));
      } catch {
        throw fail('OCTX_SECURITY_ERROR', `entry "${safeForMessage(decoded)}" carries an undecodable Unicode Path field`);
      }
      if (alt !== decoded) throw fail('OCTX_SECURITY_ERROR', `entry "${safeForMessage(decoded)}" carries a different Unicode Path name "${safeForMessage(alt)}"`);
    }
  }
  const isDirectory = decoded.endsWith('/');
  const name = isDirectory ? decoded.slice(0, -1) : decoded;
  assertSafeName(name, 'the ZIP archive');
  if ((flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION | FLAG_MASKED_HEADERS)) !== 0) {
    throw fail('OCTX_SECURITY_ERROR', `entry "${name}" is encrypted`, name);
  }
  if (e.compressionMethod !== 0 && e.compressionMethod !== 8) {
    throw fail('OCTX_SECURITY_ERROR', `entry "${name}" uses compression method ${e.compressionMethod}; only STORE (0) and DEFLATE (8) are allowed`, name);
  }
  // Checked here rather than by yauzl (validateEntrySizes is off for the central directory):
  // yauzl checks before the encryption flag is seen, so an encrypted stored entry was reported
  // as "size mismatch 1334 != 1334". The bytes themselves are counted and CRC-checked on read.
  if (e.compressionMethod === 0 && e.compressedSize !== e.uncompressedSize) {
    throw fail('OCTX_ARCHIVE_CORRUPT', `stored entry "${name}": size mismatch, ${e.compressedSize} bytes stored for ${e.uncompressedSize} bytes of content`, name);
  }
  if (UNIX_HOSTS.has(e.versionMadeBy >>> 8)) {
    const type = (e.externalFileAttributes >>> 16) & S_IFMT;
    const expected = isDirectory ? S_IFDIR : S_IFREG;
    if (type !== 0 && type !== expected) {
      const what = type === S_IFLNK ? 'a symbolic link' : type === S_IFDIR ? 'a directory without a trailing slash' : `a special file (mode ${type.toString(8)})`;
      throw fail('OCTX_SECURITY_ERROR', `entry "${name}" is ${what}; only regular files and directories are allowed`, name);
    }
  }
  budget.entry();
  if (!isDirectory) {
    budget.file(name, e.uncompressedSize);
    if (e.compressionMethod === 8 && e.uncompressedSize > 0) {
      const ratio = e.compressedSize === 0 ? Infinity : e.uncompressedSize / e.compressedSize;
      if (ratio > limits.maxCompressionRatio) {
        throw fail(
          'OCTX_RESOURCE_LIMIT',
          `entry "${name}" expands ${ratio === Infinity ? 'from nothing' : `${ratio.toFixed(1)}:1`}, above maxCompressionRatio ${limits.maxCompressionRatio}`,
          name,
        );
      }
    }
  }
  return { name, isDirectory };
}

/** Bytes of a local header its checks read: the fixed part and the name the central directory gives. */
function localHeadLength(e: yauzl.Entry, fileSize: number): number {
  return Math.min(30 + e.fileNameLength, fileSize - e.relativeOffsetOfLocalHeader);
}

/** What the checks need of one local header, taken while its run is in memory (no bytes kept). */
interface LocalHead {
  readonly signature: number;
  readonly flags: number;
  readonly method: number;
  readonly nameLength: number;
  readonly extraLength: number;
  /** Whether the local name equals the central one (`false` also when it could not be compared: it is read again to say so). */
  readonly nameMatches: boolean;
}

/**
 * The local header of every entry, aligned with `entries`, read in runs of nearby headers in
 * offset order ({@link runsOf}) through one reused buffer. An entry whose header starts past the
 * end of the file gets `undefined` (its check says so).
 */
async function readLocalHeads(fd: number, entries: readonly yauzl.Entry[], fileSize: number): Promise<(LocalHead | undefined)[]> {
  const heads = new Array<LocalHead | undefined>(entries.length);
  const byOffset = entries
    .map((e, i) => i)
    .filter((i) => entries[i]!.relativeOffsetOfLocalHeader + 30 <= fileSize)
    .sort((a, b) => entries[a]!.relativeOffsetOfLocalHeader - entries[b]!.relativeOffsetOfLocalHeader);
  const startOf = (k: number): number => entries[byOffset[k]!]!.relativeOffsetOfLocalHeader;
  let buffer: Buffer | undefined;
  for (const { first, end, start, stop } of runsOf(byOffset.length, startOf, (k) => startOf(k) + localHeadLength(entries[byOffset[k]!]!, fileSize))) {
    if (buffer === undefined || buffer.length < stop - start) buffer = Buffer.allocUnsafe(Math.max(stop - start, 64 * 1024));
    const run = await preadInto(fd, buffer.subarray(0, stop - start), start);
    for (let k = first; k < end; k++) {
      const e = entries[byOffset[k]!]!;
      const at = e.relativeOffsetOfLocalHeader - start;
      const nameLength = run.readUInt16LE(at + 26);
      const nameEnd = at + 30 + nameLength;
      heads[byOffset[k]!] = {
        signature: run.readUInt32LE(at),
        flags: run.readUInt16LE(at + 6),
        method: run.readUInt16LE(at + 8),
        nameLength,
        extraLength: run.readUInt16LE(at + 28),
        nameMatches: nameLength === e.fileNameLength && nameEnd <= at + localHeadLength(e, fileSize) && run.subarray(at + 30, nameEnd).equals(e.fileNameRaw),
      };
    }
  }
  return heads;
}

/** Checks the local header (`head`, read by {@link readLocalHeads}) against the central one; returns the end of the entry's data. */
async function checkLocalHeader(fd: number, e: yauzl.Entry, name: string, fileSize: number, head: LocalHead | undefined): Promise<number> {
  const start = e.relativeOffsetOfLocalHeader;
  if (start + 30 > fileSize || head === undefined) throw fail('OCTX_ARCHIVE_INVALID', `entry "${name}" points outside the archive`, name);
  if (head.signature !== LOCAL_HEADER_SIG) throw fail('OCTX_ARCHIVE_INVALID', `entry "${name}" has no local header at its offset`, name);
  const { flags, method, nameLength, extraLength } = head;
  if (flags !== e.generalPurposeBitFlag) {
    throw fail(
      'OCTX_SECURITY_ERROR',
      `entry "${name}": local header flags 0x${flags.toString(16)} differ from the central directory 0x${e.generalPurposeBitFlag.toString(16)}`,
      name,
    );
  }
  if (method !== e.compressionMethod) {
    throw fail('OCTX_SECURITY_ERROR', `entry "${name}": local header method ${method} differs from the central directory ${e.compressionMethod}`, name);
  }
  if (!head.nameMatches) {
    // Read again only to name it (or to fail on an archive that ends inside it).
    const localName = await preadExact(fd, nameLength, start + 30);
    if (!localName.equals(e.fileNameRaw)) {
      throw fail('OCTX_SECURITY_ERROR', `entry "${name}": local header name "${safeForMessage(localName.toString('latin1'))}" differs from the central directory`, name);
    }
  }
  const dataEnd = start + 30 + nameLength + extraLength + e.compressedSize;
  if (dataEnd > fileSize) throw fail('OCTX_ARCHIVE_INVALID', `entry "${name}" data overflows the archive`, name);
  return dataEnd;
}

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
      throw fail('OCTX_RESOURCE_LIMIT', `the archive declares ${eocd.entryCount} entries, above maxEntries ${limits.maxEntries}`);
    }
    const cdRegion = size - eocd.cdOffset;
    if (cdRegion > MAX_CENTRAL_DIRECTORY_BYTES) throw fail('OCTX_RESOURCE_LIMIT', `the central directory is larger than ${MAX_CENTRAL_DIRECTORY_BYTES} bytes`);
    reader.setCache(eocd.cdOffset, await preadExact(fd, cdRegion, eocd.cdOffset));

    zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
      yauzl.fromRandomAccessReader(reader, size, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false, strictFileNames: true }, (err, z) =>
        err ? reject(mapOpenError(err)) : resolve(z),
      );
    });
    const z = zip;
    if (z.entryCount !== eocd.entryCount) throw fail('OCTX_ARCHIVE_INVALID', 'the archive has inconsistent entry counts');
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
      throw fail('OCTX_ARCHIVE_INVALID', 'the central directory size does not match the headers it contains');
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
      if (end > eocd.cdOffset) throw fail('OCTX_ARCHIVE_INVALID', `entry "${a.name}" overlaps the central directory`, a.name);
      ranges.push({ start: a.entry.relativeOffsetOfLocalHeader, end, name: a.name });
      dataStarts.set(a.entry, end - a.entry.compressedSize);
    }
    ranges.sort((x, y) => x.start - y.start);
    for (let i = 1; i < ranges.length; i++) {
      if (ranges[i]!.start < ranges[i - 1]!.end) {
        throw fail('OCTX_ARCHIVE_INVALID', `entries "${ranges[i - 1]!.name}" and "${ranges[i]!.name}" overlap`);
      }
    }

    const files = new Map<string, ZipFileEntry>();
    const order: string[] = [];
    for (const a of all) {
      if (a.isDirectory) continue;
      files.set(a.name, { entry: a.entry, name: a.name, size: a.entry.uncompressedSize, crc32: a.entry.crc32, dataStart: dataStarts.get(a.entry)! });
      order.push(a.name);
    }
    return new ZipSource(path, z, reader, files, order, limits);
  } catch (e) {
    if (zip) zip.close();
    else reader.close(() => undefined);
    throw mapOpenError(e);
  }
}

class ZipSource implements PackageSource {
  readonly kind = 'zip' as const;
  private closed = false;

  constructor(
    readonly path: string,
    private readonly zip: yauzl.ZipFile,
    private readonly reader: FdReader,
    private readonly files: ReadonlyMap<string, ZipFileEntry>,
    private readonly order: readonly string[],
    private readonly limits: ArchiveLimits,
  ) {}

  names(): readonly string[] {
    return this.order;
  }

  has(name: string): boolean {
    return this.files.has(name);
  }

  size(name: string): number {
    const f = this.files.get(name);
    if (!f) throw missing(name);
    return f.size;
  }

  open(name: string): Readable {
    const f = this.files.get(name);
    if (!f) throw missing(name);
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
          const e = f.entry;
          this.zip.openReadStreamLowLevel(f.dataStart, e.compressedSize, 0, e.compressedSize, false, null, (err, raw) => {
            if (err) reject(err);
            else if (e.compressionMethod === 0) resolve(raw);
            else {
              // A small entry gets a small output buffer: allocating 256 KiB per small document
              // made verifying 8,000 small documents 2.4x slower.
              const inflate = createInflateRaw({ chunkSize: Math.max(64, Math.min(INFLATE_CHUNK, e.uncompressedSize + 1)) });
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
    const entries = names
      .map((name) => {
        const f = this.files.get(name);
        if (!f) throw missing(name);
        return f;
      })
      .sort((a, b) => a.dataStart - b.dataStart);
    // A reference of our own: close() must not release the descriptor under these reads.
    this.reader.holdRef();
    try {
      let scratch: Buffer | undefined;
      // A run: entries whose data lie close together (a local header apart).
      for (const { first, end, start, stop } of runsOf(
        entries.length,
        (k) => entries[k]!.dataStart,
        (k) => entries[k]!.dataStart + entries[k]!.entry.compressedSize,
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
          const raw = buf.subarray(f.dataStart - start, f.dataStart - start + f.entry.compressedSize);
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
