/**
 * zleap-sag engine database (SQLite) → OCTX, for one source (sag-anchor.md §1.4, §5 B), with
 * the fixes the anchor lists as SAG exporter pitfalls: duplicate chunk ranks are an error that
 * names them, soft-deleted events are left out, a parent is kept only when it is exported and
 * `level` is recomputed from the kept parent chain (never copied), NaN/∞ weights are refused,
 * and no text is copied from a title into an event's content.
 *
 * Only articles SAG considers finished (`status = 'COMPLETED'`) are exported unless more statuses
 * are included; the others are counted per status. Both schemas are read: `source_config_id`
 * (zleap-sag ≤ 0.7) and `data_source_id` (≥ 0.8.2, with generations: each article's rows are
 * those of its active generation, `sag_source_manifest.active_generation_id`; rows of other
 * generations are leftovers and are left out). Local database ids never enter the package:
 * record ids are a preserved `extra_data.octx.record_id`, else the id ledger — or, in
 * `sag-compatible` mode, SAG's own deterministic mapping (UUIDv4 with its version nibble set to
 * 7) before the ledger.
 */
import { reportAdapterWarnings } from '../adapter-warnings.js';
import { z } from 'zod';
import type { PackageBuilder } from '../../builder/package-builder.js';
import { OctxError, issue, type OctxIssue } from '../../model/errors.js';
import { assertKnownKeys } from '../../model/option-keys.js';
import type { LedgerKind } from '../../release/producer-state.js';
import { mergeFrontmatter } from '../rag/frontmatter-merge.js';
import { notEngineDatabase } from './engine-db.js';
import { preservedRecordId, sagCompatibleId } from './sag-ids.js';
import { loadSqliteDriver, type ReadOnlyDatabase, type SqliteModuleLoaders } from './sqlite.js';

/** How record ids are chosen. */
export type SagIdMode = 'ledger' | 'sag-compatible';

/** Options of {@link fromSagDatabase}. */
export interface FromSagOptions {
  /** The source: `source_config.id` (older schema) or `data_source_id` (newer schema). */
  readonly sourceId: string;
  /**
   * `ledger` (default): a preserved `extra_data.octx.record_id`, else a stable UUIDv7 from the
   * id ledger. `sag-compatible`: a preserved record id, else the local id when it is a UUIDv7,
   * else a UUIDv4 local id with its version nibble set to 7 (what SAG's own exporter writes),
   * else the ledger.
   */
  readonly idMode?: SagIdMode;
  /** Only these articles (default: every article of the source with an exported status). */
  readonly articleIds?: readonly string[];
  /**
   * Article statuses exported besides `COMPLETED` (SAG's statuses: `PENDING`, `PROCESSING`,
   * `COMPLETED`, `FAILED`; compared in upper case). Default none: only finished articles; the
   * others are counted per status in {@link SagAdapterReport.articles}.
   */
  readonly includeStatuses?: readonly string[];
  /**
   * Newer schemas (zleap-sag ≥ 0.8.2) only: article id → the `generation_id` to read for it,
   * instead of its active generation in `sag_source_manifest`. The replacement of the removed
   * `generationId` (one generation for the whole export cannot fit: a generation belongs to one
   * article).
   */
  readonly generations?: Readonly<Record<string, string>>;
  /** Read only the articles (documents); no structure. */
  readonly documentsOnly?: boolean;
  /** Frontmatter `type` of the documents (default `Document`). */
  readonly documentType?: string;
}

/** What {@link fromSagDatabase} read and wrote. */
export interface SagAdapterReport {
  /** Which schema generation the database has. */
  readonly generation: 'source_config_id' | 'data_source_id';
  readonly source: { readonly id: string; readonly name?: string };
  readonly idMode: SagIdMode;
  /** Which articles were exported and which were skipped for their status. */
  readonly articles: {
    /** The statuses exported (`COMPLETED` plus `includeStatuses`). */
    readonly statuses: readonly string[];
    /** Articles of the source left out for their status: status → count (`(none)` for NULL). */
    readonly skippedByStatus: Readonly<Record<string, number>>;
    /** The local ids of the skipped articles with their status, by id. */
    readonly skipped: readonly { readonly id: string; readonly status: string }[];
  };
  /**
   * Newer schemas: the generation read for each exported article (article id → generation id)
   * and where it came from; `none` when the database has no generations.
   */
  readonly generations: { readonly from: 'none' | 'manifest' | 'manifest+override'; readonly active: Readonly<Record<string, string>> };
  /** How the record ids were chosen. */
  readonly ids: { readonly preserved: number; readonly sagCompatible: number; readonly ledger: number };
  readonly documents: { readonly count: number; readonly paths: readonly string[] };
  readonly chunks: {
    readonly count: number;
    /** Chunks without an article (e.g. chat sources): not part of any document. */
    readonly unbound: number;
    /** Chunks of articles that were not selected or not exported (status). */
    readonly otherArticles: number;
    /** Leftover chunks of an article's other generations (newer schemas). */
    readonly otherGenerations: number;
  };
  readonly events: {
    readonly count: number;
    /** Events with `status = 'DELETED'` (exactly, as SAG compares it). */
    readonly softDeleted: number;
    readonly otherArticles: number;
    /** Leftover events of an article's other generations (newer schemas). */
    readonly otherGenerations: number;
    /** OCTX ids of events whose parent was not exported: they became top-level events. */
    readonly detachedFromParent: readonly string[];
    /** OCTX ids of events whose `chunk_id` is missing or not exported. */
    readonly withoutChunk: readonly string[];
  };
  readonly entities: { readonly count: number };
  readonly relations: { readonly chunkEvents: number; readonly eventEntities: number };
  /** What to expect from the export's coverage gate, and why. */
  readonly structure: { readonly expected: 'complete' | 'documents-only'; readonly reason: string };
  readonly warnings: readonly string[];
  /** The same warnings as data: `OCTX_ADAPTER_WARNING` issues, also reported to the builder (so the export's `report.warnings` lists them and `strict` refuses them). */
  readonly issues: readonly OctxIssue[];
}

const optionsSchema = z.object({
  sourceId: z.string({ error: 'is required (the source_config.id / data_source_id)' }).min(1, { error: 'must not be empty' }),
  idMode: z.enum(['ledger', 'sag-compatible']).optional(),
  articleIds: z.array(z.string().min(1)).optional(),
  includeStatuses: z.array(z.string().trim().min(1, { error: 'must not contain an empty status' })).optional(),
  generations: z.record(z.string().min(1), z.string().min(1, { error: 'must not map an article to an empty generation id' })).optional(),
  documentsOnly: z.boolean().optional(),
  documentType: z.string().min(1).optional(),
});

