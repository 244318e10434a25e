/**
 * Parser differentials (issue 16, item 1): what `validatePackage` certifies must be what every
 * mainstream ZIP reader extracts, or it is refused. Python's `zipfile` (like Info-ZIP) locates
 * the central directory relative to the end-of-central-directory record it finds last, shifting
 * every offset by the gap ("concat") between the central directory's declared end and that
 * record; yauzl (and so our reader) trusts the declared offset. Each archive below is crafted so
 * that the two disagree; when `python3` is available the test also shows the disagreement is real.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crc32 } from 'node:zlib';
import { resolveLimits } from '../../src/model/limits.js';
import { PackageBuilder } from '../../src/index.js';
import { assembleZip } from '../helpers/assemble-zip.js';
import { openZipSource } from '../../src/read/zip-source.js';
import { openPackage, validatePackage, type ValidationReport } from '../../src/read/index.js';
import { GUIDE_MD, entriesOf, rawZip, tempDir, writeBytes, writeZip, type RawEntry } from './helpers.js';

const EOCD_SIG = 0x06054b50;

function hasPython(): boolean {
  try {
    execFileSync('python3', ['-c', 'import zipfile'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const PYTHON = hasPython();

/** Python's view of an archive: every file's bytes (base64), or the error it raised. */
type PythonView = { files: Record<string, string> } | { error: string };

const PY_EXTRACT = `
import base64, json, sys, zipfile
try:
    with zipfile.ZipFile(sys.argv[1]) as z:
        files = {i.filename: base64.b64encode(z.read(i)).decode() for i in z.infolist() if not i.is_dir()}
    print(json.dumps({"files": files}))
except Exception as e:
    print(json.dumps({"error": type(e).__name__ + ": " + str(e)}))
`;

function pythonView(path: string): PythonView {
  return JSON.parse(execFileSync('python3', ['-c', PY_EXTRACT, path], { encoding: 'utf8' })) as PythonView;
}

function b64(files: Record<string, string | Buffer>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
}

/** Every listed file as our reader streams it (base64), the manifest included. */
async function ourView(path: string): Promise<Record<string, string>> {
  const pkg = await openPackage(path);
  try {
    const out: Record<string, string> = { 'manifest.json': pkg.manifestBytes.toString('base64') };
    for (const f of pkg.listedFiles()) out[f.path] = (await pkg.readFile(f.path)).toString('base64');
    return out;
  } finally {
    await pkg.close();
  }
}

function refusedAsInvalid(r: ValidationReport): void {
  expect(r.valid).toBe(false);
  expect(r.issues.map((i) => i.code)).toEqual(['OCTX_ARCHIVE_INVALID']);
}

/** Package A (what the EOCD points at) and package B (what the hidden directory shows). */
const FILES_A = entriesOf({ files: { 'knowledge/guide.md': GUIDE_MD } });
const FILES_B = entriesOf({ files: { 'knowledge/guide.md': GUIDE_MD.replace('Portable context.', 'Other contents!!') } });

function raw(files: Record<string, string | Buffer>): RawEntry[] {
  return Object.entries(files).map(([name, data]) => ({ name, data }));
}

/** Splits a {@link rawZip} archive into its local records, central directory and EOCD. */
function split(zip: Buffer): { locals: Buffer; cd: Buffer; eocd: Buffer } {
  const e = zip.length - 22;
  const cdOffset = zip.readUInt32LE(e + 16);
  const cdSize = zip.readUInt32LE(e + 12);
  return { locals: zip.subarray(0, cdOffset), cd: zip.subarray(cdOffset, cdOffset + cdSize), eocd: zip.subarray(e) };
}

/** Rewrites the EOCD of `zip` (which ends with a zero-comment EOCD) to declare `cdOffset`/`cdSize`. */
function eocdFor(eocd: Buffer, cdOffset: number, cdSize: number, commentLength = 0): Buffer {
  const out = Buffer.from(eocd);
  out.writeUInt32LE(cdSize, 12);
  out.writeUInt32LE(cdOffset, 16);
  out.writeUInt16LE(commentLength, 20);
  return out;
}

