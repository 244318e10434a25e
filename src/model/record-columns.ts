/**
 * Growable typed-array columns: the compact per-record storage that keeps a million records in a
 * few megabytes instead of a million JavaScript objects. Used by the builder's structure store
 * and id registry, the validator's id graph and the report's per-record tables.
 */
type TypedColumnArray = Int32Array | Uint32Array | Uint8Array | Float64Array;

/**
 * Above this many bytes a column grows by half instead of doubling. The largest columns (the id
 * registry's words at a million records) set the builder's peak memory, and a doubled column is on
 * average a quarter empty, and while it is copied the old and new arrays are both alive (three
 * times the old size, against two and a half). The extra copies cost little: a few memcpy of
 * tens of megabytes over a build that writes gigabytes.
 */
const DOUBLING_LIMIT_BYTES = 16 * 2 ** 20;

/** The capacity after `size` (in elements of `bytes` bytes): doubled while small, then +50 %. */
function nextCapacity(size: number, bytes: number): number {
  return size * bytes < DOUBLING_LIMIT_BYTES ? size * 2 : size + Math.ceil(size / 2);
}

class GrowableColumn<T extends TypedColumnArray> {
  #data: T;
  #length = 0;
  readonly #make: (size: number) => T;

  constructor(make: (size: number) => T, initialCapacity: number) {
    this.#make = make;
    this.#data = make(Math.max(1, initialCapacity));
  }

  /** Number of values. */
  get length(): number {
    return this.#length;
  }

  /** Appends a value and returns its position. */
  push(value: number): number {
    if (this.#length === this.#data.length) this.#grow(this.#length + 1);
    this.#data[this.#length] = value;
    return this.#length++;
  }

  /** The value at `i` (no bounds check beyond the typed array's). */
  get(i: number): number {
    return this.#data[i]!;
  }

  /** Overwrites the value at `i`. */
  set(i: number, value: number): void {
    this.#data[i] = value;
  }

  /** A view of the used part (shares memory; do not keep it across pushes). */
  view(): T {
    return this.#data.subarray(0, this.#length) as T;
  }

  /**
   * The whole backing array, used part first (its length is the capacity, not {@link length}).
   * For hot loops that would otherwise call {@link get} per value; do not keep it across pushes
   * or {@link extend}, which may replace it.
   */
  get array(): T {
    return this.#data;
  }

  /**
   * Appends `n` zero values (growing once) and returns the position of the first: for records
   * made of several values, written through {@link array}.
   */
  extend(n: number): number {
    const at = this.#length;
    if (at + n > this.#data.length) this.#grow(at + n);
    this.#length = at + n;
    return at;
  }

  /**
   * Makes position `i` exist (positions added hold 0) and returns the backing array: for values
   * stored by an index that arrives out of order or twice (an id's dense index).
   */
  ensure(i: number): T {
    if (i >= this.#length) this.extend(i + 1 - this.#length);
    return this.#data;
  }

  #grow(min: number): void {
    let size = this.#data.length;
    while (size < min) size = nextCapacity(size, this.#data.BYTES_PER_ELEMENT);
    const next = this.#make(size);
    next.set(this.#data);
    this.#data = next;
  }
}

/** A growable Int32 column (dense ids, counts, line numbers). */
export class Int32Column extends GrowableColumn<Int32Array> {
  constructor(initialCapacity = 1024) {
    super((n) => new Int32Array(n), initialCapacity);
  }
}

/** A growable Uint32 column (raw 32-bit words, e.g. the four words of a UUID). */
export class Uint32Column extends GrowableColumn<Uint32Array> {
  constructor(initialCapacity = 1024) {
    super((n) => new Uint32Array(n), initialCapacity);
  }
}

/** A growable Uint8 column (small codes such as kinds and flags: one byte per record). */
export class Uint8Column extends GrowableColumn<Uint8Array> {
  constructor(initialCapacity = 1024) {
    super((n) => new Uint8Array(n), initialCapacity);
  }
}

/** A growable Float64 column (exact integers up to 2^53, used as packed pair keys). */
export class Float64Column extends GrowableColumn<Float64Array> {
  constructor(initialCapacity = 1024) {
    super((n) => new Float64Array(n), initialCapacity);
  }
}
