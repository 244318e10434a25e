/**
 * Writes one `vectors/<target>.arrow` file (SEED §7, reference §10.6): Arrow IPC *file* format,
 * columns `record_id: utf8 non-null` and `vector: fixed_size_list<float32>[dimensions]
 * non-null` (then `input_sha256: utf8 non-null` when the spill carries input digests — an extra
 * column, which the SEED allows), no body compression, streamed batch by batch from a
 * {@link VectorSpill}.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { open, rm } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { AsyncByteQueue, Message, RecordBatch, RecordBatchFileWriter, Struct, Utf8, makeData, type FixedSizeList, type Float32, type Schema } from 'apache-arrow';
import { OctxError } from '../model/errors.js';
import { VECTOR_TARGET_PATHS } from '../model/paths.js';
import { INPUT_SHA256_HEX_LENGTH, VECTOR_COLUMNS } from '../model/vector-format.js';
import { throwIfAborted } from './abort.js';
import { DEFAULT_BATCH_ROWS } from './arrow-file-size.js';
import { vectorTargetSchema, type VectorTargetColumns } from './arrow-schema.js';
import { writeFully } from '../package/write-fully.js';
import type { VectorRows } from './vector-spill.js';

/**
 * Where one row of the file comes from: the caller's dense record index (as given to the spill)
 * and the record id. The row itself (a `VectorRow` of `model/vector-format.ts`) is assembled
 * batch by batch from the spill; the caller never materialises it.
 */
export interface VectorRowRef {
  readonly recordIndex: number;
  readonly id: string;
}

/** Options of {@link writeArrowTarget}. */
export interface WriteArrowTargetOptions {
  /** Where the vectors are; its `dimensions` become the fixed list size. */
  readonly spill: VectorRows;
  /** Rows in the order to write them (normally the JSONL record order). Read lazily. */
  readonly rows: Iterable<VectorRowRef> | AsyncIterable<VectorRowRef>;
  /** Output file; created or truncated, and removed again when the write fails. Give this or `into`. */
  readonly outPath?: string;
  /**
   * Writes into an open file instead (the archive being written), from `position` on; the handle
   * stays open and nothing is removed on failure (the caller discards the whole file).
   */
  readonly into?: {
    readonly handle: FileHandle;
    readonly position: number;
    /** The file `handle` writes to, named in I/O errors. */
    readonly path: string;
  };
  /** Rows per record batch (default 8192): bounds memory to about batchRows × dimensions × 4 bytes. */
  readonly batchRows?: number;
  /** Cancels the write between batches with `OCTX_ABORTED`. */
  readonly signal?: AbortSignal;
}

/** What was written. */
export interface ArrowTargetResult {
  /** Lower-case hex SHA-256 of the file bytes, hashed as they were written. */
  readonly sha256: string;
  /** File size in bytes. */
  readonly size: number;
  /** CRC-32 of the file bytes. */
  readonly crc32: number;
  /** Number of rows (records) written. */
  readonly rows: number;
}

/**
 * The schema of a vector target file (from the column table, see `arrow-schema.ts`) and the
 * element and list types its batches are built with.
 */
function schemaParts(dimensions: number, digests: boolean): { schema: Schema<VectorTargetColumns>; floatType: Float32; vecType: FixedSizeList<Float32> } {
  const schema = vectorTargetSchema(dimensions, digests);
  const vecType = schema.fields.find((f) => f.name === VECTOR_COLUMNS.vector.name)!.type as FixedSizeList<Float32>;
  return { schema, floatType: vecType.children[0]!.type, vecType };
}

/**
 * apache-arrow's `RecordBatchFileWriter` writes the schema only into the footer: its file body
 * goes straight from the `ARROW1\0\0` magic to the first record batch. The Arrow spec says the
 * body is a complete IPC *stream* (schema message first), and the OCTX reference validator walks
 * the body and rejects a file that does not "begin with a schema message"
 * (`OCTX_VECTOR_ARROW_INVALID`). This subclass restores the schema message right after the
 * magic; the footer, block offsets and everything else stay as apache-arrow writes them.
 */
class SchemaFirstFileWriter extends RecordBatchFileWriter<VectorTargetColumns> {
  protected override _writeSchema(schema: Schema<VectorTargetColumns>): this {
    super._writeSchema(schema); // magic + padding
    return this._writeMessage(Message.from(schema));
  }
}

/**
 * The writer's byte sink. apache-arrow writes every piece of the file synchronously into its
 * sink; this one hashes each piece at once and keeps it until {@link startWrite} hands it to the
 * file. Pieces may view the batch buffers, so a batch's buffers are reused only once its write
 * has finished (see {@link BatchBuffers}): the hot path allocates nothing per batch.
 */
