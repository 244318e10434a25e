/**
 * The compact memory of one side of a diff: key → 128-bit digest, with a mark per entry.
 *
 * Why not a `Map<string, string>`: a package can hold a million chunks, and a Map entry with its
 * 36-character key and a hex digest costs ~200 bytes. Keys are record ids (one UUID, four 32-bit
 * words) or link pairs (two UUIDs, eight words); they and the first 128 bits of the SHA-256 of
 * the record's canonical JSON are kept in one typed array, indexed by an open-addressing table
 * of int32 entry numbers. An entry costs `4 × (keyWords + 4)` bytes plus a mark byte and two to
 * four slot bytes per entry of the hash table: ~45 bytes for a record, ~61 for a link.
 *
 * Entries keep their insertion order, so "the old records that the new package lacks" come out
 * in the old file's order.
 */
import { hashUuidWords } from '../../model/uuid-words.js';

/** The mark of an entry that the other side has not named (yet). */
export const UNSEEN = 0;
/** The other side holds the key with the same digest. */
export const SAME = 1;
/** The other side holds the key with another digest. */
export const CHANGED = 2;
/** Mark of a key only the new package has (kept so that a second occurrence is found). */
export const ADDED = 3;

/** A growable table of fixed-width keys with a 4-word digest and a mark each. */
export class KeyDigestTable {
  readonly #keyWords: number;
  readonly #stride: number;
  #data: Uint32Array;
  #marks: Uint8Array;
  #count = 0;
  /** Open-addressing table of `entry + 1` (0 = empty), at most half full. */
  #slots = new Int32Array(1 << 10);
  #mask = (1 << 10) - 1;

  /** @param keyWords 32-bit words per key (4 for one UUID, 8 for a pair). */
  constructor(keyWords: number) {
    this.#keyWords = keyWords;
    this.#stride = keyWords + 4;
    this.#data = new Uint32Array(this.#stride * 256);
    this.#marks = new Uint8Array(256);
  }

  /** Entries in the table. */
  get size(): number {
    return this.#count;
  }

  /** Bytes held by the typed arrays (for the memory note of the benchmark). */
  get bytes(): number {
    return this.#data.byteLength + this.#marks.byteLength + this.#slots.byteLength;
  }

  #hash(key: Uint32Array): number {
    let h = hashUuidWords(key[0]!, key[1]!, key[2]!, key[3]!);
    // A pair mixes its second id in; a single id is hashed as the validator's id table does.
    if (this.#keyWords > 4) h = (hashUuidWords(key[4]! ^ h, key[5]!, key[6]!, key[7]!) ^ h) >>> 0;
    return h;
  }

  /** The entry holding `key`, or -1. */
  find(key: Uint32Array): number {
    const kw = this.#keyWords;
    const stride = this.#stride;
    const data = this.#data;
    let i = this.#hash(key) & this.#mask;
    for (;;) {
      const v = this.#slots[i]!;
      if (v === 0) return -1;
      const at = (v - 1) * stride;
      let k = 0;
      while (k < kw && data[at + k] === key[k]) k++;
      if (k === kw) return v - 1;
      i = (i + 1) & this.#mask;
    }
  }

  /** Adds `key` with `digest` (4 words); returns the new entry, or -1 when the key is already there. */
  add(key: Uint32Array, digest: Uint32Array): number {
    if (this.find(key) >= 0) return -1;
    if ((this.#count + 1) * 2 > this.#slots.length) this.#grow();
    const entry = this.#count++;
    if (entry * this.#stride + this.#stride > this.#data.length) {
      const data = new Uint32Array(this.#data.length * 2);
      data.set(this.#data);
      this.#data = data;
      const marks = new Uint8Array(this.#marks.length * 2);
      marks.set(this.#marks);
      this.#marks = marks;
    }
    const at = entry * this.#stride;
    for (let k = 0; k < this.#keyWords; k++) this.#data[at + k] = key[k]!;
    for (let k = 0; k < 4; k++) this.#data[at + this.#keyWords + k] = digest[k]!;
    this.#place(key, entry);
    return entry;
  }

  #place(key: Uint32Array, entry: number): void {
    let i = this.#hash(key) & this.#mask;
    while (this.#slots[i] !== 0) i = (i + 1) & this.#mask;
    this.#slots[i] = entry + 1;
  }

  #grow(): void {
    this.#slots = new Int32Array(this.#slots.length * 2);
    this.#mask = this.#slots.length - 1;
    const key = new Uint32Array(this.#keyWords);
    for (let e = 0; e < this.#count; e++) {
      this.keyAt(e, key);
      this.#place(key, e);
    }
  }

  /** True when the entry's digest is `digest`. */
  sameDigest(entry: number, digest: Uint32Array): boolean {
    const at = entry * this.#stride + this.#keyWords;
    return this.#data[at] === digest[0] && this.#data[at + 1] === digest[1] && this.#data[at + 2] === digest[2] && this.#data[at + 3] === digest[3];
  }

  /** Copies the entry's key into `out`. */
  keyAt(entry: number, out: Uint32Array): void {
    const at = entry * this.#stride;
    for (let k = 0; k < this.#keyWords; k++) out[k] = this.#data[at + k]!;
  }

  /** The entry's mark ({@link UNSEEN}, {@link SAME} or {@link CHANGED}). */
  mark(entry: number): number {
    return this.#marks[entry]!;
  }

  /** Sets the entry's mark. */
  setMark(entry: number, mark: number): void {
    this.#marks[entry] = mark;
  }
}
