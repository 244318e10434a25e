// @module-tag heavy (shard builds and a merge of the demo corpus in-process: seconds)
/**
 * The job processors of `octx-export/distributed` without a job engine: a shard job re-run over a
 * killed attempt's leftovers, a shard with no document (no file, `output: null`), and a merge job
 * that merges its children's outputs in shard order and refuses a child result that is not one.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildShard, mergeJob, shardJob, type ShardJobData, type ShardJobResult } from 'octx-export/distributed';
import { mergePackages } from 'octx-export';
import { failureAsync } from '../helpers/errors.js';
import { ROOT, tempDir } from '../helpers/temp.js';

const base = (output: string, index: number, count: number): ShardJobData => ({
  input: join(ROOT, 'fixtures/kb-three-kingdoms'),
  shard: { index, count },
  output,
  asset: { id: '019c0000-0000-7000-8000-0000000000dd', name: 'KB' },
  release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' },
  structure: 'require',
});
const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('shardJob / mergeJob', () => {
  it('re-runs a shard over a killed attempt: its work folder is cleared, the same bytes are written, nothing else is left', async () => {
    const d = tempDir('octx-jobs-');
    const out = join(d, 'shards/s0.octx');
    const first = await shardJob()({ data: base(out, 0, 2) });
    expect(first).toMatchObject({ shard: { index: 0, count: 2 }, output: out, documents: 7 });
    const bytes = sha(out);
    // What a SIGKILLed attempt leaves: a work folder with a spill and a half-written package.
    mkdirSync(join(`${out}.work`, 'tmp/octx-spill'), { recursive: true });
    writeFileSync(join(`${out}.work`, 's0.octx'), 'half');
    const again = await buildShard(base(out, 0, 2));
    expect(again.packageDigest).toBe(first.packageDigest);
    expect(sha(out)).toBe(bytes);
    expect(readdirSync(join(d, 'shards'))).toEqual(['s0.octx']);
  });

  it('writes no file for a shard with no document (and removes an earlier one), returning output null', async () => {
    const d = tempDir('octx-jobs-');
    const out = join(d, 's1.octx');
    writeFileSync(out, 'an earlier attempt');
    expect(await buildShard(base(out, 1, 4))).toEqual({ shard: { index: 1, count: 4 }, output: null, packageDigest: null, documents: 0 });
    expect(readdirSync(d)).toEqual([]);
  });

  it('merges the children in shard order, skipping empty shards, into the package one merge of the shards gives', async () => {
    const d = tempDir('octx-jobs-');
    const results: ShardJobResult[] = [];
    for (let i = 0; i < 2; i++) results.push(await buildShard(base(join(d, `s${i}.octx`), i, 2)));
    const empty: ShardJobResult = { shard: { index: 2, count: 3 }, output: null, packageDigest: null, documents: 0 };
    // Children come back keyed by job key, in no particular order.
    const children = { 'bull:octx-shards:9': empty, 'bull:octx-shards:7': results[1], 'bull:octx-shards:8': results[0] };
    const merged = await mergeJob()({ data: { output: join(d, 'kb.octx') }, getChildrenValues: () => Promise.resolve(children) });
    expect(merged.shards).toEqual([0, 1].map((i) => join(d, `s${i}.octx`)));
    expect(existsSync(join(d, 'kb.octx.work'))).toBe(false);
    expect(readdirSync(d).sort()).toEqual(['kb.octx', 's0.octx', 's1.octx']);
    const direct = join(d, 'direct.octx');
    await mergePackages(merged.shards, { output: direct });
    expect(sha(join(d, 'kb.octx'))).toBe(sha(direct));
    const e = await failureAsync(mergeJob()({ data: { output: join(d, 'x.octx') }, getChildrenValues: () => Promise.resolve({ a: 'not a result' }) }));
    expect([e.code, e.issues[0]!.field]).toEqual(['OCTX_OPTIONS_INVALID', 'children']);
    expect(e.message).toContain('a child of the merge job returned "not a result"');
    expect(existsSync(join(d, 'x.octx'))).toBe(false);
  });
});
