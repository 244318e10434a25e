import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, read } from 'node:fs';
import { readFullySync, writeFullySync } from './fd-io.js';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import pLimit, { type LimitFunction } from 'p-limit';
import { Float64Column, Int32Column } from '../model/record-columns.js';
import { OctxError } from '../model/errors.js';
import type { BackgroundDeflate } from './background-deflate.js';
import { BLOCK_BYTES, DEFLATE_END, DICTIONARY_BYTES, deflateBlock } from './deflate-block.js';

const readAsync = promisify(read);

/** Raw bytes at the end of an entry that is still growing: not a block yet. */
export interface SpilledTail {
  readonly rawOffset: number;
  readonly rawLength: number;
  /** How many raw bytes before it prime its compression (the entry's previous 32 KiB). */
  readonly dictLength: number;
}

/** One payload file held in a {@link PayloadSpill}: its raw bytes, digests and blocks. */
export interface SpilledEntry {
  readonly spill: PayloadSpill;
  /** Offset of the first raw byte in the spill's raw file. */
  readonly rawOffset: number;
  /** Uncompressed size in bytes. */
  readonly size: number;
  /** Lower-case hex SHA-256 of the raw bytes. */
  readonly sha256: string;
  /** CRC-32 of the raw bytes (what the ZIP headers carry). */
  readonly crc32: number;
  /** The entry's full blocks are `[firstBlock, endBlock)`. */
  readonly firstBlock: number;
  readonly endBlock: number;
  /** For a snapshot of a growing entry: the bytes after its last full block. */
  readonly tail?: SpilledTail;
}

/** A byte range of a file, or bytes in memory: what an archive entry's data is made of. */
export type ByteSegment = { readonly file: string; readonly offset: number; readonly length: number } | { readonly bytes: Buffer };

/** Options of {@link PayloadSpill}. */
export interface PayloadSpillOptions {
  /** Raw bytes are appended here: for a JSONL spill this is the final payload file. */
  readonly rawFile: string;
  /** Compressed blocks are appended here, in completion order. */
  readonly deflatedFile: string;
  /** Compresses blocks while the caller adds more; without it blocks wait for export time. */
  readonly background?: BackgroundDeflate;
}

/** Blocks {@link PayloadSpill.compress} runs at once by default: the libuv pool's size. */
export const DEFAULT_COMPRESS_JOBS = 4;

/** Jobs {@link PayloadSpill.compress} keeps in its limiter at once (at least four per slot of it). */
const COMPRESS_WINDOW = 32;

/** Options of {@link PayloadSpill.compress}. */
export interface CompressOptions {
  /** Blocks compressed at the same time on the thread pool (default 4, the pool's size). */
  readonly concurrency?: number;
  /**
   * The limiter to run the jobs under instead (`concurrency` is then ignored): a caller that
   * raises its concurrency later (p-limit's setter) speeds up jobs already queued.
   */
  readonly limit?: LimitFunction;
  readonly signal?: AbortSignal;
}

interface StoredRange {
  readonly offset: number;
  readonly length: number;
}

/**
 * An append-only spill of one or more payload files (entries). Each entry is written once: its
 * raw bytes go to disk as they arrive, hashed (SHA-256 for the manifest, CRC-32 for the ZIP) on
 * the way, and cut into blocks (see `deflate-block.ts`) that are compressed in the background.
 * At export, {@link compress} finishes whatever the background did not, and {@link segments}
 * tells the ZIP writer which bytes to copy: nothing is hashed or compressed twice.
 *
 * Blocks start every {@link BLOCK_BYTES} from the start of their entry, whatever the sizes of the
 * writes and whenever snapshots are taken, so the compressed bytes depend only on the content.
 * `write` is synchronous because `addChunk()` and friends are synchronous fluent calls. It keeps
 * no reference to the buffers it is given: a block handed to the background compressor is read
 * back from the raw file (still in the page cache) with its dictionary, so between cuts the spill
 * holds no raw bytes in memory (keeping each spill's pending writes and previous 1 MiB block
 * would cost up to 2 MiB per spill, one spill per record kind plus the documents; see
 * BENCHMARKS.md).
 */
