/**
 * One record batch of a vector target, reduced to what OCTX needs: the values as one
 * `Float32Array`, the `record_id` and `input_sha256` bytes with their offsets (checked:
 * apache-arrow does not validate them), and the null bitmaps.
 */
import { OctxError } from '../model/errors.js';
import { VECTOR_COLUMNS } from '../model/vector-format.js';
import type { ArrowVectorSchema } from './arrow-schema-check.js';

const RECORD_ID = VECTOR_COLUMNS.recordId.name;
const INPUT_SHA256 = VECTOR_COLUMNS.inputSha256.name;

/**
 * One record batch, reduced to what OCTX needs. `values` and the id bytes are views into the
 * batch body: they stay valid after the next batch, unless the reader runs with
 * `pooledBodies` (then only until the batch after next).
 */
export interface ArrowVectorBatch {
  /** Rows in the batch. */
  readonly length: number;
  /** Vector width. */
  readonly dimension: number;
  /** Row-major values, exactly `length × dimension` floats. */
  readonly values: Float32Array;
  /** UTF-8 bytes of the `record_id` column; row `i` is `idBytes[idStart(i) … idEnd(i))`. */
  readonly idBytes: Uint8Array;
  idStart(i: number): number;
  idEnd(i: number): number;
  /** `record_id` of row `i` as text; `null` where the column is null. */
  recordId(i: number): string | null;
  /** Number of null `record_id` cells. */
  readonly idNulls: number;
  /** True when row `i`'s `record_id` is null. */
  isIdNull(i: number): boolean;
  /** Number of null `vector` cells. */
  readonly vectorNulls: number;
  /** True when row `i`'s vector is null. */
  isVectorNull(i: number): boolean;
  /** Number of null elements inside vectors. */
  readonly elementNulls: number;
  /** True when row `i`'s vector holds a null element. */
  hasNullElement(i: number): boolean;
  /**
   * The `input_sha256` column, when the schema has a usable one: its UTF-8 bytes (row `i` is
   * `bytes[start(i) … end(i))`) and null cells.
   */
  readonly inputSha256?: Utf8Column;
}

/** A utf8 column of one batch. */
export interface Utf8Column {
  readonly bytes: Uint8Array;
  readonly start: (i: number) => number;
  readonly end: (i: number) => number;
  /** Number of null cells. */
  readonly nulls: number;
  readonly isNull: (i: number) => boolean;
  /** Row `i` as text (`null` for a null cell). */
  readonly text: (i: number) => string | null;
}

/** What {@link toBatch} reads of apache-arrow's `Data` of a batch and its columns. */
export interface DataLike {
  readonly offset: number;
  readonly length: number;
  readonly nullCount: number;
  readonly nullBitmap: Uint8Array | undefined;
  readonly valueOffsets: Int32Array;
  readonly values: Uint8Array | Float32Array;
  readonly children: DataLike[];
}

function bit(bitmap: Uint8Array | undefined, index: number): boolean {
  if (!bitmap || bitmap.length === 0) return true;
  return ((bitmap[index >> 3]! >> (index & 7)) & 1) === 1;
}

/**
 * The batch `data` (apache-arrow's struct `Data` of one record batch) laid out as `layout` says.
 * @throws OctxError `OCTX_VECTOR_ARROW_INVALID` for column lengths or offsets that do not fit
 */
export function toBatch(data: DataLike, layout: ArrowVectorSchema, path: string): ArrowVectorBatch {
  const bad = (why: string): OctxError => OctxError.of({ code: 'OCTX_VECTOR_ARROW_INVALID', path, message: `a record batch is malformed: ${why}` });
  const idData = data.children[layout.recordIdIndex]!;
  const vecData = data.children[layout.vectorIndex]!;
  const elemData = vecData.children[0]!;
  const n = data.length;
  const dim = layout.dimension;
  if (vecData.length !== n) throw bad('column lengths differ');
  const ids = utf8Column(idData, n, RECORD_ID, bad);

  const floats = elemData.values as Float32Array;
  const base = elemData.offset + vecData.offset * dim;
  if (floats.length < base + n * dim) throw bad('vector values are short');
  const values = floats.subarray(base, base + n * dim);
  const vecNulls = Math.max(0, vecData.nullCount);
  const elemNulls = Math.max(0, elemData.nullCount);
  const inputSha256 = layout.inputSha256Index >= 0 ? utf8Column(data.children[layout.inputSha256Index]!, n, INPUT_SHA256, bad) : undefined;
  return {
    ...(inputSha256 === undefined ? {} : { inputSha256 }),
    length: n,
    dimension: dim,
    values,
    idBytes: ids.bytes,
    idStart: ids.start,
    idEnd: ids.end,
    recordId: ids.text,
    idNulls: ids.nulls,
    isIdNull: ids.isNull,
    vectorNulls: vecNulls,
    isVectorNull: (i) => vecNulls > 0 && !bit(vecData.nullBitmap, vecData.offset + i),
    elementNulls: elemNulls,
    hasNullElement: (i) => {
      if (elemNulls <= 0) return false;
      const from = elemData.offset + (vecData.offset + i) * dim;
      for (let k = 0; k < dim; k++) if (!bit(elemData.nullBitmap, from + k)) return true;
      return false;
    },
  };
}

/** A utf8 column of a batch (`record_id`, `input_sha256`), offsets checked: apache-arrow does not validate them. */
function utf8Column(col: DataLike, n: number, name: string, bad: (why: string) => OctxError): Utf8Column {
  if (col.length !== n) throw bad('column lengths differ');
  const offs = col.valueOffsets;
  const bytes = col.values as Uint8Array;
  const o0 = col.offset;
  if (offs.length < o0 + n + 1) throw bad(`${name} offsets are short`);
  let prev = offs[o0]!;
  if (prev < 0) throw bad(`${name} offsets are negative`);
  for (let i = 1; i <= n; i++) {
    const end = offs[o0 + i]!;
    if (end < prev || end > bytes.length) throw bad(`${name} offsets are out of range`);
    prev = end;
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const nulls = Math.max(0, col.nullCount);
  const isNull = (i: number): boolean => nulls > 0 && !bit(col.nullBitmap, o0 + i);
  return {
    bytes,
    start: (i) => offs[o0 + i]!,
    end: (i) => offs[o0 + i + 1]!,
    nulls,
    isNull,
    text: (i) => (isNull(i) ? null : text.toString('utf8', offs[o0 + i], offs[o0 + i + 1])),
  };
}
