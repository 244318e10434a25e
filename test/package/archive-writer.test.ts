import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, validatePackage } from '../../src/index.js';
import { writeArchive } from '../../src/export/archive-writer.js';
import { openPackage } from '../../src/read/open-package.js';
import { inspectZip } from '../helpers/zip-inspect.js';
import { tempDir } from '../helpers/temp.js';

const ASSET = '019c0000-0000-7000-8000-000000000001';
const options = { asset: { id: ASSET, name: 'Handbook' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } };
/** A Concept Document with a fixed id, so that two builders write identical bytes. */
const prose = (n: number, id = 2): string =>
  `---\ntype: Note\ntitle: Prose\noctx:\n  document_id: 019c0000-0000-7000-8000-${String(id).padStart(12, '0')}\n---\n# Prose\n\n${'Liu Bei met 曹操 by the river; the knowledge graph links them. '.repeat(n)}\n`;
/** Bytes deflate cannot shrink. */
const noise = randomBytes(4096);

function handbook(builderOptions: object = {}): PackageBuilder {
  return new PackageBuilder({ ...options, ...builderOptions })
    .addDocument({ path: 'prose.md', markdown: prose(200) })
    .addExtensionFile('extensions/com.example.test/0.1/noise.bin', noise);
}

describe('archive entry policy', () => {
  it('deflates text that shrinks, stores text that would not', async () => {
    const out = join(tempDir(), 'a.octx');
    const result = await handbook().export({ output: out });
    const entries = inspectZip(out);
    expect(entries.map((e) => [e.name, e.method])).toEqual([
      ['manifest.json', 8],
      ['extensions/com.example.test/0.1/noise.bin', 0],
      ['knowledge/prose.md', 8],
    ]);
    expect(result.report.files.map((f) => f.method)).toEqual(['store', 'deflate']);
    expect(entries[1]!.compressedSize).toBe(noise.length);
    expect(entries[1]!.data.equals(noise)).toBe(true);
  });

  it('stores every entry at compression level 0 (builder default or per export)', async () => {
    const dir = tempDir();
    await handbook({ compressionLevel: 0 }).export({ output: join(dir, 'b0.octx') });
    await handbook().export({ output: join(dir, 'e0.octx'), compressionLevel: 0 });
    for (const f of ['b0.octx', 'e0.octx']) {
      expect(inspectZip(join(dir, f)).map((e) => e.method)).toEqual([0, 0, 0]);
      expect((await validatePackage(join(dir, f))).valid).toBe(true);
    }
  });

  it('compresses again when export() asks for another level than the builder collected with', async () => {
    const dir = tempDir();
    await handbook({ compressionLevel: 1 }).export({ output: join(dir, 'l1.octx') });
    await handbook({ compressionLevel: 1 }).export({ output: join(dir, 'l9.octx'), compressionLevel: 9 });
    await handbook().export({ output: join(dir, 'b9.octx'), compressionLevel: 9 });
    const size = (f: string): number => inspectZip(join(dir, f))[2]!.compressedSize;
    expect(size('l9.octx')).toBeLessThan(size('l1.octx'));
    // The same level gives the same bytes however the builder was configured.
    expect(size('l9.octx')).toBe(size('b9.octx'));
  });

  it('keeps the package valid with ZIP64 extra fields on every entry (as the reference writes them)', async () => {
    const dir = tempDir();
    const src = join(dir, 'src.octx');
    const result = await handbook().export({ output: src });
    const pkg = await openPackage(src);
    const { PayloadSpill } = await import('../../src/package/payload-spill.js');
    const spill = new PayloadSpill({ rawFile: join(dir, 'raw'), deflatedFile: join(dir, 'deflated') });
    const payloads = [];
    for (const f of pkg.listedFiles()) {
      for await (const chunk of pkg.openFile(f.path)) spill.write(Buffer.from(chunk as Buffer));
      const entry = spill.endEntry();
      payloads.push({ path: f.path, size: entry.size, source: { spilled: entry } });
    }
    const out = join(dir, 'z64.octx');
    await writeArchive(out, pkg.manifestBytes, payloads, { level: 6, forceZip64: true });
    await pkg.close();
    spill.close();
    const report = await validatePackage(out);
    expect(report.issues).toEqual([]);
    expect(report.packageDigest).toBe(result.packageDigest);
  });

  it('writes a copied DEFLATE stream as it is, from its offset in another file, whatever the level', async () => {
    const dir = tempDir();
    const text = Buffer.from(prose(50));
    const stream = deflateRawSync(text, { level: 9 });
    const file = join(dir, 'other.zip');
    writeFileSync(file, Buffer.concat([Buffer.from('padding-before'), stream, Buffer.from('after')]));
    const copied = { file, offset: 'padding-before'.length, compressedSize: stream.length, size: text.length, crc32: crc32(text) };
    for (const level of [6, 0]) {
      const out = join(dir, `copied-${level}.zip`);
      const written = await writeArchive(out, Buffer.from('{}'), [{ path: 'knowledge/prose.md', size: text.length, source: { copied } }], { level });
      expect(written.find((w) => w.name === 'knowledge/prose.md')).toEqual({ name: 'knowledge/prose.md', size: text.length, compressedSize: stream.length, method: 'deflate' });
      const buf = readFileSync(out);
      const e = inspectZip(buf).find((x) => x.name === 'knowledge/prose.md')!;
      const start = e.localHeaderOffset + 30 + buf.readUInt16LE(e.localHeaderOffset + 26) + buf.readUInt16LE(e.localHeaderOffset + 28);
      expect(buf.subarray(start, start + e.compressedSize).equals(stream)).toBe(true);
      expect([e.method, e.crc32, e.size]).toEqual([8, crc32(text), text.length]);
      expect(e.data.equals(text)).toBe(true);
    }
  });
});

