/**
 * Parquet page headers (Thrift compact protocol), read before the Parquet library decodes a page,
 * so that what a page *declares* (its sizes and value counts) can be checked against bounds
 * first: the library allocates and fills arrays of the declared size, and a few bytes of RLE can
 * declare billions of values. Only the fields the checks need are kept; every read is bounds
 * checked and a malformed header is an error, never a guess.
 */

/** The page kinds of `parquet.thrift` (`PageType`). */
export type PageKind = 'DATA_PAGE' | 'INDEX_PAGE' | 'DICTIONARY_PAGE' | 'DATA_PAGE_V2';
const PAGE_KINDS: readonly PageKind[] = ['DATA_PAGE', 'INDEX_PAGE', 'DICTIONARY_PAGE', 'DATA_PAGE_V2'];

/** What one page header declares. */
export interface PageHeader {
  readonly kind: PageKind;
  readonly uncompressedSize: number;
  readonly compressedSize: number;
  /** Values in the page (data and dictionary pages; 0 for an index page). */
  readonly values: number;
  /** `DATA_PAGE_V2` only: rows in the page. */
  readonly rows?: number;
  /** Bytes of the header itself. */
  readonly headerSize: number;
}

/** A malformed header: the reason, for the caller's error. */
export class PageHeaderError extends Error {}

// Thrift compact protocol type ids.
const T_STOP = 0;
const T_TRUE = 1;
const T_FALSE = 2;
const T_BYTE = 3;
const T_I16 = 4;
const T_I32 = 5;
const T_I64 = 6;
const T_DOUBLE = 7;
const T_BINARY = 8;
const T_LIST = 9;
const T_SET = 10;
const T_MAP = 11;
const T_STRUCT = 12;
/** Nesting a page header never needs (statistics sit at depth 2); deeper input is refused. */
const MAX_DEPTH = 8;

class Reader {
  offset: number;
  constructor(
    readonly bytes: Uint8Array,
    start: number,
  ) {
    this.offset = start;
  }
  byte(): number {
    if (this.offset >= this.bytes.length) throw new PageHeaderError('the page header runs past the end of its column chunk');
    return this.bytes[this.offset++]!;
  }
  /** An unsigned varint of up to 64 bits, as a number (exact up to 2^53; larger values only need to be "too large"). */
  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return result;
      scale *= 128;
    }
    throw new PageHeaderError('a varint of the page header is longer than 10 bytes');
  }
  zigzag(): number {
    const v = this.varint();
    // Zig-zag: even → v/2, odd → -(v+1)/2 (done in floating point, exact for |v| < 2^53).
    return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }
  skip(n: number): void {
    if (n < 0 || this.offset + n > this.bytes.length) throw new PageHeaderError('a field of the page header runs past the end of its column chunk');
    this.offset += n;
  }
}

type Fields = Map<number, unknown>;

function readValue(r: Reader, type: number, depth: number): unknown {
  switch (type) {
    case T_TRUE:
      return true;
    case T_FALSE:
      return false;
    case T_BYTE:
      return r.byte();
    case T_I16:
    case T_I32:
    case T_I64:
      return r.zigzag();
    case T_DOUBLE:
      r.skip(8);
      return undefined;
    case T_BINARY:
      r.skip(r.varint());
      return undefined;
    case T_LIST:
    case T_SET: {
      const head = r.byte();
      const elementType = head & 0x0f;
      const size = head >> 4 === 15 ? r.varint() : head >> 4;
      // Each element takes at least one byte (booleans in a list are one byte each), so a size
      // beyond the bytes left is malformed: refused before looping over it.
      if (size > r.bytes.length - r.offset) throw new PageHeaderError('a list in the page header declares more elements than bytes remain');
      for (let i = 0; i < size; i++) readValue(r, elementType === T_TRUE || elementType === T_FALSE ? T_BYTE : elementType, depth + 1);
      return undefined;
    }
    case T_MAP: {
      const size = r.varint();
      if (size === 0) return undefined;
      const kinds = r.byte();
      if (size * 2 > r.bytes.length - r.offset) throw new PageHeaderError('a map in the page header declares more entries than bytes remain');
      for (let i = 0; i < size; i++) {
        readValue(r, kinds >> 4, depth + 1);
        readValue(r, kinds & 0x0f, depth + 1);
      }
      return undefined;
    }
    case T_STRUCT:
      return readStruct(r, depth + 1);
    default:
      throw new PageHeaderError(`the page header has a field of unknown Thrift type ${type}`);
  }
}

function readStruct(r: Reader, depth: number): Fields {
  if (depth > MAX_DEPTH) throw new PageHeaderError('the page header nests deeper than a page header can');
  const fields: Fields = new Map();
  let id = 0;
  for (;;) {
    const head = r.byte();
    const type = head & 0x0f;
    if (type === T_STOP) return fields;
    const delta = head >> 4;
    id = delta !== 0 ? id + delta : r.zigzag();
    fields.set(id, readValue(r, type, depth));
  }
}

function int(fields: Fields | undefined, id: number): number | undefined {
  const v = fields?.get(id);
  return typeof v === 'number' ? v : undefined;
}

/**
 * Reads the page header that starts at `start` of a column chunk's bytes.
 * @throws PageHeaderError when the header is malformed, names an unknown page type, or lacks a size
 */
export function readPageHeader(bytes: Uint8Array, start: number): PageHeader {
  const r = new Reader(bytes, start);
  const f = readStruct(r, 0);
  const type = int(f, 1);
  const kind = type !== undefined ? PAGE_KINDS[type] : undefined;
  if (kind === undefined) throw new PageHeaderError(`unknown page type ${String(type)}`);
  const uncompressedSize = int(f, 2);
  const compressedSize = int(f, 3);
  if (uncompressedSize === undefined || compressedSize === undefined) throw new PageHeaderError('the page header has no page sizes');
  if (uncompressedSize < 0 || compressedSize < 0) throw new PageHeaderError('the page header declares a negative page size');
  const sub = (id: number): Fields | undefined => {
    const v = f.get(id);
    return v instanceof Map ? (v as Fields) : undefined;
  };
  const headerSize = r.offset - start;
  switch (kind) {
    case 'DATA_PAGE': {
      const values = int(sub(5), 1);
      if (values === undefined || values < 0) throw new PageHeaderError('a data page header without a valid value count');
      return { kind, uncompressedSize, compressedSize, values, headerSize };
    }
    case 'DICTIONARY_PAGE': {
      const values = int(sub(7), 1);
      if (values === undefined || values < 0) throw new PageHeaderError('a dictionary page header without a valid value count');
      return { kind, uncompressedSize, compressedSize, values, headerSize };
    }
    case 'DATA_PAGE_V2': {
      const v2 = sub(8);
      const values = int(v2, 1);
      const rows = int(v2, 3);
      if (values === undefined || rows === undefined || values < 0 || rows < 0) throw new PageHeaderError('a data page v2 header without valid value and row counts');
      return { kind, uncompressedSize, compressedSize, values, rows, headerSize };
    }
    case 'INDEX_PAGE':
      return { kind, uncompressedSize, compressedSize, values: 0, headerSize };
  }
}
