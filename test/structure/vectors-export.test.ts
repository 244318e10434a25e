import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { HashingTextEmbedder, PackageBuilder, validatePackage, type Embedder } from '../../src/index.js';
import { entryText, inspectZip } from '../helpers/zip-inspect.js';
import { tempDir } from '../helpers/temp.js';
import { failure, failureAsync } from '../helpers/errors.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd0);
const CONFIG = { model: 'example/model', revision: 'r1', dimensions: 4, normalized: true };

/** Two chunks, one event, one entity: complete coverage. */
function graph(): PackageBuilder {
  return new PackageBuilder({ asset: { id: id(1), name: 'V' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } })
    .addDocument({ path: 'a.md', markdown: `---\noctx:\n  document_id: ${DOC}\n---\n# A\n\nOne. Two.\n` })
    .addChunk({ id: id(0x11), document_id: DOC, ordinal: 0, text: 'One.' })
    .addChunk({ id: id(0x12), document_id: DOC, ordinal: 1, text: 'Two.' })
    .addEvent({ id: id(0x21), title: 'Counting', content: 'Someone counted to two.' })
    .addEntity({ id: id(0x31), name: 'Counter', type: 'person' })
    .linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x21) })
    .linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x21) })
    .linkEventEntity({ event_id: id(0x21), entity_id: id(0x31) });
}

const unit = (i: number): number[] => [0, 0, 0, 0].map((_, k) => (k === i % 4 ? 1 : 0));

describe('vectors in a package', () => {
  it('writes complete targets as stored Arrow IPC files with the config, and declares vectors/0.1', async () => {
    const b = graph().setVectorConfig(CONFIG);
    b.addVector('chunks', id(0x12), new Float32Array(unit(1)))
      .addVector('chunks', id(0x11), unit(0))
      .addVector('entities', id(0x31), unit(3));
    const out = join(tempDir(), 'v.octx');
    const result = await b.export({ output: out });
    expect(result.manifest.capabilities).toEqual({ 'sag-structured': { version: '0.1' }, vectors: { version: '0.1' } });
    expect(result.report.vectors).toMatchObject({
      status: 'written',
      targets: { chunks: { status: 'written', rows: 2 }, events: { status: 'none' }, entities: { status: 'written', rows: 1 } },
    });
    const entries = inspectZip(out);
    expect(entries.map((e) => e.name)).toContain('vectors/config.json');
    expect(entries.map((e) => e.name)).not.toContain('vectors/events.arrow');
    const chunks = entries.find((e) => e.name === 'vectors/chunks.arrow')!;
    expect(chunks.method).toBe(0);
    expect(chunks.data.subarray(0, 8).equals(Buffer.from('ARROW1\0\0', 'latin1'))).toBe(true);
    expect(chunks.data.subarray(-6).toString('latin1')).toBe('ARROW1');
    const table = tableFromIPC(chunks.data);
    // rows follow the JSONL order of the records, not the order vectors were added
    expect(table.getChild('record_id')!.toArray()).toEqual([id(0x11), id(0x12)]);
    expect(Array.from(table.getChild('vector')!.get(1))).toEqual(unit(1));
    const config = JSON.parse(entryText(entries, 'vectors/config.json'));
    expect(config.fingerprint).toBe(result.report.vectors.fingerprint);
    expect((await validatePackage(out)).issues).toEqual([]);
  });

  it('omits an incomplete target (never pads it) and reports what is missing', async () => {
    const b = graph().setVectorConfig(CONFIG).addVector('chunks', id(0x11), unit(0)).addVector('events', id(0x21), unit(2));
    const out = join(tempDir(), 'p.octx');
    const result = await b.export({ output: out });
    expect(result.report.vectors.targets.chunks).toEqual({ status: 'omitted', reason: 'incomplete', records: 2, vectors: 1, missing: 1, sample: [id(0x12)] });
    expect(result.report.vectors.targets.events).toEqual({ status: 'written', rows: 1 });
    expect(result.report.warnings.map((w) => w.code)).toContain('OCTX_VECTOR_COVERAGE');
    expect(
      inspectZip(out)
        .map((e) => e.name)
        .filter((n) => n.startsWith('vectors/')),
    ).toEqual(['vectors/config.json', 'vectors/events.arrow']);
  });

  it('declares no vectors and writes no config when no target is complete', async () => {
    const out = join(tempDir(), 'n.octx');
    const result = await graph().setVectorConfig(CONFIG).addVector('chunks', id(0x11), unit(0)).export({ output: out });
    expect(result.manifest.capabilities).toEqual({ 'sag-structured': { version: '0.1' } });
    expect(result.report.vectors.status).toBe('omitted');
    expect(inspectZip(out).some((e) => e.name.startsWith('vectors/'))).toBe(false);
  });

  it('leaves all vectors out when the structure is omitted or documentsOnly is set', async () => {
    const incomplete = graph()
      .addEntity({ id: id(0x32), name: 'Idle', type: 'person' })
      .setVectorConfig(CONFIG)
      .addVector('entities', id(0x31), unit(0))
      .addVector('entities', id(0x32), unit(1));
    const r1 = await incomplete.export({ output: join(tempDir(), 'o.octx') });
    expect(r1.report.structure.status).toBe('omitted');
    expect(r1.report.vectors.targets.entities).toEqual({ status: 'omitted', reason: 'structure-omitted', vectors: 2 });
    const r2 = await graph()
      .setVectorConfig(CONFIG)
      .addVector('entities', id(0x31), unit(0))
      .export({ output: join(tempDir(), 'd.octx'), documentsOnly: true });
    expect(r2.report.vectors.targets.entities).toEqual({ status: 'omitted', reason: 'documents-only', vectors: 1 });
    expect(r2.manifest.capabilities).toBeUndefined();
  });

  it('warns about non-unit vectors under normalized: true', async () => {
    const result = await graph()
      .setVectorConfig(CONFIG)
      .addVector('entities', id(0x31), [0.5, 0.5, 0.5, 0.6])
      .export({ output: join(tempDir(), 'w.octx') });
    const warning = result.report.warnings.find((w) => w.code === 'OCTX_VECTOR_NORM');
    expect(warning?.recordId).toBe(id(0x31));
    expect(result.report.vectors.targets.entities.status).toBe('written');
  });

  it('refuses vectors before a config, for a record of another kind, with a wrong length, NaN, or twice', () => {
    expect(failure(() => graph().addVector('chunks', id(0x11), unit(0))).code).toBe('OCTX_VECTOR_CONFIG_REQUIRED');
    const b = graph().setVectorConfig(CONFIG);
    expect(failure(() => b.addVector('chunks', id(0x21), unit(0))).code).toBe('OCTX_REFERENCE_UNKNOWN');
    expect(failure(() => b.addVector('chunks', 'nope', unit(0))).code).toBe('OCTX_ID_INVALID');
    expect(failure(() => b.addVector('chunks', id(0x11), [1, 0, 0])).code).toBe('OCTX_VECTOR_VALUE_INVALID');
    expect(failure(() => b.addVector('chunks', id(0x11), [1, Number.NaN, 0, 0])).code).toBe('OCTX_VECTOR_VALUE_INVALID');
    expect(failure(() => b.addVector('chunks', id(0x11), [Number.POSITIVE_INFINITY, 0, 0, 0])).code).toBe('OCTX_VECTOR_VALUE_INVALID');
    b.addVector('chunks', id(0x11), unit(0));
    expect(failure(() => b.addVector('chunks', id(0x11), unit(0))).code).toBe('OCTX_VECTOR_RECORD_ID_DUPLICATE');
    expect(failure(() => b.setVectorConfig({ ...CONFIG, pooling: 'mean' })).code).toBe('OCTX_VECTOR_CONFIG_INVALID');
    b.setVectorConfig({ ...CONFIG }); // the same config again is fine
    expect(failure(() => b.addVector('tokens' as never, id(0x11), unit(0))).code).toBe('OCTX_OPTIONS_INVALID');
    void b.dispose();
  });

  it('refuses secrets and endpoints in the config', () => {
    expect(failure(() => graph().setVectorConfig({ ...CONFIG, api_key: 'x' })).code).toBe('OCTX_VECTOR_CONFIG_FORBIDDEN');
    expect(failure(() => graph().setVectorConfig({ ...CONFIG, source: 'https://models.example/x' })).code).toBe('OCTX_VECTOR_CONFIG_FORBIDDEN');
  });

  it('fails the export when a vector names an id that no record of its target has', async () => {
    const dir = tempDir();
    const b = graph().setVectorConfig(CONFIG).addVector('chunks', id(0x99), unit(0));
    const e = await failureAsync(b.export({ output: join(dir, 'x.octx') }));
    expect(e.code).toBe('OCTX_STRUCTURE_INVALID');
    expect(e.issues).toMatchObject([{ code: 'OCTX_REFERENCE_UNKNOWN', recordId: id(0x99), path: 'vectors/chunks.arrow' }]);
  });
});

