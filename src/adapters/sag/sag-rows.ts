/**
 * What every reader of a SAG engine table shares: the row type, the small value readers (a
 * column's text, its JSON `extra_data`), the one query shape (a source's rows, with the columns
 * older schemas lack read as NULL) and {@link ArticleRowSieve}, which keeps the rows of exported
 * articles at their generation and counts the others.
 */
import type { ReadOnlyDatabase } from './sqlite.js';
import type { SagSchema } from './sag-schema.js';

/** A row as the SQLite driver returns it. */
export type Row = Record<string, unknown>;

/** How many ids a message lists before "… and N more". */
export const LIST = 20;

/** A JSON `extra_data` column, parsed (undefined when it is not JSON). */
export function parseExtra(value: unknown): unknown {
  if (typeof value !== 'string' || value === '') return value ?? undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/** A column as an id string (numbers and bigints as their digits). */
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : undefined);

/** A text column ('' when NULL or not text). */
export const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The rows of `table` of one source: `columns` (those the table lacks are read as NULL, except
 * `required` ones), plus `generation_id` when the schema has generations.
 */
export function selectSourceRows(
  db: ReadOnlyDatabase,
  schema: SagSchema,
  table: 'source_chunk' | 'source_event',
  columns: { readonly required: readonly string[]; readonly optional: readonly string[] },
  orderBy: string,
  sourceId: string,
): Row[] {
  const has = schema.cols[table];
  const list = [...columns.required, ...columns.optional.map((c) => (has.has(c) ? c : `NULL AS ${c}`)), ...(schema.hasGenerations ? ['generation_id'] : [])];
  return db.prepare(`SELECT ${list.join(', ')} FROM ${table} WHERE ${schema.generation} = @source ORDER BY ${orderBy}`).all({ source: sourceId });
}

/** Which generation of an article is read (generations.ts). */
export interface GenerationFilter {
  /** Whether a row of `article` with `generationId` belongs to the export. */
  keep(article: string, generationId: unknown): boolean;
}

/** Per article: the rows kept and every generation seen. */
export interface RowTally {
  /** Article id → rows kept. */
  readonly keptPerArticle: ReadonlyMap<string, number>;
  /** Article id → every `generation_id` its rows have (kept or not). */
  readonly generationsPerArticle: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Sorts a table's rows: those of an exported article at its generation go on; the others are
 * counted (no article, another article, another generation). Also counts, per article, the rows
 * kept and every generation seen (to explain an override that matched nothing).
 */
export class ArticleRowSieve implements RowTally {
  /** Rows without an article. */
  unbound = 0;
  /** Rows of articles that are not exported. */
  otherArticles = 0;
  /** Leftover rows of an article's other generations. */
  otherGenerations = 0;
  /** Article id → rows kept. */
  readonly keptPerArticle = new Map<string, number>();
  /** Article id → every `generation_id` its rows have (kept or not). */
  readonly generationsPerArticle = new Map<string, Set<string>>();

  constructor(
    private readonly documentOf: ReadonlyMap<string, string>,
    private readonly generations: GenerationFilter,
  ) {}

  /**
   * The article of a row that belongs to the export, else undefined (and the row is counted).
   * `unboundApart`: a row without an article counts as `unbound`, not as another article's.
   */
  article(row: Row, unboundApart: boolean): string | undefined {
    const article = str(row.article_id);
    if (article === undefined && unboundApart) {
      this.unbound++;
      return undefined;
    }
    if (article === undefined || !this.documentOf.has(article)) {
      this.otherArticles++;
      return undefined;
    }
    if (!this.generations.keep(article, row.generation_id)) {
      // A leftover of another generation of the article (re-processed, not yet cleaned up).
      this.#seen(article, row.generation_id);
      this.otherGenerations++;
      return undefined;
    }
    return article;
  }

  /** Counts a row of `article` as kept. */
  kept(article: string, row: Row): void {
    this.keptPerArticle.set(article, (this.keptPerArticle.get(article) ?? 0) + 1);
    this.#seen(article, row.generation_id);
  }

  #seen(article: string, generationId: unknown): void {
    const g = str(generationId);
    if (g === undefined) return;
    let set = this.generationsPerArticle.get(article);
    if (!set) this.generationsPerArticle.set(article, (set = new Set()));
    set.add(g);
  }
}
