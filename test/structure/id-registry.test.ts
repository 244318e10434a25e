import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { failure } from '../helpers/errors.js';
import { newId } from '../../src/index.js';
import { Int32Column } from '../../src/model/record-columns.js';
import { uuidToWords, wordsToUuid } from '../../src/model/uuid-words.js';
import { IdKind } from '../../src/model/id-kind.js';
import { IdRegistry, REFERENCED } from '../../src/structure/id-registry.js';
import { PairIndex } from '../../src/structure/pair-index.js';
import { StructureStore } from '../../src/structure/structure-store.js';

describe('IdRegistry', () => {
  it('interns UUIDv7s to dense indices and gives back the same text, across table growth', () => {
    const reg = new IdRegistry();
    const ids = Array.from({ length: 20_000 }, () => newId());
    ids.forEach((id, i) => expect(reg.ref(id)).toBe(i));
    expect(reg.size).toBe(ids.length);
    // Fresh string objects, as records parsed from JSON would bring.
    ids.forEach((id, i) => {
      const copy = (' ' + id).slice(1);
      expect(reg.find(copy)).toBe(i);
      expect(reg.ref(copy)).toBe(i);
      expect(reg.idOf(i)).toBe(id);
    });
    expect(reg.find(newId())).toBe(-1);
    expect(reg.size).toBe(ids.length);
  });

  it('keeps lookups exact for strings that are not canonical UUIDv7s', () => {
    const reg = new IdRegistry();
    const upper = '019C1234-5678-7ABC-8DEF-0123456789AB';
    const lower = upper.toLowerCase();
    const odd = ['abc', '', upper, '9b2f6c1e-8a4d-4c3b-9e2f-1a2b3c4d5e6f', `${lower} `, 'é'.repeat(36)];
    const uuids = Array.from({ length: 5_000 }, () => newId());
    const all = [...odd.slice(0, 3), ...uuids, lower, ...odd.slice(3)];
    all.forEach((id, i) => expect(reg.ref(id)).toBe(i));
    all.forEach((id, i) => {
      expect(reg.find(id)).toBe(i);
      expect(reg.idOf(i)).toBe(id);
    });
    expect(reg.find(upper)).not.toBe(reg.find(lower));
    expect(reg.find('abd')).toBe(-1);
  });

  it('defines ids once across kinds and refuses a second definition with OCTX_ID_DUPLICATE', () => {
    const reg = new IdRegistry();
    const a = newId();
    const referenced = reg.ref(a);
    expect(reg.kindOf(referenced)).toBe(REFERENCED);
    expect(reg.slotOf(referenced)).toBe(-1);
    reg.assertFree(a, IdKind.chunk);
    expect(reg.define(a, IdKind.chunk, 7)).toBe(referenced);
    expect(reg.kindOf(referenced)).toBe(IdKind.chunk);
    expect(reg.slotOf(referenced)).toBe(7);

    const e = failure(() => reg.assertFree(a, IdKind.event, 'octx.document_id'));
    expect(e.code).toBe('OCTX_ID_DUPLICATE');
    expect(e.issues[0]).toMatchObject({ recordId: a, field: 'octx.document_id' });
    expect(e.message).toContain(`id ${a} is already used by a chunk`);
    expect(e.message).toContain('(adding a event)');
    expect(failure(() => reg.define(a, IdKind.entity, 0)).code).toBe('OCTX_ID_DUPLICATE');
    reg.define('x', IdKind.entity, 0);
    expect(failure(() => reg.define('x', IdKind.entity, 1)).issues[0]!.field).toBe('id');

    reg.undefine(referenced);
    expect(reg.define(a, IdKind.event, 2)).toBe(referenced);
  });

  it('finds an id that a reference interned between assertFree and define (a chunk naming itself)', () => {
    const reg = new IdRegistry();
    for (let i = 0; i < 3000; i++) reg.ref(newId()); // the next insert may grow the table
    const id = newId();
    reg.assertFree(id, IdKind.chunk);
    const asDocument = reg.ref(id);
    expect(reg.define(id, IdKind.chunk, 0)).toBe(asDocument);
    expect(reg.size).toBe(3001);
  });

  it('formats words as canonical lowercase text, inverting uuidToWords', () => {
    const w = new Uint32Array(4);
    for (let i = 0; i < 2000; i++) {
      const id = newId();
      expect(uuidToWords(id, w, 0)).toBe(true);
      expect(wordsToUuid(w, 0)).toBe(id);
    }
    // Oracle: the plain toString(16)/padStart formatting, on words with zero and full nibbles.
    const hex = (n: number, len: number): string => n.toString(16).padStart(len, '0');
    const plain = (a: number, b: number, c: number, d: number): string =>
      `${hex(a, 8)}-${hex(b >>> 16, 4)}-${hex(b & 0xffff, 4)}-${hex(c >>> 16, 4)}-${hex(c & 0xffff, 4)}${hex(d, 8)}`;
    const edge = new Uint32Array([0, 0xffffffff, 0x0000ffff, 0xffff0000, 0x01020304, 0x0a0b0c0d, 0x7fffffff, 0x80000000]);
    expect(wordsToUuid(edge, 0)).toBe(plain(0, 0xffffffff, 0x0000ffff, 0xffff0000));
    expect(wordsToUuid(edge, 4)).toBe(plain(0x01020304, 0x0a0b0c0d, 0x7fffffff, 0x80000000));
    expect(wordsToUuid(edge, 0)).toBe('00000000-ffff-ffff-0000-ffffffff0000');
  });
});

