/**
 * from-graphrag across runs and consumers: the same input and options give the same bytes; with
 * a state file, a re-indexed corpus (GraphRAG mints new ids every run: simulated by rewriting every
 * id of a copy) keeps its OCTX ids, so `diff` shows no change; sag-1.7 findings name the GraphRAG
 * file and row; LanceDB tables without @lancedb/lancedb give the typed install error.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffPackages, PackageBuilder } from 'octx-export';
import { fromGraphRag, LANCEDB_INSTALL, type FromGraphRagOptions } from 'octx-export/adapters/graphrag';
import { readGraphRag } from '../../src/adapters/graphrag/from-graphrag.js';
import { hintOf } from '../../src/cli/errors.js';
import { failureAsync } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';
import { runCli } from '../cli/run-cli.js';
import { copyFixture, GRAPHRAG, readColumns, rewriteTable, withColumn } from './graphrag/tables.js';

async function exportTo(dir: string, out: string, options: FromGraphRagOptions = {}, state?: string, createdAt?: string): Promise<void> {
  const b = new PackageBuilder({
    asset: { name: 'Operation Dulce (GraphRAG)' },
    ...(state !== undefined ? { state } : {}),
    ...(createdAt !== undefined ? { release: { version: '1.0.1', createdAt } } : {}),
  });
  await fromGraphRag(b, dir, options);
  await b.export({ output: out });
}

/** A new id of the same shape (GraphRAG's UUIDs and 128-hex-digit hashes) for every id of every table. */
async function reindex(dir: string): Promise<number> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.parquet'));
  const fresh = new Map<string, string>();
  for (const f of files)
    for (const id of (await readColumns(join(dir, f))).find((c) => c.name === 'id')?.data ?? []) {
      if (typeof id !== 'string' || fresh.has(id)) continue;
      const h = createHash('sha512').update(`re-indexed ${id}`).digest('hex');
      fresh.set(id, /^[0-9a-f]{128}$/.test(id) ? h : `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`);
    }
  const swap = (v: unknown): unknown => (typeof v === 'string' ? (fresh.get(v) ?? v) : Array.isArray(v) ? v.map(swap) : v);
  for (const f of files) await rewriteTable(dir, f, (cols) => cols.map((c) => (c.kind === 'string' || c.kind === 'list<string>' ? { ...c, data: c.data.map(swap) } : c)));
  return fresh.size;
}

describe('from-graphrag: bytes and ids across runs', () => {
  it('the same input, options and state give the same package bytes', async () => {
    // GraphRAG's ids are random per run, so OCTX ids come from the state's id ledger: the second
    // and third runs start from copies of the state the first one left, with the same release time.
    const dir = tempDir();
    await exportTo(GRAPHRAG.v2, join(dir, 'first.octx'), {}, join(dir, 'state.json'));
    copyFileSync(join(dir, 'state.json'), join(dir, 'a.json'));
    copyFileSync(join(dir, 'state.json'), join(dir, 'b.json'));
    await exportTo(GRAPHRAG.v2, join(dir, 'a.octx'), {}, join(dir, 'a.json'), '2026-07-14T09:00:00Z');
    await exportTo(GRAPHRAG.v2, join(dir, 'b.octx'), {}, join(dir, 'b.json'), '2026-07-14T09:00:00Z');
    const a = readFileSync(join(dir, 'a.octx'));
    expect(a.length).toBeGreaterThan(1000);
    expect(a.equals(readFileSync(join(dir, 'b.octx')))).toBe(true);
    expect(a.equals(readFileSync(join(dir, 'first.octx')))).toBe(false); // another release (version, time)
  });

  it('with --state, the same corpus indexed again under new GraphRAG ids keeps every OCTX id: diff shows no change', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const copy = copyFixture(GRAPHRAG.v2);
    expect(await reindex(copy)).toBeGreaterThan(15);
    // The rewrite reached the ids: no id of the original text units is left in the copy.
    const before = (await readColumns(join(GRAPHRAG.v2, 'text_units.parquet'))).find((c) => c.name === 'id')!.data;
    const after = (await readColumns(join(copy, 'text_units.parquet'))).find((c) => c.name === 'id')!.data;
    expect(after.filter((id) => before.includes(id))).toEqual([]);

    await exportTo(GRAPHRAG.v2, join(dir, 'first.octx'), {}, state);
    await exportTo(copy, join(dir, 'second.octx'), {}, state);
    const d = await diffPackages(join(dir, 'first.octx'), join(dir, 'second.octx'));
    expect(d.hasChanges).toBe(false);
    expect(d.records).toMatchObject({ chunks: { added: 0, removed: 0, changed: 0 }, events: { added: 0, removed: 0, changed: 0 }, entities: { added: 0, removed: 0, changed: 0 } });
    const cli = await runCli(['diff', join(dir, 'first.octx'), join(dir, 'second.octx'), '--exit-code']);
    expect(cli.code).toBe(0);

    // A changed description is a change, and only that one.
    const changed = copyFixture(copy);
    await rewriteTable(changed, 'entities.parquet', (cols) => withColumn(cols, 'description', (d) => d.map((v, i) => (i === 0 ? `${String(v)} Revised.` : v))));
    await exportTo(changed, join(dir, 'third.octx'), {}, state);
    const d2 = await diffPackages(join(dir, 'second.octx'), join(dir, 'third.octx'));
    expect(d2.hasChanges).toBe(true);
    expect(d2.records).toMatchObject({ entities: { added: 0, removed: 0, changed: 1 }, chunks: { added: 0, removed: 0, changed: 0 } });
  }, 60_000);
});

