/**
 * GraphRAG documents → OKF documents, and text units → chunks. A document's `text` is its body,
 * byte for byte; its `title` becomes the frontmatter `title` and its file name; `creation_date`
 * and plain-data `metadata` go under `x-graphrag`. Text units become chunks of their document,
 * numbered in the text-units table's order. Ids come from the ledger keyed by what the records
 * are (the document's path; the text unit's document and text), so a re-index keeps them.
 */
import { basename } from 'node:path';
import { createHash } from 'node:crypto';
import type { JsonValue } from '../../model/json.js';
import { claimDocumentPath, safeFileStem, withoutFileExtension } from '../shared/document-paths.js';
import { scrubSecrets } from '../shared/secrets.js';
import { addGraphRagDocument, forEachRow, IntColumn, digestOf, KeyOccurrences, rowProblem, text, textList, UuidColumn, type MapContext } from './map-context.js';
import { presentColumns, TABLE_COLUMNS, textUnitDocumentColumn } from './layout.js';
import type { ParquetTable } from './parquet/parquet-table.js';
import type { IdRegistry } from './id-registry.js';

/** One exported document. */
export interface DocumentEntry {
  readonly documentId: string;
  readonly path: string;
  readonly title: string;
  /** Chunks given to it so far (the next chunk's ordinal). */
  chunks: number;
}

/** The documents by GraphRAG id, in table order. */
export type Documents = Map<string, DocumentEntry>;

/** The text units, by dense index (their row order). */
export interface TextUnits {
  /** GraphRAG id → dense index. */
  readonly index: Map<string, number>;
  /** Dense index → GraphRAG id. */
  readonly ids: string[];
  /** Dense index → OCTX chunk id. */
  readonly chunkIds: UuidColumn;
  /** Dense index → its document (index in the documents' order) and ordinal. */
  readonly documentOf: IntColumn;
  readonly ordinal: IntColumn;
}

/** Plain JSON data, or `undefined` (a value that is not: a function, a cycle, a non-finite number…). */
function plainData(v: unknown): JsonValue | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') {
    const t = v.trim();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        return JSON.parse(t) as JsonValue;
      } catch {
        return v;
      }
    }
    return v;
  }
  try {
    const round = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x instanceof Date ? x.toISOString() : x));
    return round === undefined ? undefined : (JSON.parse(round) as JsonValue);
  } catch {
    return undefined;
  }
}

/**
 * Adds every document of the table to the builder, at `documents/<title without extension>.md`.
 * @param documentType frontmatter `type` where the text has none
 */
export async function mapDocuments(ctx: MapContext, table: ParquetTable, ids: IdRegistry, documentType: string): Promise<{ documents: Documents; order: DocumentEntry[] }> {
  const columns = presentColumns(table, TABLE_COLUMNS.documents);
  const metadataInfo = table.columns.get('metadata');
  if (metadataInfo !== undefined && metadataInfo.kind !== 'null') columns.push('metadata');
  const documents: Documents = new Map();
  const order: DocumentEntry[] = [];
  const used = new Set<string>();
  const scrubbed: string[] = [];
  // Known before the first row, so an id twice in this table is caught as well as one in another.
  ids.own('documents', documents, table.path);
  await forEachRow(ctx, table, columns, 'documents', (row) => {
    const id = text(row, 'id');
    const body = text(row, 'text');
    if (id === undefined || id === '') return void ctx.problems.push(rowProblem(table, row, 'id', 'a document without an id'));
    if (!ids.claim('documents', id, table, row)) return;
    if (body === undefined) return void ctx.problems.push(rowProblem(table, row, 'text', 'a document without text'));
    const title = text(row, 'title') ?? '';
    const stem = safeFileStem(withoutFileExtension(title)) || 'document';
    const path = claimDocumentPath(`documents/${stem}.md`, createHash('sha256').update(body).digest('hex'), used);
    const xgraphrag: Record<string, JsonValue> = { title };
    const created = text(row, 'creation_date');
    if (created !== undefined && created !== '') xgraphrag.creation_date = created;
    const metadata = plainData(row.get('metadata'));
    if (metadata !== undefined) xgraphrag.metadata = scrubSecrets(metadata, 'metadata', scrubbed) as JsonValue;
    const documentId = addGraphRagDocument(ctx, documentType, {
      path,
      body,
      title,
      xgraphrag,
      origin: `the GraphRAG document text (${basename(table.path)} row ${row.index})`,
      table,
      row,
    });
    const entry: DocumentEntry = { documentId, path, title, chunks: 0 };
    documents.set(id, entry);
    order.push(entry);
  });
  if (scrubbed.length > 0) ctx.warnings.push(`secret-looking metadata keys were left out of the documents' frontmatter: ${[...new Set(scrubbed)].join(', ')}`);
  return { documents, order };
}

/**
 * Adds every text unit as a chunk of its document (the first of `document_ids` in v1/v2).
 */
export async function mapTextUnits(ctx: MapContext, table: ParquetTable, ids: IdRegistry, documents: Documents, order: readonly DocumentEntry[]): Promise<TextUnits> {
  const documentColumn = textUnitDocumentColumn(table);
  const columns = [...presentColumns(table, TABLE_COLUMNS.text_units), documentColumn];
  const units: TextUnits = { index: new Map(), ids: [], chunkIds: new UuidColumn(), documentOf: new IntColumn(), ordinal: new IntColumn() };
  const documentIndex = new Map(order.map((d, i) => [d, i]));
  const occurrences = new KeyOccurrences();
  let several = 0;
  ids.own('text_units', units.index, table.path);
  await forEachRow(ctx, table, columns, 'text units', (row) => {
    const id = text(row, 'id');
    const body = text(row, 'text');
    if (id === undefined || id === '') return void ctx.problems.push(rowProblem(table, row, 'id', 'a text unit without an id'));
    if (!ids.claim('text_units', id, table, row)) return;
    const refs = documentColumn === 'document_id' ? [text(row, 'document_id')].filter((x): x is string => x !== undefined) : textList(row, 'document_ids');
    if (refs.length > 1) several++;
    const document = refs.length > 0 ? documents.get(refs[0]!) : undefined;
    if (document === undefined)
      return void ctx.problems.push(
        rowProblem(
          table,
          row,
          documentColumn,
          refs.length === 0 ? 'the text unit names no document' : `the text unit names document ${refs[0]}, which is not in the documents table`,
        ),
      );
    if (body === undefined || body.trim() === '') return void ctx.problems.push(rowProblem(table, row, 'text', 'the text unit has no text (an empty text is not a chunk)'));
    const key = occurrences.next(`graphrag:text-unit:${document.path}:${digestOf([body])}`);
    const chunkId = ctx.builder.ids.chunk(key);
    const ordinal = document.chunks++;
    ctx.builder.addChunk({ id: chunkId, document_id: document.documentId, ordinal, text: body });
    units.index.set(id, units.ids.length);
    units.ids.push(id);
    units.chunkIds.push(chunkId);
    units.documentOf.push(documentIndex.get(document)!);
    units.ordinal.push(ordinal);
  });
  if (several > 0) ctx.warnings.push(`${several} text unit(s) name more than one document; each became a chunk of the first one it names`);
  return units;
}
