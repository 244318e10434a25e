/**
 * Row checks of one vector target (OCTX-REFERENCE §10.6, SEED §7): no nulls, finite values,
 * unique record ids, and coverage exactly equal to the records of the target's JSONL file.
 * Works batch by batch with one byte of state per target record; record ids are looked up from
 * the Arrow bytes directly (no string per row) and turned into text only for messages.
 *
 * An `input_sha256` column is checked for form as the rows stream by, and each well-formed
 * digest is kept (32 bytes per target record); {@link VectorTargetChecker.compareInputs} then
 * compares each record's digest with the one recomputed from its rendered text while the
 * structure JSONL was checked ({@link InputDigests}, same pass as the records), or
 * {@link VectorTargetChecker.verifyInputs} streams the target's JSONL once more to recompute them.
 * No text is held beyond the record being checked.
 */
import { hash } from 'node:crypto';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { INPUT_SHA256_HEX_LENGTH } from '../model/vector-format.js';
import { normalizeEmbeddingInput } from '../vectors/input-digest.js';
import type { InputTemplateRenderer } from '../vectors/template.js';
import type { ArrowVectorBatch } from './arrow-batch.js';
import { allFinite, hasNulls, nullDigestIssue, rowNullIssue, rowValueIssue } from './vector-row-checks.js';
import type { InputDigests } from './input-digests.js';
import type { IdKind } from '../model/id-kind.js';
import type { IdSpace } from './id-space.js';

/** Checks the rows of one target against its record set. */
export class VectorTargetChecker {
  private readonly seen: Uint8Array;
  private readonly unknownSeen = new Set<string>();
  private row = 0;
  /** Binary digests by target record index (allocated on the first batch with the column). */
  private digests: Uint8Array | undefined;
  /** 1 where `digests` holds a well-formed digest of that record. */
  private digestOk: Uint8Array | undefined;
  /** True once a batch without a usable column was seen (the column is all-or-none). */
  private batchWithoutDigests = false;

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

  /** Reports why a present `input_sha256` column cannot be used (from the schema). */
  inputSha256Schema(problem: string): void {
    this.fail('OCTX_VECTOR_INPUT_SHA256_INVALID', problem);
  }

  /** True when the target carries a usable `input_sha256` column. */
  get hasInputSha256(): boolean {
    return this.digests !== undefined;
  }

  /** Form of one row's input digest; keeps it for {@link verifyInputs}. */
  private digest(b: ArrowVectorBatch, r: number, rowNo: number, index: number): void {
    const col = b.inputSha256!;
    const id = this.ids.idOf(this.kind, index);
    if (col.isNull(r)) {
      this.report(nullDigestIssue(rowNo, id, this.path));
      return;
    }
    const start = col.start(r);
    const bytes = col.bytes;
    let ok = col.end(r) - start === INPUT_SHA256_HEX_LENGTH;
    for (let k = 0; ok && k < INPUT_SHA256_HEX_LENGTH; k++) {
      const c = bytes[start + k]!;
      ok = (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66);
    }
    if (!ok) {
      this.fail('OCTX_VECTOR_INPUT_SHA256_INVALID', `row ${rowNo}: the input_sha256 of ${id} is not ${INPUT_SHA256_HEX_LENGTH} lower-case hex digits`, id);
      return;
    }
    const hex = Buffer.from(bytes.buffer, bytes.byteOffset + start, INPUT_SHA256_HEX_LENGTH).toString('latin1');
    this.digests!.set(Buffer.from(hex, 'hex'), index * 32);
    this.digestOk![index] = 1;
  }

