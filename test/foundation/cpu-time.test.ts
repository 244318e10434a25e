/**
 * The CPU time the test profile gives each file (test/helpers/cpu-time.ts): this process's own,
 * and that of the children it started and waited for — what a CLI test mostly costs.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cpuSpent, cpuTime } from '../helpers/cpu-time.js';

/** A program that spends `ms` of CPU time (not wall time: the machine may be loaded) and ends. */
const BUSY = (ms: number): string => `const s = process.cpuUsage(); while ((({ user, system }) => user + system)(process.cpuUsage(s)) < ${ms * 1000});`;

/** Spends `ms` of this process's CPU time. */
function busy(ms: number): void {
  const start = process.cpuUsage();
  for (let spent = 0; spent < ms * 1000;) {
    const { user, system } = process.cpuUsage(start);
    spent = user + system;
  }
}

describe('the CPU time of a test file', () => {
  it('counts work done in this process, and not a sleep', async () => {
    const start = cpuTime();
    busy(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const spent = cpuSpent(start, cpuTime());
    // /proc counts in 10 ms ticks; the sleep adds nothing.
    expect(spent.ownMs).toBeGreaterThanOrEqual(180);
    expect(spent.ownMs).toBeLessThan(450);
    expect(spent.childMs).toBe(0);
  });

  it.runIf(process.platform === 'linux')('counts a child it waited for, apart from its own', () => {
    const start = cpuTime();
    const child = spawnSync(process.execPath, ['-e', BUSY(300)]);
    expect(child.status).toBe(0);
    const spent = cpuSpent(start, cpuTime());
    expect(spent.childMs).toBeGreaterThanOrEqual(280);
    expect(spent.ownMs).toBeLessThan(spent.childMs);
  });
});
