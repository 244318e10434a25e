import { describe, expect, it } from 'vitest';
import { ByteBudget } from '../../src/read/byte-budget.js';
import { inOrder } from '../../src/read/read-ahead.js';

/** Work that finishes when the test says so, recording what has started. */
function controlledWork() {
  const started: string[] = [];
  const waiting = new Map<string, { resolve: (v: string) => void; reject: (e: Error) => void }>();
  const work = (item: string): Promise<string> => {
    started.push(item);
    return new Promise<string>((resolve, reject) => waiting.set(item, { resolve, reject }));
  };
  /** Finishes whatever has started (failing `fail`), until nothing new starts. */
  const settleAll = async (fail?: string): Promise<void> => {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      const open = [...waiting.entries()];
      if (open.length === 0) return;
      waiting.clear();
      for (const [item, w] of open) {
        if (item === fail) w.reject(new Error(`cannot read ${item}`));
        else w.resolve(`<${item}>`);
      }
    }
  };
  return { work, started, settleAll };
}

const items = Array.from({ length: 20 }, (_, i) => `f${i}.md`);
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('inOrder', () => {
  it('yields every item with its result, in order, whatever order the work finishes in', async () => {
    const delays = items.map((_, i) => (i * 7) % 5);
    const work = (item: string): Promise<string> => new Promise((r) => setTimeout(() => r(item.toUpperCase()), delays[items.indexOf(item)]));
    const got: [string, string][] = [];
    for await (const pair of inOrder(items, 4, work)) got.push(pair);
    expect(got).toEqual(items.map((item) => [item, item.toUpperCase()]));
  });

  it('keeps `width` items in flight ahead of the consumer', async () => {
    const c = controlledWork();
    const it = inOrder(items, 3, c.work);
    const first = it.next();
    await tick();
    expect(c.started).toEqual(['f0.md', 'f1.md', 'f2.md']);
    await c.settleAll();
    expect((await first).value).toEqual(['f0.md', '<f0.md>']);
    // f0 taken: its place went to f3, nothing more.
    expect(c.started).toEqual(['f0.md', 'f1.md', 'f2.md', 'f3.md']);
    const rest: string[] = [];
    for (;;) {
      const step = it.next();
      await c.settleAll();
      const r = await step;
      if (r.done === true) break;
      rest.push(r.value[0]);
    }
    expect(rest).toEqual(items.slice(1));
  });

  it('with a byte budget, starts an item only when its cost fits, and a costly one alone', async () => {
    const sizes: Record<string, number> = { 'a.md': 40, 'b.md': 40, 'big.md': 500, 'c.md': 10, 'd.md': 10 };
    const c = controlledWork();
    const it = inOrder(Object.keys(sizes), 10, c.work, { bytes: new ByteBudget(100), cost: (item) => sizes[item]! });
    const step1 = it.next();
    await tick();
    // a + b fit (80); big would take the whole budget, and waits for it.
    expect(c.started).toEqual(['a.md', 'b.md']);
    await c.settleAll();
    expect((await step1).value?.[0]).toBe('a.md');
    const step2 = it.next(); // a given back; b still held: big waits
    await c.settleAll();
    expect((await step2).value?.[0]).toBe('b.md');
    expect(c.started).toEqual(['a.md', 'b.md']);
    const step3 = it.next(); // b given back: big starts, alone
    await tick();
    expect(c.started).toEqual(['a.md', 'b.md', 'big.md']);
    await c.settleAll();
    expect((await step3).value?.[0]).toBe('big.md');
    const step4 = it.next(); // big given back: c and d start
    await tick();
    expect(c.started).toEqual(['a.md', 'b.md', 'big.md', 'c.md', 'd.md']);
    await c.settleAll();
    expect((await step4).value?.[0]).toBe('c.md');
  });

  it('throws a failure at its turn, after the items before it', async () => {
    const c = controlledWork();
    const got: string[] = [];
    const consume = (async () => {
      for await (const [item] of inOrder(items.slice(0, 6), 4, c.work)) got.push(item);
    })();
    const outcome = expect(consume).rejects.toThrow('cannot read f3.md');
    await c.settleAll('f3.md');
    await outcome;
    expect(got).toEqual(['f0.md', 'f1.md', 'f2.md']);
  });

  it('leaves no unhandled rejection when the consumer stops before failures ahead', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown): void => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const work = (item: string): Promise<string> => (item === 'f0.md' ? Promise.resolve('ok') : Promise.reject(new Error(`no ${item}`)));
      for await (const [, value] of inOrder(items, 5, work)) {
        expect(value).toBe('ok');
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('yields nothing for no items', async () => {
    const work = (): Promise<string> => Promise.reject(new Error('never called'));
    const got: unknown[] = [];
    for await (const pair of inOrder([], 3, work)) got.push(pair);
    expect(got).toEqual([]);
  });
});
