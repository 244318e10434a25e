/** Issue 23 (Arrow files written into the archive; small entries verified in runs), from an independent review: readMany vs streams, more damage kinds; abort and close. */
import { readdirSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { SMALL_ENTRY_BYTES, verifyEntries } from '../../src/export/verify-entries.js';
import { openPackage } from '../../src/read/open-package.js';
import { xorshiftBytes } from '../helpers/bytes.js';
import { smallDocumentsPackage, verifyAll } from '../helpers/verify-runs.js';
import { cleanupTempDirs, manifestFor, rawZip, writeBytes, type RawEntry } from '../read/helpers.js';

afterAll(cleanupTempDirs);
const text = (seed: number, n = 3000): Buffer => xorshiftBytes(n, seed, { textLike: true });

const INTENDED: Record<string, Buffer> = {
  'knowledge/m-trailing-garbage.md': text(21),
  'knowledge/n-two-streams.md': text(22),
  'knowledge/o-exactly-small.md': text(23, SMALL_ENTRY_BYTES),
  'knowledge/o2-small-plus-one.md': text(24, SMALL_ENTRY_BYTES + 1),
  'knowledge/p-empty-no-data.md': Buffer.alloc(0),
  'knowledge/q-corrupt-after-more.md': text(26, 20000),
  'knowledge/r-deflated-exactly-small.md': xorshiftBytes(SMALL_ENTRY_BYTES - 200, 27),
  'knowledge/s-non-final-then-eof.md': text(28),
};

function entries(): RawEntry[] {
  const d = (p: string): Buffer => INTENDED[p]!;
  const q = deflateRawSync(d('knowledge/q-corrupt-after-more.md'));
  const qBad = Buffer.from(q);
  for (let i = Math.floor(q.length * 0.8); i < q.length; i++) qBad[i] = 0xff;
  // A non-final stored block then nothing: zlib waits for more input.
  const s = d('knowledge/s-non-final-then-eof.md');
  const hdr = Buffer.from([0x00, s.length & 0xff, s.length >> 8, ~s.length & 0xff, (~s.length >> 8) & 0xff]);
  return [
    {
      name: 'knowledge/m-trailing-garbage.md',
      data: d('knowledge/m-trailing-garbage.md'),
      method: 8,
      payload: Buffer.concat([deflateRawSync(d('knowledge/m-trailing-garbage.md')), Buffer.from('garbage!garbage!')]),
    },
    {
      name: 'knowledge/n-two-streams.md',
      data: d('knowledge/n-two-streams.md'),
      method: 8,
      payload: Buffer.concat([deflateRawSync(d('knowledge/n-two-streams.md')), deflateRawSync(Buffer.from('x'))]),
    },
    { name: 'knowledge/o-exactly-small.md', data: d('knowledge/o-exactly-small.md'), crc: 7 },
    { name: 'knowledge/o2-small-plus-one.md', data: d('knowledge/o2-small-plus-one.md'), crc: 7 },
    { name: 'knowledge/p-empty-no-data.md', data: Buffer.alloc(0), method: 8, payload: Buffer.alloc(0) },
    { name: 'knowledge/q-corrupt-after-more.md', data: d('knowledge/q-corrupt-after-more.md'), method: 8, payload: qBad, uncompressedSize: 15000 },
    { name: 'knowledge/r-deflated-exactly-small.md', data: d('knowledge/r-deflated-exactly-small.md'), method: 8, crc: 9 },
    { name: 'knowledge/s-non-final-then-eof.md', data: s, method: 8, payload: Buffer.concat([hdr, s]) },
  ];
}

describe('readMany differential, more cases', () => {
  it('gives the issues the streams give', async () => {
    const manifest = `${JSON.stringify(manifestFor({ files: INTENDED }), null, 2)}\n`;
    const pkg = await openPackage(await writeBytes(rawZip([{ name: 'manifest.json', data: manifest, method: 8 }, ...entries()])));
    try {
      const inRuns = await verifyAll(pkg, true);
      const streamed = await verifyAll(pkg, false);
      const paths = pkg.listedFiles().map((f) => f.path);
      for (const [i, p] of paths.entries()) expect(inRuns[i], p).toEqual(streamed[i]);
    } finally {
      await pkg.close();
    }
  });

  it('abort from the each path: OCTX_ABORTED, no fd left after close', async () => {
    const path = await smallDocumentsPackage(400, 300, 8);
    const before = readdirSync('/proc/self/fd').length;
    const pkg = await openPackage(path);
    const ac = new AbortController();
    let n = 0;
    await expect(verifyEntries(pkg, pkg.listedFiles(), ac.signal, () => ++n === 50 && ac.abort())).rejects.toMatchObject({ code: 'OCTX_ABORTED' });
    await pkg.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(before);
  });

  it('pkg.close() while readMany runs: every unchecked entry gets an issue, no fd left', async () => {
    const path = await smallDocumentsPackage(400, 700, 0);
    const before = readdirSync('/proc/self/fd').length;
    const pkg = await openPackage(path);
    let closing: Promise<void> | undefined;
    const found = await verifyEntries(pkg, pkg.listedFiles(), undefined, (i) => {
      if (i === 10 && !closing) closing = pkg.close();
    });
    await closing;
    const issues = found.filter((f) => f !== undefined);
    expect(issues.length).toBeGreaterThan(0);
    for (const i of issues) expect(i).toMatchObject({ code: 'OCTX_OPEN_ERROR', message: expect.stringMatching(/the package is closed/) });
    await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(before);
  });
});

describe('duplicated listing', () => {
  it('a path listed twice (second digest wrong, then first wrong): runs and streams agree', async () => {
    for (const wrongFirst of [false, true]) {
      const files = { 'knowledge/a.md': text(41), 'knowledge/b.md': text(42) };
      const manifest = manifestFor({
        files,
        edit: (m) => {
          const list = m.files as { path: string; sha256: string }[];
          const dup = { path: 'knowledge/a.md', sha256: '0'.repeat(64) };
          if (wrongFirst) list.unshift(dup);
          else list.push(dup);
        },
      });
      // openPackage accepts a duplicated listing (validatePackage reports it); verification reads it.
      const pkg = await openPackage(
        await writeBytes(rawZip([{ name: 'manifest.json', data: `${JSON.stringify(manifest)}\n` }, ...Object.entries(files).map(([name, data]) => ({ name, data, method: 8 }))])),
      );
      try {
        const inRuns = await verifyAll(pkg, true);
        const streamed = await verifyAll(pkg, false);
        expect(inRuns).toEqual(streamed);
      } finally {
        await pkg.close();
      }
    }
  });
});
