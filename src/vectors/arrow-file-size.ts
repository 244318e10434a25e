/**
 * How large a vector target's Arrow file can get, known before it is written (without loading
 * apache-arrow): the archive writer reserves ZIP64 fields from it.
 */
import { INPUT_SHA256_HEX_LENGTH } from '../model/vector-format.js';

/** Rows per record batch unless the caller says otherwise. */
export const DEFAULT_BATCH_ROWS = 8192;

/** What {@link arrowFileSizeBound} needs to know of a target file. */
export interface ArrowFileShape {
  readonly rows: number;
  readonly dimensions: number;
  /** UTF-16 code units of all record ids together (UTF-8 takes at most 3 bytes per unit). */
  readonly idUnits: number;
  /** Whether the file has the `input_sha256` column. */
  readonly digests: boolean;
  /** Rows per record batch ({@link WriteArrowTargetOptions.batchRows}). */
  readonly batchRows?: number;
}

/**
 * An upper bound of the size {@link writeArrowTarget} writes for `shape`: the data buffers (ids,
 * offsets, floats, digests) plus generous room for each message's metadata and padding, the
 * schema and the footer. The archive writer uses it to decide, before the bytes exist, whether
 * the entry's local header needs ZIP64 fields.
 */
export function arrowFileSizeBound(shape: ArrowFileShape): number {
  const batches = Math.ceil(shape.rows / (shape.batchRows ?? DEFAULT_BATCH_ROWS)) + 1;
  const perRow = shape.dimensions * 4 + 4 + (shape.digests ? INPUT_SHA256_HEX_LENGTH + 4 : 0);
  // Per batch: message metadata (a few hundred bytes), 8-byte padding of each buffer, a footer block.
  return 64 * 1024 + batches * 4096 + shape.rows * perRow + shape.idUnits * 3;
}
