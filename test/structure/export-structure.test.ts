import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, validatePackage, type ChunkRecord, type ProgressEvent } from '../../src/index.js';
import { entryText, inspectZip } from '../helpers/zip-inspect.js';
import { tempDir } from '../helpers/temp.js';
import { failureAsync as failure } from '../helpers/errors.js';

// Readable fixed ids: 019c0000-0000-7000-8000-0000000000NN
const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC_A = id(0xa1);
const DOC_B = id(0xb1);

/** A complete little graph: 2 docs, 3 chunks, a parent and a child event, 2 entities. */
function complete(): PackageBuilder {
  return (
    new PackageBuilder({ asset: { id: id(1), name: 'S' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } })
      .addDocument({ path: 'a.md', markdown: `---\noctx:\n  document_id: ${DOC_A}\n---\n# A\n\nFirst. Second.\n` })
      .addDocument({ path: 'b/b.md', markdown: `---\noctx:\n  document_id: ${DOC_B}\n---\n# B\n\nThird.\n` })
      .linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x21) }) // links may come first
      // Extra fields go through a named type (an object literal is checked against ChunkRecord).
      .addChunk<ChunkRecord & { 'x-z': number; 'x-a': { b: number; a: number } }>({ id: id(0x11), document_id: DOC_A, ordinal: 0, text: 'First.', 'x-z': 1, 'x-a': { b: 2, a: 1 } })
      .addChunk({ id: id(0x12), document_id: DOC_A, ordinal: 5, text: 'Second.' })
      .addChunk({ id: id(0x13), document_id: DOC_B, ordinal: 0, text: 'Third.' })
      .addEvent({ id: id(0x22), title: 'Child', content: 'A smaller thing happened.', level: 1, parent_id: id(0x21), category: 'detail' })
      .addEvent({ id: id(0x21), title: 'Parent', content: 'A big thing happened.' })
      .addEntity({ id: id(0x31), name: 'Alice', type: 'person' })
      .addEntity({ id: id(0x32), name: 'Paris', type: 'place', description: 'A city' })
      .linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x22) })
      .linkChunkEvent({ chunk_id: id(0x13), event_id: id(0x21) })
      .linkEventEntity({ event_id: id(0x21), entity_id: id(0x31), weight: 0.9 })
      .linkEventEntity({ event_id: id(0x22), entity_id: id(0x32), description: 'where' })
  );
}

