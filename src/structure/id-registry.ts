import { OctxError } from '../model/errors.js';
import { idKindName, type IdKind } from '../model/id-kind.js';
import { Int32Column, Uint32Column, Uint8Column } from '../model/record-columns.js';
import { slotTable } from '../model/open-addressing.js';
import { hashUuidWords, uuidToWords, wordsToUuid } from '../model/uuid-words.js';

/**
 * The kind the registry records for an id that was only referenced so far (no record defines
 * it yet). Outside {@link IdKind}'s values, which stay below it.
 */
export const REFERENCED = 7;

/** What {@link IdRegistry.kindOf} returns: an {@link IdKind}, or {@link REFERENCED}. */
export type RegisteredKind = IdKind | typeof REFERENCED;

/**
 * Most ids one registry holds (the builder's limit before, too): keeps every table far below
 * typed-array limits, and a package this size is beyond any consumer's limits anyway.
 */
export const MAX_IDS = 2 ** 26;

/**
 * The package's single id space (asset, documents, chunks, events and entities must be pairwise
 * distinct). Every id, defined or only referenced, is interned once to a dense integer so that
 * records and relations can be kept as integers in typed arrays.
 *
 * Memory: this is what sets the builder's peak RSS, so ids are not kept as strings. Every id that
 * reaches the registry is a canonical UUIDv7 (records, document ids, the asset id and vector
 * record ids are validated first), so it is stored as its 128 bits, four 32-bit words, in an
 * open-addressing hash table of dense ids over typed arrays (words, kind, slot, the table at
 * load ≤ ½): with growth slack, well under half of what a `Map` entry, its key string and the id
 * list cost per id (see BENCHMARKS.md).
 * The id text is rebuilt on demand ({@link IdRegistry.idOf}, lowercase canonical form, equal to
 * the text registered). Any other string is still accepted and kept in a small side map, so
 * lookups stay exact whatever the caller passes.
 */
export class IdRegistry {
  /** Four words per dense id (zero for ids kept in {@link IdRegistry.#other}). */
  readonly #words = new Uint32Column(4 * 1024);
  readonly #kinds = new Uint8Column();
  /** Position of the record within its kind's table (chunk number, event number, …). */
  readonly #slots = new Int32Column();
  /** Open-addressing (linear probing) table of `dense + 1`; 0 marks an empty slot. */
  #table = new Int32Array(1 << 12);
  #mask = (1 << 12) - 1;
  /** Ids that are not canonical UUIDv7 strings (never in practice), both ways. */
  readonly #other = new Map<string, number>();
  readonly #otherIds = new Map<number, string>();
  /** Words of the id being looked up, and the table slot where the last miss ended. */
  readonly #probe = new Uint32Array(4);
  #probeIsUuid = false;
  #missSlot = 0;
  /**
   * The id last passed to {@link IdRegistry.assertFree} and its words: `add*` checks an id, then
   * defines it a few calls later, and this saves parsing it twice.
   */
  #checkedId: string | undefined;
  readonly #checkedWords = new Uint32Array(4);
  #checkedIsUuid = false;
  /**
   * The last few ids looked up, with their dense indices. Records arrive grouped (a document's
   * chunks name one document_id, consecutive links share an event, a chunk's vector and links
   * follow it), and a hit costs a string comparison instead of parsing 36 characters and probing
   * the table. Dense indices never change, so an entry never goes stale.
   */
  readonly #recentIds: (string | undefined)[] = [undefined, undefined, undefined, undefined];
  readonly #recentDense = new Int32Array(4);
  #recentNext = 0;

  /** Number of interned ids. */
  get size(): number {
    return this.#kinds.length;
  }