const REQUIRED_TABLES = ['article', 'source_chunk', 'source_event', 'entity', 'event_entity'] as const;
const LIST = 20;

type Row = Record<string, unknown>;

function parseExtra(value: unknown): unknown {
  if (typeof value !== 'string' || value === '') return value ?? undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : undefined);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** SAG's document slug (`export_snapshot`): NFKD, ASCII only, runs of other characters → `-`, lower case, ≤ 80. */
export function sagSlug(title: string): string {
  // eslint-disable-next-line no-control-regex -- [^\x00-\x7f] is "not ASCII", as SAG's slug keeps only ASCII
  const ascii = title.normalize('NFKD').replace(/[^\x00-\x7f]/g, '');
  const slug = ascii
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug === '' ? 'document' : slug;
}

/**
 * A datetime column as SAG's exporter writes it: naive ISO 8601 to the second
 * (`2026-07-01 10:00:00.123456` → `2026-07-01T10:00:00`; SQLAlchemy stores microseconds, SAG
 * writes seconds). An offset, when a value has one, is kept; a number is read as Unix time (UTC).
 */
export function sagTime(v: unknown): string | undefined {
  if (v === null || v === undefined || v === '') return undefined;
  if (typeof v === 'string') {
    const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:[.,]\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(v.trim());
    if (!m) return v;
    return `${m[1]}T${m[2] ?? '00'}:${m[3] ?? '00'}:${m[4] ?? '00'}${m[5] ?? ''}`;
  }
  if (typeof v === 'number' || typeof v === 'bigint') {
    const n = Number(v);
    return new Date(n > 1e11 ? n : n * 1000).toISOString().slice(0, 19);
  }
  return undefined;
}

/**
 * Reads one source of a zleap-sag engine database (SAG v1.7: `<SAG_DATA_DIR>/sag.db`, by
 * default `./.data/engine/sag.db`) into a builder: `COMPLETED` articles (plus
 * `includeStatuses`) → documents (`# title` + content under
 * `knowledge/documents/<slug>-<id tail>.md`), `source_chunk` → chunks (`rank` → `ordinal`),
 * non-deleted `source_event` → events (with recomputed levels), `source_event.chunk_id` →
 * chunk-event links, `event_entity` + `entity` → entities and weighted event-entity links — in
 * newer schemas, each article's rows of its active generation only.
 * @throws OctxError `OCTX_OPEN_ERROR` (not an SQLite file), `OCTX_SAG_NOT_ENGINE_DB` (no engine
 *   tables: e.g. SAG's application database `./.data/sag.db`), `OCTX_ADAPTER_INPUT_INVALID`
 *   (unknown source, no finished article, duplicate ranks, empty texts, broken references, a
 *   generation override that does not fit, …), `OCTX_OPTIONS_INVALID` (including the removed
 *   `generationId`), `OCTX_DEPENDENCY_MISSING` (no SQLite driver: neither `node:sqlite` nor the
 *   optional `better-sqlite3`), and the builder's errors
 */
export async function fromSagDatabase(builder: PackageBuilder, dbPath: string, options: FromSagOptions): Promise<SagAdapterReport> {
  return readSagDatabase(builder, dbPath, options);
}

/**
 * {@link fromSagDatabase} with replaceable SQLite module loaders (tests simulate a runtime
 * without a driver with them).
 *
 * @internal
 */
export async function readSagDatabase(
  builder: PackageBuilder,
  dbPath: string,
  options: FromSagOptions,
  sqliteLoaders: Partial<SqliteModuleLoaders> = {},
): Promise<SagAdapterReport> {
  if ((options as { generationId?: unknown }).generationId !== undefined)
    throw OctxError.of({
      code: 'OCTX_OPTIONS_INVALID',
      field: 'generationId',
      message:
        'generationId was removed: a generation belongs to one article, and each article is read at its active generation (sag_source_manifest.active_generation_id); to read another one, give generations: { "<article-id>": "<generation-id>" }',
    });
  assertKnownKeys(options, Object.keys(optionsSchema.shape), 'fromSagDatabase options');
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    throw OctxError.aggregate(
      'OCTX_OPTIONS_INVALID',
      'fromSagDatabase options are invalid:',
      parsed.error.issues.map((i) => issue({ code: 'OCTX_OPTIONS_INVALID', field: i.path.join('.'), message: `${i.path.join('.')} ${i.message}` })),
    );
  }
  // The driver is loaded here, not at the top of the module, so that importing the adapter (or
  // the package's index) never loads SQLite; without one, OCTX_DEPENDENCY_MISSING.
  const driver = await loadSqliteDriver(sqliteLoaders);
  let db: ReadOnlyDatabase;
  try {
    db = driver.open(dbPath);
    db.prepare('SELECT name FROM sqlite_master LIMIT 1').get();
  } catch (e) {
    throw OctxError.of({ code: 'OCTX_OPEN_ERROR', path: dbPath, message: `cannot open ${dbPath} as an SQLite database: ${(e as Error).message}` });
  }
  try {
    return readSource(builder, db, dbPath, options);
  } finally {
    db.close();
  }
}

/**
 * Reads the source into the builder, step by step: the schema, the source's name, then articles
 * → documents, the generation of each article, chunks, events and entities (every problem
 * collected, then thrown at once), the records into the builder, and what the coverage gate will
 * say.
 */
