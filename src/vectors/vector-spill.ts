/**
 * On-disk store for one target's vectors while an export runs. Vectors arrive in embedding
 * order but are written in record order, and a million 1024-wide vectors are 4 GB, so they go
 * to a spill file as raw float32 rows and only a small slot index stays in memory.
 */
import { closeSync, openSync } from 'node:fs';
import { OctxError } from '../model/errors.js';
import { readFullySync, writeFullySync } from '../package/fd-io.js';
import { VECTOR_TARGET_PATHS } from '../model/paths.js';
import { MAX_VECTOR_DIMENSIONS } from './config.js';
import { INPUT_SHA256_HEX_LENGTH, INPUT_SHA256_PATTERN, VECTOR_COLUMNS } from '../model/vector-format.js';
import type { VectorTarget } from './targets.js';

/** Options of {@link VectorSpill}. */
export interface VectorSpillOptions {
  /** Spill file path; created, or truncated when it exists. The caller owns (and removes) it. */
  readonly file: string;
  /** Target whose vectors this holds (used in error locations). */
  readonly target: VectorTarget;
  /** Vector width: every added vector must have exactly this many elements. */
  readonly dimensions: number;
  /** When true, vectors whose L2 norm is not within 1e-3 of 1 are counted in `normWarnings`. */
  readonly normalized: boolean;
  /**
   * @internal Largest single read of {@link VectorSpill.readRows} (default
   * {@link READ_CHUNK_BYTES}); tests lower it to exercise the chunked path without gigabytes.
   */
  readonly readChunkBytes?: number;
}

/** Options of {@link VectorSpill.add}. */
export interface VectorSpillAddOptions {
  /**
   * The row's `input_sha256` (64 lower-case hex digits). All or none: every vector of a spill
   * carries one, or none does.
   */
  readonly inputSha256?: string;
  /**
   * Replace the record's vector when it has one (the new row is appended and the record's slot
   * points at it; the old row stays in the file, unreferenced). Without it a second vector for
   * a record is `OCTX_VECTOR_RECORD_ID_DUPLICATE`.
   */
  readonly replace?: boolean;
}

/**
 * Largest single positional read. `fs.readSync` refuses a length of 2^31 bytes or more (one
 * 8,192-row batch at width 65,536 is exactly 2^31), and one huge read is no faster than a few
 * large ones.
 */
export const READ_CHUNK_BYTES = 256 * 1024 * 1024;

/** Vectors of a `normalized: true` config that are not unit length. */
export interface NormWarnings {
  /** How many vectors had |norm − 1| > {@link NORM_TOLERANCE}. */
  readonly count: number;
  /** Record ids of the first (up to 10) such vectors. */
  readonly sample: readonly string[];
}

/** Allowed deviation of a vector's L2 norm from 1 when the config says `normalized: true`. */
export const NORM_TOLERANCE = 1e-3;
const NORM_SAMPLE = 10;
/** Shared default of {@link VectorSpill.add}: a `= {}` default would allocate one per vector. */
const NO_ADD_OPTIONS: VectorSpillAddOptions = Object.freeze({});
const WRITE_BUFFER_BYTES = 1 << 20;
/** Slot indexes are int32; keep recordIndex below that too. */
const MAX_RECORD_INDEX = 0x7fff_fffe;
/** Bytes of one stored digest: the 64 ASCII hex digits, exactly as the Arrow column holds them. */
export const DIGEST_BYTES = INPUT_SHA256_HEX_LENGTH;
const INPUT_SHA256_COLUMN = VECTOR_COLUMNS.inputSha256.name;

/**
 * A target's vectors as an export reads them: a {@link VectorSpill}, or a frozen view of one
 * ({@link VectorSpill.freeze}). Record indexes are the caller's dense ids.
 */
export interface VectorRows {
  readonly target: VectorTarget;
  readonly dimensions: number;
  /** Number of records with a vector. */
  readonly size: number;
  /** True when the vectors carry input digests. */
  readonly hasInputSha256: boolean;
  /** Non-unit vectors of a `normalized: true` config. */
  readonly normWarnings: NormWarnings;
  /** True when the record has a vector. */
  has(recordIndex: number): boolean;
  /** See {@link VectorSpill.readRows}. */
  readRows(recordIndexes: Int32Array | readonly number[], into: Float32Array): void;
  /** See {@link VectorSpill.readInputSha256}. */
  readInputSha256(recordIndexes: Int32Array | readonly number[], into: Uint8Array): void;
}

