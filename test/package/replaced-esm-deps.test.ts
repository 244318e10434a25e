import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/model/json.js';
import { limitConcurrency } from '../../src/package/limit-concurrency.js';

describe('limitConcurrency (replaces p-limit, which is ESM-only)', () => {
  it('runs at most n tasks at once, in call order, never synchronously, and passes results and rejections through', async () => {
    const limit = limitConcurrency(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (i: number) => async () => {
      started.push(i);
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5 - (i % 3)));
      running--;
      if (i === 3) throw new Error('three');
      return i * 10;
    };
    const results = Array.from({ length: 7 }, (_, i) => limit(task(i)));
    expect(started).toEqual([]); // nothing ran in the caller's turn
    const settled = await Promise.allSettled(results);
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([0, 10, 20, 'three', 40, 50, 60]);
    expect(() => limitConcurrency(0)).toThrow(TypeError);
    expect(() => limitConcurrency(1.5)).toThrow(TypeError);
  });

  it('clearQueue drops the tasks that have not started', async () => {
    const limit = limitConcurrency(1);
    const ran: number[] = [];
    const first = limit(async () => {
      ran.push(0);
      await new Promise((r) => setTimeout(r, 5));
    });
    void limit(() => ran.push(1));
    limit.clearQueue();
    await first;
    await new Promise((r) => setTimeout(r, 10));
    expect(ran).toEqual([0]);
  });
});

describe('canonicalJson (RFC 8785; replaces canonicalize, which is ESM-only)', () => {
  it('gives the bytes canonicalize 4.0.0 gives, on the RFC sample and on generated values', () => {
    const sample = { numbers: [333333333.3333333, 1e30, 4.5, 2e-3, 0.000000000000000000000000001], string: '€$\u000f\nA\'B"\\\\"/', literals: [null, true, false] };
    expect(canonicalJson(sample)).toBe(canonicalize(sample));
    expect(canonicalJson(sample)).toContain('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":');
    let state = 7;
    const next = (): number => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return state >>> 0;
    };
    const value = (depth: number): unknown => {
      const r = next() % 9;
      if (depth > 3 || r < 3) return [null, true, false, -0, 1.5e-7, 123456789012, 'x', 'ünï\u2028', ''][next() % 9];
      if (r < 6) return Array.from({ length: next() % 4 }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: next() % 5 }, () => [['b', 'a', 'é', '\u{1F600}', '10', '9', 'A'][next() % 7]!, value(depth + 1)]));
    };
    for (let i = 0; i < 300; i++) {
      const v = value(0);
      expect(canonicalJson(v)).toBe(canonicalize(v));
    }
    const withUndefined = { a: undefined, b: [undefined, Symbol('s')], c: { toJSON: () => 'C' } };
    expect(canonicalJson(withUndefined)).toBe(canonicalize(withUndefined));
    for (const bad of [Number.NaN, Infinity, '\ud800', { a: [Number.NaN] }]) expect(() => canonicalJson(bad)).toThrow();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow('Circular reference detected');
  });
});
