/**
 * The reader checks every entry's local header against the central directory when it opens an
 * archive. The headers are read in runs of nearby headers (one read per run of at most
 * RUN_BYTES, not one per entry); these tests pin that the runs change nothing a
 * caller can see: every entry of an archive whose headers fall into several runs opens and reads,
 * and of several bad headers the first in central-directory order is the one reported, wherever
 * the headers lie in the file.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveLimits } from '../../src/model/limits.js';
import { OctxError } from '../../src/model/errors.js';
import { RUN_BYTES } from '../../src/read/zip-fd-reader.js';
import { openZipSource } from '../../src/read/zip-source.js';
import { cleanupTempDirs, rawZip, writeBytes, type RawEntry } from './helpers.js';

afterAll(cleanupTempDirs);

async function openError(bytes: Buffer): Promise<OctxError> {
  const path = await writeBytes(bytes);
  const source = await openZipSource(path, resolveLimits({})).then(
    async (s) => {
      await s.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(source).toBeInstanceOf(OctxError);
  return source as OctxError;
}

describe('local headers read in runs', () => {
  it('opens and reads every entry when the headers fall into several runs', async () => {
    // Small entries close together (one run), entries larger than a run between them (a new run
    // each time), and a run that ends exactly where a large entry's data begins.
    const big = randomBytes(RUN_BYTES + 12_345);
    const bigger = randomBytes(2 * RUN_BYTES + 7);
    const entries: RawEntry[] = [
      ...Array.from({ length: 40 }, (_, i) => ({ name: `knowledge/a${i}.md`, data: `# a${i}\n` })),
      { name: 'vectors/one.arrow', data: big },
      ...Array.from({ length: 40 }, (_, i) => ({ name: `knowledge/b${i}.md`, data: `# b${i}\n`.repeat(i + 1), method: 8 })),
      { name: 'vectors/two.arrow', data: bigger },
      { name: 'knowledge/last.md', data: '# last\n' },
    ];
    const path = await writeBytes(rawZip(entries));
    const source = await openZipSource(path, resolveLimits({}));
    try {
      expect(source.names()).toEqual(entries.map((e) => e.name));
      for (const e of entries) {
        const expected = typeof e.data === 'string' ? Buffer.from(e.data) : e.data!;
        expect((await source.readAll(e.name as string)).equals(expected)).toBe(true);
      }
    } finally {
      await source.close();
    }
  });

  it('reports the first bad header in central-directory order, not in file order', async () => {
    // The central directory lists "knowledge/a.md" first, pointing at the header written second
    // (b's), and "knowledge/b.md" second, pointing at the first one (a's): both names differ.
    const plain = rawZip([
      { name: 'knowledge/a.md', data: '# a\n' },
      { name: 'knowledge/b.md', data: '# b\n' },
    ]);
    const secondHeader = 30 + 'knowledge/a.md'.length + 4;
    const swapped = rawZip([
      { name: 'knowledge/a.md', data: '# a\n', offset: secondHeader },
      { name: 'knowledge/b.md', data: '# b\n', offset: 0 },
    ]);
    expect(swapped.length).toBe(plain.length);
    const e = await openError(swapped);
    expect(e.code).toBe('OCTX_SECURITY_ERROR');
    expect(e.message).toContain('entry "knowledge/a.md": local header name "knowledge/b.md" differs from the central directory');
  });

  it('says an entry whose header lies past the end of the file points outside the archive', async () => {
    const e = await openError(
      rawZip([
        { name: 'knowledge/a.md', data: '# a\n' },
        { name: 'knowledge/b.md', data: '# b\n', offset: 0x7fff_0000 },
      ]),
    );
    expect(e.code).toBe('OCTX_ARCHIVE_INVALID');
    expect(e.message).toContain('entry "knowledge/b.md" points outside the archive');
  });

  it('still finds a header missing at its offset among good ones read in the same run', async () => {
    const e = await openError(
      rawZip([
        { name: 'knowledge/a.md', data: '# a\n' },
        { name: 'knowledge/b.md', data: '# b\n', offset: 5 },
        { name: 'knowledge/c.md', data: '# c\n' },
      ]),
    );
    expect(e.code).toBe('OCTX_ARCHIVE_INVALID');
    expect(e.message).toContain('entry "knowledge/b.md" has no local header at its offset');
  });
});
