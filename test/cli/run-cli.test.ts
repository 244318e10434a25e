/**
 * The in-process CLI runner (runCli) is what most CLI tests use instead of a process: it must give
 * what the process gives (spawnCli) — exit code, stdout and stderr to the byte — for the things a
 * process has that a call does not: a working folder, environment variables, pipes without a
 * TTY, an exit code. And it must leave this process as it found it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/temp.js';
import { runCli, spawnCli, type CliResult } from './run-cli.js';

const ASSET = '019c3900-0000-7000-8000-000000000039';

describe('runCli (in-process) gives what spawnCli (a process) gives', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'octx-run-cli-')); // shared by the tests: removed in afterAll
    // Relative paths, read from the run's working folder.
    const built = await runCli(['build', join(ROOT, 'fixtures/kb-three-kingdoms'), '-o', 'tk.octx', '--name', 'TK', '--asset-id', ASSET], { cwd: dir });
    expect(built.code).toBe(0);
    expect(built.stdout.startsWith(`wrote ${join(dir, 'tk.octx')} (`)).toBe(true);
    expect(readFileSync(join(dir, 'tk.octx')).subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Both ways, one after the other; the results must be equal. */
  async function both(args: string[], options: Parameters<typeof runCli>[1] = {}): Promise<CliResult> {
    const inProcess = await runCli(args, options);
    const child = await spawnCli(args, options);
    expect(inProcess).toEqual(child);
    return inProcess;
  }

  it('the version, a usage error (exit 2, stderr only), a missing package (exit 2)', async () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(await both(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const usage = await both(['validate', 'x.octx', '--frobnicate']);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe('');
    expect(usage.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]/);
    const missing = await both(['inspect', 'does/not/exist.octx', '--json']);
    expect(missing.code).toBe(2);
    expect((JSON.parse(missing.stdout) as { error: { code: string } }).error.code).toBe('OCTX_OPEN_ERROR');
  });

  it('a relative path from the working folder; the JSON report to the byte', async () => {
    const r = await both(['inspect', 'tk.octx', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { asset: { id: string } }).asset.id).toBe(ASSET);
  });

  it('an environment variable the CLI reads (OCTX_PROGRESS draws on a pipe); unset, nothing is drawn', async () => {
    const drawn = await runCli(['validate', 'tk.octx'], { cwd: dir, env: { OCTX_PROGRESS: '1' } });
    const child = await spawnCli(['validate', 'tk.octx'], { cwd: dir, env: { OCTX_PROGRESS: '1' } });
    // Rates and times differ between two runs: the steps drawn are the same.
    const CLEAR_LINE = '\r\u001b[2K';
    const steps = (r: CliResult): string[] => [...new Set(r.stderr.split(CLEAR_LINE).flatMap((l) => /^(validate [a-z]+) /.exec(l)?.[1] ?? []))];
    expect(steps(drawn)).toEqual(['validate documents', 'validate structure']);
    expect(steps(child)).toEqual(steps(drawn));
    expect([drawn.code, drawn.stdout]).toEqual([child.code, child.stdout]);
    expect(await both(['validate', 'tk.octx'], { cwd: dir })).toMatchObject({ code: 0, stderr: '' });
  });

  it('puts the working folder, the variables and the exit code back; runs started together run in order', async () => {
    const before = { cwd: process.cwd(), progress: process.env.OCTX_PROGRESS, color: process.env.NO_COLOR, exitCode: process.exitCode };
    const results = await Promise.all([
      runCli(['inspect', 'tk.octx', '--json'], { cwd: dir, env: { OCTX_PROGRESS: '0' } }),
      runCli(['inspect', 'tk.octx', '--json']),
      runCli(['--version'], { cwd: dir }),
    ]);
    expect(results.map((r) => r.code)).toEqual([0, 2, 0]);
    expect({ cwd: process.cwd(), progress: process.env.OCTX_PROGRESS, color: process.env.NO_COLOR, exitCode: process.exitCode }).toEqual(before);
  });

  it('refuses a variable Node reads only at start: that needs spawnCli', async () => {
    await expect(runCli(['--version'], { env: { NODE_OPTIONS: '--max-old-space-size=100' } })).rejects.toThrow(
      'runCli cannot set NODE_OPTIONS (read when Node starts): use spawnCli',
    );
  });
});