export class PayloadSpill {
  /** The raw bytes of every entry, back to back. */
  readonly rawFile: string;
  /** Compressed blocks, in the order they completed. */
  readonly deflatedFile: string;
  readonly #background: BackgroundDeflate | undefined;
  #rawFd: number;
  #deflatedFd = -1;
  #rawSize = 0;
  #deflatedSize = 0;
  #error: Error | undefined;

  // The block table, one row per block.
  readonly #blockRawOffset = new Float64Column(64);
  readonly #blockRawLength = new Float64Column(64);
  readonly #blockDictLength = new Float64Column(64);
  /** -1 until compressed. */
  readonly #blockOffset = new Float64Column(64);
  readonly #blockLength = new Float64Column(64);
  /** zlib level of the compressed bytes (0 when not compressed). */
  readonly #blockLevel = new Float64Column(64);
  /** Compressed snapshot tails, by raw offset, length and level. */
  readonly #tails = new Map<string, StoredRange>();

  // The entry being written.
  #entryStart = 0;
  #entryFirstBlock = 0;
  /** Raw offset where the next block starts. */
  #cutOffset = 0;
  #hash: Hash = createHash('sha256');
  #crc = 0;
  /** Raw bytes written after the last cut (on disk only, from `#cutOffset`). */
  #pendingBytes = 0;

  constructor(options: PayloadSpillOptions) {
    this.rawFile = options.rawFile;
    this.deflatedFile = options.deflatedFile;
    this.#background = options.background;
    this.#rawFd = openSync(options.rawFile, 'w+');
  }

  /** Number of blocks cut so far. */
  get blocks(): number {
    return this.#blockRawOffset.length;
  }

