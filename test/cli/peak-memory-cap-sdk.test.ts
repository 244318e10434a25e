/**
 * The young-generation cap belongs to the CLI process only. An
 * application that imports the SDK (`src/index.ts`, the package's main entry) must not have its
 * V8 flags changed: `v8.setFlagsFromString` is never called, even once the new space has grown
 * past the CLI's cap, and the cap's module is not loaded. The control starts the cap in the same
 * kind of process and sees the calls.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/temp.js';

/** Runs `body` in a child (ESM, sources through tsx) with `v8.setFlagsFromString` counted; returns the calls and whether the cap's module was resolved. */
function flagCalls(body: string): { calls: string[]; capModuleLoaded: boolean } {
  const hook = `export async function resolve(s, c, next) {
    if (/peak-memory-cap/.test(s)) process.stderr.write('CAP-MODULE\\n');
    return next(s, c);
  }`;
  const script = `import { register, syncBuiltinESMExports } from 'node:module';
import v8 from 'node:v8';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
const calls = [];
const original = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => { calls.push(flags); return original(flags); };
syncBuiltinESMExports();
const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const keep = [];
async function churn() {
  for (let r = 0; r < 300 && newSpace() < (32 << 20); r++) {
    for (let i = 0; i < 20000; i++) { const o = { s: 'k' + i + r, n: [i, r] }; if (i % 3 === 0) keep.push(o); }
    if (keep.length > 300000) keep.splice(0, 150000);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
${body}
await churn();
await new Promise((resolve) => setTimeout(resolve, 50));
process.stdout.write(JSON.stringify(calls));
process.exit(0);`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return { calls: JSON.parse(r.stdout) as string[], capModuleLoaded: /^CAP-MODULE$/m.test(r.stderr) };
}

describe('the young-generation cap stays out of the SDK', () => {
  it('importing the SDK changes no V8 flag and loads no cap', () => {
    const { calls, capModuleLoaded } = flagCalls(`const sdk = await import('./src/index.ts'); if (typeof sdk !== 'object') throw new Error('no SDK');`);
    expect(calls).toEqual([]);
    expect(capModuleLoaded).toBe(false);
  }, 90_000);

  it('the cap, started, does call it (control)', () => {
    const { calls, capModuleLoaded } = flagCalls(`const { capYoungGeneration } = await import('./src/cli/peak-memory-cap.ts'); capYoungGeneration({ v8Options: [] });`);
    expect(capModuleLoaded).toBe(true);
    expect(calls).toContain('--semi-space-growth-factor=1');
  }, 90_000);
});
