/**
 * Builds zleap-sag engine SQLite databases for tests from the table definitions in
 * `fixtures/sag/` (foreign keys enforced while the rows go in), with rows shaped as the engine
 * stores them: UUID strings, times with microseconds, JSON `extra_data` as Python's `json.dumps`
 * writes it (`ensure_ascii`, `", "` / `": "` separators, `null` for None), `NUMERIC(3,2)` weights,
 * `entity_type` rows, NOT NULL summaries, levels and ranks, and article statuses from SAG's enum.
 *
 * - Generation 1: `fixtures/sag/zleap-sag-0.7.1.sql` (the schema SAG v1.7.0 ships).
 * - Generation 2: `fixtures/sag/zleap-sag-0.8-generations.sql` (zleap-sag ≥ 0.8.2: `data_source`,
 *   `article.document_id`, `generation_id`, `sag_source_manifest`). Each article is on its own
 *   active generation, and 桃园结义 still has the rows of its previous generation (leftovers).
 *
 * The content is a small bilingual source (two COMPLETED articles of *Romance of the Three
 * Kingdoms*) with the cases an exporter must handle: PENDING / PROCESSING / FAILED articles, a
 * soft-deleted event, a parent outside the export, stored levels that are wrong, a preserved OCTX
 * record id, a chunk without article, and a second source that must not leak in. Both generations
 * hold the same live data, so they export the same package.
 *
 * `npx tsx test/adapters/write-sag-fixtures.ts` rewrites the prebuilt databases under
 * `fixtures/sag/` (the CLI help examples read them) from this file.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';

// Not from test/helpers/temp.ts: that module registers vitest hooks, and scripts import this one too.
const ROOT = resolve(import.meta.dirname, '../..');

/** Which zleap-sag schema to create: 1 = 0.7.1 (no generations), 2 = ≥ 0.8.2 (generations). */
export type SagGeneration = 1 | 2;

/** The table definitions of each schema, and of SAG's application database. */
export const SAG_DDL = {
  1: join(ROOT, 'fixtures/sag/zleap-sag-0.7.1.sql'),
  2: join(ROOT, 'fixtures/sag/zleap-sag-0.8-generations.sql'),
  app: join(ROOT, 'fixtures/sag/sag-app.sql'),
} as const;

/** The prebuilt databases shipped under `fixtures/sag/` (relative to the repository root). */
export const SAG_FIXTURE_DB = { 1: 'fixtures/sag/engine-0.7.1/sag.db', 2: 'fixtures/sag/engine-0.8/sag.db' } as const;

