import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isUuidV7, openPackage, PackageBuilder, validatePackage } from 'octx-export';
import { fromSagDatabase, preservedRecordId, sagCompatibleId, sagSlug } from 'octx-export/adapters/sag';
import { tempDir } from '../helpers/temp.js';
import { createSagDatabase, SAG, type SagGeneration } from './sag-fixture.js';
import { failureAsync as rejects } from '../helpers/errors.js';

const flip = (v4: string) => `${v4.slice(0, 14)}7${v4.slice(15)}`;
const builder = () => new PackageBuilder({ asset: { name: '三国演义读书会' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } });

function database(gen: SagGeneration = 1): string {
  const path = join(tempDir('octx-sag-'), 'sag.db');
  createSagDatabase(path, gen);
  return path;
}

async function records(pkg: string, path: string): Promise<Record<string, any>[]> {
  const p = await openPackage(pkg);
  try {
    const text = (await p.readFile(path)).toString('utf8').trim();
    return text === '' ? [] : text.split('\n').map((l) => JSON.parse(l) as Record<string, any>);
  } finally {
    await p.close();
  }
}

describe('SAG ids', () => {
  it('reproduces SAG’s own mapping: v7 kept, v4 with its version nibble set to 7, anything else refused', () => {
    expect(sagCompatibleId('a1591305-4d99-4e27-97ee-85bd23ba8ef5')).toBe('a1591305-4d99-7e27-97ee-85bd23ba8ef5'); // SAG's golden value
    expect(sagCompatibleId('{A1591305-4D99-4E27-97EE-85BD23BA8EF5}')).toBe('a1591305-4d99-7e27-97ee-85bd23ba8ef5');
    expect(sagCompatibleId('a15913054d994e2797ee85bd23ba8ef5')).toBe('a1591305-4d99-7e27-97ee-85bd23ba8ef5');
    expect(sagCompatibleId(SAG.firePreserved)).toBe(SAG.firePreserved);
    expect(sagCompatibleId('a1591305-4d99-1e27-97ee-85bd23ba8ef5')).toBeUndefined(); // v1
    expect(sagCompatibleId('a1591305-4d99-4e27-c7ee-85bd23ba8ef5')).toBeUndefined(); // not the RFC variant
    expect(sagCompatibleId('chunk-17')).toBeUndefined();
    expect(preservedRecordId({ octx: { record_id: SAG.firePreserved } })).toBe(SAG.firePreserved);
    expect(preservedRecordId({ octx: { record_id: SAG.events.oath } })).toBeUndefined(); // a v4 is not a preserved OCTX id
    expect(sagSlug('The Battle of Red Cliffs')).toBe('the-battle-of-red-cliffs');
    expect(sagSlug('桃园结义')).toBe('document');
    expect(sagSlug('Café — Menü')).toBe('cafe-menu');
  });
});

