/**
 * One Arrow reader: the validator, `openPackage().vectors()` and the working-folder loader read a
 * vector target the same way, so a file with a null, a non-finite value, a schema off the column
 * table or a value over a limit is refused by all three with the same typed issue.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, loadWorkdir } from '../../src/index.js';
import { OctxError, type OctxIssue } from '../../src/model/errors.js';
import { openPackage, validatePackage } from '../../src/read/index.js';
import { tempDir } from '../helpers/temp.js';
import { arrowFile, entriesOf, genStructure, rowsFor, vectorPackage, writeDir, type ArrowOptions, type ArrowRow, type FileMap, type Structure } from './helpers.js';

const DIM = 4;
const s: Structure = genStructure({ docs: 2, chunksPerDoc: 3 });
const ids = s.chunks.map((c) => c.id as string);
const good = (): ArrowRow[] => rowsFor(ids, DIM);

/** The package's files with `chunks` as its chunk target (no manifest: also a working folder). */
function files(chunks: Buffer): FileMap {
  return vectorPackage(s, { arrow: { chunks, events: null, entities: null } }).files;
}

/** What an issue says, for comparing readers. */
const said = (i: OctxIssue): Pick<OctxIssue, 'code' | 'path' | 'message' | 'recordId'> => ({
  code: i.code,
  path: i.path,
  message: i.message,
  ...(i.recordId === undefined ? {} : { recordId: i.recordId }),
});

async function thrown(run: () => Promise<unknown>): Promise<OctxIssue> {
  try {
    await run();
  } catch (e) {
    if (!(e instanceof OctxError)) throw e;
    expect(e.issues).toHaveLength(1);
    return e.issues[0]!;
  }
  throw new Error('expected a refusal');
}

/** The first vectors issue of the validator, the issue `vectors()` throws and the one `loadWorkdir` throws. */
async function threeReaders(chunks: Buffer, limits = {}): Promise<[OctxIssue, OctxIssue, OctxIssue]> {
  const pkg = await writeDir(entriesOf({ files: files(chunks), capabilities: { 'sag-structured': { version: '0.1' }, vectors: { version: '0.1' } } }));
  const report = await validatePackage(pkg, { limits });
  expect(report.format.valid).toBe(true);
  expect(report.capabilities['sag-structured']!.valid).toBe(true);
  const validator = report.capabilities.vectors!.issues[0]!;
  const opened = await openPackage(pkg, { limits });
  const reader = await thrown(async () => {
    try {
      for await (const row of opened.vectors('chunks')) void row;
    } finally {
      await opened.close();
    }
  });
  const folder = await writeDir(files(chunks));
  const builder = new PackageBuilder({ asset: { name: 'Folder' }, release: { version: '1.0.0' } });
  const loader = await thrown(async () => {
    try {
      await loadWorkdir(builder, folder, { limits });
    } finally {
      await builder.dispose();
    }
  });
  return [validator, reader, loader];
}

const bad = (edit: (rows: ArrowRow[]) => ArrowRow[], options: Partial<ArrowOptions> = {}): Buffer => arrowFile(edit(good()), { dim: DIM, ...options });

describe('the validator, openPackage().vectors() and loadWorkdir refuse a target alike', () => {
  const cases: [string, Buffer, Record<string, number>, string][] = [
    ['a null vector', bad((rows) => rows.map((r, i) => (i === 2 ? { ...r, vector: null } : r))), {}, 'OCTX_VECTOR_NULL'],
    ['a null record_id', bad((rows) => [...rows.slice(0, 3), { id: null, vector: [1, 1, 1, 1] }, ...rows.slice(3)]), {}, 'OCTX_VECTOR_NULL'],
    ['a NaN value', bad((rows) => rows.map((r, i) => (i === 4 ? { ...r, vector: [0, 0, NaN, 0] } : r))), {}, 'OCTX_VECTOR_VALUE_INVALID'],
    ['an infinite value', bad((rows) => rows.map((r, i) => (i === 1 ? { ...r, vector: [-Infinity, 0, 0, 0] } : r))), {}, 'OCTX_VECTOR_VALUE_INVALID'],
    ['more rows than maxArrowRows', bad((rows) => rows), { maxArrowRows: 5 }, 'OCTX_RESOURCE_LIMIT'],
    ['more values than maxArrowValues', bad((rows) => rows), { maxArrowValues: 20 }, 'OCTX_RESOURCE_LIMIT'],
    ['more batches than maxArrowBatches', bad((rows) => rows, { batchSize: 1 }), { maxArrowBatches: 3 }, 'OCTX_RESOURCE_LIMIT'],
    ['a width above maxArrowDimension', bad((rows) => rows), { maxArrowDimension: 3 }, 'OCTX_VECTOR_DIMENSION_INVALID'],
    ['a width other than config.dimensions', arrowFile(rowsFor(ids, 3), { dim: 3 }), {}, 'OCTX_VECTOR_DIMENSION_INVALID'],
    ['a float64 vector', bad((rows) => rows, { float64: true }), {}, 'OCTX_VECTOR_VALUE_SCHEMA'],
    ['a nullable record_id', bad((rows) => rows, { nullableId: true }), {}, 'OCTX_VECTOR_RECORD_ID_SCHEMA'],
    ['no record_id column', bad((rows) => rows, { names: ['id', 'vector'] }), {}, 'OCTX_VECTOR_COLUMNS_REQUIRED'],
    ['body compression', bad((rows) => rows, { compressed: true }), {}, 'OCTX_VECTOR_COMPRESSION_UNSUPPORTED'],
    ['the IPC stream format', bad((rows) => rows, { stream: true }), {}, 'OCTX_VECTOR_ARROW_INVALID'],
  ];
  it.each(cases)('%s', async (_name, chunks, limits, code) => {
    const [validator, reader, loader] = await threeReaders(chunks, limits);
    expect(validator.code).toBe(code);
    expect(validator.path).toBe('vectors/chunks.arrow');
    expect(said(reader)).toEqual(said(validator));
    expect(said(loader)).toEqual(said(validator));
  });
});

describe('a working folder with Arrow vectors', () => {
  it('loads every row of a schema-first and of a footer-schema file, several batches and an extra column, into the package', async () => {
    for (const options of [{ batchSize: 4, extraColumn: true }, { footerOnlySchema: true }] as Partial<ArrowOptions>[]) {
      const folder = await writeDir(files(arrowFile(good(), { dim: DIM, ...options })));
      const builder = new PackageBuilder({ asset: { name: 'Folder' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
      const report = await loadWorkdir(builder, folder);
      expect(report.vectors).toEqual({ chunks: ids.length, events: 0, entities: 0 });
      const out = join(tempDir(), 'folder.octx');
      await builder.export({ output: out });
      expect((await validatePackage(out)).issues).toEqual([]);
      const pkg = await openPackage(out);
      try {
        const rows: { id: string; v: number[] }[] = [];
        for await (const row of pkg.vectors('chunks')) rows.push({ id: row.recordId, v: Array.from(row.vector) });
        expect(rows.map((r) => r.id)).toEqual(ids);
        rows.forEach((r, i) => r.v.forEach((x, k) => expect(x).toBe(Math.fround(good()[i]!.vector![k]!))));
      } finally {
        await pkg.close();
      }
    }
  });
});
