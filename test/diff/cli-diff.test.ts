import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { diffPackages } from '../../src/index.js';
import { jsonOf, runCli } from '../cli/run-cli.js';
import { C2, C3, C4, D1, release100, release110 } from './fixtures.js';

let dir: string;
let a: string;
let b: string;
let same: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'octx-cli-diff-'));
  a = await release100(dir);
  b = await release110(dir);
  same = await release100(dir, 'kb-1.0.1.octx', '1.0.1');
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('octx-export diff', () => {
  it('prints a readable summary: counts per category, first ids and paths, sizes', async () => {
    const r = await runCli(['diff', a, b]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/^diff .*kb-1\.0\.0\.octx → .*kb-1\.1\.0\.octx\n/);
    expect(out).toMatch(/ {2}old {13}019c0000-0000-7000-8000-0000000000a0 "KB" 1\.0\.0 \([0-9.]+ KiB, sha256:[0-9a-f]{64}\)/);
    expect(out).toContain('  relation        same-asset\n');
    expect(out).toContain('  documents       +1 -1 ~1 →1 (0 unchanged)\n');
    expect(out).toContain(`→ knowledge/a.md → knowledge/notes/a.md (${D1})`);
    expect(out).toContain('+ knowledge/d.md');
    expect(out).toContain('- knowledge/c.md');
    expect(out).toContain(`  chunks          +1 -1 ~1 (1 unchanged)\n                  first: + ${C4}; - ${C3}; ~ ${C2}\n`);
    expect(out).toContain('  event-entities  +0 -1 ~1 (2 unchanged)\n');
    expect(out).toContain(`  vectors chunks  +1 -1 ~0 (2 unchanged) [1 stale: record changed, vector did not]\n                  first: + ${C4}; - ${C3}; stale ${C2}\n`);
    expect(out).toContain('  extensions      + extensions/com.example.tool/0.1/notes.txt\n');
    expect(out).toMatch(/ {2}result {10}changed\n$/);
  });

  it('--json prints the SDK result', async () => {
    const r = await runCli(['diff', a, b, '--json']);
    expect(r.code).toBe(0);
    const { ok, command, ...rest } = jsonOf(r);
    expect({ ok, command }).toEqual({ ok: true, command: 'diff' });
    expect(rest).toEqual(JSON.parse(JSON.stringify(await diffPackages(a, b))));
  });

  it('--exit-code: 1 when anything changed, 0 when nothing did', async () => {
    const changed = await runCli(['diff', a, b, '--exit-code']);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/result {10}changed/);
    const unchanged = await runCli(['diff', a, same, '--exit-code', '--json']);
    expect(unchanged.code).toBe(0);
    expect(jsonOf(unchanged)).toMatchObject({ ok: true, hasChanges: false, relation: 'same-asset' });
    // without --exit-code a change is not a failure
    expect((await runCli(['diff', a, b, '--json'])).code).toBe(0);
  });

  it('--sample-size bounds the ids shown; a bad value is a usage error', async () => {
    const r = await runCli(['diff', a, b, '--json', '--sample-size', '0']);
    expect((jsonOf(r).samples as { chunks: unknown }).chunks).toEqual({ added: [], removed: [], changed: [] });
    const bad = await runCli(['diff', a, b, '--sample-size', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('OCTX_USAGE_ERROR');
    // Above the range: the same CLI error (before: the SDK's "sampleSize must be …", field sampleSize).
    const big = await runCli(['diff', a, b, '--sample-size', '1001']);
    expect(big.code).toBe(2);
    expect(big.stderr).toContain('error[OCTX_USAGE_ERROR]: --sample-size must be an integer from 0 to 1000 (got "1001")');
    expect(big.stderr).not.toContain('sampleSize');
  });

  it('a missing package exits 2 with OCTX_OPEN_ERROR; one argument is a usage error', async () => {
    const missing = await runCli(['diff', a, join(dir, 'nope.octx')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('OCTX_OPEN_ERROR');
    const one = await runCli(['diff', a]);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain('missing <new.octx>');
  });

  it('draws progress on stderr when forced (OCTX_PROGRESS=1), never on stdout', async () => {
    const r = await runCli(['diff', a, b, '--json'], { env: { OCTX_PROGRESS: '1' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/diff/);
    // Progress never mixes into the JSON: stdout is the whole result, parsed as one document.
    expect(jsonOf(r)).toMatchObject({ ok: true, command: 'diff', hasChanges: true, relation: 'same-asset' });
  });
});
