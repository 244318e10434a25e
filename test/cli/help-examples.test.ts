/**
 * Every example printed by `octx-export <command> --help` runs as printed, on the shipped
 * fixtures: the examples of every command are extracted from the generated help, and run in
 * order (build first, so later examples find its output) in a temporary folder holding a copy of
 * `fixtures/`.
 */
import { execFile } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandHelp } from '../../src/cli/args.js';
import { COMMANDS } from '../../src/cli/cli.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { CLI, type CliResult } from './run-cli.js';
import { helpExamples, shellWords } from '../helpers/help-examples.js';

function run(cwd: string, args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', join(ROOT, 'node_modules/tsx/dist/loader.mjs'), CLI, ...args],
      { cwd, env: { ...process.env, NO_COLOR: '1' }, timeout: 55_000, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    ).stdin?.end();
  });
}

describe('--help examples', () => {
  it('splits example lines like a shell', () => {
    expect(shellWords('octx-export build a -o "out/x y.octx" --name "A \\"B\\""')).toEqual(['octx-export', 'build', 'a', '-o', 'out/x y.octx', '--name', 'A "B"']);
    expect(helpExamples('Usage: x\n\nExamples:\n  octx-export a b\n  octx-export c\n')).toEqual(['octx-export a b', 'octx-export c']);
  });

  it('every example of every command runs as printed on the shipped fixtures', { timeout: 300_000 }, async () => {
    const cwd = tempDir('octx-examples-');
    cpSync(join(ROOT, 'fixtures'), join(cwd, 'fixtures'), { recursive: true });
    let ran = 0;
    for (const command of COMMANDS) {
      const examples = helpExamples(commandHelp(command));
      expect(examples.length, `${command.name} has examples`).toBeGreaterThan(0);
      for (const example of examples) {
        const [program, ...args] = shellWords(example);
        expect(program).toBe('octx-export');
        expect(args[0]).toBe(command.name);
        const r = await run(cwd, args);
        ran++;
        expect({ example, code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ example, code: 0, stderr: '' });
      }
    }
    expect(ran).toBeGreaterThanOrEqual(COMMANDS.length);
  });
});
