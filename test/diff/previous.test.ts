/**
 * The change summary of an export against a previous package: `export({ previous })` in the SDK,
 * and the one line on stderr of `build --state` (the last release, still on disk) and `derive`.
 */
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changeCounts, changeLine, diffPackages, PackageBuilder, ProducerState } from '../../src/index.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { runCli } from '../cli/run-cli.js';
import { ASSET, C1, D1, id, release100 } from './fixtures.js';

/** 1.0.0 as built by release100, with C1's text edited: one document and one chunk changed. */
async function editedRelease(output: string, previous?: string) {
  const b = new PackageBuilder({ asset: { id: ASSET, name: 'KB' }, release: { version: '1.0.1', createdAt: '2026-07-13T10:00:00Z' } });
  b.addDocument({ path: 'a.md', markdown: `---\ntype: Note\ntitle: A\noctx:\n  document_id: ${D1}\n---\n# A\n\nAlpha, edited.\n` })
    .addChunk({ id: C1, document_id: D1, ordinal: 0, text: 'Alpha, edited.' })
    .addEvent({ id: id(0x21), title: 'First', content: 'Alpha and beta happen.' })
    .addEntity({ id: id(0x31), name: 'One', type: 'thing' })
    .linkChunkEvent({ chunk_id: C1, event_id: id(0x21) })
    .linkEventEntity({ event_id: id(0x21), entity_id: id(0x31) });
  return b.export({ output, structure: 'require', ...(previous !== undefined ? { previous } : {}) });
}

describe('export({ previous })', () => {
  it('puts the counts of the diff against the previous package in result.report.changes', async () => {
    const dir = tempDir();
    const old = await release100(dir);
    const result = await editedRelease(join(dir, 'kb-1.0.1.octx'), old);
    const expected = changeCounts(await diffPackages(old, result.output));
    expect(result.report.changes).toEqual(expected);
    expect(result.report.changes).toMatchObject({
      against: { path: old, assetId: ASSET, version: '1.0.0' },
      relation: 'same-asset',
      hasChanges: true,
      documents: { added: 0, removed: 2, changed: 1, moved: 0, unchanged: 0 },
      records: { chunks: { added: 0, removed: 2, changed: 1, unchanged: 0 } },
    });
    expect(changeLine(result.report.changes!)).toBe(
      'changes since 1.0.0: documents +0 -2 ~1 →0; chunks +0 -2 ~1; events +0 -1 ~0; entities +0 -1 ~0; chunk-events +0 -2 ~0; event-entities +0 -3 ~0; chunks vectors +0 -3 ~0 (config changed); events vectors +0 -2 ~0 (config changed); capabilities -vectors',
    );
  });

  it('without previous there is no changes entry; an unreadable previous is a warning, the package is written', async () => {
    const dir = tempDir();
    const plain = await editedRelease(join(dir, 'a.octx'));
    expect(plain.report.changes).toBeUndefined();
    const missing = await editedRelease(join(dir, 'b.octx'), join(dir, 'gone.octx'));
    expect(missing.report.changes).toBeUndefined();
    expect(missing.report.warnings).toEqual([expect.objectContaining({ code: 'OCTX_OPEN_ERROR', severity: 'warning', field: 'previous' })]);
    expect(readFileSync(missing.output).length).toBeGreaterThan(0);
  });

  it('a previous that is the output this export overwrites is compared as it was before the export', async () => {
    const dir = tempDir();
    const old = await release100(dir);
    const b = new PackageBuilder({ asset: { id: ASSET, name: 'KB' }, release: { version: '1.0.1', createdAt: '2026-07-13T10:00:00Z' } });
    b.addDocument({ path: 'a.md', markdown: `---\ntype: Note\ntitle: A\noctx:\n  document_id: ${D1}\n---\n# A\n\nAlpha, edited.\n` });
    const result = await b.export({ output: old, overwrite: true, previous: old });
    // Before: the new package was compared with itself ("no changes") once it had replaced the old one.
    expect(result.report.warnings).toEqual([]);
    expect(result.report.changes).toMatchObject({ against: { path: old, version: '1.0.0' }, hasChanges: true, documents: { removed: 2, changed: 1 } });
    expect(readdirSync(dir)).toEqual(['kb-1.0.0.octx']);
  });

  it('refuses a previous that is not a path with OCTX_OPTIONS_INVALID, before writing', async () => {
    const dir = tempDir();
    const e = await editedRelease(join(dir, 'c.octx'), '').catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'OCTX_OPTIONS_INVALID' });
    // No options at all: still the typed refusal (the previous package is looked at only in valid options).
    const b = new PackageBuilder({ asset: { id: ASSET, name: 'KB' } });
    await expect(b.export(null as never)).rejects.toMatchObject({ code: 'OCTX_OPTIONS_INVALID' });
    await b.dispose();
  });
});

