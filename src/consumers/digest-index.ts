/**
 * What the consumer checker remembers of each identity key: its 128-bit digest (`identity-digest.ts`)
 * → the first record's number, in one open-addressing table of 32-bit words (5 a slot, at most
 * 3/4 full), and each first record's id once ({@link RecordIds}: 16 bytes for a canonical UUID).
 * No string per record stays behind, so a million entities cost tens of megabytes and give the
 * garbage collector nothing to trace.
 */

const WORDS = 5; // h1, h2, h3, h4, record number + 1 (0: empty)

/** Digest → record number, without the keys. */
export class DigestIndex {
  #slots = new Uint32Array(WORDS * 1024);
  #mask = 1023;
  #size = 0;

  /** Entries held. */
  get size(): number {
    return this.#size;
  }

  /** Bytes held by the table. */
  get bytes(): number {
    return this.#slots.byteLength;
  }

  /** The record number stored for `digest`; when there is none, stores `record` and returns undefined. */
  firstOrAdd(digest: Uint32Array, record: number): number | undefined {
    const found = this.#find(this.#slots, this.#mask, digest);
    const slots = this.#slots;
    if (slots[found + 4] !== 0) return slots[found + 4]! - 1;
    slots.set(digest, found);
    slots[found + 4] = record + 1;
    if (++this.#size * 4 > (this.#mask + 1) * 3) this.#grow();
    return undefined;
  }

  /** The slot of `digest` (word offset): where it is, or the empty slot where it goes. */
  #find(slots: Uint32Array, mask: number, d: Uint32Array): number {
    let i = d[0]! & mask;
    for (;;) {
      const o = i * WORDS;
      if (slots[o + 4] === 0 || (slots[o] === d[0] && slots[o + 1] === d[1] && slots[o + 2] === d[2] && slots[o + 3] === d[3])) return o;
      i = (i + 1) & mask;
    }
  }

  #grow(): void {
    const old = this.#slots;
    const mask = this.#mask * 2 + 1;
    const slots = new Uint32Array(WORDS * (mask + 1));
    for (let o = 0; o < old.length; o += WORDS) {
      if (old[o + 4] === 0) continue;
      const to = this.#find(slots, mask, old.subarray(o, o + 4));
      slots.set(old.subarray(o, o + WORDS), to);
    }
    this.#slots = slots;
    this.#mask = mask;
  }
}

/** A lower-case hex digit's value, else -1. */
function nibble(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Record ids by record number: a canonical (lower-case) UUID as its 16 bytes, any other id as written. */
export class RecordIds {
  #bytes = new Uint8Array(16 * 1024);
  #count = 0;
  readonly #other = new Map<number, string>();

  /** The number the next {@link add} returns. */
  get next(): number {
    return this.#count;
  }

  /** Keeps `id` and returns its record number. */
  add(id: string): number {
    const n = this.#count++;
    if (16 * this.#count > this.#bytes.length) {
      const grown = new Uint8Array(this.#bytes.length * 2);
      grown.set(this.#bytes);
      this.#bytes = grown;
    }
    if (!this.#packUuid(id, 16 * n)) this.#other.set(n, id);
    return n;
  }

  /** Writes a canonical lower-case UUID's 16 bytes at `at`; false (nothing meant) for any other id. */
  #packUuid(id: string, at: number): boolean {
    if (id.length !== 36) return false;
    let byte = at;
    for (let i = 0; i < 36; i += 2) {
      if (i === 8 || i === 13 || i === 18 || i === 23) {
        if (id.charCodeAt(i) !== 0x2d) return false;
        i--; // the dash takes one place: the next pair starts right after it
        continue;
      }
      const hi = nibble(id.charCodeAt(i));
      const lo = nibble(id.charCodeAt(i + 1));
      if (hi < 0 || lo < 0) return false;
      this.#bytes[byte++] = (hi << 4) | lo;
    }
    return true;
  }

  /** The id of record `n`. */
  get(n: number): string {
    const other = this.#other.get(n);
    if (other !== undefined) return other;
    let hex = '';
    for (let i = 0; i < 16; i++) hex += this.#bytes[16 * n + i]!.toString(16).padStart(2, '0');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}
