/** The consumer checker's fixed-size identity memory: identity-digest.ts and digest-index.ts. */
import { describe, expect, it } from 'vitest';
import { DigestIndex, RecordIds } from '../../src/consumers/digest-index.js';
import { digest128 } from '../../src/consumers/identity-digest.js';

const hex = (key: string) => [...digest128(key)].map((w) => w.toString(16).padStart(8, '0')).join('');

describe('digest128', () => {
  it('is four 32-bit words, the same for the same key, whatever the key’s length', () => {
    for (const key of ['', 'a', 'x'.repeat(500), '["person","曹操"]', '\ud800']) {
      expect(digest128(key)).toHaveLength(4);
      expect(hex(key)).toBe(hex(`${key}`));
    }
  });

  it('tells apart keys that differ in one unit, in length only, or in the order of their halves', () => {
    const keys = [
      '\ud800',
      '\udfff',
      '\ufffd',
      'a',
      'a\u0000',
      'ab',
      'ba',
      'abcdefgh',
      'abcdefgi',
      'abcdefghi',
      '["person","cao cao"]',
      '["person ","cao cao"]',
      '["Person","cao cao"]',
    ];
    expect(new Set(keys.map(hex)).size).toBe(keys.length);
  });

  it('no collision among 300 000 similar keys (every word position and the tail exercised)', () => {
    const seen = new Set<string>();
    for (let n = 0; n < 300_000; n++) seen.add(hex(`["person","entity ${n}${'x'.repeat(n % 17)}"]`));
    expect(seen.size).toBe(300_000);
  });
});

describe('DigestIndex and RecordIds', () => {
  it('return the first record of a digest across growth; ids round-trip, UUID or not', () => {
    const index = new DigestIndex();
    const ids = new RecordIds();
    const id = (n: number) => (n % 7 === 0 ? `local-${n}` : `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`);
    for (let n = 0; n < 50_000; n++) expect(index.firstOrAdd(digest128(`k${n}`), ids.add(id(n)))).toBeUndefined();
    expect(index.size).toBe(50_000);
    for (const n of [0, 1, 7, 4095, 49_999]) {
      const first = index.firstOrAdd(digest128(`k${n}`), 999_999);
      expect(first).toBe(n);
      expect(ids.get(first!)).toBe(id(n));
    }
    expect(ids.get(ids.add('019C0000-0000-7000-8000-00000000ABCD'))).toBe('019C0000-0000-7000-8000-00000000ABCD');
    // 5 words a slot, at most 3/4 full: about 27–53 bytes an entry.
    expect(index.bytes / index.size).toBeLessThan(54);
  });
});
