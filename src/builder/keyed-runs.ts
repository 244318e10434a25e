/**
 * Sorted runs on disk, merged back in key order: how a merge orders the union of its shards'
 * records and vectors without holding them. Each shard's entries of a stream (a record kind, a
 * vector target) are sorted by key once the shard is read and appended to that stream's file as
 * one run; at the end the runs of a stream are read back together, a small window of each, and
 * yielded in key order (ties in shard order). So what is held at once is one shard's entries while
 * it is read, then a window per run, whatever the number of shards.
 *
 * The files are written and read synchronously, as the builder's own spills are: they are local
 * temporary files, and the entries go straight into the synchronous `addRecord`/`addVector`.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { writeFullySync } from '../package/fd-io.js';
import { createSpillDir, removeSpillDir } from '../package/spill-dir.js';

/** One entry read back: its key, the shard and line it came from, and its bytes. */
export interface RunEntry {
  readonly key: string;
  readonly shard: number;
  /** The entry's line (a record's line in its JSONL file, a vector's row); for messages. */
  readonly line: number;
  /** The entry's bytes: valid only until the next entry is taken. */
  readonly payload: Buffer;
}

/** Bytes before an entry's key and payload: key length, line, payload length (u32 each). */
const HEADER = 12;
/** Bytes buffered before a run's bytes are written. */
const WRITE_BUFFER = 1024 * 1024;
/** What the windows of all runs of a stream may hold together while they are merged. */
const READ_BUDGET = 8 * 1024 * 1024;
/** The smallest window of one run (grown for an entry that does not fit). */
const MIN_WINDOW = 16 * 1024;

/** A run: the shard it holds and where its bytes lie in the stream's file. */
interface Run {
  readonly shard: number;
  readonly start: number;
  readonly end: number;
}

/** Entries of the shard being read, not yet sorted and written. */
class Pending {
  readonly keys: string[] = [];
  readonly lines: number[] = [];
  readonly starts: number[] = [];
  arena = Buffer.allocUnsafe(64 * 1024);
  used = 0;

  add(key: string, line: number, payload: Uint8Array): void {
    if (this.used + payload.length > this.arena.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.arena.length * 2, this.used + payload.length));
      this.arena.copy(grown, 0, 0, this.used);
      this.arena = grown;
    }
    this.keys.push(key);
    this.lines.push(line);
    this.starts.push(this.used);
    this.arena.set(payload, this.used);
    this.used += payload.length;
  }

  payload(i: number): Buffer {
    const end = i + 1 < this.starts.length ? this.starts[i + 1] : this.used;
    return this.arena.subarray(this.starts[i], end);
  }

  /** Entry indexes in key order (stable: equal keys keep their order). */
  order(): number[] {
    const keys = this.keys;
    const order = keys.map((_, i) => i);
    let sorted = true;
    for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! <= keys[i]!;
    if (!sorted) order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : a - b));
    return order;
  }
}

/** One stream's file and its runs. */
class StreamFile {
  readonly runs: Run[] = [];
  size = 0;
  constructor(
    readonly path: string,
    readonly fd: number,
  ) {}
}

/** A window over one run while the runs of a stream are merged. */
class Cursor {
  private buf: Buffer;
  private at = 0;
  private filled = 0;
  private next: number;
  key = '';
  line = 0;
  payload: Buffer = Buffer.alloc(0);

  constructor(
    private readonly fd: number,
    private readonly run: Run,
    window: number,
  ) {
    this.buf = Buffer.allocUnsafe(window);
    this.next = run.start;
  }

  get shard(): number {
    return this.run.shard;
  }

  /** Makes `n` bytes available at `at`; false at the end of the run. */
  private need(n: number): boolean {
    if (this.filled - this.at >= n) return true;
    const kept = this.filled - this.at;
    if (n > this.buf.length) {
      const grown = Buffer.allocUnsafe(n);
      this.buf.copy(grown, 0, this.at, this.filled);
      this.buf = grown;
    } else this.buf.copy(this.buf, 0, this.at, this.filled);
    this.at = 0;
    this.filled = kept;
    while (this.filled < n && this.next < this.run.end) {
      const want = Math.min(this.buf.length - this.filled, this.run.end - this.next);
      const got = readSync(this.fd, this.buf, this.filled, want, this.next);
      if (got === 0) throw new Error(`run file ended early at ${this.next}`);
      this.filled += got;
      this.next += got;
    }
    return this.filled - this.at >= n;
  }

  /** Moves to the next entry; false at the end of the run. */
  advance(): boolean {
    if (!this.need(HEADER)) return false;
    const keyBytes = this.buf.readUInt32LE(this.at);
    const line = this.buf.readUInt32LE(this.at + 4);
    const payloadBytes = this.buf.readUInt32LE(this.at + 8);
    if (!this.need(HEADER + keyBytes + payloadBytes)) throw new Error('run file ends inside an entry');
    const k = this.at + HEADER;
    this.key = this.buf.toString('utf8', k, k + keyBytes);
    this.line = line;
    this.payload = this.buf.subarray(k + keyBytes, k + keyBytes + payloadBytes);
    this.at = k + keyBytes + payloadBytes;
    return true;
  }
}

