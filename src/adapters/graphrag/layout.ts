/**
 * The GraphRAG output layouts and how one is recognised: from the file names (v1 prefixes every
 * table with `create_final_`) and then the columns (v3's text units name one `document_id`; v2's
 * name a `document_ids` list and its entities carry `x`/`y`). Each table's columns are checked
 * against the kinds the mapping reads before any row is read: a missing table or column, or a
 * column of another type, is a typed error naming the file and the column.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { OctxError, issue, type OctxIssue } from '../../model/errors.js';
import type { ColumnKind } from './parquet/column-kinds.js';
import type { ParquetTable } from './parquet/parquet-table.js';

/** The tables the adapter reads. */
export type GraphRagTable = 'documents' | 'text_units' | 'entities' | 'relationships' | 'covariates' | 'communities' | 'community_reports';

/** The layouts: GraphRAG 1.x (`create_final_*`), 2.x and 3.x. */
export type GraphRagLayoutVersion = 'v1' | 'v2' | 'v3';

/** Which GraphRAG releases wrote each layout. */
export const LAYOUT_RELEASES: Readonly<Record<GraphRagLayoutVersion, string>> = { v1: 'GraphRAG 1.x', v2: 'GraphRAG 2.x', v3: 'GraphRAG 3.x' };

/** A recognised output folder: its layout and the file of each table present. */
export interface GraphRagLayout {
  readonly version: GraphRagLayoutVersion;
  readonly dir: string;
  /** Table → file name (relative to `dir`), for the tables present. */
  readonly files: Readonly<Partial<Record<GraphRagTable, string>>>;
}

/** What a column must be: the kinds accepted, and whether the table needs it. */
interface ColumnRule {
  readonly kinds: readonly ColumnKind[];
  readonly required: boolean;
}
const TEXT: ColumnRule = { kinds: ['string'], required: true };
const TEXT_OR_NULL: ColumnRule = { kinds: ['string', 'null'], required: true };
const OPTIONAL_TEXT: ColumnRule = { kinds: ['string', 'null'], required: false };
const ID_LIST: ColumnRule = { kinds: ['list<string>'], required: true };
const OPTIONAL_NUMBER: ColumnRule = { kinds: ['float', 'int', 'null'], required: false };
const OPTIONAL_INT: ColumnRule = { kinds: ['int', 'null'], required: false };

/** The columns the mapping reads, per table (the same in every layout but the text units' document reference). */
export const TABLE_COLUMNS: Readonly<Record<GraphRagTable, Readonly<Record<string, ColumnRule>>>> = {
  documents: { id: TEXT, title: TEXT_OR_NULL, text: TEXT, creation_date: OPTIONAL_TEXT },
  text_units: { id: TEXT, text: TEXT },
  entities: { id: TEXT, title: TEXT, type: TEXT_OR_NULL, description: TEXT_OR_NULL, text_unit_ids: ID_LIST },
  relationships: { id: TEXT, source: TEXT, target: TEXT, description: TEXT_OR_NULL, weight: OPTIONAL_NUMBER, text_unit_ids: ID_LIST },
  covariates: {
    id: TEXT,
    type: TEXT_OR_NULL,
    description: TEXT_OR_NULL,
    subject_id: TEXT_OR_NULL,
    object_id: TEXT_OR_NULL,
    status: OPTIONAL_TEXT,
    start_date: OPTIONAL_TEXT,
    end_date: OPTIONAL_TEXT,
    source_text: OPTIONAL_TEXT,
    text_unit_id: TEXT_OR_NULL,
  },
  communities: { id: TEXT },
  community_reports: {
    id: TEXT,
    community: OPTIONAL_INT,
    level: OPTIONAL_INT,
    title: TEXT_OR_NULL,
    summary: OPTIONAL_TEXT,
    full_content: TEXT,
    rank: OPTIONAL_NUMBER,
    rating_explanation: OPTIONAL_TEXT,
    rank_explanation: OPTIONAL_TEXT,
    period: OPTIONAL_TEXT,
    size: OPTIONAL_INT,
  },
};

/** The tables every layout must have; the others are read when present. */
const REQUIRED_TABLES: readonly GraphRagTable[] = ['documents', 'text_units', 'entities', 'relationships'];
const ALL_TABLES = Object.keys(TABLE_COLUMNS) as GraphRagTable[];

const fileName = (table: GraphRagTable, v1: boolean): string => `${v1 ? 'create_final_' : ''}${table}.parquet`;

/**
 * Finds the layout's files in `dir` (the version is settled by {@link settleLayoutVersion} once
 * the text units' columns are known).
 * @throws OctxError `OCTX_GRAPHRAG_LAYOUT_UNKNOWN` when neither naming fits or a table is missing
 */
