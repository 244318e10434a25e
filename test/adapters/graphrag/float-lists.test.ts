/**
 * The embedding columns read as one Float32Array per row group (ParquetTable.readFloatLists) hold
 * exactly what hyparquet's own row-by-row reading gives, as float32 bytes: on the fixtures'
 * snapshots (pyarrow- and hyparquet-writer-written) and on generated files with null rows, empty
 * lists, null elements, FLOAT and DOUBLE, dictionary pages, several row groups and codecs.
 * Malformed columns are typed errors.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parquetMetadata } from 'hyparquet';
import { getSchemaPath } from 'hyparquet/src/schema.js';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { decodeFloatLists, floatListLevels } from '../../../src/adapters/graphrag/parquet/float-lists.js';
import { ParquetTable } from '../../../src/adapters/graphrag/parquet/parquet-table.js';
import { OctxError } from '../../../src/model/errors.js';
import { parquetBytes, type FixtureColumn } from '../../../bench/parquet-writer.js';
import { tempDir } from '../../helpers/temp.js';
import { GRAPHRAG, readRows } from './tables.js';

type Expected = (number | null)[] | null;

/** Every row of `column`, through readFloatLists: float32 bytes per row, and the null counts. */
async function decoded(file: string, column: string): Promise<{ rows: Uint8Array[]; nullRows: number; nullElements: number; groups: number }> {
  const table = await ParquetTable.open(file);
  try {
    const rows: Uint8Array[] = [];
    let nullRows = 0;
    let nullElements = 0;
    for (let g = 0; g < table.rowGroups.length; g++) {
      const lists = await table.readFloatLists(g, column);
      expect(lists.rows).toBe(table.rowGroups[g]!.rows);
      for (let r = 0; r < lists.rows; r++) rows.push(new Uint8Array(lists.values.slice(lists.offsets[r], lists.offsets[r + 1]).buffer));
      nullRows += lists.nullRows;
      nullElements += lists.nullElements;
    }
    return { rows, nullRows, nullElements, groups: table.rowGroups.length };
  } finally {
    await table.close();
  }
}

/** hyparquet's rows of `column` as float32 bytes (a null row is empty, a null element NaN). */
async function expected(file: string, column: string): Promise<{ rows: Uint8Array[]; nullRows: number; nullElements: number }> {
  const values = (await readRows(file)).map((r) => r[column] as Expected);
  return {
    rows: values.map((v) => new Uint8Array(Float32Array.from(v ?? [], (x) => x ?? NaN).buffer)),
    nullRows: values.filter((v) => v === null || v === undefined).length,
    nullElements: values.reduce((n, v) => n + (v ?? []).filter((x) => x === null).length, 0),
  };
}

async function expectSameAsHyparquet(file: string, column: string): Promise<number> {
  const got = await decoded(file, column);
  const want = await expected(file, column);
  expect(got.rows.length).toBe(want.rows.length);
  for (let r = 0; r < want.rows.length; r++) expect(Buffer.from(got.rows[r]!).equals(Buffer.from(want.rows[r]!)), `row ${r}`).toBe(true);
  expect(got.nullRows).toBe(want.nullRows);
  expect(got.nullElements).toBe(want.nullElements);
  return got.groups;
}

