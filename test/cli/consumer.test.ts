/** --consumer on validate and on the exporting commands (docs/consumers.md). */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HashingTextEmbedder, loadWorkdir, PackageBuilder } from '../../src/index.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from './run-cli.js';

const FIXTURE = join(ROOT, 'fixtures/kb-three-kingdoms');

/** A copy of the fixture whose entities `edit` changes (records in file order). */
function editedFixture(edit: (entities: Record<string, unknown>[]) => void): string {
  const dir = join(tempDir(), 'kb');
  cpSync(FIXTURE, dir, { recursive: true });
  const file = join(dir, 'data/entities.jsonl');
  const entities = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  edit(entities);
  writeFileSync(file, entities.map((e) => `${JSON.stringify(e)}\n`).join(''));
  return dir;
}

describe('validate --consumer sag-1.7', () => {
  it('exits 1 on a package holding a duplicate entity identity, naming both ids', async () => {
    let ids: string[] = [];
    const dir = editedFixture((e) => {
      e[0]!.name = 'Liu Bei';
      e[1]!.type = e[0]!.type;
      e[1]!.name = 'LIU BEI';
      ids = [String(e[0]!.id), String(e[1]!.id)];
    });
    const out = join(tempDir(), 'dup.octx');
    const built = await runCli(['build', dir, '-o', out, '--name', 'TK']);
    expect(built.code).toBe(0);
    const plain = await runCli(['validate', out]);
    expect(plain.code).toBe(0);
    const r = await runCli(['validate', out, '--consumer', 'sag-1.7']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('consumer      sag-1.7: INCOMPATIBLE');
    expect(r.stdout).toContain('OCTX_CONSUMER_INCOMPATIBLE');
    for (const id of ids) expect(r.stdout).toContain(id);
    const json = jsonOf(await runCli(['validate', out, '--consumer', 'sag-1.7', '--json']));
    expect(json).toMatchObject({ ok: false, valid: true, consumer: { name: 'sag-1.7', compatible: false } });
  });

  it('exits 0 on the demo package, with a note that its vectors will be re-embedded', async () => {
    // The package `npm run demo` writes: the fixture with hashing-embedder vectors for every target.
    const b = new PackageBuilder({ asset: { id: '019f2000-0000-7000-8000-0000000d3e00', name: 'Demo' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } });
    await loadWorkdir(b, FIXTURE);
    const embedder = new HashingTextEmbedder({ dimensions: 256 });
    for (const t of ['chunks', 'events', 'entities'] as const) await b.embed(t, embedder, { batchSize: 16 });
    const out = join(tempDir(), 'demo.octx');
    await b.export({ output: out });
    const r = await runCli(['validate', out, '--consumer', 'sag-1.7']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('consumer      sag-1.7: compatible');
    expect(r.stdout).toMatch(/OCTX_CONSUMER_VECTORS_UNUSED.*vectors will be re-embedded/);
  });

  it('an unknown consumer is a usage error (exit 2)', async () => {
    const r = await runCli(['validate', FIXTURE, '--consumer', 'sag-2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--consumer must be one of seed, sag-1.7');
  });
});

describe('build --consumer sag-1.7', () => {
  it('writes structure without vectors and says why', async () => {
    const out = join(tempDir(), 'tk.octx');
    const r = await runCli(['build', FIXTURE, '-o', out, '--name', 'TK', '--consumer', 'sag-1.7', '--json']);
    expect(r.code).toBe(0);
    expect(jsonOf(r)).toMatchObject({ ok: true, capabilities: { 'sag-structured': { version: '0.1' } } });
  });

  it('exits 1 before writing when a record breaks a rule, naming it', async () => {
    let entity = '';
    const dir = editedFixture((e) => {
      e[2]!.type = 'x'.repeat(51);
      entity = String(e[2]!.id);
    });
    const out = join(tempDir(), 'bad.octx');
    const r = await runCli(['build', dir, '-o', out, '--name', 'TK', '--consumer', 'sag-1.7']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('OCTX_CONSUMER_INCOMPATIBLE');
    expect(r.stderr).toContain(entity);
    expect((await runCli(['build', dir, '-o', out, '--name', 'TK'])).code).toBe(0);
  });

  it('every exporting command takes --consumer', async () => {
    for (const command of ['build', 'derive', 'from-rag', 'from-ingest', 'from-sag']) {
      const r = await runCli([command, '--help']);
      expect(r.stdout, command).toContain('--consumer <name>');
    }
  });
});
