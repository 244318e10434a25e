/** Newer schemas (zleap-sag ≥ 0.8.2): the generation of each exported article whose rows are read. */
import { OctxError, issue, type OctxIssue } from '../../model/errors.js';
import type { FromSagOptions, SagAdapterReport } from './sag-types.js';
import { LIST, str, type GenerationFilter, type Row, type RowTally } from './sag-rows.js';
import { columnsOf, type SagSchema } from './sag-schema.js';
import type { ReadOnlyDatabase } from './sqlite.js';

/** The generation read for each exported article. */
export interface ActiveGenerations extends GenerationFilter {
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
export function activeGenerations(
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
export function overridesWithoutRows(dbPath: string, generations: ActiveGenerations, chunks: RowTally, events: RowTally, problems: OctxIssue[]): void {
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