export function findLayoutFiles(dir: string): { v1Names: boolean; files: Partial<Record<GraphRagTable, string>> } {
  const has = (name: string): boolean => existsSync(join(dir, name));
  const v1Names = has(fileName('documents', true)) || has(fileName('text_units', true));
  const current = has(fileName('documents', false)) || has(fileName('text_units', false));
  if (!v1Names && !current) {
    throw OctxError.of({
      code: 'OCTX_GRAPHRAG_LAYOUT_UNKNOWN',
      path: dir,
      message: `${dir} is not a GraphRAG output folder: it has neither documents.parquet/text_units.parquet (GraphRAG 2.x, 3.x) nor create_final_documents.parquet/create_final_text_units.parquet (GraphRAG 1.x). Give the folder the indexer wrote (its output/ folder)`,
    });
  }
  const files: Partial<Record<GraphRagTable, string>> = {};
  for (const t of ALL_TABLES) if (has(fileName(t, v1Names))) files[t] = fileName(t, v1Names);
  const missing = REQUIRED_TABLES.filter((t) => files[t] === undefined);
  if (missing.length > 0) {
    throw OctxError.of({
      code: 'OCTX_GRAPHRAG_LAYOUT_UNKNOWN',
      path: dir,
      message: `${dir} is a GraphRAG ${v1Names ? '1.x (create_final_*)' : '2.x/3.x'} output without ${missing.map((t) => fileName(t, v1Names)).join(', ')}: the index is incomplete (did the indexing run finish?)`,
    });
  }
  return { v1Names, files };
}

/**
 * The layout version from the names and the text units' columns: `create_final_*` → v1; a
 * `document_id` column → v3; a `document_ids` list → v2.
 * @throws OctxError `OCTX_GRAPHRAG_COLUMN_MISSING` when the text units name no document
 */
export function settleLayoutVersion(v1Names: boolean, textUnits: ParquetTable): GraphRagLayoutVersion {
  const documentColumn = textUnitDocumentColumn(textUnits);
  if (v1Names) return 'v1';
  return documentColumn === 'document_id' ? 'v3' : 'v2';
}

/**
 * The text units' document reference: `document_id` (v3) or `document_ids` (v1, v2).
 * @throws OctxError `OCTX_GRAPHRAG_COLUMN_MISSING`, `OCTX_GRAPHRAG_COLUMN_TYPE`
 */
export function textUnitDocumentColumn(textUnits: ParquetTable): 'document_id' | 'document_ids' {
  const single = textUnits.columns.get('document_id');
  const list = textUnits.columns.get('document_ids');
  if (single !== undefined) {
    if (single.kind !== 'string') throw columnTypeError(textUnits.path, 'document_id', ['string'], single.type);
    return 'document_id';
  }
  if (list !== undefined) {
    if (list.kind !== 'list<string>') throw columnTypeError(textUnits.path, 'document_ids', ['list<string>'], list.type);
    return 'document_ids';
  }
  throw OctxError.of({
    code: 'OCTX_GRAPHRAG_COLUMN_MISSING',
    path: textUnits.path,
    field: 'document_id',
    message: `${textUnits.path} has neither document_id (GraphRAG 3.x) nor document_ids (1.x, 2.x): its text units name no document`,
  });
}

const KIND_NAMES: Readonly<Record<ColumnKind, string>> = {
  string: 'text (BYTE_ARRAY/STRING)',
  int: 'integers (INT32/INT64)',
  float: 'numbers (FLOAT/DOUBLE)',
  bool: 'booleans',
  null: 'all null',
  'list<string>': 'a list of text (LIST<BYTE_ARRAY/STRING>)',
  'list<int>': 'a list of integers',
  'list<float>': 'a list of numbers (LIST<FLOAT/DOUBLE>)',
  other: 'another type',
};

function columnTypeError(path: string, column: string, kinds: readonly ColumnKind[], found: string): OctxError {
  return OctxError.of(columnTypeIssue(path, column, kinds, found));
}

function columnTypeIssue(path: string, column: string, kinds: readonly ColumnKind[], found: string): OctxIssue {
  return issue({
    code: 'OCTX_GRAPHRAG_COLUMN_TYPE',
    path,
    field: column,
    message: `column ${column} is ${found}; it must be ${kinds.map((k) => KIND_NAMES[k]).join(' or ')}`,
  });
}

/**
 * Checks a table's columns against its rules (and `extra` rules of the caller, such as the
 * embedding column of a snapshot): every problem listed, thrown at once.
 * @throws OctxError `OCTX_GRAPHRAG_COLUMN_MISSING` or `OCTX_GRAPHRAG_COLUMN_TYPE` (the first problem's code)
 */
export function checkColumns(table: ParquetTable, rules: Readonly<Record<string, ColumnRule>>, what: string): void {
  const problems: OctxIssue[] = [];
  for (const [column, rule] of Object.entries(rules)) {
    const info = table.columns.get(column);
    if (info === undefined) {
      if (rule.required)
        problems.push(
          issue({
            code: 'OCTX_GRAPHRAG_COLUMN_MISSING',
            path: table.path,
            field: column,
            message: `the ${what} table has no column ${column} (columns: ${[...table.columns.keys()].join(', ')})`,
          }),
        );
      continue;
    }
    if (!rule.kinds.includes(info.kind)) problems.push(columnTypeIssue(table.path, column, rule.kinds, info.type));
  }
  if (problems.length > 0) throw OctxError.aggregate(problems[0]!.code, `${table.path} does not have the columns of a GraphRAG ${what} table:`, problems);
}

/** The rules of an embeddings snapshot (`embeddings.<name>.parquet`). */
export const SNAPSHOT_COLUMNS: Readonly<Record<string, ColumnRule>> = {
  id: TEXT,
  embedding: { kinds: ['list<float>'], required: true },
};

/** The columns of a table the mapping reads: its rules' names that the file has. */
export function presentColumns(table: ParquetTable, rules: Readonly<Record<string, ColumnRule>>): string[] {
  return Object.keys(rules).filter((c) => table.columns.has(c));
}
