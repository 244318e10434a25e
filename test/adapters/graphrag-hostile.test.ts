/**
 * from-graphrag on hostile or broken GraphRAG folders: each gets its typed error with a stable
 * code, the file and the column, and nothing is written. Each case is a copy of the 2.x fixture
 * with one table damaged (bytes patched where the damage must be below what a writer produces).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { PackageBuilder } from 'octx-export';
import { fromGraphRag, type FromGraphRagOptions } from 'octx-export/adapters/graphrag';
import { failureAsync } from '../helpers/errors.js';
import { copyFixture, GRAPHRAG, rewriteTable, withColumn } from './graphrag/tables.js';

const builder = () => new PackageBuilder({ asset: { name: 'hostile' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } });

/** The error of a run of the adapter and then an export; the output must not exist afterwards. */
async function refused(dir: string, options: FromGraphRagOptions = {}) {
  const out = join(dir, '..', 'out.octx');
  const e = await failureAsync(
    (async () => {
      const b = builder();
      await fromGraphRag(b, dir, options);
      await b.export({ output: out });
    })(),
  );
  expect(existsSync(out)).toBe(false);
  return e;
}

const patch = (file: string, at: number, bytes: number[]) => {
  const b = readFileSync(file);
  b.set(bytes, at);
  writeFileSync(file, b);
};

describe('from-graphrag: hostile Parquet', () => {
  it('a truncated file is OCTX_PARQUET_INVALID naming it', async () => {
    const dir = copyFixture(GRAPHRAG.v2);
    const file = join(dir, 'text_units.parquet');
    const b = readFileSync(file);
    writeFileSync(file, b.subarray(0, Math.floor(b.length / 2)));
    const e = await refused(dir);
    expect(e.code).toBe('OCTX_PARQUET_INVALID');
    expect(e.issues[0]!.path).toBe(file);
  });

  it('a file cut inside its last page (footer intact) is OCTX_PARQUET_INVALID naming the column', async () => {
    const dir = copyFixture(GRAPHRAG.v2);
    const file = join(dir, 'documents.parquet');
    const b = readFileSync(file);
    const meta = parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    const text = meta.row_groups[0]!.columns.find((c) => c.meta_data!.path_in_schema.join('.') === 'text')!.meta_data!;
    const start = Number(text.dictionary_page_offset ?? text.data_page_offset);
    const end = start + Number(text.total_compressed_size);
    // The chunk's bytes after its first 40 are dropped, the rest of the file kept: offsets now point past what the column holds.
    writeFileSync(file, Buffer.concat([b.subarray(0, start + 40), b.subarray(end)]));
    const e = await refused(dir);
    expect(e.code).toBe('OCTX_PARQUET_INVALID');
    expect(e.issues[0]!.path).toBe(file);
  });

  it('wrong magic bytes are OCTX_PARQUET_INVALID naming the file', async () => {
    const dir = copyFixture(GRAPHRAG.v2);
    const file = join(dir, 'entities.parquet');
    patch(file, 0, [...Buffer.from('PAR0')]);
    const e = await refused(dir);
    expect(e.code).toBe('OCTX_PARQUET_INVALID');
    expect(e.issues[0]!.path).toBe(file);
    expect(e.message).toMatch(/magic|not a Parquet/i);
  });

  it('a column of the wrong type is OCTX_GRAPHRAG_COLUMN_TYPE naming the file, the column and both types', async () => {
    const dir = copyFixture(GRAPHRAG.v2);
    await rewriteTable(dir, 'text_units.parquet', (cols) => withColumn(cols, 'text', (d) => d.map((_, i) => i), 'int64'));
    const e = await refused(dir);
    expect(e.code).toBe('OCTX_GRAPHRAG_COLUMN_TYPE');
    expect(e.issues[0]).toMatchObject({ path: join(dir, 'text_units.parquet'), field: 'text' });
    expect(e.message).toContain('INT64');
  });

  it('a missing column is OCTX_GRAPHRAG_COLUMN_MISSING naming the file and the column', async () => {
    const dir = copyFixture(GRAPHRAG.v2);
    await rewriteTable(dir, 'relationships.parquet', (cols) => cols.filter((c) => c.name !== 'target'));
    const e = await refused(dir);
    expect(e.code).toBe('OCTX_GRAPHRAG_COLUMN_MISSING');
    expect(e.issues[0]).toMatchObject({ path: join(dir, 'relationships.parquet'), field: 'target' });
  });

  it('a dictionary page declaring more values than its bytes hold (a dictionary bomb) is OCTX_PARQUET_LIMIT before decoding', async () => {
    const dir = copyFixture(GRAPHRAG.v2);
    const file = join(dir, 'entities.parquet');
    await rewriteTable(dir, 'entities.parquet', (cols) => withColumn(cols, 'type', (d) => d.map(() => 'PERSON')), { codec: 'UNCOMPRESSED' });
    const b = readFileSync(file);
    const meta = parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    const type = meta.row_groups[0]!.columns.find((c) => c.meta_data!.path_in_schema.join('.') === 'type')!.meta_data!;
    expect(type.dictionary_page_offset).toBeDefined(); // the writer chose a dictionary for one repeated value
    const at = Number(type.dictionary_page_offset);
    // PageHeader field 7 (dictionary_page_header, a struct: 0x4C) → its field 1 (num_values, i32: 0x15) → zigzag varint 1 (0x02).
    const header = b.subarray(at, at + 32);
    const i = header.findIndex((v, k) => v === 0x4c && header[k + 1] === 0x15 && header[k + 2] === 0x02);
    expect(i).toBeGreaterThan(0);
    patch(file, at + i + 2, [0x7e]); // 63 values in a page of 10 bytes
    const e = await refused(dir);
    expect(e.code).toBe('OCTX_PARQUET_LIMIT');
    expect(e.issues[0]).toMatchObject({ path: file, field: 'type' });
    expect(e.message).toContain('dictionary bomb');
  });

  it('a page declaring more decompressed bytes than allowed (a decompression bomb) is OCTX_PARQUET_LIMIT', async () => {
    const e = await refused(copyFixture(GRAPHRAG.v2), { parquetLimits: { maxPageBytes: 64 } });
    expect(e.code).toBe('OCTX_PARQUET_LIMIT');
    expect(e.message).toMatch(/declares \d+ bytes once decompressed; at most 64/);
  });

  it('a string declaring a 2 GiB length is OCTX_PARQUET_INVALID naming the column, not an allocation', async () => {
    const dir = copyFixture(GRAPHRAG.v2);
    const file = join(dir, 'documents.parquet');
    await rewriteTable(dir, 'documents.parquet', (cols) => cols, { codec: 'UNCOMPRESSED' });
    const b = readFileSync(file);
    const title = Buffer.from('dulce-chapter-1.txt');
    const at = b.indexOf(title);
    expect(b.readUInt32LE(at - 4)).toBe(title.length);
    patch(file, at - 4, [0xff, 0xff, 0xff, 0x7f]);
    const e = await refused(dir);
    expect(e.code).toBe('OCTX_PARQUET_INVALID');
    expect(e.issues[0]).toMatchObject({ path: file, field: 'title' });
  });
});