class HashingSink extends AsyncByteQueue {
  readonly #hash = createHash('sha256');
  /** CRC-32 of everything accepted (the ZIP entry's checksum, so the file is never re-read). */
  crc32 = 0;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** Bytes accepted so far. */
  size = 0;

  override write(value: unknown): void {
    if (!ArrayBuffer.isView(value)) throw new TypeError('arrow writer produced a non-buffer chunk');
    const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    if (bytes.byteLength === 0) return;
    this.#hash.update(bytes);
    this.crc32 = crc32(bytes, this.crc32);
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.byteLength;
    this.size += bytes.byteLength;
  }

  /**
   * Starts writing the pending pieces to `fh` at `position` and returns the position after them
   * at once, with the write (which the caller must await before reusing the buffers it views).
   */
  startWrite(fh: FileHandle, position: number): { next: number; written: Promise<void> } {
    const pieces = this.#pending;
    const total = this.#pendingBytes;
    this.#pending = [];
    this.#pendingBytes = 0;
    const written = total === 0 ? Promise.resolve() : writePieces(fh, pieces, position);
    // Awaited later (before the buffers are reused, and before returning); not unhandled meanwhile.
    written.catch(() => undefined);
    return { next: position + total, written };
  }

  /** Hex SHA-256 of everything accepted. */
  digest(): string {
    return this.#hash.digest('hex');
  }
}

/** Writes `pieces` at `position`: writev in groups (IOV_MAX is 1024 on Linux); a short write falls back to plain writes. */
async function writePieces(fh: FileHandle, pieces: readonly Uint8Array[], position: number): Promise<void> {
  let written = 0;
  for (let start = 0; start < pieces.length; start += 512) {
    const group = pieces.slice(start, start + 512);
    const want = group.reduce((s, p) => s + p.byteLength, 0);
    const { bytesWritten } = await fh.writev(group, position + written);
    if (bytesWritten < want) await writeRest(fh, group, bytesWritten, position + written);
    written += want;
  }
}

/**
 * One batch's buffers. There are two sets: while one batch's bytes are being written (the kernel
 * allocating page-cache pages took half of the Arrow phase on the bench machine), the next batch
 * is read from the spill, hashed and laid out in the other set.
 */
interface BatchBuffers {
  readonly flat: Float32Array;
  readonly indexes: Int32Array;
  readonly offsets: Int32Array;
  idBytes: Buffer;
  readonly digestBytes: Uint8Array | undefined;
  /** The write of the last batch laid out here: awaited before this set is filled again. */
  written: Promise<void> | undefined;
}

async function writeRest(fh: FileHandle, pieces: readonly Uint8Array[], skip: number, position: number): Promise<void> {
  let at = 0;
  for (const p of pieces) {
    const from = Math.max(0, skip - at);
    if (from < p.byteLength) await writeFully(fh, p.subarray(from), position + at + from);
    at += p.byteLength;
  }
}

const MAX_BATCH_ROWS = 1 << 20;
const INT32_MAX = 0x7fff_ffff;

/**
 * Writes the vectors of `rows` (in that order) from `spill` as an Arrow IPC file, to `outPath` or
 * into an open file (`into`: the archive).
 *
 * Each record batch is built with `makeData` from one contiguous `Float32Array` (filled by
 * `spill.readRows`) and UTF-8 offsets/bytes, with no per-row objects, and no compression. The
 * SHA-256 is computed from the bytes as they are written (the file is not re-read). The same
 * rows and vectors always give the same bytes; an empty `rows` gives a valid file with the
 * schema and no batches.
 *
 * @throws OctxError `OCTX_VECTOR_COVERAGE` when a row has no vector in the spill, or the spill
 *   holds vectors of records that are not in `rows`; `OCTX_VECTOR_RECORD_ID_DUPLICATE` when a
 *   record index repeats; `OCTX_VECTOR_RECORD_ID_SCHEMA` for an id that is not a well-formed
 *   string; `OCTX_OPTIONS_INVALID` for a bad `batchRows`/`recordIndex`; `OCTX_ABORTED`;
 *   `OCTX_IO_ERROR`. On failure the partial output file is removed.
 */
