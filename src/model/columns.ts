/**
 * Growable typed-array columns: the compact per-record storage that keeps a million records in a
 * few megabytes instead of a million JavaScript objects. Used by the builder's structure store
 * and by the validator's id graph.
 */
class GrowableColumn<T extends Int32Array | Float64Array> {
  #data: T;
  #length = 0;
  readonly #make: (size: number) => T;

  constructor(make: (size: number) => T, initialCapacity: number) {
    this.#make = make;
    this.#data = make(initialCapacity);
  }

  /** Number of values. */
  get length(): number {
    return this.#length;
  }

  /** Appends a value and returns its position. */
  push(value: number): number {
    if (this.#length === this.#data.length) {
      const next = this.#make(this.#data.length * 2);
      next.set(this.#data);
      this.#data = next;
    }
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
}

/** A growable Int32 column (dense ids, counts, line numbers). */
export class Int32Column extends GrowableColumn<Int32Array> {
  constructor(initialCapacity = 1024) {
    super((n) => new Int32Array(n), initialCapacity);
  }
}

/** A growable Float64 column (exact integers up to 2^53, used as packed pair keys). */
export class Float64Column extends GrowableColumn<Float64Array> {
  constructor(initialCapacity = 1024) {
    super((n) => new Float64Array(n), initialCapacity);
  }
}
