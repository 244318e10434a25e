import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isOctxError, type OctxError, PackageBuilder, validatePackage, type ProgressEvent } from '../../src/index.js';
import { inspectZip } from '../helpers/zip-inspect.js';
import { tempDir } from '../helpers/temp.js';

const ASSET = '019c0000-0000-7000-8000-000000000001';
const fixedOptions = (spill?: string) => ({
  asset: { id: ASSET, name: 'Handbook' },
  release: { version: '1.2.0', createdAt: new Date('2026-07-12T10:00:00Z') },
  ...(spill ? { tempDir: spill } : {}),
});

function handbook(spill?: string): PackageBuilder {
  return new PackageBuilder(fixedOptions(spill))
    .addDocument({ path: 'index.md', markdown: '---\nokf_version: "0.1"\n---\n# Handbook\n\n* [Setup](guides/setup.md) - first steps\n' })
    .addDocument({ path: 'guides/setup.md', markdown: '---\ntype: Guide\noctx:\n  document_id: 019c0000-0000-7000-8000-000000000002\n---\n# Setup\n\nInstall it.\n' })
    .addDocument({ path: '中文/说明.md', markdown: '---\noctx:\n  document_id: 019c0000-0000-7000-8000-000000000003\n---\n# 说明\n\n这是一个例子。\n' });
}

async function expectCode(p: Promise<unknown>, code: string): Promise<OctxError> {
  try {
    await p;
  } catch (e) {
    expect(isOctxError(e)).toBe(true);
    expect((e as OctxError).code).toBe(code);
    return e as OctxError;
  }
  throw new Error(`expected ${code}`);
}

