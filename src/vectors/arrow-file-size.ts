/**
 * The size of a vector target's Arrow file, known before it is written and without loading
 * apache-arrow: the one formula the planner checks the resource limits with and the archive
 * writer reserves ZIP64 fields from.
 *
 * `writeArrowTarget` writes the IPC file format: the `ARROW1` magic, the schema message, one
 * record-batch message per `batchRows` rows, the end-of-stream marker, the footer (the schema
 * again and one 24-byte block per batch), its length and the magic. Each message is an 8-byte
 * prefix, its metadata and its body; the body holds the buffers of the batch, each padded to 8
 * bytes (the validity buffers are empty: no column has a null). The metadata sizes are those
 * apache-arrow's encoder gives this schema; they do not depend on the row count or the width,
 * and `test/vectors/arrow-file-size.test.ts` holds the formula to the bytes the writer writes.
 */
import { INPUT_SHA256_HEX_LENGTH } from '../model/vector-format.js';

/** Rows per record batch unless the caller says otherwise. */
export const DEFAULT_BATCH_ROWS = 8192;

/**
 * UTF-8 bytes of one `record_id` in a target file the SDK writes: a canonical UUIDv7 (the id
 * field of every record kind is one), 36 ASCII characters.
 */
export const RECORD_ID_BYTES = 36;

/** Metadata bytes of the schema message, of each record-batch message and of the footer without its blocks. */
const METADATA = {
  withoutDigests: { schema: 232, batch: 232, footer: 248 },
  withDigests: { schema: 280, batch: 296, footer: 296 },
} as const;
/** `ARROW1` and two padding bytes at the start; `ARROW1` after the footer length at the end. */
const MAGIC_HEAD_BYTES = 8;
const MAGIC_TAIL_BYTES = 6;
/** Continuation marker and metadata length before each message, and the end-of-stream marker. */
const PREFIX_BYTES = 8;
/** One footer block (offset, metadata length, body length). */
const FOOTER_BLOCK_BYTES = 24;

/** What {@link arrowFileSize} needs to know of a target file. */
export interface ArrowFileShape {
  readonly rows: number;
  readonly dimensions: number;
  /**
   * UTF-8 bytes of the record ids: `each`, the width of every id when all have one (36 for the
   * UUIDs of records), gives the exact size; `atMost`, a bound of all of them together, gives a
   * bound of the size.
   */
  readonly idBytes: { readonly each: number } | { readonly atMost: number };
  /** Whether the file has the `input_sha256` column. */
  readonly digests: boolean;
  /** Rows per record batch (`WriteArrowTargetOptions.batchRows`, default {@link DEFAULT_BATCH_ROWS}). */
  readonly batchRows?: number;
}

const pad8 = (n: number): number => Math.ceil(n / 8) * 8;

/** Body bytes of one batch of `n` rows, its ids taking `idBytes` (before padding). */
function bodyBytes(n: number, idBytes: number, dimensions: number, digests: boolean): number {
  const offsets = pad8((n + 1) * 4);
  const body = offsets + pad8(idBytes) + pad8(n * dimensions * 4);
  return digests ? body + offsets + pad8(n * INPUT_SHA256_HEX_LENGTH) : body;
}

/**
 * The size `writeArrowTarget` writes for `shape`: exact with `idBytes.each`, an upper bound with
 * `idBytes.atMost`.
 */
export function arrowFileSize(shape: ArrowFileShape): number {
  const { rows, dimensions, digests } = shape;
  const batchRows = shape.batchRows ?? DEFAULT_BATCH_ROWS;
  const meta = digests ? METADATA.withDigests : METADATA.withoutDigests;
  const full = Math.floor(rows / batchRows);
  const last = rows - full * batchRows;
  const batches = full + (last > 0 ? 1 : 0);
  let bodies: number;
  if ('each' in shape.idBytes) {
    const each = shape.idBytes.each;
    bodies = full * bodyBytes(batchRows, batchRows * each, dimensions, digests) + (last > 0 ? bodyBytes(last, last * each, dimensions, digests) : 0);
  } else {
    // Every batch but the ids padded as if it held none, then all the ids, and at most 7 bytes of padding per batch.
    bodies = full * bodyBytes(batchRows, 0, dimensions, digests) + (last > 0 ? bodyBytes(last, 0, dimensions, digests) : 0) + shape.idBytes.atMost + 7 * batches;
  }
  return (
    MAGIC_HEAD_BYTES +
    PREFIX_BYTES +
    meta.schema +
    batches * (PREFIX_BYTES + meta.batch) +
    bodies +
    PREFIX_BYTES +
    meta.footer +
    batches * FOOTER_BLOCK_BYTES +
    4 +
    MAGIC_TAIL_BYTES
  );
}
