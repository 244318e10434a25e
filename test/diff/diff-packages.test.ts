import { describe, expect, it } from 'vitest';
import { diffPackages, isOctxError, openPackage, type PackageDiff, type ProgressEvent } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';
import { ASSET, C1, C2, C3, C4, D1, D2, D3, D4, E1, E2, N1, N2, derived, id, release100, release110, unrelated } from './fixtures.js';

const none = { added: [], removed: [], changed: [] };
const vectorNone = { ...none, stale: [] };
const zero = { added: 0, removed: 0, changed: 0, unchanged: 0 };
const side = (path: string, version: string, createdAt: string, assetId = ASSET, assetName = 'KB') => ({
  path,
  assetId,
  assetName,
  version,
  createdAt,
  packageDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as unknown as string,
  size: expect.any(Number) as unknown as number,
  derivedFrom: null,
});

describe('diffPackages: two releases whose differences are known by construction', () => {
  it('reports exactly the edits between 1.0.0 and 1.1.0', async () => {
    const dir = tempDir();
    const a = await release100(dir);
    const b = await release110(dir);
    const diff = await diffPackages(a, b);
    expect(diff).toEqual({
      old: side(a, '1.0.0', '2026-07-12T10:00:00Z'),
      new: side(b, '1.1.0', '2026-08-01T10:00:00Z'),
      relation: 'same-asset',
      hasChanges: true,
      documents: {
        added: [{ id: D4, path: 'knowledge/d.md' }],
        removed: [{ id: D3, path: 'knowledge/c.md' }],
        changed: [{ id: D2, path: 'knowledge/b.md' }],
        // same id, same bytes, new path: moved, not removed + added, and not changed
        moved: [{ id: D1, from: 'knowledge/a.md', to: 'knowledge/notes/a.md' }],
        unchanged: 0,
      },
      extensions: { added: ['extensions/com.example.tool/0.1/notes.txt'], removed: [], changed: [] },
      records: {
        chunks: { added: 1, removed: 1, changed: 1, unchanged: 1 },
        events: { ...zero, unchanged: 2 },
        entities: { ...zero, unchanged: 2 },
        chunk_events: { added: 1, removed: 1, changed: 0, unchanged: 2 },
        event_entities: { added: 0, removed: 1, changed: 1, unchanged: 2 },
      },
      vectors: {
        // C2's text changed, its vector and input digest did not: stale
        chunks: { added: 1, removed: 1, changed: 0, unchanged: 2, stale: 1, configChanged: false },
        events: { added: 0, removed: 0, changed: 1, unchanged: 1, stale: 0, configChanged: false },
        entities: { added: 2, removed: 0, changed: 0, unchanged: 0, stale: 0, configChanged: false },
      },
      capabilities: { added: [], removed: [] },
      samples: {
        chunks: { added: [C4], removed: [C3], changed: [C2] },
        events: none,
        entities: none,
        chunk_events: { added: [[C4, E2]], removed: [[C3, E2]], changed: [] },
        event_entities: { added: [], removed: [[E2, N1]], changed: [[E1, N2]] },
        vectors: {
          chunks: { added: [C4], removed: [C3], changed: [], stale: [C2] },
          events: { added: [], removed: [], changed: [E2], stale: [] },
          entities: { added: [N1, N2], removed: [], changed: [], stale: [] },
        },
      },
    } satisfies PackageDiff);
  });

  it('the reverse diff swaps added and removed', async () => {
    const dir = tempDir();
    const diff = await diffPackages(await release110(dir), await release100(dir));
    expect(diff.documents).toEqual({
      added: [{ id: D3, path: 'knowledge/c.md' }],
      removed: [{ id: D4, path: 'knowledge/d.md' }],
      changed: [{ id: D2, path: 'knowledge/b.md' }],
      moved: [{ id: D1, from: 'knowledge/notes/a.md', to: 'knowledge/a.md' }],
      unchanged: 0,
    });
    expect(diff.records.event_entities).toEqual({ added: 1, removed: 0, changed: 1, unchanged: 2 });
    expect(diff.vectors.entities).toMatchObject({ added: 0, removed: 2 });
    expect(diff.extensions).toEqual({ added: [], removed: ['extensions/com.example.tool/0.1/notes.txt'], changed: [] });
  });

  it('a rebuild with only a new version and time has no changes', async () => {
    const dir = tempDir();
    const a = await release100(dir);
    const again = await release100(dir, 'kb-1.0.1.octx', '1.0.1');
    const diff = await diffPackages(a, again);
    expect(diff.hasChanges).toBe(false);
    expect(diff.relation).toBe('same-asset');
    expect(diff.documents).toEqual({ added: [], removed: [], changed: [], moved: [], unchanged: 3 });
    expect(diff.records).toEqual({
      chunks: { ...zero, unchanged: 3 },
      events: { ...zero, unchanged: 2 },
      entities: { ...zero, unchanged: 2 },
      chunk_events: { ...zero, unchanged: 3 },
      event_entities: { ...zero, unchanged: 4 },
    });
    expect(diff.vectors.chunks).toEqual({ ...zero, unchanged: 3, stale: 0, configChanged: false });
    expect(diff.samples.vectors).toEqual({ chunks: vectorNone, events: vectorNone, entities: vectorNone });
  });
});

