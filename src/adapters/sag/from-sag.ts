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
import { z } from 'zod';
import type { PackageBuilder } from '../../builder/package-builder.js';
import { OctxError, type OctxIssue } from '../../model/errors.js';
import { adapterWarnings } from '../shared/adapter-report.js';
import { ADAPTER_OPTION_SHAPES, checkAdapterOptions } from '../shared/adapter-options.js';
import { throwInputProblems } from '../shared/input-issues.js';
import { addRecords, expectedStructure } from './add-records.js';
import { activeGenerations, overridesWithoutRows } from './generations.js';
import { idExchange } from './id-exchange.js';
import { readArticles } from './read-articles.js';
import { readChunks } from './read-chunks.js';
import { readEntities } from './read-entities.js';
import { readEvents } from './read-events.js';
import { readSchema, readSourceName } from './sag-schema.js';
import { loadSqliteDriver, type ReadOnlyDatabase, type SqliteModuleLoaders } from './sqlite.js';

export { sagDocumentBody, sagSlug } from './read-articles.js';
export { sagTime } from './read-events.js';
export type { FromSagOptions, SagAdapterReport, SagIdMode } from './sag-types.js';
import type { FromSagOptions, SagAdapterReport, SagIdMode } from './sag-types.js';

const optionsSchema = z.object({
  sourceId: z.string({ error: 'is required (the source_config.id / data_source_id)' }).min(1, { error: 'must not be empty' }),
  idMode: z.enum(['ledger', 'sag-compatible']).optional(),
  articleIds: z.array(z.string().min(1)).optional(),
  includeStatuses: z.array(z.string().trim().min(1, { error: 'must not contain an empty status' })).optional(),
  generations: z.record(z.string().min(1), z.string().min(1, { error: 'must not map an article to an empty generation id' })).optional(),
  documentsOnly: ADAPTER_OPTION_SHAPES.documentsOnly,
  documentType: ADAPTER_OPTION_SHAPES.documentType,
});

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
  checkAdapterOptions(options, optionsSchema, 'fromSagDatabase options');
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
      ...adapterWarnings(builder, 'fromSag', warnings),
    };
  }

  const problems: OctxIssue[] = [];
  const scope = { db, dbPath, schema, sourceId: options.sourceId, documentOf, generations, exchange, problems };
  const chunks = readChunks(scope, warnings);
  const events = readEvents(scope);
  overridesWithoutRows(dbPath, generations, chunks, events, problems);
  const entities = readEntities(db, dbPath, schema, options.sourceId, events.eventOf, exchange, problems);
  throwInputProblems(`the SAG database ${dbPath} cannot be exported as it is:`, problems);

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
    ...adapterWarnings(builder, 'fromSag', warnings),
  };
}
