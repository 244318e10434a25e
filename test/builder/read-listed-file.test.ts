/**
 * How the folder loader reads a listed file (`workdir/read-listed-file.ts`): small files with
 * synchronous calls, large ones with readFile — the same bytes either way, whatever happened to
 * the file since it was listed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYNC_READ_BYTES, readListedFile } from '../../src/builder/workdir/read-listed-file.js';
import { tempDir } from '../helpers/temp.js';

const text = '# Page\n\nA small page.\n';

/** A fresh folder (removed after each test) holding page.md. */
function folder(): { dir: string; page: string } {
  const dir = tempDir();
  writeFileSync(join(dir, 'page.md'), text);
  return { dir, page: join(dir, 'page.md') };
}

describe('readListedFile', () => {
  it('reads a small file whole, as listed, grown or shrunk since', async () => {
    const { dir, page } = folder();
    expect(Buffer.from(await readListedFile(page, text.length)).toString()).toBe(text);
    // Listed smaller or larger than it is now: what it holds now.
    expect(Buffer.from(await readListedFile(page, 3)).toString()).toBe(text);
    expect(Buffer.from(await readListedFile(page, 1000)).toString()).toBe(text);
    const grown = join(dir, 'grown.md');
    writeFileSync(grown, 'y'.repeat(10_000));
    expect(Buffer.from(await readListedFile(grown, 0))).toEqual(Buffer.alloc(10_000, 'y'));
    const empty = join(dir, 'empty.md');
    writeFileSync(empty, '');
    expect((await readListedFile(empty, 0)).length).toBe(0);
  });

  it('reads a large or unlisted file with readFile: the same bytes', async () => {
    const { dir, page } = folder();
    const large = join(dir, 'large.md');
    const bytes = Buffer.alloc(SYNC_READ_BYTES + 1, 'z');
    writeFileSync(large, bytes);
    expect(Buffer.from(await readListedFile(large, bytes.length))).toEqual(bytes);
    expect(Buffer.from(await readListedFile(page, undefined)).toString()).toBe(text);
  });

  it('rejects (never throws) with the system error for a file gone or become a folder', async () => {
    const { dir } = folder();
    const gone = readListedFile(join(dir, 'gone.md'), 10);
    await expect(gone).rejects.toMatchObject({ code: 'ENOENT' });
    const nowFolder = join(dir, 'now-a-folder.md');
    mkdirSync(nowFolder);
    // Not a regular file any more: left to readFile, which refuses a folder.
    await expect(readListedFile(nowFolder, 10)).rejects.toMatchObject({ code: 'EISDIR' });
  });
});