describe('structured export', () => {
  it('writes the five files with fixed key order and declares sag-structured/0.1', async () => {
    const out = join(tempDir(), 's.octx');
    const result = await complete().export({ output: out });
    expect(result.manifest.capabilities).toEqual({ 'sag-structured': { version: '0.1' } });
    expect(result.report.structure.status).toBe('written');
    expect(result.report.structure.counts).toEqual({ chunks: 3, events: 2, entities: 2, chunkEvents: 3, eventEntities: 2 });
    const entries = inspectZip(out);
    expect(entryText(entries, 'data/chunks.jsonl')).toBe(
      `{"id":"${id(0x11)}","document_id":"${DOC_A}","ordinal":0,"text":"First.","x-a":{"b":2,"a":1},"x-z":1}\n` +
        `{"id":"${id(0x12)}","document_id":"${DOC_A}","ordinal":5,"text":"Second."}\n` +
        `{"id":"${id(0x13)}","document_id":"${DOC_B}","ordinal":0,"text":"Third."}\n`,
    );
    expect(entryText(entries, 'data/events.jsonl')).toBe(
      `{"id":"${id(0x22)}","title":"Child","content":"A smaller thing happened.","category":"detail","parent_id":"${id(0x21)}","level":1}\n` +
        `{"id":"${id(0x21)}","title":"Parent","content":"A big thing happened."}\n`,
    );
    expect(entryText(entries, 'relations/event-entities.jsonl')).toBe(
      `{"event_id":"${id(0x21)}","entity_id":"${id(0x31)}","weight":0.9}\n{"event_id":"${id(0x22)}","entity_id":"${id(0x32)}","description":"where"}\n`,
    );
    for (const e of entries) if (e.name.endsWith('.jsonl')) expect(e.data.includes(Buffer.from('\n\n'))).toBe(false);
    const report = await validatePackage(out);
    expect(report.issues).toEqual([]);
    expect(report.capabilities['sag-structured']!.valid).toBe(true);
  });

  it('gives identical bytes for identical input', async () => {
    const dir = tempDir();
    const a = await complete().export({ output: join(dir, 'a.octx') });
    const b = await complete().export({ output: join(dir, 'b.octx') });
    expect(a.packageDigest).toBe(b.packageDigest);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(dir, 'a.octx')).equals(readFileSync(join(dir, 'b.octx')))).toBe(true);
  });

  it('fails with every cross-record problem aggregated and writes nothing', async () => {
    const dir = tempDir();
    const b = complete()
      .addChunk({ id: id(0x14), document_id: id(0x99), ordinal: 0, text: 'Orphan doc ref.' })
      .addEvent({ id: id(0x23), title: 'Lost', content: 'Parent missing.', parent_id: id(0x98), level: 1 })
      .addEvent({ id: id(0x24), title: 'Wrong level', content: 'Level 2 under a top event.', parent_id: id(0x21), level: 2 })
      .addEvent({ id: id(0x25), title: 'Loop 1', content: 'Cycle.', parent_id: id(0x26), level: 1 })
      .addEvent({ id: id(0x26), title: 'Loop 2', content: 'Cycle.', parent_id: id(0x25), level: 1 })
      .linkChunkEvent({ chunk_id: id(0x97), event_id: id(0x21) })
      .linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x31) })
      .linkEventEntity({ event_id: id(0x96), entity_id: id(0x31) })
      .linkEventEntity({ event_id: id(0x21), entity_id: id(0x95) });
    const e = await failure(b.export({ output: join(dir, 'x.octx') }));
    expect(e.code).toBe('OCTX_STRUCTURE_INVALID');
    const codes = e.issues.map((i) => `${i.code}:${i.recordId}`).sort();
    expect(codes).toEqual(
      [
        `OCTX_CHUNK_DOCUMENT_MISSING:${id(0x14)}`,
        `OCTX_EVENT_PARENT_MISSING:${id(0x23)}`,
        `OCTX_EVENT_LEVEL_INVALID:${id(0x24)}`,
        `OCTX_EVENT_HIERARCHY_CYCLE:${id(0x25)}`,
        `OCTX_EVENT_HIERARCHY_CYCLE:${id(0x26)}`,
        `OCTX_CHUNK_EVENT_CHUNK_MISSING:${id(0x97)}`,
        `OCTX_CHUNK_EVENT_EVENT_MISSING:${id(0x31)}`,
        `OCTX_EVENT_ENTITY_EVENT_MISSING:${id(0x96)}`,
        `OCTX_EVENT_ENTITY_ENTITY_MISSING:${id(0x95)}`,
      ].sort(),
    );
    expect(e.message).toContain('OCTX_EVENT_HIERARCHY_CYCLE');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('accepts deeper hierarchies with consistent levels', async () => {
    const result = await complete()
      .addEvent({ id: id(0x27), title: 'Grandchild', content: 'An even smaller thing.', parent_id: id(0x22), level: 2 })
      .linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x27) })
      .linkEventEntity({ event_id: id(0x27), entity_id: id(0x31) })
      .export({ output: join(tempDir(), 'd.octx') });
    expect(result.report.structure.status).toBe('written');
  });
});