describe('builder.drain()', () => {
  it('lets a CPU-bound producer keep background compression going, with identical bytes', async () => {
    const dir = tempDir();
    const drained = new PackageBuilder(options);
    const plain = new PackageBuilder(options);
    for (let i = 0; i < 40; i++) {
      drained.addDocument({ path: `d${i}.md`, markdown: prose(2000 + i, 100 + i) });
      plain.addDocument({ path: `d${i}.md`, markdown: prose(2000 + i, 100 + i) });
      await drained.drain();
    }
    const a = await drained.export({ output: join(dir, 'a.octx') });
    const b = await plain.export({ output: join(dir, 'b.octx') });
    expect(a.packageDigest).toBe(b.packageDigest);
    // Which thread compressed a block, and when, never changes the archive.
    expect(readFileSync(join(dir, 'a.octx')).equals(readFileSync(join(dir, 'b.octx')))).toBe(true);
    expect(a.report.timings.compress).toBeGreaterThanOrEqual(0);
  });
});

describe('reproducible bytes (review)', () => {
  it('a refused export does not change the bytes of the next one (block boundaries follow the bytes, not the snapshots)', async () => {
    // Each export attempt snapshots the JSONL spills, and PayloadSpill.snapshot() cuts a block at
    // that point for good: a retry after a refusal deflates chunks.jsonl as two sync-flushed
    // blocks instead of one. Same manifest and digest, different archive bytes.
    const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
    const doc = id(0xa1);
    const chunks = Array.from({ length: 40 }, (_, i) => ({ id: id(0x1000 + i), document_id: doc, ordinal: i, text: `Sentence ${i} about the river and the knowledge graph.` }));
    const base = (): PackageBuilder => {
      const b = new PackageBuilder(options)
        .addDocument({ path: 'a.md', markdown: `---\noctx:\n  document_id: ${doc}\n---\n# A\n\nFirst.\n` })
        .addEvent({ id: id(0x21), title: 'Parent', content: 'A big thing happened.' })
        .addEntity({ id: id(0x31), name: 'Alice', type: 'person' })
        .linkEventEntity({ event_id: id(0x21), entity_id: id(0x31) });
      for (const c of chunks.slice(0, 20)) b.addChunk(c).linkChunkEvent({ chunk_id: c.id, event_id: id(0x21) });
      return b;
    };
    const dir = tempDir();
    const fresh = base();
    for (const c of chunks.slice(20)) fresh.addChunk(c).linkChunkEvent({ chunk_id: c.id, event_id: id(0x21) });
    const a = await fresh.export({ output: join(dir, 'a.octx') });

    const retried = base().addChunk(chunks[20]!); // a chunk without an event: coverage fails
    await expect(retried.export({ output: join(dir, 'b.octx'), structure: 'require' })).rejects.toMatchObject({ code: 'OCTX_STRUCTURE_INCOMPLETE' });
    retried.linkChunkEvent({ chunk_id: chunks[20]!.id, event_id: id(0x21) });
    for (const c of chunks.slice(21)) retried.addChunk(c).linkChunkEvent({ chunk_id: c.id, event_id: id(0x21) });
    const b = await retried.export({ output: join(dir, 'b.octx') });

    expect(b.packageDigest).toBe(a.packageDigest);
    expect(readFileSync(join(dir, 'b.octx')).equals(readFileSync(join(dir, 'a.octx')))).toBe(true);
  });
});
