/**
 * One Parquet file, opened for reading row group by row group with hyparquet (pure JavaScript,
 * no native build; hyparquet-compressors adds zstd, gzip, brotli and lz4), with every bound an
 * untrusted file could abuse checked before hyparquet allocates for it:
 *
 * - the magic at both ends, the footer length against the file and a cap, the metadata parsed
 *   from the footer only, every column chunk's byte range inside the file (a truncated file is
 *   found before any page is read);
 * - every page header of a column chunk, when its bytes are read and before hyparquet decodes
 *   them (`guardColumnChunk`): sizes inside the chunk, decompressed sizes and declared value
 *   counts against bounds (a dictionary or RLE "bomb" declares billions of values in a few bytes);
 * - decompression only through wrappers that refuse an output size above the page bound;
 * - text decoded strictly as UTF-8 (never replaced with U+FFFD).
 *
 * Errors name the file and, from the first page on, the column: `OCTX_PARQUET_INVALID` for what is
 * not (or no longer) Parquet, `OCTX_PARQUET_LIMIT` for what declares more than the bounds allow.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { parquetMetadata, parquetRead, parquetSchema, snappyUncompress, type AsyncBuffer, type Compressors, type FileMetaData, type SchemaTree } from 'hyparquet';
import { compressors as extraCompressors } from 'hyparquet-compressors';
import { DEFAULT_PARSERS } from 'hyparquet/src/convert.js';
import { getSchemaPath } from 'hyparquet/src/schema.js';
import { OctxError } from '../../../model/errors.js';
import { fsReason } from '../../../model/fs-errors.js';
import { describeColumn, type ColumnInfo } from './column-kinds.js';
import { guardColumnChunk, PARQUET_LIMITS, type ChunkSpan, type ParquetLimits } from './column-guard.js';
import { decodeFloatLists, type FloatLists } from './float-lists.js';

const MAGIC = 'PAR1';
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** One row group: where its rows start in the table and how many it has. */
export interface RowGroupSpan {
  readonly start: number;
  readonly rows: number;
}

const invalid = (path: string, message: string, field?: string): OctxError =>
  OctxError.of({ code: 'OCTX_PARQUET_INVALID', path, ...(field !== undefined ? { field } : {}), message });

/** A finite integer from a Parquet metadata number (hyparquet gives `bigint` for 64-bit fields). */
function num(v: bigint | number | undefined): number {
  return v === undefined ? 0 : Number(v);
}

/**
 * A Parquet file open for reading. Call {@link ParquetTable.close} when done (or use
 * {@link withParquetTable}).
 */
export class ParquetTable {
  /** The file as given (for messages). */
  readonly path: string;
  /** Rows of the table. */
  readonly rows: number;
  readonly rowGroups: readonly RowGroupSpan[];
  /** Top-level columns by name, with their kind. */
  readonly columns: ReadonlyMap<string, ColumnInfo>;
  /** The compression codecs used (`SNAPPY`, `ZSTD`, …), for the report. */
  readonly codecs: readonly string[];
  readonly #handle: FileHandle;
  readonly #metadata: FileMetaData;
  readonly #spans: readonly ChunkSpan[];
  readonly #limits: ParquetLimits;
  readonly #buffer: AsyncBuffer;
  readonly #compressors: Compressors;
  #scratch = new Uint8Array(0);

  private constructor(path: string, handle: FileHandle, size: number, metadata: FileMetaData, spans: ChunkSpan[], limits: ParquetLimits) {
    this.path = path;
    this.#handle = handle;
    this.#metadata = metadata;
    this.#spans = spans;
    this.#limits = limits;
    let start = 0;
    this.rowGroups = metadata.row_groups.map((g) => {
      const span = { start, rows: num(g.num_rows) };
      start += span.rows;
      return span;
    });
    this.rows = start;
    const tree = parquetSchema(metadata);
    this.columns = new Map(tree.children.map((c: SchemaTree) => [c.element.name, describeColumn(c)]));
    this.codecs = [...new Set(spans.map((s) => s.codec))].sort();
    this.#buffer = { byteLength: size, slice: (s, e) => this.#slice(s, e ?? size) };
    this.#compressors = guardedCompressors(path, limits);
  }