/** A {@link VectorSpill} frozen at one point; {@link release} it once the export that read it ends. */
export interface FrozenVectorRows extends VectorRows {
  /** Stops keeping the rows that later replacements would otherwise hide from this view. */
  release(): void;
}

/** What a frozen view needs: rows written by then, and the slots replaced since (record → old slot). */
interface FrozenState {
  readonly rows: number;
  readonly saved: Map<number, number>;
}

/**
 * Holds one target's vectors on disk, not in memory. Rows are appended to the spill file as
 * native-endian float32 (little-endian on every platform Node supports, which is also the
 * byte order Arrow buffers use), through a ~1 MiB buffer flushed with `fs.writeSync`. An
 * `Int32Array` indexed by the caller's dense `recordIndex` maps each record to its row slot
 * (-1 = absent): 4 bytes per record.
 *
 * `add` is synchronous and allocation-free: it validates while copying into the write buffer
 * and computes the L2 norm in the same pass. {@link readRows} fills a contiguous
 * `Float32Array` for a batch of records, one positional read per run of consecutive slots.
 *
 * Input digests (`input_sha256`), when given, go to a second file (`<file>.sha`, created on the
 * first digest) as 64 ASCII bytes per row slot, so memory stays at 4 bytes per record.
 */
export class VectorSpill implements VectorRows {
  /** Target of these vectors. */
  readonly target: VectorTarget;
  /** Vector width. */
  readonly dimensions: number;
  /** Whether the config declares normalised vectors (enables the norm check). */
  readonly normalized: boolean;
  /** Spill file path. */
  readonly file: string;

  readonly #rowBytes: number;
  readonly #path: string;
  #fd: number;
  readonly #readChunk: number;
  #closed = false;
  /** Write buffer; `#bufFloats` views the same memory for allocation-free copies. */
  readonly #buf: Uint8Array;
  readonly #bufFloats: Float32Array;
  #bufBytes = 0;
  /** Rows already written to the file (the buffer holds the rows after these). */
  #flushedRows = 0;
  /** Rows appended to the file (a replaced vector leaves its old row behind). */
  #rows = 0;
  /** Records with a vector. */
  #count = 0;
  #slots: Int32Array;
  /** Digest mode, fixed by the first vector: all rows carry an input digest, or none does. */
  #digests: 'unset' | 'with' | 'without' = 'unset';
  #digestFd: number | undefined;
  /** Digest write buffer: `DIGEST_BYTES` per row of `#buf`, flushed with it. */
  #digestBuf: Uint8Array | undefined;
  #normCount = 0;
  readonly #normSample: string[] = [];
  /** Frozen views not yet released (see {@link VectorSpill.freeze}). */
  readonly #frozen = new Set<FrozenState>();

