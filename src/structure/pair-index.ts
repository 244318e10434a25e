import type { Int32Column } from '../model/record-columns.js';

/** Mixes two dense integers (murmur3 finaliser): consecutive ids must spread over the table. */
function hashPair(a: number, b: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ b;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * A hash set of `(a, b)` integer pairs that stores no keys of its own: the pairs are the rows of
 * two `Int32Column`s the caller already keeps (link ends, or document and ordinal of a chunk), and
 * the set is an open-addressing table of row numbers over them.
 *
 * Why not a `Set<number>` of packed keys: keys above 2^31 are heap numbers, so a V8 Set costs
 * ~50 bytes per pair and sets the builder's peak memory. This table costs 8–16 bytes per pair
 * (an Int32 slot at load ≤ ½) and still answers at the call, so a duplicate link or ordinal is
 * refused by the `add*` call that brings it, as the builder promises.
 */
export class PairIndex {
  readonly #first: Int32Column;
  readonly #second: Int32Column;
  /** `row + 1` per slot; 0 marks an empty slot. */
  #table = new Int32Array(1 << 10);
  #mask = (1 << 10) - 1;
  #count = 0;
  /** Where the last {@link PairIndex.has} miss ended, for the pair it missed. */
  #missSlot = -1;
  #missA = 0;
  #missB = 0;

  /** An index over the rows of `first` and `second` (owned and appended to by the caller). */
  constructor(first: Int32Column, second: Int32Column) {
    this.#first = first;
    this.#second = second;
  }

  /** Number of indexed rows. */
  get size(): number {
    return this.#count;
  }

  /** True when an indexed row holds the pair `(a, b)`. */
  has(a: number, b: number): boolean {
    const table = this.#table;
    const mask = this.#mask;
    const first = this.#first.array;
    const second = this.#second.array;
    let i = hashPair(a, b) & mask;
    for (;;) {
      const v = table[i]!;
      if (v === 0) break;
      if (first[v - 1] === a && second[v - 1] === b) return true;
      i = (i + 1) & mask;
    }
    this.#missSlot = i;
    this.#missA = a;
    this.#missB = b;
    return false;
  }

  /**
   * Indexes `row`, whose pair the caller has already appended to both columns and checked absent
   * with {@link PairIndex.has} (indexing a pair twice would hide neither, but wastes a slot).
   */
  add(row: number): void {
    const a = this.#first.get(row);
    const b = this.#second.get(row);
    if ((this.#count + 1) * 2 > this.#table.length) {
      this.#grow();
      this.#missSlot = -1;
    }
    // Reuse the slot of the preceding miss for this pair; otherwise probe again.
    let i = this.#missSlot;
    if (i < 0 || this.#missA !== a || this.#missB !== b || this.#table[i] !== 0) {
      const table = this.#table;
      i = hashPair(a, b) & this.#mask;
      while (table[i] !== 0) i = (i + 1) & this.#mask;
    }
    this.#table[i] = row + 1;
    this.#count += 1;
    this.#missSlot = -1;
  }

  #grow(): void {
    const old = this.#table;
    const table = new Int32Array(old.length * 2);
    const mask = table.length - 1;
    const first = this.#first.array;
    const second = this.#second.array;
    for (let k = 0; k < old.length; k++) {
      const v = old[k]!;
      if (v === 0) continue;
      let i = hashPair(first[v - 1]!, second[v - 1]!) & mask;
      while (table[i] !== 0) i = (i + 1) & mask;
      table[i] = v;
    }
    this.#table = table;
    this.#mask = mask;
  }
}
