import { describe, expect, it } from 'vitest';
import { CHANGED, KeyDigestTable, SAME, UNSEEN } from '../../src/read/diff/key-digest-table.js';

/** Keys whose first words are nearly equal, as the timestamps of UUIDv7s are. */
const key = (n: number, words: number): Uint32Array => {
  const k = new Uint32Array(words);
  k[0] = 0x019c0000;
  k[words - 1] = n;
  if (words > 4) k[3] = n >>> 3;
  return k;
};
const digest = (n: number): Uint32Array => Uint32Array.of(n, n ^ 0xffff, 7, n * 3);

describe('KeyDigestTable', () => {
  it.each([4, 8])('holds 20,000 keys of %i words through every growth, in insertion order', (words) => {
    const t = new KeyDigestTable(words);
    for (let i = 0; i < 20_000; i++) expect(t.add(key(i, words), digest(i))).toBe(i);
    expect(t.size).toBe(20_000);
    expect(t.add(key(123, words), digest(0))).toBe(-1); // a key is added once
    const out = new Uint32Array(words);
    for (let i = 0; i < 20_000; i += 7) {
      const e = t.find(key(i, words));
      expect(e).toBe(i);
      expect(t.sameDigest(e, digest(i))).toBe(true);
      expect(t.sameDigest(e, digest(i + 1))).toBe(false);
      t.keyAt(e, out);
      expect([...out]).toEqual([...key(i, words)]);
    }
    expect(t.find(key(20_000, words))).toBe(-1);
    expect(t.bytes).toBeLessThan(20_000 * (4 * (words + 4) + 1 + 16) * 2);
  });

  it('keeps a mark per entry', () => {
    const t = new KeyDigestTable(4);
    t.add(key(1, 4), digest(1));
    t.add(key(2, 4), digest(2));
    expect(t.mark(0)).toBe(UNSEEN);
    t.setMark(0, SAME);
    t.setMark(1, CHANGED);
    expect([t.mark(0), t.mark(1)]).toEqual([SAME, CHANGED]);
  });
});
