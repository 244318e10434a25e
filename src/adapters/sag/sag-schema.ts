/** The engine database's schema: which tables and columns it has, and its generation. */
import { OctxError } from '../../model/errors.js';
import { notEngineDatabase } from './engine-db.js';
import type { ReadOnlyDatabase } from './sqlite.js';

/** The tables every engine database has. */
export const REQUIRED_TABLES = ['article', 'source_chunk', 'source_event', 'entity', 'event_entity'] as const;

/** One of the required tables. */
export type SagTable = (typeof REQUIRED_TABLES)[number];

/** What {@link readSchema} found: the tables, their columns and the schema generation. */
export interface SagSchema {
  readonly tables: ReadonlySet<string>;
  readonly cols: Readonly<Record<SagTable, ReadonlySet<string>>>;
  /** The column naming the source (`p` in the queries). */
  readonly generation: 'source_config_id' | 'data_source_id';
  /** Whether `source_chunk` and `source_event` carry `generation_id` (zleap-sag ≥ 0.8.2). */
  readonly hasGenerations: boolean;
}

/** The column names of `table`. */
export function columnsOf(db: ReadOnlyDatabase, table: string): Set<string> {
  return new Set((db.prepare(`PRAGMA table_info("${table}")`).all() as Record<string, unknown>[]).map((r) => String(r.name)));
}

/**
 * Checks that the database is a zleap-sag engine database and finds its schema generation
 * (`source_config_id` or `data_source_id`, the same in every table) and whether it has
 * generations.
 * @throws OctxError `OCTX_SAG_NOT_ENGINE_DB` (engine tables missing: e.g. SAG's application
 *   database), `OCTX_ADAPTER_INPUT_INVALID` (unknown or mixed schema generations)
 */
export function readSchema(db: ReadOnlyDatabase, dbPath: string): SagSchema {
  const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Record<string, unknown>[]).map((r) => String(r.name)));
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
export function readSourceName(db: ReadOnlyDatabase, schema: SagSchema, sourceId: string): string | undefined {
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