describe('coverage gate', () => {
  /** complete() plus an event with no entity and an entity no event names. */
  const incomplete = () =>
    complete()
      .addChunk({ id: id(0x15), document_id: DOC_B, ordinal: 1, text: 'No event here.' })
      .addEvent({ id: id(0x28), title: 'Alone', content: 'Nobody took part.' })
      .linkChunkEvent({ chunk_id: id(0x13), event_id: id(0x28) })
      .addEntity({ id: id(0x33), name: 'Bob', type: 'person' })
      .addEvent({ id: id(0x29), title: 'Unsourced', content: 'No chunk says this.' })
      .linkEventEntity({ event_id: id(0x29), entity_id: id(0x31) })
      .addDocument({ path: 'c.md', markdown: `---\noctx:\n  document_id: ${id(0xc1)}\n---\n# C\n` });

  it('auto: omits the whole layer, declares nothing, names every orphan and warns', async () => {
    const out = join(tempDir(), 'o.octx');
    const events: ProgressEvent[] = [];
    const result = await incomplete().export({ output: out, onProgress: (e) => events.push(e) });
    expect(result.manifest.capabilities).toBeUndefined();
    expect(inspectZip(out).map((e) => e.name)).toEqual(['manifest.json', 'knowledge/a.md', 'knowledge/b/b.md', 'knowledge/c.md']);
    const s = result.report.structure;
    expect(s.status).toBe('omitted');
    const c = s.coverage!;
    expect(c.complete).toBe(false);
    expect(c.documentsWithoutChunks).toMatchObject({ count: 1, ids: [id(0xc1)], paths: ['knowledge/c.md'] });
    expect(c.chunksWithoutEvents).toMatchObject({ count: 1, ids: [id(0x15)], byDocument: { [DOC_B]: { path: 'knowledge/b/b.md', count: 1 } } });
    expect(c.eventsWithoutChunks).toMatchObject({ count: 1, ids: [id(0x29)] });
    expect(c.eventsWithoutEntities).toMatchObject({ count: 1, ids: [id(0x28)] });
    expect(c.entitiesWithoutEvents).toMatchObject({ count: 1, ids: [id(0x33)], truncated: false });
    const warnings = events.filter((e) => e.phase === 'warning');
    expect(warnings.map((w) => (w as { issue: { code: string } }).issue.code)).toContain('OCTX_STRUCTURE_INCOMPLETE');
    expect(result.report.warnings.some((w) => w.code === 'OCTX_STRUCTURE_INCOMPLETE')).toBe(true);
    expect((await validatePackage(out)).valid).toBe(true);
  });

  it('require: throws OCTX_STRUCTURE_INCOMPLETE with the same report and writes nothing', async () => {
    const dir = tempDir();
    const e = await failure(incomplete().export({ output: join(dir, 'r.octx'), structure: 'require' }));
    expect(e.code).toBe('OCTX_STRUCTURE_INCOMPLETE');
    expect((e.report as { status: string }).status).toBe('omitted');
    expect(e.issues.map((i) => i.code).sort()).toEqual([
      'OCTX_ENTITY_WITHOUT_EVENT',
      'OCTX_EVENT_WITHOUT_CHUNK',
      'OCTX_SAG_CHUNK_WITHOUT_EVENT',
      'OCTX_SAG_DOCUMENT_WITHOUT_CHUNK',
      'OCTX_SAG_EVENT_WITHOUT_ENTITY',
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('require: a complete layer is written', async () => {
    const result = await complete().export({ output: join(tempDir(), 'c.octx'), structure: 'require' });
    expect(result.report.structure.status).toBe('written');
  });

  it('documentsOnly: no structure files, status not-requested, even when complete', async () => {
    const out = join(tempDir(), 'd.octx');
    const result = await complete().export({ output: out, documentsOnly: true });
    expect(result.report.structure.status).toBe('not-requested');
    expect(result.manifest.capabilities).toBeUndefined();
    expect(inspectZip(out).some((e) => !e.name.startsWith('knowledge/') && e.name !== 'manifest.json')).toBe(false);
  });
});
