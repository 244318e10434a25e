/** fixtures/kb-three-kingdoms exported for SAG v1.7, and the default profile unchanged. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HashingTextEmbedder, IdLedger, loadWorkdir, PackageBuilder, validatePackage, type ExportOptions } from '../../src/index.js';
import { ROOT, tempDir } from '../helpers/temp.js';

const FIXTURE = join(ROOT, 'fixtures/kb-three-kingdoms');
const options = { asset: { id: '019f2000-0000-7000-8000-00000000f1f0', name: 'Three Kingdoms' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } };

/** The demo's input: the fixture plus hashing-embedder vectors for all three targets. */
async function withVectors(): Promise<PackageBuilder> {
  const b = new PackageBuilder(options);
  await loadWorkdir(b, FIXTURE);
  const embedder = new HashingTextEmbedder({ dimensions: 16 });
  for (const t of ['chunks', 'events', 'entities'] as const) await b.embed(t, embedder);
  return b;
}

async function exportIt(extra: Omit<ExportOptions, 'output'> = {}) {
  const output = join(tempDir(), 'tk.octx');
  const result = await (await withVectors()).export({ output, ...extra });
  return { output, result };
}

describe('kb-three-kingdoms under sag-1.7', () => {
  it('exports with structure and without vectors, and the report says why', async () => {
    const { output, result } = await exportIt({ consumer: 'sag-1.7', structure: 'require' });
    expect(result.manifest.capabilities).toEqual({ 'sag-structured': { version: '0.1' } });
    expect(result.report.structure.status).toBe('written');
    expect(result.report.vectors.status).toBe('omitted');
    expect(result.report.vectors.reason).toMatch(/^vectors are left out for sag-1\.7: SAG v1\.7 never reads/);
    expect(result.report.vectors.targets.chunks).toEqual({ status: 'omitted', reason: 'consumer', vectors: 27 });
    expect(result.manifest.files.some((f) => f.path.startsWith('vectors/'))).toBe(false);
    expect(result.report.warnings).toEqual([]);
    const report = await validatePackage(output, { consumer: 'sag-1.7' });
    expect(report.valid).toBe(true);
    expect(report.consumer).toEqual({ name: 'sag-1.7', compatible: true, issues: [] });
  });

  it("vectors: 'keep' writes them, with a warning", async () => {
    const { result } = await exportIt({ consumer: 'sag-1.7', vectors: 'keep' });
    expect(result.report.vectors.status).toBe('written');
    expect(result.report.warnings.map((w) => w.code)).toEqual(['OCTX_CONSUMER_VECTORS_UNUSED']);
    expect(result.report.warnings[0]!.message).toContain('sag-1.7');
  });

  it('a derived asset takes the consumer from its builder options', async () => {
    const { output } = await exportIt();
    const derived = await PackageBuilder.derive(output, { asset: { name: 'TK for SAG' }, consumer: 'sag-1.7' });
    const result = await derived.export({ output: join(tempDir(), 'derived.octx') });
    expect(result.report.vectors).toMatchObject({ status: 'omitted', reason: expect.stringContaining('sag-1.7') as unknown });
    expect(result.report.structure.status).toBe('written');
  });

  it("vectors: 'omit' also works under the seed profile", async () => {
    const { result } = await exportIt({ vectors: 'omit' });
    expect(result.report.vectors).toMatchObject({ status: 'omitted', reason: "vectors: 'omit' was requested" });
  });

  it("under the default profile the bytes are those of consumer: 'seed' and of no option at all", async () => {
    const a = await exportIt();
    const b = await exportIt({ consumer: 'seed' });
    expect(a.result.report.vectors.status).toBe('written');
    expect(a.result.report.vectors.reason).toBeUndefined();
    expect(readFileSync(a.output).equals(readFileSync(b.output))).toBe(true);
  });
});

describe('ids.entity({ type, name }): one id per SAG identity', () => {
  it('folds case and composition of the name, keeps the type apart', () => {
    const ids = new IdLedger({ document: {}, chunk: {}, event: {}, entity: {} });
    const cao = ids.entity({ type: 'person', name: 'Cao Cao' });
    expect(ids.entity({ type: 'person', name: 'CAO CAO' })).toBe(cao);
    expect(ids.entity({ type: 'person', name: 'cao cao' })).toBe(cao);
    expect(ids.entity({ type: 'title', name: 'Cao Cao' })).not.toBe(cao);
    expect(ids.entity({ type: 'person', name: 'Zh\u014Du Y\u00FA' })).toBe(ids.entity({ type: 'person', name: 'ZHO\u0304U YU\u0301' }));
    // A plain string key is its own namespace.
    expect(ids.entity('person:Cao Cao')).not.toBe(cao);
    expect(Object.keys(ids.toJSON().entity)).toContain('identity:["person","cao cao"]');
    expect(() => ids.entity({ type: '', name: 'x' })).toThrow(/non-empty/);
  });

  it('the builder ledger gives two mentions of one entity one id', () => {
    const b = new PackageBuilder(options);
    expect(b.ids.entity({ type: 'person', name: 'Liu Bei' })).toBe(b.ids.entity({ type: 'person', name: 'LIU BEI' }));
    void b.dispose();
  });
});