function readSource(builder: PackageBuilder, db: ReadOnlyDatabase, dbPath: string, options: FromSagOptions): SagAdapterReport {
  const idMode: SagIdMode = options.idMode ?? 'ledger';
  const warnings: string[] = [];
  const schema = readSchema(db, dbPath);
  const sourceName = readSourceName(db, schema, options.sourceId);
  const { counts, exchange } = idExchange(builder, idMode);
  const { articles, documentOf, paths, selection } = readArticles(builder, db, dbPath, schema, options, exchange, warnings);
  const generations = activeGenerations(db, dbPath, schema, options, documentOf, warnings);

  const base = {
    generation: schema.generation,
    source: { id: options.sourceId, ...(sourceName !== undefined ? { name: sourceName } : {}) },
    idMode,
    articles: selection,
    generations: { from: generations.from, active: Object.fromEntries([...generations.active].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) },
    documents: { count: articles.length, paths },
  } as const;
  if (options.documentsOnly) {
    return {
      ...base,
      ids: counts,
      chunks: { count: 0, unbound: 0, otherArticles: 0, otherGenerations: 0 },
      events: { count: 0, softDeleted: 0, otherArticles: 0, otherGenerations: 0, detachedFromParent: [], withoutChunk: [] },
      entities: { count: 0 },
      relations: { chunkEvents: 0, eventEntities: 0 },
      structure: { expected: 'documents-only', reason: 'documents only was requested: chunks, events and entities were not read' },
      warnings,
      issues: reportAdapterWarnings(builder, 'fromSag', warnings),
    };
  }

  const problems: OctxIssue[] = [];
  const chunks = readChunks(db, dbPath, schema, options.sourceId, documentOf, generations, exchange, problems, warnings);
  const events = readEvents(db, dbPath, schema, options.sourceId, documentOf, generations, exchange, problems);
  overridesWithoutRows(dbPath, generations, chunks, events, problems);
  const entities = readEntities(db, dbPath, schema, options.sourceId, events.eventOf, exchange, problems);
  if (problems.length > 0) throw OctxError.aggregate('OCTX_ADAPTER_INPUT_INVALID', `the SAG database ${dbPath} cannot be exported as it is:`, problems);

  const links = addRecords(builder, chunks, events, entities);
  const structure = expectedStructure(articles.length, chunks, events, entities, links);

  return {
    ...base,
    ids: counts,
    chunks: { count: chunks.chunkRecords.length, unbound: chunks.unbound, otherArticles: chunks.otherArticles, otherGenerations: chunks.otherGenerations },
    events: {
      count: events.kept.size,
      softDeleted: events.softDeleted,
      otherArticles: events.otherArticles,
      otherGenerations: events.otherGenerations,
      detachedFromParent: events.detachedFromParent,
      withoutChunk: links.withoutChunk,
    },
    entities: { count: entities.entityRecords.length },
    relations: { chunkEvents: links.chunkEvents, eventEntities: entities.linkRecords.length },
    structure,
    warnings,
    issues: reportAdapterWarnings(builder, 'fromSag', warnings),
  };
}

// ── schema ──────────────────────────────────────────────────────────────────────────────

type SagTable = (typeof REQUIRED_TABLES)[number];

/** What {@link readSchema} found: the tables, their columns and the schema generation. */
interface SagSchema {
  readonly tables: ReadonlySet<string>;
  readonly cols: Readonly<Record<SagTable, ReadonlySet<string>>>;
  /** The column naming the source (`p` in the queries). */
  readonly generation: 'source_config_id' | 'data_source_id';
  /** Whether `source_chunk` and `source_event` carry `generation_id` (zleap-sag ≥ 0.8.2). */
  readonly hasGenerations: boolean;
}

function columnsOf(db: ReadOnlyDatabase, table: string): Set<string> {
  return new Set((db.prepare(`PRAGMA table_info("${table}")`).all() as Row[]).map((r) => String(r.name)));
}

/**
 * Checks that the database is a zleap-sag engine database and finds its schema generation
 * (`source_config_id` or `data_source_id`, the same in every table) and whether it has
 * generations.
 * @throws OctxError `OCTX_SAG_NOT_ENGINE_DB` (engine tables missing: e.g. SAG's application
 *   database), `OCTX_ADAPTER_INPUT_INVALID` (unknown or mixed schema generations)
 */
function readSchema(db: ReadOnlyDatabase, dbPath: string): SagSchema {
  const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Row[]).map((r) => String(r.name)));
  const missing = REQUIRED_TABLES.filter((t) => !tables.has(t));
  if (missing.length > 0) throw notEngineDatabase(dbPath, tables, missing);
  const cols = Object.fromEntries(REQUIRED_TABLES.map((t) => [t, columnsOf(db, t)])) as Record<SagTable, Set<string>>;
  const generation = cols.article.has('source_config_id') ? 'source_config_id' : cols.article.has('data_source_id') ? 'data_source_id' : undefined;
  if (!generation)
    throw OctxError.of({
      code: 'OCTX_ADAPTER_INPUT_INVALID',
      path: dbPath,
      field: 'article',
      message: 'table article has neither source_config_id nor data_source_id: unknown zleap-sag schema generation',
    });
  for (const t of ['source_chunk', 'source_event', 'entity'] as const) {
    if (!cols[t].has(generation))
      throw OctxError.of({
        code: 'OCTX_ADAPTER_INPUT_INVALID',
        path: dbPath,
        field: t,
        message: `table ${t} has no ${generation} column while article has one: mixed schema generations`,
      });
  }
  const hasGenerations = cols.source_chunk.has('generation_id') && cols.source_event.has('generation_id');
  return { tables, cols, generation, hasGenerations };
}

/** The source's name from `source_config` (older schema) or `data_source(s)` (newer), when the table has one. */
function readSourceName(db: ReadOnlyDatabase, schema: SagSchema, sourceId: string): string | undefined {
  let sourceName: string | undefined;
  const sourceTable = schema.generation === 'source_config_id' ? ['source_config'] : ['data_source', 'data_sources'];
  for (const t of sourceTable) {
    if (schema.tables.has(t) && columnsOf(db, t).has('name')) {
      const row = db.prepare(`SELECT name FROM "${t}" WHERE id = @id`).get({ id: sourceId });
      if (row && typeof row.name === 'string') sourceName = row.name;
      break;
    }
  }
  return sourceName;
}

// ── ids ─────────────────────────────────────────────────────────────────────────────────

/** Turns a local database id into an OCTX record id (and counts how it was chosen). */
type IdExchange = (kind: LedgerKind, localId: string, extra: unknown) => string;

/**
 * The record-id rule: a preserved `extra_data.octx.record_id`, else (in `sag-compatible` mode)
 * SAG's own mapping of the local id, else the builder's id ledger under `sag:<local id>`.
 * `counts` is updated by every call of `exchange`.
 */
function idExchange(builder: PackageBuilder, idMode: SagIdMode): { counts: { preserved: number; sagCompatible: number; ledger: number }; exchange: IdExchange } {
  const counts = { preserved: 0, sagCompatible: 0, ledger: 0 };
  const ledger: Record<LedgerKind, (key: string) => string> = {
    document: (k) => builder.ids.document(k),
    chunk: (k) => builder.ids.chunk(k),
    event: (k) => builder.ids.event(k),
    entity: (k) => builder.ids.entity(k),
  };
  const exchange: IdExchange = (kind, localId, extra) => {
    const preserved = preservedRecordId(extra);
    if (preserved) {
      counts.preserved++;
      return preserved;
    }
    if (idMode === 'sag-compatible') {
      const compatible = sagCompatibleId(localId);
      if (compatible) {
        counts.sagCompatible++;
        return compatible;
      }
    }
    counts.ledger++;
    return ledger[kind](`sag:${localId}`);
  };
  return { counts, exchange };
}