  /**
   * Opens (creating or truncating) the spill file.
   * @throws OctxError `OCTX_VECTOR_DIMENSION_INVALID` for a width outside 1…65 536;
   *   `OCTX_IO_ERROR` when the file cannot be opened.
   */
  constructor(options: VectorSpillOptions) {
    const { file, target, dimensions, normalized } = options;
    this.#path = VECTOR_TARGET_PATHS[target];
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_VECTOR_DIMENSIONS) {
      throw OctxError.of({
        code: 'OCTX_VECTOR_DIMENSION_INVALID',
        path: this.#path,
        message: `dimensions must be an integer in 1…${MAX_VECTOR_DIMENSIONS}, got ${String(dimensions)}`,
      });
    }
    this.file = file;
    this.target = target;
    this.dimensions = dimensions;
    this.normalized = normalized;
    this.#rowBytes = dimensions * 4;
    this.#readChunk = Math.max(1, Math.floor(options.readChunkBytes ?? READ_CHUNK_BYTES));
    // A row never straddles two flushes: the buffer holds a whole number of rows (at least one).
    const bufRows = Math.max(1, Math.floor(WRITE_BUFFER_BYTES / this.#rowBytes));
    const ab = new ArrayBuffer(bufRows * this.#rowBytes);
    this.#buf = new Uint8Array(ab);
    this.#bufFloats = new Float32Array(ab);
    this.#slots = new Int32Array(1024).fill(-1);
    try {
      this.#fd = openSync(file, 'w+');
    } catch (cause) {
      throw ioError(`cannot open vector spill file ${file}`, cause);
    }
  }

  /** Number of records with a vector. */
  get size(): number {
    return this.#count;
  }

  /** True when the vectors carry input digests (all of them do, see {@link VectorSpillAddOptions}). */
  get hasInputSha256(): boolean {
    return this.#digests === 'with';
  }

  /** File of the input digests (exists only when {@link hasInputSha256}). */
  get digestFile(): string {
    return `${this.file}.sha`;
  }

  /** Non-unit vectors seen so far (always zero when `normalized` is false). */
  get normWarnings(): NormWarnings {
    return { count: this.#normCount, sample: this.#normSample.slice() };
  }

  /** True when a vector was added for `recordIndex`. */
  has(recordIndex: number): boolean {
    return recordIndex >= 0 && recordIndex < this.#slots.length && (this.#slots[recordIndex] ?? -1) >= 0;
  }

  /**
   * Adds the vector of one record.
   * @param recordIndex dense non-negative integer the caller assigned to this record
   * @param recordId the record's id, for messages
   * @throws OctxError `OCTX_VECTOR_VALUE_INVALID` (field `vector`) for a value that is not a
   *   number[], Float32Array or Float64Array, a wrong length, or an element that is not a finite
   *   number; `OCTX_VECTOR_RECORD_ID_DUPLICATE` when this record already has a vector (and
   *   `replace` is not set); `OCTX_VECTOR_INPUT_SHA256_INVALID` (field `input_sha256`) for a
   *   malformed digest, or a digest given for some vectors of the spill but not others;
   *   `OCTX_OPTIONS_INVALID` for a bad recordIndex; `OCTX_IO_ERROR` when flushing fails.
   *   Nothing is stored when it throws.
   */
  add(recordIndex: number, recordId: string, vector: Float32Array | Float64Array | readonly number[], options: VectorSpillAddOptions = NO_ADD_OPTIONS): void {
    this.#ensureOpen();
    const digest = options.inputSha256;
    if (digest !== undefined && (typeof digest !== 'string' || !INPUT_SHA256_PATTERN.test(digest))) {
      throw OctxError.of({
        code: 'OCTX_VECTOR_INPUT_SHA256_INVALID',
        path: this.#path,
        recordId,
        field: INPUT_SHA256_COLUMN,
        message: 'input_sha256 must be 64 lower-case hex digits',
      });
    }
    const mode = digest === undefined ? 'without' : 'with';
    if (this.#digests !== 'unset' && this.#digests !== mode) {
      throw OctxError.of({
        code: 'OCTX_VECTOR_INPUT_SHA256_INVALID',
        path: this.#path,
        recordId,
        field: INPUT_SHA256_COLUMN,
        message:
          mode === 'with'
            ? `this record's vector has an input digest, but the ${this.target} vectors added before have none; a target carries input_sha256 on every row or on none`
            : `this record's vector has no input digest, but the ${this.target} vectors added before have one; a target carries input_sha256 on every row or on none`,
      });
    }
    if (!Number.isInteger(recordIndex) || recordIndex < 0 || recordIndex > MAX_RECORD_INDEX) {
      throw OctxError.of({
        code: 'OCTX_OPTIONS_INVALID',
        path: this.#path,
        recordId,
        message: `recordIndex must be an integer in 0…${MAX_RECORD_INDEX}, got ${String(recordIndex)}`,
      });
    }
    // Only real vectors: an array-like object ({ length: 3 }) or a string would be read element
    // by element as something else, and null has no length at all.
    if (!Array.isArray(vector) && !(vector instanceof Float32Array) && !((vector as unknown) instanceof Float64Array)) {
      throw OctxError.of({
        code: 'OCTX_VECTOR_VALUE_INVALID',
        path: this.#path,
        recordId,
        field: 'vector',
        message: `a vector must be an array of numbers, a Float32Array or a Float64Array (got ${describeValue(vector)})`,
      });
    }
    const dims = this.dimensions;
    if (vector.length !== dims) {
      throw OctxError.of({
        code: 'OCTX_VECTOR_VALUE_INVALID',
        path: this.#path,
        recordId,
        field: 'vector',
        message: `vector has ${vector.length} elements, expected ${dims}`,
      });
    }
    if (this.#bufBytes + this.#rowBytes > this.#buf.byteLength) this.flush();

    // Straight into the write buffer, no copy in between. A failure leaves #bufBytes unchanged,
    // so the partial row is simply overwritten by the next add.
    const base = this.#bufBytes >>> 2;
    const sumSq = Array.isArray(vector) ? this.#copyArray(vector, base, recordId) : this.#copyTyped(vector as Float32Array | Float64Array, base, recordId);
    const replacing = this.has(recordIndex);
    if (replacing && options.replace !== true) {
      throw OctxError.of({ code: 'OCTX_VECTOR_RECORD_ID_DUPLICATE', path: this.#path, recordId, message: 'this record already has a vector' });
    }
    if (digest !== undefined) this.#bufferDigest(digest);

    this.#digests = mode;
    this.#bufBytes += this.#rowBytes;
    this.#setSlot(recordIndex, this.#rows);
    this.#rows++;
    if (!replacing) this.#count++;
    if (this.normalized && Math.abs(Math.sqrt(sumSq) - 1) > NORM_TOLERANCE) {
      this.#normCount++;
      if (this.#normSample.length < NORM_SAMPLE) this.#normSample.push(recordId);
    }
  }

  /**
   * Copies a plain array into the write buffer at float `base`, checking each element (and its
   * stored float32 value) while writing it — a typed-array `set` would coerce strings and call
   * `valueOf`; returns the sum of squares of the stored values.
   */
  #copyArray(vector: readonly number[], base: number, recordId: string): number {
    const floats = this.#bufFloats;
    const dims = this.dimensions;
    let sumSq = 0;
    for (let i = 0; i < dims; i++) {
      const x = vector[i];
      if (typeof x !== 'number' || !Number.isFinite(x)) throw this.#elementError(recordId, i, x, false);
      floats[base + i] = x;
      // Stored float32 value: what a consumer will see, and an overflow to Infinity shows here.
      const f = floats[base + i] as number;
      if (!Number.isFinite(f)) throw this.#elementError(recordId, i, x, true);
      sumSq += f * f;
    }
    return sumSq;
  }

  /**
   * Copies a Float32Array or Float64Array into the write buffer at float `base` with one native
   * `set` (a plain copy for float32, float64 → float32 rounding otherwise), then checks the stored
   * values in one pass: a NaN or ±Infinity among them (given, or a float64 beyond the float32
   * range) makes the sum of squares non-finite. Returns that sum.
   */
  #copyTyped(vector: Float32Array | Float64Array, base: number, recordId: string): number {
    const floats = this.#bufFloats;
    const dims = this.dimensions;
    floats.set(vector, base);
    let sumSq = 0;
    for (let i = base, end = base + dims; i < end; i++) {
      const f = floats[i] as number;
      sumSq += f * f;
    }
    // float32 squares are below 2^256 and rows hold at most 2^16 of them: finite unless an element is not.
    if (!Number.isFinite(sumSq)) this.#throwNonFinite(vector, base, recordId);
    return sumSq;
  }

  /** Finds the first stored element that is not finite and throws its error (the slow path). */
  #throwNonFinite(vector: Float32Array | Float64Array, base: number, recordId: string): never {
    const floats = this.#bufFloats;
    for (let i = 0; i < this.dimensions; i++) {
      if (!Number.isFinite(floats[base + i])) throw this.#elementError(recordId, i, vector[i], Number.isFinite(vector[i]));
    }
    throw new Error('unreachable: a non-finite sum of squares without a non-finite element');
  }

  /** `OCTX_VECTOR_VALUE_INVALID` for element `i`: not a finite number, or (`overflow`) beyond float32. */
  #elementError(recordId: string, i: number, x: unknown, overflow: boolean): OctxError {
    return OctxError.of({
      code: 'OCTX_VECTOR_VALUE_INVALID',
      path: this.#path,
      recordId,
      field: 'vector',
      message: overflow
        ? `vector element ${i} (${String(x)}) overflows float32`
        : `vector element ${i} is ${typeof x === 'number' ? String(x) : describeValue(x)}; elements must be finite numbers`,
    });
  }

  /** Copies a digest into the digest buffer at the position of the row being added (not yet counted). */
  #bufferDigest(digest: string): void {
    if (this.#digestBuf === undefined) {
      this.#digestBuf = new Uint8Array((this.#buf.byteLength / this.#rowBytes) * DIGEST_BYTES);
      try {
        this.#digestFd = openSync(this.digestFile, 'w+');
      } catch (cause) {
        this.#digestBuf = undefined;
        throw ioError(`cannot open vector digest file ${this.digestFile}`, cause);
      }
    }
    const at = (this.#bufBytes / this.#rowBytes) * DIGEST_BYTES;
    for (let i = 0; i < DIGEST_BYTES; i++) this.#digestBuf[at + i] = digest.charCodeAt(i);
  }

  /** Writes buffered rows to the spill file. */
  flush(): void {
    this.#ensureOpen();
    if (this.#bufBytes === 0) return;
    const rows = this.#bufBytes / this.#rowBytes;
    if (this.#digestFd !== undefined && this.#digestBuf !== undefined) {
      writeFully(this.#digestFd, this.#digestBuf, rows * DIGEST_BYTES, this.#flushedRows * DIGEST_BYTES);
    }
    writeFully(this.#fd, this.#buf, this.#bufBytes, this.#flushedRows * this.#rowBytes);
    this.#flushedRows += rows;
    this.#bufBytes = 0;
  }

  /**
   * Fills `into` with the input digests (64 ASCII hex bytes each) of `recordIndexes`, in that
   * order: row i at `into[i * 64]`. Only for a spill with {@link hasInputSha256}.
   * @throws OctxError `OCTX_VECTOR_COVERAGE` when a record has no vector; `OCTX_OPTIONS_INVALID`
   *   when the spill has no digests or `into` is too small; `OCTX_IO_ERROR` on a read failure.
   */
  readInputSha256(recordIndexes: Int32Array | readonly number[], into: Uint8Array): void {
    this.#readDigests((r) => this.#liveSlot(r), recordIndexes, into);
  }

  #readDigests(slotOf: (recordIndex: number) => number, recordIndexes: Int32Array | readonly number[], into: Uint8Array): void {
    this.flush();
    const n = recordIndexes.length;
    const fd = this.#digestFd;
    if (fd === undefined || this.#digests !== 'with') {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', path: this.#path, message: 'these vectors carry no input digests' });
    }
    if (into.length < n * DIGEST_BYTES) {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', path: this.#path, message: `readInputSha256 needs room for ${n * DIGEST_BYTES} bytes, got ${into.length}` });
    }
    let i = 0;
    while (i < n) {
      const first = this.#requireSlot(slotOf, recordIndexes[i] as number);
      let run = 1;
      while (i + run < n && slotOf(recordIndexes[i + run] as number) === first + run) run++;
      readFully(fd, into, i * DIGEST_BYTES, run * DIGEST_BYTES, first * DIGEST_BYTES, this.#readChunk);
      i += run;
    }
  }

  /** The input digest of one record's vector, or `undefined` when the spill carries none. */
  inputSha256Of(recordIndex: number): string | undefined {
    if (this.#digests !== 'with') return undefined;
    const one = Buffer.allocUnsafe(DIGEST_BYTES);
    this.readInputSha256([recordIndex], one);
    return one.toString('latin1');
  }

  /**
   * Fills `into` with the vectors of `recordIndexes`, in that order (row i at
   * `into[i * dimensions]`). Consecutive slots are read with one positional read each, so rows
   * added in record order are read in a few large reads.
   * @throws OctxError `OCTX_VECTOR_COVERAGE` when a record has no vector; `OCTX_OPTIONS_INVALID`
   *   when `into` is too small; `OCTX_IO_ERROR` on a read failure.
   */
  readRows(recordIndexes: Int32Array | readonly number[], into: Float32Array): void {
    this.#readRows((r) => this.#liveSlot(r), recordIndexes, into);
  }

  #readRows(slotOf: (recordIndex: number) => number, recordIndexes: Int32Array | readonly number[], into: Float32Array): void {
    this.flush();
    const n = recordIndexes.length;
    const dims = this.dimensions;
    if (into.length < n * dims) {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', path: this.#path, message: `readRows needs room for ${n * dims} floats, got ${into.length}` });
    }
    const bytes = new Uint8Array(into.buffer, into.byteOffset, n * this.#rowBytes);
    let i = 0;
    while (i < n) {
      const first = this.#requireSlot(slotOf, recordIndexes[i] as number);
      let run = 1;
      while (i + run < n && slotOf(recordIndexes[i + run] as number) === first + run) run++;
      readFully(this.#fd, bytes, i * this.#rowBytes, run * this.#rowBytes, first * this.#rowBytes, this.#readChunk);
      i += run;
    }
  }

  /** Flushes and closes the spill file (the file itself stays; the caller removes it). Idempotent. */
  close(): void {
    if (this.#closed) return;
    let failure: unknown;
    try {
      this.flush();
    } catch (e) {
      failure = e;
    }
    // Close the descriptor even when the last flush failed, then report the first failure.
    this.#closed = true;
    try {
      closeSync(this.#fd);
    } catch (cause) {
      failure ??= ioError(`cannot close vector spill file ${this.file}`, cause);
    }
    if (this.#digestFd !== undefined) {
      try {
        closeSync(this.#digestFd);
      } catch (cause) {
        failure ??= ioError(`cannot close vector digest file ${this.digestFile}`, cause);
      }
    }
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows, unchanged, what flush() threw (or the close error)
    if (failure !== undefined) throw failure;
  }

  /** The row slot of a record's vector now, or -1. */
  #liveSlot(recordIndex: number): number {
    return recordIndex >= 0 && recordIndex < this.#slots.length ? (this.#slots[recordIndex] ?? -1) : -1;
  }

  #requireSlot(slotOf: (recordIndex: number) => number, recordIndex: number): number {
    const slot = slotOf(recordIndex);
    if (slot < 0) {
      throw OctxError.of({ code: 'OCTX_VECTOR_COVERAGE', path: this.#path, message: `record index ${recordIndex} has no vector` });
    }
    return slot;
  }

  /**
   * This target's vectors frozen as they stand: records that get a vector later have none in the
   * view, and a vector replaced later (`embed({ only: 'stale' })`) still reads as its old row.
   * Nothing is copied: rows are only appended, so the view is the row count now plus, per record
   * replaced while the view is held, its old slot. Release the view when done with it.
   */
  freeze(): FrozenVectorRows {
    this.#ensureOpen();
    const state: FrozenState = { rows: this.#rows, saved: new Map() };
    this.#frozen.add(state);
    const slotOf = (recordIndex: number): number => {
      if (state.saved.size > 0) {
        const old = state.saved.get(recordIndex);
        if (old !== undefined) return old;
      }
      const slot = this.#liveSlot(recordIndex);
      return slot < state.rows ? slot : -1;
    };
    const norms = this.normWarnings;
    return Object.freeze({
      target: this.target,
      dimensions: this.dimensions,
      size: this.#count,
      hasInputSha256: this.hasInputSha256,
      normWarnings: norms,
      has: (recordIndex: number) => slotOf(recordIndex) >= 0,
      readRows: (recordIndexes: Int32Array | readonly number[], into: Float32Array) => this.#readRows(slotOf, recordIndexes, into),
      readInputSha256: (recordIndexes: Int32Array | readonly number[], into: Uint8Array) => this.#readDigests(slotOf, recordIndexes, into),
      release: () => {
        this.#frozen.delete(state);
      },
    });
  }

  #setSlot(recordIndex: number, slot: number): void {
    // A replacement: frozen views that hold the old row keep reading it.
    const old = this.#liveSlot(recordIndex);
    if (old >= 0) for (const f of this.#frozen) if (old < f.rows && !f.saved.has(recordIndex)) f.saved.set(recordIndex, old);
    if (recordIndex >= this.#slots.length) {
      let len = this.#slots.length * 2;
      while (len <= recordIndex) len *= 2;
      const grown = new Int32Array(Math.min(len, MAX_RECORD_INDEX + 1)).fill(-1);
      grown.set(this.#slots);
      this.#slots = grown;
    }
    this.#slots[recordIndex] = slot;
  }

  #ensureOpen(): void {
    if (this.#closed) throw OctxError.of({ code: 'OCTX_IO_ERROR', path: this.#path, message: `vector spill ${this.file} is closed` });
  }
}

function ioError(message: string, cause: unknown): OctxError {
  const detail = cause instanceof Error ? `: ${cause.message}` : '';
  return new OctxError('OCTX_IO_ERROR', message + detail, { cause });
}

/** `writeSync` until every byte is written (it may write fewer). */
function writeFully(fd: number, buf: Uint8Array, length: number, position: number): void {
  try {
    writeFullySync(fd, buf, 0, length, position);
  } catch (cause) {
    throw ioError('cannot write vector spill file', cause);
  }
}

/** `readSync` until `length` bytes are read; a short file is an error. */
/** Reads exactly `length` bytes at `position`, in reads of at most `chunk` bytes. */
function readFully(fd: number, buf: Uint8Array, offset: number, length: number, position: number, chunk: number): void {
  try {
    readFullySync(fd, buf, offset, length, position, chunk);
  } catch (cause) {
    throw ioError('cannot read vector spill file', cause);
  }
}

/** A short description of an unexpected value for a message: `null`, `object`, `string "12"`. */
function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 20 ? `${v.slice(0, 20)}…` : v)}`;
  if (typeof v === 'object') return v.constructor?.name ?? 'object';
  return typeof v;
}
