/**
 * Row checks of one vector target (OCTX-REFERENCE §10.6, SEED §7): no nulls, finite values,
 * unique record ids, and coverage exactly equal to the records of the target's JSONL file.
 * Works batch by batch with one byte of state per target record; record ids are looked up from
 * the Arrow bytes directly (no string per row) and turned into text only for messages.
 */
import { issue, type OctxIssue } from '../model/errors.js';
import type { ArrowVectorBatch } from './arrow-file.js';
import type { IdKind } from '../model/id-kind.js';
import type { IdSpace } from './id-space.js';

/**
 * True when every value is finite. One tight integer pass over the raw bits, kept in its own
 * small function so it is optimised on its own: a float32 is NaN or ±Infinity exactly when its
 * exponent bits are all ones, and adding one to that exponent field then carries into bit 31.
 * Rows are only examined one by one when this finds something.
 */
function allFinite(values: Float32Array): boolean {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  let acc = 0;
  for (let i = 0; i < bits.length; i++) acc |= (bits[i]! & 0x7f800000) + 0x00800000;
  return (acc & 0x80000000) === 0;
}

/** Checks the rows of one target against its record set. */
export class VectorTargetChecker {
  private readonly seen: Uint8Array;
  private readonly unknownSeen = new Set<string>();
  private row = 0;

  /**
   * @param path the Arrow file, for issues
   * @param jsonlPath the JSONL file the target must cover, for messages
   */
  constructor(
    private readonly ids: IdSpace,
    private readonly kind: IdKind,
    private readonly path: string,
    private readonly jsonlPath: string,
    private readonly report: (i: OctxIssue) => void,
  ) {
    this.seen = new Uint8Array(ids.count(kind));
  }

  private fail(code: OctxIssue['code'], message: string, recordId?: string): void {
    this.report(issue({ code, path: this.path, message, ...(recordId === undefined ? {} : { recordId }) }));
  }

  /** Checks one batch. */
  batch(b: ArrowVectorBatch): void {
    const { length, dimension: dim, values } = b;
    const anyBad = !allFinite(values);
    const checkNulls = b.idNulls > 0 || b.vectorNulls > 0 || b.elementNulls > 0;
    for (let r = 0; r < length; r++) {
      const rowNo = this.row + r;
      if (checkNulls) {
        if (b.isIdNull(r)) {
          this.fail('OCTX_VECTOR_NULL', `row ${rowNo}: record_id is null`);
          continue;
        }
        if (b.isVectorNull(r)) this.fail('OCTX_VECTOR_NULL', `row ${rowNo}: the vector of ${b.recordId(r)} is null`, b.recordId(r) ?? undefined);
        else if (b.hasNullElement(r)) this.fail('OCTX_VECTOR_VALUE_INVALID', `row ${rowNo}: the vector of ${b.recordId(r)} holds a null element`, b.recordId(r) ?? undefined);
      }
      if (anyBad) {
        for (let k = r * dim, end = k + dim; k < end; k++) {
          const v = values[k]!;
          if (v - v !== 0) {
            const id = b.recordId(r) ?? undefined;
            this.fail(
              'OCTX_VECTOR_VALUE_INVALID',
              `row ${rowNo}: the vector of ${id} holds ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Infinity' : '-Infinity'} at position ${k - r * dim}`,
              id,
            );
            break;
          }
        }
      }
      const index = this.ids.indexOfBytes(b.idBytes, b.idStart(r), b.idEnd(r), this.kind);
      if (index < 0) {
        const id = b.recordId(r) ?? '';
        if (this.unknownSeen.has(id)) this.fail('OCTX_VECTOR_RECORD_ID_DUPLICATE', `row ${rowNo}: record_id ${JSON.stringify(id)} appears more than once`, id);
        else {
          this.unknownSeen.add(id);
          this.fail('OCTX_VECTOR_COVERAGE', `row ${rowNo}: record_id ${JSON.stringify(id)} is not a record of ${this.jsonlPath}`, id);
        }
        continue;
      }
      if (this.seen[index]) {
        const id = this.ids.idOf(this.kind, index);
        this.fail('OCTX_VECTOR_RECORD_ID_DUPLICATE', `row ${rowNo}: record_id ${id} appears more than once`, id);
      } else this.seen[index] = 1;
    }
    this.row += length;
  }

  /** Reports every target record without a vector. */
  finish(): void {
    for (let i = 0; i < this.seen.length; i++) {
      if (this.seen[i]) continue;
      const id = this.ids.idOf(this.kind, i);
      this.fail('OCTX_VECTOR_COVERAGE', `record ${id} of ${this.jsonlPath} has no vector; a target must cover every record`, id);
    }
  }
}
