import { describe, expect, it } from 'vitest';
import { readAhead } from '../../src/builder/read-ahead.js';

/** A read that resolves when the test says so, recording which reads run at the same time. */
function controlledReads() {
  const started: string[] = [];
  const running = new Set<string>();
  let mostAtOnce = 0;
  const waiting = new Map<string, { resolve: (v: string) => void; reject: (e: Error) => void }>();
  const read = (path: string): Promise<string> => {
    started.push(path);
    running.add(path);
    mostAtOnce = Math.max(mostAtOnce, running.size);
    return new Promise<string>((resolve, reject) => waiting.set(path, { resolve, reject })).finally(() => running.delete(path));
  };
  const settleAll = async (fail?: string): Promise<void> => {
    // Resolves whatever has started, until nothing new starts.
    for (;;) {
      const open = [...waiting.entries()];
      if (open.length === 0) return;
      waiting.clear();
      for (const [path, w] of open) {
        if (path === fail) w.reject(new Error(`cannot read ${path}`));
        else w.resolve(`<${path}>`);
      }
      await new Promise((r) => setImmediate(r));
    }
  };
  return { read, started, settleAll, mostAtOnce: () => mostAtOnce };
}

const paths = Array.from({ length: 20 }, (_, i) => `f${i}.md`);

describe('readAhead', () => {
  it('yields every file in order, with its path, whatever order the reads finish in', async () => {
    const delays = paths.map((_, i) => (i * 7) % 5);
    const read = (path: string): Promise<string> => new Promise((r) => setTimeout(() => r(path.toUpperCase()), delays[paths.indexOf(path)]));
    const got: { path: string; value: string }[] = [];
    for await (const item of readAhead(paths, read, { files: 4, sizeOf: () => 1 })) got.push(item);
    expect(got).toEqual(paths.map((path) => ({ path, value: path.toUpperCase() })));
  });

  it('starts at most `files` reads ahead, counting the file being processed', async () => {
    const c = controlledReads();
    const it = readAhead(paths, c.read, { files: 3, sizeOf: () => 1 });
    const first = it.next();
    expect(c.started).toEqual(['f0.md', 'f1.md', 'f2.md']);
    await c.settleAll();
    expect((await first).value).toEqual({ path: 'f0.md', value: '<f0.md>' });
    // f0 is still being processed (the caller has not asked for the next): nothing more started.
    expect(c.started).toHaveLength(3);
    const second = it.next();
    expect(c.started).toEqual(['f0.md', 'f1.md', 'f2.md', 'f3.md']);
    await c.settleAll();
    expect((await second).value?.path).toBe('f1.md');
    const rest: string[] = [];
    for (;;) {
      const step = it.next();
      await c.settleAll();
      const r = await step;
      if (r.done === true) break;
      rest.push(r.value.path);
    }
    expect(rest).toEqual(paths.slice(2));
    expect(c.mostAtOnce()).toBeLessThanOrEqual(3);
  });

  it('keeps the bytes read ahead within `bytes`, and reads a file larger than that alone', async () => {
    const sizes: Record<string, number> = { 'a.md': 40, 'b.md': 40, 'big.md': 500, 'c.md': 10, 'd.md': 10 };
    const c = controlledReads();
    const it = readAhead(Object.keys(sizes), c.read, { files: 10, bytes: 100, sizeOf: (p) => sizes[p] });
    const step1 = it.next();
    // a + b fit (80); big would pass 100.
    expect(c.started).toEqual(['a.md', 'b.md']);
    await c.settleAll();
    await step1;
    const step2 = it.next(); // a consumed: 40 ahead; big still does not fit
    expect(c.started).toEqual(['a.md', 'b.md']);
    await c.settleAll();
    expect((await step2).value?.path).toBe('b.md');
    const step3 = it.next(); // nothing ahead: big is read, alone
    expect(c.started).toEqual(['a.md', 'b.md', 'big.md']);
    await c.settleAll();
    expect((await step3).value?.path).toBe('big.md');
    const step4 = it.next(); // big consumed: c and d start together
    expect(c.started).toEqual(['a.md', 'b.md', 'big.md', 'c.md', 'd.md']);
    await c.settleAll();
    expect((await step4).value?.path).toBe('c.md');
  });

  it('throws a failed read at its turn, after the files before it', async () => {
    const c = controlledReads();
    const got: string[] = [];
    const consume = (async () => {
      for await (const { path } of readAhead(paths.slice(0, 6), c.read, { files: 4, sizeOf: () => 1 })) got.push(path);
    })();
    const outcome = expect(consume).rejects.toThrow('cannot read f3.md');
    await c.settleAll('f3.md');
    await outcome;
    expect(got).toEqual(['f0.md', 'f1.md', 'f2.md']);
  });

  it('leaves no unhandled rejection when the caller stops before failed reads ahead', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown): void => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const read = (path: string): Promise<string> => (path === 'f0.md' ? Promise.resolve('ok') : Promise.reject(new Error(`no ${path}`)));
      for await (const item of readAhead(paths, read, { files: 5, sizeOf: () => 1 })) {
        expect(item.value).toBe('ok');
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('reads a file of unknown size alone', async () => {
    const c = controlledReads();
    const it = readAhead(['x.md', 'y.md'], c.read, { files: 4 });
    const step = it.next();
    expect(c.started).toEqual(['x.md']);
    await c.settleAll();
    await step;
    void it.next();
    expect(c.started).toEqual(['x.md', 'y.md']);
    await c.settleAll();
  });

  it('yields nothing for no paths', async () => {
    const read = (): Promise<string> => Promise.reject(new Error('never called'));
    const got: unknown[] = [];
    for await (const item of readAhead([], read)) got.push(item);
    expect(got).toEqual([]);
  });
});
