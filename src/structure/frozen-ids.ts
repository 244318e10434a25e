import { IdKind, type IdKindName } from '../model/id-kind.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKindSpec } from '../model/record-kinds.js';
import { REFERENCED, type IdRegistry, type RegisteredKind } from './id-registry.js';
import { recordCount, type StructureColumns } from './structure-snapshot.js';

/**
 * What the export's checks read of the id space: the live {@link IdRegistry}, or a
 * {@link FrozenIds} view of it as it stood when an export's snapshot was taken.
 */
export interface IdView {
  /** Number of interned ids. */
  readonly size: number;
  /** The kind of a dense index ({@link REFERENCED} when no record of the view defines it). */
  kindOf(index: number): RegisteredKind;
  /** The table slot of a dense index (-1 when only referenced). */
  slotOf(index: number): number;
  /** The id string of a dense index. */
  idOf(index: number): string;
  /** The dense index of `id`, or -1. */
  find(id: string): number;
}

/** How many records of each kind the snapshot holds (the length of each kind's table). */
export type DefinedCounts = Readonly<Record<Exclude<IdKindName, 'asset'>, number>>;

/** The counts of a snapshot: its documents, and the records of each kind of `RECORD_KINDS` that defines ids. */
export function definedCounts(documents: number, s: StructureColumns): DefinedCounts {
  const counts: Partial<Record<IdKindName, number>> = { document: documents };
  for (const kind of RECORD_KIND_ORDER) {
    const defines = (RECORD_KINDS[kind] as RecordKindSpec).defines;
    if (defines !== undefined) counts[defines] = recordCount(s, kind);
  }
  return counts as DefinedCounts;
}

/**
 * The id space as it stood at a snapshot, without copying it. The registry only grows: dense ids
 * and their words never change, and a record's slot is its position in its kind's append-only
 * table. So an id is defined *in the snapshot* exactly when its slot is below the length that
 * table had then; one defined later (a reference the snapshot holds, resolved by a record added
 * after it) is still only a reference here, and the export's checks treat it like one.
 */
export class FrozenIds implements IdView {
  readonly #live: IdRegistry;
  readonly #limits: Int32Array;
  readonly size: number;

  /** A view of `registry` with `size` ids, defining the first `counts[kind]` records of each kind. */
  constructor(registry: IdRegistry, counts: DefinedCounts) {
    this.#live = registry;
    this.size = registry.size;
    const limits = new Int32Array(Object.keys(IdKind).length);
    limits[IdKind.asset] = 1;
    for (const [kind, n] of Object.entries(counts)) limits[IdKind[kind as IdKindName]] = n;
    this.#limits = limits;
  }

  kindOf(index: number): RegisteredKind {
    if (index < 0 || index >= this.size) return REFERENCED;
    const kind = this.#live.kindOf(index);
    if (kind === REFERENCED) return kind;
    return this.#live.slotOf(index) < this.#limits[kind]! ? kind : REFERENCED;
  }

  slotOf(index: number): number {
    return this.kindOf(index) === REFERENCED ? -1 : this.#live.slotOf(index);
  }

  idOf(index: number): string {
    return this.#live.idOf(index);
  }

  find(id: string): number {
    const index = this.#live.find(id);
    return index < this.size ? index : -1;
  }
}
