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

/** Kind of an id (stored in the low 3 bits of its code). */
export const IdKind = { asset: 0, document: 1, chunk: 2, event: 3, entity: 4 } as const;
/** A value of {@link IdKind}. */
export type IdKindValue = (typeof IdKind)[keyof typeof IdKind];

const KIND_NAMES = ['the asset', 'a document', 'a chunk', 'an event', 'an entity'] as const;

/** "the asset", "a document", … for messages. */
export function describeKind(kind: number): string {
  return KIND_NAMES[kind] ?? 'a record';
}


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

// Hex digit values by char code; 0x10 marks anything else (upper case is not canonical).
const HEX = new Uint8Array(256).fill(0x10);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = 10 + i;
const DASH = 45;

// Integer-only parsing: `(acc << 4) | digit`, with every digit OR-ed into `bad`, which only a
// non-hex character (0x10) can set above 0xf. About 5x faster than float accumulation.
let bad = 0;

function hex8(s: string, i: number): number {
  // Code units above 0xff map to index 0xff, which (like every non-hex byte) holds 0x10.
  const c0 = s.charCodeAt(i);
  const c1 = s.charCodeAt(i + 1);
  const c2 = s.charCodeAt(i + 2);
  const c3 = s.charCodeAt(i + 3);
  const d0 = HEX[c0 > 0xff ? 0xff : c0]!;
  const d1 = HEX[c1 > 0xff ? 0xff : c1]!;
  const d2 = HEX[c2 > 0xff ? 0xff : c2]!;
  const d3 = HEX[c3 > 0xff ? 0xff : c3]!;
  bad |= d0 | d1 | d2 | d3;
  return (d0 << 12) | (d1 << 8) | (d2 << 4) | d3;
}

function hex8b(b: Uint8Array, i: number): number {
  const d0 = HEX[b[i]!]!;
  const d1 = HEX[b[i + 1]!]!;
  const d2 = HEX[b[i + 2]!]!;
  const d3 = HEX[b[i + 3]!]!;
  bad |= d0 | d1 | d2 | d3;
  return (d0 << 12) | (d1 << 8) | (d2 << 4) | d3;
}

/**
 * Parses a canonical lowercase UUIDv7 (`xxxxxxxx-xxxx-7xxx-[89ab]xxx-xxxxxxxxxxxx`) into four
 * words at `out[o…o+3]`. Returns false (leaving `out` undefined) for anything else — the same
 * set of strings as `UUID_V7_PATTERN`.
 */
export function uuidToWords(s: string, out: Uint32Array, o: number): boolean {
  if (s.length !== 36 || s.charCodeAt(8) !== DASH || s.charCodeAt(13) !== DASH || s.charCodeAt(18) !== DASH || s.charCodeAt(23) !== DASH) return false;
  if (s.charCodeAt(14) !== 55 /* 7 */) return false;
  const variant = s.charCodeAt(19);
  if (variant !== 56 && variant !== 57 && variant !== 97 && variant !== 98) return false; // 8 9 a b
  bad = 0;
  // Groups of four hex digits: 0-3 4-7 | 9-12 14-17 | 19-22 24-27 | 28-31 32-35
  const w0 = ((hex8(s, 0) << 16) | hex8(s, 4)) >>> 0;
  const w1 = ((hex8(s, 9) << 16) | hex8(s, 14)) >>> 0;
  const w2 = ((hex8(s, 19) << 16) | hex8(s, 24)) >>> 0;
  const w3 = ((hex8(s, 28) << 16) | hex8(s, 32)) >>> 0;
  if (bad > 0xf) return false;
  out[o] = w0;
  out[o + 1] = w1;
  out[o + 2] = w2;
  out[o + 3] = w3;
  return true;
}

/** {@link uuidToWords} over UTF-8 bytes `b[start…end)` (an Arrow `utf8` cell). */
export function uuidBytesToWords(b: Uint8Array, start: number, end: number, out: Uint32Array, o: number): boolean {
  if (end - start !== 36 || b[start + 8] !== DASH || b[start + 13] !== DASH || b[start + 18] !== DASH || b[start + 23] !== DASH) return false;
  if (b[start + 14] !== 55) return false;
  const variant = b[start + 19];
  if (variant !== 56 && variant !== 57 && variant !== 97 && variant !== 98) return false;
  bad = 0;
  const w0 = ((hex8b(b, start) << 16) | hex8b(b, start + 4)) >>> 0;
  const w1 = ((hex8b(b, start + 9) << 16) | hex8b(b, start + 14)) >>> 0;
  const w2 = ((hex8b(b, start + 19) << 16) | hex8b(b, start + 24)) >>> 0;
  const w3 = ((hex8b(b, start + 28) << 16) | hex8b(b, start + 32)) >>> 0;
  if (bad > 0xf) return false;
  out[o] = w0;
  out[o + 1] = w1;
  out[o + 2] = w2;
  out[o + 3] = w3;
  return true;
}

