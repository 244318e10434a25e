/**
 * Local headers read in runs must report what the one-read-per-
 * entry reader of 1fc0277 reported (same code, same message, first bad entry in central-directory
 * order) for headers out of offset order, two central records on one header, offsets at the very
 * end of the file or far past it (also through a ZIP64 extra field), names longer than the 64
 * bytes of slack whose local length differs from the central one, and runs cut at the 1 MiB
 * boundary. Every expectation here was checked against 1fc0277's reader.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveLimits } from '../../src/model/limits.js';
import { OctxError } from '../../src/model/errors.js';
import { RUN_BYTES } from '../../src/read/zip-fd-reader.js';
import { openZipSource } from '../../src/read/zip-source.js';
import { cleanupTempDirs, rawZip, writeBytes, type RawEntry } from './helpers.js';

afterAll(cleanupTempDirs);

/** Opens `bytes`; the names and data read back, or the error's code and message. */
async function outcome(bytes: Buffer): Promise<{ names: string[]; data: string[] } | { code: string; message: string }> {
  const path = await writeBytes(bytes);
  let source;
  try {
    source = await openZipSource(path, resolveLimits({}));
  } catch (e) {
    expect(e).toBeInstanceOf(OctxError);
    return { code: (e as OctxError).code, message: (e as OctxError).message };
  }
  try {
    const names = [...source.names()];
    const data: string[] = [];
    for (const n of names) data.push((await source.readAll(n)).toString('latin1'));
    return { names, data };
  } finally {
    await source.close();
  }
}

function zip64Offset(offset: number): Buffer {
  const extra = Buffer.alloc(12);
  extra.writeUInt16LE(1, 0);
  extra.writeUInt16LE(8, 2);
  extra.writeBigUInt64LE(BigInt(offset), 4);
  return extra;
}

const A: RawEntry = { name: 'knowledge/a.md', data: '# a\n' };
const B: RawEntry = { name: 'knowledge/b.md', data: '# b\n' };
const C: RawEntry = { name: 'knowledge/c.md', data: '# c\n' };
/** Each of A, B, C takes 30 + 14 + 4 bytes. */
const AT = [0, 48, 96];
const nameDiffers = (central: string, local: string): RegExp => new RegExp(`entry "${central}": local header name "${local}" differs from the central directory`);

describe('local headers read in runs: edge archives', () => {
  it('reports the first bad entry in central-directory order when headers are out of offset order or shared', async () => {
    // The central directory lists a, b, c pointing at b's, c's and a's headers.
    expect(await outcome(rawZip([A, B, C].map((e, i) => ({ ...e, offset: AT[(i + 1) % 3] }))))).toMatchObject({
      code: 'OCTX_SECURITY_ERROR',
      message: expect.stringMatching(nameDiffers('knowledge/a.md', 'knowledge/b.md')),
    });
    // c's central record points at b's header too.
    expect(await outcome(rawZip([A, B, { ...C, offset: AT[1] }]))).toMatchObject({
      code: 'OCTX_SECURITY_ERROR',
      message: expect.stringMatching(nameDiffers('knowledge/c.md', 'knowledge/b.md')),
    });
    expect(await outcome(rawZip([A, { ...A, offset: 0 }]))).toMatchObject({
      code: 'OCTX_SECURITY_ERROR',
      message: expect.stringMatching(/duplicate entry name "knowledge\/a.md"/),
    });
  });

  it('refuses offsets at the end of the file or past it, also through ZIP64, in central-directory order', async () => {
    const size = rawZip([A, B, C]).length + 46 + 1; // the three entries, then x's central record (name "x")
    for (const back of [22, 29, 30, 31, 60]) {
      expect(await outcome(rawZip([A, B, C, { name: 'x', offset: size - back }]))).toMatchObject({
        code: 'OCTX_ARCHIVE_INVALID',
        message: expect.stringMatching(/entry "x" has no local header at its offset/),
      });
    }
    for (const entry of [
      { ...C, offset: 0xffffffff },
      { ...C, offset: 0xfffffffe },
      { ...C, offset: 0xffffffff, extra: zip64Offset(5_000_000_000) },
    ]) {
      expect(await outcome(rawZip([A, entry]))).toMatchObject({
        code: 'OCTX_ARCHIVE_INVALID',
        message: expect.stringMatching(/entry "knowledge\/c.md" points outside the archive/),
      });
    }
    // A ZIP64 offset of 0 lands on a's header: c's name differs.
    expect(await outcome(rawZip([A, { ...C, offset: 0xffffffff, extra: zip64Offset(0) }]))).toMatchObject({
      code: 'OCTX_SECURITY_ERROR',
      message: expect.stringMatching(nameDiffers('knowledge/c.md', 'knowledge/a.md')),
    });
    // The first bad entry wins whichever check fails.
    expect(
      await outcome(
        rawZip([
          { ...C, offset: 0xfffffff },
          { ...A, local: { name: 'knowledge/q.md' } },
        ]),
      ),
    ).toMatchObject({
      code: 'OCTX_ARCHIVE_INVALID',
      message: expect.stringMatching(/entry "knowledge\/c.md" points outside the archive/),
    });
    expect(
      await outcome(
        rawZip([
          { ...A, local: { name: 'knowledge/q.md' } },
          { ...C, offset: 0xfffffff },
        ]),
      ),
    ).toMatchObject({
      code: 'OCTX_SECURITY_ERROR',
      message: expect.stringMatching(nameDiffers('knowledge/a.md', 'knowledge/q.md')),
    });
    expect(
      await outcome(
        rawZip([
          { ...A, offset: 7 },
          { ...B, local: { method: 8 } },
        ]),
      ),
    ).toMatchObject({
      code: 'OCTX_ARCHIVE_INVALID',
      message: expect.stringMatching(/entry "knowledge\/a.md" has no local header at its offset/),
    });
  });

  it('compares names longer than the slack read with the header, whatever the local length', async () => {
    const long = `knowledge/${'n'.repeat(90)}.md`;
    const ok = await outcome(rawZip([{ name: long, data: 'q' }, B, { name: `${long}2`, data: 'r' }]));
    expect(ok).toEqual({ names: [long, 'knowledge/b.md', `${long}2`], data: ['q', '# b\n', 'r'] });
    for (const local of ['knowledge/s.md', `${long.slice(0, -1)}x`, `${long}${'y'.repeat(64)}`, `${long}${'y'.repeat(65)}`, `${long}${'y'.repeat(5000)}`]) {
      for (const entries of [
        [{ name: long, data: 'q', local: { name: local } }, B],
        [B, { name: long, data: 'q', local: { name: local } }],
      ]) {
        expect(await outcome(rawZip(entries))).toMatchObject({ code: 'OCTX_SECURITY_ERROR', message: expect.stringContaining(`local header name "${local}" differs`) });
      }
    }
  });

  it('reads and checks headers on both sides of the run boundary', async () => {
    const name = 'vectors/v.arrow';
    for (const d of [-95, -94, -93, -64, -1, 0, 1]) {
      // The second header starts RUN_BYTES + d bytes into the file.
      const big: RawEntry = { name, data: randomBytes(RUN_BYTES - 30 - name.length + d) };
      const good = await outcome(rawZip([big, A, B]));
      expect(good).toMatchObject({ names: [name, 'knowledge/a.md', 'knowledge/b.md'] });
      expect(await outcome(rawZip([big, { ...A, local: { name: 'knowledge/x.md' } }, B]))).toMatchObject({
        code: 'OCTX_SECURITY_ERROR',
        message: expect.stringMatching(nameDiffers('knowledge/a.md', 'knowledge/x.md')),
      });
    }
  });
});
