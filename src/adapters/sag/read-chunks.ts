/** `source_chunk` → chunks (`rank` → `ordinal`), of exported articles at their generation. */
import { issue } from '../../model/errors.js';
import { ArticleRowSieve, LIST, parseExtra, selectSourceRows, text, type RowTally } from './sag-rows.js';
import type { SagSourceScope } from './source-scope.js';

/** What {@link readChunks} made of the source's chunks. */
export interface SagChunks extends RowTally {
  readonly chunkRecords: Record<string, unknown>[];
  /** Local chunk id → OCTX chunk id. */
  readonly chunkOf: Map<string, string>;
  readonly unbound: number;
  readonly otherArticles: number;
  readonly otherGenerations: number;
}

/**
 * Maps the source's `source_chunk` rows of exported articles — of each article's generation,
 * in newer schemas — to chunk records (`rank` → `ordinal`). Bad ranks and empty texts are added
 * to `problems`; duplicate ranks go first, as one issue that names them.
 */
export function readChunks(scope: SagSourceScope, warnings: string[]): SagChunks {
  const { db, dbPath, schema, sourceId, documentOf, generations, exchange, problems } = scope;
  const chunkRows = selectSourceRows(
    db,
    schema,
    'source_chunk',
    { required: ['id', 'article_id', 'content', 'rank'], optional: ['raw_content', 'heading', 'extra_data'] },
    'article_id, rank, id',
    sourceId,
  );
  const sieve = new ArticleRowSieve(documentOf, generations);
  const chunkOf = new Map<string, string>();
  const ranks = new Map<string, Map<number, string>>();
  const duplicateRanks: string[] = [];
  const duplicateArticles = new Set<string>();
  const chunkRecords: Record<string, unknown>[] = [];
  for (const c of chunkRows) {
    const localId = String(c.id);
    const article = sieve.article(c, true);
    if (article === undefined) continue;
    const documentId = documentOf.get(article)!;
    sieve.kept(article, c);
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
    const mixed = [...duplicateArticles].filter((a) => !generations.active.has(a) && (sieve.generationsPerArticle.get(a)?.size ?? 0) > 1);
    const pick =
      mixed.length > 0
        ? ` — article(s) ${mixed.join(', ')} have rows of several generations (${mixed.map((a) => [...sieve.generationsPerArticle.get(a)!].sort().join(', ')).join('; ')}) and no active generation in sag_source_manifest; choose one per article with generations (--generation <article-id>=<generation-id>)`
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
  const { unbound, otherArticles, otherGenerations, keptPerArticle, generationsPerArticle } = sieve;
  if (unbound > 0) warnings.push(`${unbound} chunk(s) of this source belong to no article (e.g. chat sources) and are not exported`);
  return { chunkRecords, chunkOf, unbound, otherArticles, otherGenerations, keptPerArticle, generationsPerArticle };
}
