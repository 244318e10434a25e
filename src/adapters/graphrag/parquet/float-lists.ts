/**
 * One column chunk of a list-of-floats column (an embedding per row) decoded into one
 * `Float32Array` and row offsets, instead of hyparquet's one JavaScript array per row: at 384
 * numbers a row, those arrays (and the garbage they leave) cost more than the decoding itself.
 *
 * hyparquet does the rest through its `src/*.js` sub-path exports: page headers, decompression,
 * the dictionary page, PLAIN / dictionary / byte-stream-split values, and the run-length /
 * bit-packed decoding of the levels — into byte arrays here, where its page readers would build
 * JavaScript arrays of one slot per value. Only the page layout around them (as hyparquet's
 * `readDataPage`/`readDataPageV2` walk it) and the assembly of the levels into rows — for a single
 * level of list of FLOAT or DOUBLE, nothing deeper — are written here.
 */
import { parquetHeader, readPage } from 'hyparquet/src/column.js';
import { convert } from 'hyparquet/src/convert.js';
import { decompressPage } from 'hyparquet/src/datapage.js';
import { byteStreamSplit, readRleBitPackedHybrid } from 'hyparquet/src/encoding.js';
import { readPlain } from 'hyparquet/src/plain.js';
import type { DataReader, DecodedArray, PageHeader, SchemaTree } from 'hyparquet';
import type { OctxError } from '../../../model/errors.js';

/** What hyparquet's page readers need to know of a column (its `ColumnDecoder`, not re-exported). */
export type ColumnDecoder = Parameters<typeof readPage>[2];

/**
 * The rows of one column chunk: row `r` holds `values[offsets[r] … offsets[r + 1])`. A null row and
 * an empty list both hold nothing (`nullRows` counts the former); a null element is `NaN`.
 */
export interface FloatLists {
  readonly rows: number;
  readonly offsets: Uint32Array;
  readonly values: Float32Array;
  readonly nullRows: number;
  readonly nullElements: number;
}

/** Where the levels of a single-level list say a row or an element is. */
interface ListLevels {
  /** Definition level of a present value. */
  readonly valueDef: number;
  /** Definition level at or above which the row has this entry (a value or a null element). */
  readonly entryDef: number;
  /** Definition level at or above which the row is an (empty or not) list rather than null. */
  readonly listDef: number;
}

/**
 * The levels of a column that is one list of FLOAT or DOUBLE (three-level or legacy two-level),
 * or `undefined` for any other shape.
 */
export function floatListLevels(schemaPath: readonly SchemaTree[]): ListLevels | undefined {
  const nodes = schemaPath.slice(1);
  const leaf = nodes.at(-1);
  if (leaf === undefined || (leaf.element.type !== 'FLOAT' && leaf.element.type !== 'DOUBLE')) return undefined;
  if (nodes.filter((n) => n.element.repetition_type === 'REPEATED').length !== 1) return undefined;
  let def = 0;
  let entryDef = -1;
  let listDef = 0;
  for (const n of nodes) {
    if (n.element.repetition_type === 'REPEATED') {
      listDef = def;
      def++;
      entryDef = def;
    } else if (n.element.repetition_type !== 'REQUIRED') def++;
  }
  return { valueDef: def, entryDef, listDef };
}

/** A growable Float32Array. */
class FloatBuffer {
  data: Float32Array;
  length = 0;
  constructor(capacity: number) {
    this.data = new Float32Array(Math.max(16, capacity));
  }
  reserve(extra: number): void {
    if (this.length + extra <= this.data.length) return;
    const grown = new Float32Array(Math.max(this.length + extra, this.data.length * 2));
    grown.set(this.data.subarray(0, this.length));
    this.data = grown;
  }
}

