/**
 * KeyedRuns, the merge's spill of sorted runs: each shard's entries sorted by key when committed,
 * the runs read back together in key order with ties in shard order, whatever the run sizes,
 * entry sizes (larger than a window or the write buffer) or the number of runs.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KeyedRuns } from '../../src/builder/keyed-runs.js';
import { tempDir } from '../helpers/temp.js';

type Seen = { key: string; shard: number; line: number; text: string };

function collect(runs: KeyedRuns, stream: string): Seen[] {
  const out: Seen[] = [];
  // The payload is valid only until the next entry: copied as text here.
  for (const e of runs.merged(stream)) out.push({ key: e.key, shard: e.shard, line: e.line, text: e.payload.toString('utf8') });
  return out;
}

describe('KeyedRuns', () => {
  it('sorts each shard by key and merges the shards in key order, equal keys in shard order', async () => {
    const runs = new KeyedRuns(tempDir());
    try {
      // Shard 0 out of order, shard 1 in order, both holding "b".
      for (const [key, line] of [
        ['c', 1],
        ['a', 2],
        ['b', 3],
      ] as const)
        runs.add('entity', key, line, Buffer.from(`${key}@0`));
      runs.commit(0);
      for (const [key, line] of [
        ['b', 1],
        ['d', 2],
      ] as const)
        runs.add('entity', key, line, Buffer.from(`${key}@1`));
      runs.add('chunk', 'x', 7, Buffer.from('other stream'));
      runs.commit(1);
      expect(collect(runs, 'entity')).toEqual([
        { key: 'a', shard: 0, line: 2, text: 'a@0' },
        { key: 'b', shard: 0, line: 3, text: 'b@0' },
        { key: 'b', shard: 1, line: 1, text: 'b@1' },
        { key: 'c', shard: 0, line: 1, text: 'c@0' },
        { key: 'd', shard: 1, line: 2, text: 'd@1' },
      ]);
      expect(collect(runs, 'chunk')).toEqual([{ key: 'x', shard: 1, line: 7, text: 'other stream' }]);
      expect(collect(runs, 'relation')).toEqual([]);
    } finally {
      await runs.dispose();
    }
  });

  it('drops what a refused shard added, and keeps equal keys of one shard in the order they came', async () => {
    const runs = new KeyedRuns(tempDir());
    try {
      runs.add('k', 'z', 1, Buffer.from('dropped'));
      runs.discard();
      runs.add('k', 'm', 1, Buffer.from('first'));
      runs.add('k', 'a', 2, Buffer.from('a'));
      runs.add('k', 'm', 3, Buffer.from('second'));
      runs.commit(5);
      expect(collect(runs, 'k').map((e) => `${e.key}:${e.text}:${e.shard}`)).toEqual(['a:a:5', 'm:first:5', 'm:second:5']);
    } finally {
      await runs.dispose();
    }
  });

  it('reads entries larger than a window and the write buffer, and keys beyond ASCII, across 300 runs', async () => {
    const dir = tempDir();
    const runs = new KeyedRuns(dir);
    const big = Buffer.alloc(1_500_000, 0x61);
    big.write('end', big.length - 3);
    const expected: Seen[] = [];
    for (let s = 0; s < 300; s++) {
      // Keys interleave across shards: shard s holds s, s + 300, s + 600 (as zero-padded text).
      for (const n of [s + 600, s, s + 300]) {
        const key = `k${String(n).padStart(4, '0')}é`;
        const text = n === 450 ? big.toString('latin1') : `v${n}`;
        runs.add('k', key, n, Buffer.from(text, 'latin1'));
        expected.push({ key, shard: s, line: n, text });
      }
      runs.commit(s);
    }
    try {
      expected.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const got: Seen[] = [];
      for (const e of runs.merged('k')) got.push({ key: e.key, shard: e.shard, line: e.line, text: e.payload.toString('latin1') });
      expect(got.length).toBe(900);
      expect(got.map((e) => e.key)).toEqual(expected.map((e) => e.key));
      expect(got).toEqual(expected);
      expect(got.find((e) => e.line === 450)!.text.length).toBe(1_500_000);
    } finally {
      await runs.dispose();
    }
    // Nothing is left in the folder it spilled in.
    expect(readdirSync(dir)).toEqual([]);
  });
});
