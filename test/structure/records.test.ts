import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failure } from '../helpers/errors.js';
import { readPackageText } from '../helpers/package-files.js';
import { tempDir } from '../helpers/temp.js';
import { newId, PackageBuilder } from '../../src/index.js';

const DOC = '019c1234-5678-7abc-8def-0123456789ab';

function builder(): PackageBuilder {
  return new PackageBuilder({ asset: { name: 'T' } }).addDocument({ path: 'a.md', markdown: `---\noctx:\n  document_id: ${DOC}\n---\n# A\n` });
}

const chunk = (over: Record<string, unknown> = {}) => ({ id: newId(), document_id: DOC, ordinal: 0, text: 'Some text.', ...over });
const event = (over: Record<string, unknown> = {}) => ({ id: newId(), title: 'T', content: 'Something happened.', ...over });
const entity = (over: Record<string, unknown> = {}) => ({ id: newId(), name: 'N', type: 'person', ...over });

/**
 * Completes the structure around `events` and `entities` (one chunk linked to every event, every
 * event linked to every entity; one event or entity of its own when none is given), so that a
 * strict export keeps the structure layer.
 */
function cover(b: PackageBuilder, events: readonly string[], entities: readonly string[]): void {
  const c = chunk();
  b.addChunk(c);
  const eventIds = [...events];
  if (eventIds.length === 0) {
    const e = event();
    b.addEvent(e);
    eventIds.push(e.id);
  }
  const entityIds = [...entities];
  if (entityIds.length === 0) {
    const n = entity();
    b.addEntity(n);
    entityIds.push(n.id);
  }
  for (const e of eventIds) {
    b.linkChunkEvent({ chunk_id: c.id, event_id: e });
    for (const n of entityIds) b.linkEventEntity({ event_id: e, entity_id: n });
  }
}

/** Writes `b` strictly (nothing may be left out) and returns the package's path. */
async function exported(b: PackageBuilder): Promise<string> {
  const out = join(tempDir(), 'p.octx');
  await b.export({ output: out, strict: true });
  return out;
}

/** The JSONL lines of `path` in the package `pkg`. */
async function lines(pkg: string, path: string): Promise<string[]> {
  return (await readPackageText(pkg, path)).trimEnd().split('\n');
}

