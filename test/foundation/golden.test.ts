import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareUtf8, computePackageDigest, jcsBytes, PackageBuilder } from '../../src/index.js';
import { entryText, inspectZip } from '../helpers/zip-inspect.js';
import { GOLDEN, tempDir } from '../helpers/temp.js';

const G0 = {
  format: 'octx',
  format_version: '0.1',
  asset: { id: '019c1234-5678-7abc-8def-0123456789ab', name: 'é' },
  release: { version: '1.0.0', created_at: '2026-07-12T10:00:00Z', package_digest: `sha256:${'0'.repeat(64)}` },
  files: [{ path: 'knowledge/é.md', sha256: 'a'.repeat(64) }],
  'x-number': 1e-7,
};

const GOLDEN_DOC = '---\ntype: Reference\ntitle: Guide\noctx:\n  document_id: 019c1234-5678-7abc-8def-0123456789ab\n---\n\n# Guide\n\nPortable context.\n';
const ASSET_ID = '019c0000-0000-7000-8000-000000000001';

function goldenBuilder(): PackageBuilder {
  return new PackageBuilder({ asset: { id: ASSET_ID, name: 'Guide' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } }).addDocument({
    path: 'guide.md',
    markdown: GOLDEN_DOC,
  });
}

describe('golden digests (spec §17)', () => {
  it('G0: JCS canonical bytes and digest of the upstream manifest', () => {
    const copy = structuredClone(G0) as Record<string, any>;
    delete copy.release.package_digest;
    expect(jcsBytes(copy).toString('utf8')).toBe(
      '{"asset":{"id":"019c1234-5678-7abc-8def-0123456789ab","name":"é"},"files":[{"path":"knowledge/é.md","sha256":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}],"format":"octx","format_version":"0.1","release":{"created_at":"2026-07-12T10:00:00Z","version":"1.0.0"},"x-number":1e-7}',
    );
    expect(computePackageDigest(G0)).toBe('sha256:5d12e761e3aab0cb2fd68863a6d3fee6866b722004b48a8b1018eec80d6656a5');
  });

  it('the digest ignores the value of release.package_digest but not other fields', () => {
    const other = structuredClone(G0);
    other.release.package_digest = `sha256:${'f'.repeat(64)}`;
    expect(computePackageDigest(other)).toBe(computePackageDigest(G0));
    const changed = structuredClone(G0);
    changed['x-number'] = 2e-7;
    expect(computePackageDigest(changed)).not.toBe(computePackageDigest(G0));
  });

  it('A and B: the golden manifests hash to their stated digests', () => {
    for (const [dir, digest] of [
      ['A_documents_only', 'sha256:d3ce8f75d7b82de9e57a4d771ddb7c134f35c9c1a6b8b88635427252145ab2b9'],
      ['B_sag_structured', 'sha256:0ec131b2ee7a1c15625f9f98a1dc15643ef8368bb08699fcbf4ae920a3365930'],
    ] as const) {
      const manifest = JSON.parse(readFileSync(join(GOLDEN, dir, 'manifest.json'), 'utf8'));
      expect(manifest.release.package_digest).toBe(digest);
      expect(computePackageDigest(manifest)).toBe(digest);
    }
  });

  it('E: files are sorted by UTF-8 bytes, and a UTF-16 sort gives the known wrong digest', () => {
    const manifest = JSON.parse(readFileSync(join(GOLDEN, 'E_unicode_sort_manifest.json'), 'utf8'));
    expect(computePackageDigest(manifest)).toBe('sha256:7b0c809d8f022adc80f5edb9307c7c508ce36d9104fc0c55d9e42808b65d2a82');
    // What a naive implementation does: JavaScript's default (UTF-16) sort before JCS.
    const wrong = structuredClone(manifest);
    delete wrong.release.package_digest;
    wrong.files.sort((a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const wrongDigest = `sha256:${createHash('sha256').update(jcsBytes(wrong)).digest('hex')}`;
    expect(wrongDigest).toBe('sha256:10e860dd7c4d83d5b989a754de10df906f2f3b785dd25ee569b0768d017bb262');
    expect(wrongDigest).not.toBe(computePackageDigest(manifest));
    expect(compareUtf8('knowledge/Ａ.md', 'knowledge/😀.md')).toBeLessThan(0);
    expect('knowledge/Ａ.md' < 'knowledge/😀.md').toBe(false);
  });
});

describe('the builder reproduces the golden packages', () => {
  it('A: same digest and byte-identical manifest.json and document', async () => {
    const out = join(tempDir(), 'a.octx');
    const result = await goldenBuilder().export({ output: out });
    expect(result.packageDigest).toBe('sha256:d3ce8f75d7b82de9e57a4d771ddb7c134f35c9c1a6b8b88635427252145ab2b9');
    const entries = inspectZip(out);
    expect(entries.map((e) => e.name)).toEqual(['manifest.json', 'knowledge/guide.md']);
    expect(entryText(entries, 'manifest.json')).toBe(readFileSync(join(GOLDEN, 'A_documents_only/manifest.json'), 'utf8'));
    expect(entries[1]!.data.equals(readFileSync(join(GOLDEN, 'A_documents_only/knowledge/guide.md')))).toBe(true);
    expect(result.report.structure.status).toBe('none');
    expect(result.manifest.capabilities).toBeUndefined();
  });

  it('B: same digest and byte-identical JSONL files', async () => {
    const out = join(tempDir(), 'b.octx');
    const b = goldenBuilder();
    const doc = b.documentId('guide.md');
    expect(doc).toBe('019c1234-5678-7abc-8def-0123456789ab');
    const result = await b
      .addChunk({ id: '019c2222-2222-7222-8222-222222222222', document_id: doc, ordinal: 0, text: 'Portable context.' })
      .addEvent({ id: '019c4444-4444-7444-8444-444444444444', title: 'Created', content: 'OCTX was created.' })
      .addEntity({ id: '019c5555-5555-7555-8555-555555555555', name: 'OCTX', type: 'format' })
      .linkChunkEvent({ chunk_id: '019c2222-2222-7222-8222-222222222222', event_id: '019c4444-4444-7444-8444-444444444444' })
      .linkEventEntity({
        event_id: '019c4444-4444-7444-8444-444444444444',
        entity_id: '019c5555-5555-7555-8555-555555555555',
        weight: 1.0,
        description: 'The subject of the event',
      })
      .export({ output: out });
    expect(result.packageDigest).toBe('sha256:0ec131b2ee7a1c15625f9f98a1dc15643ef8368bb08699fcbf4ae920a3365930');
    expect(result.report.structure.status).toBe('written');
    const entries = inspectZip(out);
    expect(entryText(entries, 'manifest.json')).toBe(readFileSync(join(GOLDEN, 'B_sag_structured/manifest.json'), 'utf8'));
    for (const p of ['data/chunks.jsonl', 'data/events.jsonl', 'data/entities.jsonl', 'relations/chunk-events.jsonl', 'relations/event-entities.jsonl']) {
      expect(entryText(entries, p)).toBe(readFileSync(join(GOLDEN, 'B_sag_structured', p), 'utf8'));
    }
  });
});
