/** Issue 23 (Arrow files written into the archive; small entries verified in runs), from an independent review: beforeWrite now runs after the Arrow bytes; repack with vectors. */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, openPackage, repackPackage, validatePackage } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd0);
const unit = (i: number): number[] => [0, 0, 0, 0].map((_, k) => (k === i % 4 ? 1 : 0));

function graph(state: string | undefined, text: string, version = '1.0.0'): PackageBuilder {
  return new PackageBuilder({ asset: { id: id(1), name: 'V' }, release: { version, createdAt: '2026-07-12T10:00:00Z' }, ...(state ? { state } : {}) })
    .addDocument({ path: 'a.md', markdown: `---\noctx:\n  document_id: ${DOC}\n---\n# A\n\n${text}\n` })
    .addChunk({ id: id(0x11), document_id: DOC, ordinal: 0, text })
    .addEvent({ id: id(0x21), title: 'Counting', content: 'Someone counted.' })
    .addEntity({ id: id(0x31), name: 'Counter', type: 'person' })
    .linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x21) })
    .linkEventEntity({ event_id: id(0x21), entity_id: id(0x31) })
    .setVectorConfig({ model: 'm/m', revision: 'r1', dimensions: 4, normalized: true })
    .addVector('chunks', id(0x11), unit(0));
}

describe('release refusal after the Arrow bytes', () => {
  it('a conflicting release leaves no output, no temp file, the state file untouched, no fd', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    await graph(state, 'One.').export({ output: join(dir, 'v1.octx') });
    const stateBefore = readFileSync(state);
    const listing = readdirSync(dir).sort();
    const fdsBefore = readdirSync('/proc/self/fd').length;
    let err: unknown;
    try {
      await graph(state, 'Changed.').export({ output: join(dir, 'v1b.octx') });
    } catch (e) {
      err = e;
    }
    expect((err as { code?: string }).code).toBe('OCTX_RELEASE_CONFLICT');
    expect(readFileSync(join(dir, 'v1.octx')).length).toBeGreaterThan(0);
    expect(readdirSync(dir).sort()).toEqual(listing);
    expect(readFileSync(state).equals(stateBefore)).toBe(true);
    expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(fdsBefore);
    // and a next version goes through
    await graph(state, 'Changed.', '1.1.0').export({ output: join(dir, 'v11.octx') });
    expect((await validatePackage(join(dir, 'v11.octx'))).issues).toEqual([]);
  });

  it('repackPackage of a package with vectors keeps the digest and is a valid ZIP', async () => {
    const dir = tempDir();
    const src = join(dir, 's.octx');
    const r = await graph(undefined, 'One.').export({ output: src });
    const out = join(dir, 'r.octx');
    const rp = await repackPackage(src, out);
    expect(rp.packageDigest).toBe(r.packageDigest);
    expect(r.manifest.files.map((f) => f.path)).toContain('vectors/chunks.arrow');
    const pkg = await openPackage(out);
    expect((pkg.manifest as { release: { package_digest: string } }).release.package_digest).toBe(r.packageDigest);
    await pkg.close();
    expect((await validatePackage(out)).issues).toEqual([]);
    const python = execFileSync('python3', ['-c', 'import sys,zipfile\nprint(zipfile.ZipFile(sys.argv[1]).testzip())', out]).toString();
    expect(python.trim()).toBe('None');
  });
});
