/**
 * from-graphrag's vector targets when a snapshot is not fit to be written: each embedding is read
 * once and staged on disk while it is checked, and only a complete target reaches the builder. An
 * incomplete target (a vector missing, one twice, a non-finite value) is left out with a warning
 * and none of its vectors is in the package; a vector that is not unit length makes the package
 * `normalized: false`; the stage folder is gone afterwards, whatever the outcome.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openPackage, PackageBuilder } from 'octx-export';
import { fromGraphRag, type GraphRagAdapterReport } from 'octx-export/adapters/graphrag';
import { tempDir } from '../helpers/temp.js';
import { copyFixture, GRAPHRAG, readRows, rewriteTable } from './graphrag/tables.js';

const UNITS = 'embeddings.text_unit.text.parquet';
const ENTITIES = 'embeddings.entity.description.parquet';

/** This process's stage folders in the OS temporary folder (their owner record names the pid). */
function ownStageDirs(): string[] {
  return readdirSync(tmpdir())
    .filter((n) => n.startsWith('octx-graphrag-stage-'))
    .filter((n) => {
      try {
        return (JSON.parse(readFileSync(join(tmpdir(), n, 'octx-export-owner.json'), 'utf8')) as { pid: number }).pid === process.pid;
      } catch {
        return false;
      }
    });
}

interface Run {
  readonly report: GraphRagAdapterReport;
  /** Record id → vector, per target, as the package holds them. */
  readonly vectors: Record<'chunks' | 'entities', Map<string, number[]>>;
  readonly normalized: boolean | undefined;
  /** Stage folders of this process seen while the vectors were read. */
  readonly stagedDuring: number;
  /** The vector reads that reached their end, by progress kind (one per read of a source). */
  readonly reads: string[];
}

/** from-graphrag on a copy of the 2.x fixture whose snapshot `file` was changed by `change`, exported and read back. */
async function run(file: string, change: (rows: { id: string; embedding: number[] }[]) => { id: string; embedding: number[] }[]): Promise<Run> {
  const dir = copyFixture(GRAPHRAG.v2);
  await rewriteTable(dir, file, (columns) => {
    const ids = columns.find((c) => c.name === 'id')!.data as string[];
    const embeddings = columns.find((c) => c.name === 'embedding')!.data as number[][];
    const rows = change(ids.map((id, i) => ({ id, embedding: embeddings[i]! })));
    return [
      { name: 'id', kind: 'string', data: rows.map((r) => r.id) },
      { name: 'embedding', kind: 'list<double>', data: rows.map((r) => r.embedding) },
    ];
  });
  const b = new PackageBuilder({ asset: { name: 'vectors' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } });
  let stagedDuring = 0;
  const reads: string[] = [];
  const report = await fromGraphRag(b, dir, {
    onProgress: (p) => {
      if (!('kind' in p) || !/vectors$/.test(p.kind)) return;
      stagedDuring = Math.max(stagedDuring, ownStageDirs().length);
      if ('completed' in p && p.completed === p.total) reads.push(p.kind);
    },
  });
  const out = join(tempDir('octx-graphrag-vectors-'), 'v.octx');
  await b.export({ output: out, strict: false });
  const p = await openPackage(out);
  try {
    const vectors = { chunks: new Map<string, number[]>(), entities: new Map<string, number[]>() };
    for (const t of ['chunks', 'entities'] as const) for await (const r of p.vectors(t)) vectors[t].set(r.recordId, [...r.vector]);
    const config = (p.manifest.files as readonly { path: string }[]).some((f) => f.path === 'vectors/config.json')
      ? (JSON.parse((await p.readFile('vectors/config.json')).toString('utf8')) as { normalized: boolean })
      : undefined;
    return { report, vectors, normalized: config?.normalized, stagedDuring, reads };
  } finally {
    await p.close();
  }
}

