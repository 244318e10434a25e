import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OctxError } from '../../src/model/errors.js';
import { writeArrowTarget } from '../../src/vectors/arrow-writer.js';
import { VectorSpill } from '../../src/vectors/vector-spill.js';

// The batch buffers are reused from batch to batch, and the file is hashed as it is written, never
// re-read (issue 23 looked at overlapping a batch's write with building the next one): the file
// must hold exactly the bytes hashed, in order, whatever the batching — a buffer reused while its
// write still runs fails the first test — and a failed write must fail the call and leave no file.

let dir: string;
const spills: VectorSpill[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'octx-arrow-pipe-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  for (const s of spills.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

const DIMS = 16;
function filledSpill(rows: number): VectorSpill {
  const s = new VectorSpill({ file: path.join(dir, `spill-${spills.length}.f32`), target: 'chunks', dimensions: DIMS, normalized: false });
  spills.push(s);
  for (let i = 0; i < rows; i++)
    s.add(
      i,
      `id-${i}`,
      Float32Array.from({ length: DIMS }, (_, k) => Math.fround(i * 0.5 + k / 7)),
    );
  return s;
}
// Ids of varying length, so that the id buffers of the two sets differ batch to batch (and grow).
const idOf = (i: number): string => `r${i}-${'x'.repeat((i * 37) % 90)}`;
const rowsOf = (n: number): { recordIndex: number; id: string }[] => Array.from({ length: n }, (_, i) => ({ recordIndex: i, id: idOf(i) }));

describe('writeArrowTarget: reused batch buffers, bytes hashed as written', () => {
  it('writes the bytes it hashed, and every row in order, for any batching', async () => {
    const spill = filledSpill(1000);
    const shas: string[] = [];
    for (const batchRows of [1, 7, 64, 999, 1000, 5000]) {
      const outPath = path.join(dir, `b${batchRows}.arrow`);
      const r = await writeArrowTarget({ spill, rows: rowsOf(1000), outPath, batchRows });
      const bytes = readFileSync(outPath);
      expect(r.size).toBe(bytes.length);
      expect(r.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      const table = tableFromIPC(bytes);
      expect(table.numRows).toBe(1000);
      const ids = table.getChild('record_id')!.toArray() as string[];
      expect(ids).toEqual(rowsOf(1000).map((r) => r.id));
      const vec = table.getChild('vector')!;
      for (const i of [0, 1, 6, 7, 63, 64, 500, 999])
        expect(Array.from(vec.get(i)!.toArray() as Float32Array)).toEqual(Array.from({ length: DIMS }, (_, k) => Math.fround(i * 0.5 + k / 7)));
      shas.push(r.sha256);
    }
    // The same batching always gives the same bytes.
    const again = await writeArrowTarget({ spill, rows: rowsOf(1000), outPath: path.join(dir, 'again.arrow'), batchRows: 7 });
    expect(again.sha256).toBe(shas[1]);
  });

  it('a write that fails (late, mid-file): OCTX_IO_ERROR, no file, no write left running', async () => {
    const spill = filledSpill(300);
    const probe = await open(path.join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { writev: (...a: unknown[]) => Promise<unknown> };
    await probe.close();
    const real = proto.writev;
    let calls = 0;
    let settled = 0;
    vi.spyOn(proto, 'writev').mockImplementation(function (this: unknown, ...args: unknown[]) {
      calls += 1;
      // The third write (the second batch) fails, after a delay.
      const p =
        calls === 3
          ? new Promise((_, reject) => setTimeout(() => reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC', syscall: 'write' })), 20))
          : real.apply(this, args);
      return p.finally(() => void (settled += 1));
    });
    const outPath = path.join(dir, 'fail.arrow');
    let error: unknown;
    try {
      await writeArrowTarget({ spill, rows: rowsOf(300), outPath, batchRows: 50 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OctxError);
    expect((error as OctxError).code).toBe('OCTX_IO_ERROR');
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(settled).toBe(calls);
    expect(existsSync(outPath)).toBe(false);
  });
  it('a short writev is completed by plain writes: the same bytes as without one', async () => {
    const spill = filledSpill(300);
    const whole = await writeArrowTarget({ spill, rows: rowsOf(300), outPath: path.join(dir, 'whole.arrow'), batchRows: 50 });
    const probe = await open(path.join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { writev: (...a: unknown[]) => Promise<{ bytesWritten: number }>; write: (...a: unknown[]) => Promise<unknown> };
    await probe.close();
    const realV = proto.writev;
    let shortened = 0;
    // Every writev writes only its first piece and half of the second (when there is one).
    vi.spyOn(proto, 'writev').mockImplementation(function (this: unknown, pieces: unknown, position: unknown) {
      const list = pieces as Uint8Array[];
      if (list.length < 2) return realV.call(this, list, position);
      shortened += 1;
      const part = [list[0]!, list[1]!.subarray(0, list[1]!.byteLength >> 1)];
      return realV.call(this, part, position);
    });
    const write = vi.spyOn(proto, 'write');
    let r;
    try {
      r = await writeArrowTarget({ spill, rows: rowsOf(300), outPath: path.join(dir, 'short.arrow'), batchRows: 50 });
    } finally {
      vi.restoreAllMocks();
    }
    expect(shortened).toBeGreaterThan(0);
    expect(write).toHaveBeenCalled();
    expect(r.sha256).toBe(whole.sha256);
    expect(readFileSync(path.join(dir, 'short.arrow')).equals(readFileSync(path.join(dir, 'whole.arrow')))).toBe(true);
  });
});
