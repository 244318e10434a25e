import { cpSync, existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPackage, validatePackage } from 'octx-export';
import { ROOT, tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from './run-cli.js';

const FIXTURE = join(ROOT, 'fixtures/kb-three-kingdoms');
/** The event/entity pair of the fixture README: removing their one link orphans both. */
const LONE_EVENT = '019f2206-ec0f-7c3d-81c0-e12f5136b1c2';
const LONE_ENTITY = '019f21f5-cae8-7738-8267-5cf047bd016c';

function copyFixture(): string {
  const dir = join(tempDir('octx-cli-build-'), 'kb');
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

function chunkIds(dir: string): string[] {
  return readFileSync(join(dir, 'data/chunks.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { id: string }).id);
}

describe('octx-export build (real CLI)', () => {
  it('builds the three-kingdoms working folder into a valid sag-structured package', async () => {
    const out = join(tempDir(), 'tk.octx');
    const r = await runCli(['build', FIXTURE, '-o', out, '--name', 'Three Kingdoms', '--asset-id', '019c2222-2222-7222-8222-222222222222']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(''); // not a terminal: no progress line, and no warnings (the asset id is given)
    expect(r.stdout).toContain(`wrote ${out}`);
    expect(r.stdout).toMatch(/capabilities {2}sag-structured\/0\.1\n/);
    expect(r.stdout).toContain('structure     written: 27 chunks, 19 events, 22 entities, 44 chunk-event and 72 event-entity links');
    expect(r.stdout).toContain('not read      README.md');
    const report = await validatePackage(out);
    expect(report.valid).toBe(true);
    expect(report.fullyValidated).toBe(true);
    expect(Object.keys(report.capabilities)).toEqual(['sag-structured']);
  });

  it('--json: vectors given as JSONL, --state keeps the asset and bumps the version on a rebuild', async () => {
    const dir = copyFixture();
    const ids = chunkIds(dir);
    mkdirSync(join(dir, 'vectors'));
    writeFileSync(join(dir, 'vectors/config.json'), JSON.stringify({ model: 'test/fixed-4', revision: '1', dimensions: 4, normalized: true }));
    writeFileSync(join(dir, 'vectors/chunks.jsonl'), ids.map((id, i) => JSON.stringify({ record_id: id, vector: [Math.cos(i), Math.sin(i), 0, 0] })).join('\n') + '\n');
    const tmp = tempDir();
    const state = join(tmp, 'state.json');
    const first = await runCli([
      'build',
      dir,
      '-o',
      join(tmp, 'v1.octx'),
      '--name',
      'Three Kingdoms',
      '--version',
      '2.0.0',
      '--created-at',
      '2026-07-14T09:00:00Z',
      '--state',
      state,
      '--json',
    ]);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    const doc = jsonOf(first);
    expect(doc).toMatchObject({ ok: true, command: 'build', version: '2.0.0', capabilities: { 'sag-structured': { version: '0.1' }, vectors: { version: '0.1' } } });
    const report = doc.report as { structure: { status: string }; vectors: { targets: { chunks: { status: string; rows: number } } } };
    expect(report.structure.status).toBe('written');
    expect(report.vectors.targets.chunks).toEqual({ status: 'written', rows: 27 });
    expect((doc.manifest as { release: { created_at: string } }).release.created_at).toBe('2026-07-14T09:00:00Z');
    expect((doc.loaded as { vectors: { chunks: number } }).vectors.chunks).toBe(27);
    const v1 = await validatePackage(join(tmp, 'v1.octx'));
    expect(v1.valid && v1.fullyValidated).toBe(true);
    expect(Object.keys(v1.capabilities).sort()).toEqual(['sag-structured', 'vectors']);

    // Change one document and rebuild with the same state and no --version: next patch, same asset.
    const guide = join(dir, 'knowledge/guides/timeline.md');
    writeFileSync(guide, `${readFileSync(guide, 'utf8')}\nAn added closing line.\n`);
    const second = await runCli(['build', dir, '-o', join(tmp, 'v2.octx'), '--name', 'Three Kingdoms', '--state', state, '--json']);
    expect(second.code).toBe(0);
    const doc2 = jsonOf(second);
    expect(doc2.version).toBe('2.0.1');
    expect(doc2.assetId).toBe(doc.assetId);
    const pkg = await openPackage(join(tmp, 'v2.octx'));
    try {
      const seen: string[] = [];
      for await (const { record } of pkg.chunks()) seen.push(record.id);
      expect(seen.sort()).toEqual([...ids].sort());
    } finally {
      await pkg.close();
    }
  });

  it('an incomplete structure is omitted with warnings, or refused with --require-structure (exit 1)', async () => {
    const dir = copyFixture();
    const file = join(dir, 'relations/event-entities.jsonl');
    const kept = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => !(l.includes(LONE_EVENT) && l.includes(LONE_ENTITY)));
    writeFileSync(file, kept.join('\n'));
    const tmp = tempDir();
    const [auto, required] = await Promise.all([
      runCli(['build', dir, '-o', join(tmp, 'auto.octx'), '--name', 'TK']),
      runCli(['build', dir, '-o', join(tmp, 'required.octx'), '--name', 'TK', '--require-structure']),
    ]);
    expect(auto.code).toBe(0);
    expect(auto.stdout).toContain('capabilities  none — documents only');
    expect(auto.stdout).toMatch(/structure {5}omitted: coverage is incomplete/);
    expect(auto.stderr).toMatch(/^warning\[OCTX_STRUCTURE_INCOMPLETE\]: /m);
    const report = await validatePackage(join(tmp, 'auto.octx'));
    expect(report.valid).toBe(true);
    expect(report.capabilities).toEqual({});

    expect(required.code).toBe(1);
    expect(required.stdout).toBe('');
    expect(required.stderr).toContain(LONE_EVENT);
    expect(required.stderr).toContain(LONE_ENTITY);
    expect(required.stderr).toMatch(
      /^error\[OCTX_SAG_EVENT_WITHOUT_ENTITY\]: event is in no event-entity link\n {2}--> data\/events\.jsonl\n {2}record 019f2206-ec0f-7c3d-81c0-e12f5136b1c2\n/m,
    );
    expect(required.stderr.trimEnd().split('\n').at(-1)).toMatch(/^hint: every document needs a chunk/);
    expect(existsSync(join(tmp, 'required.octx'))).toBe(false);
  });

  it('--documents-only writes the knowledge layer only', async () => {
    const out = join(tempDir(), 'docs.octx');
    const r = await runCli(['build', FIXTURE, '-o', out, '--name', 'TK', '--documents-only', '--json']);
    expect(r.code).toBe(0);
    const doc = jsonOf(r);
    expect(doc.capabilities).toEqual({});
    expect((doc.report as { structure: { status: string } }).structure.status).toBe('not-requested');
    const report = await validatePackage(out);
    expect(report.valid).toBe(true);
    const files = (report.manifest as { files: { path: string }[] }).files.map((f) => f.path);
    expect(files.every((p) => p.startsWith('knowledge/'))).toBe(true);
    expect(files).toHaveLength(9);
  });

  it('user errors name the file and line, give one hint and exit 1 (input) or 2 (output exists)', async () => {
    const dir = copyFixture();
    const chunks = join(dir, 'data/chunks.jsonl');
    const lines = readFileSync(chunks, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('"ordinal":0', '"ordinal":-1').replace(/"ordinal":\d+/, '"ordinal":-1');
    writeFileSync(chunks, lines.join('\n'));
    const tmp = tempDir();
    const existing = join(tmp, 'exists.octx');
    writeFileSync(existing, 'not a package');
    const [bad, exists] = await Promise.all([runCli(['build', dir, '-o', join(tmp, 'bad.octx'), '--name', 'TK']), runCli(['build', FIXTURE, '-o', existing, '--name', 'TK'])]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error\[OCTX_RECORD_INVALID\]: .*\n {2}--> data\/chunks\.jsonl:3\n {2}record 019[0-9a-f-]+\n {2}field ordinal\n/);
    expect(bad.stderr).toMatch(/\nhint: fix the field named above/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    expect(exists.code).toBe(2);
    expect(exists.stderr).toMatch(/^error\[OCTX_OUTPUT_EXISTS\]: .* already exists; use --overwrite to replace it\n/);
    expect(exists.stderr).toContain('hint: pass --overwrite to replace the file, or choose another -o path');
    expect(readFileSync(existing, 'utf8')).toBe('not a package');
  });
});
