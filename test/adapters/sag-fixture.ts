/**
 * Builds a zleap-sag engine SQLite database for tests, from the table definitions in
 * shared/research/sag-anchor.md §5 B (taken there from Zleap-AI/SAG2 `pipeline/db/models.py`):
 * `source_config`, `article`, `article_section`, `source_chunk`, `source_event`, `entity_type`,
 * `entity`, `event_entity`. Generation 2 (zleap-sag ≥ 0.8.2) renames every `source_config_id`
 * to `data_source_id`, `source_config` to `data_source` (without `target_config`) and
 * `article.source_id` to `document_id`, and adds `generation_id` columns.
 *
 * The content is a small bilingual source (two articles of *Romance of the Three Kingdoms*) with
 * the cases an exporter must handle: a soft-deleted event, a parent outside the export, stored
 * levels that are wrong, a preserved OCTX record id, a chunk without article, and a second source
 * that must not leak in.
 */
import Database from 'better-sqlite3';

/** Which zleap-sag schema generation to create. */
export type SagGeneration = 1 | 2;

/** Ids of the fixture, for assertions. */
export const SAG = {
  source: 'src_3f9a0c1d2e4b5a67',
  otherSource: 'src_0000aaaa1111bbbb',
  articles: { taoyuan: 'b3a1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d', chibi: 'c4b2d3e5-6f70-4b8c-9dae-1f203b4c5d6e', other: 'd5c3e4f6-7081-4c9d-8ebf-203a4c5d6e7f' },
  chunks: {
    t0: 'e1000000-0000-4000-8000-000000000001',
    t1: 'e1000000-0000-4000-8000-000000000002',
    c0: 'e1000000-0000-4000-8000-000000000003',
    c2: 'e1000000-0000-4000-8000-000000000004',
    unbound: 'e1000000-0000-4000-8000-000000000005',
    other: 'e1000000-0000-4000-8000-000000000006',
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
    /** Carries a preserved OCTX record id. */
    fire: 'f2000000-0000-4000-8000-000000000005',
    /** Child of `fire`. */
    wind: 'f2000000-0000-4000-8000-000000000006',
    /** Grandchild of `fire`, stored with the wrong level 1. */
    retreat: 'f2000000-0000-4000-8000-000000000007',
    other: 'f2000000-0000-4000-8000-000000000008',
  },
  /** The preserved record id of `fire`. */
  firePreserved: '018f5f7e-89ab-7def-8123-012345678905',
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
} as const;

function ddl(gen: SagGeneration): string {
  const p = gen === 1 ? 'source_config_id' : 'data_source_id';
  const g = gen === 2 ? ', generation_id CHAR(36)' : '';
  const sourceTable =
    gen === 1
      ? 'CREATE TABLE source_config (id CHAR(36) PRIMARY KEY, name VARCHAR(100) NOT NULL, description VARCHAR(255), target_config JSON, created_time DATETIME, updated_time DATETIME);'
      : 'CREATE TABLE data_source (id CHAR(36) PRIMARY KEY, name VARCHAR(100) NOT NULL, description VARCHAR(255), created_time DATETIME, updated_time DATETIME);';
  const articleSourceKey = gen === 1 ? 'source_id VARCHAR(100)' : 'document_id VARCHAR(100)';
  return `
${sourceTable}
CREATE TABLE article (id CHAR(36) PRIMARY KEY, ${p} CHAR(36) NOT NULL, title VARCHAR(500), ${articleSourceKey}, summary TEXT, content TEXT, category VARCHAR(50), tags JSON, status VARCHAR(20), parse_status VARCHAR(20), sync_date DATETIME, error TEXT, extra_data JSON, created_time DATETIME, updated_time DATETIME${g});
CREATE TABLE article_section (id CHAR(36) PRIMARY KEY, article_id CHAR(36) NOT NULL REFERENCES article(id), order_index INTEGER, render_group_index INTEGER, type VARCHAR(20), rank INTEGER, heading VARCHAR(500), content TEXT, raw_content TEXT, image_url VARCHAR(500), length INTEGER, extra_data JSON);
CREATE TABLE source_chunk (id CHAR(36) PRIMARY KEY, ${p} CHAR(36) NOT NULL, source_type VARCHAR(20), source_id VARCHAR(100), article_id CHAR(36) REFERENCES article(id), content TEXT, raw_content TEXT, heading VARCHAR(500), rank INTEGER, chunk_length INTEGER, "references" JSON, extra_data JSON, created_time DATETIME, updated_time DATETIME${g});
CREATE TABLE source_event (id CHAR(36) PRIMARY KEY, ${p} CHAR(36) NOT NULL, source_type VARCHAR(20), source_id VARCHAR(100), article_id CHAR(36) REFERENCES article(id), title VARCHAR(255), summary TEXT, content TEXT, category VARCHAR(50), keywords JSON, type VARCHAR(50), priority VARCHAR(20), status VARCHAR(20), rank INTEGER, level INTEGER DEFAULT 0, parent_id CHAR(36) REFERENCES source_event(id), start_time DATETIME, end_time DATETIME, "references" JSON, chunk_id CHAR(36), extra_data JSON, created_time DATETIME, updated_time DATETIME${g});
CREATE TABLE entity_type (id CHAR(36) PRIMARY KEY, scope VARCHAR(20), ${p} CHAR(36), article_id CHAR(36), type VARCHAR(50), name VARCHAR(100), description TEXT, weight NUMERIC(3,2), similarity_threshold NUMERIC(3,2), is_active BOOLEAN, is_default BOOLEAN, value_format VARCHAR(50), value_constraints JSON, extra_data JSON);
CREATE TABLE entity (id CHAR(36) PRIMARY KEY, ${p} CHAR(36) NOT NULL, entity_type_id CHAR(36) REFERENCES entity_type(id), type VARCHAR(50) NOT NULL, name VARCHAR(500) NOT NULL, normalized_name VARCHAR(500) NOT NULL, description TEXT, value_type VARCHAR(20), value_raw TEXT, int_value INTEGER, float_value FLOAT, datetime_value DATETIME, bool_value BOOLEAN, enum_value VARCHAR(100), value_unit VARCHAR(50), value_confidence FLOAT, extra_data JSON${g}, UNIQUE (${p}, type, normalized_name));
CREATE TABLE event_entity (id CHAR(36) PRIMARY KEY, event_id CHAR(36) NOT NULL REFERENCES source_event(id), entity_id CHAR(36) NOT NULL REFERENCES entity(id), weight NUMERIC(3,2) DEFAULT 1.00, description TEXT, extra_data JSON, created_time DATETIME, UNIQUE (event_id, entity_id));
`;
}