describe('addChunk', () => {
  it('accepts a valid chunk with extra fields and returns the builder', () => {
    const b = builder();
    expect(b.addChunk(chunk({ page: 3, 'x-heading': ['A', 'B'] }))).toBe(b);
  });

  it.each([
    ['an id that is not UUIDv7', { id: 'abc' }, 'OCTX_ID_INVALID', 'id'],
    ['an upper-case id', { id: '019C1234-5678-7ABC-8DEF-0123456789AC' }, 'OCTX_ID_INVALID', 'id'],
    ['a v4 document_id', { document_id: '9b2f6c1e-8a4d-4c3b-9e2f-1a2b3c4d5e6f' }, 'OCTX_ID_INVALID', 'document_id'],
    ['a missing document_id', { document_id: undefined }, 'OCTX_RECORD_INVALID', 'document_id'],
    ['an empty text', { text: '' }, 'OCTX_RECORD_INVALID', 'text'],
    ['a white-space text', { text: ' \n ' }, 'OCTX_RECORD_INVALID', 'text'],
    ['a negative ordinal', { ordinal: -1 }, 'OCTX_RECORD_INVALID', 'ordinal'],
    ['a fractional ordinal', { ordinal: 1.5 }, 'OCTX_RECORD_INVALID', 'ordinal'],
    ['a NaN ordinal', { ordinal: Number.NaN }, 'OCTX_RECORD_INVALID', 'ordinal'],
    ['a string ordinal', { ordinal: '1' }, 'OCTX_RECORD_INVALID', 'ordinal'],
    ['a lone surrogate', { text: 'a\ud800b' }, 'OCTX_RECORD_INVALID', 'text'],
    ['an infinite extra', { score: Number.POSITIVE_INFINITY }, 'OCTX_RECORD_INVALID', 'score'],
    ['a nested NaN extra', { meta: { a: [1, Number.NaN] } }, 'OCTX_RECORD_INVALID', 'meta.a[1]'],
  ])('refuses %s', (_n, over, code, field) => {
    const given = (over as { id?: unknown }).id;
    const id = typeof given === 'string' ? given : undefined;
    const e = failure(() => builder().addChunk(chunk(over)));
    expect(e.code).toBe(code);
    expect(e.issues[0]!.field).toBe(field);
    if (id) expect(e.issues[0]!.recordId).toBe(id);
  });

  it('refuses a duplicate (document_id, ordinal) and a reused id, leaving the builder usable', () => {
    const b = builder();
    const c = chunk();
    b.addChunk(c);
    const dupOrdinal = failure(() => b.addChunk(chunk()));
    expect(dupOrdinal.code).toBe('OCTX_CHUNK_ORDINAL_DUPLICATE');
    expect(dupOrdinal.issues[0]!.field).toBe('ordinal');
    expect(failure(() => b.addChunk(chunk({ id: c.id, ordinal: 1 }))).code).toBe('OCTX_ID_DUPLICATE');
    expect(failure(() => b.addEvent(event({ id: c.id }))).code).toBe('OCTX_ID_DUPLICATE');
    expect(failure(() => b.addChunk(chunk({ id: DOC, ordinal: 2 }))).code).toBe('OCTX_ID_DUPLICATE');
    expect(b.addChunk(chunk({ ordinal: 1 }))).toBe(b);
  });

  it('reports every problem of one record at once', () => {
    const e = failure(() => builder().addChunk({ id: 'x', document_id: 'y', ordinal: -1, text: '' }));
    expect(e.issues.map((i) => i.field).sort()).toEqual(['document_id', 'id', 'ordinal', 'text']);
  });
});

describe('addEvent', () => {
  it('accepts top-level and child events with optional fields and extras, and writes them as given', async () => {
    const b = builder();
    const top = event({ summary: 'S', category: 'battle' });
    const child = event({ parent_id: top.id, level: 1, 'x-when': '208' });
    expect(b.addEvent(top).addEvent(child)).toBe(b);
    cover(b, [top.id, child.id], []);
    expect(await lines(await exported(b), 'data/events.jsonl')).toEqual([
      `{"id":"${top.id}","title":"T","content":"Something happened.","summary":"S","category":"battle"}`,
      `{"id":"${child.id}","title":"T","content":"Something happened.","parent_id":"${top.id}","level":1,"x-when":"208"}`,
    ]);
  });

  it.each([
    ['an empty title', { title: '' }, 'OCTX_RECORD_INVALID', 'title'],
    ['a missing content', { content: undefined }, 'OCTX_RECORD_INVALID', 'content'],
    ['a null summary', { summary: null }, 'OCTX_RECORD_INVALID', 'summary'],
    ['parent_id without level', { parent_id: '019c1234-5678-7abc-8def-0123456789ff' }, 'OCTX_RECORD_INVALID', 'level'],
    ['level without parent_id', { level: 1 }, 'OCTX_RECORD_INVALID', 'parent_id'],
    ['level 0 on a child', { parent_id: '019c1234-5678-7abc-8def-0123456789ff', level: 0 }, 'OCTX_RECORD_INVALID', 'level'],
    ['a fractional level', { parent_id: '019c1234-5678-7abc-8def-0123456789ff', level: 1.5 }, 'OCTX_RECORD_INVALID', 'level'],
    ['chunk_id', { chunk_id: '019c1234-5678-7abc-8def-0123456789ff' }, 'OCTX_RECORD_FIELD_FORBIDDEN', 'chunk_id'],
    ['chunk_ids', { chunk_ids: [] }, 'OCTX_RECORD_FIELD_FORBIDDEN', 'chunk_ids'],
    ['references', { references: [] }, 'OCTX_RECORD_FIELD_FORBIDDEN', 'references'],
    ['rank', { rank: 1 }, 'OCTX_RECORD_FIELD_FORBIDDEN', 'rank'],
  ])('refuses %s', (_n, over, code, field) => {
    const e = failure(() => builder().addEvent(event(over)));
    expect(e.code).toBe(code);
    expect(e.issues[0]!.field).toBe(field);
  });

  it('refuses an event that is its own parent', () => {
    const id = newId();
    expect(failure(() => builder().addEvent(event({ id, parent_id: id, level: 1 }))).code).toBe('OCTX_RECORD_INVALID');
  });
});

