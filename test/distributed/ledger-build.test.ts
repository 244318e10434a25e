/**
 * `build --ledger redis://…` on a real Redis (Debian `redis-server`, started by the test): a docs
 * folder whose pages name no `octx.document_id` gets its ids from the shared ledger, so shard
 * builds on different machines mint the same id for a page as the whole build does, and the
 * merged shards are the whole build byte for byte.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { cliInProcess as cli } from '../cli/cli-in-process.js';
import { inspectZip } from '../helpers/zip-inspect.js';
import { startRedis } from '../helpers/redis-server.js';
import { ROOT, tempDir } from '../helpers/temp.js';

const redis = await startRedis();
const DOCS = join(ROOT, 'fixtures/docs-trees/vitepress');
const ASSET = '019c0000-0000-7000-8000-0000000000bb';
const SAME = ['--name', 'Docs', '--asset-id', ASSET, '--created-at', '2026-07-12T10:00:00Z', '--version', '1.0.0'];

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
/** `octx.document_id` of every document of a package, by path. */
function documentIds(pkg: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of inspectZip(pkg)) {
    const m = /document_id: "([0-9a-f-]+)"/.exec(e.data.toString('utf8'));
    if (e.name.startsWith('knowledge/') && m) out[e.name] = m[1]!;
  }
  return out;
}

describe.skipIf(redis === undefined)('build --ledger (real redis-server)', () => {
  const server = redis!;
  afterAll(async () => server.stop());

  it('mints page ids in Redis once: 2 shards merged equal the whole build, and the hash holds exactly those ids', { timeout: 60_000 }, async () => {
    const d = tempDir('octx-ledger-build-');
    const ledger = ['--ledger', `${server.url}/3`];
    // Shards first (each mints its pages' ids), then the whole build reads them back.
    for (const i of [0, 1]) {
      const r = await cli(['build', DOCS, '--shard', `${i}/2`, ...ledger, '-o', join(d, `s${i}.octx`), ...SAME]);
      expect(r.code, r.stderr).toBe(0);
    }
    const whole = await cli(['build', DOCS, ...ledger, '-o', join(d, 'whole.octx'), ...SAME]);
    expect(whole.code, whole.stderr).toBe(0);
    expect((await cli(['merge', join(d, 's0.octx'), join(d, 's1.octx'), '-o', join(d, 'merged.octx')])).code).toBe(0);
    const ids = documentIds(join(d, 'whole.octx'));
    expect(Object.keys(ids).length).toBeGreaterThan(2);
    expect({ ...documentIds(join(d, 's0.octx')), ...documentIds(join(d, 's1.octx')) }).toEqual(ids);
    expect(sha(join(d, 'merged.octx'))).toBe(sha(join(d, 'whole.octx')));
    // One hash per asset (the default namespace), in database 3 of the URL, keyed by package path.
    const admin = new Redis(`${server.url}/3`);
    try {
      expect(await admin.hgetall(`octx:ledger:${ASSET}:document`)).toEqual(ids);
      expect(await admin.keys('*')).toEqual([`octx:ledger:${ASSET}:document`]);
    } finally {
      await admin.quit();
    }
  });

  it('--ledger-namespace keeps another ledger: the same pages get other ids', { timeout: 60_000 }, async () => {
    const d = tempDir('octx-ledger-build-');
    const a = await cli(['build', DOCS, '--ledger', server.url, '--ledger-namespace', 'kb:a', '-o', join(d, 'a.octx'), ...SAME]);
    const b = await cli(['build', DOCS, '--ledger', server.url, '--ledger-namespace', 'kb:b', '-o', join(d, 'b.octx'), ...SAME]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const idsA = documentIds(join(d, 'a.octx'));
    const idsB = documentIds(join(d, 'b.octx'));
    expect(Object.keys(idsA)).toEqual(Object.keys(idsB));
    for (const path of Object.keys(idsA)) expect(idsA[path]).not.toBe(idsB[path]);
    const admin = new Redis(server.url);
    try {
      expect(await admin.hgetall('kb:a:document')).toEqual(idsA);
    } finally {
      await admin.quit();
    }
  });
});
