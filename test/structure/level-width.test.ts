/**
 * No integer is narrowed: an event level beyond the 32-bit column (2^32 + 1 was stored as 1 and
 * then passed the hierarchy check under a top-level parent) is refused by the builder and the
 * validator alike, with the level code and the value as written.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, validatePackage } from '../../src/index.js';
import { failure } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';
import { readPackageText } from '../helpers/package-files.js';
import { entriesOf, writeDir, type FileMap } from '../read/helpers.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd1);

function builder(): PackageBuilder {
  return new PackageBuilder({ asset: { id: id(9), name: 'L' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } })
    .addDocument({ path: 'a.md', markdown: `---\ntitle: "A"\noctx:\n  document_id: ${DOC}\n---\n# A\n` })
    .addChunk({ id: id(1), document_id: DOC, ordinal: 0, text: 't' })
    .addEvent({ id: id(3), title: 'Top', content: 'c' })
    .addEntity({ id: id(4), name: 'X', type: 'person' })
    .linkChunkEvent({ chunk_id: id(1), event_id: id(3) })
    .linkEventEntity({ event_id: id(3), entity_id: id(4) });
}

describe('an event level beyond 32 bits', () => {
  it('is refused by the builder, not kept as its low 32 bits', () => {
    const e = failure(() => builder().addEvent({ id: id(5), title: 'Child', content: 'c', parent_id: id(3), level: 2 ** 32 + 1 }));
    expect(e.code).toBe('OCTX_EVENT_LEVEL_INVALID');
    expect(e.issues[0]).toMatchObject({ recordId: id(5), field: 'level' });
    expect(e.message).toContain(`level ${2 ** 32 + 1}`);
    // 2^31 - 1 is the largest level the builder stores (and then, under a top-level parent, refuses as a wrong level at export).
    expect(() => builder().addEvent({ id: id(5), title: 'Child', content: 'c', parent_id: id(3), level: 2 ** 31 - 1 })).not.toThrow();
  });

  it('is refused by the validator', async () => {
    const out = join(tempDir(), 'p.octx');
    await builder()
      .addEvent({ id: id(5), title: 'Child', content: 'c', parent_id: id(3), level: 1 })
      .linkChunkEvent({ chunk_id: id(1), event_id: id(5) })
      .linkEventEntity({ event_id: id(5), entity_id: id(4) })
      .export({ output: out });
    const manifest = JSON.parse(await readPackageText(out, 'manifest.json')) as { files: { path: string }[]; capabilities: unknown };
    const files: FileMap = {};
    for (const { path } of manifest.files) files[path] = await readPackageText(out, path);
    expect(files['data/events.jsonl']).toContain('"level":1');
    files['data/events.jsonl'] = files['data/events.jsonl']!.toString().replace('"level":1', `"level":${2 ** 32 + 1}`);
    const report = await validatePackage(await writeDir(entriesOf({ files, capabilities: manifest.capabilities })));
    expect(report.valid).toBe(false);
    expect(report.issues.filter((i) => i.code === 'OCTX_EVENT_LEVEL_INVALID').map((i) => ({ field: i.field, recordId: i.recordId, message: i.message }))).toStrictEqual([
      { field: 'level', recordId: id(5), message: expect.stringContaining(`level ${2 ** 32 + 1} is deeper than any event hierarchy can be`) },
    ]);
  });
});
