/**
 * The record path driven by `RECORD_KINDS` (issue 23 item 2): one `StructureStore.add(kind, …)`
 * that reads, checks and writes a record in one pass, and the rows' field specs, columns and
 * codes that the checkers, the storage and the graph checks are generated from.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { failure } from '../helpers/errors.js';
import { OCTX_CODES } from '../../src/model/codes.js';
import { newId } from '../../src/model/ids.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind, type RecordKindSpec } from '../../src/model/record-kinds.js';
import { IdRegistry } from '../../src/structure/id-registry.js';
import { readRecord } from '../../src/structure/record-check.js';
import { StructureStore } from '../../src/structure/structure-store.js';
import { COLUMN_NAMES, RECORD_COLUMNS, recordCount } from '../../src/structure/structure-snapshot.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function store(): StructureStore {
  const dir = mkdtempSync(join(tmpdir(), 'octx-record-path-'));
  dirs.push(dir);
  return new StructureStore(new IdRegistry(), dir);
}
const spec = (kind: (typeof RECORD_KIND_ORDER)[number]): RecordKindSpec => RECORD_KINDS[kind];

describe('RECORD_KINDS rows drive the storage and the graph checks', () => {
  it('gives every reference a known missing code and every id field a column, each column once', () => {
    for (const kind of RECORD_KIND_ORDER) {
      const row = spec(kind);
      for (const field of Object.keys(row.references)) expect(Object.keys(OCTX_CODES), `${kind}.${field}`).toContain(row.fields[field]!.missingCode);
      for (const field of row.idFields) expect((RECORD_COLUMNS[kind] as Record<string, string>)[field], `${kind}.${field}`).toBeDefined();
      if (row.role === 'relation') expect(Object.keys(OCTX_CODES)).toContain(row.duplicateCode);
    }
    expect(new Set(COLUMN_NAMES).size).toBe(COLUMN_NAMES.length);
  });

  it('derives the field lists from the field specs, required fields first', () => {
    for (const kind of RECORD_KIND_ORDER) {
      const row = spec(kind);
      expect([...row.required, ...row.optional]).toEqual(Object.keys(row.fields));
      expect(row.idFields).toEqual(Object.keys(row.fields).filter((f) => row.fields[f]!.type === 'uuidv7'));
    }
  });
});

describe('StructureStore.add(kind, …)', () => {
  it('reads each known field once and writes what it checked, whatever the caller does afterwards', () => {
    const s = store();
    const doc = newId();
    const id = newId();
    let reads = 0;
    const texts = ['First text.', ''];
    const record = {
      id,
      document_id: doc,
      ordinal: 0,
      get text() {
        return texts[reads++] ?? '';
      },
      meta: { page: 1 },
    };
    s.add('chunk', record);
    expect(reads).toBe(1);
    record.meta.page = 99;
    record.ordinal = 5;
    const file = s.freeze().files.chunk.file;
    expect(readFileSync(file, 'utf8')).toBe(`{"id":"${id}","document_id":"${doc}","ordinal":0,"text":"First text.","meta":{"page":1}}\n`);
    s.close();
  });

  it('counts, columns and refuses a duplicate pair with the row code, for each relation', () => {
    const s = store();
    const [chunk, event, entity, doc] = [newId(), newId(), newId(), newId()];
    // One record of every kind: typed by kind, so a kind added to the table is a compile error
    // here until it has one (the store itself takes its columns from the row).
    const one: Readonly<Record<RecordKind, Record<string, unknown>>> = {
      chunk: { id: chunk, document_id: doc, ordinal: 0, text: 'T.' },
      event: { id: event, title: 'E', content: 'C.' },
      entity: { id: entity, name: 'N', type: 'person' },
      'chunk-event': { chunk_id: chunk, event_id: event },
      'event-entity': { event_id: event, entity_id: entity, weight: 1 },
    };
    for (const kind of RECORD_KIND_ORDER) s.add(kind, one[kind]);
    const ce = failure(() => s.add('chunk-event', { chunk_id: chunk, event_id: event }));
    expect([ce.code, ce.issues[0]!.field, ce.issues[0]!.recordId]).toEqual(['OCTX_CHUNK_EVENT_DUPLICATE', 'event_id', chunk]);
    const ee = failure(() => s.add('event-entity', { event_id: event, entity_id: entity }));
    expect([ee.code, ee.issues[0]!.field, ee.issues[0]!.recordId]).toEqual(['OCTX_EVENT_ENTITY_DUPLICATE', 'entity_id', event]);
    const snap = s.freeze();
    for (const kind of RECORD_KIND_ORDER) expect([kind, recordCount(snap, kind), s.count(kind)]).toEqual([kind, 1, 1]);
    expect(snap.eventParent[0]).toBe(-1);
    expect(snap.eventLevel[0]).toBe(0);
    s.close();
  });

  it('stores nothing for a refused record', () => {
    const s = store();
    const e = failure(() => s.add('event', { id: newId(), title: 'E', content: 'C.', level: 1 }));
    expect([e.code, e.issues[0]!.field]).toEqual(['OCTX_RECORD_INVALID', 'parent_id']);
    expect(s.count('event')).toBe(0);
    expect(s.isEmpty).toBe(true);
    s.close();
  });
});

describe('readRecord', () => {
  it('writes integer-like extra keys first, as JSON.stringify always ordered them', () => {
    const [id, doc] = [newId(), newId()];
    const read = readRecord('chunk', { id, document_id: doc, ordinal: 1, text: 't', b: 1, '7': 2 });
    expect(read.line).toBe(`{"7":2,"id":"${id}","document_id":"${doc}","ordinal":1,"text":"t","b":1}`);
    expect(read.extraKeys).toEqual(['7', 'b']);
  });

  it('escapes line separators in text and extra fields, not elsewhere', () => {
    const [id, doc] = [newId(), newId()];
    const read = readRecord('chunk', { id, document_id: doc, ordinal: 1, text: 'a\u2028b', x: 'c\u0085' });
    expect(read.line).toBe(`{"id":"${id}","document_id":"${doc}","ordinal":1,"text":"a\\u2028b","x":"c\\u0085"}`);
  });

  it('is not valid and writes nothing when a field fails', () => {
    const read = readRecord('chunk-event', { chunk_id: newId(), event_id: 'nope' });
    expect([read.valid, read.line]).toEqual([false, '']);
  });
});