/** Ids of the fixture, for assertions. */
export const SAG = {
  source: '5f0c3a1e-9b2d-4c7e-8a41-3d2b1c0e9f87',
  otherSource: '0a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d',
  articles: {
    taoyuan: 'b3a1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    chibi: 'c4b2d3e5-6f70-4b8c-9dae-1f203b4c5d6e',
    other: 'd5c3e4f6-7081-4c9d-8ebf-203a4c5d6e7f',
    /** PENDING: uploaded, not processed yet (no rows). */
    pending: '9a000000-0000-4000-8000-000000000001',
    /** PROCESSING: chunked, extraction running (one chunk, no events). */
    processing: '9a000000-0000-4000-8000-000000000002',
    /** FAILED: extraction failed (one chunk, no events). */
    failed: '9a000000-0000-4000-8000-000000000003',
  },
  chunks: {
    t0: 'e1000000-0000-4000-8000-000000000001',
    t1: 'e1000000-0000-4000-8000-000000000002',
    c0: 'e1000000-0000-4000-8000-000000000003',
    c2: 'e1000000-0000-4000-8000-000000000004',
    unbound: 'e1000000-0000-4000-8000-000000000005',
    other: 'e1000000-0000-4000-8000-000000000006',
    processing: 'e1000000-0000-4000-8000-000000000007',
    failed: 'e1000000-0000-4000-8000-000000000008',
  },
  events: {
    /** Golden id from SAG's own test: a UUIDv4 whose nibble flip gives a1591305-4d99-7e27-97ee-85bd23ba8ef5. */
    oath: 'a1591305-4d99-4e27-97ee-85bd23ba8ef5',
    /** Child of `oath`, stored with the wrong level 5. */
    vow: 'f2000000-0000-4000-8000-000000000002',
    /** Soft-deleted (status DELETED). */
    deleted: 'f2000000-0000-4000-8000-000000000003',
    /** Child of the deleted event: becomes top-level. */
    orphan: 'f2000000-0000-4000-8000-000000000004',
    /** Carries a preserved OCTX record id; its content is empty (the summary is used). */
    fire: 'f2000000-0000-4000-8000-000000000005',
    /** Child of `fire`; has an end time with microseconds. */
    wind: 'f2000000-0000-4000-8000-000000000006',
    /** Grandchild of `fire`, stored with the wrong level 1. */
    retreat: 'f2000000-0000-4000-8000-000000000007',
    other: 'f2000000-0000-4000-8000-000000000008',
  },
  /** The preserved record id of `fire`. */
  firePreserved: '018f5f7e-89ab-7def-8123-012345678905',
  entityTypes: { person: '7e000000-0000-4000-8000-000000000001', place: '7e000000-0000-4000-8000-000000000002' },
  entities: {
    liubei: 'a7000000-0000-4000-8000-000000000001',
    guanyu: 'a7000000-0000-4000-8000-000000000002',
    zhangfei: 'a7000000-0000-4000-8000-000000000003',
    zhouyu: 'a7000000-0000-4000-8000-000000000004',
    caocao: 'a7000000-0000-4000-8000-000000000005',
    chibi: 'a7000000-0000-4000-8000-000000000006',
    other: 'a7000000-0000-4000-8000-000000000007',
  },
  /** The preserved record id of the entity 赤壁. */
  chibiPreserved: '018f5f7e-89ab-7def-8123-0123456789a6',
  /** Generation 2 only: the active generation of each article, and 桃园结义's previous one. */
  generations: {
    taoyuan: '6e000000-0000-4000-8000-000000000012',
    taoyuanOld: '6e000000-0000-4000-8000-000000000011',
    chibi: '6e000000-0000-4000-8000-000000000021',
    processing: '6e000000-0000-4000-8000-000000000031',
    failed: '6e000000-0000-4000-8000-000000000041',
    other: '6e000000-0000-4000-8000-000000000051',
    chat: '6e000000-0000-4000-8000-000000000061',
  },
  /** Generation 2 only: leftover rows of 桃园结义's previous generation. */
  leftovers: {
    chunks: ['e1000000-0000-4000-8000-0000000000a1', 'e1000000-0000-4000-8000-0000000000a2'],
    events: ['f2000000-0000-4000-8000-0000000000a1', 'f2000000-0000-4000-8000-0000000000a2'],
  },
  /** The chat conversation of the unbound chunk. */
  conversation: '3c000000-0000-4000-8000-000000000001',
} as const;

/**
 * JSON as Python's `json.dumps` writes it with its defaults (what SQLAlchemy's JSON type stores):
 * `", "` and `": "` separators, non-ASCII as `\uXXXX`, `None` as `null`.
 */
export function pyJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pyJson(k)}: ${pyJson(v)}`)
      .join(', ')}}`;
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return JSON.stringify(value);
}

/** A DATETIME as SQLAlchemy stores it in SQLite: `YYYY-MM-DD HH:MM:SS.ffffff`. */
const at = (minute: number, micro = 0) => `2026-07-01 10:${String(minute).padStart(2, '0')}:00.${String(micro).padStart(6, '0')}`;

const T0 = '东汉末年，朝政腐败，黄巾军四起。朝廷下诏各州郡招募义兵，榜文贴到涿郡，刘备看榜长叹，结识了卖酒屠猪的张飞。';
const T1 = '二人在村中酒店遇见推车投军的关羽。次日三人在张飞庄后桃园焚香结拜，立誓不求同年同月同日生，只愿同年同月同日死。';
const C0 = 'In the winter of 208 Cao Cao camped his fleet at Red Cliffs. Zhou Yu, commander of the Wu army, planned to attack it with fire.';
const C2 = 'When the south-east wind rose, the fire ships sailed into the chained fleet. Cao Cao lost most of his army and retreated north through Huarong.';

/** Creates the fixture database at `path` (which must not exist) and returns it closed. */
export function createSagDatabase(path: string, gen: SagGeneration = 1): void {
  const db = new Database(path);
  try {
    db.pragma('page_size = 512'); // a small file: the prebuilt fixtures are committed
    db.exec(readFileSync(SAG_DDL[gen], 'utf8'));
    db.pragma('foreign_keys = ON');
    db.transaction(() => fill(db, gen))();
    const violations = db.pragma('foreign_key_check') as unknown[];
    if (violations.length > 0) throw new Error(`fixture breaks foreign keys: ${JSON.stringify(violations)}`);
    db.exec('VACUUM');
  } finally {
    db.close();
  }
}

