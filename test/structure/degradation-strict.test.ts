import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, type PackageBuilderOptions } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';
import { failureAsync as failure } from '../helpers/errors.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd0);
const CONFIG = { model: 'example/model', revision: 'r1', dimensions: 4, normalized: true };
const unit = (i: number): number[] => [0, 0, 0, 0].map((_, k) => (k === i % 4 ? 1 : 0));

function builder(options: Partial<PackageBuilderOptions> = {}): PackageBuilder {
  return new PackageBuilder({ asset: { id: id(1), name: 'D' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' }, ...options }).addDocument({
    path: 'a.md',
    markdown: `---\noctx:\n  document_id: ${DOC}\n---\n# A\n\nOne. Two.\n`,
  });
}

/** Two chunks, one event, one entity, chunk vectors; `linkBoth: false` forgets one linkChunkEvent. */
function graph(options: Partial<PackageBuilderOptions> = {}, linkBoth = true): PackageBuilder {
  const b = builder(options)
    .addChunk({ id: id(0x11), document_id: DOC, ordinal: 0, text: 'One.' })
    .addChunk({ id: id(0x12), document_id: DOC, ordinal: 1, text: 'Two.' })
    .addEvent({ id: id(0x21), title: 'Counting', content: 'Someone counted to two.' })
    .addEntity({ id: id(0x31), name: 'Counter', type: 'person' })
    .linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x21) })
    .linkEventEntity({ event_id: id(0x21), entity_id: id(0x31) })
    .setVectorConfig(CONFIG)
    .addVector('chunks', id(0x11), unit(0))
    .addVector('chunks', id(0x12), unit(1));
  if (linkBoth) b.linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x21) });
  return b;
}

/** Files in the output folder (the package, and any temporary file left behind). */
const filesIn = (dir: string): string[] => readdirSync(dir).sort();

describe('degradation is loud (issue 15, problem 1)', () => {
  it('one missing linkChunkEvent: result.degraded with the structure layer and the chunk vectors as reasons', async () => {
    const out = join(tempDir(), 'd.octx');
    const result = await graph({}, false).export({ output: out });
    // The package is still written, documents only (structure: 'auto') — but now it says so at the top.
    expect(result.report.capabilities).toEqual([]);
    expect(result.degraded).toBe(true);
    expect(result.report.degraded).toBe(true);
    expect(result.degradations).toBe(result.report.degradations);
    expect(result.degradations).toEqual([
      {
        code: 'OCTX_STRUCTURE_INCOMPLETE',
        layer: 'structure',
        cause: 'coverage-incomplete',
        dropped: 2 + 1 + 1 + 1 + 1,
        orphans: 1,
        sample: [{ id: id(0x12), problem: 'chunk without events' }],
        message: 'the structure layer is left out (6 record(s) and link(s)): coverage is incomplete (1 chunk(s) without events)',
      },
      {
        code: 'OCTX_STRUCTURE_INCOMPLETE',
        layer: 'vectors',
        target: 'chunks',
        cause: 'structure-omitted',
        dropped: 2,
        orphans: 0,
        sample: [],
        message: '2 chunks vector(s) are left out: the structure layer is omitted',
      },
    ]);
    const warning = result.report.warnings.find((w) => w.code === 'OCTX_STRUCTURE_INCOMPLETE')!;
    expect(warning.message).toContain('every vector is left out with it: 2 chunks');
  });

  it('a document without chunks names its path in the sample', async () => {
    const b = graph().addDocument({ path: 'notes/new.md', markdown: '# New\n\nUnlinked.\n' });
    const result = await b.export({ output: join(tempDir(), 'n.octx') });
    expect(result.degradations[0]).toMatchObject({ layer: 'structure', orphans: 1, sample: [{ path: 'knowledge/notes/new.md', problem: 'document without chunks' }] });
    expect(result.degradations[0]!.sample[0]!.id).toBe(b.documentId('notes/new.md'));
  });

  it('a vector target missing one record: degraded, with the record without a vector', async () => {
    const b = graph()
      .addChunk({ id: id(0x13), document_id: DOC, ordinal: 2, text: 'Three.' })
      .linkChunkEvent({ chunk_id: id(0x13), event_id: id(0x21) });
    const result = await b.export({ output: join(tempDir(), 'v.octx') });
    expect(result.report.capabilities).toEqual(['sag-structured']);
    expect(result.degradations).toEqual([
      {
        code: 'OCTX_VECTOR_COVERAGE',
        layer: 'vectors',
        target: 'chunks',
        cause: 'vectors-incomplete',
        dropped: 2,
        orphans: 1,
        sample: [{ id: id(0x13), problem: 'record without a vector' }],
        message: 'the chunks vectors are left out (2 vector(s)): 1 of 3 chunks have no vector',
      },
    ]);
  });

  it('vectors without any structure record: degraded (the vectors were added, then dropped)', async () => {
    const b = builder().setVectorConfig(CONFIG).addVector('chunks', id(0x11), unit(0));
    const result = await b.export({ output: join(tempDir(), 'e.octx') });
    expect(result.degradations).toEqual([expect.objectContaining({ code: 'OCTX_CAPABILITY_DEPENDENCY_INVALID', layer: 'vectors', target: 'chunks', dropped: 1 })]);
  });

  it('is not degraded when nothing is left out, or when leaving out was asked for', async () => {
    const complete = await graph().export({ output: join(tempDir(), 'c.octx') });
    expect(complete.degraded).toBe(false);
    expect(complete.degradations).toEqual([]);
    const docsOnly = await graph({}, false).export({ output: join(tempDir(), 'o.octx'), documentsOnly: true });
    expect(docsOnly.report.vectors.status).toBe('omitted');
    expect(docsOnly.degraded).toBe(false);
    const omitted = await graph().export({ output: join(tempDir(), 'x.octx'), vectors: 'omit' });
    expect(omitted.degraded).toBe(false);
  });
});

