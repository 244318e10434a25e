/**
 * Growable typed arrays: per-record numbers of a package whose record count is known only once a
 * file has been read. A million chunks cost 4 or 8 bytes each here, where an array of numbers or
 * objects would cost tens.
 */

/** A typed array constructor this module grows. */
type TypedCtor<T> = { new (n: number): T; readonly BYTES_PER_ELEMENT: number };

/** Methods of the typed arrays used here. */
interface TypedLike {
  readonly length: number;
  set(src: ArrayLike<number>, offset?: number): void;
  [index: number]: number;
}

/** An append-only array of numbers backed by a typed array that doubles when full. */
export class Growable<T extends TypedLike> {
  #data: T;
  #length = 0;

  constructor(
    private readonly ctor: TypedCtor<T>,
    initial = 1024,
  ) {
    this.#data = new ctor(initial);
  }

  /** Number of values pushed. */
  get length(): number {
    return this.#length;
  }

  /** Appends `v` and returns its index. */
  push(v: number): number {
    if (this.#length === this.#data.length) this.#grow(this.#length + 1);
    this.#data[this.#length] = v;
    return this.#length++;
  }

  /** Makes index `i` exist (new slots hold 0) and returns the backing array. */
  ensure(i: number): T {
    if (i >= this.#data.length) this.#grow(i + 1);
    if (i >= this.#length) this.#length = i + 1;
    return this.#data;
  }

  /** The value at `i` (0 past the end). */
  get(i: number): number {
    return i < this.#length ? this.#data[i]! : 0;
  }

  /** Adds `by` to the value at `i`. */
  add(i: number, by = 1): void {
    const d = this.ensure(i);
    d[i] = d[i]! + by;
  }

  /** A view of the values pushed (shares the backing array until the next growth). */
  view(): T {
    return (this.#data as unknown as { subarray(a: number, b: number): T }).subarray(0, this.#length);
  }

  #grow(min: number): void {
    let n = Math.max(16, this.#data.length * 2);
    while (n < min) n *= 2;
    const next = new this.ctor(n);
    next.set(this.#data);
    this.#data = next;
  }
}