  /**
   * Opens a Parquet file and checks its frame: magic, footer, metadata, column chunk ranges.
   * @throws OctxError `OCTX_IO_ERROR` (unreadable), `OCTX_PARQUET_INVALID`, `OCTX_PARQUET_LIMIT`
   */
  static async open(path: string, limits: ParquetLimits = PARQUET_LIMITS): Promise<ParquetTable> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (e) {
      throw OctxError.of({ code: 'OCTX_IO_ERROR', path, message: `cannot read ${path}: ${fsReason(e, path)}` });
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw OctxError.of({ code: 'OCTX_IO_ERROR', path, message: `${path} is not a regular file` });
      const size = stat.size;
      if (size < 12) throw invalid(path, `${size} bytes is too short for a Parquet file (magic, footer length, magic)`);
      const head = await readAt(handle, 0, 4, path);
      const tail = await readAt(handle, size - 8, 8, path);
      const magic = (b: Uint8Array): string => String.fromCharCode(...b);
      if (magic(head) !== MAGIC || magic(tail.subarray(4)) !== MAGIC) {
        throw invalid(path, `not a Parquet file: it must start and end with "PAR1" (found ${JSON.stringify(magic(head))} … ${JSON.stringify(magic(tail.subarray(4)))})`);
      }
      const footerLength = new DataView(tail.buffer, tail.byteOffset, 8).getUint32(0, true);
      if (footerLength > size - 12) throw invalid(path, `the footer of ${footerLength} bytes does not fit a file of ${size} bytes: the file is truncated or damaged`);
      if (footerLength > limits.maxFooterBytes)
        throw OctxError.of({ code: 'OCTX_PARQUET_LIMIT', path, message: `the footer declares ${footerLength} bytes of metadata; at most ${limits.maxFooterBytes} are read` });
      const footer = await readAt(handle, size - 8 - footerLength, footerLength + 8, path);
      let metadata: FileMetaData;
      try {
        metadata = parquetMetadata(footer.buffer.slice(footer.byteOffset, footer.byteOffset + footer.byteLength) as ArrayBuffer, { geoparquet: false });
      } catch (e) {
        throw invalid(path, `the footer metadata does not decode: ${(e as Error).message}`);
      }
      const spans = chunkSpans(path, metadata, size - 8 - footerLength);
      return new ParquetTable(path, handle, size, metadata, spans, limits);
    } catch (e) {
      await handle.close().catch(() => undefined);
      throw e;
    }
  }

  /**
   * The values of `columns` in row group `group`, by column name: one array per column, one
   * value per row (`null` for a null; 64-bit integers as numbers; lists as arrays).
   * @throws OctxError `OCTX_PARQUET_INVALID`, `OCTX_PARQUET_LIMIT` (naming the column)
   */
  async readGroup(group: number, columns: readonly string[]): Promise<Record<string, unknown[]>> {
    const span = this.rowGroups[group]!;
    const out: Record<string, unknown[]> = {};
    for (const column of columns) {
      const parts: ArrayLike<unknown>[] = [];
      try {
        await parquetRead({
          file: this.#buffer,
          metadata: this.#metadata,
          columns: [column],
          rowStart: span.start,
          rowEnd: span.start + span.rows,
          compressors: this.#compressors,
          geoparquet: false,
          parsers: { stringFromBytes: (bytes: Uint8Array) => UTF8.decode(bytes) },
          onChunk: (chunk) => void parts.push(chunk.columnData),
        });
      } catch (e) {
        if (e instanceof OctxError) {
          const first = e.issues[0]!;
          throw first.field !== undefined ? e : OctxError.of({ ...first, field: column, message: `column ${column} of row group ${group}: ${first.message}` });
        }
        const reason = e instanceof TypeError && /encoded data was not valid/i.test(e.message) ? 'a value is not valid UTF-8 text' : (e as Error).message;
        throw invalid(this.path, `column ${column} of row group ${group} does not decode: ${reason}`, column);
      }
      const values = normalise(parts);
      if (values.length !== span.rows) throw invalid(this.path, `column ${column} of row group ${group} decodes to ${values.length} values for ${span.rows} rows`, column);
      out[column] = values;
    }
    return out;
  }

  /**
   * A list-of-floats column (an embedding per row) of row group `group`, as one `Float32Array`
   * with row offsets (see {@link decodeFloatLists}) rather than an array per row.
   * @throws OctxError `OCTX_PARQUET_INVALID` (also for a column of another shape), `OCTX_PARQUET_LIMIT`
   */
  async readFloatLists(group: number, column: string): Promise<FloatLists> {
    const leaves = this.#spans.filter((s) => s.group === group && (s.column === column || s.column.startsWith(`${column}.`)));
    const span = leaves[0];
    const fail = (message: string): OctxError => invalid(this.path, `column ${column} of row group ${group}: ${message}`, column);
    if (span === undefined || leaves.length !== 1) throw fail('the column is not a single list of FLOAT or DOUBLE values');
    // The chunk's bytes are only read while decoding (values are copied out), so one buffer serves every group.
    if (this.#scratch.length < span.end - span.start) this.#scratch = new Uint8Array(span.end - span.start);
    const bytes = await this.#guardedBytes(span.start, span.end, this.#scratch);
    const chunk = this.#metadata.row_groups[group]!.columns.find((c) => c.meta_data!.path_in_schema.join('.') === span.column)!.meta_data!;
    const schemaPath = getSchemaPath(this.#metadata.schema, chunk.path_in_schema);
    const element = schemaPath[schemaPath.length - 1]!.element;
    try {
      return decodeFloatLists(
        bytes,
        span.rows,
        // The footer's count is a hint from an untrusted file: never more room than one value per byte read.
        Math.min(num(chunk.num_values), this.#limits.maxChunkValues, span.end - span.start),
        { pathInSchema: chunk.path_in_schema, type: chunk.type, element, schemaPath, codec: chunk.codec, compressors: this.#compressors, parsers: DEFAULT_PARSERS },
        fail,
      );
    } catch (e) {
      if (e instanceof OctxError) {
        const first = e.issues[0]!;
        throw first.field !== undefined ? e : OctxError.of({ ...first, field: column, message: `column ${column} of row group ${group}: ${first.message}` });
      }
      throw fail(`does not decode: ${(e as Error).message}`);
    }
  }

  /** Closes the file. */
  async close(): Promise<void> {
    await this.#handle.close();
  }

  async #slice(start: number, end: number): Promise<ArrayBuffer> {
    const bytes = await this.#guardedBytes(start, end);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  /** Bytes `start`–`end` (into `scratch` when it is large enough), every column chunk they overlap checked first. */
  async #guardedBytes(start: number, end: number, scratch?: Uint8Array): Promise<Uint8Array> {
    const bytes = await readAt(this.#handle, start, end - start, this.path, scratch);
    // Every column chunk hyparquet is about to decode passes the page checks first, on these very bytes.
    for (const span of this.#spans) {
      if (span.checked || span.end <= start || span.start >= end) continue;
      if (span.start >= start && span.end <= end) guardColumnChunk(this.path, span, bytes.subarray(span.start - start, span.end - start), this.#limits);
      else guardColumnChunk(this.path, span, await readAt(this.#handle, span.start, span.end - span.start, this.path), this.#limits);
    }
    return bytes;
  }
}

/** Opens `path`, runs `use` and closes the file whatever happens. */
export async function withParquetTable<T>(path: string, use: (table: ParquetTable) => Promise<T>, limits?: ParquetLimits): Promise<T> {
  const table = await ParquetTable.open(path, limits);
  try {
    return await use(table);
  } finally {
    await table.close();
  }
}

async function readAt(handle: FileHandle, position: number, length: number, path: string, scratch?: Uint8Array): Promise<Uint8Array> {
  const bytes = scratch !== undefined && scratch.length >= length ? scratch.subarray(0, length) : Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    let n: number;
    try {
      ({ bytesRead: n } = await handle.read(bytes, done, length - done, position + done));
    } catch (e) {
      throw OctxError.of({ code: 'OCTX_IO_ERROR', path, message: `cannot read ${path}: ${fsReason(e, path)}` });
    }
    if (n === 0) throw invalid(path, `the file ended at byte ${position + done} while ${length - done} more bytes were expected (it changed while it was read?)`);
    done += n;
  }
  return bytes;
}

/** The byte range of every column chunk, checked to lie in the data part of the file. */
function chunkSpans(path: string, metadata: FileMetaData, dataEnd: number): ChunkSpan[] {
  const spans: ChunkSpan[] = [];
  const tree = parquetSchema(metadata);
  const flat = new Map<string, boolean>();
  const walk = (node: SchemaTree, repeated: boolean): void => {
    const here = repeated || node.element.repetition_type === 'REPEATED';
    if (node.children.length === 0) flat.set(node.path.join('.'), !here);
    for (const c of node.children) walk(c, here);
  };
  for (const c of tree.children) walk(c, false);
  let total = 0;
  metadata.row_groups.forEach((g, group) => {
    const rows = num(g.num_rows);
    if (!Number.isSafeInteger(rows) || rows < 0) throw invalid(path, `row group ${group} declares ${rows} rows`);
    total += rows;
    for (const c of g.columns) {
      const m = c.meta_data;
      if (!m) throw invalid(path, `a column chunk of row group ${group} has no metadata (encrypted or external column chunks are not read)`);
      const column = m.path_in_schema.join('.');
      if (c.file_path !== undefined)
        throw invalid(path, `column ${column} of row group ${group} lives in another file (${c.file_path}); only self-contained Parquet files are read`, column);
      const dictionary = num(m.dictionary_page_offset);
      const data = num(m.data_page_offset);
      const start = dictionary > 0 && dictionary < data ? dictionary : data;
      const end = start + num(m.total_compressed_size);
      if (start < 4 || end > dataEnd || end < start) {
        throw invalid(
          path,
          `column ${column} of row group ${group} declares bytes ${start}–${end}, outside the data of the file (bytes 4–${dataEnd}): the file is truncated or damaged`,
          column,
        );
      }
      spans.push({ group, column, start, end, rows, physical: m.type, codec: m.codec, flat: flat.get(column) ?? false, checked: false });
    }
  });
  if (total !== num(metadata.num_rows)) throw invalid(path, `the row groups hold ${total} rows but the footer says ${num(metadata.num_rows)}`);
  return spans;
}

/** Concatenated column chunks, with 64-bit integers as numbers (one plain array, the usual case, is converted in place). */
function normalise(parts: readonly ArrayLike<unknown>[]): unknown[] {
  if (parts.length === 1 && Array.isArray(parts[0])) {
    const only = parts[0] as unknown[];
    for (let i = 0; i < only.length; i++) only[i] = plain(only[i]);
    return only;
  }
  const out: unknown[] = [];
  for (const part of parts) for (let i = 0; i < part.length; i++) out.push(plain(part[i]));
  return out;
}

function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v === undefined) return null;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (typeof v[i] === 'bigint') v[i] = Number(v[i]);
  }
  return v;
}

/**
 * hyparquet's decompressors behind one gate: the declared output size is checked against the
 * page bound before anything is allocated, and the output must be exactly that size.
 */
function guardedCompressors(path: string, limits: ParquetLimits): Compressors {
  const all: Compressors = { ...extraCompressors, SNAPPY: (input, length) => snappyInto(input, length) };
  const out: Compressors = {};
  for (const [codec, decompress] of Object.entries(all) as [keyof Compressors, NonNullable<Compressors[keyof Compressors]>][]) {
    out[codec] = (input, length) => {
      if (length > limits.maxPageBytes)
        throw OctxError.of({ code: 'OCTX_PARQUET_LIMIT', path, message: `a ${codec} page declares ${length} bytes once decompressed; at most ${limits.maxPageBytes} are allowed` });
      const page = decompress(input, length);
      if (page.length !== length) throw invalid(path, `a ${codec} page decompresses to ${page.length} bytes, not the ${length} its header declares`);
      return page;
    };
  }
  return out;
}

function snappyInto(input: Uint8Array, length: number): Uint8Array {
  const page = new Uint8Array(length);
  snappyUncompress(input, page);
  return page;
}
