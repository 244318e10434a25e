import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openPackage, validatePackage, type ValidationReport } from '../../src/read/index.js';
import type { OctxCode } from '../../src/model/codes.js';
import { GUIDE_MD, entriesOf, rawPackage, rawZip, tempDir, writeBytes, writeZip, type RawEntry } from './helpers.js';

const DOCS = { files: { 'knowledge/guide.md': GUIDE_MD } };

function refused(r: ValidationReport, code: OctxCode): void {
  expect(r.valid).toBe(false);
  expect(r.fullyValidated).toBe(false);
  expect(r.issues).toHaveLength(1);
  expect(r.issues[0]!.code).toBe(code);
  expect(r.format).toEqual({ valid: false, issues: r.issues });
}

async function validateBytes(bytes: Buffer, limits = {}): Promise<ValidationReport> {
  return validatePackage(await writeBytes(bytes), { limits });
}

/** Raw entries of the valid docs-only package. */
function baseEntries(overrides: Record<string, Partial<RawEntry>> = {}): RawEntry[] {
  return Object.entries(entriesOf(DOCS)).map(([name, data]) => ({ name, data, ...(overrides[name] ?? {}) }));
}

describe('ZIP container safety', () => {
  it('accepts the raw-built baseline package (so every refusal below is caused by its one change)', async () => {
    const r = await validateBytes(rawZip(baseEntries()));
    expect(r.issues).toEqual([]);
    expect(r.valid).toBe(true);
  });

  it('accepts directory entries, unlisted safe files and ZIP64 end records', async () => {
    const files = entriesOf(DOCS);
    const zip = await writeZip(
      [
        { name: 'knowledge/', type: 'directory' },
        { name: 'manifest.json', data: files['manifest.json']! },
        { name: 'knowledge/guide.md', data: GUIDE_MD },
        { name: 'notes/readme.txt', data: 'unlisted and ignored' },
      ],
      { zip64: true },
    );
    const r = await validatePackage(zip);
    expect(r.issues).toEqual([]);
    expect(r.valid).toBe(true);
  });

  for (const [what, name] of [
    ['a ../ traversal', '../evil'],
    ['a nested traversal', 'knowledge/../../evil'],
    ['an absolute path', '/abs'],
    ['a drive prefix', 'C:x'],
    ['a backslash', 'knowledge\\evil.md'],
    ['a NUL byte', 'knowledge/a\0.md'],
    ['an empty segment', 'knowledge//a.md'],
    ['a dot segment', './knowledge/a.md'],
    ['a non-NFC name', 'knowledge/e\u0301.md'],
  ] as const) {
    it(`refuses an entry name with ${what} (OCTX_SECURITY_ERROR), even unlisted`, async () => {
      refused(await validateBytes(rawPackage([{ name, data: 'x' }])), 'OCTX_SECURITY_ERROR');
    });
  }

  it('refuses a non-ASCII name without the UTF-8 flag', async () => {
    refused(await validateBytes(rawPackage([{ name: Buffer.from('knowledge/\xe9.md', 'latin1'), data: 'x', flags: 0 }])), 'OCTX_SECURITY_ERROR');
  });

  it('accepts a non-ASCII NFC name with the UTF-8 flag', async () => {
    const r = await validateBytes(rawPackage([{ name: 'notes/é.txt', data: 'x' }]));
    expect(r.valid).toBe(true);
  });

  it('refuses a UTF-8-flagged name that is not UTF-8 (OCTX_ARCHIVE_INVALID)', async () => {
    refused(await validateBytes(rawPackage([{ name: Buffer.from([0x61, 0xff, 0x62]), data: 'x', flags: 0x800 }])), 'OCTX_ARCHIVE_INVALID');
  });

  it('refuses a symlink entry (zip-stream symlink)', async () => {
    const zip = await writeZip([
      ...Object.entries(entriesOf(DOCS)).map(([name, data]) => ({ name, data })),
      { name: 'knowledge/link.md', type: 'symlink' as const, linkname: '/etc/passwd' },
    ]);
    refused(await validatePackage(zip), 'OCTX_SECURITY_ERROR');
  });

  it('refuses a special file (FIFO mode) from a Unix host', async () => {
    refused(await validateBytes(rawPackage([{ name: 'fifo', data: '', externalAttributes: (0o010644 << 16) >>> 0 }])), 'OCTX_SECURITY_ERROR');
  });

  it('ignores Unix-looking attributes from a non-Unix host', async () => {
    const r = await validateBytes(rawPackage([{ name: 'notes/x.txt', data: 'x', versionMadeBy: 0x0014, externalAttributes: 0x20 }]));
    expect(r.valid).toBe(true);
  });

  it('refuses an encrypted entry (flag bit 0 in both headers)', async () => {
    refused(await validateBytes(rawPackage([{ name: 'secret.bin', data: 'x'.repeat(40), method: 8, flags: 0x0001 }])), 'OCTX_SECURITY_ERROR');
  });

  it('refuses a strong-encryption entry (flag bit 6)', async () => {
    refused(await validateBytes(rawPackage([{ name: 'secret.bin', data: 'x', method: 8, flags: 0x0041 }])), 'OCTX_SECURITY_ERROR');
  });

  it('refuses compression methods other than STORE and DEFLATE', async () => {
    refused(await validateBytes(rawPackage([{ name: 'x.bz2', data: 'x', method: 12, payload: Buffer.from('x') }])), 'OCTX_SECURITY_ERROR');
  });

  it('refuses duplicate names', async () => {
    refused(await validateBytes(rawPackage([{ name: 'knowledge/guide.md', data: GUIDE_MD }])), 'OCTX_SECURITY_ERROR');
  });

  it('refuses a file and a directory entry with the same name', async () => {
    refused(await validateBytes(rawPackage([{ name: 'knowledge/guide.md/', data: '', externalAttributes: (0o040755 << 16) >>> 0 }])), 'OCTX_SECURITY_ERROR');
  });

  it('refuses a file whose name is the folder of another file', async () => {
    refused(await validateBytes(rawPackage([{ name: 'knowledge', data: 'x' }])), 'OCTX_SECURITY_ERROR');
  });

  it('refuses local/central name, flag and method mismatches', async () => {
    refused(await validateBytes(rawZip(baseEntries({ 'knowledge/guide.md': { local: { name: 'knowledge/other.md' } } }))), 'OCTX_SECURITY_ERROR');
    refused(await validateBytes(rawZip(baseEntries({ 'knowledge/guide.md': { local: { flags: 0x0008 } } }))), 'OCTX_SECURITY_ERROR');
    refused(await validateBytes(rawZip(baseEntries({ 'knowledge/guide.md': { local: { method: 8 } } }))), 'OCTX_SECURITY_ERROR');
  });

  it('refuses overlapping entries (OCTX_ARCHIVE_INVALID)', async () => {
    // Entry a.txt stores, as its data, a complete local record of b.txt; the central directory
    // entry of b.txt points inside a.txt. Both headers are individually consistent.
    const inner = rawZip([{ name: 'b.txt', data: 'hello' }]).subarray(0, 30 + 5 + 5);
    const entries = [...baseEntries(), { name: 'a.txt', data: inner }];
    const base = rawZip(entries);
    const aOffset = base.indexOf(Buffer.from('a.txt')) - 30;
    refused(await validateBytes(rawZip([...entries, { name: 'b.txt', data: 'hello', offset: aOffset + 30 + 5 }])), 'OCTX_ARCHIVE_INVALID');
  });

  it('refuses a central directory that hides headers from its count', async () => {
    const bytes = rawZip([...baseEntries(), { name: 'hidden.txt', data: 'x' }], { eocdEntries: 2 });
    refused(await validateBytes(bytes), 'OCTX_ARCHIVE_INVALID');
  });

  it('refuses bytes that are not a ZIP, and a truncated ZIP', async () => {
    refused(await validateBytes(Buffer.from('definitely not a zip archive, just text')), 'OCTX_ARCHIVE_INVALID');
    const good = rawZip(baseEntries());
    refused(await validateBytes(good.subarray(0, good.length - 10)), 'OCTX_ARCHIVE_INVALID');
  });

  it('refuses a zip bomb by compression ratio (OCTX_RESOURCE_LIMIT)', async () => {
    refused(await validateBytes(rawPackage([{ name: 'zeros.bin', data: Buffer.alloc(1024 * 1024), method: 8 }])), 'OCTX_RESOURCE_LIMIT');
  });

  it('refuses a zip bomb by declared size, before reading anything', async () => {
    refused(
      await validateBytes(rawPackage([{ name: 'huge.bin', data: 'x', method: 8, uncompressedSize: 0xfffffff0, payload: Buffer.alloc(30_000_000 / 1000) }])),
      'OCTX_RESOURCE_LIMIT',
    );
  });

  it('refuses archives above maxEntries and maxTotalUncompressed', async () => {
    refused(await validateBytes(rawZip(baseEntries()), { maxEntries: 1 }), 'OCTX_RESOURCE_LIMIT');
    refused(await validateBytes(rawZip(baseEntries()), { maxTotalUncompressed: 200 }), 'OCTX_RESOURCE_LIMIT');
    refused(await validateBytes(rawZip(baseEntries()), { maxFileSize: 200 }), 'OCTX_RESOURCE_LIMIT');
  });

  it('refuses a size-lying DEFLATE entry when it is read (OCTX_ARCHIVE_CORRUPT)', async () => {
    const bytes = rawZip(baseEntries({ 'knowledge/guide.md': { method: 8, uncompressedSize: 60 } }));
    refused(await validateBytes(bytes), 'OCTX_ARCHIVE_CORRUPT');
  });

  it('refuses a STORE entry whose sizes disagree (OCTX_ARCHIVE_CORRUPT)', async () => {
    refused(await validateBytes(rawZip(baseEntries({ 'knowledge/guide.md': { uncompressedSize: 100 } }))), 'OCTX_ARCHIVE_CORRUPT');
  });

  it('refuses a CRC mismatch while streaming (OCTX_ARCHIVE_CORRUPT)', async () => {
    refused(await validateBytes(rawZip(baseEntries({ 'knowledge/guide.md': { crc: 0x12345678 } }))), 'OCTX_ARCHIVE_CORRUPT');
    refused(await validateBytes(rawZip(baseEntries({ 'knowledge/guide.md': { crc: 0x12345678, method: 8 } }))), 'OCTX_ARCHIVE_CORRUPT');
  });

  it('refuses DEFLATE data that does not inflate, and a truncated DEFLATE stream (OCTX_ARCHIVE_CORRUPT)', async () => {
    refused(await validateBytes(rawZip(baseEntries({ 'knowledge/guide.md': { method: 8, payload: Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]) } }))), 'OCTX_ARCHIVE_CORRUPT');
    const whole = deflateRawSync(GUIDE_MD);
    refused(await validateBytes(rawZip(baseEntries({ 'knowledge/guide.md': { method: 8, payload: whole.subarray(0, whole.length - 4) } }))), 'OCTX_ARCHIVE_CORRUPT');
  });

  it('stops a DEFLATE entry that inflates far beyond its declared size (OCTX_ARCHIVE_CORRUPT)', async () => {
    const huge = Buffer.alloc(8 * 1024 * 1024, 0x20);
    const bytes = rawZip(baseEntries({ 'knowledge/guide.md': { method: 8, payload: deflateRawSync(huge), uncompressedSize: GUIDE_MD.length } }));
    const pkg = await openPackage(await writeBytes(bytes), { limits: { maxCompressionRatio: 1e9 } });
    try {
      await expect(pkg.readFile('knowledge/guide.md')).rejects.toMatchObject({ code: 'OCTX_ARCHIVE_CORRUPT' });
    } finally {
      await pkg.close();
    }
  });

  it('reports a missing file as OCTX_OPEN_ERROR', async () => {
    refused(await validatePackage(join(await tempDir(), 'nope.octx')), 'OCTX_OPEN_ERROR');
    await expect(openPackage('/definitely/not/here.octx')).rejects.toMatchObject({ code: 'OCTX_OPEN_ERROR' });
  });

  it('never writes anything: hostile names are not extracted', async () => {
    const dir = await tempDir();
    const zipPath = join(dir, 'slip.octx');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(zipPath, rawPackage([{ name: '../evil', data: 'pwned' }]));
    const r = await validatePackage(zipPath);
    expect(r.issues[0]!.code).toBe('OCTX_SECURITY_ERROR');
    // Also a clean package: reading and validating it creates no file anywhere near it.
    const ok = join(dir, 'ok.octx');
    await writeFile(ok, rawZip(baseEntries()));
    const pkg = await openPackage(ok);
    for await (const d of pkg.documents()) expect(d.kind).toBe('concept');
    await pkg.close();
    expect((await validatePackage(ok)).valid).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['ok.octx', 'slip.octx']);
    expect((await readdir(dirname(dir))).filter((n) => n === 'evil')).toEqual([]);
  });
});
