/** Packages that cannot be compared by id: typed errors naming the file, line and field. */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffPackages, type OctxError } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';
import { id } from './fixtures.js';

/** A package folder written by hand (openPackage reads it; it need not validate). */
function folderPackage(root: string, files: Record<string, string>): string {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  const manifest = {
    format: 'octx',
    format_version: '0.1',
    asset: { id: id(0xe0), name: 'Hand' },
    release: { version: '1.0.0', created_at: '2026-07-12T10:00:00Z', package_digest: `sha256:${'0'.repeat(64)}` },
    capabilities: { 'sag-structured': { version: '0.1' } },
    files: Object.entries(files).map(([path, text]) => ({ path, sha256: createHash('sha256').update(text).digest('hex') })),
  };
  writeFileSync(join(root, 'manifest.json'), JSON.stringify(manifest));
  return root;
}

const doc = `---\ntype: Note\ntitle: A\noctx:\n  document_id: ${id(1)}\n---\n# A\n`;
const chunk = (n: number, text = 'x') => JSON.stringify({ id: id(n), document_id: id(1), ordinal: n, text });

describe('diffPackages on packages that break identity', () => {
  it('a record without a string id is OCTX_SCHEMA_VALIDATION with the file, line and field', async () => {
    const dir = tempDir();
    const good = folderPackage(join(dir, 'good'), { 'knowledge/a.md': doc, 'data/chunks.jsonl': `${chunk(0x10)}\n` });
    const bad = folderPackage(join(dir, 'bad'), { 'knowledge/a.md': doc, 'data/chunks.jsonl': `${chunk(0x10)}\n{"document_id":"${id(1)}","ordinal":1,"text":"y"}\n` });
    const e = (await diffPackages(good, bad).catch((x: unknown) => x)) as OctxError;
    expect(e.code).toBe('OCTX_SCHEMA_VALIDATION');
    expect(e.issues[0]).toMatchObject({ path: 'data/chunks.jsonl', line: 2, field: 'id' });
  });

  it('an id found twice in one package is OCTX_ID_DUPLICATE naming the record', async () => {
    const dir = tempDir();
    const twice = folderPackage(join(dir, 'twice'), { 'knowledge/a.md': doc, 'data/chunks.jsonl': `${chunk(0x10)}\n${chunk(0x11)}\n${chunk(0x10, 'again')}\n` });
    const good = folderPackage(join(dir, 'good'), { 'knowledge/a.md': doc, 'data/chunks.jsonl': `${chunk(0x10)}\n` });
    for (const [a, b] of [
      [twice, good],
      [good, twice],
    ] as const) {
      const e = (await diffPackages(a, b).catch((x: unknown) => x)) as OctxError;
      expect(e.code).toBe('OCTX_ID_DUPLICATE');
      expect(e.issues[0]).toMatchObject({ path: 'data/chunks.jsonl', line: 3, recordId: id(0x10) });
    }
  });

  it('ids that are not UUIDv7 are still compared, and named as written', async () => {
    const dir = tempDir();
    const a = folderPackage(join(dir, 'a'), { 'knowledge/a.md': doc, 'data/chunks.jsonl': '{"id":"c-1","text":"x"}\n{"id":"c-2","text":"y"}\n' });
    const b = folderPackage(join(dir, 'b'), { 'knowledge/a.md': doc, 'data/chunks.jsonl': '{"id":"c-1","text":"x!"}\n{"id":"c-3","text":"z"}\n' });
    const d = await diffPackages(a, b);
    expect(d.records.chunks).toEqual({ added: 1, removed: 1, changed: 1, unchanged: 0 });
    expect(d.samples.chunks).toEqual({ added: ['c-3'], removed: ['c-2'], changed: ['c-1'] });
    // a folder's size is the sum of its files
    expect(d.old.size).toBeGreaterThan(0);
  });

  it('a tampered entry fails the read with OCTX_FILE_DIGEST_MISMATCH', async () => {
    const dir = tempDir();
    const a = folderPackage(join(dir, 'a'), { 'knowledge/a.md': doc, 'data/chunks.jsonl': `${chunk(0x10)}\n` });
    writeFileSync(join(a, 'data/chunks.jsonl'), `${chunk(0x10, 'tampered')}\n`);
    const e = (await diffPackages(a, a).catch((x: unknown) => x)) as OctxError;
    expect(e.code).toBe('OCTX_FILE_DIGEST_MISMATCH');
  });
});
