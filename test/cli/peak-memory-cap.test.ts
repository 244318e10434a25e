import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { userSizesYoungGeneration } from '../../src/cli/peak-memory-cap.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..');
const MiB = 1 << 20;

/**
 * Runs `body` in a fresh Node process (V8 flags are process-wide: they must not be changed in the
 * test runner's own process) with `churn(rounds)` at hand: it allocates objects of which a quarter
 * survive for a while, yields to the event loop after every round, and returns the largest
 * new-space capacity it saw.
 */
function inChild(body: string): Record<string, number> {
  const script = `
    import { capYoungGeneration, newSpaceBytes } from './src/cli/peak-memory-cap.ts';
    const keep = [];
    async function churn(rounds) {
      let max = 0;
      for (let r = 0; r < rounds; r++) {
        for (let i = 0; i < 5000; i++) {
          const o = { s: 'k' + i + ':' + r, n: [i, r] };
          if (i % 4 === 0) keep.push(o);
        }
        if (keep.length > 100000) keep.splice(0, 50000);
        max = Math.max(max, newSpaceBytes());
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return max;
    }
    ${body}
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as Record<string, number>;
}

describe('capYoungGeneration (the CLI keeps V8 from growing its new space past a cap)', () => {
  it('stops the new space at the cap, and gives V8 its growth back when stopped', () => {
    const { capped, free } = inChild(`
      const stop = capYoungGeneration({ capBytes: 4 << 20, pollMs: 1, v8Options: [] });
      const capped = await churn(300);
      stop();
      const free = await churn(300);
      console.log(JSON.stringify({ capped, free }));
    `);
    expect(capped).toBeGreaterThan(0);
    expect(capped).toBeLessThanOrEqual(4 * MiB);
    // The same work without the cap grows it further: the cap is what held it.
    expect(free).toBeGreaterThan(4 * MiB);
  });

  it('holds the cap across a worker thread started meanwhile (V8 resets the factor for every new isolate)', () => {
    const { before, after } = inChild(`
      const { Worker } = await import('node:worker_threads');
      capYoungGeneration({ capBytes: 4 << 20, pollMs: 1, v8Options: [] });
      const before = await churn(150);
      const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
      await new Promise((resolve) => worker.once('online', resolve));
      worker.unref();
      const after = await churn(300);
      console.log(JSON.stringify({ before, after }));
      process.exit(0);
    `);
    expect(before).toBeLessThanOrEqual(4 * MiB);
    expect(after).toBeLessThanOrEqual(4 * MiB);
  });

  it('leaves a young generation the user sized alone', () => {
    const { grown } = inChild(`
      capYoungGeneration({ capBytes: 4 << 20, pollMs: 1, v8Options: ['--max-semi-space-size=16'] });
      console.log(JSON.stringify({ grown: await churn(300) }));
    `);
    expect(grown).toBeGreaterThan(4 * MiB);
  });

  it('recognises the V8 options that size the young generation', () => {
    expect(userSizesYoungGeneration(['--max-semi-space-size=8'])).toBe(true);
    expect(userSizesYoungGeneration(['--max_semi_space_size=8'])).toBe(true);
    expect(userSizesYoungGeneration(['--min-semi-space-size=2'])).toBe(true);
    expect(userSizesYoungGeneration(['--semi-space-growth-factor=4'])).toBe(true);
    expect(userSizesYoungGeneration(['--max-young-generation-size=24'])).toBe(true);
    expect(userSizesYoungGeneration(['--max-old-space-size=512', '--enable-source-maps', ''])).toBe(false);
    expect(userSizesYoungGeneration([])).toBe(false);
  });
});