describe('diffPackages: relations', () => {
  it('a derived asset against its source: derived, and only the additions', async () => {
    const dir = tempDir();
    const a = await release100(dir);
    const d = await derived(dir, a);
    const diff = await diffPackages(a, d);
    expect(diff.relation).toBe('derived');
    expect(diff.new.assetId).toBe(id(0xb0));
    expect(diff.new.derivedFrom).toEqual({ assetId: ASSET, version: '1.0.0', packageDigest: diff.old.packageDigest });
    expect(diff.documents).toEqual({ added: [{ id: id(5), path: 'knowledge/notes.md' }], removed: [], changed: [], moved: [], unchanged: 3 });
    expect(diff.records).toEqual({
      chunks: { ...zero, added: 1, unchanged: 3 },
      events: { ...zero, added: 1, unchanged: 2 },
      entities: { ...zero, unchanged: 2 },
      chunk_events: { ...zero, added: 1, unchanged: 3 },
      event_entities: { ...zero, added: 1, unchanged: 4 },
    });
    expect(diff.samples.event_entities.added).toEqual([[id(0x25), N1]]);
    expect(diff.vectors.chunks).toEqual({ ...zero, added: 1, unchanged: 3, stale: 0, configChanged: false });
    // the other way round the source does not name the derived asset: unrelated
    expect((await diffPackages(d, a)).relation).toBe('unrelated');
  });

  it('two unrelated packages: everything added or removed', async () => {
    const dir = tempDir();
    const a = await release100(dir);
    const o = await unrelated(dir);
    const diff = await diffPackages(a, o);
    expect(diff.relation).toBe('unrelated');
    expect(diff.hasChanges).toBe(true);
    expect(diff.documents.added).toEqual([{ id: id(6), path: 'knowledge/z.md' }]);
    expect(diff.documents.removed.map((d) => d.id)).toEqual([D1, D2, D3]);
    expect(diff.records.chunks).toEqual({ ...zero, removed: 3 });
    expect(diff.records.event_entities).toEqual({ ...zero, removed: 4 });
    expect(diff.capabilities).toEqual({ added: [], removed: ['sag-structured', 'vectors'] });
    // the config went away with the vectors; the entities target exists in neither package
    expect(diff.vectors.chunks).toEqual({ ...zero, removed: 3, stale: 0, configChanged: true });
    expect(diff.vectors.entities).toEqual({ ...zero, stale: 0, configChanged: false });
    expect(diff.samples.chunks.removed).toEqual([C1, C2, C3]);
  });
});

describe('diffPackages: options and inputs', () => {
  it('accepts opened packages and leaves them open; sampleSize bounds every sample', async () => {
    const dir = tempDir();
    const a = await openPackage(await release100(dir));
    const o = await openPackage(await unrelated(dir));
    try {
      const diff = await diffPackages(a, o, { sampleSize: 1 });
      expect(diff.samples.chunks.removed).toEqual([C1]);
      expect(diff.samples.event_entities.removed).toEqual([[E1, N1]]);
      expect(diff.documents.removed).toHaveLength(3); // documents are listed whole
      // still open: the records can be read again
      let n = 0;
      for await (const _ of a.chunks()) n++;
      expect(n).toBe(3);
      expect((await diffPackages(a, o, { sampleSize: 0 })).samples.chunks.removed).toEqual([]);
    } finally {
      await a.close();
      await o.close();
    }
  });

  it('reports progress in the diff phase, old side before new', async () => {
    const dir = tempDir();
    const events: ProgressEvent[] = [];
    await diffPackages(await release100(dir), await release110(dir), { onProgress: (e) => events.push(e) });
    const kinds = events.map((e) => (e.phase === 'diff' ? e.kind : `?${e.phase}`));
    expect(kinds).toContain('old chunks');
    expect(kinds.indexOf('old chunks')).toBeLessThan(kinds.indexOf('new chunks'));
    expect(events.find((e) => e.phase === 'diff' && e.kind === 'new vectors chunks')).toMatchObject({ completed: 3, total: 3 });
  });

  it('refuses unknown options and a bad sampleSize with OCTX_OPTIONS_INVALID', async () => {
    const dir = tempDir();
    const a = await release100(dir);
    for (const bad of [{ sampelSize: 3 }, { sampleSize: -1 }, { sampleSize: 1.5 }, { sampleSize: 1001 }]) {
      const e = await diffPackages(a, a, bad as never).catch((x: unknown) => x);
      expect(isOctxError(e, 'OCTX_OPTIONS_INVALID')).toBe(true);
    }
    const e = await diffPackages(a, a, { sampelSize: 3 } as never).catch((x: unknown) => x);
    expect((e as Error).message).toMatch(/did you mean "sampleSize"/);
  });

  it('a missing package is OCTX_OPEN_ERROR', async () => {
    const dir = tempDir();
    const e = await diffPackages(`${dir}/nope.octx`, await release100(dir)).catch((x: unknown) => x);
    expect(isOctxError(e, 'OCTX_OPEN_ERROR')).toBe(true);
  });

  it('reads with the given limits (a package above them is refused)', async () => {
    const dir = tempDir();
    const a = await release100(dir);
    const e = await diffPackages(a, a, { limits: { maxEntries: 3 } }).catch((x: unknown) => x);
    expect(isOctxError(e, 'OCTX_RESOURCE_LIMIT')).toBe(true);
  });
});
