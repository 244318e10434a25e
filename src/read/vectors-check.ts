/**
 * Row checks of one vector target (OCTX-REFERENCE §10.6, SEED §7): no nulls, finite values,
 * unique record ids, and coverage exactly equal to the records of the target's JSONL file.
 * Works batch by batch with one byte of state per target record.
 */
import { issue, type OctxIssue } from '../model/errors.js';
import type { ArrowVectorBatch } from './arrow-file.js';
import { IdSpace, type IdKindValue } from './id-space.js';

/** Checks the rows of one target against its record set. */
export class VectorTargetChecker {
  private readonly seen: Uint8Array;
  private readonly unknownSeen = new Set<string>();
  private row = 0;

  /**
   * @param recordIds ids of the target records, by their index in `ids` (from the structure check)
   * @param jsonlPath the JSONL file the target must cover, for messages
   */
  constructor(
    private readonly ids: IdSpace,
    private readonly kind: IdKindValue,
    private readonly recordIds: readonly string[],
    private readonly path: string,
    private readonly jsonlPath: string,
    private readonly report: (i: OctxIssue) => void,
  ) {
    this.seen = new Uint8Array(recordIds.length);
  }

  private fail(code: OctxIssue['code'], message: string, recordId?: string): void {
    this.report(issue({ code, path: this.path, message, ...(recordId === undefined ? {} : { recordId }) }));
  }

  /** Checks one batch. */
  batch(b: ArrowVectorBatch): void {
    const { length, dimension: dim, values } = b;
    // One tight pass over all floats first: NaN and ±Infinity are the only values where
    // v - v is not 0. Rows are only examined one by one when that pass finds something.
    let anyBad = false;
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (v - v !== 0) {
        anyBad = true;
        break;
      }
    }
    for (let r = 0; r < length; r++) {
      const rowNo = this.row + r;
      const id = b.recordIds[r] ?? null;
      if (id === null) {
        this.fail('OCTX_VECTOR_NULL', `row ${rowNo}: record_id is null`);
        continue;
      }
      if (b.vectorNulls > 0 && b.isVectorNull(r)) this.fail('OCTX_VECTOR_NULL', `row ${rowNo}: the vector of ${id} is null`, id);
      else {
        if (b.elementNulls > 0 && b.hasNullElement(r)) this.fail('OCTX_VECTOR_VALUE_INVALID', `row ${rowNo}: the vector of ${id} holds a null element`, id);
        if (anyBad) {
          for (let k = r * dim, end = k + dim; k < end; k++) {
            const v = values[k]!;
            if (v - v !== 0) {
              this.fail('OCTX_VECTOR_VALUE_INVALID', `row ${rowNo}: the vector of ${id} holds ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Infinity' : '-Infinity'} at position ${k - r * dim}`, id);
              break;
            }
          }
        }
      }
      const index = this.ids.indexOf(id, this.kind);
      if (index < 0) {
        if (this.unknownSeen.has(id)) this.fail('OCTX_VECTOR_RECORD_ID_DUPLICATE', `row ${rowNo}: record_id ${id} appears more than once`, id);
        else {
          this.unknownSeen.add(id);
          this.fail('OCTX_VECTOR_COVERAGE', `row ${rowNo}: record_id ${id} is not a record of ${this.jsonlPath}`, id);
        }
        continue;
      }
      if (this.seen[index]) this.fail('OCTX_VECTOR_RECORD_ID_DUPLICATE', `row ${rowNo}: record_id ${id} appears more than once`, id);
      else this.seen[index] = 1;
    }
    this.row += length;
  }

  /** Reports every target record without a vector. */
  finish(): void {
    for (let i = 0; i < this.seen.length; i++) {
      if (!this.seen[i]) this.fail('OCTX_VECTOR_COVERAGE', `record ${this.recordIds[i]} of ${this.jsonlPath} has no vector; a target must cover every record`, this.recordIds[i]);
    }
  }
}