// ── articles → documents ────────────────────────────────────────────────────────────────

/** The status SAG gives an article whose processing finished. */
const COMPLETED = 'COMPLETED';
/** Every article status SAG writes (it deletes articles outright: there is no DELETED). */
const SAG_ARTICLE_STATUSES: readonly string[] = ['PENDING', 'PROCESSING', COMPLETED, 'FAILED'];

/** Python's `str.isspace()` characters: what `str.lstrip()` removes (JS `\s` differs: no U+001C–U+001F or U+0085, but U+FEFF). */
// eslint-disable-next-line no-control-regex -- U+001C–U+001F are whitespace to Python, so they must be listed
const PY_LEADING_SPACE = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/**
 * An article's Markdown body as SAG's exporter writes it: when `content.lstrip()` starts with
 * `#` (a heading, but also `#tag`), the stripped content as it is; otherwise `# title`, a blank
 * line and the content. A trailing newline is ensured.
 */
export function sagDocumentBody(title: string, content: string): string {
  const stripped = content.replace(PY_LEADING_SPACE, '');
  const markdown = stripped.startsWith('#') ? stripped : `# ${title}\n\n${content}`;
  return markdown.endsWith('\n') ? markdown : `${markdown}\n`;
}

/**
 * Adds the source's selected articles with an exported status (`COMPLETED` plus
 * `includeStatuses`) as documents (`# title` + content, under
 * `knowledge/documents/<slug>-<id tail>.md`); the others are counted per status.
 * @returns the articles, their local id → OCTX document id, the package paths, and the selection report
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID` (unknown `articleIds` or ones with another
 *   status, no exported article in the source)
 */
function readArticles(
  builder: PackageBuilder,
  db: ReadOnlyDatabase,
  dbPath: string,
  schema: SagSchema,
  options: FromSagOptions,
  exchange: IdExchange,
  warnings: string[],
): { articles: Row[]; documentOf: Map<string, string>; paths: string[]; selection: SagAdapterReport['articles'] } {
  const { cols, generation: p } = schema;
  const articleRows = db
    .prepare(
      `SELECT id, title, content, ${cols.article.has('status') ? 'status' : 'NULL AS status'}, ${cols.article.has('extra_data') ? 'extra_data' : 'NULL AS extra_data'} FROM article WHERE ${p} = @source ORDER BY id`,
    )
    .all({ source: options.sourceId }) as Row[];
  const statuses = [COMPLETED, ...new Set((options.includeStatuses ?? []).map((s) => s.trim().toUpperCase()).filter((s) => s !== COMPLETED))];
  const unknownStatuses = statuses.filter((s) => !SAG_ARTICLE_STATUSES.includes(s));
  if (unknownStatuses.length > 0)
    warnings.push(`includeStatuses names status(es) SAG does not write: ${unknownStatuses.join(', ')} (its statuses: ${SAG_ARTICLE_STATUSES.join(', ')})`);
  const included = new Set(statuses);
  // SAG writes its enum names (PENDING, PROCESSING, COMPLETED, FAILED) and compares them exactly.
  const statusOf = (r: Row) => str(r.status) ?? '(none)';
  let candidates = articleRows;
  if (options.articleIds) {
    const wanted = new Set(options.articleIds);
    const byId = new Map(articleRows.map((a) => [String(a.id), a]));
    const unknown = options.articleIds.filter((id) => !byId.has(id));
    if (unknown.length > 0)
      throw OctxError.of({
        code: 'OCTX_ADAPTER_INPUT_INVALID',
        path: dbPath,
        field: 'articleIds',
        message: `article(s) ${unknown.slice(0, LIST).join(', ')} are not articles of source ${options.sourceId}`,
      });
    const otherStatus = options.articleIds.filter((id) => !included.has(statusOf(byId.get(id)!)));
    if (otherStatus.length > 0)
      throw OctxError.of({
        code: 'OCTX_ADAPTER_INPUT_INVALID',
        path: dbPath,
        field: 'articleIds',
        message: `article(s) ${otherStatus
          .slice(0, LIST)
          .map((id) => `${id} (${statusOf(byId.get(id)!)})`)
          .join(', ')} are not ${statuses.join('/')}: SAG has not finished them; include their status with includeStatuses (--include-status)`,
      });
    candidates = articleRows.filter((a) => wanted.has(String(a.id)));
  }
  const articles = candidates.filter((a) => included.has(statusOf(a)));
  const skipped = candidates.filter((a) => !included.has(statusOf(a))).map((a) => ({ id: String(a.id), status: statusOf(a) }));
  const skippedByStatus: Record<string, number> = {};
  for (const a of skipped) skippedByStatus[a.status] = (skippedByStatus[a.status] ?? 0) + 1;
  if (articles.length === 0) {
    const known = (db.prepare(`SELECT DISTINCT ${p} AS s FROM article ORDER BY 1 LIMIT ${LIST}`).all() as Row[]).map((r) => String(r.s));
    const why = skipped.length > 0 ? ` (skipped: ${describeCounts(skippedByStatus)}; include them with includeStatuses / --include-status)` : '';
    throw OctxError.of({
      code: 'OCTX_ADAPTER_INPUT_INVALID',
      path: dbPath,
      field: p,
      message: `source ${options.sourceId} has no ${statuses.join('/')} article in this database${why}${known.length > 0 ? `; sources with articles: ${known.join(', ')}` : ''}`,
    });
  }
  const documentOf = new Map<string, string>();
  const paths: string[] = [];
  for (const a of articles) {
    const localId = String(a.id);
    const documentId = exchange('document', localId, parseExtra(a.extra_data));
    const title = text(a.title).trim() || 'Document';
    const path = `documents/${sagSlug(title)}-${documentId.slice(-8)}.md`;
    const merged = mergeFrontmatter(sagDocumentBody(title, text(a.content)), { type: options.documentType ?? 'Document', title, documentId }, `knowledge/${path}`);
    builder.addDocument({ path, markdown: merged.markdown });
    documentOf.set(localId, builder.documentId(path));
    paths.push(`knowledge/${path}`);
  }
  return { articles, documentOf, paths, selection: { statuses, skippedByStatus, skipped } };
}