describe('from-graphrag: sag-1.7 findings name the GraphRAG row', () => {
  const builder = () => new PackageBuilder({ asset: { name: 'sag' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } });

  it('a relationship weight above Numeric(3,2) on the event-entity links is refused, naming relationships.parquet and the row', async () => {
    const e = await failureAsync(fromGraphRag(builder(), GRAPHRAG.v2, { consumer: 'sag-1.7', relationshipWeight: 'link' }));
    expect(e.code).toBe('OCTX_CONSUMER_INCOMPATIBLE');
    const weight = (await readColumns(join(GRAPHRAG.v2, 'relationships.parquet'))).find((c) => c.name === 'weight')!.data as number[];
    const row = weight.findIndex((w) => w > 9.99);
    expect(row).toBeGreaterThanOrEqual(0);
    expect(e.issues.some((i) => i.path?.endsWith('relationships.parquet') && i.line === row + 1 && /weight/.test(i.message))).toBe(true);
    expect(e.message).toContain(`relationships.parquet row ${row}`);
  });

  it('two entities one identity after folding (GraphRAG title case) are refused, naming entities.parquet and the row', async () => {
    const dir = copyFixture(GRAPHRAG.v2);
    await rewriteTable(dir, 'entities.parquet', (cols) => {
      const titles = cols.find((c) => c.name === 'title')!.data as string[];
      const types = cols.find((c) => c.name === 'type')!.data as string[];
      const twin = types.findIndex((t, i) => i > 0 && t === types[0]);
      return withColumn(cols, 'title', (d) => d.map((v, i) => (i === twin ? titles[0]!.toLowerCase() : v)));
    });
    const e = await failureAsync(fromGraphRag(builder(), dir, { consumer: 'sag-1.7' }));
    expect(e.code).toBe('OCTX_CONSUMER_INCOMPATIBLE');
    expect(e.issues).toHaveLength(1);
    expect(e.issues[0]).toMatchObject({ path: join(dir, 'entities.parquet'), line: 2, field: 'name' });
    expect(e.issues[0]!.message).toMatch(/^entities\.parquet row 1 \("alex mercer"\): sag-1\.7: .*duplicate entity identity/);
  });

  it('the same index without those rows passes sag-1.7 with structure required', async () => {
    const r = await fromGraphRag(builder(), GRAPHRAG.v2, { consumer: 'sag-1.7', requireStructure: true });
    expect(r.structure.expected).toBe('complete');
  });
});

describe('from-graphrag: LanceDB', () => {
  const builder = () => new PackageBuilder({ asset: { name: 'lance' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } });
  const missing = () => Promise.reject(Object.assign(new Error("Cannot find package '@lancedb/lancedb' imported from x"), { code: 'ERR_MODULE_NOT_FOUND' }));

  it('without @lancedb/lancedb, LanceDB tables are OCTX_DEPENDENCY_MISSING with the install command', async () => {
    const e = await failureAsync(readGraphRag(builder(), GRAPHRAG.v3, { embeddingModel: 'text-embedding-3-large', vectors: 'lancedb' }, missing));
    expect(e.code).toBe('OCTX_DEPENDENCY_MISSING');
    expect(e.message).toContain(LANCEDB_INSTALL);
    expect(e.message).toContain('is not installed');
    // The CLI's hint line names LanceDB, not the SQLite driver of from-sag (same code).
    expect(hintOf(e, 'from-graphrag')).toContain(LANCEDB_INSTALL);
    expect(hintOf(e, 'from-sag')).toContain('better-sqlite3');
  });

  it('without it, --vectors snapshots / none still export (the snapshots need nothing native)', async () => {
    const r = await readGraphRag(builder(), GRAPHRAG.v2, { vectors: 'snapshots' }, missing);
    expect(r.vectors).toMatchObject({ status: 'written', dimensions: 8 });
    const none = await readGraphRag(builder(), GRAPHRAG.v3, { embeddingModel: 'm', vectors: 'none' }, missing);
    expect(none.vectors.status).not.toBe('written');
  });

  it('with it installed (dev dependency), the v3 tables are read: 5 text-unit and 39 entity rows of 3072 dimensions', async () => {
    const r = await fromGraphRag(builder(), GRAPHRAG.v3, { embeddingModel: 'text-embedding-3-large', vectors: 'lancedb' });
    expect(r.vectors).toMatchObject({ status: 'written', dimensions: 3072 });
    expect(r.vectors.targets.map((t) => [t.target, t.source, t.status === 'written' ? t.added : 0])).toEqual([
      ['entities', 'lancedb', 39],
      ['chunks', 'lancedb', 5],
    ]);
  });

  it('without a model name (no flag, no settings.yaml) the vectors are left out with a warning naming the flag', async () => {
    const r = await fromGraphRag(builder(), GRAPHRAG.v3, {});
    expect(r.vectors.status).not.toBe('written');
    expect(JSON.stringify(r)).toContain('embedding-model');
  });
});
