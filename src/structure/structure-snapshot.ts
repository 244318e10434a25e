import type { OctxIssue } from '../model/errors.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind } from '../model/record-kinds.js';
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
 * The column of {@link StructureColumns} that holds each id field (and each integer field the
 * graph checks need) of each record kind, from the `columns` of its `RECORD_KINDS` row. Row `i`
 * of a column is the kind's `i`-th record: the identity and the references as dense ids (-1 for
 * an absent reference), `level` as its value (0 when absent). `StructureStore.add` fills them from
 * a record's fields and the graph checks read each reference from its column.
 */
export const RECORD_COLUMNS: { readonly [K in RecordKind]: (typeof RECORD_KINDS)[K]['columns'] } = Object.freeze(
  Object.fromEntries(RECORD_KIND_ORDER.map((kind) => [kind, RECORD_KINDS[kind].columns])) as { [K in RecordKind]: (typeof RECORD_KINDS)[K]['columns'] },
);

/** The name of one column of the reference graph. */
export type ColumnName = { [K in RecordKind]: (typeof RECORD_COLUMNS)[K][keyof (typeof RECORD_COLUMNS)[K]] }[RecordKind];

/** Every column name, in the table's order. */
export const COLUMN_NAMES: readonly ColumnName[] = Object.freeze(Object.values(RECORD_COLUMNS).flatMap((c) => Object.values(c) as ColumnName[]));

/**
 * The reference graph the export's checks read, as dense ids in typed arrays (row `i` of a
 * kind is its `i`-th record, in JSONL order), one column per entry of {@link RECORD_COLUMNS}:
 * `chunkId`/`chunkDocument`; `eventId`/`eventParent` (-1 for none)/`eventLevel` (0 for top);
 * `entityId`; `linkChunk`/`linkEvent` (chunk → event links); `mentionEvent`/`mentionEntity`
 * (event → entity links).
 */
export type StructureColumns = { readonly [C in ColumnName]: Int32Array };

/**
 * The first column of `kind` in `s`: one row per record, in JSONL order — a record's own dense
 * id (a relation's first reference).
 */
export function firstColumn(s: StructureColumns, kind: RecordKind): Int32Array {
  return s[Object.values(RECORD_COLUMNS[kind])[0] as ColumnName];
}

/** Number of records of `kind` in `s` (the length of the kind's first column). */
export function recordCount(s: StructureColumns, kind: RecordKind): number {
  return firstColumn(s, kind).length;
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
  /**
   * `OCTX_RECORD_TEXT_BLANK` warnings: required text that is only white space, taken because the
   * builder is made for a consumer that imports it (an export for another consumer refuses them).
   */
  readonly whiteSpaceText: readonly OctxIssue[];
  /** True when no structure record or link was added. */
  readonly isEmpty: boolean;
}
