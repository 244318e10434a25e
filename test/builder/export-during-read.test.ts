/**
 * `export()` called while the builder is reading a record (from a getter of the record being
 * added) is refused with `OCTX_BUILDER_BUSY`, and the record is added: it is not lost between the
 * snapshot that export would have taken and the store that follows it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, type ExportResult } from '../../src/index.js';
import { readPackageText } from '../helpers/package-files.js';
import { tempDir } from '../helpers/temp.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd1);

describe('export() from inside a record being read', () => {
  it('is refused (OCTX_BUILDER_BUSY) and the record is kept: the next export writes it', async () => {
    const b = new PackageBuilder({ asset: { id: id(1), name: 'G' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
    b.addDocument({ path: 'a.md', markdown: `---\ntitle: A\noctx:\n  document_id: ${DOC}\n---\n# A\n\nText.\n` });
    b.addChunk({ id: id(0x11), document_id: DOC, ordinal: 0, text: 'one' });
    let inner: Promise<ExportResult> | undefined;
    const record = {
      id: id(0x12),
      document_id: DOC,
      ordinal: 1,
      get text(): string {
        inner ??= b.export({ output: join(tempDir(), 'inner.octx') });
        return 'two';
      },
    };
    b.addChunk(record);
    b.addEvent({ id: id(0x21), title: 'E', content: 'It happened.' }).addEntity({ id: id(0x31), name: 'N', type: 't' });
    b.linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x21) }).linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x21) });
    b.linkEventEntity({ event_id: id(0x21), entity_id: id(0x31) });
    await expect(inner).rejects.toMatchObject({ code: 'OCTX_BUILDER_BUSY', message: expect.stringContaining('while a record was being read') });
    const out = join(tempDir(), 'p.octx');
    const r = await b.export({ output: out, structure: 'require' });
    expect(r.report.structure.counts.chunks).toBe(2);
    expect(
      (await readPackageText(out, 'data/chunks.jsonl'))
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { text: string }).text),
    ).toEqual(['one', 'two']);
  });
});
