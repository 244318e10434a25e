/**
 * The checks of one row of a vector target that need nothing but the row (SEED §7): no null
 * `record_id`, vector, vector element or `input_sha256`, and finite values. The validator
 * reports them as issues (`VectorTargetChecker`); `openPackage().vectors()` and the
 * working-folder loader throw the same issue (`readVectorRows`), so a file is refused with the
 * same code and message wherever it is read.
 */
import { issue, type OctxIssue } from '../model/errors.js';
import { VECTOR_COLUMNS } from '../model/vector-format.js';
import type { ArrowVectorBatch } from './arrow-batch.js';

/**
 * True when every value is finite. One tight integer pass over the raw bits, kept in its own
 * small function so it is optimised on its own: a float32 is NaN or ±Infinity exactly when its
 * exponent bits are all ones, and adding one to that exponent field then carries into bit 31.
 * Rows are only examined one by one when this finds something.
 */
export function allFinite(values: Float32Array): boolean {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  let acc = 0;
  for (let i = 0; i < bits.length; i++) acc |= (bits[i]! & 0x7f800000) + 0x00800000;
  return (acc & 0x80000000) === 0;
}

/** True when the batch has a null anywhere (then {@link rowNullIssue} is asked row by row). */
export function hasNulls(b: ArrowVectorBatch): boolean {
  return b.idNulls > 0 || b.vectorNulls > 0 || b.elementNulls > 0;
}

function rowIssue(code: OctxIssue['code'], path: string, message: string, recordId: string | undefined): OctxIssue {
  return issue({ code, path, message, ...(recordId === undefined ? {} : { recordId }) });
}

/**
 * The null of row `r` (row `rowNo` of the file): a null `record_id` or vector
 * (`OCTX_VECTOR_NULL`), or a null element inside the vector (`OCTX_VECTOR_VALUE_INVALID`).
 */
export function rowNullIssue(b: ArrowVectorBatch, r: number, rowNo: number, path: string): OctxIssue | undefined {
  if (b.isIdNull(r)) return rowIssue('OCTX_VECTOR_NULL', path, `row ${rowNo}: ${VECTOR_COLUMNS.recordId.name} is null`, undefined);
  if (b.isVectorNull(r)) return rowIssue('OCTX_VECTOR_NULL', path, `row ${rowNo}: the vector of ${b.recordId(r)} is null`, b.recordId(r) ?? undefined);
  if (b.hasNullElement(r)) return rowIssue('OCTX_VECTOR_VALUE_INVALID', path, `row ${rowNo}: the vector of ${b.recordId(r)} holds a null element`, b.recordId(r) ?? undefined);
  return undefined;
}

/** The first NaN or ±Infinity of row `r`'s vector (`OCTX_VECTOR_VALUE_INVALID`), if any. */
export function rowValueIssue(b: ArrowVectorBatch, r: number, rowNo: number, path: string): OctxIssue | undefined {
  const { values, dimension: dim } = b;
  for (let k = r * dim, end = k + dim; k < end; k++) {
    const v = values[k]!;
    if (v - v !== 0) {
      const id = b.recordId(r) ?? undefined;
      return rowIssue(
        'OCTX_VECTOR_VALUE_INVALID',
        path,
        `row ${rowNo}: the vector of ${id} holds ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Infinity' : '-Infinity'} at position ${k - r * dim}`,
        id,
      );
    }
  }
  return undefined;
}

/** A null `input_sha256` in a target that carries the column (`OCTX_VECTOR_INPUT_SHA256_INVALID`). */
export function nullDigestIssue(rowNo: number, id: string, path: string): OctxIssue {
  return rowIssue('OCTX_VECTOR_INPUT_SHA256_INVALID', path, `row ${rowNo}: the input_sha256 of ${id} is null; the column is all-or-none`, id);
}