/** `2 PENDING, 1 FAILED`. */
function describeCounts(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
}

// ── generations (zleap-sag ≥ 0.8.2) ─────────────────────────────────────────────────────

/** The generation read for each exported article. */
interface ActiveGenerations {
  readonly from: SagAdapterReport['generations']['from'];
  /** Article id → the generation whose rows are read; an article without one: all its rows. */
  readonly active: ReadonlyMap<string, string>;
  /** Articles whose generation was given in `options.generations`. */
  readonly overridden: ReadonlySet<string>;
  /** Whether a row of `article` with `generationId` belongs to the export. */
  keep(article: string, generationId: unknown): boolean;
}

/**
 * The generation of each exported article: `options.generations[article]`, else
 * `sag_source_manifest.active_generation_id` of the row (`data_source_id`, `source_id` = the
 * article id). Databases without generations read every row.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID` (an override for a database without generations
 *   or for an article that is not exported)
 */
function activeGenerations(
  db: ReadOnlyDatabase,
  dbPath: string,
  schema: SagSchema,
  options: FromSagOptions,
  documentOf: ReadonlyMap<string, string>,
  warnings: string[],
): ActiveGenerations {
  const overrides = Object.entries(options.generations ?? {});
  if (!schema.hasGenerations) {
    if (overrides.length > 0)
      throw OctxError.of({
        code: 'OCTX_ADAPTER_INPUT_INVALID',
        path: dbPath,
        field: 'generations',
        message: 'this database has no generations (zleap-sag ≤ 0.7: source_chunk and source_event have no generation_id); drop the generation override',
      });
    return { from: 'none', active: new Map(), overridden: new Set(), keep: () => true };
  }
  const notExported = overrides.map(([article]) => article).filter((article) => !documentOf.has(article));
  if (notExported.length > 0)
    throw OctxError.of({
      code: 'OCTX_ADAPTER_INPUT_INVALID',
      path: dbPath,
      field: 'generations',
      message: `a generation is given for article(s) ${notExported.slice(0, LIST).join(', ')}, which are not exported articles of source ${options.sourceId}`,
    });
  const active = new Map<string, string>();
  const manifestColumns = schema.tables.has('sag_source_manifest') ? columnsOf(db, 'sag_source_manifest') : new Set<string>();
  if (['data_source_id', 'source_id', 'active_generation_id'].every((c) => manifestColumns.has(c))) {
    const rows = db.prepare('SELECT source_id, active_generation_id FROM sag_source_manifest WHERE data_source_id = @source').all({ source: options.sourceId }) as Row[];
    for (const r of rows) {
      const article = str(r.source_id);
      const generation = str(r.active_generation_id);
      if (article !== undefined && generation !== undefined && generation !== '' && documentOf.has(article)) active.set(article, generation);
    }
    const without = [...documentOf.keys()].filter((a) => !active.has(a) && options.generations?.[a] === undefined);
    if (without.length > 0)
      warnings.push(`${without.length} article(s) have no active generation in sag_source_manifest (${without.slice(0, LIST).join(', ')}): every generation of their rows is read`);
  } else {
    warnings.push(
      `the database has generation_id columns but ${manifestColumns.size > 0 ? 'a sag_source_manifest table without data_source_id, source_id and active_generation_id' : 'no sag_source_manifest table'}: every generation is read (give one per article with generations / --generation <article-id>=<generation-id>)`,
    );
  }
  for (const [article, generation] of overrides) active.set(article, generation);
  return {
    from: overrides.length > 0 ? 'manifest+override' : 'manifest',
    active,
    overridden: new Set(overrides.map(([article]) => article)),
    keep: (article, generationId) => {
      const wanted = active.get(article);
      return wanted === undefined || str(generationId) === wanted;
    },
  };
}

/** An overridden generation that has no chunk and no event of its article is a mistake: it is named, with the generations found. */
function overridesWithoutRows(dbPath: string, generations: ActiveGenerations, chunks: SagChunks, events: SagEvents, problems: OctxIssue[]): void {
  for (const article of generations.overridden) {
    if ((chunks.keptPerArticle.get(article) ?? 0) + (events.keptPerArticle.get(article) ?? 0) > 0) continue;
    const found = [...new Set([...(chunks.generationsPerArticle.get(article) ?? []), ...(events.generationsPerArticle.get(article) ?? [])])].sort();
    problems.push(
      issue({
        code: 'OCTX_ADAPTER_INPUT_INVALID',
        path: dbPath,
        recordId: article,
        field: 'generations',
        message: `article ${article} has no chunk or event of generation ${generations.active.get(article)!}${found.length > 0 ? `; its generations: ${found.join(', ')}` : ''}`,
      }),
    );
  }
}

// ── source_chunk → chunks ───────────────────────────────────────────────────────────────

