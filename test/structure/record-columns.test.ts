import { describe, expect, it } from 'vitest';
import { Int32Column, Uint32Column, Uint8Column } from '../../src/model/record-columns.js';

describe('growable columns', () => {
  it('keep every value across growth, doubling while small and growing by half past 16 MiB', () => {
    const c = new Int32Column(1);
    const capacities: number[] = [];
    const n = 6_000_000; // 24 MB of Int32: crosses the 16 MiB limit
    for (let i = 0; i < n; i++) {
      const before = c.array.length;
      // Pushes while small (growth one value at a time), then blocks written through the array.
      if (i < 4096) c.push(i ^ 0x5a5a);
      else {
        const at = c.extend(Math.min(4096, n - i));
        const a = c.array;
        for (let k = at; k < c.length; k++) a[k] = k ^ 0x5a5a;
        i = c.length - 1;
      }
      if (c.array.length !== before) capacities.push(c.array.length);
    }
    expect(c.length).toBe(n);
    const v = c.view();
    let bad = 0;
    for (let i = 0; i < n; i++) if (v[i] !== (i ^ 0x5a5a)) bad++;
    expect(bad).toBe(0);
    // 1, 2, 4, …, 2^22 (16 MiB of Int32), then 2^22 × 1.5 = 6,291,456 ≥ 6M: a quarter less than 2^23.
    expect(capacities.slice(-3)).toEqual([2 ** 21, 2 ** 22, 6_291_456]);
    expect(capacities.slice(0, 4)).toEqual([2, 4, 8, 16]);
  });

  it('extend grows once to fit a multi-value record, past the limit too', () => {
    const w = new Uint32Column(4);
    for (let i = 0; i < 5; i++) {
      const at = w.extend(4);
      w.array[at + 3] = i + 1;
    }
    expect(w.length).toBe(20);
    expect([...w.view()].filter((x) => x !== 0)).toEqual([1, 2, 3, 4, 5]);
    const big = new Uint8Column(16 * 2 ** 20);
    big.extend(16 * 2 ** 20);
    big.set(16 * 2 ** 20 - 1, 7);
    big.extend(1);
    expect(big.array.length).toBe(24 * 2 ** 20);
    expect(big.get(16 * 2 ** 20 - 1)).toBe(7);
    expect(big.get(16 * 2 ** 20)).toBe(0);
  });
});