/**
 * Decodes the bytes of one column chunk (already checked by the page guard) of `rows` rows.
 * @param capacity the values to make room for at first (a hint: the buffer grows when it is short)
 * @param fail builds the error for a malformed chunk (the caller names file, column and group)
 * @throws what `fail` returns: levels that disagree with the values or the row count, an
 *   unsupported page type; hyparquet's own errors (bad encodings) propagate for the caller to wrap
 */
export function decodeFloatLists(bytes: Uint8Array, rows: number, capacity: number, decoder: ColumnDecoder, fail: (message: string) => OctxError): FloatLists {
  const levels = floatListLevels(decoder.schemaPath);
  if (levels === undefined) throw fail('the column is not a single list of FLOAT or DOUBLE values');
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  const offsets = new Uint32Array(rows + 1);
  const out = new FloatBuffer(capacity);
  let row = -1;
  let nullRows = 0;
  let nullElements = 0;
  let dictionary: DecodedArray | undefined;
  while (reader.offset < bytes.byteLength) {
    const header = parquetHeader(reader);
    if (header.type === 'DICTIONARY_PAGE') {
      const { data } = readPage(reader, header, decoder, undefined, undefined, 0);
      if (data) dictionary = convert(data, decoder);
      continue;
    }
    const pageBytes = new Uint8Array(bytes.buffer, bytes.byteOffset + reader.offset, header.compressed_page_size);
    reader.offset += header.compressed_page_size;
    if (header.type === 'INDEX_PAGE') continue;
    if (header.type !== 'DATA_PAGE' && header.type !== 'DATA_PAGE_V2') throw fail(`a page of type ${String(header.type)} where a data page was expected`);
    const page = readFloatPage(pageBytes, header, decoder, levels.valueDef, dictionary, fail);
    const values = page.values;
    const reps = page.repetitionLevels;
    const defs = page.definitionLevels;
    // A column whose every level is required writes no definition levels: every slot is then a value.
    const allValues = defs === undefined;
    const count = reps.length;
    out.reserve(count);
    const data = out.data;
    let length = out.length;
    let v = 0;
    for (let i = 0; i < count; i++) {
      if (reps[i] === 0) {
        if (row >= 0) offsets[row + 1] = length;
        row++;
        if (row >= rows) throw fail(`the levels hold more than the ${rows} rows of the row group`);
      } else if (row < 0) throw fail('the first page continues a row that never started');
      const def = allValues ? levels.valueDef : defs[i]!;
      if (def === levels.valueDef) {
        if (v >= values.length) throw fail(`the levels announce more values than the ${values.length} of their page`);
        data[length++] = values[v++] as number;
      } else if (def >= levels.entryDef) {
        data[length++] = NaN;
        nullElements++;
      } else if (def < levels.listDef) nullRows++;
    }
    if (v !== values.length) throw fail(`a page holds ${values.length} values but its levels place ${v}`);
    out.length = length;
  }
  if (row + 1 !== rows) throw fail(`the column chunk holds ${row + 1} rows, its row group ${rows}`);
  offsets[rows] = out.length;
  return { rows, offsets, values: out.data.subarray(0, out.length), nullRows, nullElements };
}

/** The levels and values of one data page (v1 or v2), levels as bytes. */
interface FloatPage {
  readonly repetitionLevels: Uint8Array;
  /** `undefined` when the column has no optional level. */
  readonly definitionLevels: Uint8Array | undefined;
  readonly values: ArrayLike<number>;
}

const bitWidth = (value: number): number => 32 - Math.clz32(value);

/**
 * One data page's levels and values. hyparquet's `readDataPage`/`readDataPageV2` return the levels
 * as JavaScript arrays of the page's value count (hundreds of thousands of slots a page for
 * embeddings); here the same run decoder (`readRleBitPackedHybrid`) fills byte arrays instead.
 */