/**
 * Two central directories: the EOCD declares the first (package A); the second (package B)
 * sits right before the EOCD, its offsets made relative to where Python will think the archive
 * starts (shifted by the second directory's size).
 */
function twoCentralDirectories(): Buffer {
  const a = split(rawZip(raw(FILES_A)));
  const b0 = split(rawZip(raw(FILES_B)));
  // B's local records follow A's; Python adds concat = |cdB| to every offset it reads.
  const concat = a.cd.length; // same names, so |cdA| === |cdB|
  const bEntries = raw(FILES_B);
  let at = a.locals.length;
  const shifted: RawEntry[] = [];
  const bLocals = split(rawZip(bEntries)).locals;
  for (const e of bEntries) {
    shifted.push({ ...e, offset: at - concat });
    at += 30 + Buffer.byteLength(e.name) + Buffer.byteLength(e.data ?? '');
  }
  const b = split(rawZip(shifted));
  expect(b.cd.length).toBe(concat);
  expect(b0.cd.length).toBe(concat);
  const cdAOffset = a.locals.length + bLocals.length;
  return Buffer.concat([a.locals, bLocals, a.cd, b.cd, eocdFor(a.eocd, cdAOffset, a.cd.length)]);
}

/** A valid archive followed by a second copy of its EOCD. */
function appendedEocd(): Buffer {
  const zip = rawZip(raw(FILES_A));
  return Buffer.concat([zip, zip.subarray(zip.length - 22)]);
}

/** Bytes between the central directory and the EOCD (the EOCD still declares the directory). */
function gapBeforeEocd(gap: Buffer): Buffer {
  const { locals, cd, eocd } = split(rawZip(raw(FILES_A)));
  return Buffer.concat([locals, cd, gap, eocd]);
}

/** An EOCD whose comment holds another EOCD signature (the last one Python and unzip find). */
function signatureInComment(): Buffer {
  const { locals, cd, eocd } = split(rawZip(raw(FILES_A)));
  const comment = Buffer.alloc(26);
  comment.writeUInt32LE(EOCD_SIG, 2);
  return Buffer.concat([locals, cd, eocdFor(eocd, locals.length, cd.length, comment.length), comment]);
}

/** An EOCD comment that is longer than what is left of the file. */
function commentPastTheEnd(): Buffer {
  const { locals, cd, eocd } = split(rawZip(raw(FILES_A)));
  return Buffer.concat([locals, cd, eocdFor(eocd, locals.length, cd.length, 10), Buffer.from('short')]);
}

/** Converts a {@link rawZip} archive to ZIP64 end records: ZIP64 EOCD, locator, saturated EOCD. */
function withZip64End(zip: Buffer, options: { extensible?: Buffer; gap?: Buffer } = {}): Buffer {
  const { locals, cd, eocd } = split(zip);
  const count = eocd.readUInt16LE(10);
  const extensible = options.extensible ?? Buffer.alloc(0);
  const gap = options.gap ?? Buffer.alloc(0);
  const z = Buffer.alloc(56);
  z.writeUInt32LE(0x06064b50, 0);
  z.writeBigUInt64LE(BigInt(44 + extensible.length), 4);
  z.writeUInt16LE(0x032d, 12);
  z.writeUInt16LE(45, 14);
  z.writeBigUInt64LE(BigInt(count), 24);
  z.writeBigUInt64LE(BigInt(count), 32);
  z.writeBigUInt64LE(BigInt(cd.length), 40);
  z.writeBigUInt64LE(BigInt(locals.length), 48);
  const loc = Buffer.alloc(20);
  loc.writeUInt32LE(0x07064b50, 0);
  loc.writeBigUInt64LE(BigInt(locals.length + cd.length + gap.length), 8);
  loc.writeUInt32LE(1, 16);
  const e = Buffer.from(eocd);
  e.writeUInt16LE(0xffff, 8);
  e.writeUInt16LE(0xffff, 10);
  e.writeUInt32LE(0xffffffff, 12);
  e.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([locals, cd, gap, z, extensible, loc, e]);
}

