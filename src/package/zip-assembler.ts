import { readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { OctxError } from '../model/errors.js';
import type { ByteSegment } from './payload-spill.js';
import { writeFully } from './write-fully.js';

/** One archive entry whose bytes are ready: compressed (or not), with CRC and sizes known. */
export interface ZipEntryData {
  /** Logical path inside the archive (already validated and NFC). */
  readonly name: string;
  readonly method: 'store' | 'deflate';
  /** CRC-32 of the uncompressed bytes. */
  readonly crc32: number;
  /** Uncompressed size. */
  readonly size: number;
  /** Size of the stored data (equals `size` for STORE). */
  readonly compressedSize: number;
  /** The stored data, in order; their lengths add up to `compressedSize`. */
  readonly segments: readonly ByteSegment[];
  /** Carry ZIP64 size fields whatever the sizes (a streamed entry reserves them before its size is known). */
  readonly zip64?: boolean;
}

/** Options of {@link ZipAssembler.create}. */
export interface AssembleZipOptions {
  /** Write ZIP64 extra fields on every entry (the reference writer does); default: only when needed. */
  readonly forceZip64?: boolean;
  readonly signal?: AbortSignal;
}

const LOCAL_SIG = 0x04034b50;
const CENTRAL_SIG = 0x02014b50;
const EOCD_SIG = 0x06054b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EXTRA_ID = 0x0001;
const MAX_16 = 0xffff;
const MAX_32 = 0xffffffff;
/** Version 4.5 (ZIP64) for entries that need it, 2.0 (DEFLATE) otherwise. */
const VERSION_ZIP64 = 45;
const VERSION_DEFAULT = 20;
/** Made by a Unix host (3), so the external attributes carry a file mode. */
const VERSION_MADE_BY = (3 << 8) | VERSION_ZIP64;
/** General purpose bit 11: the name is UTF-8. */
const FLAG_UTF8 = 0x0800;
/** 1980-01-01 00:00:00 in MS-DOS date/time: timestamps never make identical input differ. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const DOS_TIME = 0;
/** Regular file, rw-r--r--, in the high 16 bits. */
const EXTERNAL_ATTRIBUTES = (0o100644 << 16) >>> 0;
const METHOD = { store: 0, deflate: 8 } as const;
const BUFFER_BYTES = 1 << 20;
/** Source files the assembler keeps open at once (see `ZipAssembler#source`). */
const MAX_OPEN_SOURCES = 16;

/**
 * Segments up to this size are read synchronously. They are a spill's compressed blocks, written
 * moments ago (in the page cache): a read takes microseconds, where an asynchronous one costs a
 * round trip through the libuv pool (~0.1 ms). An export of many small documents makes one per
 * document, one after the other.
 */
const SYNC_READ_BYTES = 64 * 1024;

interface CentralRecord {
  readonly name: Buffer;
  readonly entry: ZipEntryData;
  readonly flags: number;
  readonly offset: number;
}

/** Where a streamed entry's bytes go: the archive's descriptor, from `position` on. */
export interface StreamTarget {
  readonly handle: FileHandle;
  readonly position: number;
}

/** What the writer of a streamed entry reports once its bytes are in the archive. */
export interface StreamedBytes {
  /** Bytes written (the entry is stored: its size and compressed size). */
  readonly size: number;
  /** CRC-32 of those bytes. */
  readonly crc32: number;
}

/**
 * Writes a ZIP (ZIP64 when needed) entry by entry: local header and data for each
 * ({@link ZipAssembler.add} for prepared data, {@link ZipAssembler.addStreamed} for bytes produced
 * straight into the archive), then the central directory in the order the caller chooses and the
 * end records ({@link ZipAssembler.finish}). Every entry has the fixed 1980-01-01 timestamp, Unix
 * mode 0644, the UTF-8 flag when its name is not ASCII, sizes and CRC in the local header (no data
 * descriptors) and no encryption.
 *
 * The SDK writes its own container because no maintained Node ZIP writer accepts data that is
 * already deflated (zip-stream/archiver, yazl and others always compress themselves); taking
 * pre-compressed blocks is what lets compression run while records are being collected, and
 * streamed entries let the Arrow files be written once, into the archive, instead of to a
 * temporary file and copied.
 */
export class ZipAssembler {
  readonly #outPath: string;
  readonly #out: FileHandle;
  readonly #writer: BufferedWriter;
  readonly #sources = new Map<string, FileHandle>();
  readonly #central: CentralRecord[] = [];
  readonly #forceZip64: boolean;
  readonly #signal: AbortSignal | undefined;
  #closed = false;

  private constructor(outPath: string, out: FileHandle, options: AssembleZipOptions) {
    this.#outPath = outPath;
    this.#out = out;
    this.#writer = new BufferedWriter(out);
    this.#forceZip64 = options.forceZip64 ?? false;
    this.#signal = options.signal;
  }

  /**
   * Creates `outPath` (it must not exist) for writing.
   * @throws OctxError `OCTX_IO_ERROR`
   */
  static async create(outPath: string, options: AssembleZipOptions = {}): Promise<ZipAssembler> {
    try {
      return new ZipAssembler(outPath, await open(outPath, 'wx'), options);
    } catch (e) {
      throw ioError(outPath, e);
    }
  }

  /** Entries written so far, in the order they were written. */
  get entries(): readonly ZipEntryData[] {
    return this.#central.map((r) => r.entry);
  }

  /**
   * Writes one entry whose data is ready: its local header, then its segments in order.
   * @throws OctxError `OCTX_IO_ERROR` (a source is short), `OCTX_ABORTED`
   */
  async add(entry: ZipEntryData): Promise<void> {
    await this.#guard(async () => {
      const name = Buffer.from(entry.name, 'utf8');
      const flags = isAscii(name) ? 0 : FLAG_UTF8;
      const offset = this.#writer.position;
      await this.#writer.append(localHeader(name, entry, flags, this.#forceZip64));
      let copied = 0;
      for (const segment of entry.segments) {
        if ('bytes' in segment) {
          await this.#writer.append(segment.bytes);
          copied += segment.bytes.length;
        } else {
          const source = await this.#source(segment.file);
          await this.#writer.copyFrom(source, segment.offset, segment.length, entry.name);
          copied += segment.length;
        }
      }
      if (copied !== entry.compressedSize) throw new OctxError('OCTX_IO_ERROR', `${entry.name}: ${copied} bytes of data for a declared compressed size of ${entry.compressedSize}`);
      this.#central.push({ name, entry, flags, offset });
    });
  }

  /**
   * Writes one stored entry whose bytes `write` produces straight into the archive, from the
   * position it is given (the descriptor is the archive's: `write` must not close it). The local
   * header is reserved first and completed with the size and CRC-32 that `write` reports.
   * `sizeBound` is an upper bound of the size: ZIP64 fields are reserved when it may reach 4 GiB.
   * @throws whatever `write` throws; OctxError `OCTX_IO_ERROR`, `OCTX_ABORTED`
   */
  async addStreamed(entryName: string, sizeBound: number, write: (target: StreamTarget) => Promise<StreamedBytes>): Promise<ZipEntryData> {
    return this.#guard(async () => {
      const name = Buffer.from(entryName, 'utf8');
      const flags = isAscii(name) ? 0 : FLAG_UTF8;
      const zip64 = this.#forceZip64 || sizeBound >= MAX_32;
      const placeholder: ZipEntryData = { name: entryName, method: 'store', crc32: 0, size: 0, compressedSize: 0, segments: [], zip64 };
      const offset = this.#writer.position;
      const header = localHeader(name, placeholder, flags, this.#forceZip64);
      await this.#writer.append(header);
      await this.#writer.flush();
      const dataStart = this.#writer.position;
      let written: StreamedBytes;
      try {
        written = await write({ handle: this.#out, position: dataStart });
      } catch (e) {
        throw new CallerError(e);
      }
      // The bound only decides the ZIP64 fields; a bound that was too low matters only if it hid them.
      if (!zip64 && written.size >= MAX_32)
        throw new OctxError(
          'OCTX_IO_ERROR',
          `${entryName}: ${written.size} bytes written, beyond the announced bound of ${sizeBound} and the 4 GiB a header without ZIP64 fields can state`,
        );
      const entry: ZipEntryData = { name: entryName, method: 'store', crc32: written.crc32, size: written.size, compressedSize: written.size, segments: [], zip64 };
      const final = localHeader(name, entry, flags, this.#forceZip64);
      await writeFully(this.#out, final, offset);
      this.#writer.skip(written.size);
      this.#central.push({ name, entry, flags, offset });
      return entry;
    });
  }

  /**
   * Writes the central directory, listing the entries in `order` (names; default: the order they
   * were written), and the end records, then closes the file.
   * @throws OctxError `OCTX_IO_ERROR`
   */
  async finish(order?: readonly string[]): Promise<void> {
    await this.#guard(async () => {
      let records = this.#central;
      if (order !== undefined) {
        const byName = new Map(this.#central.map((r) => [r.entry.name, r]));
        if (order.length !== this.#central.length || new Set(order).size !== order.length || order.some((n) => !byName.has(n))) {
          throw new Error('unreachable: the central directory order must list every written entry once');
        }
        records = order.map((n) => byName.get(n)!);
      }
      const cdOffset = this.#writer.position;
      for (const record of records) await this.#writer.append(centralHeader(record, this.#forceZip64));
      const cdSize = this.#writer.position - cdOffset;
      await this.#writer.append(endRecords(records.length, cdOffset, cdSize));
      await this.#writer.flush();
    });
    await this.close();
  }

  /**
   * An open handle on `file`. At most {@link MAX_OPEN_SOURCES} stay open, the least recently used
   * closed first: the spills are a handful of files, but copied entries may come from any number
   * of archives (a merge of many shards), interleaved in path order.
   */
  async #source(file: string): Promise<FileHandle> {
    let source = this.#sources.get(file);
    if (source) this.#sources.delete(file);
    else {
      if (this.#sources.size >= MAX_OPEN_SOURCES) {
        const [oldest, handle] = this.#sources.entries().next().value!;
        this.#sources.delete(oldest);
        await handle.close();
      }
      source = await open(file, 'r');
    }
    this.#sources.set(file, source);
    return source;
  }

  /** Closes the archive and every source file (also after a failure; the caller removes the file). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writer.settle();
    for (const s of this.#sources.values()) await s.close().catch(() => undefined);
    this.#sources.clear();
    await this.#out.close().catch(() => undefined);
  }

  /** Runs one step: refuses after close or abort; I/O failures become `OCTX_IO_ERROR`. */
  async #guard<T>(step: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error('unreachable: the archive is closed');
    if (this.#signal?.aborted) throw new OctxError('OCTX_ABORTED', 'export cancelled while writing the archive');
    try {
      return await step();
    } catch (e) {
      if (e instanceof CallerError) throw e.inner;
      if (e instanceof OctxError) throw e;
      throw ioError(this.#outPath, e);
    }
  }
}

function ioError(outPath: string, e: unknown): OctxError {
  return new OctxError('OCTX_IO_ERROR', `writing ${outPath} failed: ${(e as Error).message}`, { cause: e });
}

/** Carries an exception of the caller's code (a streamed entry's writer) through unchanged: it is not ours to reword. */
class CallerError extends Error {
  constructor(readonly inner: unknown) {
    super('the caller failed');
  }
}

function isAscii(bytes: Buffer): boolean {
  for (const b of bytes) if (b >= 0x80) return false;
  return true;
}

function needsZip64Sizes(entry: ZipEntryData, force: boolean): boolean {
  return force || entry.zip64 === true || entry.size >= MAX_32 || entry.compressedSize >= MAX_32;
}

function localHeader(name: Buffer, entry: ZipEntryData, flags: number, force: boolean): Buffer {
  const zip64 = needsZip64Sizes(entry, force);
  // A local ZIP64 field carries both sizes whenever it is present (APPNOTE 4.5.3).
  const extra = zip64 ? [entry.size, entry.compressedSize] : [];
  const h = Buffer.alloc(30 + name.length + zip64ExtraLength(extra));
  h.writeUInt32LE(LOCAL_SIG, 0);
  writeSharedFields(h, 4, entry, { flags, zip64, zip64Sizes: zip64, name, extra });
  name.copy(h, 30);
  writeZip64Extra(h, 30 + name.length, extra);
  return h;
}

function centralHeader({ name, entry, flags, offset }: CentralRecord, force: boolean): Buffer {
  const zip64Sizes = needsZip64Sizes(entry, force);
  const zip64Offset = force || offset >= MAX_32;
  // The central ZIP64 field holds only the values whose legacy field is saturated, in this order.
  const extra: number[] = [];
  if (zip64Sizes) extra.push(entry.size, entry.compressedSize);
  if (zip64Offset) extra.push(offset);
  const h = Buffer.alloc(46 + name.length + zip64ExtraLength(extra));
  h.writeUInt32LE(CENTRAL_SIG, 0);
  h.writeUInt16LE(VERSION_MADE_BY, 4);
  writeSharedFields(h, 6, entry, { flags, zip64: zip64Sizes || zip64Offset, zip64Sizes, name, extra });
  // comment length, disk number start, internal attributes: 0
  h.writeUInt32LE(EXTERNAL_ATTRIBUTES, 38);
  h.writeUInt32LE(zip64Offset ? MAX_32 : offset, 42);
  name.copy(h, 46);
  writeZip64Extra(h, 46 + name.length, extra);
  return h;
}

/** How a header's shared fields are set: ZIP64 version and saturated sizes, the name, the ZIP64 values. */
interface SharedFields {
  readonly flags: number;
  /** The entry needs ZIP64 to extract (sizes or, in the central record, the offset). */
  readonly zip64: boolean;
  /** The 32-bit size fields are saturated: the sizes are in the ZIP64 field. */
  readonly zip64Sizes: boolean;
  readonly name: Buffer;
  readonly extra: readonly number[];
}

/**
 * The ten fields a local header and its central record share, in the same order, from "version
 * needed to extract" to "extra field length" (APPNOTE 4.3.7 and 4.3.12): one writer keeps the two
 * records of an entry from disagreeing.
 */
function writeSharedFields(h: Buffer, at: number, entry: ZipEntryData, f: SharedFields): void {
  h.writeUInt16LE(f.zip64 ? VERSION_ZIP64 : VERSION_DEFAULT, at);
  h.writeUInt16LE(f.flags, at + 2);
  h.writeUInt16LE(METHOD[entry.method], at + 4);
  h.writeUInt16LE(DOS_TIME, at + 6);
  h.writeUInt16LE(DOS_DATE, at + 8);
  h.writeUInt32LE(entry.crc32 >>> 0, at + 10);
  h.writeUInt32LE(f.zip64Sizes ? MAX_32 : entry.compressedSize, at + 14);
  h.writeUInt32LE(f.zip64Sizes ? MAX_32 : entry.size, at + 18);
  h.writeUInt16LE(f.name.length, at + 22);
  h.writeUInt16LE(zip64ExtraLength(f.extra), at + 24);
}

/** Bytes of a ZIP64 extra field holding `values` (none when there are no values). */
function zip64ExtraLength(values: readonly number[]): number {
  return values.length > 0 ? 4 + 8 * values.length : 0;
}

/** Writes the ZIP64 extended-information field holding `values` at `at` (nothing when empty). */
function writeZip64Extra(h: Buffer, at: number, values: readonly number[]): void {
  if (values.length === 0) return;
  h.writeUInt16LE(ZIP64_EXTRA_ID, at);
  h.writeUInt16LE(8 * values.length, at + 2);
  values.forEach((v, i) => h.writeBigUInt64LE(BigInt(v), at + 4 + 8 * i));
}

/** The end-of-central-directory record, preceded by the ZIP64 record and locator when needed. */
function endRecords(count: number, cdOffset: number, cdSize: number): Buffer {
  const zip64 = count >= MAX_16 || cdOffset >= MAX_32 || cdSize >= MAX_32;
  const parts: Buffer[] = [];
  if (zip64) {
    const z = Buffer.alloc(56 + 20);
    z.writeUInt32LE(ZIP64_EOCD_SIG, 0);
    z.writeBigUInt64LE(44n, 4); // size of the rest of this record
    z.writeUInt16LE(VERSION_MADE_BY, 12);
    z.writeUInt16LE(VERSION_ZIP64, 14);
    // disk numbers: 0 (bytes 16–23)
    z.writeBigUInt64LE(BigInt(count), 24);
    z.writeBigUInt64LE(BigInt(count), 32);
    z.writeBigUInt64LE(BigInt(cdSize), 40);
    z.writeBigUInt64LE(BigInt(cdOffset), 48);
    // locator: disk 0, where the ZIP64 record starts, one disk
    z.writeUInt32LE(ZIP64_LOCATOR_SIG, 56);
    z.writeBigUInt64LE(BigInt(cdOffset + cdSize), 64);
    z.writeUInt32LE(1, 72);
    parts.push(z);
  }
  const e = Buffer.alloc(22);
  e.writeUInt32LE(EOCD_SIG, 0);
  // disk numbers: 0 (bytes 4–7)
  e.writeUInt16LE(Math.min(count, MAX_16), 8);
  e.writeUInt16LE(Math.min(count, MAX_16), 10);
  e.writeUInt32LE(Math.min(cdSize, MAX_32), 12);
  e.writeUInt32LE(Math.min(cdOffset, MAX_32), 16);
  parts.push(e);
  return Buffer.concat(parts);
}

/**
 * Sequential output through two 1 MiB buffers: headers and small documents are gathered into
 * large writes, and large segments are read from their files straight into a buffer. While one
 * buffer is being written, the other is filled: reading a spill and writing the archive overlap.
 */
class BufferedWriter {
  readonly #out: FileHandle;
  #buf: Buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  #spare: Buffer | undefined = Buffer.allocUnsafe(BUFFER_BYTES);
  /** The write of the other buffer, still running (it resolves to that buffer). */
  #pending: Promise<Buffer> | undefined;
  #used = 0;
  #flushed = 0;

  constructor(out: FileHandle) {
    this.#out = out;
  }

  /** Bytes written so far, buffered ones included. */
  get position(): number {
    return this.#flushed + this.#used;
  }

  async append(bytes: Buffer): Promise<void> {
    let off = 0;
    while (off < bytes.length) {
      if (this.#used === this.#buf.length) await this.#rotate();
      const n = bytes.copy(this.#buf, this.#used, off);
      this.#used += n;
      off += n;
    }
  }

  /** Copies `length` bytes of `source` from `offset`. */
  async copyFrom(source: FileHandle, offset: number, length: number, entryName: string): Promise<void> {
    let done = 0;
    while (done < length) {
      if (this.#used === this.#buf.length) await this.#rotate();
      const want = Math.min(length - done, this.#buf.length - this.#used);
      const bytesRead =
        want <= SYNC_READ_BYTES ? readSync(source.fd, this.#buf, this.#used, want, offset + done) : (await source.read(this.#buf, this.#used, want, offset + done)).bytesRead;
      if (bytesRead === 0) throw new OctxError('OCTX_IO_ERROR', `${entryName} changed while it was archived: its source ended ${length - done} bytes early`);
      this.#used += bytesRead;
      done += bytesRead;
    }
  }

  /** Writes everything buffered and waits until it is written. */
  async flush(): Promise<void> {
    await this.#rotate();
    await this.#waitPending();
  }

  /**
   * Moves the position past `length` bytes that someone else wrote at it (a streamed entry). The
   * buffers must be flushed first.
   */
  skip(length: number): void {
    if (this.#used !== 0 || this.#pending !== undefined) throw new Error('unreachable: skip() with buffered bytes');
    this.#flushed += length;
  }

  /** Waits for a write still running, ignoring its failure (the archive is being abandoned). */
  async settle(): Promise<void> {
    await this.#pending?.catch(() => undefined);
    this.#pending = undefined;
  }

  /** Starts writing the current buffer and continues in the other one once it is free. */
  async #rotate(): Promise<void> {
    if (this.#used === 0) return;
    await this.#waitPending();
    const buf = this.#buf;
    const length = this.#used;
    const position = this.#flushed;
    this.#pending = writeFully(this.#out, buf.subarray(0, length), position).then(() => buf);
    // Handled where it is awaited (the next rotation, flush or settle); not an unhandled rejection meanwhile.
    this.#pending.catch(() => undefined);
    this.#flushed += length;
    this.#used = 0;
    this.#buf = this.#spare!;
    this.#spare = undefined;
  }

  async #waitPending(): Promise<void> {
    if (this.#pending === undefined) return;
    const pending = this.#pending;
    this.#pending = undefined;
    this.#spare = await pending;
  }
}
