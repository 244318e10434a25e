import type { OctxIssue } from '../model/errors.js';
import type { RecordKind } from '../model/record-kinds.js';
import type { SpilledEntry } from '../package/payload-spill.js';

/** A structure JSONL file as it stood at a snapshot: where it is and what a consumer's limits will see. */
export interface SpillSnapshot {
  readonly file: string;
  readonly size: number;
  readonly sha256: string;
  readonly lines: number;
  readonly maxLineBytes: number;
  /** The file as an archive payload (digests and compressed blocks). */
  readonly entry: SpilledEntry;
}

/**
 * The reference graph the export's checks read, as dense ids in typed arrays (row `i` of a
 * kind is its `i`-th record, in JSONL order).
 */
export interface StructureColumns {
  /** Dense id of each chunk, and of the document it names. */
  readonly chunkId: Int32Array;
  readonly chunkDocument: Int32Array;
  /** Dense id of each event, of its parent (-1 for none) and its declared level (0 for top). */
  readonly eventId: Int32Array;
  readonly eventParent: Int32Array;
  readonly eventLevel: Int32Array;
  /** Dense id of each entity. */
  readonly entityId: Int32Array;
  /** Chunk → event links (dense ids of both ends). */
  readonly linkChunk: Int32Array;
  readonly linkEvent: Int32Array;
  /** Event → entity links (dense ids of both ends). */
  readonly mentionEvent: Int32Array;
  readonly mentionEntity: Int32Array;
}

/**
 * The structure layer frozen at one point (`StructureStore.freeze`): the columns end at the
 * records added by then, and the JSONL files at exactly their bytes, so the counts, the coverage
 * and the bytes an export writes all describe the same records.
 */
export interface StructureSnapshot extends StructureColumns {
  readonly files: Readonly<Record<RecordKind, SpillSnapshot>>;
  /** `OCTX_RECORD_FIELD_SUSPECT` warnings of the records in the snapshot. */
  readonly fieldWarnings: readonly OctxIssue[];
  /** True when no structure record or link was added. */
  readonly isEmpty: boolean;
}