/** What {@link readChunks} made of the source's chunks. */
interface SagChunks {
  readonly chunkRecords: Record<string, unknown>[];
  /** Local chunk id → OCTX chunk id. */
  readonly chunkOf: Map<string, string>;
  readonly unbound: number;
  readonly otherArticles: number;
  readonly otherGenerations: number;
  /** Article id → chunks kept. */
  readonly keptPerArticle: ReadonlyMap<string, number>;
  /** Article id → every `generation_id` its chunks have (kept or not). */
  readonly generationsPerArticle: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Counts `article` in `counts`, and adds `generationId` (when there is one) to its set in `seen`. */
function tally(counts: Map<string, number> | undefined, seen: Map<string, Set<string>>, article: string, generationId: unknown): void {
  if (counts) counts.set(article, (counts.get(article) ?? 0) + 1);
  const g = str(generationId);
  if (g === undefined) return;
  let set = seen.get(article);
  if (!set) seen.set(article, (set = new Set()));
  set.add(g);
}

/**
 * Maps the source's `source_chunk` rows of exported articles — of each article's generation,
 * in newer schemas — to chunk records (`rank` → `ordinal`). Bad ranks and empty texts are added
 * to `problems`; duplicate ranks go first, as one issue that names them.
 */
function readChunks(
  db: ReadOnlyDatabase,
  dbPath: string,
  schema: SagSchema,
  sourceId: string,
  documentOf: ReadonlyMap<string, string>,
  generations: ActiveGenerations,
  exchange: IdExchange,
  problems: OctxIssue[],
  warnings: string[],
): SagChunks {
  const { cols, generation: p } = schema;
  const chunkRows = db
    .prepare(
      `SELECT id, article_id, content, ${cols.source_chunk.has('raw_content') ? 'raw_content' : 'NULL AS raw_content'}, ${cols.source_chunk.has('heading') ? 'heading' : 'NULL AS heading'}, rank, ${cols.source_chunk.has('extra_data') ? 'extra_data' : 'NULL AS extra_data'}${schema.hasGenerations ? ', generation_id' : ''} FROM source_chunk WHERE ${p} = @source ORDER BY article_id, rank, id`,
    )
    .all({ source: sourceId }) as Row[];
  let unbound = 0;
  let otherChunkArticles = 0;
  let otherGenerations = 0;
  const chunkOf = new Map<string, string>();
  const ranks = new Map<string, Map<number, string>>();
  const duplicateRanks: string[] = [];
  const duplicateArticles = new Set<string>();
  const keptPerArticle = new Map<string, number>();
  const generationsPerArticle = new Map<string, Set<string>>();
  const chunkRecords: Record<string, unknown>[] = [];
  for (const c of chunkRows) {
    const localId = String(c.id);
    const article = str(c.article_id);
    if (article === undefined) {
      unbound++;
      continue;
    }
    const documentId = documentOf.get(article);
    if (documentId === undefined) {
      otherChunkArticles++;
      continue;
    }
    if (!generations.keep(article, c.generation_id)) {
      // A leftover of another generation of the article (re-processed, not yet cleaned up).
      tally(undefined, generationsPerArticle, article, c.generation_id);
      otherGenerations++;
      continue;
    }
    tally(keptPerArticle, generationsPerArticle, article, c.generation_id);
    const rank = typeof c.rank === 'bigint' ? Number(c.rank) : c.rank;
    if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 0) {
      problems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          path: dbPath,
          recordId: localId,
          field: 'source_chunk.rank',
          message: `chunk ${localId} of article ${article} has rank ${JSON.stringify(c.rank)}; the ordinal must be an integer ≥ 0`,
        }),
      );
      continue;
    }
    let perArticle = ranks.get(article);
    if (!perArticle) ranks.set(article, (perArticle = new Map<number, string>()));
    const clash = perArticle.get(rank);
    if (clash !== undefined) {
      duplicateRanks.push(`article ${article} rank ${rank}: chunks ${clash} and ${localId}`);
      duplicateArticles.add(article);
      continue;
    }
    perArticle.set(rank, localId);
    const body = text(c.content) || text(c.raw_content);
    if (body.trim() === '') {
      problems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          path: dbPath,
          recordId: localId,
          field: 'source_chunk.content',
          message: `chunk ${localId} of article ${article} has no text (content and raw_content are empty); re-process the article`,
        }),
      );
      continue;
    }
    const id = exchange('chunk', localId, parseExtra(c.extra_data));
    chunkOf.set(localId, id);
    const heading = text(c.heading).trim();
    chunkRecords.push({ id, document_id: documentId, ordinal: rank, text: body, ...(heading !== '' ? { heading } : {}) });
  }
  if (duplicateRanks.length > 0) {
    // Only an article read without a known generation can mix generations: say how to pick one.
    const mixed = [...duplicateArticles].filter((a) => !generations.active.has(a) && (generationsPerArticle.get(a)?.size ?? 0) > 1);
    const pick =
      mixed.length > 0
        ? ` — article(s) ${mixed.join(', ')} have rows of several generations (${mixed.map((a) => [...generationsPerArticle.get(a)!].sort().join(', ')).join('; ')}) and no active generation in sag_source_manifest; choose one per article with generations (--generation <article-id>=<generation-id>)`
        : '';
    problems.unshift(
      issue({
        code: 'OCTX_ADAPTER_INPUT_INVALID',
        path: dbPath,
        field: 'source_chunk.rank',
        message: `duplicate chunk ranks (OCTX ordinals are unique per document): ${duplicateRanks.slice(0, LIST).join('; ')}${duplicateRanks.length > LIST ? ` … and ${duplicateRanks.length - LIST} more` : ''}${pick}`,
      }),
    );
  }
  if (unbound > 0) warnings.push(`${unbound} chunk(s) of this source belong to no article (e.g. chat sources) and are not exported`);
  return { chunkRecords, chunkOf, unbound, otherArticles: otherChunkArticles, otherGenerations, keptPerArticle, generationsPerArticle };
}

// ── source_event → events ───────────────────────────────────────────────────────────────

/** A kept `source_event` row with its parsed `extra_data`. */
type EventRow = Row & { extra: unknown };