describe('from-graphrag: ids reused', () => {
  it('an entity id that is also a relationship id is OCTX_GRAPHRAG_ID_REUSED naming both rows', async () => {
    const dir = copyFixture(GRAPHRAG.v2);
    const { readColumns } = await import('./graphrag/tables.js');
    const relationshipId = (await readColumns(join(dir, 'relationships.parquet'))).find((c) => c.name === 'id')!.data[0] as string;
    await rewriteTable(dir, 'entities.parquet', (cols) => withColumn(cols, 'id', (d) => d.map((v, i) => (i === 0 ? relationshipId : v))));
    const e = await refused(dir);
    expect(e.code).toBe('OCTX_GRAPHRAG_ID_REUSED');
    expect(e.message).toContain(relationshipId);
    expect(e.message).toContain('entities.parquet');
    expect(e.message).toContain('relationships.parquet');
  });

  it('an id twice in one table is OCTX_GRAPHRAG_ID_REUSED', async () => {
    const dir = copyFixture(GRAPHRAG.v2);
    await rewriteTable(dir, 'text_units.parquet', (cols) => withColumn(cols, 'id', (d) => d.map((v, i) => (i === 1 ? d[0] : v))));
    const e = await refused(dir);
    expect(e.code).toBe('OCTX_GRAPHRAG_ID_REUSED');
    expect(e.message).toContain('text_units.parquet');
  });

  it('a folder of no known layout is OCTX_GRAPHRAG_LAYOUT_UNKNOWN', async () => {
    const dir = copyFixture(GRAPHRAG.v2);
    const { rmSync } = await import('node:fs');
    rmSync(join(dir, 'text_units.parquet'));
    const e = await refused(dir);
    expect(e.code).toBe('OCTX_GRAPHRAG_LAYOUT_UNKNOWN');
    expect(e.message).toContain('text_units');
  });
});
