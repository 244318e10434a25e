/**
 * mergePackages: shards of one asset and release, each a valid package built on its own, merged
 * into one. The union is checked (overlaps, conflicts, identities), written through the export's
 * planner and writer, and depends on the content only: every order of the shards, and the whole
 * content built as one package and "merged" alone, give the same bytes.
 */
import { readFileSync, statSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergePackages, openPackage, PackageBuilder, validatePackage } from 'octx-export';
import { runCli } from '../cli/run-cli.js';
import { tempDir } from '../helpers/temp.js';
import { failureAsync } from '../helpers/errors.js';

const ASSET = '01890a5d-ac96-7000-8000-00000000a55e';
const RELEASE = { version: '1.2.0', createdAt: '2026-03-01T12:00:00Z' };
/** A fixed, valid UUIDv7 per (kind, n): the tests' ids never depend on the clock. */
const id = (kind: number, n: number): string => `01890a5d-ac96-7${kind.toString(16).padStart(3, '0')}-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = 1;
const CHUNK = 2;
const EVENT = 3;
const ENTITY = 4;
const VECTOR_CONFIG = { model: 'm/m', revision: 'r1', dimensions: 4, normalized: true };

/** The content: n documents of one chunk each, one event per chunk, one event spanning chunks 0 and 3, a shared entity. */
const DOCS = 6;
function vectorOf(n: number): Float32Array {
  const v = new Float32Array([n + 1, 1, 0, 0]);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

interface ShardSpec {
  readonly docs: readonly number[];
  readonly asset?: string;
  readonly version?: string;
  readonly vectors?: boolean;
  readonly config?: typeof VECTOR_CONFIG;
  /** Change the shared entity's fields in this shard. */
  readonly entityDescription?: string;
  /** Give the shared entity another id in this shard. */
  readonly entityId?: string;
}

/** Builds the part of the content that `docs` needs: their chunks, the events of those chunks, the entities those events name. */
async function build(out: string, spec: ShardSpec): Promise<string> {
  const b = new PackageBuilder({ asset: { name: 'Merged KB', id: spec.asset ?? ASSET }, release: { ...RELEASE, ...(spec.version ? { version: spec.version } : {}) } });
  const vectors = spec.vectors ?? true;
  if (vectors) b.setVectorConfig(spec.config ?? VECTOR_CONFIG);
  const shared = spec.entityId ?? id(ENTITY, 0);
  b.addEntity({ id: shared, name: 'Liu Bei', type: 'person', ...(spec.entityDescription ? { description: spec.entityDescription } : {}) });
  if (vectors) b.addVector('entities', shared, vectorOf(100));
  for (const d of spec.docs) {
    b.addDocument({ path: `part/doc-${d}.md`, markdown: `---\ntype: Note\ntitle: Doc ${d}\noctx:\n  document_id: ${id(DOC, d)}\n---\n# Doc ${d}\n\nText of document ${d}.\n` });
    b.addChunk({ id: id(CHUNK, d), document_id: id(DOC, d), ordinal: 0, text: `Text of document ${d}.` });
    b.addEvent({ id: id(EVENT, d), title: `Event ${d}`, content: `Something happened in document ${d}.` });
    b.addEntity({ id: id(ENTITY, d + 1), name: `Person ${d}`, type: 'person' });
    b.linkChunkEvent({ chunk_id: id(CHUNK, d), event_id: id(EVENT, d) });
    b.linkEventEntity({ event_id: id(EVENT, d), entity_id: id(ENTITY, d + 1) });
    b.linkEventEntity({ event_id: id(EVENT, d), entity_id: shared, weight: 0.5 });
    if (vectors) {
      b.addVector('chunks', id(CHUNK, d), vectorOf(d));
      b.addVector('events', id(EVENT, d), vectorOf(10 + d));
      b.addVector('entities', id(ENTITY, d + 1), vectorOf(20 + d));
    }
  }
  // The event that spans documents 0 and 3 is in every shard that holds one of them, identical.
  const spans = spec.docs.filter((d) => d === 0 || d === 3);
  if (spans.length > 0) {
    b.addEvent({ id: id(EVENT, 99), title: 'A meeting', content: 'Two documents tell of it.' });
    for (const d of spans) b.linkChunkEvent({ chunk_id: id(CHUNK, d), event_id: id(EVENT, 99) });
    b.linkEventEntity({ event_id: id(EVENT, 99), entity_id: shared });
    if (vectors) b.addVector('events', id(EVENT, 99), vectorOf(99));
  }
  await b.export({ output: out });
  return out;
}

