import { describe, expect, it } from 'vitest';
import { UUID_V7_PATTERN, newId } from '../../src/model/ids.js';
import { IdKind } from '../../src/model/id-kind.js';
import { IdSpace } from '../../src/read/id-space.js';
import { isCanonicalUuidV7, uuidBytesToWords, uuidToWords, wordsToUuid } from '../../src/model/uuid-words.js';

describe('UUIDv7 words', () => {
  it('accepts exactly what UUID_V7_PATTERN accepts, and round-trips', () => {
    const w = new Uint32Array(4);
    const alphabet = '0123456789abcdefABCDEF-g7 \u00e9\u0130\u0660';
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const mismatches: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      let s = newId();
      if (i % 2 === 1) {
        const k = rnd(36);
        s = s.slice(0, k) + alphabet[rnd(alphabet.length)] + s.slice(k + 1);
      }
      if (i % 97 === 0) s = s.slice(0, 35);
      const expected = UUID_V7_PATTERN.test(s);
      const ok =
        uuidToWords(s, w, 0) === expected &&
        uuidBytesToWords(Buffer.from(s), 0, Buffer.byteLength(s), new Uint32Array(4), 0) === expected &&
        isCanonicalUuidV7(s) === expected &&
        (!expected || wordsToUuid(w, 0) === s);
      if (!ok) mismatches.push(s);
    }
    expect(mismatches).toEqual([]);
    expect(isCanonicalUuidV7(42)).toBe(false);
  });
});

describe('IdSpace', () => {
  it('registers, finds by kind, reports the holder of a duplicate, and grows', () => {
    const ids = new IdSpace();
    const chunks = Array.from({ length: 20_000 }, () => newId());
    chunks.forEach((id, i) => expect(ids.register(id, IdKind.chunk)).toBe(i));
    const event = newId();
    expect(ids.register(event, IdKind.event)).toBe(0);
    expect(ids.count(IdKind.chunk)).toBe(20_000);
    expect(ids.indexOf(chunks[12_345]!, IdKind.chunk)).toBe(12_345);
    expect(ids.indexOf(chunks[12_345]!, IdKind.event)).toBe(-1);
    expect(ids.indexOfBytes(Buffer.from(`xx${event}`), 2, 38, IdKind.event)).toBe(0);
    const dup = ids.register(chunks[7]!, IdKind.entity);
    expect(dup).toBeLessThan(0);
    expect(IdSpace.kindOf(-1 - dup)).toBe(IdKind.chunk);
    expect(ids.register('not-an-id', IdKind.chunk)).toBe(IdSpace.NOT_CANONICAL);
    expect(ids.indexOf(chunks[3]!.toUpperCase(), IdKind.chunk)).toBe(-1);
    expect(ids.idOf(IdKind.chunk, 19_999)).toBe(chunks[19_999]);
    expect(ids.kindOfId(event)).toBe(IdKind.event);
    ids.reserve(100_000);
    expect(ids.indexOf(chunks[0]!, IdKind.chunk)).toBe(0);
  });
});