describe('from-graphrag: a vector target is written only when complete, from one read of its source', () => {
  let unitVectors: { id: string; embedding: number[] }[];
  beforeAll(async () => {
    unitVectors = (await readRows(join(GRAPHRAG.v2, UNITS))) as { id: string; embedding: number[] }[];
  });

  it('the fixture as it is: both targets written, each read once, the stage folder gone afterwards', async () => {
    const r = await run(UNITS, (rows) => rows);
    expect(r.report.vectors.targets.map((t) => [t.target, t.status, t.rows, t.added])).toEqual([
      ['entities', 'written', expect.any(Number), r.vectors.entities.size],
      ['chunks', 'written', unitVectors.length, unitVectors.length],
    ]);
    // The snapshots are the v2 fixture's: each one read to its end once.
    expect(r.reads.sort()).toEqual(['entity_description vectors', 'text_unit_text vectors']);
    expect(r.stagedDuring).toBe(1);
    expect(ownStageDirs()).toEqual([]);
    expect(r.normalized).toBe(true);
  });

  it('a text unit without a vector: the chunks target is left out (none of its vectors in the package), the entities target is written', async () => {
    const r = await run(UNITS, (rows) => rows.slice(1));
    const chunks = r.report.vectors.targets.find((t) => t.target === 'chunks')!;
    expect(chunks).toMatchObject({ status: 'omitted', rows: unitVectors.length - 1, added: 0, missing: 1 });
    expect(chunks.reason).toBe(`1 of ${unitVectors.length} exported text units have no vector (a target is written only when complete)`);
    expect(r.report.warnings).toContain(`the chunks vectors (${UNITS}) were left out: ${chunks.reason}`);
    expect(r.vectors.chunks.size).toBe(0);
    expect(r.vectors.entities.size).toBeGreaterThan(0);
    expect(r.report.vectors.status).toBe('written');
    expect(ownStageDirs()).toEqual([]);
  });

  it('a text unit with two vectors, or a non-finite value: left out, naming the id', async () => {
    const twice = await run(UNITS, (rows) => [...rows, rows[2]!]);
    expect(twice.report.vectors.targets.find((t) => t.target === 'chunks')).toMatchObject({ status: 'omitted', reason: `id ${unitVectors[2]!.id} has two vectors` });
    expect(twice.vectors.chunks.size).toBe(0);
    const nan = await run(UNITS, (rows) => rows.map((r, i) => (i === 3 ? { ...r, embedding: r.embedding.map((x, j) => (j === 5 ? NaN : x)) } : r)));
    expect(nan.report.vectors.targets.find((t) => t.target === 'chunks')).toMatchObject({
      status: 'omitted',
      reason: `the vector of id ${unitVectors[3]!.id} holds a non-finite value`,
    });
    expect(nan.vectors.chunks.size).toBe(0);
    expect(ownStageDirs()).toEqual([]);
  });

  it('one vector that is not unit length: written, with normalized: false, every row as in the source', async () => {
    const scaled = (e: number[]) => e.map((x) => x * 2);
    const r = await run(UNITS, (rows) => rows.map((row, i) => (i === rows.length - 1 ? { ...row, embedding: scaled(row.embedding) } : row)));
    expect(r.report.vectors).toMatchObject({ status: 'written', normalized: false });
    expect(r.normalized).toBe(false);
    const got = [...r.vectors.chunks.values()].map((v) => v.join(',')).sort();
    const want = unitVectors.map((u, i) => [...Float32Array.from(i === unitVectors.length - 1 ? scaled(u.embedding) : u.embedding)].join(',')).sort();
    expect(got).toEqual(want);
  });

  it('entity vectors of entities that are not exported are ignored, not a problem', async () => {
    const r = await run(ENTITIES, (rows) => [...rows, { id: 'no-such-entity', embedding: rows[0]!.embedding }]);
    const entities = r.report.vectors.targets.find((t) => t.target === 'entities')!;
    expect(entities.status).toBe('written');
    expect(entities.ignored).toBeGreaterThanOrEqual(1);
    expect(entities.added).toBe(r.vectors.entities.size);
  });

  it('with tempDir, the stage folder is made in that folder (not the OS temporary folder) and removed', async () => {
    const parent = tempDir('octx-graphrag-stage-parent-');
    const b = new PackageBuilder({ asset: { name: 'vectors' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } });
    const seen = new Set<string>();
    const report = await fromGraphRag(b, copyFixture(GRAPHRAG.v2), {
      tempDir: parent,
      onProgress: (p) => {
        if ('kind' in p && /vectors$/.test(p.kind)) for (const n of readdirSync(parent)) seen.add(n);
      },
    });
    await b.dispose();
    expect(report.vectors.status).toBe('written');
    expect([...seen]).toHaveLength(1);
    expect([...seen][0]).toMatch(/^octx-graphrag-stage-/);
    expect(readdirSync(parent)).toEqual([]);
    expect(ownStageDirs()).toEqual([]);
  });
});
