import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/temp.js';
import { jsonOf, runCli, spawnCli } from './run-cli.js';

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const COMMANDS = ['examples', 'build', 'validate', 'inspect', 'derive', 'merge', 'diff', 'report', 'from-rag', 'from-ingest', 'from-sag', 'from-graphrag'];

describe('octx-export: help, version and usage errors (real CLI)', () => {
  it('--help lists every command on stdout and exits 0; no arguments prints it on stderr and exits 2', async () => {
    // Processes: the exit code here is the executable's (main.ts sets it from the command's).
    const [help, none] = await Promise.all([spawnCli(['--help']), spawnCli([])]);
    expect(help.code).toBe(0);
    for (const c of COMMANDS) expect(help.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
    expect(help.stdout).toContain('Exit codes: 0 ok, 1 invalid package or failed export, 2 usage or I/O error.');
    expect(help.stderr).toBe('');
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe(help.stdout);
  });

  it('--version prints the package version', async () => {
    const r = await runCli(['--version']);
    expect(r).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('every command has generated --help with its usage line, options and examples', async () => {
    const [build, sag] = await Promise.all([runCli(['build', '--help']), runCli(['from-sag', '-h'])]);
    expect(build.code).toBe(0);
    // -o defaults to <folder>.octx and --name to the docs generator's site name, so neither is in the usage line.
    expect(build.stdout).toContain('Usage: octx-export build <workdir> [options]\n');
    expect(sag.code).toBe(0);
    expect(sag.stdout).toContain('--id-mode <ledger|sag-compatible>');
    // The same generator for every command (checked in-process: spawning each costs seconds).
    const { COMMANDS: all } = await import('../../src/cli/cli.js');
    const { commandHelp } = await import('../../src/cli/args.js');
    expect(all.map((c) => c.name)).toEqual(COMMANDS);
    for (const c of all) {
      const text = commandHelp(c);
      expect(text).toMatch(new RegExp(`^Usage: octx-export ${c.name} `));
      for (const name of [...Object.keys(c.options), 'json', 'debug', 'help']) expect(text).toContain(`--${name}`);
      expect(text).toContain('Examples:');
    }
    expect(commandHelp(all.find((c) => c.name === 'build')!)).toBe(build.stdout);
  });

  it('usage errors print the code, the place and one hint line, exit 2, and never a stack trace', async () => {
    // A folder with no generator config and no --name: refused before the default -o is written.
    const missingCwd = tempDir('octx-basics-');
    const [unknownCommand, missing, unknownOption, badFlag] = await Promise.all([
      runCli(['bild']),
      runCli(['build', join(ROOT, 'fixtures/kb-three-kingdoms')], { cwd: missingCwd }),
      runCli(['validate', 'x.octx', '--frobnicate']),
      runCli(['from-sag', 'x.db', '--source', 's', '-o', 'x.octx', '--name', 'X', '--id-mode', 'random']),
    ]);
    for (const r of [unknownCommand, missing, unknownOption, badFlag]) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^error\[OCTX_USAGE_ERROR\]: /);
      expect(lines.at(-1)).toMatch(/^hint: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(unknownCommand.stderr).toContain('unknown command "bild"');
    expect(missing.stderr).toContain(
      'error[OCTX_USAGE_ERROR]: build: --name <asset name> is required: no docs generator config (VitePress, Docusaurus, Starlight, mdBook, Hugo, MkDocs) was found in',
    );
    expect(missing.stderr).toContain('\n  field name\n');
    expect(readdirSync(missingCwd)).toEqual([]);
    expect(unknownOption.stderr).toContain("Unknown option '--frobnicate'");
    expect(badFlag.stderr).toContain('--id-mode must be ledger or sag-compatible');
  });

  it('with --json an error is exactly one JSON document on stdout', async () => {
    const r = await runCli(['inspect', 'does/not/exist.octx', '--json']);
    expect(r.code).toBe(2);
    const doc = jsonOf(r);
    expect(doc).toMatchObject({ ok: false, command: 'inspect', error: { code: 'OCTX_OPEN_ERROR' } });
    expect((doc.error as { hint: string }).hint).toMatch(/existing \.octx file/);
    expect(r.stderr).toMatch(/^error\[OCTX_OPEN_ERROR\]: .*\n {2}--> does\/not\/exist\.octx\n/);
  });
});
