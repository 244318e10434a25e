/**
 * The one id namespace of a package (OCTX-REFERENCE §9): the asset id, every document id and
 * every chunk/event/entity id must be pairwise distinct.
 *
 * Why not a `Map<string, number>`: a package can hold a million ids, and the validator looks ids
 * up several million times (relations, hierarchy, vector rows). Every id that reaches the table
 * is a canonical UUIDv7 (records are schema-checked first), so it is stored as its 128 bits —
 * four 32-bit words per id in a typed array — in an open-addressing hash table of int32 codes.
 * Lookups parse the 36 characters (or the 36 bytes of an Arrow `utf8` cell) straight into words:
 * no string is created, kept or hashed by V8, and the table costs about 24 bytes per id instead
 * of the ~100 of a Map entry plus its key string. Ids are turned back into text only for
 * messages. Each id's code packs its kind (low 3 bits) and its index within that kind, so the
 * graph checks keep per-record numbers in typed arrays indexed by record.
 */

import type { IdKind } from '../model/id-kind.js';
import { hashUuidWords, uuidBytesToWords, uuidToWords, wordsToUuid } from '../model/uuid-words.js';

/** Growable store of 128-bit ids, four uint32 words each. */
class WordStore {
  data = new Uint32Array(4 * 1024);
  count = 0;
  push(w: Uint32Array, o: number): number {
    if ((this.count + 1) * 4 > this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    const at = this.count * 4;
    this.data[at] = w[o]!;
    this.data[at + 1] = w[o + 1]!;
    this.data[at + 2] = w[o + 2]!;
    this.data[at + 3] = w[o + 3]!;
    return this.count++;
  }
}

/** Registry of every id in the package. */
export class IdSpace {
  /** Open-addressing table of `code + 1` (0 = empty). */
  private slots = new Int32Array(1 << 12);
  private mask = (1 << 12) - 1;
  private used = 0;
  private readonly words: WordStore[] = [new WordStore(), new WordStore(), new WordStore(), new WordStore(), new WordStore()];
  private readonly probe = new Uint32Array(4);

  /** Finds the slot of the words at `w[o…]`: its code + 1, or 0 with `lastSlot` at the empty slot. */
  private lastSlot = 0;
  private find(w: Uint32Array, o: number): number {
    const a = w[o]!;
    const b = w[o + 1]!;
    const c = w[o + 2]!;
    const d = w[o + 3]!;
    let i = hashUuidWords(a, b, c, d) & this.mask;
    for (;;) {
      const v = this.slots[i]!;
      if (v === 0) {
        this.lastSlot = i;
        return 0;
      }
      const code = v - 1;
      const store = this.words[code & 7]!.data;
      const at = (code >>> 3) * 4;
      if (store[at] === a && store[at + 1] === b && store[at + 2] === c && store[at + 3] === d) return v;
      i = (i + 1) & this.mask;
    }
  }

  /** Makes room for `n` more ids without rehashing on the way. */
  reserve(n: number): void {
    while ((this.used + n) * 2 > this.slots.length && this.slots.length < 1 << 26) this.grow();
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    this.mask = this.slots.length - 1;
    for (let k = 0; k < old.length; k++) {
      const v = old[k]!;
      if (v === 0) continue;
      const code = v - 1;
      const store = this.words[code & 7]!.data;
      const at = (code >>> 3) * 4;
      let i = hashUuidWords(store[at]!, store[at + 1]!, store[at + 2]!, store[at + 3]!) & this.mask;
      while (this.slots[i] !== 0) i = (i + 1) & this.mask;
      this.slots[i] = v;
    }
  }

  /**
   * Registers `id` as the next record of `kind` and returns its index. Returns `-1 - code` of
   * the holder when the id is already taken (see {@link IdSpace.kindOf}), and
   * {@link IdSpace.NOT_CANONICAL} when `id` is not a canonical UUIDv7.
   */
  register(id: string, kind: IdKind): number {
    if (!uuidToWords(id, this.probe, 0)) return IdSpace.NOT_CANONICAL;
    return this.registerWords(this.probe, 0, kind);
  }

  /** {@link register} for words at `w[o…]`. */
  registerWords(w: Uint32Array, o: number, kind: IdKind): number {
    const found = this.find(w, o);
    if (found !== 0) return -found; // = -1 - code
    if ((this.used + 1) * 2 > this.slots.length) {
      this.grow();
      this.find(w, o);
    }
    const index = this.words[kind]!.push(w, o);
    this.slots[this.lastSlot] = index * 8 + kind + 1;
    this.used += 1;
    return index;
  }

  /** The index of `id` when it is a record of `kind`, else -1. */
  indexOf(id: string, kind: IdKind): number {
    if (!uuidToWords(id, this.probe, 0)) return -1;
    return this.indexOfWords(this.probe, 0, kind);
  }

  /** {@link indexOf} for the UTF-8 bytes `b[start…end)`. */
  indexOfBytes(b: Uint8Array, start: number, end: number, kind: IdKind): number {
    if (!uuidBytesToWords(b, start, end, this.probe, 0)) return -1;
    return this.indexOfWords(this.probe, 0, kind);
  }

  /** {@link indexOf} for words at `w[o…]`. */
  indexOfWords(w: Uint32Array, o: number, kind: IdKind): number {
    const v = this.find(w, o);
    if (v === 0) return -1;
    const code = v - 1;
    return (code & 7) === kind ? code >>> 3 : -1;
  }

  /** The kind holding `id`, or -1. */
  kindOfId(id: string): number {
    if (!uuidToWords(id, this.probe, 0)) return -1;
    const v = this.find(this.probe, 0);
    return v === 0 ? -1 : (v - 1) & 7;
  }

  /** The canonical text of record `index` of `kind`. */
  idOf(kind: IdKind, index: number): string {
    return wordsToUuid(this.words[kind]!.data, index * 4);
  }

  /** Number of registered ids of `kind`. */
  count(kind: IdKind): number {
    return this.words[kind]!.count;
  }

  /** Kind of a code. */
  static kindOf(code: number): number {
    return code & 7;
  }

  /** Returned by {@link register} for a string that is not a canonical UUIDv7. */
  static readonly NOT_CANONICAL = -(2 ** 31);
}
