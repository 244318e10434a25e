/**
 * `octx-export examples` copies all or nothing and never through a symbolic link; the copy itself
 * (`copyFoldersAllOrNothing`) leaves neither a target nor a staging folder when it fails midway.
 */
import { createServer, type Server } from 'node:net';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/cli.js';
import { EXAMPLE_INPUTS } from '../../src/cli/commands/examples.js';
import { copyFoldersAllOrNothing } from '../../src/cli/folder-copy.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { octxRejection } from '../helpers/octx-rejection.js';

function io(): { io: never; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: { write: (c: string) => (out.push(c), true) }, stderr: { write: (c: string) => (err.push(c), true) } } as never, out, err };
}

/** Every path under `dir`, relative, sorted (links not followed). */
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((p) => p.split('\\').join('/')).sort();
}

const failure = octxRejection;

describe('octx-export examples', () => {
  it('refuses a symbolic link as <dir>/fixtures and writes nothing where it points', async () => {
    const dir = tempDir('octx-examples-link-');
    const elsewhere = tempDir('octx-examples-elsewhere-');
    symlinkSync(elsewhere, join(dir, 'fixtures'));
    const r = io();
    expect(await main(['examples', dir], r.io)).toBe(2);
    expect(r.err.join('')).toMatch(/^error\[OCTX_OUTPUT_INVALID\]: .*\/fixtures is a symbolic link/);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(readdirSync(dir)).toEqual(['fixtures']);
  });

  it('refuses a link on the way to an input (fixtures/sag) before copying anything', async () => {
    const dir = tempDir('octx-examples-link-');
    const elsewhere = tempDir('octx-examples-elsewhere-');
    mkdirSync(join(dir, 'fixtures'));
    symlinkSync(elsewhere, join(dir, 'fixtures/sag'));
    const r = io();
    expect(await main(['examples', dir, '--overwrite'], r.io)).toBe(2);
    expect(r.err.join('')).toMatch(/^error\[OCTX_OUTPUT_INVALID\]: \S*\/fixtures\/sag is a symbolic link/);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(readdirSync(join(dir, 'fixtures'))).toEqual(['sag']);
  });

  it('with --overwrite, refuses an input that holds a link, and leaves it and its target as they were', async () => {
    const dir = tempDir('octx-examples-inner-');
    expect(await main(['examples', dir], io().io)).toBe(0);
    const outside = join(tempDir('octx-examples-elsewhere-'), 'secret.txt');
    writeFileSync(outside, 'keep me');
    const link = join(dir, 'fixtures/rag/planted.json');
    symlinkSync(outside, link);
    const before = tree(join(dir, 'fixtures'));
    const r = io();
    expect(await main(['examples', dir, '--overwrite'], r.io)).toBe(2);
    expect(r.err.join('')).toContain(`error[OCTX_OUTPUT_INVALID]: ${link} is a symbolic link`);
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
    expect(tree(join(dir, 'fixtures'))).toEqual(before);
  });

  it('a file where an input folder goes is refused before anything is copied (no half copy, no raw error)', async () => {
    const dir = tempDir('octx-examples-file-');
    mkdirSync(join(dir, 'fixtures'));
    writeFileSync(join(dir, 'fixtures/graphrag'), 'not a folder');
    const r = io();
    expect(await main(['examples', dir], r.io)).toBe(2);
    expect(r.err.join('')).toMatch(/^error\[OCTX_OUTPUT_INVALID\]: \S*\/fixtures\/graphrag exists and is not a folder\n/);
    expect(readdirSync(join(dir, 'fixtures'))).toEqual(['graphrag']);
    expect(readdirSync(dir)).toEqual(['fixtures']);
  });

  it('--overwrite replaces the inputs, keeps the rest of fixtures/ and leaves no staging folder; --json names them', async () => {
    const dir = tempDir('octx-examples-over-');
    expect(await main(['examples', dir], io().io)).toBe(0);
    writeFileSync(join(dir, 'fixtures/mine.txt'), 'mine');
    writeFileSync(join(dir, 'fixtures/rag/extra.json'), '{}');
    writeFileSync(join(dir, 'fixtures/rag/chunks.jsonl'), 'edited');
    const r = io();
    expect(await main(['examples', dir, '--overwrite', '--json'], r.io)).toBe(0);
    expect(JSON.parse(r.out.join(''))).toEqual({ ok: true, command: 'examples', fixtures: join(dir, 'fixtures'), inputs: [...EXAMPLE_INPUTS] });
    expect(readFileSync(join(dir, 'fixtures/mine.txt'), 'utf8')).toBe('mine');
    expect(existsSync(join(dir, 'fixtures/rag/extra.json'))).toBe(false);
    for (const input of EXAMPLE_INPUTS) expect(tree(join(dir, 'fixtures', input)), input).toEqual(tree(join(ROOT, 'fixtures', input)));
    expect(readFileSync(join(dir, 'fixtures/rag/chunks.jsonl'))).toEqual(readFileSync(join(ROOT, 'fixtures/rag/chunks.jsonl')));
    expect(readdirSync(join(dir, 'fixtures')).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(readdirSync(dir)).toEqual(['fixtures']);
  });
});

describe('copyFoldersAllOrNothing', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  /** A source of two folders: `a` (two files) and `b/c`, whose second entry is a socket, which cannot be copied. */
  async function source(): Promise<string> {
    const from = tempDir('octx-copy-src-');
    mkdirSync(join(from, 'a/deep'), { recursive: true });
    writeFileSync(join(from, 'a/one.txt'), 'one');
    writeFileSync(join(from, 'a/deep/two.txt'), 'two');
    mkdirSync(join(from, 'b/c'), { recursive: true });
    writeFileSync(join(from, 'b/c/1-first.txt'), 'first');
    server = createServer();
    await new Promise<void>((resolve) => server!.listen(join(from, 'b/c/2-socket'), resolve));
    return from;
  }

  it('copies into a missing folder (and its missing parents) with byte-equal files', async () => {
    const from = tempDir('octx-copy-src-');
    mkdirSync(join(from, 'x/y'), { recursive: true });
    writeFileSync(join(from, 'x/y/f.bin'), Buffer.from([0, 255, 10, 13]));
    const parent = tempDir('octx-copy-dst-');
    const into = join(parent, 'new/fixtures');
    await copyFoldersAllOrNothing({ from, names: ['x/y'], into, overwrite: false, overwriteOption: 'overwrite' });
    expect(tree(parent)).toEqual(['new', 'new/fixtures', 'new/fixtures/x', 'new/fixtures/x/y', 'new/fixtures/x/y/f.bin']);
    expect([...readFileSync(join(into, 'x/y/f.bin'))]).toEqual([0, 255, 10, 13]);
  });

  it('a failure midway through the copy into a missing target leaves no target, no created parent and no staging folder', async () => {
    const from = await source();
    const parent = tempDir('octx-copy-dst-');
    const e = await failure(copyFoldersAllOrNothing({ from, names: ['a', 'b'], into: join(parent, 'made/fixtures'), overwrite: false, overwriteOption: 'overwrite' }));
    expect(e.code).toBe('OCTX_IO_ERROR');
    expect(e.issues[0]!.path).toBe(join(from, 'b'));
    expect(e.message).toMatch(/socket/i);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('a failure midway through the copy over an existing target leaves the old content byte for byte and no staging folder', async () => {
    const from = await source();
    const into = tempDir('octx-copy-dst-');
    mkdirSync(join(into, 'a'));
    writeFileSync(join(into, 'a/one.txt'), 'old one');
    writeFileSync(join(into, 'other.txt'), 'other');
    const e = await failure(copyFoldersAllOrNothing({ from, names: ['a', 'b'], into, overwrite: true, overwriteOption: 'overwrite' }));
    expect(e.code).toBe('OCTX_IO_ERROR');
    expect(tree(into)).toEqual(['a', 'a/one.txt', 'other.txt']);
    expect(readFileSync(join(into, 'a/one.txt'), 'utf8')).toBe('old one');
  });

  it('refuses an existing name without overwrite, naming it and the option, before copying anything', async () => {
    const from = await source();
    const into = tempDir('octx-copy-dst-');
    mkdirSync(join(into, 'b'));
    const e = await failure(copyFoldersAllOrNothing({ from, names: ['a', 'b'], into, overwrite: false, overwriteOption: 'force' }));
    expect(e.code).toBe('OCTX_OUTPUT_EXISTS');
    expect(e.issues[0]).toMatchObject({ path: join(into, 'b'), field: 'force' });
    expect(tree(into)).toEqual(['b']);
  });
});
