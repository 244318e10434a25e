import { describe, expect, it } from 'vitest';
import { openPackage, validatePackage, type ValidationReport } from '../../src/read/index.js';
import type { OctxCode } from '../../src/model/codes.js';
import {
  arrowFile,
  entriesOf,
  genStructure,
  rowsFor,
  vectorConfig,
  vectorPackage,
  writeDir,
  writeZip,
  type ArrowOptions,
  type ArrowRow,
  type PackageSpec,
  type Structure,
} from './helpers.js';

const DIM = 4;

async function run(spec: PackageSpec, limits = {}): Promise<ValidationReport> {
  return validatePackage(await writeDir(entriesOf(spec)), { limits });
}

function vecCodes(r: ValidationReport): OctxCode[] {
  return [...new Set((r.capabilities.vectors?.issues ?? []).map((i) => i.code))].sort();
}

/** Format and structure valid, vectors invalid with exactly these codes. */
function vectorsInvalid(r: ValidationReport, expected: OctxCode[]): void {
  expect(r.format).toEqual({ valid: true, issues: [] });
  expect(r.capabilities['sag-structured']).toEqual({ valid: true, issues: [] });
  expect(r.capabilities.vectors!.valid).toBe(false);
  expect(r.valid).toBe(false);
  expect(vecCodes(r)).toEqual([...expected].sort());
}

/** A package whose chunk target is built from `rows` with `options`. */
function withChunkArrow(s: Structure, rows: (ids: string[]) => ArrowRow[], options: Partial<ArrowOptions> = {}): PackageSpec {
  const ids = s.chunks.map((c) => c.id as string);
  return vectorPackage(s, { arrow: { chunks: arrowFile(rows(ids), { dim: DIM, ...options }) } });
}

