/**
 * GraphRAG community reports as documents (`communityReports: 'as-documents'`): each report's
 * `full_content` (Markdown) becomes a document under `community-reports/`, titled by the report,
 * with its community, level, rank and the rest of its plain fields under `x-graphrag`. Reports
 * have no text units, so these documents have no chunks: a package holding them is
 * documents-only (seed 001 §6, rule 1).
 */
import { createHash } from 'node:crypto';
import type { JsonValue } from '../../model/json.js';
import { claimDocumentPath, safeFileStem } from '../shared/document-paths.js';
import { addGraphRagDocument, forEachRow, rowLabel, rowProblem, text, type MapContext } from './map-context.js';
import { presentColumns, TABLE_COLUMNS } from './layout.js';
import type { IdRegistry } from './id-registry.js';
import type { ParquetTable } from './parquet/parquet-table.js';

/** Adds one document per community report; returns how many. */
export async function mapCommunityReports(ctx: MapContext, table: ParquetTable, ids: IdRegistry, documentType: string): Promise<number> {
  const used = new Set<string>();
  let count = 0;
  await forEachRow(ctx, table, presentColumns(table, TABLE_COLUMNS.community_reports), 'community reports', (row) => {
    const id = text(row, 'id');
    if (id !== undefined && !ids.claim('community_reports', id, table, row)) return;
    const body = text(row, 'full_content');
    if (body === undefined || body.trim() === '') return void ctx.problems.push(rowProblem(table, row, 'full_content', 'a community report without content'));
    const title = (text(row, 'title') ?? '').trim();
    const community = row.get('community');
    const level = row.get('level');
    const stem = safeFileStem(title) || `community-${typeof community === 'number' || typeof community === 'string' ? community : row.index}`;
    const folder = typeof level === 'number' ? `community-reports/level-${level}` : 'community-reports';
    const path = claimDocumentPath(`${folder}/${stem}.md`, createHash('sha256').update(body).digest('hex'), used);
    const meta: Record<string, JsonValue> = { kind: 'community-report' };
    for (const key of ['community', 'level', 'rank', 'size'] as const) {
      const v = row.get(key);
      if (typeof v === 'number' && Number.isFinite(v)) meta[key] = v;
    }
    for (const key of ['summary', 'rating_explanation', 'rank_explanation', 'period'] as const) {
      const v = text(row, key);
      if (v !== undefined && v.trim() !== '') meta[key] = v;
    }
    addGraphRagDocument(ctx, documentType, { path, body, title, xgraphrag: meta, origin: `the GraphRAG community report (${rowLabel(table, row)})`, table, row });
    count++;
  });
  return count;
}