/** What {@link readEvents} made of the source's events. */
interface SagEvents {
  /** The non-deleted events of exported articles, by local id. */
  readonly kept: Map<string, EventRow>;
  /** Local event id → OCTX event id. */
  readonly eventOf: Map<string, string>;
  readonly eventRecords: { level: number; localId: string; record: Record<string, unknown> }[];
  readonly softDeleted: number;
  readonly otherArticles: number;
  readonly otherGenerations: number;
  readonly detachedFromParent: string[];
  /** Article id → events kept. */
  readonly keptPerArticle: ReadonlyMap<string, number>;
  /** Article id → every `generation_id` its events have (kept or not). */
  readonly generationsPerArticle: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Maps the source's non-deleted `source_event` rows of exported articles to event records, with
 * `level` recomputed from the kept parent chain (a parent that is not exported detaches the
 * event). Loops, empty titles and empty contents are added to `problems`; no title is copied
 * into content.
 */
function readEvents(
  db: ReadOnlyDatabase,
  dbPath: string,
  schema: SagSchema,
  sourceId: string,
  documentOf: ReadonlyMap<string, string>,
  generations: ActiveGenerations,
  exchange: IdExchange,
  problems: OctxIssue[],
): SagEvents {
  const { cols, generation: p } = schema;
  const ev = cols.source_event;
  const opt = (c: string) => (ev.has(c) ? c : `NULL AS ${c}`);
  const eventRows = db
    .prepare(
      `SELECT id, article_id, title, ${opt('summary')}, ${opt('content')}, ${opt('category')}, ${opt('status')}, ${opt('parent_id')}, ${opt('start_time')}, ${opt('end_time')}, ${opt('chunk_id')}, ${opt('extra_data')}${schema.hasGenerations ? ', generation_id' : ''} FROM source_event WHERE ${p} = @source ORDER BY id`,
    )
    .all({ source: sourceId }) as Row[];
  let softDeleted = 0;
  let otherEventArticles = 0;
  let otherGenerations = 0;
  const keptPerArticle = new Map<string, number>();
  const generationsPerArticle = new Map<string, Set<string>>();
  const kept = new Map<string, Row & { extra: unknown }>();
  for (const e of eventRows) {
    const article = str(e.article_id);
    if (article === undefined || !documentOf.has(article)) {
      otherEventArticles++;
      continue;
    }
    if (!generations.keep(article, e.generation_id)) {
      tally(undefined, generationsPerArticle, article, e.generation_id);
      otherGenerations++;
      continue;
    }
    // SAG's not_deleted(): status IS NULL OR status != 'DELETED' — exactly, case-sensitive.
    if (str(e.status) === 'DELETED') {
      softDeleted++;
      continue;
    }
    tally(keptPerArticle, generationsPerArticle, article, e.generation_id);
    kept.set(String(e.id), { ...e, extra: parseExtra(e.extra_data) });
  }
  const { level, cycles } = eventLevels(kept);
  if (cycles.length > 0)
    problems.push(
      issue({
        code: 'OCTX_ADAPTER_INPUT_INVALID',
        path: dbPath,
        field: 'source_event.parent_id',
        message: `the parent chain of event(s) ${cycles.slice(0, LIST).join(', ')} loops`,
      }),
    );

  const eventOf = new Map<string, string>();
  for (const [localId, e] of kept) eventOf.set(localId, exchange('event', localId, e.extra));
  const detachedFromParent: string[] = [];
  const eventRecords: { level: number; localId: string; record: Record<string, unknown> }[] = [];
  for (const [localId, e] of kept) {
    const extraOctx = (e.extra as { octx?: { original_title?: unknown } } | undefined)?.octx;
    const originalTitle = typeof extraOctx?.original_title === 'string' && extraOctx.original_title.trim() !== '' ? extraOctx.original_title : undefined;
    const title = originalTitle ?? text(e.title);
    const content = text(e.content).trim() || text(e.summary).trim();
    if (title.trim() === '')
      problems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          path: dbPath,
          recordId: localId,
          field: 'source_event.title',
          message: `event ${localId} has an empty title; re-extract its article`,
        }),
      );
    if (content === '') {
      problems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          path: dbPath,
          recordId: localId,
          field: 'source_event.content',
          message: `event ${localId} has neither content nor summary (SAG's exporter would copy the title into content; octx-export does not invent text); re-extract its article`,
        }),
      );
    }
    const id = eventOf.get(localId)!;
    const parentLocal = str(e.parent_id);
    const l = level.get(localId)!;
    if (parentLocal !== undefined && !kept.has(parentLocal)) detachedFromParent.push(id);
    const summary = text(e.summary).trim();
    const category = text(e.category).trim();
    const start = sagTime(e.start_time);
    const end = sagTime(e.end_time);
    eventRecords.push({
      level: l,
      localId,
      record: {
        id,
        title,
        content,
        ...(summary !== '' ? { summary } : {}),
        ...(category !== '' ? { category } : {}),
        ...(l > 0 ? { parent_id: eventOf.get(parentLocal!)!, level: l } : {}),
        ...(start !== undefined ? { start_time: start } : {}),
        ...(end !== undefined ? { end_time: end } : {}),
      },
    });
  }
  return { kept, eventOf, eventRecords, softDeleted, otherArticles: otherEventArticles, otherGenerations, detachedFromParent, keptPerArticle, generationsPerArticle };
}

/**
 * Levels from the kept parent chain: 0 for an event whose parent is absent or not kept, else
 * the parent's level + 1. An event on a loop gets 0 and is listed in `cycles`.
 */
function eventLevels(kept: ReadonlyMap<string, EventRow>): { level: Map<string, number>; cycles: string[] } {
  const level = new Map<string, number>();
  const cycles: string[] = [];
  const levelOf = (id: string, seen: Set<string>): number => {
    const known = level.get(id);
    if (known !== undefined) return known;
    const parent = str(kept.get(id)!.parent_id);
    if (parent === undefined || !kept.has(parent)) {
      level.set(id, 0);
      return 0;
    }
    if (seen.has(parent)) {
      cycles.push(id);
      level.set(id, 0);
      return 0;
    }
    seen.add(id);
    const l = levelOf(parent, seen) + 1;
    level.set(id, l);
    return l;
  };
  for (const id of kept.keys()) levelOf(id, new Set([id]));
  return { level, cycles };
}

// ── event_entity + entity ───────────────────────────────────────────────────────────────

/** What {@link readEntities} made of the event-entity rows. */
interface SagEntities {
  readonly entityRecords: Record<string, unknown>[];
  readonly linkRecords: Record<string, unknown>[];
}

/**
 * Maps the `event_entity` rows of kept events (joined with `entity`) to entities and weighted
 * event-entity links, one link per pair. Entities that are missing or of another source, empty
 * names or types and non-finite weights are added to `problems`.
 */
