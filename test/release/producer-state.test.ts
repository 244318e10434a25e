import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nextVersion, type OctxError, PackageBuilder, ProducerState, type ExportResult } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';
import { failureAsync as failure } from '../helpers/errors.js';

/** A tiny "pipeline": documents and records keyed by producer keys, ids from the ledger. */
async function runPipeline(stateFile: string, out: string, opts: { version?: string; text?: string; overwrite?: boolean } = {}): Promise<ExportResult> {
  const b = new PackageBuilder({ asset: { name: 'Pipeline' }, release: opts.version ? { version: opts.version } : {}, state: stateFile });
  b.addDocument({ path: 'notes/a.md', markdown: `# A\n\n${opts.text ?? 'Alpha.'}\n` });
  const doc = b.documentId('notes/a.md');
  const chunk = b.ids.chunk('notes/a.md#0');
  const event = b.ids.event('ev:alpha');
  const entity = b.ids.entity('ent:alpha');
  b.addChunk({ id: chunk, document_id: doc, ordinal: 0, text: opts.text ?? 'Alpha.' })
    .addEvent({ id: event, title: 'Alpha', content: 'Alpha happened.' })
    .addEntity({ id: entity, name: 'Alpha', type: 'thing' })
    .linkChunkEvent({ chunk_id: chunk, event_id: event })
    .linkEventEntity({ event_id: event, entity_id: entity });
  return b.export({ output: out, overwrite: opts.overwrite ?? true });
}

describe('producer state', () => {
  it('keeps the asset id, document and record ids, and makes an unchanged rebuild byte-identical', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const first = await runPipeline(state, join(dir, 'one.octx'), { version: '1.0.0' });
    const firstBytes = readFileSync(join(dir, 'one.octx'));
    await new Promise((r) => setTimeout(r, 1100)); // a later "now" must not leak into the rebuild
    const again = await runPipeline(state, join(dir, 'two.octx'), { version: '1.0.0' });
    expect(again.assetId).toBe(first.assetId);
    expect(again.packageDigest).toBe(first.packageDigest);
    expect(again.manifest.release.created_at).toBe(first.manifest.release.created_at);
    expect(readFileSync(join(dir, 'two.octx')).equals(firstBytes)).toBe(true);

    const saved = JSON.parse(readFileSync(state, 'utf8'));
    expect(saved.asset).toEqual({ id: first.assetId, name: 'Pipeline' });
    expect(saved.releases['1.0.0'].package_digest).toBe(first.packageDigest);
    expect(Object.keys(saved.ids.chunk)).toEqual(['notes/a.md#0']);
    expect(saved.documents['knowledge/notes/a.md']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses the same version with different content, and a lower or equal version for changed content', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    await runPipeline(state, join(dir, 'a.octx'), { version: '1.1.0' });
    const conflict = await failure(runPipeline(state, join(dir, 'b.octx'), { version: '1.1.0', text: 'Changed.' }));
    expect(conflict.code).toBe('OCTX_RELEASE_CONFLICT');
    expect(conflict.message).toContain('1.1.1');
    const lower = await failure(runPipeline(state, join(dir, 'c.octx'), { version: '1.0.5', text: 'Changed.' }));
    expect(lower.code).toBe('OCTX_RELEASE_VERSION_REQUIRED');
    // nothing was published for the refused exports
    expect(() => readFileSync(join(dir, 'b.octx'))).toThrow();
    expect(() => readFileSync(join(dir, 'c.octx'))).toThrow();
    const next = await runPipeline(state, join(dir, 'd.octx'), { version: '1.2.0', text: 'Changed.' });
    expect(next.version).toBe('1.2.0');
    // record ids were kept across releases
    const first = JSON.parse(readFileSync(state, 'utf8'));
    expect(Object.keys(first.releases)).toEqual(['1.1.0', '1.2.0']);
  });

  it('defaults the version to the next patch after the latest release', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    expect(nextVersion(ProducerState.load(state))).toBe('1.0.0');
    await runPipeline(state, join(dir, 'a.octx'));
    expect(nextVersion(ProducerState.load(state))).toBe('1.0.1');
    const second = await runPipeline(state, join(dir, 'b.octx'), { text: 'Beta.' });
    expect(second.version).toBe('1.0.1');
    expect(nextVersion(ProducerState.load(state), 'minor')).toBe('1.1.0');
  });

  it('refuses going back below the latest release even with unchanged content', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    await runPipeline(state, join(dir, 'a.octx'), { version: '2.0.0' });
    const back = await failure(runPipeline(state, join(dir, 'b.octx'), { version: '1.5.0' }));
    expect(back.code).toBe('OCTX_RELEASE_VERSION_REQUIRED');
  });

  it('without a version, unchanged content rebuilds the latest release instead of minting a new one', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const first = await runPipeline(state, join(dir, 'a.octx'));
    const again = await runPipeline(state, join(dir, 'b.octx'));
    expect(again.version).toBe(first.version);
    expect(again.packageDigest).toBe(first.packageDigest);
    expect(readFileSync(join(dir, 'b.octx')).equals(readFileSync(join(dir, 'a.octx')))).toBe(true);
  });

  it('holds an exclusive lock on the state while exporting', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    writeFileSync(`${state}.lock`, '12345\n');
    const locked = await failure(runPipeline(state, join(dir, 'a.octx')));
    expect(locked.code).toBe('OCTX_STATE_LOCKED');
    expect(() => readFileSync(join(dir, 'a.octx'))).toThrow();
    const { rmSync } = await import('node:fs');
    rmSync(`${state}.lock`);
    await runPipeline(state, join(dir, 'a.octx'));
    expect(() => readFileSync(`${state}.lock`)).toThrow(); // released after the export
  });

  it('state is written only after a successful export', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    writeFileSync(join(dir, 'taken.octx'), 'x');
    await failure(runPipeline(state, join(dir, 'taken.octx'), { version: '1.0.0', overwrite: false }));
    expect(() => readFileSync(state)).toThrow();
  });

  it('refuses a state file of another asset and a corrupt state file', () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    writeFileSync(
      state,
      '{"format":"octx-export/producer-state","version":1,"asset":{"id":"019c0000-0000-7000-8000-000000000001","name":"x"},"releases":{},"documents":{},"ids":{"document":{},"chunk":{},"event":{},"entity":{}}}',
    );
    try {
      new PackageBuilder({ asset: { name: 'x', id: '019c0000-0000-7000-8000-000000000002' }, state });
      throw new Error('accepted');
    } catch (e) {
      expect((e as OctxError).code).toBe('OCTX_STATE_INVALID');
    }
    writeFileSync(state, '{"format":"something else"}');
    try {
      ProducerState.load(state);
      throw new Error('accepted');
    } catch (e) {
      expect((e as OctxError).code).toBe('OCTX_STATE_INVALID');
    }
  });

  it('the ledger mints once per key and kind', () => {
    const b = new PackageBuilder({ asset: { name: 'x' } });
    expect(b.ids.chunk('k')).toBe(b.ids.chunk('k'));
    expect(b.ids.chunk('k')).not.toBe(b.ids.event('k'));
    void b.dispose();
  });
});

