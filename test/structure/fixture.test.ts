import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isOctxError, loadWorkdir, type OctxError, PackageBuilder, validatePackage } from '../../src/index.js';
import { inspectZip } from '../helpers/zip-inspect.js';
import { ROOT, tempDir } from '../helpers/temp.js';

const FIXTURE = join(ROOT, 'fixtures/kb-three-kingdoms');
// The fixture's single-link event and the entity only it names (see fixtures/kb-three-kingdoms/README.md).
const SINGLE_LINK_EVENT = '019f2206-ec0f-7c3d-81c0-e12f5136b1c2';
const ITS_ENTITY = '019f21f5-cae8-7738-8267-5cf047bd016c';

const options = { asset: { id: '019f2000-0000-7000-8000-00000000f1f0', name: 'Three Kingdoms' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } };

describe('the three-kingdoms fixture', () => {
  it('exports as sag-structured, and every JSONL file is carried byte for byte', async () => {
    const b = new PackageBuilder(options);
    const loaded = await loadWorkdir(b, FIXTURE);
    expect(loaded).toMatchObject({ documents: 9, chunks: 27, events: 19, entities: 22, chunkEvents: 44, eventEntities: 72, ignored: ['README.md'] });
    const out = join(tempDir(), 'tk.octx');
    const result = await b.export({ output: out, structure: 'require' });
    expect(result.manifest.capabilities).toEqual({ 'sag-structured': { version: '0.1' } });
    const entries = inspectZip(out);
    for (const p of ['data/chunks.jsonl', 'data/events.jsonl', 'data/entities.jsonl', 'relations/chunk-events.jsonl', 'relations/event-entities.jsonl']) {
      // The fixture already uses the SDK's canonical line form, so the bytes must survive unchanged.
      expect(entries.find((e) => e.name === p)!.data.equals(readFileSync(join(FIXTURE, p)))).toBe(true);
    }
    const report = await validatePackage(out);
    expect(report.issues).toEqual([]);
    expect(report.capabilities['sag-structured']!.valid).toBe(true);
  });

  describe('with the single entity link of one event removed', () => {
    function brokenFixture(): string {
      const dir = join(tempDir(), 'kb');
      cpSync(FIXTURE, dir, { recursive: true });
      const file = join(dir, 'relations/event-entities.jsonl');
      const lines = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '');
      const kept = lines.filter((l) => !l.includes(`"event_id":"${SINGLE_LINK_EVENT}"`));
      expect(kept).toHaveLength(lines.length - 1);
      writeFileSync(file, `${kept.join('\n')}\n`);
      return dir;
    }

    it('auto: exports documents only, naming exactly that event and the entity it orphans', async () => {
      const b = new PackageBuilder(options);
      await loadWorkdir(b, brokenFixture());
      const out = join(tempDir(), 'docs.octx');
      const result = await b.export({ output: out });
      const s = result.report.structure;
      expect(s.status).toBe('omitted');
      expect(s.coverage).toMatchObject({
        complete: false,
        documentsWithoutChunks: { count: 0, ids: [] },
        chunksWithoutEvents: { count: 0, ids: [] },
        eventsWithoutChunks: { count: 0, ids: [] },
        eventsWithoutEntities: { count: 1, ids: [SINGLE_LINK_EVENT] },
        entitiesWithoutEvents: { count: 1, ids: [ITS_ENTITY] },
      });
      expect(result.manifest.capabilities).toBeUndefined();
      expect(inspectZip(out).every((e) => e.name === 'manifest.json' || e.name.startsWith('knowledge/'))).toBe(true);
      expect((await validatePackage(out)).valid).toBe(true);
    });

    it('require: throws OCTX_STRUCTURE_INCOMPLETE with the same two orphans', async () => {
      const b = new PackageBuilder(options);
      await loadWorkdir(b, brokenFixture());
      try {
        await b.export({ output: join(tempDir(), 'x.octx'), structure: 'require' });
        throw new Error('exported');
      } catch (e) {
        expect(isOctxError(e)).toBe(true);
        const err = e as OctxError;
        expect(err.code).toBe('OCTX_STRUCTURE_INCOMPLETE');
        expect(err.issues.map((i) => [i.code, i.recordId])).toEqual([
          ['OCTX_SAG_EVENT_WITHOUT_ENTITY', SINGLE_LINK_EVENT],
          ['OCTX_ENTITY_WITHOUT_EVENT', ITS_ENTITY],
        ]);
      }
    });
  });
});
