import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computePackageDigest, isOctxError, type OctxError, PackageBuilder, repackPackage, validatePackage } from '../../src/index.js';
import { entryText, inspectZip } from '../helpers/zip-inspect.js';
import { tempDir } from '../helpers/temp.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

async function sourcePackage(dir: string): Promise<string> {
  const out = join(dir, 'source.octx');
  const b = new PackageBuilder({ asset: { id: id(1), name: 'Source' }, release: { version: '2.1.0', createdAt: '2026-07-12T10:00:00Z' } })
    .addDocument({ path: 'a.md', markdown: `---\ntype: Note\noctx:\n  document_id: ${id(2)}\n---\n# A\n\nAlpha beta.\n` })
    .addChunk({ id: id(3), document_id: id(2), ordinal: 0, text: 'Alpha beta.' })
    .addEvent({ id: id(4), title: 'Alpha', content: 'Alpha met beta.' })
    .addEntity({ id: id(5), name: 'Beta', type: 'thing' })
    .linkChunkEvent({ chunk_id: id(3), event_id: id(4) })
    .linkEventEntity({ event_id: id(4), entity_id: id(5), weight: 0.5 })
    .addExtensionFile('extensions/com.example.tool/0.1/notes.txt', 'kept byte for byte\n')
    .setVectorConfig({ model: 'example/model', dimensions: 3, normalized: false });
  b.addVector('chunks', id(3), [0.1, 0.2, 0.3]).addVector('events', id(4), [1, 2, 3]);
  await b.export({ output: out });
  return out;
}

/** A package in the directory form, written by hand: unknown manifest fields and an extension. */
function handWrittenPackage(dir: string): { root: string; manifestText: string; digest: string } {
  const root = join(dir, 'pkg');
  const files: Record<string, string> = {
    'knowledge/guide.md': `---\ntype: Reference\ntitle: Guide\noctx:\n  document_id: ${id(0x10)}\n---\n\n# Guide\n\nPortable context.\n`,
    'extensions/com.example.signing/1.0/attestation.json': '{"note": "opaque to other tools",  "spacing": "kept"}\n',
  };
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  const manifest = {
    format: 'octx',
    format_version: '0.1',
    asset: { id: id(0x11), name: 'Hand', 'x-owner': 'team' },
    release: { version: '1.0.0', created_at: '2026-07-12T10:00:00.123456Z', package_digest: '' },
    files: Object.entries(files).map(([path, text]) => ({ path, sha256: createHash('sha256').update(text).digest('hex') })),
    'x-producer': { name: 'hand', n: 1e-7 },
  };
  const digest = computePackageDigest(manifest);
  manifest.release.package_digest = digest;
  // Unusual but valid formatting that a lossless repack must keep.
  const manifestText = `${JSON.stringify(manifest, null, 4)}\n`;
  writeFileSync(join(root, 'manifest.json'), manifestText);
  writeFileSync(join(root, 'UNLISTED.txt'), 'dropped on repack');
  return { root, manifestText, digest };
}

describe('PackageBuilder.derive', () => {
  it('round trip: build, validate, derive, add a document, export, validate', async () => {
    const dir = tempDir();
    const src = await sourcePackage(dir);
    const source = await validatePackage(src);
    expect(source.valid).toBe(true);
    const srcManifest = source.manifest as { release: { package_digest: string } };

    const derived = await PackageBuilder.derive(src, { asset: { name: 'Enhanced' }, release: { version: '1.0.0', createdAt: '2026-08-01T00:00:00Z' } });
    expect(derived.derivation).toMatchObject({ mode: 'full', carried: { documents: 1, extensions: 1, structure: true, vectors: true } });
    expect(derived.assetId).not.toBe(id(1));
    expect(derived.documentId('a.md')).toBe(id(2)); // ids kept
    derived.addDocument({ path: 'b.md', markdown: '# B\n\nGamma.\n' });
    const b = derived.documentId('b.md');
    derived
      .addChunk({ id: id(6), document_id: b, ordinal: 0, text: 'Gamma.' })
      .addEvent({ id: id(7), title: 'Gamma', content: 'Gamma appeared.' })
      .linkChunkEvent({ chunk_id: id(6), event_id: id(7) })
      .linkEventEntity({ event_id: id(7), entity_id: id(5) })
      .addVector('events', id(7), [3, 2, 1]);
    const out = join(dir, 'derived.octx');
    const result = await derived.export({ output: out });
    expect(result.manifest.asset.derived_from).toEqual({ asset_id: id(1), version: '2.1.0', package_digest: srcManifest.release.package_digest });
    expect(result.manifest.capabilities).toEqual({ 'sag-structured': { version: '0.1' }, vectors: { version: '0.1' } });
    // chunks vectors now miss the new chunk: that target is omitted, events are complete
    expect(result.report.vectors.targets.chunks).toMatchObject({ status: 'omitted', reason: 'incomplete', missing: 1, sample: [id(6)] });
    expect(result.report.vectors.targets.events).toEqual({ status: 'written', rows: 2 });
    const report = await validatePackage(out);
    expect(report.issues).toEqual([]);
    expect(report.valid).toBe(true);
    expect(entryText(inspectZip(out), 'extensions/com.example.tool/0.1/notes.txt')).toBe('kept byte for byte\n');
  });

  it('does not carry unknown manifest fields into the derived asset', async () => {
    const dir = tempDir();
    const { root, digest } = handWrittenPackage(dir);
    const derived = await PackageBuilder.derive(root, { asset: { name: 'Derived' } });
    const result = await derived.export({ output: join(dir, 'd.octx') });
    expect(result.manifest.asset).toEqual({ id: result.assetId, name: 'Derived', derived_from: { asset_id: id(0x11), version: '1.0.0', package_digest: digest } });
    expect(JSON.stringify(result.manifest)).not.toContain('x-producer');
    expect(JSON.stringify(result.manifest)).not.toContain('x-owner');
  });

  it('refuses an invalid source unless documentsOnly recovery is asked for, which mints new document ids', async () => {
    const dir = tempDir();
    const { root } = handWrittenPackage(dir);
    // Break the format: a second concept whose frontmatter lacks a type, listed with its real hash.
    const bad = `---\noctx:\n  document_id: ${id(0x12)}\n---\n# Bad\n`;
    mkdirSync(join(root, 'knowledge'), { recursive: true });
    writeFileSync(join(root, 'knowledge/bad.md'), bad);
    const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
    manifest.files.push({ path: 'knowledge/bad.md', sha256: createHash('sha256').update(bad).digest('hex') });
    manifest.release.package_digest = computePackageDigest(manifest);
    writeFileSync(join(root, 'manifest.json'), JSON.stringify(manifest));

    try {
      await PackageBuilder.derive(root, { asset: { name: 'Nope' } });
      throw new Error('accepted');
    } catch (e) {
      expect(isOctxError(e)).toBe(true);
      expect((e as OctxError).code).toBe('OCTX_DERIVATION_REQUIRED');
      expect((e as OctxError).issues.map((i) => i.code)).toContain('OCTX_DOCUMENT_TYPE_REQUIRED');
    }
    const recovered = await PackageBuilder.derive(root, { asset: { name: 'Recovered' }, documentsOnly: true });
    expect(recovered.derivation?.mode).toBe('recovery');
    expect(recovered.derivation?.skipped).toEqual([]);
    expect(recovered.derivation?.carried.documents).toBe(2);
    expect(recovered.documentId('guide.md')).not.toBe(id(0x10));
    expect(recovered.documentId('bad.md')).not.toBe(id(0x12));
    const result = await recovered.export({ output: join(dir, 'r.octx') });
    expect((await validatePackage(result.output)).valid).toBe(true);
  });
});

