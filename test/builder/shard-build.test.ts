// @module-tag heavy (shard builds and merges of the demo corpus in-process: seconds)
/**
 * Shard builds of a folder (`loadWorkdir({ shard })`): the demo corpus cut into n shards by the
 * SHA-256 of each document's package path, each shard a valid package, and the merge of the
 * shards equal — entry for entry, byte for byte — to one build of the whole folder with the same
 * asset id, release and ids. Also: the shards in any order, a shard with no documents, the cut
 * itself (which document goes where, what a shared record looks like), and bad shard options.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkdir, mergePackages, PackageBuilder, validatePackage, shardOfPath } from 'octx-export';
import { inspectZip } from '../helpers/zip-inspect.js';
import { ROOT } from '../helpers/temp.js';
import { failureAsync } from '../helpers/errors.js';

const DEMO = join(ROOT, 'fixtures/kb-three-kingdoms');
let CORPUS: string;
/** The fields a merge orders each record file by. */
const KEY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'data/chunks.jsonl': ['id'],
  'data/events.jsonl': ['id'],
  'data/entities.jsonl': ['id'],
  'relations/chunk-events.jsonl': ['chunk_id', 'event_id'],
  'relations/event-entities.jsonl': ['event_id', 'entity_id'],
};
/** The corpus copy and the shards, kept for the whole file (tempDir's folders go after each test). */
let FILE_DIR: string;

/**
 * The demo corpus with each event's parent also linked to its children's chunks, and each record
 * file in key order:
 * - in the corpus as it is, event 019f2200-4498-… (a child) has a chunk in a document whose shard
 *   (n = 3) holds no chunk of its parent, a cut the shard build refuses (tested below on the
 *   corpus itself);
 * - a build writes records in the order it reads them, a merge in key order (the id; a relation's
 *   pair), whatever the shards' order: only a folder already in key order gives the same bytes
 *   both ways.
 */
