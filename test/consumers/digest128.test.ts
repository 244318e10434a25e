/** The consumer checker's fixed-size identity digests (src/consumers/digest128.ts). */
import { describe, expect, it } from 'vitest';
import { digest128 } from '../../src/consumers/digest128.js';

describe('digest128', () => {
  it('is 8 UTF-16 units, the same for the same key, whatever the key’s length', () => {
    for (const key of ['', 'a', 'x'.repeat(500), '["person","曹操"]', '\ud800']) {
      expect(digest128(key)).toHaveLength(8);
      expect(digest128(key)).toBe(digest128(`${key}`));
    }
  });

  it('tells apart keys that differ in one unit, in length only, or in the order of their halves', () => {
    const keys = ['a', 'a\u0000', 'ab', 'ba', 'abcdefgh', 'abcdefgi', 'abcdefghi', '["person","cao cao"]', '["person ","cao cao"]', '["Person","cao cao"]'];
    expect(new Set(keys.map((k) => digest128(k))).size).toBe(keys.length);
  });

  it('no collision among 300 000 similar keys (every word position and the tail exercised)', () => {
    const seen = new Set<string>();
    for (let n = 0; n < 300_000; n++) seen.add(digest128(`["person","entity ${n}${'x'.repeat(n % 17)}"]`));
    expect(seen.size).toBe(300_000);
  });
});
