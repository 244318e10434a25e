/**
 * CLI conventions (issue 15, item 6), each reproducing a problem of the issue: no suggestion for
 * `bulid`/`--versoin`; `-o -` wrote a file named `-`; `-o` created missing folders silently;
 * help without arguments went to stdout; `inspect` said it does not judge but exited 1 on a
 * tampered package; error formats and SDK wording differed between commands.
 * Runs the CLI in-process (`main` with captured streams) except where a real process matters.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/cli.js';
import { closest } from '../../src/cli/suggest.js';
import { editDistance } from '../../src/model/edit-distance.js';
import { inCliTerms } from '../../src/cli/cli-terms.js';
import { validatePackage } from '../../src/read/validate-package.js';
import { OctxError } from '../../src/model/errors.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import type * as VerifyArchive from '../../src/export/verify-archive.js';

type VerifyModule = typeof VerifyArchive;

const FIXTURE = join(ROOT, 'fixtures/kb-three-kingdoms');

const verify = vi.hoisted(() => ({ fail: false }));
vi.mock('../../src/export/verify-archive.js', async (importOriginal) => {
  const real = await importOriginal<VerifyModule>();
  return {
    ...real,
    verifyArchive: async (...args: Parameters<typeof real.verifyArchive>) => {
      if (verify.fail) throw new OctxError('OCTX_VALIDATION_ERROR', 'simulated verification failure');
      return real.verifyArchive(...args);
    },
  };
});

/** Runs `main` with captured stdout (bytes) and stderr (text). */
async function cli(args: string[]): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const out: Buffer[] = [];
  const err: string[] = [];
  const io = {
    stdout: { write: (c: string | Uint8Array) => (out.push(Buffer.from(c)), true) },
    stderr: { write: (c: string | Uint8Array) => (err.push(String(c)), true) },
  } as never;
  const code = await main(args, io);
  return { code, stdout: Buffer.concat(out), stderr: err.join('') };
}

describe('did you mean', () => {
  it('suggests the closest command and option', async () => {
    expect(editDistance('bulid', 'build')).toBe(1);
    expect(closest('xyz', ['build', 'validate'])).toBeUndefined();
    const [command, topOption, option] = await Promise.all([cli(['bulid', 'x']), cli(['--versoin']), cli(['build', FIXTURE, '-o', 'x.octx', '--name', 'X', '--versoin', '1.0.0'])]);
    for (const r of [command, topOption, option]) {
      expect(r.code).toBe(2);
      expect(r.stdout.length).toBe(0);
    }
    expect(command.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: unknown command "bulid"; did you mean "build"\?/);
    expect(topOption.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: unknown option "--versoin"; did you mean "--version"\?/);
    expect(option.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: build: Unknown option '--versoin'; did you mean "--version"\?/);
  });
});

describe('help', () => {
  it('no arguments: help on stderr, exit 2; --help: stdout, exit 0', async () => {
    const [none, help] = await Promise.all([cli([]), cli(['--help'])]);
    expect(none.code).toBe(2);
    expect(none.stdout.length).toBe(0);
    expect(none.stderr).toContain('Usage: octx-export <command>');
    expect(help.code).toBe(0);
    expect(help.stdout.toString()).toBe(none.stderr);
    expect(help.stderr).toBe('');
  });
});

