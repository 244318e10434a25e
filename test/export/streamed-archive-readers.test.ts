/** Issue 23 (Arrow files written into the archive; small entries verified in runs), from an independent review: the archive layout with streamed entries, read by others. */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';
import { describe, expect, it } from 'vitest';
import { writeArchive, type StreamedPayload } from '../../src/export/archive-writer.js';
import { tempDir } from '../helpers/temp.js';

function py(path: string): string {
  return execFileSync(
    'python3',
    ['-c', 'import sys,zipfile\nz=zipfile.ZipFile(sys.argv[1])\nprint(z.testzip())\nprint(",".join(i.filename+":"+str(i.file_size) for i in z.infolist()))', path],
    { maxBuffer: 1 << 28 },
  ).toString();
}

function yauzlNames(path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const names: string[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        names.push(e.fileName);
        zip.openReadStream(e, (err2, s) => {
          if (err2) return reject(err2);
          s.on('data', () => undefined);
          s.on('end', () => zip.readEntry());
          s.on('error', reject);
        });
      });
      zip.on('end', () => resolve(names));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

function streamed(path: string, bytes: Buffer, sizeBound = bytes.length): StreamedPayload {
  return {
    path,
    sizeBound,
    write: async ({ handle, position }) => {
      if (bytes.length > 0) await handle.write(bytes, 0, bytes.length, position);
      return { size: bytes.length, crc32: crc32(bytes), sha256: createHash('sha256').update(bytes).digest('hex') };
    },
  };
}

describe('writeArchive with streamed entries', () => {
  const cases: [string, { forceZip64?: boolean; level: number }, (n: number) => number][] = [
    ['plain', { level: 6 }, (n) => n],
    ['forced ZIP64', { level: 6, forceZip64: true }, (n) => n],
    ['sizeBound >= 4 GiB', { level: 6 }, () => 2 ** 32],
    ['level 0 + forced ZIP64 + huge bound', { level: 0, forceZip64: true }, () => 2 ** 33],
  ];
  for (const [label, opts, bound] of cases) {
    it(`${label}: python testzip, yauzl read every entry`, async () => {
      const out = join(tempDir(), 'a.octx');
      const a = randomBytes(5000);
      const e = Buffer.alloc(0);
      const written = await writeArchive(out, () => Buffer.from('{"m":1}'), [{ path: 'knowledge/x.md', source: { bytes: Buffer.from('hello '.repeat(100)) }, size: 600 }], {
        ...opts,
        streamed: [streamed('vectors/chunks.arrow', a, bound(a.length)), streamed('vectors/empty.arrow', e, bound(0))],
      });
      expect(written.map((w) => w.name)).toEqual(['manifest.json', 'knowledge/x.md', 'vectors/chunks.arrow', 'vectors/empty.arrow']);
      const p = py(out);
      expect(p.split('\n')[0]).toBe('None');
      expect(p).toContain('vectors/chunks.arrow:5000');
      expect(p).toContain('vectors/empty.arrow:0');
      expect((await yauzlNames(out)).sort()).toEqual(['knowledge/x.md', 'manifest.json', 'vectors/chunks.arrow', 'vectors/empty.arrow']);
    });
  }

  it('only streamed payloads (no other payload)', async () => {
    const out = join(tempDir(), 'o.octx');
    await writeArchive(out, () => Buffer.from('{}'), [], { level: 6, streamed: [streamed('vectors/a.arrow', randomBytes(3000)), streamed('vectors/b.arrow', randomBytes(10))] });
    expect(py(out).split('\n')[0]).toBe('None');
  });

  it('streamed entry larger than the 1 MiB buffer, next to spilled ones, with a non-ASCII name', async () => {
    const out = join(tempDir(), 'l.octx');
    const big = randomBytes(3 * 1024 * 1024 + 7);
    await writeArchive(out, () => Buffer.from('{}'), [{ path: 'knowledge/é.md', source: { bytes: randomBytes(2 * 1024 * 1024) }, size: 2 * 1024 * 1024 }], {
      level: 6,
      streamed: [streamed('vectors/é.arrow', big)],
    });
    expect(py(out).split('\n')[0]).toBe('None');
  });

  it('a streamed writer that throws: its error, the archive closed (caller removes it)', async () => {
    const dir = tempDir();
    const out = join(dir, 't.octx');
    const boom = new Error('boom');
    const before = readdirSync('/proc/self/fd').length;
    await expect(
      writeArchive(out, () => Buffer.from('{}'), [], { level: 6, streamed: [{ path: 'vectors/a.arrow', sizeBound: 10, write: async () => Promise.reject(boom) }] }),
    ).rejects.toBe(boom);
    expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(before);
  });

  it('a manifest callback that throws: its error, no fd', async () => {
    const dir = tempDir();
    const out = join(dir, 't.octx');
    const boom = new Error('refused');
    const before = readdirSync('/proc/self/fd').length;
    await expect(
      writeArchive(
        out,
        () => {
          throw boom;
        },
        [],
        { level: 6, streamed: [streamed('vectors/a.arrow', randomBytes(10))] },
      ),
    ).rejects.toBe(boom);
    expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(before);
  });

  it('more than 65,535 entries with a streamed one (ZIP64 end records)', async () => {
    const out = join(tempDir(), 'm.octx');
    const payloads = Array.from({ length: 65_540 }, (_, i) => ({
      path: `knowledge/${String(i).padStart(6, '0')}.md`,
      source: { bytes: Buffer.from(`d${i}`) },
      size: `d${i}`.length,
    }));
    await writeArchive(out, () => Buffer.from('{}'), payloads, { level: 0, streamed: [streamed('vectors/a.arrow', randomBytes(100))] });
    const p = py(out);
    expect(p.split('\n')[0]).toBe('None');
    expect(p.split('\n')[1]!.split(',').length).toBe(65_542);
    expect((await yauzlNames(out)).length).toBe(65_542);
  }, 120_000);
});