describe('addEntity', () => {
  it('accepts any type vocabulary and extras, and writes them as given', async () => {
    const b = builder();
    const n = entity({ type: 'Weird Type', description: 'D', aliases: ['x'] });
    expect(b.addEntity(n)).toBe(b);
    cover(b, [], [n.id]);
    expect(await lines(await exported(b), 'data/entities.jsonl')).toEqual([`{"id":"${n.id}","name":"N","type":"Weird Type","description":"D","aliases":["x"]}`]);
  });

  it.each([['normalized_name'], ['entity_type_id'], ['index_id'], ['index_status'], ['embedding'], ['vector']])('refuses the local field %s', (field) => {
    const e = failure(() => builder().addEntity(entity({ [field]: 'x' })));
    expect(e.code).toBe('OCTX_RECORD_FIELD_FORBIDDEN');
    expect(e.issues[0]!.field).toBe(field);
  });

  it('refuses an empty name or type', () => {
    expect(failure(() => builder().addEntity(entity({ name: '' }))).issues[0]!.field).toBe('name');
    expect(failure(() => builder().addEntity(entity({ type: '' }))).issues[0]!.field).toBe('type');
  });
});

describe('links', () => {
  it('accept links before their records exist (any order), and write them once the records are added', async () => {
    const b = builder();
    const [c, e, n] = [chunk(), event(), entity()];
    expect(b.linkChunkEvent({ chunk_id: c.id, event_id: e.id }).linkEventEntity({ event_id: e.id, entity_id: n.id, weight: 0.5 })).toBe(b);
    b.addEntity(n).addEvent(e).addChunk(c);
    const pkg = await exported(b);
    expect(await lines(pkg, 'relations/chunk-events.jsonl')).toEqual([`{"chunk_id":"${c.id}","event_id":"${e.id}"}`]);
    expect(await lines(pkg, 'relations/event-entities.jsonl')).toEqual([`{"event_id":"${e.id}","entity_id":"${n.id}","weight":0.5}`]);
  });

  it('refuse duplicate pairs', () => {
    const b = builder();
    const ce = { chunk_id: newId(), event_id: newId() };
    b.linkChunkEvent(ce);
    expect(failure(() => b.linkChunkEvent({ ...ce })).code).toBe('OCTX_CHUNK_EVENT_DUPLICATE');
    const ee = { event_id: newId(), entity_id: newId() };
    b.linkEventEntity(ee);
    expect(failure(() => b.linkEventEntity({ ...ee, weight: 2 })).code).toBe('OCTX_EVENT_ENTITY_DUPLICATE');
  });

  it.each([
    [{ weight: null }, 'weight'],
    [{ weight: Number.NaN }, 'weight'],
    [{ weight: Number.NEGATIVE_INFINITY }, 'weight'],
    [{ weight: '1' }, 'weight'],
    [{ description: 3 }, 'description'],
  ])('refuse an event-entity link with %j', (over, field) => {
    const e = failure(() => builder().linkEventEntity({ event_id: newId(), entity_id: newId(), ...over } as never));
    expect(e.code).toBe('OCTX_RECORD_INVALID');
    expect(e.issues[0]!.field).toBe(field);
  });

  it('refuse link ids that are not UUIDv7', () => {
    expect(failure(() => builder().linkChunkEvent({ chunk_id: 'c', event_id: newId() })).code).toBe('OCTX_ID_INVALID');
  });
});