describe('build --state and derive print one line of changes', () => {
  it('build --state: the last release recorded in the state file, while its file is on disk', async () => {
    const dir = tempDir();
    const work = join(dir, 'kb');
    cpSync(join(ROOT, 'fixtures/kb-three-kingdoms'), work, { recursive: true });
    const state = join(dir, 'state.json');
    const first = await runCli(['build', work, '-o', join(dir, 'kb-1.octx'), '--name', 'KB', '--state', state]);
    expect(first.code).toBe(0);
    expect(first.stderr).not.toMatch(/changes since/); // nothing released before
    expect(ProducerState.load(state).releases['1.0.0']!.output).toBe('kb-1.octx');
    const chapter = join(work, 'knowledge/chapters/chibi-zhi-zhan.md');
    writeFileSync(chapter, `${readFileSync(chapter, 'utf8')}\nOne more line.\n`);
    const second = await runCli(['build', work, '-o', join(dir, 'kb-2.octx'), '--name', 'KB', '--state', state]);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('changes since 1.0.0: documents +0 -0 ~1 →0\n');
    const json = await runCli(['build', work, '-o', join(dir, 'kb-3.octx'), '--name', 'KB', '--state', state, '--json', '--version', '1.1.0']);
    expect(json.code).toBe(0);
    const report = (JSON.parse(json.stdout) as { report: { changes: { against: { version: string }; hasChanges: boolean } } }).report;
    expect(report.changes).toMatchObject({ against: { version: '1.0.1' }, hasChanges: false });
  }, 60_000);

  it('build --state -o -: the state records no output for a package sent to stdout (its staging file is gone)', async () => {
    const dir = tempDir();
    const work = join(dir, 'kb');
    cpSync(join(ROOT, 'fixtures/kb-three-kingdoms'), work, { recursive: true });
    const state = join(dir, 'state.json');
    const piped = await runCli(['build', work, '-o', '-', '--name', 'KB', '--state', state]);
    expect(piped.code).toBe(0);
    // Before: the release recorded "../octx-stdout-…/package.octx", a file removed once delivered.
    expect(ProducerState.load(state).releases['1.0.0']!.output).toBeUndefined();
    expect((await runCli(['build', work, '-o', join(dir, 'kb-1.octx'), '--name', 'KB', '--state', state])).code).toBe(0);
    expect(ProducerState.load(state).releases['1.0.0']!.output).toBe('kb-1.octx');
    // An identical rebuild to stdout keeps the file the release was written to, so the next build still compares with it.
    expect((await runCli(['build', work, '-o', '-', '--name', 'KB', '--state', state])).code).toBe(0);
    expect(ProducerState.load(state).releases['1.0.0']!.output).toBe('kb-1.octx');
    const chapter = join(work, 'knowledge/chapters/chibi-zhi-zhan.md');
    writeFileSync(chapter, `${readFileSync(chapter, 'utf8')}\nOne more line.\n`);
    const next = await runCli(['build', work, '-o', join(dir, 'kb-2.octx'), '--name', 'KB', '--state', state]);
    expect(next.stderr).toContain('changes since 1.0.0: documents +0 -0 ~1 →0\n');
  }, 90_000);

  it("build --state -o <the last release's file> --overwrite still compares with that release", async () => {
    const dir = tempDir();
    const work = join(dir, 'kb');
    cpSync(join(ROOT, 'fixtures/kb-three-kingdoms'), work, { recursive: true });
    const state = join(dir, 'state.json');
    const out = join(dir, 'kb.octx');
    expect((await runCli(['build', work, '-o', out, '--name', 'KB', '--state', state])).code).toBe(0);
    const chapter = join(work, 'knowledge/chapters/chibi-zhi-zhan.md');
    writeFileSync(chapter, `${readFileSync(chapter, 'utf8')}\nOne more line.\n`);
    const second = await runCli(['build', work, '-o', out, '--overwrite', '--name', 'KB', '--state', state]);
    expect(second.code).toBe(0);
    // Before: no line at all (the file was going to be overwritten, so it was not compared with).
    expect(second.stderr).toContain('changes since 1.0.0: documents +0 -0 ~1 →0\n');
  }, 60_000);

  it('build --previous names the package to compare with', async () => {
    const dir = tempDir();
    const old = await release100(dir);
    const r = await runCli(['build', join(ROOT, 'fixtures/kb-three-kingdoms'), '-o', join(dir, 'kb.octx'), '--name', 'KB', '--asset-id', ASSET, '--previous', old]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^changes since 1\.0\.0: documents \+9 -3 ~0 →0; chunks \+27 -3 ~0;/m);
  }, 60_000);

  it('derive: what the derived asset changed relative to its source', async () => {
    const dir = tempDir();
    const source = join(dir, 'tk.octx');
    expect((await runCli(['build', join(ROOT, 'fixtures/kb-three-kingdoms'), '-o', source, '--name', 'TK', '--asset-id', id(0xd1)])).code).toBe(0);
    const r = await runCli(['derive', source, join(ROOT, 'fixtures/reading-notes'), '-o', join(dir, 'notes.octx'), '--name', 'Notes', '--asset-id', id(0xd0)]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('changes since its source 1.0.0: documents +1 -0 ~0 →0; chunks +1 -0 ~0; chunk-events +1 -0 ~0\n');
    // --json: the same counts in report.changes, nothing on stderr about them
    const j = await runCli(['derive', source, join(ROOT, 'fixtures/reading-notes'), '-o', join(dir, 'notes2.octx'), '--name', 'Notes', '--asset-id', id(0xd0), '--json']);
    expect(j.stderr).not.toContain('changes since');
    expect(JSON.parse(j.stdout)).toMatchObject({ report: { changes: { relation: 'derived', documents: { added: 1 } } } });
  }, 60_000);
});