describe('-o', () => {
  it('-o - streams the verified package to stdout, writes no file named "-", and prints the summary on stderr', async () => {
    const cwd = process.cwd();
    const r = await cli(['build', FIXTURE, '-o', '-', '--name', 'Streamed', '--created-at', '2026-07-12T10:00:00Z', '--asset-id', '019c0000-0000-7000-8000-000000000001']);
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, '-'))).toBe(false);
    expect(r.stdout.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    expect(r.stderr).toMatch(/^wrote the package to stdout \(/);
    const tmp = tempDir();
    writeFileSync(join(tmp, 'streamed.octx'), r.stdout);
    const report = await validatePackage(join(tmp, 'streamed.octx'));
    expect(report.valid).toBe(true);
    expect(r.stderr).toContain(report.packageDigest!);
  });

  it('-o - writes nothing to stdout when verification fails, and refuses --json', async () => {
    verify.fail = true;
    try {
      const r = await cli(['build', FIXTURE, '-o', '-', '--name', 'X']);
      expect(r.code).toBe(1);
      expect(r.stdout.length).toBe(0);
      expect(r.stderr).toMatch(/^error\[OCTX_VALIDATION_ERROR\]: simulated verification failure/);
    } finally {
      verify.fail = false;
    }
    const json = await cli(['build', FIXTURE, '-o', '-', '--name', 'X', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout.toString())).toMatchObject({ ok: false, error: { code: 'OCTX_USAGE_ERROR' } });
    // Never binary bytes on a terminal.
    const out: Buffer[] = [];
    const err: string[] = [];
    const io = { stdout: { isTTY: true, write: (c: Uint8Array) => (out.push(Buffer.from(c)), true) }, stderr: { write: (c: string) => (err.push(c), true) } } as never;
    expect(await main(['build', FIXTURE, '-o', '-', '--name', 'X'], io)).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('')).toMatch(/^error\[OCTX_USAGE_ERROR\]: -o - would write the binary package to the terminal/);
  });

  it('a missing parent folder is an error unless --mkdir', async () => {
    const tmp = tempDir();
    const out = join(tmp, 'a/b/kb.octx');
    const refused = await cli(['build', FIXTURE, '-o', out, '--name', 'X']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error\[OCTX_OUTPUT_INVALID\]: the folder .* of -o does not exist; create it, or add --mkdir\n/);
    expect(existsSync(join(tmp, 'a'))).toBe(false);
    const made = await cli(['build', FIXTURE, '-o', out, '--name', 'X', '--mkdir']);
    expect(made.code).toBe(0);
    expect((await validatePackage(out)).valid).toBe(true);
  });
});

describe('inspect exit codes', () => {
  it('a tampered package is inspected (exit 0) with the unreadable part listed; validate judges it (exit 1)', async () => {
    const tmp = tempDir();
    const good = join(tmp, 'good.octx');
    expect((await cli(['build', FIXTURE, '-o', good, '--name', 'X', '--compression-level', '0'])).code).toBe(0);
    const bytes = readFileSync(good);
    const at = bytes.indexOf('"ordinal"');
    expect(at).toBeGreaterThan(0);
    bytes[at + 2] = bytes[at + 2]! ^ 0x01; // one bit in data/chunks.jsonl, stored uncompressed
    const bad = join(tmp, 'bad.octx');
    writeFileSync(bad, bytes);
    const [inspected, validated, notZip] = await Promise.all([cli(['inspect', bad]), cli(['validate', bad]), cli(['inspect', join(FIXTURE, 'README.md')])]);
    expect(inspected.code).toBe(0);
    expect(inspected.stdout.toString()).toMatch(/\n {2}chunks {8}\? \(unreadable\)\n/);
    expect(inspected.stdout.toString()).toMatch(/\n {2}unreadable {4}chunks: OCTX_ARCHIVE_CORRUPT: data\/chunks\.jsonl fails its CRC-32 check\n/);
    expect(inspected.stdout.toString()).toContain('run `octx-export validate` for the verdict');
    const json = await cli(['inspect', bad, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout.toString())).toMatchObject({ ok: true, counts: { chunks: null, events: 19 }, unreadable: [{ part: 'chunks', code: 'OCTX_ARCHIVE_CORRUPT' }] });
    expect(validated.code).toBe(1);
    // Not a package at all: exit 1, in the one error format.
    expect(notZip.code).toBe(1);
    expect(notZip.stderr).toMatch(/^error\[OCTX_ARCHIVE_INVALID\]: /);
  });
});

describe('messages in CLI terms', () => {
  it('SDK wording and spec jargon are mapped in one place', async () => {
    expect(inCliTerms('x.octx already exists; pass overwrite: true to replace it')).toBe('x.octx already exists; use --overwrite to replace it');
    expect(inCliTerms('chunk is in no chunk-event link (coverage rule 2)')).toBe('chunk is in no chunk-event link');
    expect(inCliTerms('seed 002 carries no events')).toBe('the RAG chunk format carries no events');
    const tmp = tempDir();
    const out = join(tmp, 'x.octx');
    writeFileSync(out, 'x');
    const exists = await cli(['build', FIXTURE, '-o', out, '--name', 'X']);
    expect(exists.stderr).toContain('already exists; use --overwrite to replace it');
    expect(exists.stderr).not.toMatch(/overwrite: true|seed 00|coverage rule/);
  });
});
