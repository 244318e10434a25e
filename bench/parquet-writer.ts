/**
 * Writes GraphRAG-shaped Parquet files with hyparquet-writer, for the benchmark's synthetic index and
 * for the tests' fixtures and hostile files (both import it from here: bench/ imports nothing from test/):
 * columns typed as pandas/pyarrow writes them (optional STRING, INT64, DOUBLE, and three-level
 * LIST<…> columns), in row groups, compressed with SNAPPY, GZIP (node:zlib) or ZSTD.
 *
 * ZSTD: Node 20's zlib has no Zstandard, so frames are written by hand as RFC 8878 frames of raw
 * (stored) blocks — valid Zstandard that every decoder reads, just not entropy-coded; `zstdRle`
 * makes an RLE-block frame (a byte repeated), the shape of a decompression bomb.
 */
import { gzipSync } from 'node:zlib';
import { ParquetWriter, fileWriter } from 'hyparquet-writer/src/node.js';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';

/** The column kinds GraphRAG's tables use. */
export type FixtureKind = 'string' | 'int64' | 'double' | 'float' | 'null' | 'list<string>' | 'list<double>' | 'list<float>' | 'list<int64>';

export interface FixtureColumn {
  readonly name: string;
  readonly kind: FixtureKind;
  readonly data: readonly unknown[];
}

export interface WriteOptions {
  readonly codec?: 'SNAPPY' | 'GZIP' | 'ZSTD' | 'UNCOMPRESSED';
  readonly rowGroupSize?: number;
}

const MAX_RAW_BLOCK = 128 * 1024;

/** A Zstandard frame holding `data` in raw blocks (single segment, 4-byte content size). */
export function zstdRaw(data: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(data.length / MAX_RAW_BLOCK));
  const out = new Uint8Array(4 + 1 + 4 + blocks * 3 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0xfd2fb528, true);
  out[4] = 0xa0; // FCS field 4 bytes, single segment
  view.setUint32(5, data.length, true);
  let at = 9;
  for (let b = 0; b < blocks; b++) {
    const part = data.subarray(b * MAX_RAW_BLOCK, Math.min(data.length, (b + 1) * MAX_RAW_BLOCK));
    const header = (part.length << 3) | (0 << 1) | (b === blocks - 1 ? 1 : 0);
    out[at] = header & 0xff;
    out[at + 1] = (header >> 8) & 0xff;
    out[at + 2] = (header >> 16) & 0xff;
    out.set(part, at + 3);
    at += 3 + part.length;
  }
  return out;
}

/** A Zstandard frame of RLE blocks: `byte` repeated `count` times (a few bytes for any `count`). */
export function zstdRle(byte: number, count: number): Uint8Array {
  const blocks = Math.max(1, Math.ceil(count / MAX_RAW_BLOCK));
  const out = new Uint8Array(9 + blocks * 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0xfd2fb528, true);
  out[4] = 0xa0;
  view.setUint32(5, count, true);
  for (let b = 0; b < blocks; b++) {
    const size = Math.min(MAX_RAW_BLOCK, count - b * MAX_RAW_BLOCK);
    const header = (size << 3) | (1 << 1) | (b === blocks - 1 ? 1 : 0);
    out.set([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff, byte], 9 + b * 4);
  }
  return out;
}

const COMPRESSORS = { GZIP: (input: Uint8Array) => new Uint8Array(gzipSync(input)), ZSTD: zstdRaw };

function leaf(name: string, kind: string, repetition: 'OPTIONAL' | 'REQUIRED'): SchemaElement {
  switch (kind) {
    case 'string':
      return { name, type: 'BYTE_ARRAY', repetition_type: repetition, converted_type: 'UTF8', logical_type: { type: 'STRING' } };
    case 'int64':
      return { name, type: 'INT64', repetition_type: repetition };
    case 'double':
      return { name, type: 'DOUBLE', repetition_type: repetition };
    case 'float':
      return { name, type: 'FLOAT', repetition_type: repetition };
    default:
      return { name, type: 'INT32', repetition_type: repetition };
  }
}

/** The schema elements of the columns (pyarrow's: every column optional, lists three-level). */
export function fixtureSchema(columns: readonly FixtureColumn[]): SchemaElement[] {
  const schema: SchemaElement[] = [{ name: 'schema', num_children: columns.length }];
  for (const c of columns) {
    const list = /^list<(.+)>$/.exec(c.kind);
    if (list) {
      schema.push({ name: c.name, repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } });
      schema.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
      schema.push(leaf('element', list[1]!, 'OPTIONAL'));
    } else schema.push(leaf(c.name, c.kind, 'OPTIONAL'));
  }
  return schema;
}

const value = (kind: FixtureKind, v: unknown): unknown => (v === null || v === undefined ? null : kind === 'int64' ? BigInt(v as number) : v);
const columnData = (columns: readonly FixtureColumn[], from = 0, to?: number) =>
  columns.map((c) => ({ name: c.name, data: c.data.slice(from, to).map<unknown>((v) => value(c.kind, v)) }));

/** The Parquet bytes of a table. */
export function parquetBytes(columns: readonly FixtureColumn[], options: WriteOptions = {}): Uint8Array {
  const buffer = parquetWriteBuffer({
    columnData: columnData(columns),
    schema: fixtureSchema(columns) as never,
    codec: options.codec ?? 'SNAPPY',
    compressors: COMPRESSORS,
    ...(options.rowGroupSize !== undefined ? { rowGroupSize: options.rowGroupSize } : {}),
  });
  return new Uint8Array(buffer);
}

/** A file writer for large tables written row group by row group (the benchmark's generator). */
export function openParquetFile(filename: string, columns: readonly Omit<FixtureColumn, 'data'>[], codec: WriteOptions['codec'] = 'SNAPPY') {
  const writer = new ParquetWriter({ writer: fileWriter(filename), schema: fixtureSchema(columns as FixtureColumn[]), codec, compressors: COMPRESSORS } as never);
  return {
    /** Writes one row group. */
    async write(data: Readonly<Record<string, readonly unknown[]>>): Promise<void> {
      await writer.write({ columnData: columns.map((c) => ({ name: c.name, data: data[c.name]!.map((v) => value(c.kind, v)) })) });
    },
    async finish(): Promise<void> {
      await writer.finish();
    },
  };
}