const scratchWords = new Uint32Array(4);

/** True when `value` is a canonical lowercase UUIDv7 string (hand-written, ~5× a regex). */
export function isCanonicalUuidV7(value: unknown): value is string {
  return typeof value === 'string' && uuidToWords(value, scratchWords, 0);
}

// The two ASCII hex digits of each byte value (high digit in the high byte).
const HEX_PAIRS = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  const h = i.toString(16).padStart(2, '0');
  HEX_PAIRS[i] = (h.charCodeAt(0) << 8) | h.charCodeAt(1);
}

// One id's text is assembled here, then read as latin1: a flat string in one step, ~2x faster
// than concatenating (which builds a rope that is flattened again on first use).
const TEXT = Buffer.alloc(36, 0x2d /* - */);

/** Writes the 8 hex digits of `n` at `TEXT[at…]` (unrolled: this runs per Arrow row). */
function put8(n: number, at: number): void {
  let p = HEX_PAIRS[n >>> 24]!;
  TEXT[at] = p >>> 8;
  TEXT[at + 1] = p & 0xff;
  p = HEX_PAIRS[(n >>> 16) & 0xff]!;
  TEXT[at + 2] = p >>> 8;
  TEXT[at + 3] = p & 0xff;
  put4(n, at + 4);
}

/** Writes the 4 hex digits of the low 16 bits of `n` at `TEXT[at…]`. */
function put4(n: number, at: number): void {
  let p = HEX_PAIRS[(n >>> 8) & 0xff]!;
  TEXT[at] = p >>> 8;
  TEXT[at + 1] = p & 0xff;
  p = HEX_PAIRS[n & 0xff]!;
  TEXT[at + 2] = p >>> 8;
  TEXT[at + 3] = p & 0xff;
}

/**
 * The canonical (lowercase) text of the UUID held as four big-endian 32-bit words at `w[o…o+3]`,
 * the inverse of {@link uuidToWords}. Written byte by byte into one buffer: 5–7× faster than
 * `toString(16)`/`padStart`, which matters because the Arrow writer asks for every row's id.
 */
export function wordsToUuid(w: Uint32Array, o: number): string {
  const b = w[o + 1]!;
  const c = w[o + 2]!;
  put8(w[o]!, 0);
  put4(b >>> 16, 9);
  put4(b, 14);
  put4(c >>> 16, 19);
  put4(c, 24);
  put8(w[o + 3]!, 28);
  return TEXT.toString('latin1', 0, 36);
}

/**
 * Mixes the four words of an id for a hash table (murmur3 steps): the first words of UUIDv7s are
 * timestamps and nearly equal. Shared by the reader's {@link IdSpace} and the builder's registry.
 */
export function hashUuidWords(a: number, b: number, c: number, d: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 15) ^ b, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 13) ^ c, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 16) ^ d, 0xc2b2ae35);
  return (h ^ (h >>> 15)) >>> 0;
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
  register(id: string, kind: IdKindValue): number {
    if (!uuidToWords(id, this.probe, 0)) return IdSpace.NOT_CANONICAL;
    return this.registerWords(this.probe, 0, kind);
  }

  /** {@link register} for words at `w[o…]`. */
  registerWords(w: Uint32Array, o: number, kind: IdKindValue): number {
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
  indexOf(id: string, kind: IdKindValue): number {
    if (!uuidToWords(id, this.probe, 0)) return -1;
    return this.indexOfWords(this.probe, 0, kind);
  }

  /** {@link indexOf} for the UTF-8 bytes `b[start…end)`. */
  indexOfBytes(b: Uint8Array, start: number, end: number, kind: IdKindValue): number {
    if (!uuidBytesToWords(b, start, end, this.probe, 0)) return -1;
    return this.indexOfWords(this.probe, 0, kind);
  }

  /** {@link indexOf} for words at `w[o…]`. */
  indexOfWords(w: Uint32Array, o: number, kind: IdKindValue): number {
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
  idOf(kind: IdKindValue, index: number): string {
    return wordsToUuid(this.words[kind]!.data, index * 4);
  }

  /** Number of registered ids of `kind`. */
  count(kind: IdKindValue): number {
    return this.words[kind]!.count;
  }

  /** Kind of a code. */
  static kindOf(code: number): number {
    return code & 7;
  }

  /** Returned by {@link register} for a string that is not a canonical UUIDv7. */
  static readonly NOT_CANONICAL = -(2 ** 31);
}
