import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkdir, PackageBuilder, validatePackage } from 'octx-export';
import { ROOT, tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from './run-cli.js';

const LIU_BEI = '019f21ef-032c-7152-83ab-a6e8fcb60b6a'; // an entity of the source package

function additions(dir: string): void {
  for (const d of ['knowledge/notes', 'data', 'relations']) mkdirSync(join(dir, d), { recursive: true });
  const doc = '019f3000-0000-7000-8000-000000000001';
  const chunk = '019f3000-0000-7000-8000-000000000002';
  const event = '019f3000-0000-7000-8000-000000000003';
  const text = '第一回用一场结拜交代了三位主角的性格：刘备仁厚，关羽重义，张飞刚烈。';
  writeFileSync(join(dir, 'knowledge/notes/reading-notes.md'), `---\ntype: "Note"\noctx:\n  document_id: "${doc}"\n---\n\n# 读书笔记：桃园结义\n\n${text}\n`);
  writeFileSync(join(dir, 'data/chunks.jsonl'), `${JSON.stringify({ id: chunk, document_id: doc, ordinal: 0, text })}\n`);
  writeFileSync(
    join(dir, 'data/events.jsonl'),
    `${JSON.stringify({ id: event, title: '读者总结三兄弟的性格', content: '读者认为第一回通过桃园结拜交代了刘备仁厚、关羽重义、张飞刚烈的性格。' })}\n`,
  );
  writeFileSync(join(dir, 'relations/chunk-events.jsonl'), `${JSON.stringify({ chunk_id: chunk, event_id: event })}\n`);
  writeFileSync(join(dir, 'relations/event-entities.jsonl'), `${JSON.stringify({ event_id: event, entity_id: LIU_BEI, weight: 1 })}\n`);
}

describe('octx-export derive (real CLI)', () => {
  it('writes a Derived Asset: the source plus additions, with asset.derived_from', async () => {
    const tmp = tempDir();
    const source = join(tmp, 'source.octx');
    const b = new PackageBuilder({ asset: { name: 'Three Kingdoms' }, release: { version: '1.2.0', createdAt: '2026-07-14T09:00:00Z' } });
    await loadWorkdir(b, join(ROOT, 'fixtures/kb-three-kingdoms'));
    const src = await b.export({ output: source, structure: 'require' });
    const adds = join(tmp, 'additions');
    additions(adds);
    const out = join(tmp, 'derived.octx');
    const r = await runCli(['derive', source, adds, '-o', out, '--name', 'Three Kingdoms, with reading notes', '--version', '1.0.0', '--require-structure', '--json']);
    expect(r.code).toBe(0);
    const doc = jsonOf(r);
    expect(doc.assetId).not.toBe(src.assetId);
    expect((doc.manifest as { asset: unknown }).asset).toEqual({
      id: doc.assetId,
      name: 'Three Kingdoms, with reading notes',
      derived_from: { asset_id: src.assetId, version: '1.2.0', package_digest: src.packageDigest },
    });
    const report = doc.report as { documents: { concepts: number }; structure: { status: string; counts: { chunks: number; events: number } } };
    expect(report.documents.concepts).toBe(8);
    expect(report.structure).toMatchObject({ status: 'written', counts: { chunks: 28, events: 20 } });
    expect(doc.derivation).toMatchObject({ mode: 'full', carried: { structure: true } });
    const v = await validatePackage(out);
    expect(v.valid && v.fullyValidated).toBe(true);
  });

  it('a missing source is a usage error (exit 2)', async () => {
    const tmp = tempDir();
    const r = await runCli(['derive', join(tmp, 'nope.octx'), tmp, '-o', join(tmp, 'x.octx'), '--name', 'X']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error\[OCTX_OPEN_ERROR\]: source package .* does not exist\n {2}--> .*nope\.octx\n/);
  });
});