  /** Dense index of the words in `#probe`, or -1 (then `#missSlot` is where they would go). */
  #lookup(): number {
    const p = this.#probe;
    const a = p[0]!;
    const b = p[1]!;
    const c = p[2]!;
    const d = p[3]!;
    const table = this.#table;
    const mask = this.#mask;
    const words = this.#words.array;
    let i = hashUuidWords(a, b, c, d) & mask;
    for (;;) {
      const v = table[i]!;
      if (v === 0) {
        this.#missSlot = i;
        return -1;
      }
      const at = (v - 1) * 4;
      if (words[at] === a && words[at + 1] === b && words[at + 2] === c && words[at + 3] === d) return v - 1;
      i = (i + 1) & mask;
    }
  }

  /** Dense index of `id`, or -1; leaves the id's words in `#probe` when it is a UUIDv7. */
  #indexOf(id: string): number {
    this.#probeIsUuid = uuidToWords(id, this.#probe, 0);
    if (this.#probeIsUuid) return this.#lookup();
    return this.#other.get(id) ?? -1;
  }

  /** Appends `id` as a new referenced id. Call right after a `#indexOf(id)` that missed. */
  #insert(id: string): number {
    const i = this.#kinds.length;
    if (i >= MAX_IDS) throw new OctxError('OCTX_RESOURCE_LIMIT', `more than ${MAX_IDS.toLocaleString('en')} ids in one package are not supported`);
    const at = this.#words.extend(4);
    if (this.#probeIsUuid) {
      // `#indexOf` just missed on these words, so `#missSlot` is their empty slot.
      if ((i + 1) * 2 > this.#table.length) {
        this.#grow();
        this.#lookup();
      }
      this.#words.array.set(this.#probe, at);
      this.#table[this.#missSlot] = i + 1;
    } else {
      this.#other.set(id, i);
      this.#otherIds.set(i, id);
    }
    this.#kinds.push(REFERENCED);
    this.#slots.push(-1);
    return i;
  }

  /** Doubles the table (keeps the load at most ½, so probes stay short). */
  #grow(): void {
    const size = this.#table.length * 2;
    const words = this.#words.array;
    // Ids that are not UUIDs live in `#other`, not in the table.
    const other = this.#otherIds;
    this.#table = slotTable(size, this.#kinds.length, (i) =>
      other.size > 0 && other.has(i) ? undefined : hashUuidWords(words[i * 4]!, words[i * 4 + 1]!, words[i * 4 + 2]!, words[i * 4 + 3]!),
    );
    this.#mask = size - 1;
  }

  /** Dense index of `id` when it is among the recent ids, else -1. */
  #recall(id: string): number {
    const r = this.#recentIds;
    if (r[0] === id) return this.#recentDense[0]!;
    if (r[1] === id) return this.#recentDense[1]!;
    if (r[2] === id) return this.#recentDense[2]!;
    if (r[3] === id) return this.#recentDense[3]!;
    return -1;
  }

  #remember(id: string, dense: number): void {
    const k = this.#recentNext;
    this.#recentIds[k] = id;
    this.#recentDense[k] = dense;
    this.#recentNext = (k + 1) & 3;
  }

  /** The dense index of `id`, interning it as a reference when it is new. */
  ref(id: string): number {
    let i = this.#recall(id);
    if (i >= 0) return i;
    i = this.#indexOf(id);
    if (i < 0) i = this.#insert(id);
    this.#remember(id, i);
    return i;
  }

  /** The dense index of `id`, or -1 when the id was never seen. */
  find(id: string): number {
    const i = this.#recall(id);
    return i >= 0 ? i : this.#indexOf(id);
  }

  #duplicate(id: string, holder: number, kind: IdKind, field: string): OctxError {
    return OctxError.of({
      code: 'OCTX_ID_DUPLICATE',
      recordId: id,
      field,
      message: `id ${id} is already used by a ${idKindName(holder)}; the asset, documents, chunks, events and entities share one id space (adding a ${idKindName(kind)})`,
    });
  }

  /**
   * Throws `OCTX_ID_DUPLICATE` when `id` is already defined (by any kind). Call before any
   * mutation so a refused record leaves no trace.
   */
  assertFree(id: string, kind: IdKind, field = 'id'): void {
    let i = this.#recall(id);
    if (i < 0) {
      i = this.#indexOf(id);
      if (i >= 0) this.#remember(id, i);
      else {
        this.#checkedId = id;
        this.#checkedIsUuid = this.#probeIsUuid;
        this.#checkedWords.set(this.#probe);
      }
    }
    if (i >= 0 && this.#kinds.get(i) !== REFERENCED) throw this.#duplicate(id, this.#kinds.get(i), kind, field);
  }

  /** Defines `id` as a record of `kind` at table position `slot`; returns its dense index. */
  define(id: string, kind: IdKind, slot: number): number {
    let i = this.#recall(id);
    if (i < 0) {
      // The lookup is repeated even for the id just checked: a reference in between (a chunk
      // naming itself as its document) may have interned it. Its words are not parsed again.
      if (id === this.#checkedId) {
        this.#probe.set(this.#checkedWords);
        this.#probeIsUuid = this.#checkedIsUuid;
        i = this.#probeIsUuid ? this.#lookup() : (this.#other.get(id) ?? -1);
      } else i = this.#indexOf(id);
      if (i < 0) i = this.#insert(id);
      this.#remember(id, i);
    }
    if (this.#kinds.get(i) !== REFERENCED) throw this.#duplicate(id, this.#kinds.get(i), kind, 'id');
    this.#kinds.set(i, kind);
    this.#slots.set(i, slot);
    return i;
  }

  /** Forgets a definition (used only to roll back a document that failed later checks). */
  undefine(index: number): void {
    this.#kinds.set(index, REFERENCED);
    this.#slots.set(index, -1);
  }

  /** The id string of a dense index (rebuilt from its words: an equal string, not the same object). */
  idOf(index: number): string {
    if (this.#otherIds.size > 0) {
      const other = this.#otherIds.get(index);
      if (other !== undefined) return other;
    }
    return wordsToUuid(this.#words.array, index * 4);
  }

  /** The kind of a dense index. */
  kindOf(index: number): RegisteredKind {
    return this.#kinds.get(index) as RegisteredKind;
  }

  /** The table slot of a dense index (-1 when only referenced). */
  slotOf(index: number): number {
    return this.#slots.get(index);
  }
}
