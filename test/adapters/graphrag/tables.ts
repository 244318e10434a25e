/**
 * GraphRAG tables as the tests see them, read with hyparquet directly (not through the adapter):
 * the source values a package is checked against, and copies of a fixture folder with one table
 * rewritten (hostile or changed inputs) through hyparquet-writer.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects, parquetSchema, type SchemaTree } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { ROOT, tempDir } from '../../helpers/temp.js';
import { parquetBytes, type FixtureColumn, type FixtureKind, type WriteOptions } from '../../../bench/parquet-writer.js';

/** The GraphRAG fixture sets of the repository. */
export const GRAPHRAG = {
  v1: join(ROOT, 'fixtures/graphrag/v1-operation-dulce'),
  v2: join(ROOT, 'fixtures/graphrag/v2-small/output'),
  v3: join(ROOT, 'fixtures/graphrag/v3-operation-dulce'),
} as const;

/** One row of a table, with Parquet's INT64 read as numbers. */
export type Row = Record<string, any>;

const plain = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : Array.isArray(v) ? v.map(plain) : v);

function bytesOf(file: string): ArrayBuffer {
  const b = readFileSync(file);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}

/** Every row of a Parquet file. */
export async function readRows(file: string): Promise<Row[]> {
  const rows = (await parquetReadObjects({ file: bytesOf(file), compressors })) as Row[];
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)])));
}

function kindOf(node: SchemaTree): FixtureKind {
  const e = node.element;
  if (node.children.length > 0) {
    const leaf = node.children[0]!.children[0] ?? node.children[0]!;
    return `list<${kindOf(leaf)}>` as FixtureKind;
  }
  if (e.logical_type?.type === 'NULL') return 'null';
  switch (e.type) {
    case 'BYTE_ARRAY':
      return 'string';
    case 'INT64':
    case 'INT32':
      return 'int64';
    case 'FLOAT':
      return 'float';
    default:
      return 'double';
  }
}

/** A table's columns (kinds as written) and values, ready to be changed and written again. */
export async function readColumns(file: string): Promise<FixtureColumn[]> {
  const schema = parquetSchema(parquetMetadata(bytesOf(file)));
  const rows = await readRows(file);
  return schema.children.map((c) => ({ name: c.element.name, kind: kindOf(c), data: rows.map((r) => r[c.element.name] ?? null) }));
}

/** A copy of a fixture folder (and the project's settings.yaml beside it) in a temporary folder, removed after the test. */
export function copyFixture(dir: string): string {
  const copy = join(tempDir('octx-graphrag-'), 'output');
  cpSync(dir, copy, { recursive: true });
  if (existsSync(join(dir, '..', 'settings.yaml'))) cpSync(join(dir, '..', 'settings.yaml'), join(copy, '..', 'settings.yaml'));
  return copy;
}

/** Rewrites one table of a folder: `change` gets its columns and returns the new ones. */
export async function rewriteTable(dir: string, file: string, change: (columns: FixtureColumn[]) => FixtureColumn[], options: WriteOptions = {}): Promise<void> {
  const columns = await readColumns(join(dir, file));
  writeFileSync(join(dir, file), parquetBytes(change(columns), options));
}

/** `columns` with the values of column `name` replaced. */
export function withColumn(columns: readonly FixtureColumn[], name: string, data: (old: readonly unknown[]) => unknown[], kind?: FixtureKind): FixtureColumn[] {
  return columns.map((c) => (c.name === name ? { name, kind: kind ?? c.kind, data: data(c.data) } : c));
}
