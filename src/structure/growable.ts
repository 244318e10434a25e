/**
 * A growable Int32 column: the compact per-record storage that keeps a million records in a few
 * megabytes instead of a million JavaScript objects.
 */
export class Int32Column {
  #data: Int32Array;
  #length = 0;

  constructor(initialCapacity = 1024) {
    this.#data = new Int32Array(initialCapacity);
  }

  /** Number of values. */
  get length(): number {
    return this.#length;
  }

  /** Appends a value and returns its position. */
  push(value: number): number {
    if (this.#length === this.#data.length) {
      const next = new Int32Array(this.#data.length * 2);
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
  view(): Int32Array {
    return this.#data.subarray(0, this.#length);
  }
}