/** [what, archive, does Python read it differently (else: only stricter than needed)]. */
const HOSTILE: [string, () => Buffer, boolean][] = [
  ['two central directories (the EOCD declares the first, the second sits before the EOCD)', twoCentralDirectories, true],
  ['a second EOCD appended after the first', appendedEocd, true],
  ['bytes between the central directory and the EOCD', () => gapBeforeEocd(Buffer.alloc(7, 0x20)), true],
  ['an EOCD signature inside the EOCD comment', signatureInComment, true],
  ['an EOCD comment length that does not reach exactly the end of file', commentPastTheEnd, false],
  ['bytes between the central directory and the ZIP64 end record', () => withZip64End(rawZip(raw(FILES_A)), { gap: Buffer.alloc(16) }), true],
  ['a ZIP64 end record with an extensible data sector (not where Python reads it)', () => withZip64End(rawZip(raw(FILES_A)), { extensible: Buffer.alloc(8, 0x41) }), true],
];

describe('ZIP parser differentials (OCTX_ARCHIVE_INVALID)', () => {
  it('accepts the archives the hostile ones are made from (legacy and ZIP64 end records)', async () => {
    for (const bytes of [rawZip(raw(FILES_A)), withZip64End(rawZip(raw(FILES_A)))]) {
      const path = await writeBytes(bytes);
      const r = await validatePackage(path);
      expect(r.issues).toEqual([]);
      expect(r.valid).toBe(true);
      expect(await ourView(path)).toEqual(b64(FILES_A));
      if (PYTHON) expect(pythonView(path)).toEqual({ files: b64(FILES_A) });
    }
  });

  for (const [what, make, differs] of HOSTILE) {
    it(`refuses ${what}`, async () => {
      const path = await writeBytes(make());
      refusedAsInvalid(await validatePackage(path));
      await expect(openPackage(path)).rejects.toMatchObject({ code: 'OCTX_ARCHIVE_INVALID' });
    });

    it.skipIf(!PYTHON || !differs)(`python3 zipfile reads ${what} differently from the archive the EOCD declares (or refuses it)`, async () => {
      const view = pythonView(await writeBytes(make()));
      expect(view).not.toEqual({ files: b64(FILES_A) });
    });
  }

  it.skipIf(!PYTHON)('the two-directory archive shows Python a different manifest and document', async () => {
    expect(pythonView(await writeBytes(twoCentralDirectories()))).toEqual({ files: b64(FILES_B) });
  });

  it('still validates what the SDK writes, with ZIP64 extra fields and end records alike, and Python extracts the same bytes', async () => {
    const dir = await tempDir();
    const builder = new PackageBuilder({
      asset: { id: '019c0000-0000-7000-8000-000000000001', name: 'Handbook' },
      release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' },
    });
    builder.addDocument({ path: 'guide.md', markdown: GUIDE_MD });
    const out = join(dir, 'sdk.octx');
    await builder.export({ output: out });
    const z64 = await writeZip(
      Object.entries(FILES_A).map(([name, data]) => ({ name, data })),
      { zip64: true },
    );
    for (const path of [out, z64]) {
      const r = await validatePackage(path);
      expect(r.issues).toEqual([]);
      if (PYTHON) expect(pythonView(path)).toEqual({ files: await ourView(path) });
    }
  });

  it('still opens a ZIP the SDK assembler writes with ZIP64 end records (65,600 entries), and Python reads it', async () => {
    const out = join(await tempDir(), 'many.zip');
    const n = 65_600;
    await assembleZip(
      out,
      Array.from({ length: n }, (_, i) => {
        const bytes = Buffer.from(`# ${i}\n`);
        return { name: `knowledge/e${i}.md`, method: 'store' as const, crc32: crc32(bytes), size: bytes.length, compressedSize: bytes.length, segments: [{ bytes }] };
      }),
    );
    const source = await openZipSource(out, resolveLimits({ maxEntries: 100_000 }));
    try {
      expect(source.names()).toHaveLength(n);
      expect((await source.readAll(`knowledge/e${n - 1}.md`)).toString()).toBe(`# ${n - 1}\n`);
    } finally {
      await source.close();
    }
    if (PYTHON) {
      const count = execFileSync('python3', ['-c', 'import sys, zipfile; print(len(zipfile.ZipFile(sys.argv[1]).infolist()))', out], { encoding: 'utf8' });
      expect(Number(count)).toBe(n);
    }
  }, 120_000);
});