describe('PairIndex', () => {
  it('answers membership like a Set of pairs, across growth', () => {
    const a = new Int32Column(4);
    const b = new Int32Column(4);
    const index = new PairIndex(a, b);
    const reference = new Set<string>();
    let seed = 1;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let i = 0; i < 30_000; i++) {
      const x = rand(400);
      const y = rand(400);
      const key = `${x}:${y}`;
      expect(index.has(x, y)).toBe(reference.has(key));
      if (reference.has(key)) continue;
      reference.add(key);
      const row = a.push(x);
      b.push(y);
      index.add(row);
    }
    expect(index.size).toBe(reference.size);
    for (let x = 0; x < 400; x += 7) for (let y = 0; y < 400; y += 3) expect(index.has(x, y)).toBe(reference.has(`${x}:${y}`));
  });

  it('indexes a row correctly when another pair was probed between has() and add()', () => {
    const a = new Int32Column();
    const b = new Int32Column();
    const index = new PairIndex(a, b);
    expect(index.has(1, 2)).toBe(false);
    expect(index.has(3, 4)).toBe(false);
    for (const [x, y] of [
      [1, 2],
      [3, 4],
    ] as const) {
      const row = a.push(x);
      b.push(y);
      index.add(row);
    }
    expect(index.has(1, 2)).toBe(true);
    expect(index.has(3, 4)).toBe(true);
    expect(index.has(2, 1)).toBe(false);
  });
});

describe('StructureStore duplicate detection at the call', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const store = (): StructureStore => {
    const dir = mkdtempSync(join(tmpdir(), 'octx-store-'));
    dirs.push(dir);
    return new StructureStore(new IdRegistry(), dir);
  };

  it('refuses repeated ordinals per document, including ordinals above 2^31', () => {
    const s = store();
    const doc = newId();
    const other = newId();
    const big = 2 ** 40 + 3;
    for (let o = 0; o < 5000; o++) s.add('chunk', { id: newId(), document_id: doc, ordinal: o, text: 't' });
    s.add('chunk', { id: newId(), document_id: doc, ordinal: big, text: 't' });
    s.add('chunk', { id: newId(), document_id: other, ordinal: 4999, text: 't' });
    s.add('chunk', { id: newId(), document_id: other, ordinal: big, text: 't' });
    for (const [d, o] of [
      [doc, 0],
      [doc, 4999],
      [doc, big],
      [other, big],
    ] as const) {
      const e = failure(() => s.add('chunk', { id: newId(), document_id: d, ordinal: o, text: 't' }));
      expect(e.code).toBe('OCTX_CHUNK_ORDINAL_DUPLICATE');
      expect(e.message).toContain(`document ${d} already has a chunk with ordinal ${o}`);
    }
    expect(s.count('chunk')).toBe(5003);
    s.close();
  });

  it('refuses repeated links of both kinds after many links, and keeps the refused one out', () => {
    const s = store();
    const chunks = Array.from({ length: 300 }, () => newId());
    const events = Array.from({ length: 30 }, () => newId());
    for (const c of chunks) for (let k = 0; k < 3; k++) s.add('chunk-event', { chunk_id: c, event_id: events[(chunks.indexOf(c) + k) % 30]! });
    for (const e of events) for (const c of chunks.slice(0, 40)) s.add('event-entity', { event_id: e, entity_id: c });
    const ce = failure(() => s.add('chunk-event', { chunk_id: chunks[123]!, event_id: events[(123 + 2) % 30]! }));
    expect(ce.code).toBe('OCTX_CHUNK_EVENT_DUPLICATE');
    expect(ce.issues[0]).toMatchObject({ recordId: chunks[123], field: 'event_id', message: `chunk ${chunks[123]!} is already linked to event ${events[(123 + 2) % 30]!}` });
    const ee = failure(() => s.add('event-entity', { event_id: events[29]!, entity_id: chunks[39]!, weight: 2 }));
    expect(ee.code).toBe('OCTX_EVENT_ENTITY_DUPLICATE');
    expect(s.count('chunk-event')).toBe(900);
    expect(s.count('event-entity')).toBe(1200);
    s.add('chunk-event', { chunk_id: chunks[123]!, event_id: events[(123 + 3) % 30]! });
    s.close();
  });
});
