import { OctxError } from '../model/errors.js';
import { Int32Column } from '../model/columns.js';

/** Kinds of ids that share the one OCTX id space of a package. */
export const IdKind = {
  /** Seen only as a reference so far. */
  Referenced: 0,
  Asset: 1,
  Document: 2,
  Chunk: 3,
  Event: 4,
  Entity: 5,
} as const;
/** One of {@link IdKind}. */
export type IdKind = (typeof IdKind)[keyof typeof IdKind];

const KIND_NAMES = ['reference', 'asset', 'document', 'chunk', 'event', 'entity'] as const;

/** A human name for an id kind ("chunk", "event", …). */
export function kindName(kind: number): string {
  return KIND_NAMES[kind] ?? 'record';
}

/**
 * The package's single id space (asset, documents, chunks, events and entities must be pairwise
 * distinct). Every id, defined or only referenced, is interned once to a dense integer so that
 * records and relations can be kept as integers in typed arrays.
 */
export class IdRegistry {
  readonly #index = new Map<string, number>();
  readonly #ids: string[] = [];
  readonly #kinds = new Int32Column();
  /** Position of the record within its kind's table (chunk number, event number, …). */
  readonly #slots = new Int32Column();

  /** Number of interned ids. */
  get size(): number {
    return this.#ids.length;
  }

  /** The dense index of `id`, interning it as a reference when it is new. */
  ref(id: string): number {
    let i = this.#index.get(id);
    if (i === undefined) {
      i = this.#ids.length;
      this.#index.set(id, i);
      this.#ids.push(id);
      this.#kinds.push(IdKind.Referenced);
      this.#slots.push(-1);
    }
    return i;
  }

  /** The dense index of `id`, or -1 when the id was never seen. */
  find(id: string): number {
    return this.#index.get(id) ?? -1;
  }

  /**
   * Throws `OCTX_ID_DUPLICATE` when `id` is already defined (by any kind). Call before any
   * mutation so a refused record leaves no trace.
   */
  assertFree(id: string, kind: IdKind, field = 'id'): void {
    const i = this.#index.get(id);
    if (i !== undefined && this.#kinds.get(i) !== IdKind.Referenced) {
      throw OctxError.of({
        code: 'OCTX_ID_DUPLICATE',
        recordId: id,
        field,
        message: `id ${id} is already used by a ${kindName(this.#kinds.get(i))}; the asset, documents, chunks, events and entities share one id space (adding a ${kindName(kind)})`,
      });
    }
  }

  /** Defines `id` as a record of `kind` at table position `slot`; returns its dense index. */
  define(id: string, kind: IdKind, slot: number): number {
    this.assertFree(id, kind);
    const i = this.ref(id);
    this.#kinds.set(i, kind);
    this.#slots.set(i, slot);
    return i;
  }

  /** Forgets a definition (used only to roll back a document that failed later checks). */
  undefine(index: number): void {
    this.#kinds.set(index, IdKind.Referenced);
    this.#slots.set(index, -1);
  }

  /** The id string of a dense index. */
  idOf(index: number): string {
    return this.#ids[index]!;
  }

  /** The kind of a dense index. */
  kindOf(index: number): IdKind {
    return this.#kinds.get(index) as IdKind;
  }

  /** The table slot of a dense index (-1 when only referenced). */
  slotOf(index: number): number {
    return this.#slots.get(index);
  }
}