describe('strict: true forbids degradation and warnings', () => {
  it('builder strict: refuses the degraded export with OCTX_STRICT_VIOLATION, lists the issues, writes nothing, and the builder stays usable', async () => {
    const dir = tempDir();
    const out = join(dir, 's.octx');
    const b = graph({ strict: true }, false);
    const e = await failure(b.export({ output: out }));
    expect(e.code).toBe('OCTX_STRICT_VIOLATION');
    expect(e.message).toMatch(/^strict: the export would leave out the structure layer, chunks vectors and report 1 warning\(s\); nothing was written:/);
    expect(e.issues.map((i) => i.code)).toEqual(['OCTX_STRICT_VIOLATION', 'OCTX_STRUCTURE_INCOMPLETE', 'OCTX_SAG_CHUNK_WITHOUT_EVENT']);
    expect(e.issues.every((i) => i.severity === 'error')).toBe(true);
    expect(e.issues[2]!.recordId).toBe(id(0x12));
    expect(e.report).toMatchObject({ degraded: true, degradations: [{ layer: 'structure' }, { layer: 'vectors', target: 'chunks' }] });
    expect(filesIn(dir)).toEqual([]); // no package, no temporary file
    // Nothing was consumed: the caller may fix the input and export again.
    b.linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x21) });
    const result = await b.export({ output: out });
    expect(result.degraded).toBe(false);
    expect(result.report.capabilities).toEqual(['sag-structured', 'vectors']);
  });

  it('export({ strict }) alone, and export({ strict: false }) over a strict builder', async () => {
    const e = await failure(graph({}, false).export({ output: join(tempDir(), 'a.octx'), strict: true }));
    expect(e.code).toBe('OCTX_STRICT_VIOLATION');
    const relaxed = await graph({ strict: true }, false).export({ output: join(tempDir(), 'b.octx'), strict: false });
    expect(relaxed.degraded).toBe(true);
  });

  it('a warning alone (non-unit vectors) is an error under strict, with its own code among the issues', async () => {
    const b = graph();
    b.addEntity({ id: id(0x32), name: 'Other', type: 'person' }).linkEventEntity({ event_id: id(0x21), entity_id: id(0x32) });
    b.addVector('entities', id(0x31), [2, 0, 0, 0]).addVector('entities', id(0x32), unit(1));
    const e = await failure(b.export({ output: join(tempDir(), 'w.octx'), strict: true }));
    expect(e.code).toBe('OCTX_STRICT_VIOLATION');
    expect(e.message).toMatch(/^strict: the export would report 1 warning\(s\)/);
    expect(e.issues.map((i) => i.code)).toEqual(['OCTX_STRICT_VIOLATION', 'OCTX_VECTOR_NORM']);
  });

  it('with a producer state: a refused strict export records no release', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const first = await graph({ state }).export({ output: join(dir, 'v1.octx') });
    expect(first.degraded).toBe(false);
    const before = readFileSync(state, 'utf8');
    const e = await failure(graph({ state, release: { version: '1.1.0' }, strict: true }, false).export({ output: join(dir, 'v2.octx') }));
    expect(e.code).toBe('OCTX_STRICT_VIOLATION');
    expect(readFileSync(state, 'utf8')).toBe(before);
    expect(existsSync(join(dir, 'v2.octx'))).toBe(false);
    expect(filesIn(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('strict accepts a complete package', async () => {
    const out = join(tempDir(), 'ok.octx');
    const result = await graph({ strict: true }).export({ output: out });
    expect(result.degraded).toBe(false);
    expect(result.report.warnings).toEqual([]);
    expect(existsSync(out)).toBe(true);
  });

  it('refuses a strict option that is not a boolean', async () => {
    const e = await failure(graph().export({ output: join(tempDir(), 'b.octx'), strict: 'yes' as unknown as boolean }));
    expect(e.code).toBe('OCTX_OPTIONS_INVALID');
    expect(e.issues[0]!.field).toBe('strict');
  });
});