describe('vectors/0.1', () => {
  it('accepts three complete targets (directory, STORE and DEFLATE ZIP)', async () => {
    const s = genStructure({ docs: 2, chunksPerDoc: 3 });
    const entries = entriesOf(vectorPackage(s));
    for (const target of [await writeDir(entries), await writeZip(entries, { store: true }), await writeZip(entries)]) {
      const r = await validatePackage(target);
      expect(r.issues).toEqual([]);
      expect(r).toMatchObject({ valid: true, fullyValidated: true, capabilities: { vectors: { valid: true }, 'sag-structured': { valid: true } } });
    }
  });

  it('accepts one target, several batches and extra columns', async () => {
    const s = genStructure({ docs: 2, chunksPerDoc: 5 });
    const spec = vectorPackage(s, {
      arrow: {
        chunks: arrowFile(
          rowsFor(
            s.chunks.map((c) => c.id),
            DIM,
          ),
          { dim: DIM, batchSize: 3, extraColumn: true },
        ),
        events: null,
        entities: null,
      },
    });
    const r = await run(spec);
    expect(r.issues).toEqual([]);
    expect(r.fullyValidated).toBe(true);
  });

  it('streams rows through OctxPackage.vectors()', async () => {
    const s = genStructure({ docs: 1, chunksPerDoc: 7 });
    const spec = vectorPackage(s, {
      arrow: {
        chunks: arrowFile(
          rowsFor(
            s.chunks.map((c) => c.id),
            DIM,
          ),
          { dim: DIM, batchSize: 2 },
        ),
      },
    });
    const pkg = await openPackage(await writeZip(entriesOf(spec)));
    try {
      const rows = [];
      for await (const row of pkg.vectors('chunks')) rows.push({ id: row.recordId, v: Array.from(row.vector) });
      expect(rows.map((r) => r.id)).toEqual(s.chunks.map((c) => c.id));
      expect(rows[1]!.v[0]).toBeCloseTo(0.02, 6);
      expect(rows[1]!.v).toHaveLength(DIM);
      expect(await pkg.vectorConfig()).toMatchObject({ model: 'example/embedding-model', dimensions: DIM });
    } finally {
      await pkg.close();
    }
  });

  describe('dependencies and required files', () => {
    it('vectors declared without sag-structured', async () => {
      const s = genStructure();
      const spec = vectorPackage(s);
      const files = Object.fromEntries(Object.entries(spec.files).filter(([p]) => p.startsWith('knowledge/') || p.startsWith('vectors/')));
      const r = await run({ files, capabilities: { vectors: { version: '0.1' } } });
      expect(r.format.valid).toBe(true);
      expect(vecCodes(r)).toEqual(['OCTX_CAPABILITY_DEPENDENCY_INVALID']);
      expect(r.valid).toBe(false);
    });

    it('vectors with an invalid sag-structured', async () => {
      const s = genStructure();
      s.entities.push({ id: '019c0000-0000-7000-8000-0000000fffff', name: 'orphan', type: 't' });
      const r = await run(vectorPackage(s));
      expect(r.capabilities['sag-structured']!.valid).toBe(false);
      expect(vecCodes(r)).toEqual(['OCTX_CAPABILITY_DEPENDENCY_INVALID']);
    });

    it('config not listed (OCTX_VECTOR_CONFIG_REQUIRED)', async () => {
      const spec = vectorPackage(genStructure());
      delete (spec.files as Record<string, unknown>)['vectors/config.json'];
      vectorsInvalid(await run(spec), ['OCTX_VECTOR_CONFIG_REQUIRED']);
    });

    it('no target listed (OCTX_VECTOR_TARGET_REQUIRED)', async () => {
      vectorsInvalid(await run(vectorPackage(genStructure(), { arrow: { chunks: null, events: null, entities: null } })), ['OCTX_VECTOR_TARGET_REQUIRED']);
    });

    it('an Arrow file failing its digest is untrusted and makes the format invalid', async () => {
      const s = genStructure();
      const entries = entriesOf(vectorPackage(s));
      const bytes = Buffer.from(entries['vectors/events.arrow'] as Buffer);
      bytes[bytes.length - 20]! ^= 0xff;
      entries['vectors/events.arrow'] = bytes;
      const r = await validatePackage(await writeDir(entries));
      expect(r.format.issues.map((i) => i.code)).toEqual(['OCTX_FILE_DIGEST_MISMATCH']);
      expect(vecCodes(r)).toEqual(['OCTX_CAPABILITY_FILE_UNTRUSTED']);
      expect(r.capabilities['sag-structured']!.issues.map((i) => i.code)).toEqual(['OCTX_CAPABILITY_DEPENDENCY_INVALID']);
    });
  });

  describe('config', () => {
    const base = { model: 'example/embedding-model', dimensions: DIM, normalized: true };
    const cases: [string, string, OctxCode[]][] = [
      ['a syntax error', '{"model": "m",}', ['OCTX_VECTOR_CONFIG_INVALID']],
      ['a BOM', `\ufeff${vectorConfig(base)}`, ['OCTX_VECTOR_CONFIG_INVALID']],
      ['an array', '[]', ['OCTX_VECTOR_CONFIG_INVALID']],
      ['a duplicate key', vectorConfig(base).replace('"model":', '"model": "x", "model":'), ['OCTX_JSON_DUPLICATE_KEY']],
      ['no model', vectorConfig({ dimensions: DIM, normalized: true }), ['OCTX_VECTOR_CONFIG_INVALID']],
      ['an empty revision', vectorConfig({ ...base, revision: '' }), ['OCTX_VECTOR_CONFIG_INVALID']],
      ['a forbidden key', vectorConfig({ ...base, api_key: 'k' }), ['OCTX_VECTOR_CONFIG_FORBIDDEN']],
      ['a URL value', vectorConfig({ ...base, source: 'https://example.com/model' }), ['OCTX_VECTOR_CONFIG_FORBIDDEN']],
      ['a normalize setting', vectorConfig({ ...base, l2Normalize: true }), ['OCTX_VECTOR_CONFIG_FORBIDDEN']],
      ['a fingerprint mismatch', vectorConfig(base, `sha256:${'0'.repeat(64)}`), ['OCTX_VECTOR_FINGERPRINT_MISMATCH']],
    ];
    for (const [name, text, expected] of cases) {
      it(`reports ${name}`, async () => {
        vectorsInvalid(await run(vectorPackage(genStructure(), { config: text })), expected);
      });
    }

    it('accepts pipeline settings and the SEED example fields', async () => {
      const config = vectorConfig({ ...base, revision: '2026-07-01', pooling: 'mean', truncation: { max_tokens: 512, side: 'right' }, query_prefix: 'query: ' });
      const r = await run(vectorPackage(genStructure(), { config }));
      expect(r.issues).toEqual([]);
    });
  });

  describe('Arrow files', () => {
    const s = genStructure({ docs: 2, chunksPerDoc: 3 });
    const good = (ids: string[]): ArrowRow[] => rowsFor(ids, DIM);
    const cases: [string, PackageSpec, OctxCode[]][] = [
      ['the IPC stream format', withChunkArrow(s, good, { stream: true }), ['OCTX_VECTOR_ARROW_INVALID']],
      // A file whose schema is only in its footer (apache-arrow's RecordBatchFileWriter) is accepted: arrow-writer-files.test.ts.
      ['body compression', withChunkArrow(s, good, { compressed: true }), ['OCTX_VECTOR_COMPRESSION_UNSUPPORTED']],
      ['no record_id column', withChunkArrow(s, good, { names: ['id', 'vector'] }), ['OCTX_VECTOR_COLUMNS_REQUIRED']],
      ['a nullable record_id', withChunkArrow(s, good, { nullableId: true }), ['OCTX_VECTOR_RECORD_ID_SCHEMA']],
      ['a large_utf8 record_id', withChunkArrow(s, good, { largeUtf8: true }), ['OCTX_VECTOR_RECORD_ID_SCHEMA']],
      ['a float64 vector', withChunkArrow(s, good, { float64: true }), ['OCTX_VECTOR_VALUE_SCHEMA']],
      ['a nullable vector', withChunkArrow(s, good, { nullableVector: true }), ['OCTX_VECTOR_VALUE_SCHEMA']],
      ['a nullable vector element', withChunkArrow(s, good, { nullableItem: true }), ['OCTX_VECTOR_VALUE_SCHEMA']],
      ['a width other than config.dimensions', withChunkArrow(s, (ids) => rowsFor(ids, 3), { dim: 3 }), ['OCTX_VECTOR_DIMENSION_INVALID']],
      ['a missing row', withChunkArrow(s, (ids) => good(ids).slice(1)), ['OCTX_VECTOR_COVERAGE']],
      ['an id of another target', withChunkArrow(s, (ids) => [...good(ids), { id: s.events[0].id, vector: [1, 2, 3, 4] }]), ['OCTX_VECTOR_COVERAGE']],
      ['a duplicate record id', withChunkArrow(s, (ids) => [...good(ids), good(ids)[0]!]), ['OCTX_VECTOR_RECORD_ID_DUPLICATE']],
      ['a NaN element', withChunkArrow(s, (ids) => good(ids).map((r, i) => (i === 2 ? { ...r, vector: [0, NaN, 0, 0] } : r))), ['OCTX_VECTOR_VALUE_INVALID']],
      ['an infinite element', withChunkArrow(s, (ids) => good(ids).map((r, i) => (i === 4 ? { ...r, vector: [0, 0, 0, -Infinity] } : r))), ['OCTX_VECTOR_VALUE_INVALID']],
      ['null cells behind a non-nullable schema', withChunkArrow(s, (ids) => good(ids).map((r, i) => (i === 1 ? { ...r, vector: null } : r))), ['OCTX_VECTOR_NULL']],
      ['a null record id behind a non-nullable schema', withChunkArrow(s, (ids) => [...good(ids), { id: null, vector: [1, 1, 1, 1] }]), ['OCTX_VECTOR_NULL']],
    ];
    for (const [name, spec, expected] of cases) {
      it(`reports ${name}`, async () => {
        const r = await run(spec);
        vectorsInvalid(r, expected);
        expect(r.capabilities.vectors!.issues[0]!.path).toBe('vectors/chunks.arrow');
      });
    }

    it('reports truncated, padded and non-Arrow bytes as OCTX_VECTOR_ARROW_INVALID', async () => {
      const bytes = arrowFile(good(s.chunks.map((c) => c.id)), { dim: DIM });
      for (const broken of [
        bytes.subarray(0, bytes.length - 7),
        Buffer.concat([bytes, Buffer.from('junk')]),
        Buffer.from('not arrow at all, just text'),
        Buffer.concat([bytes.subarray(0, 8), Buffer.alloc(64, 0x41), bytes.subarray(bytes.length - 10)]),
      ]) {
        vectorsInvalid(await run(vectorPackage(s, { arrow: { chunks: broken } })), ['OCTX_VECTOR_ARROW_INVALID']);
      }
    });

    it('refuses a footer that lists other batches than the file holds', async () => {
      const ids = s.chunks.map((c) => c.id as string);
      const two = arrowFile(good(ids), { dim: DIM, batchSize: 3 });
      const one = arrowFile(good(ids), { dim: DIM });
      const footer = (b: Buffer): Buffer => b.subarray(b.length - 10 - b.readInt32LE(b.length - 10));
      // Stream part of the two-batch file, footer (+ length + magic) of the one-batch file.
      const mixed = Buffer.concat([two.subarray(0, two.length - footer(two).length), footer(one)]);
      const r = await run(vectorPackage(s, { arrow: { chunks: mixed } }));
      vectorsInvalid(r, ['OCTX_VECTOR_ARROW_INVALID']);
      expect(r.capabilities.vectors!.issues[0]!.message).toMatch(/footer/);
    });

    it('reports a dimension above maxArrowDimension and row/batch limits as OCTX_RESOURCE_LIMIT or DIMENSION_INVALID', async () => {
      const spec = vectorPackage(s);
      vectorsInvalid(await run(spec, { maxArrowDimension: 2 }), ['OCTX_VECTOR_DIMENSION_INVALID']);
      vectorsInvalid(await run(spec, { maxArrowRows: 3 }), ['OCTX_RESOURCE_LIMIT']);
      vectorsInvalid(await run(withChunkArrow(s, good, { batchSize: 1 }), { maxArrowBatches: 3 }), ['OCTX_RESOURCE_LIMIT']);
      vectorsInvalid(await run(spec, { maxArrowValues: 10 }), ['OCTX_RESOURCE_LIMIT']);
    });

    it('reports every bad row, with its record id', async () => {
      const r = await run(withChunkArrow(s, (ids) => good(ids).map((row) => ({ ...row, vector: [NaN, 0, 0, 0] }))));
      const issues = r.capabilities.vectors!.issues;
      expect(issues).toHaveLength(s.chunks.length);
      expect(issues.map((i) => i.recordId)).toEqual(s.chunks.map((c) => c.id));
    });

    it('checks every target, not only chunks', async () => {
      const r = await run(vectorPackage(s, { arrow: { entities: arrowFile(rowsFor(s.entities.map((e) => e.id).slice(1), DIM), { dim: DIM }) } }));
      vectorsInvalid(r, ['OCTX_VECTOR_COVERAGE']);
      expect(r.capabilities.vectors!.issues[0]).toMatchObject({ path: 'vectors/entities.arrow', recordId: s.entities[0].id });
    });
  });

  it('checks multi-megabyte batches read through the reused body buffers', async () => {
    // Bodies of ~1.5 MB span several 1 MiB stream chunks, so they go through the pooled path.
    const s = genStructure({ docs: 10, chunksPerDoc: 300 });
    const dim = 384;
    const ids = s.chunks.map((c) => c.id as string);
    const rows = rowsFor(ids, dim);
    const config = vectorConfig({ model: 'example/embedding-model', dimensions: dim, normalized: false });
    const ok = await run(vectorPackage(s, { dim, config, arrow: { chunks: arrowFile(rows, { dim, batchSize: 1000 }), events: null, entities: null } }));
    expect(ok.issues).toEqual([]);
    const bad = rows.map((r, i) => (i === 2500 || i === 10 ? { ...r, vector: r.vector!.map((v, k) => (k === 7 ? NaN : v)) } : r));
    const r = await run(vectorPackage(s, { dim, config, arrow: { chunks: arrowFile(bad, { dim, batchSize: 1000 }), events: null, entities: null } }));
    expect(r.capabilities.vectors!.issues.map((i) => [i.code, i.recordId])).toEqual([
      ['OCTX_VECTOR_VALUE_INVALID', ids[10]],
      ['OCTX_VECTOR_VALUE_INVALID', ids[2500]],
    ]);
  });
});