describe.each([1, 2] as const)('fromSagDatabase, schema generation %i', (gen) => {
  it('exports one source: documents, ranked chunks, live events with recomputed levels, weighted entities', async () => {
    const db = database(gen);
    const out = join(tempDir(), 'sag.octx');
    const b = builder();
    const report = await fromSagDatabase(b, db, { sourceId: SAG.source, idMode: 'sag-compatible' });
    expect(report.generation).toBe(gen === 1 ? 'source_config_id' : 'data_source_id');
    expect(report.source).toEqual({ id: SAG.source, name: '三国演义读书会' });
    expect(report.chunks).toEqual({ count: 4, unbound: 1, otherArticles: 0 });
    expect(report.events).toMatchObject({ count: 6, softDeleted: 1, detachedFromParent: [flip(SAG.events.orphan)], withoutChunk: [] });
    expect(report.entities.count).toBe(6);
    expect(report.ids.preserved).toBe(2);
    expect(report.structure.expected).toBe('complete');
    await b.export({ output: out, structure: 'require' });
    const v = await validatePackage(out);
    expect(v.valid && v.fullyValidated).toBe(true);

    // Documents: "# title" + content (no second heading when the content has one).
    const p = await openPackage(out);
    const docs: Record<string, string> = {};
    try {
      for await (const d of p.documents()) docs[d.path] = d.text;
    } finally {
      await p.close();
    }
    const taoyuan = flip(SAG.articles.taoyuan);
    expect(Object.keys(docs).sort()).toEqual([
      `knowledge/documents/document-${taoyuan.slice(-8)}.md`,
      `knowledge/documents/the-battle-of-red-cliffs-${flip(SAG.articles.chibi).slice(-8)}.md`,
    ]);
    const t = docs[`knowledge/documents/document-${taoyuan.slice(-8)}.md`]!;
    expect(t).toContain(`octx:\n  document_id: "${taoyuan}"`);
    expect(t).toContain('\n# 桃园结义\n\n东汉末年');
    expect(docs[`knowledge/documents/the-battle-of-red-cliffs-${flip(SAG.articles.chibi).slice(-8)}.md`]!.match(/^# The Battle of Red Cliffs$/gm)).toHaveLength(1);

    // Chunks: rank → ordinal (gaps kept), ids by SAG's mapping, heading kept, unbound chunk left out.
    const chunks = await records(out, 'data/chunks.jsonl');
    expect(chunks.map((c) => [c.id, c.ordinal])).toEqual([
      [flip(SAG.chunks.t0), 0],
      [flip(SAG.chunks.t1), 1],
      [flip(SAG.chunks.c0), 0],
      [flip(SAG.chunks.c2), 2],
    ]);
    expect(chunks[2]!.heading).toBe('The Battle of Red Cliffs');

    // Events: deleted left out; levels recomputed from the kept parent chain; preserved ids and titles.
    const events = Object.fromEntries((await records(out, 'data/events.jsonl')).map((e) => [e.id, e]));
    expect(Object.keys(events)).not.toContain(flip(SAG.events.deleted));
    expect(events[flip(SAG.events.oath)]).toMatchObject({ title: '桃园三结义', summary: '刘关张结为兄弟。', category: 'alliance', start_time: '0184-03-01T00:00:00' });
    expect(events[flip(SAG.events.oath)]).not.toHaveProperty('level');
    expect(events[flip(SAG.events.vow)]).toMatchObject({ parent_id: flip(SAG.events.oath), level: 1 }); // stored 5
    expect(events[flip(SAG.events.orphan)]).not.toHaveProperty('parent_id'); // parent soft-deleted
    expect(events[flip(SAG.events.orphan)]).not.toHaveProperty('level');
    const fire = events[SAG.firePreserved]!;
    expect(fire.title).toBe('Zhou Yu plans the fire attack on Cao Cao’s fleet at Red Cliffs'); // extra_data.octx.original_title
    expect(fire.content).toBe('Zhou Yu, commander of the Wu army, planned to destroy Cao Cao’s fleet at Red Cliffs with fire.'); // summary, never the title
    expect(events[flip(SAG.events.wind)]).toMatchObject({ parent_id: SAG.firePreserved, level: 1 });
    expect(events[flip(SAG.events.retreat)]).toMatchObject({ parent_id: flip(SAG.events.wind), level: 2 }); // stored 1

    // Relations: chunk_id → chunk-event; event_entity weights kept (NULL weight omitted).
    const ce = await records(out, 'relations/chunk-events.jsonl');
    expect(ce).toContainEqual({ chunk_id: flip(SAG.chunks.t1), event_id: flip(SAG.events.oath) });
    expect(ce).toHaveLength(6);
    const ee = await records(out, 'relations/event-entities.jsonl');
    expect(ee).toContainEqual({ event_id: flip(SAG.events.oath), entity_id: flip(SAG.entities.guanyu), weight: 0.9, description: '结义二弟' });
    expect(ee).toContainEqual({ event_id: SAG.firePreserved, entity_id: SAG.chibiPreserved, weight: 0.5, description: 'place' });
    expect(ee.find((l) => l.event_id === flip(SAG.events.retreat))).toEqual({ event_id: flip(SAG.events.retreat), entity_id: flip(SAG.entities.caocao) });
    const entities = await records(out, 'data/entities.jsonl');
    expect(entities.map((e) => e.name).sort()).toEqual(['Cao Cao', 'Zhou Yu', '关羽', '刘备', '张飞', '赤壁'].sort());
    expect(entities.find((e) => e.name === '赤壁')).toEqual({ id: SAG.chibiPreserved, name: '赤壁', type: 'place', description: 'Red Cliffs, on the Yangtze.' });
  });
});

describe('fromSagDatabase: ids, selection and refusals', () => {
  it('ledger mode: preserved record ids first, then stable ledger ids — no local id leaks', async () => {
    const db = database();
    const b = builder();
    const report = await fromSagDatabase(b, db, { sourceId: SAG.source });
    expect(report.idMode).toBe('ledger');
    expect(report.ids).toEqual({ preserved: 2, sagCompatible: 0, ledger: 16 });
    const out = join(tempDir(), 'ledger.octx');
    await b.export({ output: out });
    const events = await records(out, 'data/events.jsonl');
    expect(events.map((e) => e.id)).toContain(SAG.firePreserved);
    expect(events.every((e) => isUuidV7(e.id))).toBe(true);
    expect(events.map((e) => e.id)).not.toContain(flip(SAG.events.oath));
    expect(b.ids.peek('event', `sag:${SAG.events.oath}`)).toBe(events.find((e) => e.title === '桃园三结义')!.id);
  });

  it('duplicate chunk ranks are an error that names them', async () => {
    const db = database();
    const w = new Database(db);
    w.prepare(
      "INSERT INTO source_chunk (id, source_config_id, source_type, article_id, content, rank) VALUES ('e1000000-0000-4000-8000-0000000000ff', ?, 'ARTICLE', ?, '重复的段落。', 1)",
    ).run(SAG.source, SAG.articles.taoyuan);
    w.close();
    const e = await rejects(fromSagDatabase(builder(), db, { sourceId: SAG.source }));
    expect(e.code).toBe('OCTX_ADAPTER_INPUT_INVALID');
    expect(e.issues[0]).toMatchObject({ path: db, field: 'source_chunk.rank' });
    expect(e.issues[0]!.message).toContain(`article ${SAG.articles.taoyuan} rank 1: chunks ${SAG.chunks.t1} and e1000000-0000-4000-8000-0000000000ff`);
  });

  it('an unknown source lists the sources that exist; a non-SAG database is refused', async () => {
    const db = database();
    const e = await rejects(fromSagDatabase(builder(), db, { sourceId: 'src_missing' }));
    expect(e.message).toContain(`sources with articles: ${SAG.otherSource}, ${SAG.source}`);
    const other = join(tempDir(), 'other.db');
    new Database(other).exec('CREATE TABLE notes (id TEXT)').close();
    const n = await rejects(fromSagDatabase(builder(), other, { sourceId: SAG.source }));
    expect(n.message).toMatch(/not a zleap-sag engine database: table\(s\) article, source_chunk, source_event, entity, event_entity missing/);
    const notSqlite = join(tempDir(), 'x.db');
    (await import('node:fs')).writeFileSync(notSqlite, 'plain text, not a database');
    expect((await rejects(fromSagDatabase(builder(), notSqlite, { sourceId: SAG.source }))).code).toBe('OCTX_OPEN_ERROR');
  });

  it('refuses events without text and entities of another source; never copies a title into content', async () => {
    const db = database();
    const w = new Database(db);
    w.prepare("UPDATE source_event SET content = '', summary = NULL WHERE id = ?").run(SAG.events.wind);
    w.prepare('UPDATE event_entity SET entity_id = ? WHERE event_id = ?').run(SAG.entities.other, SAG.events.retreat);
    w.close();
    const e = await rejects(fromSagDatabase(builder(), db, { sourceId: SAG.source }));
    const messages = e.issues.map((i) => i.message).join('\n');
    expect(messages).toContain(`event ${SAG.events.wind} has neither content nor summary (its title is not copied into content)`);
    expect(messages).toContain(`belong to another source: ${SAG.entities.other}`);
  });

  it('an event whose chunk is gone keeps its place but makes the structure incomplete (reported, not patched)', async () => {
    const db = database();
    const w = new Database(db);
    w.prepare('UPDATE source_event SET chunk_id = NULL WHERE id = ?').run(SAG.events.retreat);
    w.close();
    const b = builder();
    const report = await fromSagDatabase(b, db, { sourceId: SAG.source, idMode: 'sag-compatible' });
    expect(report.events.withoutChunk).toEqual([flip(SAG.events.retreat)]);
    expect(report.structure).toMatchObject({ expected: 'documents-only' });
    const result = await b.export({ output: join(tempDir(), 'x.octx') });
    expect(result.report.structure.status).toBe('omitted');
    expect(result.report.structure.coverage!.eventsWithoutChunks.ids).toEqual([flip(SAG.events.retreat)]);
  });

  it('selects articles, and reads documents only when asked', async () => {
    const db = database();
    const only = await fromSagDatabase(builder(), db, { sourceId: SAG.source, articleIds: [SAG.articles.chibi], idMode: 'sag-compatible' });
    expect(only.documents.count).toBe(1);
    expect(only.events.count).toBe(3);
    expect(only.chunks.otherArticles).toBe(2);
    const b = builder();
    const docs = await fromSagDatabase(b, db, { sourceId: SAG.source, documentsOnly: true });
    expect(docs.chunks.count).toBe(0);
    expect(docs.structure.expected).toBe('documents-only');
    const result = await b.export({ output: join(tempDir(), 'docs.octx') });
    expect(result.report.structure.status).toBe('none');
    expect(result.manifest.files).toHaveLength(2);
    const unknown = await rejects(fromSagDatabase(builder(), db, { sourceId: SAG.source, articleIds: [SAG.articles.other] }));
    expect(unknown.message).toContain(`article(s) ${SAG.articles.other} are not (non-deleted) articles of source ${SAG.source}`);
  });
});
