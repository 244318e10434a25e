/**
 * What every mapping step of the GraphRAG adapter shares: the builder, the warnings and input
 * problems collected, row-by-row reading of a table with progress, samples of left-out rows
 * named by file and GraphRAG id, and the stable ledger keys (what a record *is*, never
 * GraphRAG's ids, which change on every indexing run).
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { PackageBuilder } from '../../builder/package-builder.js';
import { OctxError, type OctxIssue } from '../../model/errors.js';
import type { JsonValue } from '../../model/json.js';
import { uuidToWords, wordsToUuid } from '../../model/uuid-words.js';
import type { ProgressListener } from '../../model/progress.js';
import { addAdapterDocument } from '../shared/add-document.js';
import { inputIssue } from '../shared/input-issues.js';
import type { GraphRagSample } from './graphrag-types.js';
import type { ParquetTable } from './parquet/parquet-table.js';
import type { RowChecker } from './consumer-fit.js';

/** The state a run of the adapter threads through its steps. */
export interface MapContext {
  readonly builder: PackageBuilder;
  readonly warnings: string[];
  /** Bad input rows: thrown together once a step has read its table. */
  readonly problems: OctxIssue[];
  readonly onProgress: ProgressListener | undefined;
  /** Checks records against the consumer's import rules, naming the GraphRAG row (when a consumer is given). */
  readonly consumer: RowChecker | undefined;
}

/**
 * The row a callback of {@link forEachRow} is at: its values are read from the row group's column
 * arrays, so no object is made per row. It moves on after the callback: keep `index`, not the row.
 */
export class Row {
  /** 0-based row index in the table. */
  index = 0;
  #columns: Readonly<Record<string, readonly unknown[]>> = {};
  #at = 0;

  /** The value of `column` (`undefined` for a column that was not read). */
  get(column: string): unknown {
    return this.#columns[column]?.[this.#at];
  }

  /** @internal Moves to row `at` of `columns` (the row group's values), which is row `index` of the table. */
  moveTo(columns: Readonly<Record<string, readonly unknown[]>>, at: number, index: number): void {
    this.#columns = columns;
    this.#at = at;
    this.index = index;
  }
}

/**
 * Reads `columns` of `table` row group by row group (one group's values in memory at a time) and
 * calls `each` for every row, reporting `{ phase: 'load', kind }` progress per group.
 */
export async function forEachRow(ctx: MapContext, table: ParquetTable, columns: readonly string[], kind: string, each: (row: Row) => void): Promise<void> {
  ctx.onProgress?.({ phase: 'load', kind, completed: 0, total: table.rows });
  const row = new Row();
  for (let g = 0; g < table.rowGroups.length; g++) {
    const { start, rows } = table.rowGroups[g]!;
    const data = await table.readGroup(g, columns);
    for (let i = 0; i < rows; i++) {
      row.moveTo(data, i, start + i);
      each(row);
    }
    ctx.onProgress?.({ phase: 'load', kind, completed: start + rows, total: table.rows });
  }
}

/** A text value of a row (`undefined` for null or a non-string). */
export function text(row: Row, column: string): string | undefined {
  const v = row.get(column);
  return typeof v === 'string' ? v : undefined;
}