/** True when cursor `a`'s entry comes before `b`'s: by key, then by shard. */
function before(a: Cursor, b: Cursor): boolean {
  return a.key < b.key || (a.key === b.key && a.shard < b.shard);
}

/** Sorted runs of keyed entries, one file per stream (see the module comment). */
export class KeyedRuns {
  readonly #dir: string;
  readonly #files = new Map<string, StreamFile>();
  #pending = new Map<string, Pending>();

  /**
   * @param tempDir the folder to spill in (default: the OS temp folder)
   * @throws OctxError as the builder's spill folder (`OCTX_OPTIONS_INVALID`, `OCTX_IO_ERROR`)
   */
  constructor(tempDir?: string) {
    this.#dir = createSpillDir(tempDir);
  }

  /** Adds an entry of the shard being read to `stream` (`payload` is copied). */
  add(stream: string, key: string, line: number, payload: Uint8Array): void {
    let p = this.#pending.get(stream);
    if (p === undefined) {
      p = new Pending();
      this.#pending.set(stream, p);
    }
    p.add(key, line, payload);
  }

  /** Drops the entries added since the last {@link commit} (a shard that is refused). */
  discard(): void {
    this.#pending = new Map();
  }

  /** Sorts the entries added since the last commit by key and writes them as `shard`'s runs. */
  commit(shard: number): void {
    for (const [stream, p] of this.#pending) {
      if (p.keys.length === 0) continue;
      const file = this.#file(stream);
      const start = file.size;
      const out = Buffer.allocUnsafe(WRITE_BUFFER);
      let used = 0;
      const flush = (): void => {
        writeFullySync(file.fd, out, 0, used, file.size);
        file.size += used;
        used = 0;
      };
      for (const i of p.order()) {
        const key = p.keys[i]!;
        const payload = p.payload(i);
        const keyBytes = Buffer.byteLength(key);
        const n = HEADER + keyBytes + payload.length;
        if (used + n > out.length) flush();
        if (n > out.length) {
          // Larger than the buffer: written on its own.
          const one = Buffer.allocUnsafe(n);
          one.writeUInt32LE(keyBytes, 0);
          one.writeUInt32LE(p.lines[i]!, 4);
          one.writeUInt32LE(payload.length, 8);
          one.write(key, HEADER, 'utf8');
          payload.copy(one, HEADER + keyBytes);
          writeFullySync(file.fd, one, 0, n, file.size);
          file.size += n;
          continue;
        }
        out.writeUInt32LE(keyBytes, used);
        out.writeUInt32LE(p.lines[i]!, used + 4);
        out.writeUInt32LE(payload.length, used + 8);
        out.write(key, used + HEADER, 'utf8');
        payload.copy(out, used + HEADER + keyBytes);
        used += n;
      }
      flush();
      file.runs.push({ shard, start, end: file.size });
    }
    this.#pending = new Map();
  }

  /**
   * The entries of `stream`, every run merged: in key order, equal keys in shard order. Each
   * entry's payload is valid until the next one is taken.
   */
  *merged(stream: string): Generator<RunEntry, void, undefined> {
    const file = this.#files.get(stream);
    if (file === undefined) return;
    const window = Math.max(MIN_WINDOW, Math.floor(READ_BUDGET / file.runs.length));
    const heap: Cursor[] = [];
    for (const run of file.runs) {
      const c = new Cursor(file.fd, run, window);
      if (c.advance()) push(heap, c);
    }
    while (heap.length > 0) {
      const c = heap[0]!;
      yield { key: c.key, shard: c.shard, line: c.line, payload: c.payload };
      if (c.advance()) siftDown(heap, 0);
      else {
        const last = heap.pop()!;
        if (heap.length > 0) {
          heap[0] = last;
          siftDown(heap, 0);
        }
      }
    }
  }

  /** Closes and removes the files. */
  async dispose(): Promise<void> {
    for (const f of this.#files.values()) closeSync(f.fd);
    this.#files.clear();
    this.#pending = new Map();
    await removeSpillDir(this.#dir);
  }

  #file(stream: string): StreamFile {
    let f = this.#files.get(stream);
    if (f === undefined) {
      const path = join(this.#dir, `run-${this.#files.size}`);
      f = new StreamFile(path, openSync(path, 'w+', 0o600));
      this.#files.set(stream, f);
    }
    return f;
  }
}

function push(heap: Cursor[], c: Cursor): void {
  heap.push(c);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i]!, heap[parent]!)) break;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

function siftDown(heap: Cursor[], i: number): void {
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
    if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
    if (m === i) return;
    [heap[i], heap[m]] = [heap[m]!, heap[i]!];
    i = m;
  }
}
