import { afterEach, describe, expect, it, vi } from 'vitest';
import { openPackage } from '../../src/read/index.js';
import { VerifyStream } from '../../src/read/source.js';
import { GUIDE_MD, SAG_DECL, arrowFile, entriesOf, genStructure, jsonl, rowsFor, structureFiles, tid, vectorPackage, writeDir, writeZip } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('openPackage', () => {
  it('exposes the manifest, its bytes and a typed view', async () => {
    const entries = entriesOf({
      files: { 'knowledge/guide.md': GUIDE_MD },
      edit: (m) => (m.asset.derived_from = { asset_id: tid(), version: '1.0.0', package_digest: `sha256:${'a'.repeat(64)}` }),
    });
    const pkg = await openPackage(await writeZip(entries));
    try {
      expect(pkg.manifestBytes.toString()).toBe(entries['manifest.json']);
      expect(pkg.manifest).toEqual(JSON.parse(String(entries['manifest.json'])));
      expect(pkg.info).toMatchObject({ assetName: 'Guide', createdAt: '2026-07-12T10:00:00Z', derivedFrom: { version: '1.0.0' }, capabilities: {} });
      expect(pkg.containerFiles()).toEqual(['manifest.json', 'knowledge/guide.md']);
      expect(pkg.hasFile('knowledge/guide.md')).toBe(true);
      expect((await pkg.readFile('knowledge/guide.md')).toString()).toBe(GUIDE_MD);
      expect(pkg.limits.maxEntries).toBe(10_000);
    } finally {
      await pkg.close();
    }
  });

  it('checks listed digests on read, and bounds reads', async () => {
    const entries = entriesOf({ files: { 'knowledge/guide.md': GUIDE_MD } });
    entries['knowledge/guide.md'] = GUIDE_MD.replace('Portable', 'Portably');
    const pkg = await openPackage(await writeDir(entries));
    try {
      await expect(pkg.readFile('knowledge/guide.md')).rejects.toMatchObject({
        code: 'OCTX_FILE_DIGEST_MISMATCH',
        issues: [expect.objectContaining({ path: 'knowledge/guide.md' })],
      });
      await expect(pkg.readFile('knowledge/none.md')).rejects.toMatchObject({ code: 'OCTX_FILE_MISSING' });
      const chunks: Buffer[] = [];
      await expect(
        (async () => {
          for await (const c of pkg.openFile('knowledge/guide.md')) chunks.push(c as Buffer);
        })(),
      ).rejects.toMatchObject({ code: 'OCTX_FILE_DIGEST_MISMATCH' });
      await expect((async () => [...(await pkg.documents().next()).value])()).rejects.toMatchObject({ code: 'OCTX_FILE_DIGEST_MISMATCH' });
    } finally {
      await pkg.close();
    }
    const small = await openPackage(await writeDir(entriesOf({ files: { 'knowledge/guide.md': GUIDE_MD } })), { limits: { maxFileSize: 1000 } });
    expect(small.limits.maxFileSize).toBe(1000);
    await small.close();
  });

  it('yields reserved documents with their kind', async () => {
    const files = { 'knowledge/guide.md': GUIDE_MD, 'knowledge/index.md': '# Index\n\n* [Guide](guide.md) - g\n' };
    const pkg = await openPackage(await writeDir(entriesOf({ files })));
    const docs = [];
    for await (const d of pkg.documents()) docs.push([d.path, d.kind, d.issues.length]);
    await pkg.close();
    expect(docs).toEqual([
      ['knowledge/guide.md', 'concept', 0],
      ['knowledge/index.md', 'reserved', 0],
    ]);
  });

  it('record iterators throw on a malformed line, with its line number', async () => {
    const s = genStructure();
    const files = structureFiles(s);
    files['data/events.jsonl'] = `${jsonl(s.events)}{"id":\n`;
    const pkg = await openPackage(await writeDir(entriesOf({ files, capabilities: SAG_DECL })));
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const e of pkg.events()) seen.push(e.line);
      })(),
    ).rejects.toMatchObject({ code: 'OCTX_JSON_INVALID', issues: [expect.objectContaining({ path: 'data/events.jsonl', line: s.events.length + 1 })] });
    expect(seen).toHaveLength(s.events.length);
    await pkg.close();
  });

  it('streams records lazily: the first chunk arrives long before the file is read', async () => {
    // 60 000 chunk lines of ~330 bytes (~20 MB); the package is opened, not validated, so only
    // the chunks file needs to be listed.
    const docId = tid();
    const text = 'z'.repeat(260);
    const lines: string[] = [];
    for (let i = 0; i < 60_000; i++) lines.push(`{"id":"019c0000-0000-7000-8000-${i.toString(16).padStart(12, '0')}","document_id":"${docId}","ordinal":${i},"text":"${text}"}`);
    const chunks = `${lines.join('\n')}\n`;
    const size = Buffer.byteLength(chunks);
    expect(size).toBeGreaterThan(18_000_000);
    const pkg = await openPackage(await writeDir(entriesOf({ files: { 'knowledge/doc.md': GUIDE_MD, 'data/chunks.jsonl': chunks }, capabilities: SAG_DECL })));
    let bytes = 0;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below as original.call(this, …), with the stream as `this`
    const original = VerifyStream.prototype._transform;
    vi.spyOn(VerifyStream.prototype, '_transform').mockImplementation(function (this: VerifyStream, chunk: Buffer, enc, cb) {
      bytes += chunk.length;
      return original.call(this, chunk, enc, cb);
    });
    const it = pkg.chunks();
    const first = await it.next();
    expect(first.value).toMatchObject({ line: 1, record: { ordinal: 0 } });
    // At most a few buffered MiB have been read when the first record is handed out.
    expect(bytes).toBeLessThan(size / 4);
    let count = 1;
    let heapPeak = 0;
    const heapStart = process.memoryUsage().heapUsed;
    for (let r = await it.next(); !r.done; r = await it.next()) {
      count += 1;
      if (count % 5000 === 0) heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed - heapStart);
    }
    expect(count).toBe(60_000);
    expect(bytes).toBe(size);
    // Iterating ~20 MB of JSONL never holds the file: heap growth stays well below its size.
    expect(heapPeak).toBeLessThan(size);
    await pkg.close();
  });

  it('streams vector rows batch by batch', async () => {
    const s = genStructure({ docs: 1, chunksPerDoc: 40 });
    const spec = vectorPackage(s, {
      arrow: {
        chunks: arrowFile(
          rowsFor(
            s.chunks.map((c) => c.id),
            4,
          ),
          { dim: 4, batchSize: 8 },
        ),
      },
    });
    const pkg = await openPackage(await writeDir(entriesOf(spec)));
    const it = pkg.vectors('chunks');
    const first = await it.next();
    expect(first.value).toMatchObject({ recordId: s.chunks[0].id });
    let n = 1;
    for (let r = await it.next(); !r.done; r = await it.next()) n++;
    expect(n).toBe(40);
    await pkg.close();
  });

  it('vectors() refuses an unknown target and a non-Arrow file', async () => {
    const s = genStructure();
    const spec = vectorPackage(s, { arrow: { chunks: Buffer.from('nope') } });
    const pkg = await openPackage(await writeDir(entriesOf(spec)));
    await expect(pkg.vectors('bogus' as never).next()).rejects.toMatchObject({ code: 'OCTX_OPTIONS_INVALID' });
    await expect(pkg.vectors('chunks').next()).rejects.toMatchObject({ code: 'OCTX_VECTOR_ARROW_INVALID' });
    await pkg.close();
  });

  it('vectorConfig() refuses a duplicate key', async () => {
    const s = genStructure();
    const spec = vectorPackage(s, { config: '{"model":"a","model":"b"}' });
    const pkg = await openPackage(await writeDir(entriesOf(spec)));
    await expect(pkg.vectorConfig()).rejects.toMatchObject({ code: 'OCTX_JSON_DUPLICATE_KEY' });
    await pkg.close();
  });
});