const T0 = '东汉末年，朝政腐败，黄巾军四起。朝廷下诏各州郡招募义兵，榜文贴到涿郡，刘备看榜长叹，结识了卖酒屠猪的张飞。';
const T1 = '二人在村中酒店遇见推车投军的关羽。次日三人在张飞庄后桃园焚香结拜，立誓不求同年同月同日生，只愿同年同月同日死。';
const C0 = 'In the winter of 208 Cao Cao camped his fleet at Red Cliffs. Zhou Yu, commander of the Wu army, planned to attack it with fire.';
const C2 = 'When the south-east wind rose, the fire ships sailed into the chained fleet. Cao Cao lost most of his army and retreated north through Huarong.';

/** Creates the fixture database at `path` and returns it closed. */
export function createSagDatabase(path: string, gen: SagGeneration = 1): void {
  const db = new Database(path);
  try {
    db.exec(ddl(gen));
    const p = gen === 1 ? 'source_config_id' : 'data_source_id';
    const sourceTable = gen === 1 ? 'source_config' : 'data_source';
    const insert = (table: string, row: Record<string, unknown>) => {
      const keys = Object.keys(row);
      db.prepare(`INSERT INTO ${table} (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`).run(row);
    };
    const now = '2026-07-01 10:00:00.000000';
    const genCol = gen === 2 ? { generation_id: 'gen-0001' } : {};
    insert(sourceTable, { id: SAG.source, name: '三国演义读书会', created_time: now, updated_time: now });
    insert(sourceTable, { id: SAG.otherSource, name: 'Other team', created_time: now, updated_time: now });

    const article = (id: string, source: string, title: string, content: string) =>
      insert('article', { id, [p]: source, title, content, status: 'COMPLETED', parse_status: 'COMPLETED', extra_data: '{}', created_time: now, updated_time: now, ...genCol });
    article(SAG.articles.taoyuan, SAG.source, '桃园结义', `${T0}\n\n${T1}\n`);
    article(SAG.articles.chibi, SAG.source, 'The Battle of Red Cliffs', `# The Battle of Red Cliffs\n\n${C0}\n\n${C2}\n`);
    article(SAG.articles.other, SAG.otherSource, 'Unrelated', 'Another team’s notes.');

    const chunk = (id: string, source: string, articleId: string | null, rank: number, content: string, heading?: string) =>
      insert('source_chunk', {
        id,
        [p]: source,
        source_type: articleId ? 'ARTICLE' : 'CHAT',
        article_id: articleId,
        content,
        raw_content: content,
        heading: heading ?? null,
        rank,
        chunk_length: content.length,
        extra_data: '{}',
        created_time: now,
        ...genCol,
      });
    chunk(SAG.chunks.t0, SAG.source, SAG.articles.taoyuan, 0, T0);
    chunk(SAG.chunks.t1, SAG.source, SAG.articles.taoyuan, 1, T1);
    chunk(SAG.chunks.c0, SAG.source, SAG.articles.chibi, 0, C0, 'The Battle of Red Cliffs');
    chunk(SAG.chunks.c2, SAG.source, SAG.articles.chibi, 2, C2, 'The Battle of Red Cliffs');
    chunk(SAG.chunks.unbound, SAG.source, null, 0, '用户：赤壁之战发生在哪一年？助手：公元208年。');
    chunk(SAG.chunks.other, SAG.otherSource, SAG.articles.other, 0, 'Another team’s notes.');

    const event = (row: {
      id: string;
      source?: string;
      article: string;
      title: string;
      content: string | null;
      summary?: string;
      chunk: string | null;
      parent?: string;
      level?: number;
      status?: string;
      extra?: unknown;
      category?: string;
      start?: string;
    }) =>
      insert('source_event', {
        id: row.id,
        [p]: row.source ?? SAG.source,
        source_type: 'ARTICLE',
        article_id: row.article,
        title: row.title,
        summary: row.summary ?? null,
        content: row.content,
        category: row.category ?? null,
        status: row.status ?? 'ACTIVE',
        level: row.level ?? 0,
        parent_id: row.parent ?? null,
        start_time: row.start ?? null,
        chunk_id: row.chunk,
        extra_data: JSON.stringify(row.extra ?? {}),
        created_time: now,
        ...genCol,
      });
    event({
      id: SAG.events.oath,
      article: SAG.articles.taoyuan,
      title: '桃园三结义',
      content: '刘备、关羽、张飞在桃园焚香结拜为异姓兄弟，立誓同生共死、报国安民。',
      summary: '刘关张结为兄弟。',
      chunk: SAG.chunks.t1,
      category: 'alliance',
      start: '0184-03-01 00:00:00',
    });
    event({
      id: SAG.events.vow,
      article: SAG.articles.taoyuan,
      title: '三人立下誓言',
      content: '三人立誓：不求同年同月同日生，只愿同年同月同日死。',
      chunk: SAG.chunks.t1,
      parent: SAG.events.oath,
      level: 5,
    });
    event({ id: SAG.events.deleted, article: SAG.articles.taoyuan, title: '（已删除）招兵榜文', content: '朝廷张贴招兵榜文。', chunk: SAG.chunks.t0, status: 'DELETED' });
    event({
      id: SAG.events.orphan,
      article: SAG.articles.taoyuan,
      title: '刘备看榜结识张飞',
      content: '刘备在涿郡看招兵榜文时长叹，被张飞喝问，二人由此结识。',
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
      chunk: SAG.chunks.c2,
      parent: SAG.events.fire,
      level: 1,
    });
    event({
      id: SAG.events.retreat,
      article: SAG.articles.chibi,
      title: 'Cao Cao retreats through Huarong',
      content: 'Having lost most of his army, Cao Cao retreated north through Huarong.',
      chunk: SAG.chunks.c2,
      parent: SAG.events.wind,
      level: 1,
    });
    event({ id: SAG.events.other, source: SAG.otherSource, article: SAG.articles.other, title: 'Unrelated event', content: 'Something else happened.', chunk: SAG.chunks.other });

    const entity = (id: string, type: string, name: string, description: string, extra: unknown = {}, source: string = SAG.source) =>
      insert('entity', { id, [p]: source, type, name, normalized_name: name.toLowerCase(), description, extra_data: JSON.stringify(extra), ...genCol });
    entity(SAG.entities.liubei, 'person', '刘备', 'Liu Bei (字玄德)，刘关张结义之长兄。');
    entity(SAG.entities.guanyu, 'person', '关羽', 'Guan Yu (字云长)。');
    entity(SAG.entities.zhangfei, 'person', '张飞', 'Zhang Fei (字翼德)。');
    entity(SAG.entities.zhouyu, 'person', 'Zhou Yu', 'Commander of the Wu army at Red Cliffs.');
    entity(SAG.entities.caocao, 'person', 'Cao Cao', 'Chancellor of the Han, leader of the northern army.');
    entity(SAG.entities.chibi, 'place', '赤壁', 'Red Cliffs, on the Yangtze.', { octx: { record_id: SAG.chibiPreserved } });
    entity(SAG.entities.other, 'person', 'Somebody', 'Not in this source.', {}, SAG.otherSource);

    let n = 0;
    const link = (eventId: string, entityId: string, weight: number | null, description?: string) =>
      insert('event_entity', {
        id: `ee000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
        event_id: eventId,
        entity_id: entityId,
        weight,
        description: description ?? null,
        created_time: now,
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
    link(SAG.events.retreat, SAG.entities.caocao, null);
    link(SAG.events.other, SAG.entities.other, 1.0);
  } finally {
    db.close();
  }
}
