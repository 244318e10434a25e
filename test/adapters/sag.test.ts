import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isUuidV7, openPackage, PackageBuilder, validatePackage } from 'octx-export';
import { fromSagDatabase, preservedRecordId, sagCompatibleId, sagDocumentBody, sagSlug, sagTime } from 'octx-export/adapters/sag';
import { tempDir } from '../helpers/temp.js';
import { createSagAppDatabase, createSagDatabase, SAG, type SagGeneration } from './sag-fixture.js';
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

/** Every record of every structure file, for value checks. */
async function structure(pkg: string) {
  return {
    chunks: await records(pkg, 'data/chunks.jsonl'),
    events: await records(pkg, 'data/events.jsonl'),
    entities: await records(pkg, 'data/entities.jsonl'),
    chunkEvents: await records(pkg, 'relations/chunk-events.jsonl'),
    eventEntities: await records(pkg, 'relations/event-entities.jsonl'),
  };
}

async function documents(pkg: string): Promise<Record<string, string>> {
  const p = await openPackage(pkg);
  const docs: Record<string, string> = {};
  try {
    for await (const d of p.documents()) docs[d.path] = d.text;
  } finally {
    await p.close();
  }
  return docs;
}

async function expectValid(pkg: string): Promise<void> {
  const v = await validatePackage(pkg);
  expect(v.issues.filter((i) => i.severity === 'error')).toEqual([]);
  expect(v.valid && v.fullyValidated).toBe(true);
}

/** A row for source_chunk with every NOT NULL column of the real schema. */
function chunkRow(gen: SagGeneration, id: string, article: string, rank: number, content: string, generation?: string) {
  return {
    id,
    [gen === 1 ? 'source_config_id' : 'data_source_id']: SAG.source,
    source_type: 'ARTICLE',
    source_id: article,
    article_id: article,
    content,
    rank,
    chunk_length: content.length,
    ...(gen === 2 ? { generation_id: generation ?? SAG.generations.taoyuan } : {}),
  };
}

function insertChunk(db: string, gen: SagGeneration, row: Record<string, unknown>): void {
  const w = new Database(db);
  const keys = Object.keys(row);
  w.prepare(`INSERT INTO source_chunk (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`).run(row);
  w.close();
}

describe('sagTime and sagDocumentBody: what SAG’s exporter writes', () => {
  it('times: naive ISO 8601 to the second, microseconds dropped, an offset kept', () => {
    expect(sagTime('2026-07-01 10:00:00.123456')).toBe('2026-07-01T10:00:00');
    expect(sagTime('0184-03-01 00:00:00.000000')).toBe('0184-03-01T00:00:00');
    expect(sagTime('2026-07-01T10:05')).toBe('2026-07-01T10:05:00');
    expect(sagTime('2026-07-01')).toBe('2026-07-01T00:00:00');
    expect(sagTime('2026-07-01 10:00:00.5+08:00')).toBe('2026-07-01T10:00:00+08:00');
    expect(sagTime(1_782_900_000)).toBe('2026-07-01T10:00:00');
    expect(sagTime('')).toBeUndefined();
    expect(sagTime(null)).toBeUndefined();
  });

  it('a body whose lstrip() starts with "#" (a heading or a #tag) gets no "# title" line', () => {
    expect(sagDocumentBody('T', '#三国 #读书\n正文')).toBe('#三国 #读书\n正文\n');
    expect(sagDocumentBody('T', '  \n# Heading\n\nText\n')).toBe('# Heading\n\nText\n');
    expect(sagDocumentBody('T', '\x1c\x85#tag')).toBe('#tag\n'); // Python's whitespace, not only JS's \s
    expect(sagDocumentBody('T', 'Text')).toBe('# T\n\nText\n');
    expect(sagDocumentBody('T', '\ufeff#x')).toBe('# T\n\n\ufeff#x\n'); // U+FEFF is not whitespace to Python
    expect(sagDocumentBody('T', '')).toBe('# T\n\n');
  });
});

