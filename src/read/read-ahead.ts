import type { ByteBudget } from './byte-budget.js';

/**
 * Work on a list, a few items ahead of the consumer, results in list order: how the validator
 * reads documents and hashes files, and how a working folder's documents are loaded (one
 * `readFile` at a time was four libuv round trips per page while the main thread waited).
 *
 * Settles promises in input order with at most `width` in flight; never leaves a rejection
 * unhandled. With a `budget`, each item first reserves `cost(item)` bytes, given back once the
 * consumer is done with its result (when the generator resumes): the memory of results read
 * ahead is bounded by bytes, not only by count. Reservations are granted in item order, and the
 * consumer always waits on the oldest item, so the budget cannot deadlock.
 */
export async function* inOrder<T, R>(
  items: readonly T[],
  width: number,
  fn: (item: T) => Promise<R>,
  budget?: { readonly bytes: ByteBudget; readonly cost: (item: T) => number },
): AsyncGenerator<[T, R], void, undefined> {
  type Settled = ({ ok: true; value: R } | { ok: false; error: unknown }) & { release: () => void };
  const none = (): void => {};
  const start = async (item: T): Promise<Settled> => {
    const release = budget ? await budget.bytes.acquire(budget.cost(item)) : none;
    return fn(item).then(
      (value) => ({ ok: true, value, release }),
      (error: unknown) => ({ ok: false, error, release }),
    );
  };
  const pending: Promise<Settled>[] = [];
  let next = 0;
  while (next < items.length && pending.length < width) pending.push(start(items[next++]!));
  for (let i = 0; i < items.length; i++) {
    const r = await pending.shift()!;
    if (next < items.length) pending.push(start(items[next++]!));
    try {
      if (!r.ok) throw r.error;
      yield [items[i]!, r.value];
    } finally {
      r.release();
    }
  }
}
