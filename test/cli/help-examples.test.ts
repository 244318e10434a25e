/**
 * Every example printed by `octx-export <command> --help` runs as printed, in an empty folder: the
 * examples of every command are extracted from the generated help, and run in order (`examples`
 * first, which copies the example inputs shipped with the package into ./fixtures; then build, so
 * later examples find its output). test/package/packed-tarball.slow.test.ts runs them again from the
 * installed tarball. The inputs they use are exactly those `examples` copies and package.json ships.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandHelp } from '../../src/cli/args.js';
import { COMMANDS, main } from '../../src/cli/cli.js';
import { EXAMPLE_INPUTS } from '../../src/cli/commands/examples.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { sharedResource } from '../helpers/shared-resources.js';
import { helpExamples, shellWords } from '../helpers/help-examples.js';

/**
 * Runs the command lines in `cwd`, one after another in one CLI process (test/helpers/cli-batch.mjs:
 * Node's start and the CLI's module loading once, not once per example; the examples run again
 * each in a process of its own from the installed tarball, in packed-tarball.slow.test.ts).
 */
async function runAll(cwd: string, lines: readonly (readonly string[])[]): Promise<{ code: number; stderr: string }[]> {
  const { root } = await sharedResource('compiled-sources');
  const batch = join(ROOT, 'test/helpers/cli-batch.mjs');
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--enable-source-maps', batch, join(root, 'src/cli/cli.js')],
      { cwd, env: { ...process.env, NO_COLOR: '1' }, timeout: 280_000, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as { code: number; stderr: string }[])),
    );
    child.stdin!.end(JSON.stringify(lines));
  });
}

describe('--help examples', () => {
  it('splits example lines like a shell', () => {
    expect(shellWords('octx-export build a -o "out/x y.octx" --name "A \\"B\\""')).toEqual(['octx-export', 'build', 'a', '-o', 'out/x y.octx', '--name', 'A "B"']);
    expect(helpExamples('Usage: x\n\nExamples:\n  octx-export a b\n  octx-export c\n')).toEqual(['octx-export a b', 'octx-export c']);
  });

  it('every fixtures/ path of an example is an example input, and package.json ships exactly those', () => {
    const used = COMMANDS.flatMap((c) => helpExamples(commandHelp(c)).flatMap((e) => shellWords(e).filter((w) => w.startsWith('fixtures/'))));
    expect(used.length).toBeGreaterThan(5);
    expect(used.filter((p) => !EXAMPLE_INPUTS.some((i) => p === `fixtures/${i}` || p.startsWith(`fixtures/${i}/`)))).toEqual([]);
    const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    expect(files.filter((f) => f.startsWith('fixtures/')).sort()).toEqual(EXAMPLE_INPUTS.map((i) => `fixtures/${i}`).sort());
  });

  it('`examples <dir>` copies the inputs into <dir>/fixtures, refuses to copy over them, and replaces them with --overwrite', async () => {
    const dir = tempDir('octx-examples-cmd-');
    const err: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (c: string) => (err.push(c), true) } } as never;
    expect(await main(['examples', dir], io)).toBe(0);
    for (const i of EXAMPLE_INPUTS) expect(existsSync(join(dir, 'fixtures', i)), i).toBe(true);
    expect(existsSync(join(dir, 'fixtures/sag/engine-0.8/sag.db'))).toBe(true);
    expect(await main(['examples', dir], io)).toBe(2);
    expect(err.join('')).toMatch(/^error\[OCTX_OUTPUT_EXISTS\]: .*fixtures\/kb-three-kingdoms already exists\n/);
    expect(err.join('')).toContain('--overwrite');
    expect(await main(['examples', dir, '--overwrite'], io)).toBe(0);
  });

  it('every example of every command runs as printed, from an empty folder (examples first)', { timeout: 300_000 }, async () => {
    const cwd = tempDir('octx-examples-');
    expect(COMMANDS[0]!.name).toBe('examples');
    const examples: string[] = [];
    for (const command of COMMANDS) {
      const printed = helpExamples(commandHelp(command));
      expect(printed.length, `${command.name} has examples`).toBeGreaterThan(0);
      for (const example of printed) {
        const [program, ...args] = shellWords(example);
        expect(program).toBe('octx-export');
        expect(args[0]).toBe(command.name);
        examples.push(example);
      }
    }
    const results = await runAll(
      cwd,
      examples.map((e) => shellWords(e).slice(1)),
    );
    // One result per example until the first that fails (the batch stops there).
    examples.forEach((example, i) => {
      const r = results[i] ?? { code: 'not run', stderr: '' };
      expect({ example, code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ example, code: 0, stderr: '' });
    });
    const ran = results.length;
    expect(ran).toBeGreaterThanOrEqual(COMMANDS.length);
  });
});