/** Creates a SAG *application* database (`./.data/sag.db`: tables of the app, none of the engine). */
export function createSagAppDatabase(path: string): void {
  const db = new Database(path);
  try {
    db.exec(readFileSync(SAG_DDL.app, 'utf8'));
    const now = at(0, 1);
    db.prepare(
      "INSERT INTO sources (id, name, source_type, sag_source_config_id, status, document_count, created_at, updated_at) VALUES ('4b1f0e2d3c4a5b6c7d8e9f0a1b2c3d4e', '三国演义读书会', 'upload', ?, 'ready', 2, ?, ?)",
    ).run(SAG.source, now, now);
    db.prepare(
      "INSERT INTO documents (id, source_id, filename, content_type, size_bytes, storage_path, status, sag_source_id, is_active, created_at, updated_at) VALUES ('8d2c1b0a9f8e7d6c5b4a392817161514', '4b1f0e2d3c4a5b6c7d8e9f0a1b2c3d4e', '桃园结义.md', 'text/markdown', 240, 'uploads/8d2c1b0a.md', 'ready', ?, 1, ?, ?)",
    ).run(SAG.articles.taoyuan, now, now);
  } finally {
    db.close();
  }
}

function fill(db: Database.Database, gen: SagGeneration): void {
  const p = gen === 1 ? 'source_config_id' : 'data_source_id';
  const insert = (table: string, row: Record<string, unknown>) => {
    const keys = Object.keys(row);
    db.prepare(`INSERT INTO ${table} (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`).run(row);
  };
  /** `generation_id` of a row of `article` (generation 2 only). */
  const genOf = (article: string | null, generation?: string): Record<string, string> => {
    if (gen === 1) return {};
    if (generation) return { generation_id: generation };
    const key = (Object.keys(SAG.articles) as (keyof typeof SAG.articles)[]).find((k) => SAG.articles[k] === article);
    return { generation_id: key && key in SAG.generations ? SAG.generations[key as keyof typeof SAG.generations] : SAG.generations.chat };
  };

  if (gen === 1) {
    insert('source_config', {
      id: SAG.source,
      name: '三国演义读书会',
      description: null,
      target_config: pyJson({ octx: { asset_id: null } }),
      created_time: at(0, 1),
      updated_time: at(0, 2),
    });
    insert('source_config', { id: SAG.otherSource, name: 'Other team', description: 'not exported', target_config: 'null', created_time: at(0, 3), updated_time: null });
  } else {
    insert('data_source', { id: SAG.source, name: '三国演义读书会', description: null, created_time: at(0, 1), updated_time: at(0, 2) });
    insert('data_source', { id: SAG.otherSource, name: 'Other team', description: 'not exported', created_time: at(0, 3), updated_time: null });
  }

  // kb_document: the uploaded file behind each article (article.source_id / document_id).
  const kbDocument = (article: string, source: string, name: string) => {
    const id = `kb-${article}`;
    insert('kb_document', {
      id,
      name,
      file_size: 2048,
      file_type: name.endsWith('.pdf') ? 'pdf' : 'md',
      ...(gen === 1 ? { knowledge_base_id: source } : { data_source_id: source, doc_type: 'DOCUMENT' }),
      parse_status: 'COMPLETED',
      document_metadata: pyJson({ filename: name }),
      created_time: at(1, 100),
      updated_time: at(1, 200),
    });
    return id;
  };

  const article = (id: string, source: string, title: string, content: string | null, status: string, parse_status: string, file: string, error: string | null = null) =>
    insert('article', {
      id,
      [p]: source,
      title,
      [gen === 1 ? 'source_id' : 'document_id']: kbDocument(id, source, file),
      summary: null,
      content,
      category: null,
      tags: '[]',
      status,
      parse_status,
      sync_date: null,
      error,
      extra_data: pyJson({ filename: file }),
      created_time: at(2, 123456),
      updated_time: at(3, 654321),
    });
  article(SAG.articles.taoyuan, SAG.source, '桃园结义', `${T0}\n\n${T1}\n`, 'COMPLETED', 'COMPLETED', '桃园结义.md');
  article(SAG.articles.chibi, SAG.source, 'The Battle of Red Cliffs', `# The Battle of Red Cliffs\n\n${C0}\n\n${C2}\n`, 'COMPLETED', 'COMPLETED', 'red-cliffs.pdf');
  article(SAG.articles.other, SAG.otherSource, 'Unrelated', 'Another team’s notes.', 'COMPLETED', 'COMPLETED', 'notes.md');
  article(SAG.articles.pending, SAG.source, '三顾茅庐', null, 'PENDING', 'PENDING', '三顾茅庐.pdf');
  article(SAG.articles.processing, SAG.source, '草船借箭', '诸葛亮以草船向曹营借箭十万余支。\n', 'PROCESSING', 'EXTRACTING', '草船借箭.md');
  article(SAG.articles.failed, SAG.source, '单刀赴会', '关羽单刀赴鲁肃之会。\n', 'FAILED', 'EXTRACTION_FAILED', '单刀赴会.md', 'LLM request failed: 429 Too Many Requests');

  const chunk = (id: string, source: string, articleId: string | null, rank: number, content: string, heading: string | null = null, generation?: string) =>
    insert('source_chunk', {
      id,
      [p]: source,
      source_type: articleId ? 'ARTICLE' : 'CHAT',
      source_id: articleId ?? SAG.conversation,
      article_id: articleId,
      content,
      extra_data: pyJson({ token_count: content.length }),
      references: 'null',
      heading,
      raw_content: content,
      rank,
      chunk_length: content.length,
      created_time: at(4, 100 + rank),
      updated_time: at(4, 200 + rank),
      ...genOf(articleId, generation),
    });
  chunk(SAG.chunks.t0, SAG.source, SAG.articles.taoyuan, 0, T0);
  chunk(SAG.chunks.t1, SAG.source, SAG.articles.taoyuan, 1, T1);
  chunk(SAG.chunks.c0, SAG.source, SAG.articles.chibi, 0, C0, 'The Battle of Red Cliffs');
  chunk(SAG.chunks.c2, SAG.source, SAG.articles.chibi, 2, C2, 'The Battle of Red Cliffs');
  chunk(SAG.chunks.unbound, SAG.source, null, 0, '用户：赤壁之战发生在哪一年？助手：公元208年。');
  chunk(SAG.chunks.other, SAG.otherSource, SAG.articles.other, 0, 'Another team’s notes.');
  chunk(SAG.chunks.processing, SAG.source, SAG.articles.processing, 0, '诸葛亮以草船向曹营借箭十万余支。');
  chunk(SAG.chunks.failed, SAG.source, SAG.articles.failed, 0, '关羽单刀赴鲁肃之会。');
  if (gen === 2) {
    // The previous generation of 桃园结义: same ranks, other ids — left behind by a re-process.
    chunk(SAG.leftovers.chunks[0], SAG.source, SAG.articles.taoyuan, 0, `${T0}（旧）`, null, SAG.generations.taoyuanOld);
    chunk(SAG.leftovers.chunks[1], SAG.source, SAG.articles.taoyuan, 1, `${T1}（旧）`, null, SAG.generations.taoyuanOld);
  }

  let rank = 0;
  const event = (row: {
    id: string;
    source?: string;
    article: string;
    title: string;
    content: string;
    summary: string;
    chunk: string | null;
    parent?: string;
    level?: number;
    status?: string;
    extra?: unknown;
    category?: string;
    start?: string;
    end?: string;
    keywords?: string[];
    generation?: string;
  }) =>
    insert('source_event', {
      id: row.id,
      [p]: row.source ?? SAG.source,
      source_type: 'ARTICLE',
      source_id: row.article,
      article_id: row.article,
      title: row.title,
      summary: row.summary,
      content: row.content,
      category: row.category ?? null,
      keywords: pyJson(row.keywords ?? []),
      type: null,
      priority: null,
      status: row.status ?? null,
      rank: rank++,
      level: row.level ?? 0,
      parent_id: row.parent ?? null,
      start_time: row.start ?? null,
      end_time: row.end ?? null,
      references: 'null',
      chunk_id: row.chunk,
      extra_data: row.extra === undefined ? 'null' : pyJson(row.extra),
      created_time: at(5, rank),
      updated_time: at(6, rank),
      ...genOf(row.article, row.generation),
    });
  event({
    id: SAG.events.oath,
    article: SAG.articles.taoyuan,
    title: '桃园三结义',
    content: '刘备、关羽、张飞在桃园焚香结拜为异姓兄弟，立誓同生共死、报国安民。',
    summary: '刘关张结为兄弟。',
    chunk: SAG.chunks.t1,
    category: 'alliance',
    start: '0184-03-01 00:00:00.000000',
    keywords: ['桃园', '结义'],
  });
  event({
    id: SAG.events.vow,
    article: SAG.articles.taoyuan,
    title: '三人立下誓言',
    content: '三人立誓：不求同年同月同日生，只愿同年同月同日死。',
    summary: '三人立誓同生共死。',
    chunk: SAG.chunks.t1,
    parent: SAG.events.oath,
    level: 5,
  });
  event({
    id: SAG.events.deleted,
    article: SAG.articles.taoyuan,
    title: '（已删除）招兵榜文',
    content: '朝廷张贴招兵榜文。',
    summary: '招兵榜文。',
    chunk: SAG.chunks.t0,
    status: 'DELETED',
  });
  event({
    id: SAG.events.orphan,
    article: SAG.articles.taoyuan,
    title: '刘备看榜结识张飞',
    content: '刘备在涿郡看招兵榜文时长叹，被张飞喝问，二人由此结识。',
    summary: '刘备结识张飞。',
    chunk: SAG.chunks.t0,
    parent: SAG.events.deleted,
    level: 1,
  });
  event({
    id: SAG.events.fire,
    article: SAG.articles.chibi,
    title: 'Zhou Yu plans the fire attack',
    content: '',
    summary: 'Zhou Yu, commander of the Wu army, planned to destroy Cao Cao’s fleet at Red Cliffs with fire.',
    chunk: SAG.chunks.c0,
    extra: { octx: { record_id: SAG.firePreserved, original_title: 'Zhou Yu plans the fire attack on Cao Cao’s fleet at Red Cliffs' } },
  });
  event({
    id: SAG.events.wind,
    article: SAG.articles.chibi,
    title: 'The fire ships sail on the south-east wind',
    content: 'When the south-east wind rose, the fire ships sailed into Cao Cao’s chained fleet and set it ablaze.',
    summary: 'The fire ships burn the fleet.',
    chunk: SAG.chunks.c2,
    parent: SAG.events.fire,
    level: 1,
    start: '0208-11-20 21:30:15.250000',
    end: '0208-11-21 03:05:09.999999',
  });
  event({
    id: SAG.events.retreat,
    article: SAG.articles.chibi,
    title: 'Cao Cao retreats through Huarong',
    content: 'Having lost most of his army, Cao Cao retreated north through Huarong.',
    summary: 'Cao Cao retreats.',
    chunk: SAG.chunks.c2,
    parent: SAG.events.wind,
    level: 1,
  });
  event({
    id: SAG.events.other,
    source: SAG.otherSource,
    article: SAG.articles.other,
    title: 'Unrelated event',
    content: 'Something else happened.',
    summary: 'Something else.',
    chunk: SAG.chunks.other,
  });
  if (gen === 2)
    for (const [i, id] of SAG.leftovers.events.entries())
      event({
        id,
        article: SAG.articles.taoyuan,
        title: `桃园结义（旧 ${i + 1}）`,
        content: '旧的抽取结果。',
        summary: '旧的抽取结果。',
        chunk: SAG.leftovers.chunks[i]!,
        generation: SAG.generations.taoyuanOld,
      });

  const entityType = (id: string, type: string, name: string) =>
    insert('entity_type', {
      id,
      scope: 'global',
      [p]: null,
      article_id: null,
      type,
      name,
      description: null,
      weight: 1.0,
      similarity_threshold: 0.85,
      is_active: 1,
      is_default: 1,
      value_format: null,
      value_constraints: 'null',
      extra_data: 'null',
      created_time: at(0, 10),
      updated_time: at(0, 11),
    });
  entityType(SAG.entityTypes.person, 'person', '人物');
  entityType(SAG.entityTypes.place, 'place', '地点');

  const entity = (id: string, type: 'person' | 'place', name: string, description: string, extra: unknown = null, source: string = SAG.source) =>
    insert('entity', {
      id,
      [p]: source,
      entity_type_id: SAG.entityTypes[type],
      type,
      name,
      normalized_name: name.toLowerCase(),
      description,
      extra_data: pyJson(extra),
      created_time: at(7, 1),
      updated_time: at(7, 2),
    });
  entity(SAG.entities.liubei, 'person', '刘备', 'Liu Bei (字玄德)，刘关张结义之长兄。');
  entity(SAG.entities.guanyu, 'person', '关羽', 'Guan Yu (字云长)。');
  entity(SAG.entities.zhangfei, 'person', '张飞', 'Zhang Fei (字翼德)。');
  entity(SAG.entities.zhouyu, 'person', 'Zhou Yu', 'Commander of the Wu army at Red Cliffs.');
  entity(SAG.entities.caocao, 'person', 'Cao Cao', 'Chancellor of the Han, leader of the northern army.');
  entity(SAG.entities.chibi, 'place', '赤壁', 'Red Cliffs, on the Yangtze.', { octx: { record_id: SAG.chibiPreserved } });
  entity(SAG.entities.other, 'person', 'Somebody', 'Not in this source.', null, SAG.otherSource);

  let n = 0;
  const link = (eventId: string, entityId: string, weight: number, description: string | null = null) =>
    insert('event_entity', {
      id: `ee000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
      event_id: eventId,
      entity_id: entityId,
      weight,
      description,
      extra_data: 'null',
      created_time: at(8, n),
    });
  link(SAG.events.oath, SAG.entities.liubei, 1.0, '结义长兄');
  link(SAG.events.oath, SAG.entities.guanyu, 0.9, '结义二弟');
  link(SAG.events.oath, SAG.entities.zhangfei, 0.9, '结义三弟');
  link(SAG.events.vow, SAG.entities.liubei, 0.75);
  link(SAG.events.deleted, SAG.entities.liubei, 1.0);
  link(SAG.events.orphan, SAG.entities.liubei, 1.0, '看榜之人');
  link(SAG.events.orphan, SAG.entities.zhangfei, 0.8, '喝问之人');
  link(SAG.events.fire, SAG.entities.zhouyu, 1.0, 'planner');
  link(SAG.events.fire, SAG.entities.chibi, 0.5, 'place');
  link(SAG.events.wind, SAG.entities.caocao, 0.85, 'whose fleet burned');
  link(SAG.events.retreat, SAG.entities.caocao, 1.0); // the column default: 1.00
  link(SAG.events.other, SAG.entities.other, 1.0);
  if (gen === 2) for (const id of SAG.leftovers.events) link(id, SAG.entities.liubei, 0.6, '旧');

  if (gen === 2) {
    insert('sag_data_source_manifest', { data_source_id: SAG.source, revision: 3, active: 1 });
    insert('sag_data_source_manifest', { data_source_id: SAG.otherSource, revision: 1, active: 1 });
    const manifest = (source: string, sourceId: string, type: 'ARTICLE' | 'CHAT', generation: string, chunks: number, events: number, pending: string[] = []) =>
      insert('sag_source_manifest', {
        data_source_id: source,
        source_id: sourceId,
        source_type: type,
        active_generation_id: generation,
        operation_id: `extract:${generation}`,
        fence_scope: `source:${source}:${sourceId}`,
        fence_token: 1,
        status: 'ready',
        source_version: null,
        chunk_version: null,
        extract_version: '0.8.2',
        chunk_count: chunks,
        event_count: events,
        revision: pending.length + 1,
        pending_cleanup_generations: pyJson(pending),
        cleanup_required: pending.length > 0 ? 1 : 0,
      });
    manifest(SAG.source, SAG.articles.taoyuan, 'ARTICLE', SAG.generations.taoyuan, 2, 4, [SAG.generations.taoyuanOld]);
    manifest(SAG.source, SAG.articles.chibi, 'ARTICLE', SAG.generations.chibi, 2, 3);
    manifest(SAG.source, SAG.articles.processing, 'ARTICLE', SAG.generations.processing, 1, 0);
    manifest(SAG.source, SAG.articles.failed, 'ARTICLE', SAG.generations.failed, 1, 0);
    manifest(SAG.source, SAG.conversation, 'CHAT', SAG.generations.chat, 1, 0);
    manifest(SAG.otherSource, SAG.articles.other, 'ARTICLE', SAG.generations.other, 1, 1);
  }
}
