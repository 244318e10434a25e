import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashingTextEmbedder, loadWorkdir, PackageBuilder, validatePackage } from 'octx-export';
import { inspectZip } from '../helpers/zip-inspect.js';
import { ROOT } from '../helpers/temp.js';
import { jsonOf, runCli } from './run-cli.js';

let pkg: string;
let broken: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'octx-cli-validate-')); // shared by the tests: removed in afterAll
  pkg = join(dir, 'tk.octx');
  const builder = new PackageBuilder({ asset: { name: 'Three Kingdoms' }, release: { version: '1.2.0', createdAt: '2026-07-14T09:00:00Z' } });
  await loadWorkdir(builder, join(ROOT, 'fixtures/kb-three-kingdoms'));
  await builder.embed('chunks', new HashingTextEmbedder({ dimensions: 32 }));
  await builder.export({ output: pkg, structure: 'require' });
  // An unpacked copy whose document no longer matches its files[] digest.
  broken = join(dir, 'broken');
  for (const e of inspectZip(pkg)) {
    const target = join(broken, e.name);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, e.name === 'knowledge/chapters/taoyuan-jieyi.md' ? Buffer.concat([e.data, Buffer.from('\nEdited after release.\n')]) : e.data);
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('octx-export validate (real CLI)', () => {
  it('exits 0 for a valid package, 1 for an invalid one (--json: the report as one JSON document), 2 for a missing path', async () => {
    const [ok, bad, missing] = await Promise.all([runCli(['validate', pkg]), runCli(['validate', broken, '--json']), runCli(['validate', join(dir, 'nope.octx')])]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`${pkg}: valid (fully validated)`);
    expect(ok.stdout).toMatch(/sag-structured valid/);
    expect(ok.stdout).toMatch(/vectors +valid/);
    expect(ok.stdout).toContain(`digest        ${(await validatePackage(pkg)).packageDigest}`);
    expect(bad.code).toBe(1);
    const invalid = jsonOf(bad);
    expect(invalid).toMatchObject({ ok: false, command: 'validate', path: broken, valid: false, fullyValidated: false });
    expect((invalid.issues as { code: string; path: string }[]).find((i) => i.code === 'OCTX_FILE_DIGEST_MISMATCH')?.path).toBe('knowledge/chapters/taoyuan-jieyi.md');
    expect(bad.stderr).toBe('');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error\[OCTX_OPEN_ERROR\]: .*\n {2}--> .*nope\.octx\n/);
  });
});

describe('octx-export inspect (real CLI)', () => {
  it('shows asset, release, capabilities, counts per layer and the vector config', async () => {
    const [human, json] = await Promise.all([runCli(['inspect', pkg]), runCli(['inspect', pkg, '--json'])]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('"Three Kingdoms"');
    expect(human.stdout).toContain('release       1.2.0 (2026-07-14T09:00:00Z)');
    expect(human.stdout).toContain('capabilities  sag-structured/0.1, vectors/0.1');
    expect(human.stdout).toContain('relations     44 chunk-event, 72 event-entity');
    expect(human.stdout).toContain('vectors       chunks 27 rows');
    const doc = jsonOf(json);
    expect(doc).toMatchObject({
      ok: true,
      command: 'inspect',
      kind: 'zip',
      release: { version: '1.2.0', createdAt: '2026-07-14T09:00:00Z' },
      capabilities: { 'sag-structured': '0.1', vectors: '0.1' },
      counts: {
        documents: 7,
        reservedDocuments: 2,
        chunks: 27,
        events: 19,
        entities: 22,
        chunkEvents: 44,
        eventEntities: 72,
        vectors: { chunks: 27, events: null, entities: null },
      },
      vectorConfig: { model: 'octx-export/hashing-text-embedder', dimensions: 32, normalized: true },
    });
    expect((doc.release as { packageDigest: string }).packageDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
