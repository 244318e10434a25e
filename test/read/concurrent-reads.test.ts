import { existsSync, openSync, readdirSync } from 'node:fs';
import { PassThrough, type Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { OctxError } from '../../src/model/errors.js';
import { openPackage } from '../../src/read/index.js';
import { sourceOf } from '../../src/read/open-package.js';
import { collect, connect } from '../../src/read/source.js';
import { FdReader } from '../../src/read/zip-fd-reader.js';
import { GUIDE_MD, entriesOf, writeDir, writeZip } from './helpers.js';
import { xorshiftBytes } from '../helpers/bytes.js';

const SIZES = [0, 1, 700, 64 * 1024, 1024 * 1024 - 1, 1024 * 1024 + 1, 3 * 1024 * 1024, 2 * 1024 * 1024 + 17, 5000, 12, 300_000, 2_500_000];
const FILES: Record<string, Buffer> = Object.fromEntries([
  ['knowledge/guide.md', Buffer.from(GUIDE_MD)],
  ...SIZES.map((n, i) => [`extensions/x/f${String(i).padStart(2, '0')}.bin`, xorshiftBytes(n, i + 1, { textLike: true })] as const),
]);

const fdDir = '/proc/self/fd';
const openFds = (): number => readdirSync(fdDir).length;

async function settleFds(expected: number): Promise<number> {
  for (let i = 0; i < 100 && openFds() > expected; i++) await sleep(10);
  return openFds();
}

describe('concurrent reads of one package', () => {
  for (const [kind, make] of [
    ['ZIP (deflated)', () => writeZip(entriesOf({ files: FILES }))],
    ['ZIP (stored)', () => writeZip(entriesOf({ files: FILES }), { store: true })],
    ['directory', () => writeDir(entriesOf({ files: FILES }))],
  ] as const) {
    it(`${kind}: every entry read at once gets exactly its own bytes`, async () => {
      const pkg = await openPackage(await make());
      try {
        const names = Object.keys(FILES);
        const got = await Promise.all(names.map((n) => collect(pkg.openFile(n))));
        names.forEach((n, i) => expect(got[i]!.equals(FILES[n]!), n).toBe(true));
        // The raw container streams too (what validatePackage reads), twice over.
        const raw = await Promise.all([...names, ...names].map((n) => sourceOf(pkg).readAll(n)));
        raw.forEach((b, i) => expect(b.equals(FILES[names[i % names.length]!]!)).toBe(true));
      } finally {
        await pkg.close();
      }
    });
  }

  it.skipIf(!existsSync(fdDir))('ZIP: streams destroyed mid-read leave the others intact, and the descriptor closes once every read has returned', async () => {
    const path = await writeZip(entriesOf({ files: FILES }), { store: true });
    const before = openFds();
    const pkg = await openPackage(path);
    const names = Object.keys(FILES);
    const results = await Promise.all(
      names.map(async (n, i) => {
        const stream = pkg.openFile(n);
        if (i % 2 === 1) {
          // Stop after the first chunk, with the next positional read probably in flight.
          for await (const _ of stream) break;
          return undefined;
        }
        return collect(stream);
      }),
    );
    results.forEach((b, i) => {
      if (i % 2 === 0) expect(b!.equals(FILES[names[i]!]!)).toBe(true);
    });
    // A large entry left half read when the package is closed keeps working until it ends.
    const late = pkg.openFile(names[7]!);
    const first = await new Promise<Buffer>((resolve) => late.once('data', resolve));
    late.pause();
    await pkg.close();
    expect(() => pkg.openFile(names[0]!)).not.toThrow();
    await expect(collect(pkg.openFile(names[0]!))).rejects.toMatchObject({ code: 'OCTX_OPEN_ERROR' });
    late.resume();
    const rest = await collect(late);
    expect(Buffer.concat([first, rest]).equals(FILES[names[7]!]!)).toBe(true);
    expect(await settleFds(before)).toBe(before);
  });

  it.skipIf(!existsSync(fdDir))('ZIP: closing with every stream destroyed early releases the descriptor', async () => {
    const path = await writeZip(entriesOf({ files: FILES }));
    const before = openFds();
    const pkg = await openPackage(path);
    const streams = Object.keys(FILES).map((n) => pkg.openFile(n));
    await sleep(5);
    for (const s of streams) s.destroy();
    await pkg.close();
    expect(await settleFds(before)).toBe(before);
  });
});

describe('connect (pipe without pipeline)', () => {
  const pass = (): Transform => new PassThrough();
  const mapped = (e: unknown): OctxError => OctxError.of({ code: 'OCTX_ARCHIVE_CORRUPT', message: `mapped: ${(e as Error).message}` });

  it('passes the data through and ends the destination', async () => {
    const src = new PassThrough();
    const dest = pass();
    connect(src, dest, mapped);
    src.end(Buffer.from('abc'));
    expect((await collect(dest)).toString()).toBe('abc');
  });

  it('destroys the destination with the mapped error of the source', async () => {
    const src = new PassThrough();
    const dest = pass();
    connect(src, dest, mapped);
    src.write('x');
    src.destroy(new Error('boom'));
    await expect(collect(dest)).rejects.toMatchObject({ code: 'OCTX_ARCHIVE_CORRUPT', message: expect.stringContaining('mapped: boom') });
  });

  it('fails the destination when the source closes before its end', async () => {
    const src = new PassThrough();
    const dest = pass();
    connect(src, dest, mapped);
    src.write('x');
    src.destroy();
    await expect(collect(dest)).rejects.toMatchObject({ code: 'OCTX_ARCHIVE_CORRUPT', message: expect.stringContaining('closed before its end') });
  });

  it('destroys the source when the destination is destroyed, and an unobserved error does not crash', async () => {
    const src = new PassThrough();
    const dest = pass();
    connect(src, dest, mapped);
    dest.destroy(new Error('nobody listens'));
    await sleep(5);
    expect(src.destroyed).toBe(true);
  });
});

describe('FdReader (the ZIP reader over one descriptor)', () => {
  it('closes the descriptor only after the reads in flight have returned, and refuses later reads', async () => {
    const path = await writeZip(entriesOf({ files: FILES }), { store: true });
    const fd = openSync(path, 'r');
    const reader = new FdReader(fd);
    const events: string[] = [];
    const reads = [0, 1, 2].map(
      (i) =>
        new Promise<void>((resolve) =>
          reader.pread(Buffer.alloc(1024 * 1024), 0, 1024 * 1024, i * 1024, (err, n) => {
            events.push(`read ${i} ${err ? err.message : n}`);
            resolve();
          }),
        ),
    );
    const closed = new Promise<void>((resolve, reject) =>
      reader.close((err) => {
        events.push('closed');
        if (err) reject(err);
        else resolve();
      }),
    );
    const refused = new Promise<Error | null>((resolve) => reader.pread(Buffer.alloc(1), 0, 1, 0, (err) => resolve(err)));
    await Promise.all([...reads, closed]);
    expect(events.slice(0, 3).sort()).toEqual(['read 0 1048576', 'read 1 1048576', 'read 2 1048576']);
    expect(events[3]).toBe('closed');
    expect((await refused)?.message).toMatch(/closed/);
  });
});