describe('the folders of a new state file (review of issue 16)', () => {
  /** A builder whose export is refused by the planner (no Concept Document) after the lock was taken. */
  const refused = (state: string) => new PackageBuilder({ asset: { name: 'Refused' }, state });

  it('a refused export removes the folders created for the state, and only those', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'kept'));
    const e = await failure(refused(join(dir, 'kept/new/deeper/s.json')).export({ output: join(dir, 'out.octx') }));
    expect(e.code).toBe('OCTX_CONCEPT_REQUIRED');
    expect(readdirSync(dir)).toEqual(['kept']);
    expect(readdirSync(join(dir, 'kept'))).toEqual([]);
  });

  it('state and output in the same new folder: a refused export removes it; a successful one keeps it with the state', async () => {
    const dir = tempDir();
    const e = await failure(refused(join(dir, 'new/s.json')).export({ output: join(dir, 'new/out.octx') }));
    expect(e.code).toBe('OCTX_CONCEPT_REQUIRED');
    expect(readdirSync(dir)).toEqual([]);
    const e2 = await failure(refused(join(dir, 'st/s.json')).export({ output: join(dir, 'st/pkg/out.octx') }));
    expect(e2.code).toBe('OCTX_CONCEPT_REQUIRED');
    expect(readdirSync(dir)).toEqual([]);
    await runPipeline(join(dir, 'a/b/s.json'), join(dir, 'a/out.octx'));
    expect(readdirSync(join(dir, 'a')).sort()).toEqual(['b', 'out.octx']);
    expect(readdirSync(join(dir, 'a/b'))).toEqual(['s.json']);
  });

  it('a lock held by another export: refused; the output folder it made is removed, the state folder kept', async () => {
    const dir = tempDir();
    const state = join(dir, 'held/s.json');
    mkdirSync(join(dir, 'held'));
    writeFileSync(`${state}.lock`, `${JSON.stringify({ pid: process.pid, host: 'elsewhere.invalid', started: '2026-01-01T00:00:00Z' })}\n`);
    const e = await failure(runPipeline(state, join(dir, 'out/x.octx')));
    expect(e.code).toBe('OCTX_STATE_LOCKED');
    // The state folder existed before (it holds the other export's lock); the output folder is gone.
    expect(readdirSync(dir)).toEqual(['held']);
  });
});