  /** Checks one batch. */
  batch(b: ArrowVectorBatch): void {
    const { length, values } = b;
    if (b.inputSha256 !== undefined && this.digests === undefined) {
      this.digests = new Uint8Array(this.seen.length * 32);
      this.digestOk = new Uint8Array(this.seen.length);
    }
    if (b.inputSha256 === undefined) this.batchWithoutDigests = true;
    const anyBad = !allFinite(values);
    const checkNulls = hasNulls(b);
    for (let r = 0; r < length; r++) {
      const rowNo = this.row + r;
      if (checkNulls) {
        const nullIssue = rowNullIssue(b, r, rowNo, this.path);
        if (nullIssue !== undefined) {
          this.report(nullIssue);
          // Without an id the row can be matched to no record.
          if (b.isIdNull(r)) continue;
        }
      }
      if (anyBad) {
        const valueIssue = rowValueIssue(b, r, rowNo, this.path);
        if (valueIssue !== undefined) this.report(valueIssue);
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
      } else {
        this.seen[index] = 1;
        if (b.inputSha256 !== undefined) this.digest(b, r, rowNo, index);
      }
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
    if (this.digests !== undefined && this.batchWithoutDigests) {
      // Cannot happen with one schema per file; kept so a future reader change cannot mix silently.
      this.fail('OCTX_VECTOR_INPUT_SHA256_INVALID', 'some record batches carry input_sha256 and others do not');
    }
  }

  /** The mismatch issue of one record (same text whichever way the digest was recomputed). */
  private mismatch(id: string, line: number, index: number, actual: Uint8Array): void {
    const digests = this.digests!;
    this.inputMismatch(
      id,
      `the vector of ${id} was computed from other text: its input_sha256 is ${Buffer.from(digests.subarray(index * 32, index * 32 + 32)).toString('hex')}, but the text rendered from ${this.jsonlPath} line ${line} hashes to ${Buffer.from(actual).toString('hex')}`,
    );
  }

  /** An `OCTX_VECTOR_INPUT_MISMATCH` of one record's `input_sha256`. */
  private inputMismatch(id: string, message: string): void {
    this.report(issue({ code: 'OCTX_VECTOR_INPUT_MISMATCH', path: this.path, recordId: id, field: 'input_sha256', message }));
  }

  /** The issue of one record whose input cannot be rendered. */
  private unrenderable(id: string, line: number, limit: boolean, why: string): void {
    if (limit) {
      // The rendered input would be above maxRenderedInputBytes: the limit, not a mismatch.
      this.report(issue({ code: 'OCTX_RESOURCE_LIMIT', path: this.path, recordId: id, field: 'input_template', message: `${this.jsonlPath} line ${line}: ${why}` }));
      return;
    }
    this.inputMismatch(id, `the input of ${id} (${this.jsonlPath} line ${line}) cannot be rendered with the config's input_template, so its input_sha256 cannot match: ${why}`);
  }

  /**
   * Compares each kept digest with `computed`, the digests recomputed from the target's records
   * while the structure layer was checked; issues come in record (file) order, exactly as
   * {@link verifyInputs} reports them. Returns `false`, reporting nothing, when `computed` does
   * not cover every record of the target (then use {@link verifyInputs}).
   */
  compareInputs(computed: InputDigests): boolean {
    const digests = this.digests;
    const ok = this.digestOk;
    if (digests === undefined || ok === undefined) return true;
    if (computed.count !== this.seen.length) return false;
    for (let index = 0; index < this.seen.length; index++) {
      if (ok[index] !== 1) continue;
      const failure = computed.failure(index);
      if (failure !== undefined) {
        this.unrenderable(this.ids.idOf(this.kind, index), computed.line(index), failure.limit, failure.why);
        continue;
      }
      const actual = computed.digest(index);
      let same = true;
      for (let k = 0, at = index * 32; k < 32; k++) {
        if (actual[k] !== digests[at + k]) {
          same = false;
          break;
        }
      }
      if (!same) this.mismatch(this.ids.idOf(this.kind, index), computed.line(index), index, actual);
    }
    return true;
  }

  /**
   * Recomputes each record's input digest from `records` (the target's JSONL, streamed) and
   * `render` (the config's template for the target): SHA-256 of the rendered text after
   * CRLF/CR → LF and NFC. A record whose digest differs, or whose text cannot be rendered, is
   * `OCTX_VECTOR_INPUT_MISMATCH` with its id. Records without a kept digest are skipped (their
   * form problem is already reported).
   */
  async verifyInputs(records: AsyncIterable<{ readonly line: number; readonly record: unknown }>, render: InputTemplateRenderer): Promise<void> {
    const digests = this.digests;
    const ok = this.digestOk;
    if (digests === undefined || ok === undefined) return;
    for await (const { line, record } of records) {
      if (typeof record !== 'object' || record === null) continue;
      const id = (record as { id?: unknown }).id;
      if (typeof id !== 'string') continue;
      const index = this.ids.indexOf(id, this.kind);
      if (index < 0 || ok[index] !== 1) continue;
      let text: string;
      try {
        text = normalizeEmbeddingInput(render(record, id));
      } catch (e) {
        this.unrenderable(id, line, e instanceof OctxError && e.code === 'OCTX_RESOURCE_LIMIT', e instanceof Error ? e.message : String(e));
        continue;
      }
      const actual = hash('sha256', text, 'buffer');
      if (!actual.equals(digests.subarray(index * 32, index * 32 + 32))) this.mismatch(id, line, index, actual);
    }
  }
}