  /**
   * Appends bytes to the current entry (the buffer is not kept: the caller may reuse it).
   * @throws OctxError `OCTX_IO_ERROR` when the spill cannot be written
   */
  write(bytes: Buffer): void {
    if (this.#rawFd < 0) throw new OctxError('OCTX_IO_ERROR', `spill ${this.rawFile} is closed`);
    if (bytes.length === 0) return;
    try {
      writeFullySync(this.#rawFd, bytes, 0, bytes.length, this.#rawSize);
    } catch (e) {
      throw ioError(this.rawFile, e);
    }
    this.#rawSize += bytes.length;
    this.#hash.update(bytes);
    this.#crc = crc32(bytes, this.#crc);
    this.#pendingBytes += bytes.length;
    while (this.#pendingBytes >= BLOCK_BYTES) this.#cut(BLOCK_BYTES);
  }

  /** Ends the current entry and starts a new one. */
  endEntry(): SpilledEntry {
    if (this.#pendingBytes > 0) this.#cut(this.#pendingBytes);
    const entry = this.snapshot();
    this.#entryStart = this.#rawSize;
    this.#entryFirstBlock = this.blocks;
    this.#cutOffset = this.#rawSize;
    this.#hash = createHash('sha256');
    this.#crc = 0;
    return entry;
  }

  /**
   * The current entry as written so far, without ending it: a spill that holds one growing file
   * (a JSONL kind) can be planned, refused, and extended afterwards. Bytes after the last full
   * block are described as a tail, compressed only at export, so snapshots never move blocks.
   */
  snapshot(): SpilledEntry {
    return {
      spill: this,
      rawOffset: this.#entryStart,
      size: this.#rawSize - this.#entryStart,
      sha256: this.#hash.copy().digest('hex'),
      crc32: this.#crc,
      firstBlock: this.#entryFirstBlock,
      endBlock: this.blocks,
      ...(this.#pendingBytes > 0 ? { tail: { rawOffset: this.#cutOffset, rawLength: this.#pendingBytes, dictLength: this.#dictLength(this.#cutOffset) } } : {}),
    };
  }

  #dictLength(blockStart: number): number {
    return Math.min(DICTIONARY_BYTES, blockStart - this.#entryStart);
  }

  /**
   * Records the next `length` pending bytes as a block and, when the background compressor has
   * room, reads the block and its dictionary back from the raw file and hands them over. A block
   * it has no room for is compressed at export time, from the same file.
   */
  #cut(length: number): void {
    const start = this.#cutOffset;
    const dictLength = this.#dictLength(start);
    const block = this.#blockRawOffset.push(start);
    this.#blockRawLength.push(length);
    this.#blockDictLength.push(dictLength);
    this.#blockOffset.push(-1);
    this.#blockLength.push(0);
    this.#blockLevel.push(0);
    this.#cutOffset += length;
    this.#pendingBytes -= length;
    const background = this.#background;
    if (!background?.hasRoomFor(dictLength + length)) return;
    const buf = Buffer.allocUnsafe(dictLength + length);
    try {
      readFullySync(this.#rawFd, buf, 0, buf.length, start - dictLength);
    } catch {
      // The bytes are on disk, hashed and cut: the read-back is only an optimisation. The block
      // is compressed at export from the same file, which reports the error if it fails again.
      return;
    }
    background.trySubmit(buf.subarray(dictLength), dictLength > 0 ? buf.subarray(0, dictLength) : undefined, (error, compressed) => {
      // A block the background could not compress stays raw: `compress()` does it at export
      // from the raw file, and fails there, with the cause, if it fails again.
      if (!error) this.#storeBlock(block, background.level, compressed!);
    });
  }

  #storeBlock(block: number, level: number, compressed: Buffer): void {
    const at = this.#appendDeflated(compressed);
    if (at < 0) return;
    this.#blockOffset.set(block, at);
    this.#blockLength.set(block, compressed.length);
    this.#blockLevel.set(block, level);
  }

  /** Appends compressed bytes to the deflated file; -1 when closed or failed. */
  #appendDeflated(compressed: Buffer): number {
    if (this.#rawFd < 0) return -1; // closed (disposed) before the job finished
    try {
      if (this.#deflatedFd < 0) this.#deflatedFd = openSync(this.deflatedFile, 'w+');
      const at = this.#deflatedSize;
      writeFullySync(this.#deflatedFd, compressed, 0, compressed.length, at);
      this.#deflatedSize += compressed.length;
      return at;
    } catch (e) {
      this.#error ??= e as Error;
      return -1;
    }
  }

  /**
   * Compresses, at `level`, every block (and snapshot tail) of `entries` that the background has
   * not compressed at that level, several at once on the thread pool, after waiting for the
   * background jobs. The entries come from `snapshot()`/`endEntry()`.
   * @throws OctxError `OCTX_IO_ERROR`, `OCTX_ABORTED`
   */
  async compress(entries: readonly SpilledEntry[], level: number, options: CompressOptions = {}): Promise<void> {
    // Background jobs still running would otherwise be done twice.
    await this.#background?.settle();
    this.#throwIfFailed();
    const limit = options.limit ?? pLimit(options.concurrency ?? DEFAULT_COMPRESS_JOBS);
    // The work is listed first as block numbers (and the few snapshot tails), then handed to the
    // limiter a window at a time: a job queued per block up front costs a promise, closures and a
    // queue node each, and a build that never yielded leaves a block per document for the export.
    const blocks = new Int32Column();
    const tails: { readonly tail: SpilledTail; readonly key: string }[] = [];
    for (const entry of entries) {
      if (entry.spill !== this) throw new Error('entry belongs to another spill');
      for (let b = entry.firstBlock; b < entry.endBlock; b++) {
        if (this.#blockOffset.get(b) >= 0 && this.#blockLevel.get(b) === level) continue;
        blocks.push(b);
      }
      const tail = entry.tail;
      const key = tail && tailKey(tail, level);
      if (tail && key && !this.#tails.has(key) && !tails.some((t) => t.key === key)) tails.push({ tail, key });
    }
    const deflate = async (rawOffset: number, rawLength: number, dictLength: number): Promise<Buffer> => {
      if (options.signal?.aborted) throw new OctxError('OCTX_ABORTED', 'export cancelled while compressing');
      const buf = Buffer.allocUnsafe(dictLength + rawLength);
      await readFully(this.#rawFd, buf, rawOffset - dictLength);
      return deflateBlock(buf.subarray(dictLength), dictLength > 0 ? buf.subarray(0, dictLength) : undefined, level);
    };
    const work = async (i: number): Promise<void> => {
      if (i < blocks.length) {
        const b = blocks.get(i);
        this.#storeBlock(b, level, await deflate(this.#blockRawOffset.get(b), this.#blockRawLength.get(b), this.#blockDictLength.get(b)));
        return;
      }
      const { tail, key } = tails[i - blocks.length]!;
      const c = await deflate(tail.rawOffset, tail.rawLength, tail.dictLength);
      const offset = this.#appendDeflated(c);
      if (offset >= 0) this.#tails.set(key, { offset, length: c.length });
    };
    const total = blocks.length + tails.length;
    let next = 0;
    let failure: { readonly reason: unknown } | undefined;
    // Each lane keeps one job in the limiter; more lanes than its concurrency keep it busy when a
    // caller raises that concurrency later (p-limit's setter), as queued jobs would.
    const lane = async (): Promise<void> => {
      while (failure === undefined && next < total) {
        const i = next++;
        try {
          await limit(() => work(i));
        } catch (reason) {
          failure ??= { reason };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(total, Math.max(COMPRESS_WINDOW, limit.concurrency * 4)) }, lane));
    if (failure) throw failure.reason instanceof OctxError ? failure.reason : ioError(this.rawFile, failure.reason);
    this.#throwIfFailed();
  }

  /** Size of the entry's DEFLATE stream (its compressed blocks plus the end block). */
  deflatedSize(entry: SpilledEntry, level: number): number {
    let total = DEFLATE_END.length;
    for (const range of this.#deflatedRanges(entry, level)) total += range.length;
    return total;
  }

  /** Where the entry's bytes are: raw (for STORE) or its DEFLATE stream at `level`. */
  segments(entry: SpilledEntry, method: 'store' | 'deflate', level: number): ByteSegment[] {
    if (method === 'store') return entry.size === 0 ? [] : [{ file: this.rawFile, offset: entry.rawOffset, length: entry.size }];
    const out: { file: string; offset: number; length: number }[] = [];
    for (const { offset, length } of this.#deflatedRanges(entry, level)) {
      const last = out[out.length - 1];
      // Blocks that completed in order are adjacent on disk: copy them as one range.
      if (last && last.offset + last.length === offset) last.length += length;
      else out.push({ file: this.deflatedFile, offset, length });
    }
    return [...out, { bytes: DEFLATE_END }];
  }

  *#deflatedRanges(entry: SpilledEntry, level: number): Generator<StoredRange> {
    for (let b = entry.firstBlock; b < entry.endBlock; b++) {
      if (this.#blockOffset.get(b) < 0 || this.#blockLevel.get(b) !== level) throw notCompressed(this.rawFile, level);
      yield { offset: this.#blockOffset.get(b), length: this.#blockLength.get(b) };
    }
    if (entry.tail) {
      const range = this.#tails.get(tailKey(entry.tail, level));
      if (!range) throw notCompressed(this.rawFile, level);
      yield range;
    }
  }

  #throwIfFailed(): void {
    if (this.#error) throw ioError(this.deflatedFile, this.#error);
  }

  /** Closes the files (they are removed with the spill folder). */
  close(): void {
    if (this.#rawFd >= 0) closeSync(this.#rawFd);
    if (this.#deflatedFd >= 0) closeSync(this.#deflatedFd);
    this.#rawFd = -1;
    this.#deflatedFd = -1;
  }
}

function tailKey(tail: SpilledTail, level: number): string {
  return `${tail.rawOffset}:${tail.rawLength}:${level}`;
}

function notCompressed(file: string, level: number): Error {
  return new Error(`part of ${file} is not compressed at level ${level}; call compress() first`);
}

async function readFully(fd: number, buf: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await readAsync(fd, buf, done, buf.length - done, position + done);
    if (bytesRead === 0) throw new Error(`unexpected end of spill file at ${position + done}`);
    done += bytesRead;
  }
}

function ioError(file: string, cause: unknown): OctxError {
  return new OctxError('OCTX_IO_ERROR', `spill ${file}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
}
