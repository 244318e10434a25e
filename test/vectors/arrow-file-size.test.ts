/**
 * The one size formula of a vector target's Arrow file (`vectors/arrow-file-size.ts`): exact for
 * record ids of one width, a bound for any ids, and what the planner checks the limits with.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PackageBuilder } from '../../src/index.js';
import { isOctxError } from '../../src/model/errors.js';
import { DEFAULT_BATCH_ROWS, RECORD_ID_BYTES, arrowFileSize } from '../../src/vectors/arrow-file-size.js';
import { writeArrowTarget } from '../../src/vectors/arrow-writer.js';
import { VectorSpill } from '../../src/vectors/vector-spill.js';
import { inspectZip } from '../helpers/zip-inspect.js';
import { tempDir } from '../helpers/temp.js';

const spills: VectorSpill[] = [];
afterEach(() => {
  for (const s of spills.splice(0)) s.close();
});

const uuid = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

/** Writes `ids` with `dimensions` floats each (and digests) and returns the file's size. */
async function written(ids: readonly string[], dimensions: number, digests: boolean, batchRows?: number): Promise<number> {
  const dir = tempDir();
  const spill = new VectorSpill({ file: join(dir, 'v.f32'), target: 'chunks', dimensions, normalized: false });
  spills.push(spill);
  ids.forEach((id, i) => spill.add(i, id, new Float32Array(dimensions).fill(i / 7), digests ? { inputSha256: (i % 16).toString(16).repeat(64) } : undefined));
  const out = join(dir, 'v.arrow');
  const r = await writeArrowTarget({ spill, rows: ids.map((id, i) => ({ recordIndex: i, id })), outPath: out, ...(batchRows === undefined ? {} : { batchRows }) });
  expect(statSync(out).size).toBe(r.size);
  return r.size;
}

describe('arrowFileSize', () => {
  const shapes: [rows: number, dimensions: number, digests: boolean, batchRows: number | undefined][] = [
    [0, 4, false, undefined],
    [1, 1, false, undefined],
    [1, 3, true, undefined],
    [2, 4, false, undefined],
    [7, 5, true, undefined],
    [100, 3, false, 7],
    [33, 1, true, 4],
    [33, 384, true, 32],
    [DEFAULT_BATCH_ROWS, 8, false, undefined],
    [DEFAULT_BATCH_ROWS + 1, 2, true, undefined],
  ];

  it.each(shapes)('is the exact size the writer writes for UUID ids: %i rows × %i, digests %s, batches of %s', async (rows, dimensions, digests, batchRows) => {
    const ids = Array.from({ length: rows }, (_, i) => uuid(i));
    const size = await written(ids, dimensions, digests, batchRows);
    expect(arrowFileSize({ rows, dimensions, digests, idBytes: { each: RECORD_ID_BYTES }, ...(batchRows === undefined ? {} : { batchRows }) })).toBe(size);
  });

  it('is a close upper bound for ids of any width (UTF-8 bound from UTF-16 units)', async () => {
    // Ids of 1 to 40 characters, some of them three UTF-8 bytes each: the padding of each batch differs.
    const ids = Array.from({ length: 61 }, (_, i) => (i % 3 === 0 ? '章'.repeat(1 + (i % 13)) : 'x'.repeat(1 + (i % 40))));
    const units = ids.reduce((n, id) => n + id.length, 0);
    const utf8 = ids.reduce((n, id) => n + Buffer.byteLength(id), 0);
    for (const [digests, batchRows] of [
      [false, 8],
      [true, 5],
      [true, undefined],
    ] as const) {
      const size = await written(ids, 3, digests, batchRows);
      const shape = { rows: ids.length, dimensions: 3, digests, ...(batchRows === undefined ? {} : { batchRows }) };
      const tight = arrowFileSize({ ...shape, idBytes: { atMost: utf8 } });
      expect(tight).toBeGreaterThanOrEqual(size);
      // Only the padding of each batch's id bytes is guessed.
      expect(tight - size).toBeLessThanOrEqual(7 * Math.ceil(ids.length / (batchRows ?? DEFAULT_BATCH_ROWS)));
      expect(arrowFileSize({ ...shape, idBytes: { atMost: units * 3 } })).toBeGreaterThanOrEqual(tight);
    }
  });

  it('is what the planner checks maxFileSize with: a target of exactly the limit is written, one byte less refuses it', async () => {
    const doc = uuid(0xd0);
    const build = (): PackageBuilder => {
      const b = new PackageBuilder({ asset: { id: uuid(1), name: 'Sized' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } })
        .addDocument({ path: 'a.md', markdown: `---\noctx:\n  document_id: ${doc}\n---\n# A\n\nOne.\n` })
        .addEvent({ id: uuid(0x21), title: 'E', content: 'Something happened.' })
        .addEntity({ id: uuid(0x31), name: 'Someone', type: 'person' })
        .linkEventEntity({ event_id: uuid(0x21), entity_id: uuid(0x31) })
        .setVectorConfig({ model: 'example/model', revision: 'r1', dimensions: 64, normalized: false });
      for (let i = 0; i < 40; i++) {
        b.addChunk({ id: uuid(0x100 + i), document_id: doc, ordinal: i, text: `Chunk ${i}.` }).linkChunkEvent({ chunk_id: uuid(0x100 + i), event_id: uuid(0x21) });
        b.addVector(
          'chunks',
          uuid(0x100 + i),
          Array.from({ length: 64 }, (_, k) => i + k / 64),
        );
      }
      return b;
    };
    // The Arrow file is the largest entry, so maxFileSize bites on it alone.
    const expected = arrowFileSize({ rows: 40, dimensions: 64, digests: false, idBytes: { each: RECORD_ID_BYTES } });
    const out = join(tempDir(), 'sized.octx');
    await build().export({ output: out, limits: { maxFileSize: expected } });
    expect(inspectZip(out).find((e) => e.name === 'vectors/chunks.arrow')!.data.length).toBe(expected);

    let refused: unknown;
    try {
      await build().export({ output: join(tempDir(), 'over.octx'), limits: { maxFileSize: expected - 1 } });
    } catch (e) {
      refused = e;
    }
    expect(isOctxError(refused) && refused.code).toBe('OCTX_RESOURCE_LIMIT');
    expect(isOctxError(refused) && refused.issues.map((i) => [i.code, i.path])).toEqual([['OCTX_RESOURCE_LIMIT', 'vectors/chunks.arrow']]);
  });
});