/** The content of every JSONL and Arrow entry (and the documents), by path. */
async function entries(path: string): Promise<Map<string, Buffer>> {
  const pkg = await openPackage(path);
  try {
    const out = new Map<string, Buffer>();
    for (const f of pkg.listedFiles()) out.set(f.path, await pkg.readFile(f.path));
    return out;
  } finally {
    await pkg.close();
  }
}

function lines(bytes: Buffer): string[] {
  return bytes.toString('utf8').trimEnd().split('\n');
}

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [xs.slice()];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

describe('mergePackages', () => {
  it('merges 3 shards into the package a whole build gives, byte for byte, in all 6 orders', async () => {
    const dir = tempDir();
    const shards = [await build(join(dir, 'a.octx'), { docs: [0, 1] }), await build(join(dir, 'b.octx'), { docs: [2, 3] }), await build(join(dir, 'c.octx'), { docs: [4, 5] })];
    const whole = await build(join(dir, 'whole.octx'), { docs: [0, 1, 2, 3, 4, 5] });
    const alone = await mergePackages([whole], { output: join(dir, 'whole-merged.octx') });
    const digests = new Set<string>();
    let first: Buffer | undefined;
    for (const [i, order] of permutations(shards).entries()) {
      const result = await mergePackages(order, { output: join(dir, `merged-${i}.octx`) });
      digests.add(result.packageDigest);
      const bytes = readFileSync(join(dir, `merged-${i}.octx`));
      first ??= bytes;
      expect(bytes.equals(first)).toBe(true);
      // The shared entity (3 shards), the spanning event (2 shards), its relations and their vectors were held more than once and written once.
      expect(result.shared).toMatchObject({ entity: 2, event: 1, 'event-entity': 1, vectors: 3 });
    }
    expect(digests.size).toBe(1);
    // The whole build "merged" alone is the same package: merging is canonical in the content.
    expect(readFileSync(join(dir, 'whole-merged.octx')).equals(first!)).toBe(true);
    expect(alone.packageDigest).toBe([...digests][0]);
    // Record for record, the merged entries are the whole build's: documents, records and Arrow
    // files byte for byte; the relations hold the same lines, in key order (the whole build wrote
    // the spanning event's links last).
    const merged = await entries(join(dir, 'merged-0.octx'));
    const built = await entries(whole);
    expect([...merged.keys()]).toEqual([...built.keys()]);
    for (const [path, bytes] of built) {
      if (path.startsWith('relations/')) expect(lines(merged.get(path)!)).toEqual(lines(bytes).sort());
      else if (path !== 'manifest.json') expect(merged.get(path)!.equals(bytes), path).toBe(true);
    }
    expect(merged.get('data/chunks.jsonl')!.toString().trim().split('\n')).toHaveLength(DOCS);
    expect(merged.get('data/entities.jsonl')!.toString().trim().split('\n')).toHaveLength(DOCS + 1);
    expect(merged.get('relations/chunk-events.jsonl')!.toString().trim().split('\n')).toHaveLength(DOCS + 2);
    const report = await validatePackage(join(dir, 'merged-0.octx'));
    expect(report.valid).toBe(true);
    expect(report.fullyValidated).toBe(true);
    expect(Object.keys(report.capabilities).sort()).toEqual(['sag-structured', 'vectors']);
    expect((report.manifest as { asset: { id: string }; release: { version: string; created_at: string } }).release).toMatchObject({
      version: '1.2.0',
      created_at: '2026-03-01T12:00:00Z',
    });
  });

  it('refuses shards of another asset, version or vector fingerprint, naming the field and both shards', async () => {
    const dir = tempDir();
    const a = await build(join(dir, 'a.octx'), { docs: [0] });
    const cases: [ShardSpec, string][] = [
      [{ docs: [1], asset: '01890a5d-ac96-7000-8000-00000000b55e' }, 'asset.id'],
      [{ docs: [1], version: '1.2.1' }, 'release.version'],
      [{ docs: [1], config: { ...VECTOR_CONFIG, revision: 'r2' } }, 'vectors/config.json fingerprint'],
      [{ docs: [1], vectors: false }, 'capabilities'],
    ];
    for (const [i, [spec, field]] of cases.entries()) {
      const other = await build(join(dir, `other-${i}.octx`), spec);
      const e = await failureAsync(mergePackages([a, other], { output: join(dir, `out-${i}.octx`) }));
      expect(e.code).toBe('OCTX_MERGE_MISMATCH');
      expect(e.issues[0]!.field).toBe(field);
      expect(e.issues[0]!.path).toBe(other);
      expect(e.message).toContain(a);
      expect(existsSync(join(dir, `out-${i}.octx`))).toBe(false);
    }
  });

  it('refuses a document in two shards, naming both', async () => {
    const dir = tempDir();
    const a = await build(join(dir, 'a.octx'), { docs: [0, 1] });
    const b = await build(join(dir, 'b.octx'), { docs: [1, 2] });
    const e = await failureAsync(mergePackages([a, b], { output: join(dir, 'out.octx') }));
    expect(e.code).toBe('OCTX_MERGE_DOCUMENT_OVERLAP');
    expect(e.issues[0]!.path).toBe('knowledge/part/doc-1.md');
    expect(e.message).toContain(`is in ${a} and in ${b}`);
    expect(existsSync(join(dir, 'out.octx'))).toBe(false);
  });

  it('refuses one entity id with different fields in two shards', async () => {
    const dir = tempDir();
    const a = await build(join(dir, 'a.octx'), { docs: [0] });
    const b = await build(join(dir, 'b.octx'), { docs: [1], entityDescription: 'A different description.' });
    const e = await failureAsync(mergePackages([a, b], { output: join(dir, 'out.octx') }));
    expect(e.code).toBe('OCTX_MERGE_RECORD_CONFLICT');
    expect(e.message).toContain(`entity ${id(ENTITY, 0)} is in ${a} and in ${b} with different content`);
    expect(e.issues[0]!.line).toBe(1);
  });

  it("refuses two ids for one entity identity under the consumer's rules (sag-1.7), and allows them for seed", async () => {
    const dir = tempDir();
    const a = await build(join(dir, 'a.octx'), { docs: [0], vectors: false });
    const b = await build(join(dir, 'b.octx'), { docs: [1], vectors: false, entityId: id(ENTITY, 500) });
    const e = await failureAsync(mergePackages([a, b], { output: join(dir, 'out.octx'), consumer: 'sag-1.7' }));
    expect(e.code).toBe('OCTX_MERGE_ENTITY_IDENTITY');
    expect(e.issues[0]!.recordId).toBe(id(ENTITY, 500));
    expect(e.message).toContain(`entities ${id(ENTITY, 0)} (${a}) and ${id(ENTITY, 500)} (${b})`);
    const seed = await mergePackages([a, b], { output: join(dir, 'seed.octx') });
    expect(seed.report.structure.counts.entities).toBe(4);
  });

  it('refuses a shard that is not valid, and a truncated one, writing nothing', async () => {
    const dir = tempDir();
    const a = await build(join(dir, 'a.octx'), { docs: [0] });
    const b = await build(join(dir, 'b.octx'), { docs: [1] });
    const bytes = readFileSync(b);
    const truncated = join(dir, 'truncated.octx');
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const t = await failureAsync(mergePackages([a, truncated], { output: join(dir, 'out.octx') }));
    expect(t.code).toBe('OCTX_MERGE_SHARD_INVALID');
    expect(t.message).toContain(truncated);
    expect(t.issues[0]!.code).toBe('OCTX_ARCHIVE_INVALID');
    // A flipped byte in the compressed data of an entry (just after its local header's name): the
    // validator refuses the shard.
    const corrupt = join(dir, 'corrupt.octx');
    const flipped = Buffer.from(bytes);
    const name = Buffer.from('data/chunks.jsonl');
    const at = flipped.indexOf(name) + name.length + 2;
    expect(at).toBeGreaterThan(name.length);
    flipped[at] = flipped[at]! ^ 0xff;
    writeFileSync(corrupt, flipped);
    const c = await failureAsync(mergePackages([corrupt, a], { output: join(dir, 'out.octx') }));
    expect(c.code).toBe('OCTX_MERGE_SHARD_INVALID');
    expect(c.issues.every((i) => i.message.startsWith(`${corrupt}: `))).toBe(true);
    expect(existsSync(join(dir, 'out.octx'))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['a.octx', 'b.octx', 'corrupt.octx', 'truncated.octx']);
  });

  it('leaves nothing in its tempDir, merged or refused, and reports an invalid shard before a conflict of records', async () => {
    const dir = tempDir();
    const spill = tempDir();
    const a = await build(join(dir, 'a.octx'), { docs: [0] });
    const b = await build(join(dir, 'b.octx'), { docs: [1] });
    const c = await build(join(dir, 'c.octx'), { docs: [2], entityDescription: 'Another description.' });
    const merged = await mergePackages([a, b], { output: join(dir, 'ok.octx'), tempDir: spill });
    expect(merged.shared.entity).toBe(1);
    expect(readdirSync(spill)).toEqual([]);
    const e = await failureAsync(mergePackages([a, c], { output: join(dir, 'x.octx'), tempDir: spill }));
    expect(e.code).toBe('OCTX_MERGE_RECORD_CONFLICT');
    expect(readdirSync(spill)).toEqual([]);
    // Records meet once every shard is read: a truncated third shard is what the merge reports.
    const truncated = join(dir, 'truncated.octx');
    writeFileSync(truncated, readFileSync(b).subarray(0, 100));
    const t = await failureAsync(mergePackages([a, c, truncated], { output: join(dir, 'x.octx'), tempDir: spill }));
    expect(t.code).toBe('OCTX_MERGE_SHARD_INVALID');
    expect(t.message).toContain(truncated);
    expect(readdirSync(spill)).toEqual([]);
    expect(existsSync(join(dir, 'x.octx'))).toBe(false);
  });

  it('octx-export merge writes the same package and prints what was shared', async () => {
    const dir = tempDir();
    const a = await build(join(dir, 'a.octx'), { docs: [0, 1, 2] });
    const b = await build(join(dir, 'b.octx'), { docs: [3, 4, 5] });
    const api = await mergePackages([a, b], { output: join(dir, 'api.octx') });
    const run = await runCli(['merge', b, a, '-o', join(dir, 'cli.octx'), '--json']);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as { command: string; packageDigest: string; shards: string[]; shared: Record<string, number> };
    expect(json.command).toBe('merge');
    expect(json.packageDigest).toBe(api.packageDigest);
    expect(json.shards).toEqual([b, a]);
    expect(json.shared.entity).toBe(1);
    expect(readFileSync(join(dir, 'cli.octx')).equals(readFileSync(join(dir, 'api.octx')))).toBe(true);
    const clash = await runCli(['merge', a, a, '-o', join(dir, 'x.octx')]);
    expect(clash.code).not.toBe(0);
    expect(clash.stderr).toContain('OCTX_OPTIONS_INVALID');
    expect(statSync(join(dir, 'cli.octx')).size).toBeGreaterThan(0);
  });
});
