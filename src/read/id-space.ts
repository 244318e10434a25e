/**
 * The one id namespace of a package (OCTX-REFERENCE §9): the asset id, every document id and
 * every chunk/event/entity id must be pairwise distinct. Each id maps to one small integer that
 * packs its kind (low 3 bits) and its index within that kind, so the graph checks can keep
 * references and counts in typed arrays indexed by record instead of one object per record.
 */

/** Kind of an id (stored in the low 3 bits of its code). */
export const IdKind = { asset: 0, document: 1, chunk: 2, event: 3, entity: 4 } as const;
/** A value of {@link IdKind}. */
export type IdKindValue = (typeof IdKind)[keyof typeof IdKind];

const KIND_NAMES = ['the asset', 'a document', 'a chunk', 'an event', 'an entity'] as const;

/** "the asset", "a document", … for messages. */
export function describeKind(kind: number): string {
  return KIND_NAMES[kind] ?? 'a record';
}

/** Growable typed column, for per-record numbers without per-record objects. */
export class GrowableInt32 {
  private data: Int32Array;
  length = 0;
  constructor(initial = 1024) {
    this.data = new Int32Array(initial);
  }
  push(v: number): number {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length] = v;
    return this.length++;
  }
  get(i: number): number {
    return this.data[i]!;
  }
  set(i: number, v: number): void {
    this.data[i] = v;
  }
  /** A trimmed view of the values. */
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

/** Registry of every id in the package. */
export class IdSpace {
  private readonly codes = new Map<string, number>();
  private readonly counts = [0, 0, 0, 0, 0];

  /**
   * Registers `id` as the next record of `kind` and returns its index, or returns `-1 - code`
   * of the holder when the id is already taken (decode it with {@link IdSpace.kindOf}).
   */
  register(id: string, kind: IdKindValue): number {
    const existing = this.codes.get(id);
    if (existing !== undefined) return -1 - existing;
    const index = this.counts[kind]!;
    this.counts[kind] = index + 1;
    this.codes.set(id, index * 8 + kind);
    return index;
  }

  /** The index of `id` when it is a record of `kind`, else -1. */
  indexOf(id: string, kind: IdKindValue): number {
    const code = this.codes.get(id);
    return code !== undefined && (code & 7) === kind ? code >>> 3 : -1;
  }

  /** The code of `id`, or undefined. */
  code(id: string): number | undefined {
    return this.codes.get(id);
  }

  /** Number of registered ids of `kind`. */
  count(kind: IdKindValue): number {
    return this.counts[kind]!;
  }

  /** Kind of a code. */
  static kindOf(code: number): number {
    return code & 7;
  }
}
