/**
 * GraphRAG ids must name one row: tables reference each other by id (text units name their
 * document, entities and relationships their text units), so an id used twice — in one table or
 * in two — makes those references ambiguous. The registry checks each id against the tables
 * whose ids are referenced (documents, text units, entities; see {@link CONFLICTS}), using the
 * lookups the mapping keeps anyway, so no second copy of a million ids is held.
 */
import { basename } from 'node:path';
import { OctxError, issue, type OctxIssue } from '../../model/errors.js';
import type { GraphRagTable } from './layout.js';
import { rowLabel, type Row } from './map-context.js';
import type { ParquetTable } from './parquet/parquet-table.js';

/** The tables whose ids other tables reference. */
type OwnerTable = 'documents' | 'text_units' | 'entities';

/**
 * The owners an id of each table must not repeat. A document and a text unit may share an id:
 * GraphRAG hashes the text for both, so a document that is one text unit has its text unit's id,
 * and no column can name either one (text units name documents only in `document_id(s)`).
 */
const CONFLICTS: Readonly<Record<GraphRagTable, readonly OwnerTable[]>> = {
  documents: ['documents', 'entities'],
  text_units: ['text_units', 'entities'],
  entities: ['entities', 'text_units', 'documents'],
  relationships: ['entities', 'text_units', 'documents'],
  covariates: ['entities', 'text_units', 'documents'],
  communities: [],
  community_reports: ['entities', 'text_units'],
};

export class IdRegistry {
  readonly #owners = new Map<OwnerTable, { readonly ids: ReadonlyMap<string, unknown>; readonly file: string }>();
  readonly #reused: OctxIssue[] = [];

  /** Makes the ids of `table` (the keys of `ids`, filled by the caller as rows are kept) known to the next claims. */
  own(table: OwnerTable, ids: ReadonlyMap<string, unknown>, file: string): void {
    this.#owners.set(table, { ids, file: basename(file) });
  }

  /**
   * Checks that `id` names no other row yet. A reused id is recorded (thrown by {@link IdRegistry.throwIfReused}).
   * @returns false when the id is already taken (the row must then be skipped)
   */
  claim(table: GraphRagTable, id: string, file: ParquetTable, row: Row): boolean {
    for (const owner of CONFLICTS[table]) {
      const known = this.#owners.get(owner);
      if (known === undefined || !known.ids.has(id)) continue;
      const ownerFile = known.file;
      this.#reused.push(
        issue({
          code: 'OCTX_GRAPHRAG_ID_REUSED',
          path: file.path,
          line: row.index + 1,
          recordId: id,
          field: 'id',
          message: `${rowLabel(file, row)}: id ${id} already names a row of ${owner === table ? 'the same table' : ownerFile}; GraphRAG's tables refer to each other by id, so each id must name one row`,
        }),
      );
      return false;
    }
    return true;
  }

  /** @throws OctxError `OCTX_GRAPHRAG_ID_REUSED`, every reuse listed */
  throwIfReused(): void {
    if (this.#reused.length > 0) throw OctxError.aggregate('OCTX_GRAPHRAG_ID_REUSED', 'GraphRAG ids name more than one row:', this.#reused);
  }
}
