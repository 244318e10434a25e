/**
 * The positional reads of a ZIP package: one shared file descriptor behind yauzl
 * ({@link FdReader}), range streams over it, and the runs in which nearby small pieces (local
 * headers, small entries' data) are read with one read.
 */
import { close as fsClose, read as fsRead } from 'node:fs';
import { Readable } from 'node:stream';
import yauzl from 'yauzl';

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
 * small entries in `ZipSource.readMany` (`zip-source.ts`) — nearby pieces are read with one positional read
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
export interface Run {
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
export function* runsOf(count: number, startOf: (i: number) => number, stopOf: (i: number) => number): Generator<Run> {
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
export function readRange(reader: FdReader, buf: Buffer, length: number, position: number): Promise<void> {
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