describe('export: the archive bytes', () => {
  it('writes manifest.json first, then payloads in UTF-8 path order, with fixed headers', async () => {
    const out = join(tempDir(), 'h.octx');
    const result = await handbook().export({ output: out });
    const entries = inspectZip(out);
    expect(entries.map((e) => e.name)).toEqual(['manifest.json', 'knowledge/guides/setup.md', 'knowledge/index.md', 'knowledge/中文/说明.md']);
    for (const e of entries) {
      expect(e.dosDate).toBe((0 << 9) | (1 << 5) | 1); // 1980-01-01
      expect(e.dosTime).toBe(0);
      expect(e.versionMadeBy >> 8).toBe(3); // Unix
      expect(e.externalAttributes >>> 16).toBe(0o100644); // regular file, rw-r--r--
      expect(e.flags & 0x1).toBe(0); // not encrypted
      expect([0, 8]).toContain(e.method);
      expect(e.localFlags).toBe(e.flags);
      expect(e.localMethod).toBe(e.method);
      // eslint-disable-next-line no-control-regex -- \x00-\x7f is ASCII: the UTF-8 flag must be set exactly for names outside it
      expect(Boolean(e.flags & 0x800)).toBe(/[^\x00-\x7f]/.test(e.name)); // UTF-8 flag exactly for non-ASCII names
    }
    expect(entries.find((e) => e.name === 'knowledge/guides/setup.md')!.method).toBe(8);
    // files[] digests are the raw bytes of the entries
    for (const f of result.manifest.files) {
      const e = entries.find((x) => x.name === f.path)!;
      expect(createHash('sha256').update(e.data).digest('hex')).toBe(f.sha256);
    }
    expect(result.manifest.files.map((f) => f.path)).toEqual(['knowledge/guides/setup.md', 'knowledge/index.md', 'knowledge/中文/说明.md']);
    expect(JSON.parse(entries[0]!.data.toString('utf8'))).toEqual(result.manifest);
    expect(entries[0]!.data[0]).toBe(0x7b); // no BOM
    const report = await validatePackage(out);
    expect(report.issues).toEqual([]);
    expect(report.valid).toBe(true);
  });

  it('identical input gives byte-identical archives', async () => {
    const dir = tempDir();
    await handbook().export({ output: join(dir, 'a.octx') });
    await handbook().export({ output: join(dir, 'b.octx') });
    expect(readFileSync(join(dir, 'a.octx')).equals(readFileSync(join(dir, 'b.octx')))).toBe(true);
  });

  it('stores an entry that would deflate beyond 100:1 and deflates ordinary text', async () => {
    const out = join(tempDir(), 'r.octx');
    await new PackageBuilder(fixedOptions())
      .addDocument({ path: 'repetitive.md', markdown: `# R\n\n${'a'.repeat(500_000)}\n` })
      .addDocument({ path: 'prose.md', markdown: '# P\n\nOrdinary prose that compresses a little, as text does.\n'.repeat(3) })
      .export({ output: out });
    const entries = inspectZip(out);
    const rep = entries.find((e) => e.name === 'knowledge/repetitive.md')!;
    expect(rep.method).toBe(0);
    expect(rep.compressedSize).toBe(rep.size);
    expect(entries.find((e) => e.name === 'knowledge/prose.md')!.method).toBe(8);
    expect((await validatePackage(out)).valid).toBe(true);
  });

  it('returns the result and report', async () => {
    const out = join(tempDir(), 'h.octx');
    const result = await handbook().export({ output: out });
    expect(result.output).toBe(out);
    expect(result.assetId).toBe(ASSET);
    expect(result.version).toBe('1.2.0');
    expect(result.packageDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(result.manifest.release.created_at).toBe('2026-07-12T10:00:00Z');
    expect(result.report.documents).toEqual({ concepts: 2, reserved: 1 });
    expect(result.report.structure.status).toBe('none');
    expect(result.report.capabilities).toEqual([]);
    expect(result.report.files.map((f) => f.path)).toEqual(result.manifest.files.map((f) => f.path));
  });

  it('mints an asset id and uses version 1.0.0 and now when they are not given', async () => {
    const out = join(tempDir(), 'd.octx');
    const before = Date.now();
    const result = await new PackageBuilder({ asset: { name: 'Defaults' } }).addDocument({ path: 'a.md', markdown: '# A\n' }).export({ output: out });
    expect(result.version).toBe('1.0.0');
    expect(result.assetId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    const t = Date.parse(result.manifest.release.created_at);
    expect(t).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(result.manifest.release.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

describe('export: atomic output', () => {
  it('refuses an existing output unless overwrite is true, and leaves it untouched', async () => {
    const dir = tempDir();
    const out = join(dir, 'h.octx');
    writeFileSync(out, 'precious');
    const e = await expectCode(handbook().export({ output: out }), 'OCTX_OUTPUT_EXISTS');
    expect(e.issues[0]!.path).toBe(out);
    expect(readFileSync(out, 'utf8')).toBe('precious');
    const result = await handbook().export({ output: out, overwrite: true });
    expect(readFileSync(out).subarray(0, 2).toString()).toBe('PK');
    expect(result.output).toBe(out);
    expect(readdirSync(dir)).toEqual(['h.octx']);
  });

  it('refuses a folder as output', async () => {
    const dir = tempDir();
    await expectCode(handbook().export({ output: dir, overwrite: true }), 'OCTX_OUTPUT_INVALID');
  });

  it('a refused export writes nothing and keeps the builder usable; a finished export removes its spill folder', async () => {
    const dir = tempDir();
    const spill = tempDir('octx-spill-');
    const b = new PackageBuilder(fixedOptions(spill)).addDocument({ path: 'index.md', markdown: '# I\n\n- [A](a.md)\n' });
    expect(readdirSync(spill)).toHaveLength(1);
    await expectCode(b.export({ output: join(dir, 'x.octx') }), 'OCTX_CONCEPT_REQUIRED');
    expect(readdirSync(dir)).toEqual([]);
    b.addDocument({ path: 'a.md', markdown: '# A\n' });
    await b.export({ output: join(dir, 'x.octx') });
    expect(readdirSync(dir)).toEqual(['x.octx']);
    expect(readdirSync(spill)).toEqual([]);
    await expectCode(b.export({ output: join(dir, 'y.octx') }), 'OCTX_BUILDER_CONSUMED');
  });

  it('a failure while writing leaves no output, no temporary file and no spill folder', async () => {
    const dir = tempDir();
    const spill = tempDir('octx-spill-');
    const controller = new AbortController();
    await expectCode(
      handbook(spill).export({ output: join(dir, 'w.octx'), signal: controller.signal, onProgress: (e) => e.phase === 'verify' && controller.abort() }),
      'OCTX_ABORTED',
    );
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(spill)).toEqual([]);
  });

  it('cancels through an AbortSignal and leaves nothing at the output path', async () => {
    const dir = tempDir();
    const controller = new AbortController();
    controller.abort();
    await expectCode(handbook().export({ output: join(dir, 'a.octx'), signal: controller.signal }), 'OCTX_ABORTED');
    const late = new AbortController();
    const events: ProgressEvent[] = [];
    await expectCode(
      handbook().export({
        output: join(dir, 'b.octx'),
        signal: late.signal,
        onProgress: (ev) => {
          events.push(ev);
          if (ev.phase === 'write' && ev.completed === 2) late.abort();
        },
      }),
      'OCTX_ABORTED',
    );
    expect(events.some((e) => e.phase === 'write')).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('creates missing parent folders', async () => {
    const out = join(tempDir(), 'deep', 'er', 'h.octx');
    await handbook().export({ output: out });
    expect(existsSync(out)).toBe(true);
  });
});

describe('export: resource limits', () => {
  it("refuses a package over the consumers' limits before writing, and keeps the builder usable", async () => {
    const dir = tempDir();
    const b = handbook();
    const e = await expectCode(b.export({ output: join(dir, 'l.octx'), limits: { maxEntries: 3 } }), 'OCTX_RESOURCE_LIMIT');
    expect(e.issues[0]!.message).toContain('maxEntries 3');
    expect(readdirSync(dir)).toEqual([]);
    const big = await expectCode(b.export({ output: join(dir, 'l.octx'), limits: { maxFileSize: 10 } }), 'OCTX_RESOURCE_LIMIT');
    expect(big.issues.map((i) => i.path)).toContain('knowledge/guides/setup.md');
    const result = await b.export({ output: join(dir, 'l.octx'), limits: { maxEntries: 4 } });
    expect(result.report.files).toHaveLength(3);
  });

  it('refuses unknown limit names', async () => {
    await expectCode(handbook().export({ output: join(tempDir(), 'x.octx'), limits: { maxEntry: 3 } as never }), 'OCTX_OPTIONS_INVALID');
  });

  it('stores a manifest that would deflate beyond 100:1 instead of looping', async () => {
    const out = join(tempDir(), 'm.octx');
    await new PackageBuilder({ asset: { name: 'a'.repeat(100_000) } }).addDocument({ path: 'a.md', markdown: '# A\n' }).export({ output: out });
    expect(inspectZip(out)[0]).toMatchObject({ name: 'manifest.json', method: 0 });
    expect((await validatePackage(out)).valid).toBe(true);
  });
});

describe('options at the API boundary', () => {
  it.each([
    [{ asset: { name: '' } }, 'OCTX_OPTIONS_INVALID'],
    [{ asset: {} }, 'OCTX_OPTIONS_INVALID'],
    [{ asset: { name: 'x', id: '019C0000-0000-7000-8000-000000000001' } }, 'OCTX_ID_INVALID'],
    [{ asset: { name: 'x' }, release: { version: 'v1.0.0' } }, 'OCTX_VERSION_INVALID'],
    [{ asset: { name: 'x' }, release: { version: '1.0' } }, 'OCTX_VERSION_INVALID'],
    [{ asset: { name: 'x' }, release: { createdAt: '2026-07-12T10:00:00+00:00' } }, 'OCTX_RELEASE_CREATED_AT_INVALID'],
    [{ asset: { name: 'x' }, release: { createdAt: '2026-02-30T10:00:00Z' } }, 'OCTX_RELEASE_CREATED_AT_INVALID'],
    [{ asset: { name: 'x', id: ASSET, derivedFrom: { asset_id: ASSET, version: '1.0.0', package_digest: `sha256:${'a'.repeat(64)}` } } }, 'OCTX_ASSET_INVALID'],
    [{ asset: { name: 'x', derivedFrom: { asset_id: ASSET, version: '1.0.0', package_digest: 'abc' } } }, 'OCTX_OPTIONS_INVALID'],
  ])('refuses %j with %s', (options, code) => {
    try {
      new PackageBuilder(options as never);
      throw new Error('accepted');
    } catch (e) {
      expect((e as OctxError).code).toBe(code);
    }
  });

  it('refuses bad export options before doing anything', async () => {
    const b = handbook();
    await expectCode(b.export({ output: '' }), 'OCTX_OPTIONS_INVALID');
    await expectCode(b.export({ output: 'x.octx', compressionLevel: 12 }), 'OCTX_OPTIONS_INVALID');
    await expectCode(b.export({ output: 'x.octx', structure: 'maybe' } as never), 'OCTX_OPTIONS_INVALID');
    // still usable after refused options
    const result = await b.export({ output: join(tempDir(), 'ok.octx') });
    expect(result.report.documents.concepts).toBe(2);
  });
});

describe('export: verification modes', () => {
  it('integrity mode (the default) writes the same bytes as full mode and still re-reads and re-hashes every entry', async () => {
    const dir = tempDir();
    await handbook().export({ output: join(dir, 'full.octx'), verify: 'full' });
    const r = await handbook().export({ output: join(dir, 'fast.octx'), verify: 'integrity' });
    expect(readFileSync(join(dir, 'fast.octx')).equals(readFileSync(join(dir, 'full.octx')))).toBe(true);
    const { verifyArchive } = await import('../../src/export/verify-archive.js');
    await verifyArchive(join(dir, 'fast.octx'), r.packageDigest, 'integrity');
    await expect(verifyArchive(join(dir, 'fast.octx'), `sha256:${'0'.repeat(64)}`, 'integrity')).rejects.toMatchObject({ code: 'OCTX_INTEGRITY_ERROR' });
    const bytes = readFileSync(join(dir, 'fast.octx'));
    const entry = inspectZip(bytes).find((e) => e.name === 'knowledge/guides/setup.md')!;
    const at = entry.localHeaderOffset + 30 + entry.nameBytes.length + 2;
    bytes[at] = bytes[at]! ^ 0xff; // inside the entry data
    writeFileSync(join(dir, 'bad.octx'), bytes);
    await expect(verifyArchive(join(dir, 'bad.octx'), r.packageDigest, 'integrity')).rejects.toMatchObject({ code: 'OCTX_INTEGRITY_ERROR' });
    await expect(verifyArchive(join(dir, 'bad.octx'), r.packageDigest, 'full')).rejects.toMatchObject({ code: 'OCTX_VALIDATION_ERROR' });
  });
});

describe('export: one at a time', () => {
  it('refuses a second export while one runs, and dispose() waits for the running one', async () => {
    const dir = tempDir();
    const spill = tempDir();
    const b = handbook(spill);
    const first = b.export({ output: join(dir, 'a.octx') });
    await expectCode(b.export({ output: join(dir, 'b.octx') }), 'OCTX_BUILDER_CONSUMED');
    const disposed = b.dispose();
    const result = await first;
    await disposed;
    expect((await validatePackage(result.output)).valid).toBe(true);
    expect(existsSync(join(dir, 'b.octx'))).toBe(false);
    expect(readdirSync(spill)).toEqual([]);
  });
});
