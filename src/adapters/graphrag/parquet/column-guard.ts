/**
 * The page checks run on a column chunk's bytes before hyparquet decodes them: each page must lie
 * inside the chunk, decompress to at most {@link ParquetLimits.maxPageBytes}, and declare no more
 * values than its bytes and its row group can hold. hyparquet allocates arrays of the declared
 * counts and fills them from RLE runs, so a page of a few bytes declaring a billion values would
 * otherwise exhaust memory before any error could be raised.
 */
import { OctxError } from '../../../model/errors.js';
import { PageHeaderError, readPageHeader } from './page-header.js';

/** Bounds of the Parquet reader. */
export interface ParquetLimits {
  /** Bytes of the footer (the file's metadata). */
  readonly maxFooterBytes: number;
  /** Bytes of one page once decompressed (pyarrow writes pages of 1 MiB; dictionaries up to 1 MiB by default). */
  readonly maxPageBytes: number;
  /** Values one column chunk may declare (a list column counts its elements): what hyparquet holds in memory at once. */
  readonly maxChunkValues: number;
}

const MiB = 1024 * 1024;

/** The default bounds. */
export const PARQUET_LIMITS: Readonly<ParquetLimits> = Object.freeze({
  maxFooterBytes: 64 * MiB,
  maxPageBytes: 256 * MiB,
  maxChunkValues: 2 ** 27,
});

/** One column chunk of one row group, as the footer declares it. */
export interface ChunkSpan {
  readonly group: number;
  /** Dotted path in the schema (`text_unit_ids.list.element`). */
  readonly column: string;
  readonly start: number;
  readonly end: number;
  /** Rows of its row group. */
  readonly rows: number;
  /** Physical type of its values. */
  readonly physical: string;
  readonly codec: string;
  /** No repeated level above it: one value (or null) per row. */
  readonly flat: boolean;
  /** Set once its pages passed the checks. */
  checked: boolean;
}

/** Fewest bytes one plain-encoded value of a physical type takes (a byte array: its 4-byte length). */
function plainBytesPerValue(physical: string): number {
  switch (physical) {
    case 'BOOLEAN':
      return 1 / 8;
    case 'INT64':
    case 'DOUBLE':
      return 8;
    case 'INT96':
      return 12;
    default:
      return 4;
  }
}

/**
 * Checks every page header of one column chunk (its bytes exactly) and marks it checked.
 * @throws OctxError `OCTX_PARQUET_INVALID` (a malformed header, a page past the chunk, two
 *   dictionaries), `OCTX_PARQUET_LIMIT` (a page or dictionary above its bounds, more values than
 *   the row group has rows or than a chunk may hold)
 */
export function guardColumnChunk(path: string, span: ChunkSpan, bytes: Uint8Array, limits: ParquetLimits): void {
  const where = `column ${span.column} of row group ${span.group}`;
  const invalid = (message: string): OctxError => OctxError.of({ code: 'OCTX_PARQUET_INVALID', path, field: span.column, message: `${where}: ${message}` });
  const limit = (message: string): OctxError => OctxError.of({ code: 'OCTX_PARQUET_LIMIT', path, field: span.column, message: `${where}: ${message}` });
  let offset = 0;
  let values = 0;
  let rows = 0;
  let dictionaries = 0;
  while (offset < bytes.length) {
    let header;
    try {
      header = readPageHeader(bytes, offset);
    } catch (e) {
      if (e instanceof PageHeaderError) throw invalid(`the page header at byte ${span.start + offset} is malformed: ${e.message}`);
      throw e;
    }
    offset += header.headerSize;
    if (header.compressedSize > bytes.length - offset)
      throw invalid(`a page of ${header.compressedSize} bytes runs past the end of its column chunk (the file is truncated or damaged)`);
    if (header.uncompressedSize > limits.maxPageBytes)
      throw limit(`a ${header.kind} declares ${header.uncompressedSize} bytes once decompressed; at most ${limits.maxPageBytes} are allowed`);
    if (header.kind === 'DICTIONARY_PAGE') {
      if (++dictionaries > 1) throw invalid('it has a second dictionary page');
      if (header.values * plainBytesPerValue(span.physical) > header.uncompressedSize)
        throw limit(`its dictionary page declares ${header.values} values in ${header.uncompressedSize} bytes, more than those bytes can hold (a dictionary bomb)`);
    } else if (header.kind === 'DATA_PAGE' || header.kind === 'DATA_PAGE_V2') {
      values += header.values;
      rows += header.rows ?? 0;
      if (span.flat && values > span.rows) throw limit(`its pages declare ${values} values, more than the ${span.rows} rows of the row group (a page bomb)`);
      if (rows > span.rows) throw limit(`its pages declare ${rows} rows, more than the ${span.rows} rows of the row group`);
      if (values > limits.maxChunkValues)
        throw limit(`its pages declare more than ${limits.maxChunkValues} values, more than are read into memory at once (write the file with smaller row groups)`);
    }
    offset += header.compressedSize;
  }
  span.checked = true;
}
