import { OctxError } from '../model/errors.js';
import { Uint32Column } from '../model/record-columns.js';
import { slotTable } from '../model/open-addressing.js';
import { uuidToWords, wordsToUuid } from '../model/uuid-words.js';

/**
 * Most keys one table holds: the ledger of a package builder, whose id registry stops at 2^26 ids
 * (and keeps the hash table far below typed-array limits).
 */
const MAX_KEYS = 2 ** 26;

/** FNV-1a over the UTF-16 code units of `key`, finished with a murmur3 mix so probes spread. */
function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A map from producer keys to ids, for the id ledger of one kind, built for millions of keys.
 *
 * Why not a `Map<string, string>`: a builder mints one id per chunk, event and entity, and
 * such a map costs about 110 bytes per key beyond the key itself (the id's 36-character string
 * and the map's entry, at the map's doubling slack), which made the ledger the largest part of
 * a large build's memory. Here an id that is a canonical UUIDv7 (every id the ledger mints, and
 * every one a state file or shared store gives it in practice) is kept as four 32-bit words, and
 * the keys sit in one array indexed by an open-addressing table of entry numbers (load ≤ ½) with
 * each key's hash kept beside it: about 40 bytes per key. The id string is rebuilt when asked for
 * (equal to the one stored, not the same object). Any other id string is kept as it is, in a
 * side map.
 */
export class KeyedIds {
  readonly #keys: string[] = [];
  readonly #hashes = new Uint32Column();
  /** Four words per entry (zero for entries whose id is in {@link KeyedIds.#other}). */
  readonly #words = new Uint32Column(4 * 1024);
  /** Ids that are not canonical UUIDv7 strings, by entry. */
  readonly #other = new Map<number, string>();
  /** `entry + 1` per slot; 0 marks an empty slot. */
  #table = new Int32Array(1 << 10);
  #mask = (1 << 10) - 1;
  /** Where the last {@link KeyedIds.#find} miss ended, and the hash it missed with. */
  #missSlot = 0;
  #missHash = 0;

  /** Number of keys. */
  get size(): number {
    return this.#keys.length;
  }

  /** Entry number of `key`, or -1 (then `#missSlot`/`#missHash` say where it would go). */
  #find(key: string): number {
    const hash = hashKey(key);
    const table = this.#table;
    const mask = this.#mask;
    const hashes = this.#hashes.array;
    let i = hash & mask;
    for (;;) {
      const v = table[i]!;
      if (v === 0) break;
      if (hashes[v - 1] === hash && this.#keys[v - 1] === key) return v - 1;
      i = (i + 1) & mask;
    }
    this.#missSlot = i;
    this.#missHash = hash;
    return -1;
  }

  #idOf(entry: number): string {
    if (this.#other.size > 0) {
      const other = this.#other.get(entry);
      if (other !== undefined) return other;
    }
    return wordsToUuid(this.#words.array, entry * 4);
  }

  #store(entry: number, id: string): void {
    if (!uuidToWords(id, this.#words.array, entry * 4)) {
      this.#words.array.fill(0, entry * 4, entry * 4 + 4);
      this.#other.set(entry, id);
    } else if (this.#other.size > 0) this.#other.delete(entry);
  }

  /** True when `key` has an id. */
  has(key: string): boolean {
    return this.#find(key) >= 0;
  }

  /** The id of `key`, or `undefined`. */
  get(key: string): string | undefined {
    const entry = this.#find(key);
    return entry < 0 ? undefined : this.#idOf(entry);
  }

  /**
   * Gives `key` the id `id` (replacing the one it had).
   * @throws OctxError `OCTX_RESOURCE_LIMIT` beyond 2^26 keys
   */
  set(key: string, id: string): void {
    let entry = this.#find(key);
    if (entry < 0) entry = this.#insert(key);
    this.#store(entry, id);
  }

  /** Appends `key` as a new entry. Call right after a `#find(key)` that missed. */
  #insert(key: string): number {
    const entry = this.#keys.length;
    if (entry >= MAX_KEYS) throw new OctxError('OCTX_RESOURCE_LIMIT', `more than ${MAX_KEYS.toLocaleString('en')} ledger keys of one kind are not supported`);
    if ((entry + 1) * 2 > this.#table.length) {
      this.#grow();
      this.#find(key);
    }
    this.#keys.push(key);
    this.#hashes.push(this.#missHash);
    this.#words.extend(4);
    this.#table[this.#missSlot] = entry + 1;
    return entry;
  }

  /** Doubles the table (keeps the load at most ½, so probes stay short). */
  #grow(): void {
    const size = this.#table.length * 2;
    const hashes = this.#hashes.array;
    this.#table = slotTable(size, this.#keys.length, (e) => hashes[e]!);
    this.#mask = size - 1;
  }

  /** Every `[key, id]` pair, keys in code-unit order (the order a state file lists them in). */
  *sortedEntries(): IterableIterator<[string, string]> {
    const keys = this.#keys;
    const order = Int32Array.from({ length: keys.length }, (_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
    for (const e of order) yield [keys[e]!, this.#idOf(e)];
  }
}