function readFloatPage(
  pageBytes: Uint8Array,
  header: PageHeader,
  decoder: ColumnDecoder,
  maxDef: number,
  dictionary: DecodedArray | undefined,
  fail: (message: string) => OctxError,
): FloatPage {
  let repetitionLevels: Uint8Array;
  let definitionLevels: Uint8Array | undefined;
  let valueReader: DataReader;
  let encoding: string;
  let slots: number;
  if (header.type === 'DATA_PAGE') {
    const daph = header.data_page_header;
    if (daph === undefined) throw fail('a data page without its header');
    encoding = daph.encoding;
    slots = daph.num_values;
    const plain = decompressPage(pageBytes, Number(header.uncompressed_page_size), decoder.codec, decoder.compressors);
    const reader = { view: new DataView(plain.buffer, plain.byteOffset, plain.byteLength), offset: 0 };
    repetitionLevels = new Uint8Array(slots);
    readRleBitPackedHybrid(reader, 1, repetitionLevels);
    if (maxDef > 0) {
      definitionLevels = new Uint8Array(slots);
      readRleBitPackedHybrid(reader, bitWidth(maxDef), definitionLevels);
    }
    valueReader = reader;
  } else {
    const daph2 = header.data_page_header_v2;
    if (daph2 === undefined) throw fail('a data page without its header');
    encoding = daph2.encoding;
    slots = daph2.num_values;
    const reader = { view: new DataView(pageBytes.buffer, pageBytes.byteOffset, pageBytes.byteLength), offset: 0 };
    repetitionLevels = new Uint8Array(slots);
    readRleBitPackedHybrid(reader, 1, repetitionLevels, daph2.repetition_levels_byte_length);
    reader.offset = daph2.repetition_levels_byte_length;
    if (maxDef > 0) {
      definitionLevels = new Uint8Array(slots);
      readRleBitPackedHybrid(reader, bitWidth(maxDef), definitionLevels, daph2.definition_levels_byte_length);
    }
    const levelBytes = daph2.repetition_levels_byte_length + daph2.definition_levels_byte_length;
    const valueSize = header.uncompressed_page_size - levelBytes;
    let page = pageBytes.subarray(levelBytes);
    if (daph2.is_compressed !== false && valueSize > 0) page = decompressPage(page, valueSize, decoder.codec, decoder.compressors);
    valueReader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
  }
  let present = slots;
  if (definitionLevels !== undefined) for (let i = 0; i < slots; i++) if (definitionLevels[i] !== maxDef) present--;
  return { repetitionLevels, definitionLevels, values: readFloatValues(valueReader, encoding, present, decoder, dictionary, fail) };
}

/** The `count` present values of a page in its encoding, through hyparquet's decoders. */
function readFloatValues(
  reader: DataReader,
  encoding: string,
  count: number,
  decoder: ColumnDecoder,
  dictionary: DecodedArray | undefined,
  fail: (message: string) => OctxError,
): ArrayLike<number> {
  if (count === 0) return [];
  switch (encoding) {
    case 'PLAIN':
      return readPlain(reader, decoder.type, count, undefined) as ArrayLike<number>;
    case 'BYTE_STREAM_SPLIT':
      return byteStreamSplit(reader, count, decoder.type, undefined) as ArrayLike<number>;
    case 'PLAIN_DICTIONARY':
    case 'RLE_DICTIONARY': {
      if (dictionary === undefined) throw fail('a dictionary-encoded page without a dictionary page');
      const width = reader.view.getUint8(reader.offset++);
      const indexes = new Uint32Array(count);
      if (width > 0) readRleBitPackedHybrid(reader, width, indexes, reader.view.byteLength - reader.offset);
      const values = new Float64Array(count);
      for (let i = 0; i < count; i++) {
        const x: unknown = dictionary[indexes[i]!];
        if (typeof x !== 'number') throw fail(`a dictionary index ${indexes[i]} past the ${dictionary.length} values of the dictionary`);
        values[i] = x;
      }
      return values;
    }
    default:
      throw fail(`the ${encoding} encoding is not read for list-of-float columns`);
  }
}