function coveredCorpus(): string {
  const dir = join(FILE_DIR, 'corpus');
  cpSync(DEMO, dir, { recursive: true });
  const rd = (p: string): Record<string, string>[] =>
    readFileSync(join(dir, p), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
  const parent = new Map(rd('data/events.jsonl').flatMap((e) => (e.parent_id ? [[e.id!, e.parent_id]] : [])));
  const links = rd('relations/chunk-events.jsonl');
  const have = new Set(links.map((l) => `${l.chunk_id} ${l.event_id}`));
  const added: string[] = [];
  for (const l of links) {
    for (let p = parent.get(l.event_id!); p !== undefined; p = parent.get(p)) {
      const key = `${l.chunk_id} ${p}`;
      if (have.has(key)) continue;
      have.add(key);
      added.push(JSON.stringify({ chunk_id: l.chunk_id, event_id: p }));
    }
  }
  expect(added.length).toBeGreaterThan(0);
  appendFileSync(join(dir, 'relations/chunk-events.jsonl'), `${added.join('\n')}\n`);
  for (const [path, fields] of Object.entries(KEY_FIELDS)) {
    const lines = readFileSync(join(dir, path), 'utf8').trim().split('\n');
    const key = (line: string): string => fields.map((f) => (JSON.parse(line) as Record<string, string>)[f]).join(' ');
    writeFileSync(join(dir, path), `${lines.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).join('\n')}\n`);
  }
  return dir;
}
const ASSET = '019f21d0-0000-7000-8000-00000000a55e';
const RELEASE = { version: '2.1.0', createdAt: '2026-11-30T08:00:00Z' };
const CUT_CHILD = '019f2200-4498-7ae8-b128-c002ea28119a';
const CUT_PARENT = '019f21ff-b5cd-7f19-9b2e-297b22eca03f';

/** Builds the corpus (or one shard of it) with the shared asset and release; `undefined` when the shard has no document. */
async function buildShard(out: string, shard?: { index: number; count: number }): Promise<string | undefined> {
  const b = new PackageBuilder({ asset: { name: 'Three Kingdoms', id: ASSET }, release: RELEASE });
  const loaded = await loadWorkdir(b, CORPUS, shard ? { shard } : {});
  if (loaded.documents === 0) {
    await b.dispose();
    return undefined;
  }
  await b.export({ output: out, structure: 'require' });
  return out;
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Every entry of a package: name → its inflated bytes' digest (and the stored method). */
function entries(pkg: string): Map<string, { sha: string; method: number; stored: string }> {
  const out = new Map<string, { sha: string; method: number; stored: string }>();
  const raw = readFileSync(pkg);
  for (const e of inspectZip(raw)) {
    const local = e.localHeaderOffset;
    const start = local + 30 + raw.readUInt16LE(local + 26) + raw.readUInt16LE(local + 28);
    out.set(e.name, { sha: sha(e.data), method: e.method, stored: sha(raw.subarray(start, start + e.compressedSize)) });
  }
  return out;
}

describe('build a folder as shards, merge them', () => {
  let dir: string;
  let whole: string;
  let shards3: string[];
  afterAll(() => rmSync(FILE_DIR, { recursive: true, force: true }));
  beforeAll(async () => {
    FILE_DIR = mkdtempSync(join(tmpdir(), 'octx-shard-'));
    CORPUS = coveredCorpus();
    dir = FILE_DIR;
    whole = (await buildShard(join(dir, 'whole.octx')))!;
    shards3 = [];
    for (let i = 0; i < 3; i++) shards3.push((await buildShard(join(dir, `s3-${i}.octx`), { index: i, count: 3 }))!);
  });

  it('cuts the documents by the SHA-256 of their package path: each in exactly one shard', async () => {
    // The hash: the first 8 bytes of SHA-256(UTF-8 of the package path), big-endian, modulo n.
    const digest = createHash('sha256').update('knowledge/chapters/chibi-zhi-zhan.md', 'utf8').digest();
    expect(shardOfPath('knowledge/chapters/chibi-zhi-zhan.md', 3)).toBe(Number(digest.readBigUInt64BE(0) % 3n));
    const held = shards3.map((s) =>
      inspectZip(s)
        .map((e) => e.name)
        .filter((f) => f.startsWith('knowledge/')),
    );
    // index.md and log.md are reserved pages, no concept documents: they go to the lowest shard
    // holding one (here shard 0), whatever their own path's hash (log.md's is 1).
    expect(shardOfPath('knowledge/log.md', 3)).toBe(1);
    expect(held).toEqual([
      ['knowledge/chapters/san-gu-maolu.md', 'knowledge/guides/timeline.md', 'knowledge/index.md', 'knowledge/log.md'],
      ['knowledge/chapters/chibi-zhi-zhan.md'],
      ['knowledge/chapters/guan-yu-wu-guan.md', 'knowledge/chapters/taoyuan-jieyi.md', 'knowledge/guides/places-glossary.md', 'knowledge/people/main-characters.md'],
    ]);
    for (const [i, docs] of held.entries()) for (const d of docs) if (!/\/(index|log)\.md$/.test(d)) expect(shardOfPath(d, 3)).toBe(i);
  });

  it('makes every shard a valid package with the structure layer, sharing the records two shards need byte for byte', async () => {
    const jsonl = shards3.map((s) => entries(s));
    for (const s of shards3) expect((await validatePackage(s)).valid).toBe(true);
    const wholeEntries = entries(whole);
    const lines = (pkg: string, path: string): string[] => {
      const e = inspectZip(pkg).find((x) => x.name === path);
      return e ? e.data.toString('utf8').trim().split('\n') : [];
    };
    // Liu Bei is named by events of every shard: the same line in each.
    const liuBei = lines(whole, 'data/entities.jsonl').find((l) => l.includes('"刘备"'))!;
    for (const s of shards3) expect(lines(s, 'data/entities.jsonl')).toContain(liuBei);
    // Chunks and chunk-event links are cut (each in one shard); the union is the whole's.
    for (const path of ['data/chunks.jsonl', 'relations/chunk-events.jsonl']) {
      const all = shards3.flatMap((s) => lines(s, path));
      expect(new Set(all).size).toBe(all.length);
      expect(all.sort()).toEqual(lines(whole, path).sort());
    }
    // Events and entities may repeat; their union is the whole's.
    for (const path of ['data/events.jsonl', 'data/entities.jsonl', 'relations/event-entities.jsonl']) {
      expect([...new Set(shards3.flatMap((s) => lines(s, path)))].sort()).toEqual(lines(whole, path).sort());
    }
    expect(jsonl.every((e) => e.has('data/events.jsonl'))).toBe(true);
    expect(wholeEntries.size).toBeGreaterThan(10);
  });

  it('merges 3 shards (in any order) and 1 shard into the whole build, every entry byte for byte', async () => {
    const want = readFileSync(whole);
    const wantEntries = entries(whole);
    const orders = [
      [0, 1, 2],
      [2, 0, 1],
      [1, 2, 0],
    ];
    for (const [k, order] of orders.entries()) {
      const out = join(dir, `merged-${k}.octx`);
      const r = await mergePackages(
        order.map((i) => shards3[i]!),
        { output: out },
      );
      expect(r.packageDigest).toBeDefined();
      // Every entry, inflated and as stored (same deflate level and input, so the same stream).
      expect(entries(out)).toEqual(wantEntries);
      // And so the whole file: the same manifest, package digest and ZIP bytes.
      expect(sha(readFileSync(out))).toBe(sha(want));
    }
    const one = (await buildShard(join(dir, 's1-0.octx'), { index: 0, count: 1 }))!;
    expect(sha(readFileSync(one))).toBe(sha(want));
    const mergedOne = join(dir, 'merged-one.octx');
    await mergePackages([one], { output: mergedOne });
    expect(sha(readFileSync(mergedOne))).toBe(sha(want));
  });

  it('keeps index.md and log.md when their own shard would hold no concept document (n = 7): the merge is still the whole build', async () => {
    // With n = 7 both reserved pages hash to shard 0, which holds no concept document: cut by their
    // own paths they would make shard 0 a package without one (refused as empty) and be lost.
    expect([shardOfPath('knowledge/index.md', 7), shardOfPath('knowledge/log.md', 7)]).toEqual([0, 0]);
    const built: string[] = [];
    const reservedIn: number[] = [];
    for (let i = 0; i < 7; i++) {
      const out = await buildShard(join(dir, `s7-${i}.octx`), { index: i, count: 7 });
      if (out === undefined) continue;
      built.push(out);
      if (inspectZip(out).some((e) => e.name === 'knowledge/index.md')) reservedIn.push(i);
    }
    // Shard 0 is empty and unwritten; the reserved pages went to shard 1, the lowest with a concept document.
    expect(reservedIn).toEqual([1]);
    expect(built.some((p) => p.endsWith('s7-0.octx'))).toBe(false);
    const out = join(dir, 'merged-7.octx');
    await mergePackages(built, { output: out });
    expect(entries(out)).toEqual(entries(whole));
  });

  it('leaves a shard with no documents unwritten (the loader says 0 documents), and the others still merge into the whole', async () => {
    // With n = 4 no page of the corpus hashes to shard 1.
    const paths: string[] = [];
    for (let i = 0; i < 4; i++) {
      const b = new PackageBuilder({ asset: { name: 'Three Kingdoms', id: ASSET }, release: RELEASE });
      const loaded = await loadWorkdir(b, CORPUS, { shard: { index: i, count: 4 } });
      expect(loaded.shard).toEqual({ index: i, count: 4 });
      if (i === 1) {
        expect({ documents: loaded.documents, chunks: loaded.chunks, events: loaded.events, entities: loaded.entities }).toEqual({
          documents: 0,
          chunks: 0,
          events: 0,
          entities: 0,
        });
        // A package needs a Concept Document: the export refuses, writing nothing.
        const e = await failureAsync(b.export({ output: join(dir, 's4-1.octx') }));
        expect(e.code).toBe('OCTX_CONCEPT_REQUIRED');
        continue;
      }
      await b.export({ output: join(dir, `s4-${i}.octx`), structure: 'require' });
      paths.push(join(dir, `s4-${i}.octx`));
    }
    const out = join(dir, 'merged-4.octx');
    await mergePackages(paths, { output: out });
    expect(sha(readFileSync(out))).toBe(sha(readFileSync(whole)));
  });

  it('refuses a shard holding an event whose parent has no chunk in it (OCTX_SHARD_CUT_INVALID), naming both', async () => {
    const b = new PackageBuilder({ asset: { name: 'KB', id: ASSET }, release: RELEASE });
    const e = await failureAsync(loadWorkdir(b, DEMO, { shard: { index: 0, count: 3 } }));
    await b.dispose();
    expect(e.code).toBe('OCTX_SHARD_CUT_INVALID');
    expect(e.issues.map((i) => [i.code, i.path, i.recordId, i.field])).toEqual([['OCTX_SHARD_CUT_INVALID', 'data/events.jsonl', CUT_CHILD, 'parent_id']]);
    expect(e.issues[0]!.message).toBe(`shard 0/3 holds event ${CUT_CHILD}, whose parent ${CUT_PARENT} is linked to no chunk of this shard's documents`);
  });

  it('refuses a bad shard, naming the option', async () => {
    for (const [shard, why] of [
      [{ index: 3, count: 3 }, 'index must be an integer from 0 to 2 (got 3)'],
      [{ index: -1, count: 3 }, 'index must be an integer from 0 to 2 (got -1)'],
      [{ index: 0.5, count: 3 }, 'index must be an integer from 0 to 2 (got 0.5)'],
      [{ index: 0, count: 0 }, 'count must be an integer ≥ 1 (got 0)'],
      [{ index: 0 }, 'count must be an integer ≥ 1 (got undefined)'],
      ['0/3', 'a shard is { index, count }'],
    ] as const) {
      const b = new PackageBuilder({ asset: { name: 'KB' } });
      const e = await failureAsync(loadWorkdir(b, CORPUS, { shard: shard as never }));
      await b.dispose();
      expect(e.code).toBe('OCTX_OPTIONS_INVALID');
      expect(e.issues[0]!.field).toBe('shard');
      expect(e.message).toContain(why);
    }
  });
});
