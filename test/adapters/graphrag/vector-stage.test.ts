/**
 * The adapter's vector stage: rows pushed while a source is checked come back from disk exactly
 * (float32 bytes, record indexes, order), also across the write buffer and read chunks; a stage
 * that cannot create its file is OCTX_IO_ERROR naming it; the stage folder goes whatever happens.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { VectorStage, withStageDir } from '../../../src/adapters/graphrag/vector-stage.js';
import { failure } from '../../helpers/errors.js';
import { tempDir } from '../../helpers/temp.js';

/** Row `r` of width `dims`: distinct float32 values (r * dims + i) / 7. */
const rowOf = (r: number, dims: number): Float32Array => Float32Array.from({ length: dims }, (_, i) => (r * dims + i) / 7);

function replayed(stage: VectorStage): { records: number[]; rows: Float32Array[] } {
  const records: number[] = [];
  const rows: Float32Array[] = [];
  // The vector is a view of a reused buffer: copied here.
  stage.replay((record, vector) => {
    records.push(record);
    rows.push(vector.slice());
  });
  return { records, rows };
}

describe('VectorStage', () => {
  it('gives back every pushed row and its record, in order (narrow rows: one buffer)', () => {
    const stage = new VectorStage(tempDir(), 'chunks', 3);
    const records = [5, 0, 9, 2];
    records.forEach((r, i) => stage.push(r, rowOf(i, 3)));
    expect(stage.rows).toBe(4);
    const out = replayed(stage);
    stage.close();
    expect(out.records).toEqual(records);
    expect(out.rows).toEqual(records.map((_, i) => rowOf(i, 3)));
  });

  it('rows wider than a quarter of the 1 MiB buffer: flushed and read back two at a time, byte for byte', () => {
    const dims = 100_000;
    const stage = new VectorStage(tempDir(), 'entities', dims);
    for (let i = 0; i < 5; i++) stage.push(100 + i, rowOf(i, dims));
    const out = replayed(stage);
    stage.close();
    expect(out.records).toEqual([100, 101, 102, 103, 104]);
    for (let i = 0; i < 5; i++) expect(Buffer.from(out.rows[i]!.buffer).equals(Buffer.from(rowOf(i, dims).buffer)), `row ${i}`).toBe(true);
  });

  it('a folder that does not exist: OCTX_IO_ERROR naming the stage file', () => {
    const dir = join(tempDir(), 'gone');
    const e = failure(() => new VectorStage(dir, 'chunks', 4));
    expect(e.code).toBe('OCTX_IO_ERROR');
    expect(e.issues[0]!.path).toBe(join(dir, 'chunks.f32'));
  });

  it('withStageDir makes its folder in the parent given (the OS temp folder by default), and removes it after use and after a failure', async () => {
    const parent = tempDir();
    let seen = '';
    await withStageDir(parent, async (dir) => {
      seen = dir;
      new VectorStage(dir, 'chunks', 2).close();
      expect(readdirSync(dir)).toContain('chunks.f32');
    });
    expect(dirname(seen)).toBe(parent);
    expect(basename(seen)).toMatch(/^octx-graphrag-stage-/);
    expect(existsSync(seen)).toBe(false);
    await expect(
      withStageDir(undefined, async (dir) => {
        seen = dir;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(dirname(seen)).toBe(tmpdir());
    expect(existsSync(seen)).toBe(false);
  });
});