/** A list of text values of a row (an empty list for null). */
export function textList(row: Row, column: string): string[] {
  const v = row.get(column);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** How a row is named in messages: `<file> row <n> (id <id>, "<title>")`. */
export function rowLabel(table: ParquetTable, row: Row, title?: string): string {
  const id = text(row, 'id');
  const t = title !== undefined && title !== '' ? `, "${title.length > 80 ? `${title.slice(0, 77)}…` : title}"` : '';
  return `${basename(table.path)} row ${row.index}${id !== undefined ? ` (id ${id}${t})` : t !== '' ? ` (${t.slice(2)})` : ''}`;
}

/** An input problem about a row: file, row (as the issue's line, 1-based) and GraphRAG id. */
export function rowProblem(table: ParquetTable, row: Row, field: string, message: string): OctxIssue {
  const id = text(row, 'id');
  return inputIssue({ path: table.path, line: row.index + 1, ...(id !== undefined ? { recordId: id } : {}), field, message: `${rowLabel(table, row)}: ${message}` });
}

/** One GraphRAG text that becomes a document (a GraphRAG document, or a community report). */
export interface GraphRagDocument {
  /** Path under `knowledge/`, already claimed. */
  readonly path: string;
  /** The Markdown body, byte for byte. */
  readonly body: string;
  /** GraphRAG's title ('' for none). */
  readonly title: string;
  readonly xgraphrag: Readonly<Record<string, JsonValue>>;
  /** What the body is, for messages: `the GraphRAG document text (documents.parquet row 3)`. */
  readonly origin: string;
  /** Where it came from, for the consumer's findings. */
  readonly table: ParquetTable;
  readonly row: Row;
}

/**
 * Adds a GraphRAG text as a document: its id from the ledger keyed by its path, GraphRAG's title
 * as the frontmatter `title`, `x-graphrag` beside it; and checks it against the consumer.
 * @returns the document's OCTX id
 */
export function addGraphRagDocument(ctx: MapContext, documentType: string, doc: GraphRagDocument): string {
  const added = addAdapterDocument(
    ctx.builder,
    {
      path: doc.path,
      markdown: doc.body,
      additions: {
        type: documentType,
        documentId: ctx.builder.ids.document(`graphrag:document:${doc.path}`),
        // Through extras, not `title`: the GraphRAG title is the document's title even when its text opens with a heading.
        extras: { ...(doc.title !== '' ? { title: doc.title } : {}), 'x-graphrag': doc.xgraphrag },
      },
      origin: doc.origin,
    },
    ctx.warnings,
  );
  ctx.consumer?.check(
    'document',
    { id: added.documentId, ...(doc.title !== '' ? { title: doc.title } : {}) },
    doc.table.path,
    doc.row.index,
    rowLabel(doc.table, doc.row, doc.title),
  );
  return added.documentId;
}

/** Throws the problems collected so far, if any. */
export function throwProblems(ctx: MapContext, headline: string): void {
  if (ctx.problems.length > 0) throw OctxError.aggregate('OCTX_ADAPTER_INPUT_INVALID', headline, ctx.problems);
}

const SAMPLE = 10;

/** A count of rows with the first few named. */
export class Sampler {
  count = 0;
  readonly #sample: string[] = [];
  add(label: string): void {
    this.count++;
    if (this.#sample.length < SAMPLE) this.#sample.push(label);
  }
  /** The count and sample for the report. */
  toJSON(): GraphRagSample {
    return { count: this.count, sample: [...this.#sample] };
  }
  /** `3 <what> (first: a; b; c)`, or '' when empty. */
  describe(what: string): string {
    return this.count === 0 ? '' : `${this.count} ${what} (${this.count > this.#sample.length ? 'first: ' : ''}${this.#sample.join('; ')})`;
  }
}

/** A short stable digest of some strings (22 base64url characters of their SHA-256), for ledger keys. */
export function digestOf(parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

/**
 * Ledger keys that repeat within one run get `#1`, `#2`, … in the order they come, so that two
 * records that *are* the same (the same text twice in one document) still get two ids, and the
 * same input gives the same keys. Only a 52-bit digest of each key is kept; a false repeat would
 * only add a suffix, deterministically.
 */
export class KeyOccurrences {
  readonly #seen = new Map<number, number>();
  /** `key`, or `key#n` for its n-th repeat. */
  next(key: string): string {
    const h = createHash('sha1').update(key).digest();
    const n52 = h.readUIntBE(0, 6) * 16 + (h[6]! >> 4);
    const count = this.#seen.get(n52);
    this.#seen.set(n52, (count ?? 0) + 1);
    return count === undefined ? key : `${key}#${count}`;
  }
}

/** A growable list of small non-negative integers (one per text unit, entity, …). */
export class IntColumn {
  #data = new Int32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.#data.length) {
      const grown = new Int32Array(this.#data.length * 2);
      grown.set(this.#data);
      this.#data = grown;
    }
    this.#data[this.length++] = v;
  }
  get(i: number): number {
    return this.#data[i]!;
  }
  set(i: number, v: number): void {
    this.#data[i] = v;
  }
}

/**
 * A growable list of UUIDv7 ids (one per text unit), held as four 32-bit words each: 16 bytes,
 * where a 36-character string costs about 64 in the heap, for the whole run.
 */
export class UuidColumn {
  #words = new Uint32Array(4 * 1024);
  length = 0;
  /** Appends `id`, a canonical lower-case UUIDv7 (as the id ledger mints them). */
  push(id: string): void {
    if (4 * this.length === this.#words.length) {
      const grown = new Uint32Array(this.#words.length * 2);
      grown.set(this.#words);
      this.#words = grown;
    }
    if (!uuidToWords(id, this.#words, 4 * this.length)) throw new Error(`not a canonical UUIDv7: ${id}`);
    this.length++;
  }
  /** The id at `i`, as text. */
  get(i: number): string {
    return wordsToUuid(this.#words, 4 * i);
  }
}
