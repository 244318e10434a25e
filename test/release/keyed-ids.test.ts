import { describe, expect, it } from 'vitest';
import { KeyedIds } from '../../src/release/keyed-ids.js';
import { IdLedger } from '../../src/release/id-ledger.js';
import { isUuidV7, newId } from '../../src/model/ids.js';

describe('KeyedIds (the id ledger table of one kind)', () => {
  it('keeps 50,000 keys through several table growths, each id equal to the one stored', () => {
    const t = new KeyedIds();
    const ids: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      ids.push(newId());
      t.set(`doc-${i}#${i % 7}`, ids[i]!);
    }
    expect(t.size).toBe(50_000);
    for (const i of [0, 1, 1023, 1024, 4096, 49_999]) expect(t.get(`doc-${i}#${i % 7}`)).toBe(ids[i]);
    expect(t.get('doc-50000#2')).toBeUndefined();
    expect(t.has('doc-7#0')).toBe(true);
    expect(t.has('doc-7#1')).toBe(false);
    let same = 0;
    for (let i = 0; i < 50_000; i++) if (t.get(`doc-${i}#${i % 7}`) === ids[i]) same++;
    expect(same).toBe(50_000);
  });

  it('replaces an id in place, and keeps an id that is not a UUIDv7 verbatim', () => {
    const t = new KeyedIds();
    const a = '019c0000-0000-7000-8000-0000000000a1';
    const b = '019c0000-0000-7000-8000-0000000000b2';
    t.set('k', a);
    t.set('k', b);
    expect(t.size).toBe(1);
    expect(t.get('k')).toBe(b);
    // Upper case is not canonical: kept as given, never normalised.
    t.set('odd', 'ABC-not-a-uuid');
    t.set('upper', b.toUpperCase());
    expect(t.get('odd')).toBe('ABC-not-a-uuid');
    expect(t.get('upper')).toBe('019C0000-0000-7000-8000-0000000000B2');
    t.set('odd', a);
    expect(t.get('odd')).toBe(a);
  });

  it('tells keys apart that differ only past their common prefix, in non-ASCII text, or by a hash collision', () => {
    const t = new KeyedIds();
    // FNV-1a collides on these two ASCII strings; only the key comparison tells them apart.
    const keys = ['graphrag:text-unit:documents/a.md:0', 'graphrag:text-unit:documents/a.md:1', '曹操', '曹操 ', 'costarring', 'liquid', '', 'a'];
    keys.forEach((k, i) => t.set(k, `019c0000-0000-7000-8000-00000000000${i}`));
    keys.forEach((k, i) => expect(t.get(k)).toBe(`019c0000-0000-7000-8000-00000000000${i}`));
  });

  it('lists its entries in code-unit order of the keys', () => {
    const t = new KeyedIds();
    for (const k of ['b', 'a', 'B', 'é', 'aa', '10', '9']) t.set(k, newId());
    expect([...t.sortedEntries()].map(([k]) => k)).toEqual(['10', '9', 'B', 'a', 'aa', 'b', 'é']);
    for (const [k, id] of t.sortedEntries()) expect(t.get(k)).toBe(id);
  });
});

describe('IdLedger on KeyedIds', () => {
  it('returns one id per key, across kinds separately, and writes its state sorted', () => {
    const known = '019c0000-0000-7000-8000-00000000c0de';
    const ledger = new IdLedger({ document: {}, chunk: { 'z#0': known }, event: {}, entity: {} });
    expect(ledger.chunk('z#0')).toBe(known);
    const a = ledger.chunk('a#0');
    expect(isUuidV7(a)).toBe(true);
    expect(ledger.chunk('a#0')).toBe(a);
    expect(ledger.event('a#0')).not.toBe(a);
    expect(ledger.peek('chunk', 'a#0')).toBe(a);
    expect(ledger.peek('chunk', 'b#0')).toBeUndefined();
    const json = ledger.toJSON();
    expect(Object.entries(json.chunk)).toEqual([
      ['a#0', a],
      ['z#0', known],
    ]);
    expect(Object.keys(json.event)).toEqual(['a#0']);
  });
});
