/** `article` → documents: the selection by status and `articleIds`, and SAG's document body and slug. */
import type { PackageBuilder } from '../../builder/package-builder.js';
import { pythonLstrip } from '../../consumers/python/strip.js';
import { OctxError } from '../../model/errors.js';
import { addAdapterDocument } from '../shared/add-document.js';
import type { FromSagOptions, SagAdapterReport } from './sag-types.js';
import type { IdExchange } from './id-exchange.js';
import { LIST, parseExtra, str, text, type Row } from './sag-rows.js';
import type { SagSchema } from './sag-schema.js';
import type { ReadOnlyDatabase } from './sqlite.js';

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

/** The status SAG gives an article whose processing finished. */
const COMPLETED = 'COMPLETED';
/** Every article status SAG writes (it deletes articles outright: there is no DELETED). */
const SAG_ARTICLE_STATUSES: readonly string[] = ['PENDING', 'PROCESSING', COMPLETED, 'FAILED'];

/**
 * An article's Markdown body as SAG's exporter writes it: when `content.lstrip()` starts with
 * `#` (a heading, but also `#tag`), the stripped content as it is; otherwise `# title`, a blank
 * line and the content. A trailing newline is ensured.
 */
export function sagDocumentBody(title: string, content: string): string {
  const stripped = pythonLstrip(content);
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
export function readArticles(
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
    const additions = { type: options.documentType ?? 'Document', title, documentId };
    documentOf.set(localId, addAdapterDocument(builder, { path, markdown: sagDocumentBody(title, text(a.content)), additions, origin: 'the article' }, warnings).documentId);
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
