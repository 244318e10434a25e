/**
 * Micro-measure of `addVector` (issue 23 item 3): 50,000 × 384 vectors of one input type, added
 * through the builder (to chunks added first) or straight to a `VectorSpill`; the best of REPS
 * runs of wall and CPU time, and the smallest heap growth over one run (run it with a young
 * generation large enough that no scavenge falls inside a run: then that is ≈ bytes allocated).
 *
 *   node --expose-gc --max-semi-space-size=256 --import tsx bench/add-vector.ts f32|f64|arr builder|spill [REPS]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PackageBuilder } from 'octx-export';
import { VectorSpill } from '../src/vectors/vector-spill.js';

const N = 50_000,
  D = 384,
  REPS = Number(process.argv[4] ?? 5);
const kind = process.argv[2] ?? 'f32';
const via = process.argv[3] ?? 'builder';
const ids = Array.from({ length: N }, (_, i) => `019b76da-a800-7000-9000-${i.toString(16).padStart(12, '0')}`);
const pool: (Float32Array | Float64Array | number[])[] = [];
for (let p = 0; p < 64; p++) {
  const a = Array.from({ length: D }, (_, i) => Math.sin(p * 31 + i) / Math.sqrt(D / 2));
  pool.push(kind === 'f32' ? Float32Array.from(a) : kind === 'f64' ? Float64Array.from(a) : a);
}
const dir = mkdtempSync(join(tmpdir(), 'addvec-'));
let best = Infinity,
  bestCpu = Infinity,
  heapMB = Infinity;
for (let r = 0; r < REPS; r++) {
  let run: (i: number) => void;
  let done: () => Promise<void>;
  if (via === 'builder') {
    const b = new PackageBuilder({
      asset: { name: 'x', id: '019b76da-a800-7000-8000-000000000001' },
      release: { version: '1.0.0', createdAt: '2026-01-01T00:00:00Z' },
      tempDir: dir,
    });
    b.setVectorConfig({ model: 'm', revision: '1', dimensions: D, normalized: true, pooling: 'mean' });
    for (let i = 0; i < N; i++) b.addChunk({ id: ids[i]!, document_id: '019b76da-a800-7000-8000-000000000002', ordinal: i, text: 'x' });
    run = (i) => void b.addVector('chunks', ids[i]!, pool[i % 64]!);
    done = () => b.dispose();
  } else {
    const s = new VectorSpill({ file: join(dir, `c${r}.f32`), target: 'chunks', dimensions: D, normalized: true });
    run = (i) => s.add(i, ids[i]!, pool[i % 64]!);
    done = async () => s.close();
  }
  globalThis.gc?.();
  const h0 = process.memoryUsage().heapUsed;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) run(i);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  heapMB = Math.min(heapMB, (process.memoryUsage().heapUsed - h0) / 2 ** 20);
  best = Math.min(best, ms);
  bestCpu = Math.min(bestCpu, (cpu.user + cpu.system) / 1000);
  await done();
}
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    via,
    kind,
    n: N,
    dims: D,
    bestWallMs: +best.toFixed(1),
    bestCpuMs: +bestCpu.toFixed(1),
    nsPerVector: Math.round((bestCpu * 1e6) / N),
    heapGrowthMB: +heapMB.toFixed(2),
  }),
);
