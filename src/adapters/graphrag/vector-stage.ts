/**
 * The vectors of one embedding, staged on disk as float32 rows while they are read and checked,
 * so that the source (a Snappy-compressed Parquet snapshot of doubles, or a LanceDB table) is
 * decoded once: a target is written only when it is complete, which is known only after its
 * last row, and the builder's vector config (`normalized`, measured on every row) must be set
 * before its first vector. Replaying float32 rows from a file costs far less than decoding the
 * source a second time, and a million 384-wide vectors (1.5 GB) never sit in memory.
 *
 * Each staged row remembers the dense index of its record (text unit or entity): 4 bytes a row
 * in memory, the vector on disk.
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { OctxError } from '../../model/errors.js';
import { fsReason } from '../../model/fs-errors.js';
import { readFullySync, writeFullySync } from '../../package/fd-io.js';
import { createSpillDir, removeSpillDir } from '../../package/spill-dir.js';
import { IntColumn } from './map-context.js';

/** Bytes written (and read back) at once. */
const BUFFER_BYTES = 1 << 20;

const ioError = (file: string, action: string, cause: unknown): OctxError =>
  OctxError.of({ code: 'OCTX_IO_ERROR', path: file, message: `cannot ${action} the staged vectors in ${file}: ${fsReason(cause, file)}` });

/** The staged rows of one embedding: append while checking, then {@link VectorStage.replay} once complete. */
export class VectorStage {
  readonly #file: string;
  readonly #dimensions: number;
  readonly #records = new IntColumn();
  readonly #buffer: Float32Array;
  #fd: number;
  #buffered = 0;

  /** @param dir the folder of the stage file (see {@link withStageDir}) */
  constructor(dir: string, name: string, dimensions: number) {
    this.#file = join(dir, `${name}.f32`);
    this.#dimensions = dimensions;
    this.#buffer = new Float32Array(Math.max(1, Math.floor(BUFFER_BYTES / 4 / dimensions)) * dimensions);
    try {
      this.#fd = openSync(this.#file, 'w+', 0o600);
    } catch (e) {
      throw ioError(this.#file, 'create', e);
    }
  }

  /** Rows staged so far. */
  get rows(): number {
    return this.#records.length;
  }

  /** Stages `vector` (exactly `dimensions` values) for the record with dense index `record`. */
  push(record: number, vector: Float32Array): void {
    if (this.#buffered + this.#dimensions > this.#buffer.length) this.#flush();
    this.#buffer.set(vector, this.#buffered);
    this.#buffered += this.#dimensions;
    this.#records.push(record);
  }

  /**
   * Calls `each` for every staged row in the order it was pushed. `vector` is a view of a reused
   * buffer, valid only during the call.
   */
  replay(each: (record: number, vector: Float32Array) => void): void {
    this.#flush();
    const dims = this.#dimensions;
    const buffer = new Uint8Array(this.#buffer.buffer, this.#buffer.byteOffset, this.#buffer.byteLength);
    const rowsPerRead = this.#buffer.length / dims;
    let row = 0;
    while (row < this.rows) {
      const rows = Math.min(rowsPerRead, this.rows - row);
      const want = rows * dims * 4;
      try {
        readFullySync(this.#fd, buffer, 0, want, row * dims * 4);
      } catch (e) {
        throw ioError(this.#file, 'read', e);
      }
      for (let i = 0; i < rows; i++) each(this.#records.get(row + i), this.#buffer.subarray(i * dims, (i + 1) * dims));
      row += rows;
    }
  }

  /** Closes the stage file (its folder removes it). */
  close(): void {
    if (this.#fd < 0) return;
    closeSync(this.#fd);
    this.#fd = -1;
  }

  #flush(): void {
    if (this.#buffered === 0) return;
    const bytes = new Uint8Array(this.#buffer.buffer, this.#buffer.byteOffset, this.#buffered * 4);
    const position = (this.rows - this.#buffered / this.#dimensions) * this.#dimensions * 4;
    try {
      writeFullySync(this.#fd, bytes, 0, bytes.length, position);
    } catch (e) {
      throw ioError(this.#file, 'write', e);
    }
    this.#buffered = 0;
  }
}

/**
 * Runs `use` with a private folder for stage files (in `parent`, default the OS's temporary
 * folder; removed afterwards whatever happens, and at process exit if `use` never returns).
 */
export async function withStageDir<T>(parent: string | undefined, use: (dir: string) => Promise<T>): Promise<T> {
  const dir = createSpillDir(parent, 'octx-graphrag-stage-');
  try {
    return await use(dir);
  } finally {
    await removeSpillDir(dir);
  }
}
