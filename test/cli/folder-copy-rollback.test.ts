/**
 * `copyFoldersAllOrNothing` takes back the renames it made when a later one fails: the file system
 * is made to refuse the second name's rename into place (nothing else makes a rename fail
 * reliably, as root included), and the target must then read exactly as before.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { copyFoldersAllOrNothing } from '../../src/cli/folder-copy.js';
import { OctxError } from '../../src/model/errors.js';
import { tempDir } from '../helpers/temp.js';

const refused = vi.hoisted(() => ({ target: '' }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof fsp>();
  return {
    ...actual,
    rename: async (from: string, to: string) => {
      if (to === refused.target) throw Object.assign(new Error(`EIO: i/o error, rename '${from}' -> '${to}'`), { code: 'EIO' });
      return actual.rename(from, to);
    },
  };
});

function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

describe('copyFoldersAllOrNothing: a rename refused while publishing', () => {
  it('puts back the names already replaced and removes the staging folder', async () => {
    const from = tempDir('octx-copy-src-');
    for (const name of ['a', 'b']) {
      mkdirSync(join(from, name));
      writeFileSync(join(from, name, 'f.txt'), `new ${name}`);
    }
    const into = tempDir('octx-copy-dst-');
    mkdirSync(join(into, 'a'));
    writeFileSync(join(into, 'a/f.txt'), 'old a');
    writeFileSync(join(into, 'a/only-old.txt'), 'old only');
    writeFileSync(join(into, 'mine.txt'), 'mine');
    refused.target = join(into, 'b');
    let error: unknown;
    try {
      await copyFoldersAllOrNothing({ from, names: ['a', 'b'], into, overwrite: true, overwriteOption: 'overwrite' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OctxError);
    expect((error as OctxError).code).toBe('OCTX_IO_ERROR');
    expect((error as OctxError).issues[0]!.path).toBe(join(into, 'b'));
    expect(tree(into)).toEqual(['a', join('a', 'f.txt'), join('a', 'only-old.txt'), 'mine.txt']);
    expect(readFileSync(join(into, 'a/f.txt'), 'utf8')).toBe('old a');

    refused.target = '';
    await copyFoldersAllOrNothing({ from, names: ['a', 'b'], into, overwrite: true, overwriteOption: 'overwrite' });
    expect(tree(into)).toEqual(['a', join('a', 'f.txt'), 'b', join('b', 'f.txt'), 'mine.txt']);
    expect(readFileSync(join(into, 'b/f.txt'), 'utf8')).toBe('new b');
  });
});