describe('builder.embed', () => {
  it('embeds every record of a target through its template with the hashing embedder', async () => {
    const embedder = new HashingTextEmbedder({ dimensions: 16 });
    const b = graph();
    await b.embed('chunks', embedder, { batchSize: 1, concurrency: 2 });
    await b.embed('events', embedder);
    await b.embed('entities', embedder);
    expect(b.vectorConfig!.fingerprint).toMatch(/^sha256:/);
    const out = join(tempDir(), 'e.octx');
    const result = await b.export({ output: out });
    expect(result.report.vectors.targets).toEqual({ chunks: { status: 'written', rows: 2 }, events: { status: 'written', rows: 1 }, entities: { status: 'written', rows: 1 } });
    const table = tableFromIPC(inspectZip(out).find((e) => e.name === 'vectors/chunks.arrow')!.data);
    expect(Array.from(table.getChild('vector')!.get(0))).toEqual(Array.from(embedder.embedText('One.')));
    expect((await validatePackage(out)).valid).toBe(true);
  });

  it('refuses a template field the records lack, and an embedder of another pipeline', async () => {
    const fieldless: Embedder = { config: { model: 'm', dimensions: 2, normalized: false, input_template: { chunks: '{heading}' } }, embed: async (t) => t.map(() => [1, 0]) };
    const e = await failureAsync(graph().embed('chunks', fieldless));
    expect(e.code).toBe('OCTX_TEMPLATE_FIELD_MISSING');
    expect(e.issues[0]!.field).toBe('heading');
    const b = graph();
    await b.embed('chunks', new HashingTextEmbedder({ dimensions: 8 }));
    const other = await failureAsync(b.embed('events', new HashingTextEmbedder({ dimensions: 8, seed: 7 })));
    expect(other.code).toBe('OCTX_VECTOR_CONFIG_INVALID');
  });
});