export async function writeArrowTarget(options: WriteArrowTargetOptions): Promise<ArrowTargetResult> {
  const { spill, rows, outPath, into, signal } = options;
  if ((outPath === undefined) === (into === undefined)) throw new TypeError('writeArrowTarget: give exactly one of outPath and into');
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
  const path = VECTOR_TARGET_PATHS[spill.target];
  // Named in I/O errors: the file, or the entry of the archive.
  const target = outPath ?? `${into!.path} (its entry ${path})`;
  if (!Number.isInteger(batchRows) || batchRows < 1 || batchRows > MAX_BATCH_ROWS) {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', path, field: 'batchRows', message: `batchRows must be an integer in 1…${MAX_BATCH_ROWS}, got ${String(batchRows)}` });
  }
  throwIfAborted(signal);

  const dims = spill.dimensions;
  const digests = spill.hasInputSha256;
  const { schema, floatType, vecType } = schemaParts(dims, digests);
  const utf8Type = new Utf8();
  const structType = new Struct(schema.fields);

  // Batch buffers, two sets allocated once and reused in turn (see BatchBuffers, HashingSink).
  const cap = Array.isArray(rows) ? Math.max(1, Math.min(batchRows, rows.length)) : batchRows;
  const newSet = (): BatchBuffers => ({
    flat: new Float32Array(cap * dims),
    indexes: new Int32Array(cap),
    offsets: new Int32Array(cap + 1),
    idBytes: Buffer.allocUnsafe(cap * 40),
    digestBytes: digests ? new Uint8Array(cap * INPUT_SHA256_HEX_LENGTH) : undefined,
    written: undefined,
  });
  // A file of one batch needs one set only.
  const sets: BatchBuffers[] = [newSet()];
  let set = sets[0]!;
  let seen = new Uint8Array(1024);
  // input_sha256: fixed-width values, so the offsets never change.
  const digestOffsets = digests ? Int32Array.from({ length: cap + 1 }, (_, i) => i * INPUT_SHA256_HEX_LENGTH) : undefined;

  const sink = new HashingSink();
  const writer = new SchemaFirstFileWriter();
  let fh: FileHandle | undefined;
  let created = false;
  let ok = false;
  let position = into?.position ?? 0;
  let n = 0;
  let total = 0;

  /** Starts writing what the sink holds; the write is awaited before `owner` is filled again. */
  const startWrite = (owner: BatchBuffers | undefined): void => {
    const { next, written } = sink.startWrite(fileHandle(), position);
    position = next;
    if (owner) owner.written = written;
    else outstanding.push(written);
  };
  /** Writes not tied to a batch set (magic, schema, footer). */
  const outstanding: Promise<void>[] = [];
  const emit = async (): Promise<void> => {
    throwIfAborted(signal);
    const { flat, indexes, offsets, idBytes, digestBytes } = set;
    spill.readRows(indexes.subarray(0, n), flat);
    const values = n === cap ? flat : flat.subarray(0, n * dims);
    const child = makeData({ type: floatType, length: n * dims, nullCount: 0, data: values });
    const vec = makeData({ type: vecType, length: n, nullCount: 0, child });
    const ids = makeData({ type: utf8Type, length: n, nullCount: 0, valueOffsets: offsets.subarray(0, n + 1), data: idBytes.subarray(0, offsets[n]) });
    const children = [ids, vec];
    if (digestBytes !== undefined && digestOffsets !== undefined) {
      spill.readInputSha256(indexes.subarray(0, n), digestBytes);
      children.push(
        makeData({ type: utf8Type, length: n, nullCount: 0, valueOffsets: digestOffsets.subarray(0, n + 1), data: digestBytes.subarray(0, n * INPUT_SHA256_HEX_LENGTH) }),
      );
    }
    const data = makeData({ type: structType, length: n, nullCount: 0, children });
    writer.write(new RecordBatch(schema, data));
    startWrite(set);
    total += n;
    n = 0;
    switchSets = true;
  };
  /** Moves to the other set for the next batch (the second is made on first use), once its last write is done. */
  let switchSets = false;
  const nextSet = async (): Promise<void> => {
    switchSets = false;
    if (sets.length === 1) sets.push(newSet());
    set = set === sets[0] ? sets[1]! : sets[0]!;
    const previous = set.written;
    set.written = undefined;
    await previous;
  };
  /** Waits for every write started (the first failure is thrown, once all have settled). */
  const settleWrites = async (): Promise<void> => {
    const all = [...outstanding, ...sets.map((x) => x.written).filter((w): w is Promise<void> => w !== undefined)];
    outstanding.length = 0;
    for (const x of sets) x.written = undefined;
    const results = await Promise.allSettled(all);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  };
  const fileHandle = (): FileHandle => {
    if (fh === undefined) throw new Error('unreachable: output not open');
    return fh;
  };
  const iterator: Iterator<VectorRowRef> | AsyncIterator<VectorRowRef> = Symbol.asyncIterator in rows ? rows[Symbol.asyncIterator]() : rows[Symbol.iterator]();
  let exhausted = false;

  try {
    if (into !== undefined) {
      fh = into.handle;
    } else {
      try {
        fh = await open(target, 'w');
      } catch (cause) {
        throw ioError(`cannot create ${target}`, cause);
      }
      created = true;
    }
    writer.reset(sink, schema); // magic + schema message
    startWrite(undefined);

    for (;;) {
      const step = iterator.next();
      // Sync iterables are not awaited per row: a million rows stay a tight loop.
      const r = step instanceof Promise ? await step : step;
      if (r.done === true) {
        exhausted = true;
        break;
      }
      const row = r.value;
      const recordIndex = row.recordIndex;
      const id = row.id;
      if (typeof id !== 'string' || !id.isWellFormed()) {
        throw OctxError.of({ code: 'OCTX_VECTOR_RECORD_ID_SCHEMA', path, message: `row ${total + n} has a record id that is not a well-formed string` });
      }
      if (!Number.isInteger(recordIndex) || recordIndex < 0 || recordIndex > INT32_MAX - 1) {
        throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', path, recordId: id, message: `recordIndex must be a non-negative integer, got ${String(recordIndex)}` });
      }
      if (!spill.has(recordIndex)) {
        throw OctxError.of({ code: 'OCTX_VECTOR_COVERAGE', path, recordId: id, message: 'this record has no vector; a target file must cover every record' });
      }
      if (recordIndex >= seen.length) {
        let len = seen.length * 2;
        while (len <= recordIndex) len *= 2;
        const grown = new Uint8Array(len);
        grown.set(seen);
        seen = grown;
      }
      if (seen[recordIndex] === 1) {
        throw OctxError.of({ code: 'OCTX_VECTOR_RECORD_ID_DUPLICATE', path, recordId: id, message: 'this record is listed twice' });
      }
      seen[recordIndex] = 1;
      if (switchSets) await nextSet();

      const start = set.offsets[n] ?? 0;
      if (start + id.length * 3 > set.idBytes.length) {
        // A new buffer, never the one a running write may still view.
        const grown = Buffer.allocUnsafe(Math.max(set.idBytes.length * 2, start + id.length * 3));
        set.idBytes.copy(grown, 0, 0, start);
        set.idBytes = grown;
      }
      const end = start + set.idBytes.write(id, start, 'utf8');
      if (end > INT32_MAX) {
        throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', path, field: 'batchRows', message: 'the record ids of one batch exceed 2 GiB; use a smaller batchRows' });
      }
      set.indexes[n] = recordIndex;
      set.offsets[n + 1] = end;
      n++;
      if (n === cap) await emit();
    }
    if (n > 0) await emit();
    if (total !== spill.size) {
      throw OctxError.of({
        code: 'OCTX_VECTOR_COVERAGE',
        path,
        message: `the spill holds ${spill.size} vectors but only ${total} rows were listed; every vector must belong to a listed record`,
      });
    }
    throwIfAborted(signal);
    writer.finish(); // end-of-stream marker, footer, magic
    startWrite(undefined);
    await settleWrites();
    const handle = fh;
    fh = undefined;
    if (created) {
      try {
        await handle.close();
      } catch (cause) {
        throw ioError(`cannot close ${target}`, cause);
      }
    }
    ok = true;
    return { sha256: sink.digest(), size: sink.size, crc32: sink.crc32, rows: total };
  } catch (e) {
    // File-system failures (ENOSPC, EIO, …) become OCTX_IO_ERROR; anything else (an OctxError,
    // an error thrown by the caller's row source) passes through unchanged.
    if (isSystemError(e)) throw ioError(`cannot write ${target}`, e);
    throw e;
  } finally {
    // No write may outlive the call: the caller closes (or removes) the file next.
    await settleWrites().catch(() => undefined);
    // Let a generator or cursor behind `rows` release its resources when we stop early.
    if (!exhausted) await Promise.resolve(iterator.return?.()).catch(() => undefined);
    if (fh !== undefined && created) await fh.close().catch(() => undefined);
    if (!ok && created) await rm(target, { force: true }).catch(() => undefined);
  }
}

function isSystemError(e: unknown): boolean {
  return e instanceof Error && !(e instanceof OctxError) && typeof (e as NodeJS.ErrnoException).code === 'string' && typeof (e as NodeJS.ErrnoException).syscall === 'string';
}

function ioError(message: string, cause: unknown): OctxError {
  const detail = cause instanceof Error ? `: ${cause.message}` : '';
  return new OctxError('OCTX_IO_ERROR', message + detail, { cause });
}
