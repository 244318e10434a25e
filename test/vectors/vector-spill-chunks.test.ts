/**
 * Issue 16, item 9: `VectorSpill.readRows` read a whole run of consecutive rows with one
 * `readSync`, and `readSync` refuses 2^31 bytes or more — one 8,192-row batch at width 65,536 —
 * so such an export failed with an I/O error. Reads are now cut into chunks of at most
 * `READ_CHUNK_BYTES`. Testing the real 2 GiB read needs a 2 GiB buffer; instead the chunk size
 * is lowered and every `readSync` length is recorded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as NodeFs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const reads: number[] = [];
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof NodeFs>();
  // readSync(fd, buffer, offset, length, position): record the length of every read.
  const readSync = (...args: unknown[]): number => {
    reads.push(args[3] as number);
    return (fs.readSync as (...a: unknown[]) => number)(...args);
  };
  return { ...fs, default: { ...fs, readSync }, readSync };
});

const { READ_CHUNK_BYTES, VectorSpill } = await import('../../src/vectors/vector-spill.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'octx-spill-chunks-'));
  reads.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('VectorSpill.readRows reads in bounded chunks', () => {
  it('the default chunk stays below the 2^31-byte limit of one readSync', () => {
    expect(READ_CHUNK_BYTES).toBeLessThan(2 ** 31);
    expect(READ_CHUNK_BYTES % 4).toBe(0);
  });

  it('a run of consecutive rows larger than the chunk is read in several reads, none above it, with the same values', () => {
    const dims = 5;
    const spill = new VectorSpill({ file: path.join(dir, 's.f32'), target: 'chunks', dimensions: dims, normalized: false, readChunkBytes: 48 });
    const rows = 40;
    for (let r = 0; r < rows; r++)
      spill.add(
        r,
        `r${r}`,
        Array.from({ length: dims }, (_, k) => r * 10 + k),
      );
    const into = new Float32Array(rows * dims);
    reads.length = 0;
    spill.readRows(
      Array.from({ length: rows }, (_, r) => r),
      into,
    );
    // 40 rows × 20 bytes = 800 bytes in one run: ⌈800 / 48⌉ reads, none above 48 bytes (and the
    // chunk is not a whole number of rows: a row may straddle two reads).
    expect(reads.length).toBe(Math.ceil((rows * dims * 4) / 48));
    expect(Math.max(...reads)).toBeLessThanOrEqual(48);
    expect(Array.from(into)).toEqual(Array.from({ length: rows * dims }, (_, i) => Math.floor(i / dims) * 10 + (i % dims)));
    // Out of order: runs are split by slot, each still chunked.
    const order = [39, 38, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    const some = new Float32Array(order.length * dims);
    reads.length = 0;
    spill.readRows(order, some);
    expect(Math.max(...reads)).toBeLessThanOrEqual(48);
    expect(Array.from(some.subarray(0, dims))).toEqual([390, 391, 392, 393, 394]);
    expect(Array.from(some.subarray(2 * dims, 3 * dims))).toEqual([0, 1, 2, 3, 4]);
    spill.close();
  });
});
