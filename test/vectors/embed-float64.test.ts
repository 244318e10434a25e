import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, openPackage, validatePackage, type Embedder } from '../../src/index.js';
import { embedAll, type EmbeddedVector } from '../../src/vectors/embedder.js';
import { failureAsync } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';

const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0x100);

/** An embedder returning `Float64Array` rows: the Embedder type accepts it (this compiles). */
class Float64Embedder implements Embedder {
  readonly config = { model: 'f64', revision: '1', dimensions: 2, normalized: true, input_template: { chunks: '{text}' } };
  async embed(texts: string[]): Promise<Float64Array[]> {
    // 0.1 is not a float32 value: the stored row shows the float32 rounding, not a refusal.
    return texts.map((_, i) => new Float64Array([i === 0 ? 0.6 : 0.1, i === 0 ? 0.8 : Math.sqrt(1 - 0.01)]));
  }
}

function graph(): PackageBuilder {
  const b = new PackageBuilder({ asset: { id: id(0xa), name: 'F64' }, strict: true, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
  b.addDocument({ path: 'a.md', markdown: `---\ntype: Note\noctx:\n  document_id: ${DOC}\n---\n# A\n\nhello\n` });
  b.addChunk({ id: id(1), document_id: DOC, ordinal: 0, text: 'one' });
  b.addChunk({ id: id(2), document_id: DOC, ordinal: 1, text: 'two' });
  b.addEvent({ id: id(0x21), title: 'T', content: 'C' }).addEntity({ id: id(0x31), name: 'N', type: 't' });
  b.linkChunkEvent({ chunk_id: id(1), event_id: id(0x21) }).linkChunkEvent({ chunk_id: id(2), event_id: id(0x21) });
  b.linkEventEntity({ event_id: id(0x21), entity_id: id(0x31), weight: 1 });
  return b;
}

describe('embedders returning Float64Array rows', () => {
  it('embedAll delivers them as they are', async () => {
    const got: EmbeddedVector[] = [];
    await embedAll({ items: [{ id: 'a', text: 'x' }], embedder: new Float64Embedder(), onBatch: (_, v) => got.push(...v) });
    expect(got).toHaveLength(1);
    expect(got[0]).toBeInstanceOf(Float64Array);
    expect(Array.from(got[0]!)).toEqual([0.6, 0.8]);
  });

  it('embed() stores them as float32 and the package is valid', async () => {
    const out = join(tempDir(), 'f64.octx');
    const b = graph();
    await b.embed('chunks', new Float64Embedder());
    const r = await b.export({ output: out });
    expect(r.report.vectors.targets.chunks.status).toBe('written');
    expect((await validatePackage(out)).issues).toEqual([]);
    const pkg = await openPackage(out);
    try {
      const rows: [string, number[]][] = [];
      for await (const row of pkg.vectors('chunks')) rows.push([row.recordId, Array.from(row.vector)]);
      expect(rows).toEqual([
        [id(1), [Math.fround(0.6), Math.fround(0.8)]],
        [id(2), [Math.fround(0.1), Math.fround(Math.sqrt(0.99))]],
      ]);
    } finally {
      await pkg.close();
    }
  });

  it('still refuses a row that is neither an array nor a float array', async () => {
    const b = graph();
    const bad: Embedder = { config: new Float64Embedder().config, embed: async (texts) => texts.map(() => new Int32Array([1, 0]) as never) };
    const e = await failureAsync(b.embed('chunks', bad));
    expect([e.code, e.issues[0]?.recordId]).toEqual(['OCTX_EMBEDDER_FAILED', id(1)]);
    expect(e.message).toContain('neither a Float32Array, a Float64Array nor an array');
    await b.dispose();
  });
});
