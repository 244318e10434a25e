/**
 * `octx-export report`: where the page goes (beside the package by default, `-o`, `-o -`), the
 * summary and its `--json` form, and the usage and output errors with their exit codes.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultReportPath } from '../../src/cli/commands/report.js';
import { main } from '../../src/cli/cli.js';
import { ensureReportPage } from '../helpers/report-page.js';
import { tempDir } from '../helpers/temp.js';
import { demoPackage } from '../report/report-fixtures.js';
import { jsonOf, runCli } from './run-cli.js';

/** Runs the CLI in this process. */
async function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (c: string) => (out.push(c), true) }, stderr: { write: (c: string) => (err.push(c), true) } } as never;
  const code = await main(args, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

beforeAll(() => ensureReportPage(), 60_000);

describe('octx-export report', () => {
  it('writes <package>.report.html beside the package and prints a summary (a child process, as users run it)', async () => {
    const dir = tempDir();
    const pkg = await demoPackage(dir);
    const r = await runCli(['report', pkg]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = join(dir, 'three-kingdoms.report.html');
    expect(r.stdout.split('\n').slice(0, 4)).toEqual([
      `wrote ${out} (${(readFileSync(out).length / 1024).toFixed(1)} KiB)`,
      `  package       ${pkg}: valid`,
      '  documents     9',
      '  graph         41 of 41 nodes, 72 of 72 links',
    ]);
    expect(readFileSync(out, 'utf8')).toMatch(/^<!DOCTYPE html>\n/);
  });

  it('--json prints the summary as one document; -o - writes the page itself to stdout, the same bytes as the file', async () => {
    const dir = tempDir();
    const pkg = await demoPackage(dir);
    const out = join(dir, 'r.html');
    const json = await run(['report', pkg, '-o', out, '--max-nodes', '10', '--json']);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(doc).toEqual({
      ok: true,
      command: 'report',
      path: pkg,
      output: out,
      bytes: readFileSync(out).length,
      valid: true,
      documents: { shown: 9, total: 9 },
      graph: { nodes: 10, totalNodes: 41, edges: expect.any(Number), totalEdges: 72 },
    });
    const piped = await run(['report', pkg, '-o', '-', '--max-nodes', '10']);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe(readFileSync(out, 'utf8'));
  });

  it('an existing output is refused (exit 2, OCTX_OUTPUT_EXISTS) unless --overwrite; a missing -o folder needs --mkdir', async () => {
    const dir = tempDir();
    const pkg = await demoPackage(dir);
    const out = join(dir, 'r.html');
    writeFileSync(out, 'mine');
    const refused = await run(['report', pkg, '-o', out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error\[OCTX_OUTPUT_EXISTS\]/);
    expect(readFileSync(out, 'utf8')).toBe('mine');
    expect((await run(['report', pkg, '-o', out, '--overwrite'])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^<!DOCTYPE html>/);
    const nested = join(dir, 'a/b/r.html');
    const noFolder = await run(['report', pkg, '-o', nested]);
    expect(noFolder.code).toBe(2);
    expect(noFolder.stderr).toMatch(/^error\[OCTX_OUTPUT_INVALID\]/);
    expect((await run(['report', pkg, '-o', nested, '--mkdir'])).code).toBe(0);
    expect(existsSync(nested)).toBe(true);
  });

  it('usage errors exit 2: a bad budget, an unknown consumer, --open with -o -, a missing package', async () => {
    const dir = tempDir();
    const pkg = await demoPackage(dir);
    const cases: [string[], string, RegExp][] = [
      [['report', pkg, '--max-nodes', 'many'], 'OCTX_USAGE_ERROR', /--max-nodes must be a whole number/],
      [['report', pkg, '--max-documents', '-1'], 'OCTX_USAGE_ERROR', /--max-documents/],
      [['report', pkg, '--consumer', 'sag-9'], 'OCTX_USAGE_ERROR', /--consumer must be one of seed, sag-1.7/],
      [['report', join(dir, 'none.octx')], 'OCTX_OPEN_ERROR', /does not exist/],
      [['report', pkg, '--previous', join(dir, 'none.octx')], 'OCTX_OPEN_ERROR', /does not exist/],
    ];
    for (const [args, code, message] of cases) {
      const r = await run([...args, '--json']);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      const doc = jsonOf(r) as { ok: boolean; error: { code: string; message: string } };
      expect(doc.ok).toBe(false);
      expect(doc.error.code).toBe(code);
      expect(doc.error.message).toMatch(message);
    }
    // -o - claims stdout, so this one is checked without --json.
    const open = await run(['report', pkg, '-o', '-', '--open']);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: --open needs a file/);
    expect(open.stdout).toBe('');
    expect(existsSync(join(dir, 'three-kingdoms.report.html'))).toBe(false);
  });

  it('the default output: the package path with .report.html', () => {
    expect(defaultReportPath('out/kb.octx')).toBe('out/kb.report.html');
    expect(defaultReportPath('out/kb/')).toBe('out/kb.report.html');
    expect(defaultReportPath('pkg.OCTX')).toBe('pkg.report.html');
    expect(defaultReportPath('notes.zip')).toBe('notes.zip.report.html');
  });
});
