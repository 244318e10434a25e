/**
 * The refusals of `-o -` (on a terminal, with `--json`) name what the command writes: the HTML
 * page for `report`, the package for the commands that export one.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/cli.js';
import { ROOT } from '../helpers/temp.js';

const PACKAGE = join(ROOT, 'fixtures/golden/B_sag_structured');
const FOLDER = join(ROOT, 'fixtures/kb-three-kingdoms');

async function run(args: string[], tty: boolean): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { isTTY: tty, write: (c: string) => (out.push(String(c)), true) }, stderr: { write: (c: string) => (err.push(c), true) } } as never;
  const code = await main(args, io);
  return { code, out: out.join(''), err: err.join('') };
}

describe('-o - refusals name what the command writes', () => {
  it('report: the HTML page, and a .html file to redirect to', async () => {
    const r = await run(['report', PACKAGE, '-o', '-'], true);
    expect(r).toEqual({
      code: 2,
      out: '',
      err: expect.stringMatching(
        /^error\[OCTX_USAGE_ERROR\]: -o - would write the HTML page, its scripts inlined, to the terminal; redirect stdout \(-o - > page\.html, or \| another command\)\n/,
      ),
    });
    expect(r.err).not.toContain('package to');
    const json = await run(['report', PACKAGE, '-o', '-', '--json'], false);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.out)).toMatchObject({
      ok: false,
      error: { code: 'OCTX_USAGE_ERROR', message: '-o - writes the HTML page to stdout, so --json cannot print there too; drop one of them' },
    });
  });

  it('build: the package, and a .octx file to redirect to', async () => {
    const r = await run(['build', FOLDER, '-o', '-', '--name', 'X'], true);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error\[OCTX_USAGE_ERROR\]: -o - would write the binary package to the terminal; redirect stdout \(-o - > file\.octx, or \| another command\)\n/);
    const json = await run(['build', FOLDER, '-o', '-', '--name', 'X', '--json'], false);
    expect(JSON.parse(json.out)).toMatchObject({ error: { message: '-o - writes the package to stdout, so --json cannot print there too; drop one of them' } });
  });
});