describe('readFloatLists', () => {
  it('equals hyparquet on the fixtures’ embedding snapshots (pyarrow and hyparquet-writer files)', async () => {
    const files = [
      join(GRAPHRAG.v2, 'embeddings.text_unit.text.parquet'),
      join(GRAPHRAG.v2, 'embeddings.entity.description.parquet'),
      join(GRAPHRAG.v2, 'embeddings.community.full_content.parquet'),
      join(GRAPHRAG.v3, 'embeddings.community_full_content.parquet'),
    ];
    for (const f of files) await expectSameAsHyparquet(f, 'embedding');
    // A value checked directly: the v3 sample's first community embedding is 3072 floats wide.
    const v3 = await decoded(files[3]!, 'embedding');
    expect(v3.rows.map((r) => r.byteLength / 4)).toEqual(Array(10).fill(3072));
  });

  const rows: Expected[] = [[0.5, -1.25, 3], null, [], [1e-3, null, 2.5], [Math.PI, Math.E, 1 / 3], [], null, [7]];

  for (const kind of ['list<double>', 'list<float>'] as const) {
    for (const codec of ['SNAPPY', 'GZIP', 'ZSTD', 'UNCOMPRESSED'] as const) {
      it(`equals hyparquet on ${kind} with null rows, empty lists and null elements (${codec}, row groups of 3)`, async () => {
        const file = join(tempDir('octx-float-lists-'), `${kind}-${codec}.parquet`);
        const columns: FixtureColumn[] = [
          { name: 'id', kind: 'string', data: rows.map((_, i) => `r${i}`) },
          { name: 'embedding', kind, data: rows },
        ];
        writeFileSync(file, parquetBytes(columns, { codec, rowGroupSize: 3 }));
        expect(await expectSameAsHyparquet(file, 'embedding')).toBe(3);
        const got = await decoded(file, 'embedding');
        expect(got.nullRows).toBe(2);
        expect(got.nullElements).toBe(1);
        expect(got.rows.map((r) => r.byteLength / 4)).toEqual([3, 0, 0, 3, 3, 0, 0, 1]);
        expect(Array.from(new Float32Array(got.rows[0]!.buffer))).toEqual([0.5, -1.25, 3]);
      });
    }
  }

  it('equals hyparquet on a dictionary-encoded column and on required lists without definition levels', async () => {
    const dictionary = join(tempDir('octx-float-lists-'), 'dictionary.parquet');
    const repeated = Array.from({ length: 50 }, (_, i) => [i % 3, 0.5, -(i % 2)]);
    writeFileSync(dictionary, parquetBytes([{ name: 'embedding', kind: 'list<double>', data: repeated }], { rowGroupSize: 20 }));
    expect(await expectSameAsHyparquet(dictionary, 'embedding')).toBe(3);

    const required = join(tempDir('octx-float-lists-'), 'required.parquet');
    const buffer = parquetWriteBuffer({
      columnData: [
        {
          name: 'embedding',
          data: [
            [1, 2],
            [3, 4],
            [5.5, -6],
          ],
        },
      ],
      schema: [
        { name: 'schema', num_children: 1 },
        { name: 'embedding', repetition_type: 'REQUIRED', num_children: 1, converted_type: 'LIST' },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', type: 'FLOAT', repetition_type: 'REQUIRED' },
      ],
    } as never);
    writeFileSync(required, new Uint8Array(buffer));
    await expectSameAsHyparquet(required, 'embedding');
    expect(Array.from(new Float32Array((await decoded(required, 'embedding')).rows[2]!.buffer))).toEqual([5.5, -6]);
  });

  it('a column that is not one list of floats is OCTX_PARQUET_INVALID naming the file and the column', async () => {
    const file = join(tempDir('octx-float-lists-'), 'not-floats.parquet');
    writeFileSync(
      file,
      parquetBytes([
        { name: 'ids', kind: 'list<string>', data: [['a'], ['b']] },
        { name: 'weight', kind: 'double', data: [1, 2] },
      ]),
    );
    const table = await ParquetTable.open(file);
    try {
      for (const column of ['ids', 'weight', 'missing']) {
        const error = await table.readFloatLists(0, column).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toMatchObject({ code: 'OCTX_PARQUET_INVALID', issues: [{ path: file, field: column }] });
        expect((error as Error).message).toContain(`column ${column} of row group 0: the column is not a single list of FLOAT or DOUBLE values`);
      }
    } finally {
      await table.close();
    }
  });

  it('levels that announce more rows than the row group holds are OCTX_PARQUET_INVALID, not a wrong vector', async () => {
    // The footer says 2 rows while the pages hold 3: rewrite num_rows in a file of one row group.
    const file = join(tempDir('octx-float-lists-'), 'rows-lie.parquet');
    const good = parquetBytes([{ name: 'embedding', kind: 'list<double>', data: [[1], [2], [3]] }]);
    expect(floatListLevels([])).toBeUndefined();
    const fail = (message: string) => OctxError.of({ code: 'OCTX_PARQUET_INVALID', path: file, message });
    const metadata = parquetMetadata(good.buffer.slice(good.byteOffset, good.byteOffset + good.byteLength) as ArrayBuffer);
    const meta = metadata.row_groups[0]!.columns[0]!.meta_data!;
    const schemaPath = getSchemaPath(metadata.schema, meta.path_in_schema);
    const start = Number(meta.data_page_offset);
    const chunk = good.subarray(start, start + Number(meta.total_compressed_size));
    const decoder = { pathInSchema: meta.path_in_schema, type: meta.type, element: schemaPath.at(-1)!.element, schemaPath, codec: meta.codec, parsers: {} as never };
    expect(Array.from(decodeFloatLists(chunk, 3, 3, decoder, fail).values)).toEqual([1, 2, 3]);
    expect(() => decodeFloatLists(chunk, 2, 3, decoder, fail)).toThrow(
      expect.objectContaining({ code: 'OCTX_PARQUET_INVALID', message: expect.stringContaining('more than the 2 rows') }),
    );
    expect(() => decodeFloatLists(chunk, 4, 3, decoder, fail)).toThrow(
      expect.objectContaining({ code: 'OCTX_PARQUET_INVALID', message: expect.stringContaining('holds 3 rows, its row group 4') }),
    );
  });
});
