/**
 * How the CLI reports errors (reviewer findings on issue 15): an aggregate error prints its own
 * headline and code before its issues; a hint follows the real cause, not a wrapper code.
 * Runs the CLI in-process (`main` with captured streams).
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/cli.js';
import { ROOT, tempDir } from '../helpers/temp.js';

const FIXTURE = join(ROOT, 'fixtures/kb-three-kingdoms');
const ASSET = '019c0000-0000-7000-8000-0000000000a1';

/** Runs `main` with captured stdout and stderr. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: { write: (c: string | Uint8Array) => (out.push(String(c)), true) },
    stderr: { write: (c: string | Uint8Array) => (err.push(String(c)), true) },
  } as never;
  const code = await main(args, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('aggregate errors', () => {
  it('print their headline and code before their issues (build --require-structure, unlinked note)', async () => {
    const dir = tempDir();
    const wd = join(dir, 'wd');
    cpSync(FIXTURE, wd, { recursive: true });
    mkdirSync(join(wd, 'knowledge/notes'));
    writeFileSync(join(wd, 'knowledge/notes/unlinked.md'), '---\ntype: "Note"\n---\n# Unlinked\n\nNo chunk points here.\n');
    const r = await cli(['build', wd, '-o', join(dir, 'x.octx'), '--name', 'X', '--asset-id', ASSET, '--require-structure']);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toMatch(/^error\[OCTX_STRUCTURE_INCOMPLETE\]: /);
    expect(r.stderr).toMatch(/\nerror\[OCTX_SAG_DOCUMENT_WITHOUT_CHUNK\]: /);
    expect(r.stderr.indexOf('OCTX_STRUCTURE_INCOMPLETE')).toBeLessThan(r.stderr.indexOf('OCTX_SAG_DOCUMENT_WITHOUT_CHUNK'));
    expect(r.stderr).toMatch(/\nhint: every document needs a chunk/);
    const json = await cli(['build', wd, '-o', join(dir, 'y.octx'), '--name', 'X', '--asset-id', ASSET, '--require-structure', '--json']);
    const doc = JSON.parse(json.stdout) as { error: { code: string } };
    expect(doc.error.code).toBe('OCTX_STRUCTURE_INCOMPLETE');
  });

  it('a fail-fast error is printed once, without a repeated headline', async () => {
    const r = await cli(['validate', join(tempDir(), 'missing.octx')]);
    expect(r.code).toBe(2);
    expect(r.stderr.match(/^error\[/gm)).toHaveLength(1);
  });

  it('derive of a source above the limits hints at the limits, not at --documents-only', async () => {
    const dir = tempDir();
    const src = join(dir, 'src.octx');
    expect((await cli(['build', FIXTURE, '-o', src, '--name', 'Src', '--asset-id', ASSET])).code).toBe(0);
    mkdirSync(join(dir, 'empty'));
    for (const extra of [[], ['--documents-only']]) {
      const r = await cli(['derive', src, join(dir, 'empty'), '-o', join(dir, 'd.octx'), '--name', 'D', '--asset-id', '019c0000-0000-7000-8000-0000000000a2', '--max-entries', '5', ...extra]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^error\[OCTX_DERIVATION_REQUIRED\]: the source .* is above the resource limits/);
      expect(r.stderr).toMatch(/\nerror\[OCTX_RESOURCE_LIMIT\]: /);
      expect(r.stderr).toMatch(/--documents-only fails the same/);
      expect(r.stderr).toMatch(/\nhint: consumers with default limits would refuse this package/);
      expect(r.stderr).not.toMatch(/hint: the source package is invalid/);
      expect(r.stderr).not.toMatch(/documentsOnly|derive options/);
    }
  });
});