describe('PackageBuilder.derive from a source with an invalid layer', () => {
  it('refuses unless the invalid layer may be dropped, and never drops it silently', async () => {
    const dir = tempDir();
    const { root } = handWrittenPackage(dir);
    // Declare sag-structured without any of its files: the format stays valid, the layer is invalid.
    const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
    manifest.capabilities = { 'sag-structured': { version: '0.1' } };
    manifest.release.package_digest = computePackageDigest(manifest);
    writeFileSync(join(root, 'manifest.json'), JSON.stringify(manifest));
    const report = await validatePackage(root);
    expect(report.format.valid).toBe(true);
    expect(report.valid).toBe(false);
    try {
      await PackageBuilder.derive(root, { asset: { name: 'No' } });
      throw new Error('accepted');
    } catch (e) {
      expect((e as OctxError).code).toBe('OCTX_DERIVATION_REQUIRED');
    }
    const b = await PackageBuilder.derive(root, { asset: { name: 'Yes' }, dropInvalidLayers: true });
    expect(b.derivation?.skipped.map((x) => x.path)).toEqual(['data/, relations/']);
    expect(b.documentId('guide.md')).toBe(id(0x10));
    await b.dispose();
  });
});

describe('repackPackage', () => {
  it('keeps unknown manifest fields and extension files byte for byte, and the digest', async () => {
    const dir = tempDir();
    const { root, manifestText, digest } = handWrittenPackage(dir);
    const out = join(dir, 'repacked.octx');
    const result = await repackPackage(root, out);
    expect(result.packageDigest).toBe(digest);
    expect(result.dropped).toEqual(['UNLISTED.txt']);
    const entries = inspectZip(out);
    expect(entries.map((e) => e.name)).toEqual(['manifest.json', 'extensions/com.example.signing/1.0/attestation.json', 'knowledge/guide.md']);
    expect(entryText(entries, 'manifest.json')).toBe(manifestText);
    expect(entryText(entries, 'extensions/com.example.signing/1.0/attestation.json')).toBe(readFileSync(join(root, 'extensions/com.example.signing/1.0/attestation.json'), 'utf8'));
    const report = await validatePackage(out);
    expect(report.valid).toBe(true);
    expect(report.packageDigest).toBe(digest);
    // and again from the archive form: identical bytes
    const again = join(dir, 'again.octx');
    await repackPackage(out, again);
    expect(readFileSync(again).equals(readFileSync(out))).toBe(true);
  });

  it('refuses to repack an invalid package and never overwrites without consent', async () => {
    const dir = tempDir();
    const { root } = handWrittenPackage(dir);
    writeFileSync(join(root, 'knowledge/guide.md'), 'tampered');
    try {
      await repackPackage(root, join(dir, 'x.octx'));
      throw new Error('accepted');
    } catch (e) {
      expect((e as OctxError).code).toBe('OCTX_VALIDATION_ERROR');
      expect((e as OctxError).issues.map((i) => i.code)).toContain('OCTX_FILE_DIGEST_MISMATCH');
    }
    const ok = handWrittenPackage(tempDir());
    writeFileSync(join(dir, 'exists.octx'), 'x');
    try {
      await repackPackage(ok.root, join(dir, 'exists.octx'));
      throw new Error('accepted');
    } catch (e) {
      expect((e as OctxError).code).toBe('OCTX_OUTPUT_EXISTS');
    }
  });
});
