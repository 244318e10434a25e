/**
 * A semaphore counted in bytes: how the reader bounds the memory of work it runs side by side
 * (documents read at once) by their size rather than by their number. Eight 512 MiB documents
 * read "a few at a time" would otherwise need 4 GiB.
 */

/** Grants byte reservations in request order, never more than the capacity at once. */
export class ByteBudget {
  private free: number;
  private readonly waiting: { bytes: number; grant: () => void }[] = [];

  /** @param capacity bytes that may be reserved at once (a positive integer) */
  constructor(readonly capacity: number) {
    this.free = capacity;
  }

  /**
   * Reserves `bytes` (a request above the capacity takes the whole capacity, so one oversized
   * item runs alone instead of never). Resolves with the function that gives them back, which
   * must be called exactly once. Requests are granted first come, first served: a large one is
   * not starved by a stream of small ones.
   */
  async acquire(bytes: number): Promise<() => void> {
    const want = Math.min(Math.max(0, bytes), this.capacity);
    if (this.waiting.length === 0 && want <= this.free) {
      this.free -= want;
      return this.releaser(want);
    }
    await new Promise<void>((resolve) => this.waiting.push({ bytes: want, grant: resolve }));
    return this.releaser(want);
  }

  private releaser(bytes: number): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.free += bytes;
      this.drain();
    };
  }

  private drain(): void {
    while (this.waiting.length > 0 && this.waiting[0]!.bytes <= this.free) {
      const next = this.waiting.shift()!;
      this.free -= next.bytes;
      next.grant();
    }
  }
}
