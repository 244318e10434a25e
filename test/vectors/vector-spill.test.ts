import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OctxError } from '../../src/model/errors.js';
import { VectorSpill } from '../../src/vectors/vector-spill.js';

let dir: string;
const spills: VectorSpill[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'octx-spill-'));
});
afterEach(() => {
  for (const s of spills.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

function spill(dimensions: number, normalized = false): VectorSpill {
  const s = new VectorSpill({ file: path.join(dir, `s${spills.length}.f32`), target: 'chunks', dimensions, normalized });
  spills.push(s);
  return s;
}

function caught(fn: () => unknown): OctxError {
  try {
    fn();
  } catch (e) {
    if (e instanceof OctxError) return e;
    throw e;
  }
  throw new Error('expected an OctxError');
}

describe('VectorSpill', () => {
  it('stores vectors on disk and reads them back in any order', () => {
    const s = spill(3);
    s.add(2, 'c', [7, 8, 9]);
    s.add(0, 'a', new Float32Array([1, 2, 3]));
    s.add(1, 'b', [4, 5, 6]);
    expect(s.size).toBe(3);
    expect([s.has(0), s.has(1), s.has(2), s.has(3), s.has(-1)]).toEqual([true, true, true, false, false]);
    const out = new Float32Array(9);
    s.readRows([0, 1, 2], out);
    expect(Array.from(out)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    s.readRows(Int32Array.of(2, 2, 0), out);
    expect(Array.from(out)).toEqual([7, 8, 9, 7, 8, 9, 1, 2, 3]);
    s.flush();
    expect(statSync(s.file).size).toBe(9 * 4);
  });

  it('keeps float32 bits exactly', () => {
    const s = spill(4);
    const v = new Float32Array([Math.fround(0.1), -0, 1.401298464324817e-45, -3.4028234663852886e38]);
    s.add(0, 'x', v);
    const out = new Float32Array(4);
    s.readRows([0], out);
    expect(new Uint32Array(out.buffer)).toEqual(new Uint32Array(v.buffer));
  });

  it('handles many rows across write-buffer flushes and sparse indexes', () => {
    const dims = 300; // 1200-byte rows: the 1 MiB buffer flushes several times
    const s = spill(dims);
    const n = 3000;
    const row = new Float32Array(dims);
    for (let i = 0; i < n; i++) {
      row.fill(i);
      row[0] = -i;
      s.add(i * 2 + 5000, `r${i}`, row);
    }
    expect(s.size).toBe(n);
    const wanted = [0, 1, 2, 2999, 1500, 1501].map((i) => i * 2 + 5000);
    const out = new Float32Array(wanted.length * dims);
    s.readRows(wanted, out);
    wanted.forEach((idx, k) => {
      const i = (idx - 5000) / 2;
      expect(out[k * dims]).toBe(-i);
      expect(out[k * dims + dims - 1]).toBe(i);
    });
    s.close();
    expect(statSync(s.file).size).toBe(n * dims * 4);
  });

  it('refuses a vector of the wrong length', () => {
    const s = spill(3);
    const e = caught(() => s.add(0, 'rec-1', [1, 2]));
    expect(e.code).toBe('OCTX_VECTOR_VALUE_INVALID');
    expect(e.issues[0]).toMatchObject({ recordId: 'rec-1', field: 'vector', path: 'vectors/chunks.arrow' });
    expect(e.message).toContain('2 elements, expected 3');
    expect(s.has(0)).toBe(false);
  });

  it.each([
    ['NaN', Number.NaN],
    ['+Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
  ])('refuses %s and names the element', (_name, bad) => {
    const s = spill(3);
    const e = caught(() => s.add(4, 'rec-2', [0.5, 0.25, bad]));
    expect(e.code).toBe('OCTX_VECTOR_VALUE_INVALID');
    expect(e.issues[0]).toMatchObject({ recordId: 'rec-2', field: 'vector' });
    expect(e.message).toContain('element 2');
    expect(s.has(4)).toBe(false);
    expect(s.size).toBe(0);
    // The failed row left nothing behind: the next row lands in slot 0.
    s.add(4, 'rec-2', [1, 2, 3]);
    const out = new Float32Array(3);
    s.readRows([4], out);
    expect(Array.from(out)).toEqual([1, 2, 3]);
  });

  it('refuses a value that overflows float32', () => {
    const s = spill(1);
    const e = caught(() => s.add(0, 'big', [1e39]));
    expect(e.code).toBe('OCTX_VECTOR_VALUE_INVALID');
    expect(e.message).toContain('overflows float32');
  });

  it.each([
    ['Float32Array', (v: number[]) => new Float32Array(v)],
    ['Float64Array', (v: number[]) => new Float64Array(v)],
  ])('refuses a non-finite element of a %s, naming the first one, and stores nothing', (_name, make) => {
    const s = spill(4, true);
    for (const [bad, at] of [
      [[0.5, Number.NaN, 0.5, Number.POSITIVE_INFINITY], 1],
      [[0.5, 0.5, 0.5, Number.NEGATIVE_INFINITY], 3],
    ] as const) {
      const e = caught(() => s.add(0, 'rec-t', make([...bad])));
      expect(e.code).toBe('OCTX_VECTOR_VALUE_INVALID');
      expect(e.issues[0]).toMatchObject({ recordId: 'rec-t', field: 'vector' });
      expect(e.message).toContain(`element ${at} is`);
      expect(e.message).toContain('must be finite');
    }
    expect(s.size).toBe(0);
    expect(s.normWarnings.count).toBe(0);
    s.add(0, 'rec-t', make([0.5, 0.5, 0.5, 0.5]));
    const out = new Float32Array(4);
    s.readRows([0], out);
    expect(Array.from(out)).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(s.normWarnings.count).toBe(0);
  });

  it('tells a float64 beyond float32 (overflow) from a non-finite one, in element order', () => {
    const s = spill(3);
    const over = caught(() => s.add(0, 'o', new Float64Array([1, 1e39, Number.NaN])));
    expect(over.message).toContain('element 1 (1e+39) overflows float32');
    const nan = caught(() => s.add(0, 'n', new Float64Array([1, Number.NaN, 1e39])));
    expect(nan.message).toContain('element 1 is NaN');
    // A plain array is checked element by element while it is written: a string after an
    // overflow is not reached, and a string is never coerced.
    expect(caught(() => s.add(0, 'a', [1, 1e39, '2' as unknown as number])).message).toContain('element 1 (1e+39) overflows float32');
    expect(caught(() => s.add(0, 'a', [1, '2' as unknown as number, 3])).message).toContain('element 1 is string "2"');
    expect(s.size).toBe(0);
  });

  it('stores float64 and number[] input rounded to float32 exactly as element assignment does, and counts non-unit norms', () => {
    const s = spill(3, true);
    const v = [0.1, 1 / 3, Math.SQRT1_2];
    s.add(0, 'f64', new Float64Array(v));
    s.add(1, 'arr', v);
    s.add(2, 'f32', new Float32Array(v));
    s.add(3, 'long', [3, 4, 0]);
    const out = new Float32Array(12);
    s.readRows([0, 1, 2, 3], out);
    const want = new Float32Array(v);
    for (const row of [0, 1, 2]) expect(new Uint32Array(out.slice(row * 3, row * 3 + 3).buffer)).toEqual(new Uint32Array(want.buffer));
    expect(Array.from(out.subarray(9))).toEqual([3, 4, 0]);
    // 0.1² + (1/3)² + ½ ≈ 0.62 and 25 are both off unit length.
    expect(s.normWarnings).toEqual({ count: 4, sample: ['f64', 'arr', 'f32', 'long'] });
  });

  it('refuses a second vector for the same record', () => {
    const s = spill(2);
    s.add(7, 'rec-7', [1, 2]);
    const e = caught(() => s.add(7, 'rec-7', [3, 4]));
    expect(e.code).toBe('OCTX_VECTOR_RECORD_ID_DUPLICATE');
    expect(e.issues[0]?.recordId).toBe('rec-7');
    expect(s.size).toBe(1);
  });

  it('refuses a bad record index and a bad width', () => {
    const s = spill(2);
    expect(caught(() => s.add(-1, 'x', [1, 2])).code).toBe('OCTX_OPTIONS_INVALID');
    expect(caught(() => s.add(1.5, 'x', [1, 2])).code).toBe('OCTX_OPTIONS_INVALID');
    for (const d of [0, 65_537, 2.5]) {
      expect(caught(() => new VectorSpill({ file: path.join(dir, 'bad'), target: 'events', dimensions: d, normalized: false })).code).toBe('OCTX_VECTOR_DIMENSION_INVALID');
    }
  });

  it('reports a missing record when reading', () => {
    const s = spill(2);
    s.add(0, 'a', [1, 2]);
    expect(caught(() => s.readRows([0, 3], new Float32Array(4))).code).toBe('OCTX_VECTOR_COVERAGE');
    expect(caught(() => s.readRows([0], new Float32Array(1))).code).toBe('OCTX_OPTIONS_INVALID');
  });

  it('counts non-unit vectors only when normalized, keeping up to 10 samples', () => {
    const s = spill(2, true);
    s.add(0, 'unit', [0.6, 0.8]);
    s.add(1, 'almost', [0.6, 0.8005]);
    for (let i = 0; i < 12; i++) s.add(10 + i, `long-${i}`, [1, 1]);
    expect(s.normWarnings.count).toBe(12);
    expect(s.normWarnings.sample).toEqual(Array.from({ length: 10 }, (_, i) => `long-${i}`));
    const plain = spill(2, false);
    plain.add(0, 'long', [3, 4]);
    expect(plain.normWarnings).toEqual({ count: 0, sample: [] });
  });

  it('truncates an existing spill file and refuses use after close', () => {
    const s = spill(1);
    s.add(0, 'a', [1]);
    s.close();
    s.close(); // idempotent
    expect(caught(() => s.add(1, 'b', [2])).code).toBe('OCTX_IO_ERROR');
    const again = new VectorSpill({ file: s.file, target: 'chunks', dimensions: 1, normalized: false });
    spills.push(again);
    expect(statSync(s.file).size).toBe(0);
  });
});

describe('VectorSpill input digests and replacement', () => {
  const hex = (c: string): string => c.repeat(64);

  it('keeps one digest per row beside the vectors, across flushes, and reads them in any order', () => {
    // 70 000 × 4 floats = 1.1 MB: more than one write buffer, so digests are flushed with rows.
    const s = spill(4);
    const n = 70_000;
    const digest = (i: number): string => (i.toString(16).padStart(8, '0') + 'a'.repeat(56)).slice(0, 64);
    for (let i = 0; i < n; i++) s.add(i, `r${i}`, [i, 0, 0, 0], { inputSha256: digest(i) });
    expect(s.hasInputSha256).toBe(true);
    const into = new Uint8Array(3 * 64);
    s.readInputSha256([n - 1, 0, 40_000], into);
    expect(Buffer.from(into).toString('latin1')).toBe(digest(n - 1) + digest(0) + digest(40_000));
    expect(s.inputSha256Of(12_345)).toBe(digest(12_345));
  });

  it('is all or none, refuses malformed digests, and stores nothing when it throws', () => {
    const s = spill(2);
    s.add(0, 'a', [1, 2], { inputSha256: hex('0') });
    const without = caught(() => s.add(1, 'b', [1, 2]));
    expect([without.code, without.issues[0]?.recordId, without.issues[0]?.field]).toEqual(['OCTX_VECTOR_INPUT_SHA256_INVALID', 'b', 'input_sha256']);
    expect(caught(() => s.add(1, 'b', [1, 2], { inputSha256: hex('A') })).code).toBe('OCTX_VECTOR_INPUT_SHA256_INVALID');
    expect(caught(() => s.add(1, 'b', [1, 2], { inputSha256: 'abc' })).code).toBe('OCTX_VECTOR_INPUT_SHA256_INVALID');
    expect(s.size).toBe(1);
    expect(s.has(1)).toBe(false);

    const t = spill(2);
    t.add(0, 'a', [1, 2]);
    expect(t.hasInputSha256).toBe(false);
    expect(t.inputSha256Of(0)).toBeUndefined();
    expect(caught(() => t.add(1, 'b', [1, 2], { inputSha256: hex('1') })).code).toBe('OCTX_VECTOR_INPUT_SHA256_INVALID');
  });

  it('replaces a vector (and its digest) only when asked; the record count stays', () => {
    const s = spill(2);
    s.add(0, 'a', [1, 1], { inputSha256: hex('1') });
    s.add(1, 'b', [2, 2], { inputSha256: hex('2') });
    expect(caught(() => s.add(0, 'a', [9, 9], { inputSha256: hex('9') })).code).toBe('OCTX_VECTOR_RECORD_ID_DUPLICATE');
    s.add(0, 'a', [9, 9], { inputSha256: hex('9'), replace: true });
    expect(s.size).toBe(2);
    const out = new Float32Array(4);
    s.readRows([0, 1], out);
    expect(Array.from(out)).toEqual([9, 9, 2, 2]);
    expect(s.inputSha256Of(0)).toBe(hex('9'));
    expect(s.inputSha256Of(1)).toBe(hex('2'));
  });
});