describe.each([1, 2] as const)('fromSagDatabase, schema generation %i (fixture from the real table definitions)', (gen) => {
  it('exports one source: COMPLETED articles, ranked chunks of the active generation, live events with recomputed levels, weighted entities', async () => {
    const db = database(gen);
    const out = join(tempDir(), 'sag.octx');
    const b = builder();
    const report = await fromSagDatabase(b, db, { sourceId: SAG.source, idMode: 'sag-compatible' });
    expect(report.generation).toBe(gen === 1 ? 'source_config_id' : 'data_source_id');
    expect(report.source).toEqual({ id: SAG.source, name: '三国演义读书会' });
    expect(report.articles).toEqual({
      statuses: ['COMPLETED'],
      skippedByStatus: { PENDING: 1, PROCESSING: 1, FAILED: 1 },
      skipped: [
        { id: SAG.articles.pending, status: 'PENDING' },
        { id: SAG.articles.processing, status: 'PROCESSING' },
        { id: SAG.articles.failed, status: 'FAILED' },
      ],
    });
    expect(report.generations).toEqual(
      gen === 1 ? { from: 'none', active: {} } : { from: 'manifest', active: { [SAG.articles.taoyuan]: SAG.generations.taoyuan, [SAG.articles.chibi]: SAG.generations.chibi } },
    );
    expect(report.chunks).toEqual({ count: 4, unbound: 1, otherArticles: 2, otherGenerations: gen === 2 ? 2 : 0 });
    expect(report.events).toMatchObject({ count: 6, softDeleted: 1, otherGenerations: gen === 2 ? 2 : 0, detachedFromParent: [flip(SAG.events.orphan)], withoutChunk: [] });
    expect(report.entities.count).toBe(6);
    expect(report.ids).toEqual({ preserved: 2, sagCompatible: 16, ledger: 0 });
    expect(report.structure.expected).toBe('complete');
    await b.export({ output: out, structure: 'require' });
    await expectValid(out);

    // Documents: "# title" + content (no second heading when the content has one); only COMPLETED articles.
    const docs = await documents(out);
    const taoyuan = flip(SAG.articles.taoyuan);
    expect(Object.keys(docs).sort()).toEqual([
      `knowledge/documents/document-${taoyuan.slice(-8)}.md`,
      `knowledge/documents/the-battle-of-red-cliffs-${flip(SAG.articles.chibi).slice(-8)}.md`,
    ]);
    const t = docs[`knowledge/documents/document-${taoyuan.slice(-8)}.md`]!;
    expect(t).toContain(`octx:\n  document_id: "${taoyuan}"`);
    expect(t).toContain('\n# 桃园结义\n\n东汉末年');
    expect(docs[`knowledge/documents/the-battle-of-red-cliffs-${flip(SAG.articles.chibi).slice(-8)}.md`]!.match(/^# The Battle of Red Cliffs$/gm)).toHaveLength(1);

    const s = await structure(out);
    // Chunks: rank → ordinal (gaps kept), ids by SAG's mapping, heading kept; unbound, other-status and leftover chunks left out.
    expect(s.chunks.map((c) => [c.id, c.document_id, c.ordinal])).toEqual([
      [flip(SAG.chunks.t0), taoyuan, 0],
      [flip(SAG.chunks.t1), taoyuan, 1],
      [flip(SAG.chunks.c0), flip(SAG.articles.chibi), 0],
      [flip(SAG.chunks.c2), flip(SAG.articles.chibi), 2],
    ]);
    expect(s.chunks[1]!.text).not.toContain('（旧）');
    expect(s.chunks[2]!.heading).toBe('The Battle of Red Cliffs');

    // Events: deleted left out; levels recomputed from the kept parent chain; preserved ids and titles; times to the second.
    const events = Object.fromEntries(s.events.map((e) => [e.id, e]));
    expect(Object.keys(events).sort()).toEqual(
      [SAG.events.oath, SAG.events.vow, SAG.events.orphan, SAG.events.wind, SAG.events.retreat].map(flip).concat(SAG.firePreserved).sort(),
    );
    expect(events[flip(SAG.events.oath)]).toEqual({
      id: flip(SAG.events.oath),
      title: '桃园三结义',
      content: '刘备、关羽、张飞在桃园焚香结拜为异姓兄弟，立誓同生共死、报国安民。',
      summary: '刘关张结为兄弟。',
      category: 'alliance',
      start_time: '0184-03-01T00:00:00',
    });
    expect(events[flip(SAG.events.vow)]).toMatchObject({ parent_id: flip(SAG.events.oath), level: 1 }); // stored 5
    expect(events[flip(SAG.events.orphan)]).not.toHaveProperty('parent_id'); // parent soft-deleted
    expect(events[flip(SAG.events.orphan)]).not.toHaveProperty('level');
    const fire = events[SAG.firePreserved]!;
    expect(fire.title).toBe('Zhou Yu plans the fire attack on Cao Cao’s fleet at Red Cliffs'); // extra_data.octx.original_title
    expect(fire.content).toBe('Zhou Yu, commander of the Wu army, planned to destroy Cao Cao’s fleet at Red Cliffs with fire.'); // summary, never the title
    expect(events[flip(SAG.events.wind)]).toMatchObject({ parent_id: SAG.firePreserved, level: 1, start_time: '0208-11-20T21:30:15', end_time: '0208-11-21T03:05:09' });
    expect(events[flip(SAG.events.retreat)]).toMatchObject({ parent_id: flip(SAG.events.wind), level: 2 }); // stored 1

    // Relations: chunk_id → chunk-event; NUMERIC(3,2) weights as numbers.
    expect(s.chunkEvents).toHaveLength(6);
    expect(s.chunkEvents).toContainEqual({ chunk_id: flip(SAG.chunks.t1), event_id: flip(SAG.events.oath) });
    expect(s.eventEntities).toHaveLength(10);
    expect(s.eventEntities).toContainEqual({ event_id: flip(SAG.events.oath), entity_id: flip(SAG.entities.guanyu), weight: 0.9, description: '结义二弟' });
    expect(s.eventEntities).toContainEqual({ event_id: SAG.firePreserved, entity_id: SAG.chibiPreserved, weight: 0.5, description: 'place' });
    expect(s.eventEntities.find((l) => l.event_id === flip(SAG.events.retreat))).toEqual({ event_id: flip(SAG.events.retreat), entity_id: flip(SAG.entities.caocao), weight: 1 });
    expect(s.entities.map((e) => e.name).sort()).toEqual(['Cao Cao', 'Zhou Yu', '关羽', '刘备', '张飞', '赤壁'].sort());
    expect(s.entities.find((e) => e.name === '赤壁')).toEqual({ id: SAG.chibiPreserved, name: '赤壁', type: 'place', description: 'Red Cliffs, on the Yangtze.' });
  });

  it('includeStatuses adds articles SAG has not finished; the report says what is still skipped', async () => {
    const db = database(gen);
    const b = builder();
    const report = await fromSagDatabase(b, db, { sourceId: SAG.source, idMode: 'sag-compatible', includeStatuses: ['failed', 'COMPLETED'] });
    expect(report.articles.statuses).toEqual(['COMPLETED', 'FAILED']);
    expect(report.warnings.filter((w) => w.startsWith('includeStatuses'))).toEqual([]);
    expect(report.articles.skippedByStatus).toEqual({ PENDING: 1, PROCESSING: 1 });
    expect(report.documents.count).toBe(3);
    expect(report.chunks).toMatchObject({ count: 5, otherArticles: 1 });
    // The FAILED article's chunk has no event: the structure is incomplete and is left out, not patched.
    expect(report.structure).toEqual({ expected: 'documents-only', reason: expect.stringContaining('1 chunk(s) without events') });
    const out = join(tempDir(), 'failed.octx');
    const result = await b.export({ output: out });
    expect(result.report.structure.status).toBe('omitted');
    expect(result.report.structure.coverage!.chunksWithoutEvents.ids).toEqual([flip(SAG.chunks.failed)]);
    await expectValid(out);
    expect(Object.keys(await documents(out))).toContain(`knowledge/documents/document-${flip(SAG.articles.failed).slice(-8)}.md`);
  });
});

describe('fromSagDatabase: article status (zleap-sag 0.7.1 definitions)', () => {
  it('exports only COMPLETED articles and reports PENDING, PROCESSING and FAILED ones per status', async () => {
    const db = database(1);
    const b = builder();
    const report = await fromSagDatabase(b, db, { sourceId: SAG.source });
    expect(report.documents.count).toBe(2);
    expect(report.articles.skippedByStatus).toEqual({ PENDING: 1, PROCESSING: 1, FAILED: 1 });
    const out = join(tempDir(), 'completed.octx');
    await b.export({ output: out, structure: 'require' });
    await expectValid(out);
    const docs = Object.values(await documents(out));
    expect(docs).toHaveLength(2);
    expect(docs.join('\n')).not.toMatch(/三顾茅庐|草船借箭|单刀赴会/);
    const s = await structure(out);
    expect([s.chunks.length, s.events.length, s.entities.length, s.chunkEvents.length, s.eventEntities.length]).toEqual([4, 6, 6, 6, 10]);
  });

  it('an article selected by id but not finished is an error that names its status; a source with none finished says what was skipped', async () => {
    const db = database(1);
    const e = await rejects(fromSagDatabase(builder(), db, { sourceId: SAG.source, articleIds: [SAG.articles.chibi, SAG.articles.failed] }));
    expect(e.code).toBe('OCTX_ADAPTER_INPUT_INVALID');
    expect(e.message).toContain(`article(s) ${SAG.articles.failed} (FAILED) are not COMPLETED`);
    const w = new Database(db);
    w.prepare("UPDATE article SET status = 'PROCESSING' WHERE status = 'COMPLETED'").run();
    w.close();
    const none = await rejects(fromSagDatabase(builder(), db, { sourceId: SAG.source }));
    expect(none.message).toContain(`source ${SAG.source} has no COMPLETED article in this database (skipped: 1 PENDING, 3 PROCESSING, 1 FAILED; include them with includeStatuses`);
  });

  it('a status SAG never writes is accepted with a warning (it matches nothing)', async () => {
    const report = await fromSagDatabase(builder(), database(1), { sourceId: SAG.source, includeStatuses: ['deleted'] });
    expect(report.documents.count).toBe(2);
    expect(report.warnings).toContain('includeStatuses names status(es) SAG does not write: DELETED (its statuses: PENDING, PROCESSING, COMPLETED, FAILED)');
  });

  it('events are soft-deleted by status DELETED exactly, as SAG compares it (case-sensitive)', async () => {
    const db = database(1);
    const w = new Database(db);
    w.prepare("UPDATE source_event SET status = 'deleted' WHERE id = ?").run(SAG.events.vow);
    w.close();
    const b = builder();
    const report = await fromSagDatabase(b, db, { sourceId: SAG.source, idMode: 'sag-compatible' });
    expect(report.events).toMatchObject({ count: 6, softDeleted: 1 });
    const out = join(tempDir(), 'x.octx');
    await b.export({ output: out });
    expect((await structure(out)).events.map((e) => e.id)).toContain(flip(SAG.events.vow));
  });

  it('an article body starting "#tag" keeps no extra "# title" line', async () => {
    const db = database(1);
    const w = new Database(db);
    w.prepare('UPDATE article SET content = ? WHERE id = ?').run('#三国 #读书会\n\n东汉末年，刘关张桃园结义。\n', SAG.articles.taoyuan);
    w.close();
    const b = builder();
    await fromSagDatabase(b, db, { sourceId: SAG.source, idMode: 'sag-compatible' });
    const out = join(tempDir(), 'tag.octx');
    await b.export({ output: out });
    const doc = (await documents(out))[`knowledge/documents/document-${flip(SAG.articles.taoyuan).slice(-8)}.md`]!;
    expect(doc).toMatch(/\n---\n\n?#三国 #读书会\n\n东汉末年，刘关张桃园结义。\n$/);
    expect(doc).not.toContain('# 桃园结义');
  });
});

describe('fromSagDatabase: generations (zleap-sag ≥ 0.8.2)', () => {
  it('two articles, each on its own active generation, plus leftovers of an old one: every active chunk, a complete structure, no leftover', async () => {
    const db = database(2);
    const b = builder();
    const report = await fromSagDatabase(b, db, { sourceId: SAG.source, idMode: 'sag-compatible' });
    expect(report.generations.active).toEqual({ [SAG.articles.taoyuan]: SAG.generations.taoyuan, [SAG.articles.chibi]: SAG.generations.chibi });
    expect(report.chunks.otherGenerations).toBe(2);
    expect(report.events.otherGenerations).toBe(2);
    const out = join(tempDir(), 'gen.octx');
    const result = await b.export({ output: out, structure: 'require' });
    expect(result.report.structure.status).toBe('written');
    await expectValid(out);
    const s = await structure(out);
    expect(s.chunks.map((c) => c.id).sort()).toEqual([SAG.chunks.t0, SAG.chunks.t1, SAG.chunks.c0, SAG.chunks.c2].map(flip).sort());
    const ids = JSON.stringify(s);
    for (const leftover of [...SAG.leftovers.chunks, ...SAG.leftovers.events]) expect(ids).not.toContain(flip(leftover));
    expect([s.chunks.length, s.events.length, s.entities.length, s.chunkEvents.length, s.eventEntities.length]).toEqual([4, 6, 6, 6, 10]);
    // The same package as from the 0.7.1 database with the same live rows.
    const b1 = builder();
    await fromSagDatabase(b1, database(1), { sourceId: SAG.source, idMode: 'sag-compatible' });
    const out1 = join(tempDir(), 'gen1.octx');
    await b1.export({ output: out1, structure: 'require' });
    expect(await structure(out1)).toEqual(s);
  });

  it('generations overrides one article: its rows of that generation are read instead', async () => {
    const db = database(2);
    const b = builder();
    const report = await fromSagDatabase(b, db, { sourceId: SAG.source, idMode: 'sag-compatible', generations: { [SAG.articles.taoyuan]: SAG.generations.taoyuanOld } });
    expect(report.generations).toEqual({ from: 'manifest+override', active: { [SAG.articles.taoyuan]: SAG.generations.taoyuanOld, [SAG.articles.chibi]: SAG.generations.chibi } });
    expect(report.chunks).toMatchObject({ count: 4, otherGenerations: 2 });
    expect(report.events).toMatchObject({ count: 5, softDeleted: 0, otherGenerations: 4 });
    const out = join(tempDir(), 'old.octx');
    await b.export({ output: out, structure: 'require' });
    await expectValid(out);
    const s = await structure(out);
    expect(s.chunks.filter((c) => c.document_id === flip(SAG.articles.taoyuan)).map((c) => c.id)).toEqual(SAG.leftovers.chunks.map(flip));
    expect(s.events.map((e) => e.id).sort()).toEqual([...SAG.leftovers.events.map(flip), SAG.firePreserved, flip(SAG.events.wind), flip(SAG.events.retreat)].sort());
    expect(s.chunkEvents).toContainEqual({ chunk_id: flip(SAG.leftovers.chunks[0]), event_id: flip(SAG.leftovers.events[0]) });
  });

  it('refuses an override of a generation the article does not have, for an article not exported, on a database without generations, and the removed generationId', async () => {
    const e = await rejects(fromSagDatabase(builder(), database(2), { sourceId: SAG.source, generations: { [SAG.articles.chibi]: 'no-such-generation' } }));
    expect(e.code).toBe('OCTX_ADAPTER_INPUT_INVALID');
    expect(e.issues[0]).toMatchObject({ recordId: SAG.articles.chibi, field: 'generations' });
    expect(e.issues[0]!.message).toBe(`article ${SAG.articles.chibi} has no chunk or event of generation no-such-generation; its generations: ${SAG.generations.chibi}`);
    const pending = await rejects(fromSagDatabase(builder(), database(2), { sourceId: SAG.source, generations: { [SAG.articles.pending]: SAG.generations.chibi } }));
    expect(pending.message).toContain(`a generation is given for article(s) ${SAG.articles.pending}, which are not exported articles`);
    const old = await rejects(fromSagDatabase(builder(), database(1), { sourceId: SAG.source, generations: { [SAG.articles.chibi]: SAG.generations.chibi } }));
    expect(old.message).toContain('this database has no generations (zleap-sag ≤ 0.7');
    const removed = await rejects(fromSagDatabase(builder(), database(2), { sourceId: SAG.source, generationId: SAG.generations.chibi } as never));
    expect(removed.code).toBe('OCTX_OPTIONS_INVALID');
    expect(removed.message).toContain('generationId was removed');
  });

  it('without sag_source_manifest every generation is read: duplicate ranks then name the generations and the override', async () => {
    const db = database(2);
    const w = new Database(db);
    w.exec('DROP TABLE sag_source_manifest');
    w.close();
    const e = await rejects(fromSagDatabase(builder(), db, { sourceId: SAG.source }));
    expect(e.issues[0]!.field).toBe('source_chunk.rank');
    expect(e.issues[0]!.message).toContain(
      `article(s) ${SAG.articles.taoyuan} have rows of several generations (${SAG.generations.taoyuanOld}, ${SAG.generations.taoyuan}) and no active generation in sag_source_manifest; choose one per article with generations (--generation <article-id>=<generation-id>)`,
    );
    const b = builder();
    const fixed = await fromSagDatabase(b, db, { sourceId: SAG.source, generations: { [SAG.articles.taoyuan]: SAG.generations.taoyuan } });
    expect(fixed.chunks).toMatchObject({ count: 4, otherGenerations: 2 });
    expect(fixed.warnings).toContain(
      'the database has generation_id columns but no sag_source_manifest table: every generation is read (give one per article with generations / --generation <article-id>=<generation-id>)',
    );
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
    await expectValid(out);
    const events = await records(out, 'data/events.jsonl');
    expect(events.map((e) => e.id)).toContain(SAG.firePreserved);
    expect(events.every((e) => isUuidV7(e.id))).toBe(true);
    expect(events.map((e) => e.id)).not.toContain(flip(SAG.events.oath));
    expect(b.ids.peek('event', `sag:${SAG.events.oath}`)).toBe(events.find((e) => e.title === '桃园三结义')!.id);
  });

  it('duplicate chunk ranks are an error that names them', async () => {
    const db = database();
    insertChunk(db, 1, chunkRow(1, 'e1000000-0000-4000-8000-0000000000ff', SAG.articles.taoyuan, 1, '重复的段落。'));
    const e = await rejects(fromSagDatabase(builder(), db, { sourceId: SAG.source }));
    expect(e.code).toBe('OCTX_ADAPTER_INPUT_INVALID');
    expect(e.issues[0]).toMatchObject({ path: db, field: 'source_chunk.rank' });
    expect(e.issues[0]!.message).toBe(
      `duplicate chunk ranks (OCTX ordinals are unique per document): article ${SAG.articles.taoyuan} rank 1: chunks ${SAG.chunks.t1} and e1000000-0000-4000-8000-0000000000ff`,
    );
  });

  it('an unknown source lists the sources that exist; a file without the engine tables is one OCTX_SAG_NOT_ENGINE_DB naming .data/engine/sag.db', async () => {
    const db = database();
    const e = await rejects(fromSagDatabase(builder(), db, { sourceId: 'src_missing' }));
    expect(e.message).toContain(`sources with articles: ${SAG.otherSource}, ${SAG.source}`);
    const other = join(tempDir(), 'other.db');
    new Database(other).exec('CREATE TABLE notes (id TEXT)').close();
    const n = await rejects(fromSagDatabase(builder(), other, { sourceId: SAG.source }));
    expect(n.code).toBe('OCTX_SAG_NOT_ENGINE_DB');
    expect(n.issues).toHaveLength(1);
    expect(n.issues[0]!.message).toBe(
      "not a zleap-sag engine database: table(s) article, source_chunk, source_event, entity, event_entity missing; the zleap-sag engine database is <SAG_DATA_DIR>/sag.db, by default ./.data/engine/sag.db (./.data/sag.db is the SAG application's own database)",
    );
    const notSqlite = join(tempDir(), 'x.db');
    (await import('node:fs')).writeFileSync(notSqlite, 'plain text, not a database');
    expect((await rejects(fromSagDatabase(builder(), notSqlite, { sourceId: SAG.source }))).code).toBe('OCTX_OPEN_ERROR');
  });

  it('SAG’s application database (.data/sag.db) is one error that names the engine database next to it', async () => {
    const data = join(tempDir(), '.data');
    mkdirSync(join(data, 'engine'), { recursive: true });
    createSagAppDatabase(join(data, 'sag.db'));
    createSagDatabase(join(data, 'engine', 'sag.db'), 1);
    const e = await rejects(fromSagDatabase(builder(), join(data, 'sag.db'), { sourceId: SAG.source }));
    expect(e.code).toBe('OCTX_SAG_NOT_ENGINE_DB');
    expect(e.issues).toHaveLength(1);
    expect(e.issues[0]).toMatchObject({ code: 'OCTX_SAG_NOT_ENGINE_DB', path: join(data, 'sag.db') });
    expect(e.issues[0]!.message).toBe(
      `this is the SAG application's database (tables sources, documents, octx_assets, octx_releases, octx_transfers), not the zleap-sag engine database from-sag reads: the zleap-sag engine database is <SAG_DATA_DIR>/sag.db, by default ./.data/engine/sag.db (./.data/sag.db is the SAG application's own database); try ${join(data, 'engine', 'sag.db')} (it exists)`,
    );
    expect((await fromSagDatabase(builder(), join(data, 'engine', 'sag.db'), { sourceId: SAG.source })).documents.count).toBe(2);
  });

  it('refuses events whose content and summary are both empty (SAG would copy the title) and entities of another source', async () => {
    const db = database();
    const w = new Database(db);
    w.prepare("UPDATE source_event SET content = '', summary = '  ' WHERE id = ?").run(SAG.events.wind);
    w.prepare('UPDATE event_entity SET entity_id = ? WHERE event_id = ?').run(SAG.entities.other, SAG.events.retreat);
    w.close();
    const e = await rejects(fromSagDatabase(builder(), db, { sourceId: SAG.source }));
    expect(e.code).toBe('OCTX_ADAPTER_INPUT_INVALID');
    expect(e.issues.find((i) => i.field === 'source_event.content')).toMatchObject({
      recordId: SAG.events.wind,
      message: `event ${SAG.events.wind} has neither content nor summary (SAG's exporter would copy the title into content; octx-export does not invent text); re-extract its article`,
    });
    expect(e.issues.map((i) => i.message).join('\n')).toContain(`belong to another source: ${SAG.entities.other}`);
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
    const out = join(tempDir(), 'x.octx');
    const result = await b.export({ output: out });
    expect(result.report.structure.status).toBe('omitted');
    expect(result.report.structure.coverage!.eventsWithoutChunks.ids).toEqual([flip(SAG.events.retreat)]);
    await expectValid(out);
  });

  it('selects articles, and reads documents only when asked', async () => {
    const db = database();
    const only = await fromSagDatabase(builder(), db, { sourceId: SAG.source, articleIds: [SAG.articles.chibi], idMode: 'sag-compatible' });
    expect(only.documents.count).toBe(1);
    expect(only.events.count).toBe(3);
    expect(only.chunks.otherArticles).toBe(4);
    expect(only.articles.skippedByStatus).toEqual({});
    const b = builder();
    const docs = await fromSagDatabase(b, db, { sourceId: SAG.source, documentsOnly: true });
    expect(docs.chunks.count).toBe(0);
    expect(docs.structure.expected).toBe('documents-only');
    const out = join(tempDir(), 'docs.octx');
    const result = await b.export({ output: out });
    expect(result.report.structure.status).toBe('none');
    expect(result.manifest.files).toHaveLength(2);
    await expectValid(out);
    const unknown = await rejects(fromSagDatabase(builder(), db, { sourceId: SAG.source, articleIds: [SAG.articles.other] }));
    expect(unknown.message).toContain(`article(s) ${SAG.articles.other} are not articles of source ${SAG.source}`);
  });
});