function readEntities(
  db: ReadOnlyDatabase,
  dbPath: string,
  schema: SagSchema,
  sourceId: string,
  eventOf: ReadonlyMap<string, string>,
  exchange: IdExchange,
  problems: OctxIssue[],
): SagEntities {
  const { cols, generation: p } = schema;
  const en = cols.entity;
  const ee = cols.event_entity;
  const linkRows = db
    .prepare(
      `SELECT ee.event_id AS event_id, ee.entity_id AS entity_id, ${ee.has('weight') ? 'ee.weight' : 'NULL'} AS weight, ${ee.has('description') ? 'ee.description' : 'NULL'} AS rel_description,
              en.id AS en_id, en.type AS en_type, en.name AS en_name, ${en.has('description') ? 'en.description' : 'NULL'} AS en_description, ${en.has('extra_data') ? 'en.extra_data' : 'NULL'} AS en_extra, en.${p} AS en_source
         FROM event_entity ee JOIN source_event e ON e.id = ee.event_id LEFT JOIN entity en ON en.id = ee.entity_id
        WHERE e.${p} = @source ORDER BY ee.event_id, ee.entity_id`,
    )
    .all({ source: sourceId }) as Row[];
  const entityOf = new Map<string, string>();
  const entityRecords: Record<string, unknown>[] = [];
  const linkRecords: Record<string, unknown>[] = [];
  const brokenEntities: string[] = [];
  const pairs = new Set<string>();
  for (const r of linkRows) {
    const eventLocal = String(r.event_id);
    const eventId = eventOf.get(eventLocal);
    if (eventId === undefined) continue;
    const entityLocal = String(r.entity_id);
    if (r.en_id === null || r.en_id === undefined || String(r.en_source) !== sourceId) {
      brokenEntities.push(entityLocal);
      continue;
    }
    let entityId = entityOf.get(entityLocal);
    if (entityId === undefined) {
      const name = text(r.en_name).trim();
      const type = text(r.en_type).trim();
      if (name === '' || type === '') {
        problems.push(
          issue({
            code: 'OCTX_ADAPTER_INPUT_INVALID',
            path: dbPath,
            recordId: entityLocal,
            field: name === '' ? 'entity.name' : 'entity.type',
            message: `entity ${entityLocal} has an empty ${name === '' ? 'name' : 'type'}`,
          }),
        );
        continue;
      }
      entityId = exchange('entity', entityLocal, parseExtra(r.en_extra));
      entityOf.set(entityLocal, entityId);
      const description = text(r.en_description).trim();
      entityRecords.push({ id: entityId, name: text(r.en_name), type: text(r.en_type), ...(description !== '' ? { description } : {}) });
    }
    const key = `${eventId} ${entityId}`;
    if (pairs.has(key)) continue;
    pairs.add(key);
    let weight: number | undefined;
    if (r.weight !== null && r.weight !== undefined) {
      weight = Number(r.weight);
      if (!Number.isFinite(weight)) {
        problems.push(
          issue({
            code: 'OCTX_ADAPTER_INPUT_INVALID',
            path: dbPath,
            field: 'event_entity.weight',
            message: `event ${eventLocal} → entity ${entityLocal} has weight ${JSON.stringify(r.weight)}, not a finite number`,
          }),
        );
        continue;
      }
    }
    const description = text(r.rel_description).trim();
    linkRecords.push({ event_id: eventId, entity_id: entityId, ...(weight !== undefined ? { weight } : {}), ...(description !== '' ? { description } : {}) });
  }
  if (brokenEntities.length > 0) {
    const distinct = [...new Set(brokenEntities)];
    problems.push(
      issue({
        code: 'OCTX_ADAPTER_INPUT_INVALID',
        path: dbPath,
        field: 'event_entity.entity_id',
        message: `event-entity rows point at entities that are missing or belong to another source: ${distinct.slice(0, LIST).join(', ')}${distinct.length > LIST ? ` … and ${distinct.length - LIST} more` : ''}`,
      }),
    );
  }
  return { entityRecords, linkRecords };
}

// ── into the builder (documents → chunks → entities → events → relations) ──────────────

/** What {@link addRecords} linked. */
interface SagLinks {
  /** OCTX ids of events without an exported chunk. */
  readonly withoutChunk: string[];
  readonly chunksWithEvents: Set<string>;
  readonly chunkEvents: number;
}

/**
 * Adds the records to the builder (the documents are already in): chunks, entities, events by
 * level then local id (parents first), chunk-event links (the event's `chunk_id` plus chunks
 * preserved in `extra_data.octx.chunk_ids`), then event-entity links.
 */
function addRecords(builder: PackageBuilder, chunks: SagChunks, events: SagEvents, entities: SagEntities): SagLinks {
  const { chunkRecords, chunkOf } = chunks;
  const { kept, eventOf, eventRecords } = events;
  const { entityRecords, linkRecords } = entities;
  for (const c of chunkRecords) builder.addChunk(c as never);
  for (const e of entityRecords) builder.addEntity(e as never);
  eventRecords.sort((a, b) => a.level - b.level || (a.localId < b.localId ? -1 : a.localId > b.localId ? 1 : 0));
  for (const e of eventRecords) builder.addEvent(e.record as never);
  const withoutChunk: string[] = [];
  const chunksWithEvents = new Set<string>();
  let chunkEvents = 0;
  const exportedChunks = new Set(chunkOf.values());
  for (const [localId, e] of kept) {
    const eventId = eventOf.get(localId)!;
    const linked = new Set<string>();
    const primary = str(e.chunk_id);
    const chunkId = primary !== undefined ? chunkOf.get(primary) : undefined;
    if (chunkId !== undefined) linked.add(chunkId);
    // Chunks preserved from an earlier OCTX import (SAG keeps them in extra_data.octx.chunk_ids).
    const more = (e.extra as { octx?: { chunk_ids?: unknown } } | undefined)?.octx?.chunk_ids;
    if (Array.isArray(more)) for (const c of more) if (typeof c === 'string' && exportedChunks.has(c)) linked.add(c);
    if (linked.size === 0) withoutChunk.push(eventId);
    for (const c of [...linked].sort()) {
      builder.linkChunkEvent({ chunk_id: c, event_id: eventId });
      chunksWithEvents.add(c);
      chunkEvents++;
    }
  }
  for (const l of linkRecords) builder.linkEventEntity(l as never);
  return { withoutChunk, chunksWithEvents, chunkEvents };
}

// ── what the coverage gate will say ─────────────────────────────────────────────────────

/** Whether the export's coverage gate will find a complete structure, and what is missing if not. */
function expectedStructure(articles: number, chunks: SagChunks, events: SagEvents, entities: SagEntities, links: SagLinks): SagAdapterReport['structure'] {
  const { chunkRecords } = chunks;
  const { kept } = events;
  const { linkRecords } = entities;
  const { withoutChunk, chunksWithEvents } = links;
  const docsWithChunks = new Set(chunkRecords.map((c) => c.document_id as string));
  const eventsWithEntities = new Set(linkRecords.map((l) => l.event_id as string));
  const gaps = [
    articles - docsWithChunks.size > 0 ? `${articles - docsWithChunks.size} document(s) without chunks` : '',
    chunkRecords.length - chunksWithEvents.size > 0 ? `${chunkRecords.length - chunksWithEvents.size} chunk(s) without events` : '',
    withoutChunk.length > 0 ? `${withoutChunk.length} event(s) without a chunk` : '',
    kept.size - eventsWithEntities.size > 0 ? `${kept.size - eventsWithEntities.size} event(s) without entities` : '',
  ].filter(Boolean);
  const structure: SagAdapterReport['structure'] =
    gaps.length === 0
      ? { expected: 'complete', reason: 'every document has chunks, every chunk an event, every event a chunk and an entity' }
      : { expected: 'documents-only', reason: `coverage is incomplete: ${gaps.join(', ')}; re-extract those articles (no filler records are invented)` };
  return structure;
}
