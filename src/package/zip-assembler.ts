import { open, type FileHandle } from 'node:fs/promises';
import { OctxError } from '../model/errors.js';
import type { ByteSegment } from './payload-spill.js';

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
}

/** Options of {@link assembleZip}. */
export interface AssembleZipOptions {
  /** Write ZIP64 extra fields on every entry (the reference writer does); default: only when needed. */
  readonly forceZip64?: boolean;
  /** Called after each entry is written (progress). */
  readonly onEntry?: (index: number) => void;
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

interface CentralRecord {
  readonly name: Buffer;
  readonly entry: ZipEntryData;
  readonly flags: number;
  readonly offset: number;
}

/**
 * Writes a ZIP (ZIP64 when needed) from entries whose data is already prepared: local header,
 * data, central directory, end records. Entries keep the given order; every entry has the fixed
 * 1980-01-01 timestamp, Unix mode 0644, the UTF-8 flag when its name is not ASCII, sizes and CRC
 * in the local header (no data descriptors) and no encryption.
 *
 * The SDK writes its own container because no maintained Node ZIP writer accepts data that is
 * already deflated (zip-stream/archiver, yazl and others always compress themselves); taking
 * pre-compressed blocks is what lets compression run while records are being collected.
 * @throws OctxError `OCTX_IO_ERROR` (the target exists, a source is short), `OCTX_ABORTED`
 */
export async function assembleZip(outPath: string, entries: readonly ZipEntryData[], options: AssembleZipOptions = {}): Promise<void> {
  let out: FileHandle | undefined;
  const sources = new Map<string, FileHandle>();
  try {
    out = await open(outPath, 'wx');
    const writer = new BufferedWriter(out);
    const central: CentralRecord[] = [];
    for (const [index, entry] of entries.entries()) {
      if (options.signal?.aborted) throw new OctxError('OCTX_ABORTED', 'export cancelled while writing the archive');
      const name = Buffer.from(entry.name, 'utf8');
      const flags = isAscii(name) ? 0 : FLAG_UTF8;
      const offset = writer.position;
      await writer.append(localHeader(name, entry, flags, options.forceZip64 ?? false));
      let copied = 0;
      for (const segment of entry.segments) {
        if ('bytes' in segment) {
          await writer.append(segment.bytes);
          copied += segment.bytes.length;
        } else {
          let source = sources.get(segment.file);
          if (!source) {
            source = await open(segment.file, 'r');
            sources.set(segment.file, source);
          }
          await writer.copyFrom(source, segment.offset, segment.length, entry.name);
          copied += segment.length;
        }
      }
      if (copied !== entry.compressedSize) throw new OctxError('OCTX_IO_ERROR', `${entry.name}: ${copied} bytes of data for a declared compressed size of ${entry.compressedSize}`);
      central.push({ name, entry, flags, offset });
      try {
        options.onEntry?.(index);
      } catch (e) {
        throw new CallerError(e);
      }
    }
    const cdOffset = writer.position;
    for (const record of central) await writer.append(centralHeader(record, options.forceZip64 ?? false));
    const cdSize = writer.position - cdOffset;
    await writer.append(endRecords(central.length, cdOffset, cdSize));
    await writer.flush();
  } catch (e) {
    if (e instanceof CallerError) throw e.inner;
    if (e instanceof OctxError) throw e;
    throw new OctxError('OCTX_IO_ERROR', `writing ${outPath} failed: ${(e as Error).message}`, { cause: e });
  } finally {
    for (const s of sources.values()) await s.close().catch(() => undefined);
    await out?.close().catch(() => undefined);
  }
}

/** Carries an exception of the caller's `onEntry` through unchanged (it is not an I/O error). */
class CallerError extends Error {
  constructor(readonly inner: unknown) {
    super('onEntry failed');
  }
}

function isAscii(bytes: Buffer): boolean {
  for (const b of bytes) if (b >= 0x80) return false;
  return true;
}

function needsZip64Sizes(entry: ZipEntryData, force: boolean): boolean {
  return force || entry.size >= MAX_32 || entry.compressedSize >= MAX_32;
}

function localHeader(name: Buffer, entry: ZipEntryData, flags: number, force: boolean): Buffer {
  const zip64 = needsZip64Sizes(entry, force);
  const extraLength = zip64 ? 20 : 0;
  const h = Buffer.alloc(30 + name.length + extraLength);
  h.writeUInt32LE(LOCAL_SIG, 0);
  h.writeUInt16LE(zip64 ? VERSION_ZIP64 : VERSION_DEFAULT, 4);
  h.writeUInt16LE(flags, 6);
  h.writeUInt16LE(METHOD[entry.method], 8);
  h.writeUInt16LE(DOS_TIME, 10);
  h.writeUInt16LE(DOS_DATE, 12);
  h.writeUInt32LE(entry.crc32 >>> 0, 14);
  h.writeUInt32LE(zip64 ? MAX_32 : entry.compressedSize, 18);
  h.writeUInt32LE(zip64 ? MAX_32 : entry.size, 22);
  h.writeUInt16LE(name.length, 26);
  h.writeUInt16LE(extraLength, 28);
  name.copy(h, 30);
  if (zip64) {
    // A local ZIP64 field carries both sizes (APPNOTE 4.5.3).
    const x = 30 + name.length;
    h.writeUInt16LE(ZIP64_EXTRA_ID, x);
    h.writeUInt16LE(16, x + 2);
    h.writeBigUInt64LE(BigInt(entry.size), x + 4);
    h.writeBigUInt64LE(BigInt(entry.compressedSize), x + 12);
  }
  return h;
}

function centralHeader({ name, entry, flags, offset }: CentralRecord, force: boolean): Buffer {
  const zip64Sizes = needsZip64Sizes(entry, force);
  const zip64Offset = force || offset >= MAX_32;
  // The central ZIP64 field holds only the values whose legacy field is saturated, in this order.
  const fields: number[] = [];
  if (zip64Sizes) fields.push(entry.size, entry.compressedSize);
  if (zip64Offset) fields.push(offset);
  const extraLength = fields.length > 0 ? 4 + 8 * fields.length : 0;
  const h = Buffer.alloc(46 + name.length + extraLength);
  h.writeUInt32LE(CENTRAL_SIG, 0);
  h.writeUInt16LE(VERSION_MADE_BY, 4);
  h.writeUInt16LE(zip64Sizes || zip64Offset ? VERSION_ZIP64 : VERSION_DEFAULT, 6);
  h.writeUInt16LE(flags, 8);
  h.writeUInt16LE(METHOD[entry.method], 10);
  h.writeUInt16LE(DOS_TIME, 12);
  h.writeUInt16LE(DOS_DATE, 14);
  h.writeUInt32LE(entry.crc32 >>> 0, 16);
  h.writeUInt32LE(zip64Sizes ? MAX_32 : entry.compressedSize, 20);
  h.writeUInt32LE(zip64Sizes ? MAX_32 : entry.size, 24);
  h.writeUInt16LE(name.length, 28);
  h.writeUInt16LE(extraLength, 30);
  // comment length, disk number start, internal attributes: 0
  h.writeUInt32LE(EXTERNAL_ATTRIBUTES, 38);
  h.writeUInt32LE(zip64Offset ? MAX_32 : offset, 42);
  name.copy(h, 46);
  if (fields.length > 0) {
    let x = 46 + name.length;
    h.writeUInt16LE(ZIP64_EXTRA_ID, x);
    h.writeUInt16LE(8 * fields.length, x + 2);
    x += 4;
    for (const v of fields) {
      h.writeBigUInt64LE(BigInt(v), x);
      x += 8;
    }
  }
  return h;
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
 * Sequential output through one 1 MiB buffer: headers and small documents are gathered into
 * large writes, and large segments are read from their files straight into the buffer.
 */
class BufferedWriter {
  readonly #out: FileHandle;
  readonly #buf = Buffer.allocUnsafe(BUFFER_BYTES);
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
      if (this.#used === this.#buf.length) await this.flush();
      const n = bytes.copy(this.#buf, this.#used, off);
      this.#used += n;
      off += n;
    }
  }

  /** Copies `length` bytes of `source` from `offset`. */
  async copyFrom(source: FileHandle, offset: number, length: number, entryName: string): Promise<void> {
    let done = 0;
    while (done < length) {
      if (this.#used === this.#buf.length) await this.flush();
      const want = Math.min(length - done, this.#buf.length - this.#used);
      const { bytesRead } = await source.read(this.#buf, this.#used, want, offset + done);
      if (bytesRead === 0) throw new OctxError('OCTX_IO_ERROR', `${entryName} changed while it was archived: its source ended ${length - done} bytes early`);
      this.#used += bytesRead;
      done += bytesRead;
    }
  }

  async flush(): Promise<void> {
    let written = 0;
    while (written < this.#used) {
      const { bytesWritten } = await this.#out.write(this.#buf, written, this.#used - written, this.#flushed + written);
      written += bytesWritten;
    }
    this.#flushed += this.#used;
    this.#used = 0;
  }
}
