// @module-tag heavy (the CLI in-process: builds, shard builds and merges of the demo corpus, seconds)
/**
 * `octx-export build --shard i/n` and `--ledger`: the demo corpus built as two shards and merged
 * with `octx-export merge` is the package `build` writes for the whole folder, byte for byte; bad
 * `--shard` values and a ledger that cannot be reached are refused naming the flag, with nothing
 * written. (The shared ledger on a real Redis: test/distributed/ledger-build.test.ts.) Runs the CLI
 * in-process.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInProcess as cli } from './cli-in-process.js';
import { ROOT, tempDir } from '../helpers/temp.js';

const FIXTURE = join(ROOT, 'fixtures/kb-three-kingdoms');
const SAME = ['--name', 'KB', '--asset-id', '019c0000-0000-7000-8000-0000000000aa', '--created-at', '2026-07-12T10:00:00Z', '--version', '1.4.0'];

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('build --shard', () => {
  it('builds the demo corpus as 2 shards that merge into the whole build, byte for byte', { timeout: 60_000 }, async () => {
    const d = tempDir('octx-cli-shard-');
    // The corpus's record files are not in key order, and a merge writes key order: the whole
    // build is compared after a merge of itself alone (the same records, ordered).
    expect((await cli(['build', FIXTURE, '-o', join(d, 'whole.octx'), ...SAME])).code).toBe(0);
    expect((await cli(['merge', join(d, 'whole.octx'), '-o', join(d, 'whole-ordered.octx')])).code).toBe(0);
    const shards: string[] = [];
    for (const i of [0, 1]) {
      const r = await cli(['build', FIXTURE, '--shard', `${i}/2`, '-o', join(d, `s${i}.octx`), ...SAME, '--require-structure', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout) as { loaded: { shard: unknown; documents: number } };
      expect(doc.loaded.shard).toEqual({ index: i, count: 2 });
      expect(doc.loaded.documents).toBe(i === 0 ? 7 : 2);
      shards.push(join(d, `s${i}.octx`));
    }
    const plain = await cli(['build', FIXTURE, '--shard', '1/2', '-o', join(d, 's1-again.octx'), ...SAME]);
    expect(plain.stdout).toContain('shard         1/2: the documents whose package path hashes to it, with their records');
    expect(sha(join(d, 's1-again.octx'))).toBe(sha(shards[1]!));
    expect((await cli(['merge', shards[1]!, shards[0]!, '-o', join(d, 'merged.octx')])).code).toBe(0);
    expect(sha(join(d, 'merged.octx'))).toBe(sha(join(d, 'whole-ordered.octx')));
  });

  it('refuses a bad --shard naming the flag, before reading anything', async () => {
    const d = tempDir('octx-cli-shard-');
    for (const [value, text] of [
      ['2/2', '--shard 2/2: the shard index must be from 0 to 1'],
      ['0/0', '--shard must be i/n with integers 0 ≤ i < n'],
      ['-1/2', '--shard must be i/n'],
      ['1.5/3', '--shard must be i/n'],
      ['a/2', '--shard must be i/n'],
      ['1', '--shard must be i/n'],
      ['01/2', '--shard must be i/n'],
    ] as const) {
      const r = await cli(['build', FIXTURE, `--shard=${value}`, '-o', join(d, 'x.octx'), ...SAME, '--json']);
      expect(r.code, value).toBe(2);
      const doc = JSON.parse(r.stdout) as { error: { code: string; message: string; issues: { field?: string }[] } };
      expect(doc.error.code).toBe('OCTX_USAGE_ERROR');
      expect(doc.error.issues[0]!.field, value).toBe('shard');
      expect(doc.error.message).toContain(text);
    }
    expect(readdirSync(d)).toEqual([]);
  });

  it('refuses a shard with no concept document (OCTX_SHARD_EMPTY), writing nothing', async () => {
    const d = tempDir('octx-cli-shard-');
    const r = await cli(['build', FIXTURE, '--shard', '1/4', '-o', join(d, 's.octx'), ...SAME, '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { error: { code: string; message: string } };
    expect(doc.error.code).toBe('OCTX_SHARD_EMPTY');
    expect(doc.error.message).toBe(`shard 1/4 of ${FIXTURE} holds no concept document (every page hashes to another shard); nothing was written`);
    expect(readdirSync(d)).toEqual([]);
  });

  it(
    '--ledger: refuses an unreachable Redis (OCTX_LEDGER_FAILED, the URL without its password), a non-Redis URL and a ledger without --asset-id',
    { timeout: 30_000 },
    async () => {
      const d = tempDir('octx-cli-ledger-');
      const out = join(d, 'kb.octx');
      const down = await cli(['build', FIXTURE, '--ledger', 'redis://user:s3cret@127.0.0.1:1/2', '-o', out, ...SAME, '--json']);
      expect(down.code).toBe(1);
      const doc = JSON.parse(down.stdout) as { error: { code: string; message: string; hint: string } };
      expect(doc.error.code).toBe('OCTX_LEDGER_FAILED');
      expect(doc.error.message).toContain('the shared id ledger redis 127.0.0.1:1 octx:ledger:019c0000-0000-7000-8000-0000000000aa:* failed');
      expect(`${down.stdout}${down.stderr}`).not.toContain('s3cret');
      expect(doc.error.hint).toContain('--ledger');
      expect(existsSync(out)).toBe(false);
      for (const [args, field, text] of [
        [['--ledger', 'http://127.0.0.1:6379'], 'ledger', '--ledger must be a Redis URL'],
        [['--ledger-namespace', 'kb'], 'ledger-namespace', '--ledger-namespace needs --ledger'],
      ] as const) {
        const r = await cli(['build', FIXTURE, ...args, '-o', out, ...SAME, '--json']);
        expect(r.code).toBe(2);
        const e = JSON.parse(r.stdout) as { error: { code: string; message: string; issues: { field?: string }[] } };
        expect([e.error.code, e.error.issues[0]!.field]).toEqual(['OCTX_USAGE_ERROR', field]);
        expect(e.error.message).toContain(text);
      }
      const noAsset = await cli(['build', FIXTURE, '--ledger', 'redis://127.0.0.1:1', '-o', out, '--name', 'KB', '--json']);
      expect(noAsset.code).toBe(2);
      expect((JSON.parse(noAsset.stdout) as { error: { message: string } }).error.message).toContain('--ledger needs --asset-id <uuidv7>');
      expect(readdirSync(d)).toEqual([]);
    },
  );
});
