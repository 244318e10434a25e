/**
 * A concurrency limiter with p-limit's semantics (p-limit 7 was the dependency; it is ESM-only,
 * which a CommonJS build cannot `require`): `limit(task)` starts `task` once fewer than
 * `concurrency` tasks run, always asynchronously and in call order, and returns its promise.
 */

/** Runs a task under the limit; resolves or rejects as the task does. */
export interface Limit {
  <T>(task: () => T | PromiseLike<T>): Promise<T>;
  /** Drops the tasks that have not started: they never run and their promises never settle (p-limit's `clearQueue`). */
  clearQueue(): void;
}

/** A limiter that runs at most `concurrency` (an integer ≥ 1, or Infinity) tasks at once. */
export function limitConcurrency(concurrency: number): Limit {
  if (!((Number.isInteger(concurrency) || concurrency === Number.POSITIVE_INFINITY) && concurrency > 0)) {
    throw new TypeError('Expected `concurrency` to be a number from 1 and up');
  }
  // A FIFO with a moving head; compacted when the consumed prefix dominates.
  let queue: (() => void)[] = [];
  let head = 0;
  let active = 0;

  const resumeNext = (): void => {
    if (active < concurrency && head < queue.length) {
      active++;
      const start = queue[head++]!;
      if (head > 1024 && head * 2 > queue.length) {
        queue = queue.slice(head);
        head = 0;
      }
      start();
    }
  };

  const limit = <T>(task: () => T | PromiseLike<T>): Promise<T> =>
    new Promise<T>((resolve) => {
      // The start signal is a promise resolution, so the task never runs synchronously in the caller.
      void new Promise<void>((started) => queue.push(started)).then(async () => {
        const result = (async () => task())();
        resolve(result);
        try {
          await result;
        } catch {
          // The caller sees the rejection through the returned promise.
        }
        active--;
        resumeNext();
      });
      if (active < concurrency) resumeNext();
    });
  return Object.assign(limit, {
    clearQueue: (): void => {
      queue = [];
      head = 0;
    },
  });
}
