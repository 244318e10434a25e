/**
 * Issue 24, items 8 and 9: no hang on FIFOs or pseudo-file systems wherever a path is taken
 * (`--limits`, `-o`, `--state`, `tempDir`), and accurate typed messages for over-long names, a
 * full stdout and `-o -` on a terminal (refused before any input is read). Runs that could hang
 * run as child processes killed with SIGKILL after a time bound (a process blocked in a read
 * never runs its signal handlers).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/cli.js';
import { OctxError } from '../../src/model/errors.js';
import { PackageBuilder } from '../../src/builder/package-builder.js';
import { fsFailure, nameTooLong } from '../../src/model/fs-errors.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { cliArgv } from './run-cli.js';

const ASSET = '019c2222-2222-7222-8222-222222222222';
/** Far above a refusal (~2 s of tsx start-up on a busy machine), far below "for ever". */
const BOUND_MS = 20_000;

function workdir(root: string): string {
  const dir = join(root, 'kb');
  mkdirSync(join(dir, 'knowledge'), { recursive: true });
  writeFileSync(join(dir, 'knowledge', 'a.md'), '---\ntype: Note\n---\n\n# A\n\nHello.\n');
  return dir;
}

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly ms: number;
}

/** The CLI as a child process, SIGKILLed after {@link BOUND_MS}. */
async function bounded(args: readonly string[], stdout: 'pipe' | number = 'pipe'): Promise<Run> {
  const argv = await cliArgv(args);
  const t = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', stdout, 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout?.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), BOUND_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr, ms: Date.now() - t });
    });
  });
}

/** `main` in this process, with stdout and stderr collected. */
async function inProcess(args: readonly string[], stdout?: Writable & { isTTY?: boolean }): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const err = new Writable({
    write(chunk: Buffer, _e, cb) {
      stderr += chunk.toString();
      cb();
    },
  });
  const out = stdout ?? new Writable({ write: (_c, _e, cb) => cb() });
  const code = await main(args, { stdout: out, stderr: err });
  return { code, stderr };
}

const onLinux = process.platform === 'linux';

describe.skipIf(process.platform === 'win32')('special files and pseudo-file systems', () => {
  it('a FIFO as --limits, --state, -o or an input is refused at once (no reader waits for a writer)', async () => {
    const root = tempDir();
    const kb = workdir(root);
    const fifo = join(root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const base = ['build', kb, '--name', 'K', '--asset-id', ASSET];
    const [limits, state, output, rag, validate] = await Promise.all([
      bounded([...base, '-o', join(root, 'a.octx'), '--limits', fifo]),
      bounded([...base, '-o', join(root, 'b.octx'), '--state', fifo]),
      bounded([...base, '-o', fifo, '--overwrite']),
      bounded(['from-rag', fifo, '-o', join(root, 'r.octx'), '--name', 'K', '--asset-id', ASSET]),
      bounded(['validate', fifo]),
    ]);
    for (const r of [limits, state, output, rag, validate]) {
      expect(r.signal, r.stderr).toBeNull();
      expect(r.code, r.stderr).toBe(2);
      expect(r.ms).toBeLessThan(BOUND_MS);
    }
    expect(limits.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: --limits: cannot read .*fifo: it is a FIFO \(named pipe\), not a regular file\n/);
    expect(state.stderr).toMatch(/^error\[OCTX_STATE_INVALID\]: cannot read producer state .*fifo \(option state\): it is a FIFO \(named pipe\), not a regular file\n/);
    expect(output.stderr).toMatch(/^error\[OCTX_OUTPUT_INVALID\]: .*fifo exists and is not a regular file\n/);
    expect(rag.stderr).toMatch(/^error\[OCTX_IO_ERROR\]: cannot read .*fifo: it is a FIFO \(named pipe\), not a regular file\n/);
    // A FIFO exists: it is not reported as missing.
    expect(validate.stderr).toMatch(/^error\[OCTX_OPEN_ERROR\]: package .*fifo is a FIFO \(named pipe\), not a file or folder\n/);
    for (const name of ['a.octx', 'b.octx']) expect(existsSync(join(root, name))).toBe(false);
  }, 60_000);

  it.skipIf(!onLinux)(
    '-o and --state under /proc end with a typed error instead of a recursive mkdir loop',
    async () => {
      const root = tempDir();
      const kb = workdir(root);
      const base = ['build', kb, '--name', 'K', '--asset-id', ASSET];
      const [output, state] = await Promise.all([
        bounded([...base, '-o', '/proc/self/x/y.octx', '--mkdir']),
        bounded([...base, '-o', join(root, 'c.octx'), '--state', '/proc/self/x/state.json']),
      ]);
      for (const r of [output, state]) {
        expect(r.signal, r.stderr).toBeNull();
        expect(r.code, r.stderr).toBe(2);
      }
      expect(output.stderr).toMatch(/^error\[OCTX_OUTPUT_INVALID\]: cannot create the output folder \/proc\/self\/x .*ENOENT.*refuses new folders/);
      expect(state.stderr).toMatch(/^error\[OCTX_IO_ERROR\]: cannot create the folder of producer state \/proc\/self\/x: .*refuses new folders/);
      expect(existsSync(join(root, 'c.octx'))).toBe(false);
    },
    60_000,
  );

  it('a FIFO as tempDir is refused with OCTX_OPTIONS_INVALID', () => {
    const fifo = join(tempDir(), 'fifo');
    execFileSync('mkfifo', [fifo]);
    const e = (() => {
      try {
        new PackageBuilder({ asset: { name: 'K' }, tempDir: fifo });
      } catch (x) {
        return x;
      }
    })() as OctxError;
    expect(e).toBeInstanceOf(OctxError);
    expect(e.code).toBe('OCTX_OPTIONS_INVALID');
    expect(e.issues[0]!.field).toBe('tempDir');
  });
});

describe('CLI wording of path and stdout failures', () => {
  it('a 300-byte name names the component and the 255-byte limit, not a raw ENAMETOOLONG', async () => {
    const root = tempDir();
    const kb = workdir(root);
    const long = 'n'.repeat(300);
    const base = ['build', kb, '--name', 'K', '--asset-id', ASSET];
    const output = await inProcess([...base, '-o', join(root, long, 'x.octx')]);
    const state = await inProcess([...base, '-o', join(root, 'd.octx'), '--state', join(root, long, 's.json')]);
    const limits = await inProcess([...base, '-o', join(root, 'e.octx'), '--limits', join(root, long, 'limits.json')]);
    const named = `the name "${'n'.repeat(40)}…" in the path is 300 bytes long, above the 255 bytes a file or folder name may have (ENAMETOOLONG)`;
    expect(output.code).toBe(2);
    expect(output.stderr).toMatch(/^error\[OCTX_OUTPUT_INVALID\]: cannot use the folder /);
    expect(output.stderr).not.toMatch(/does not exist/);
    expect(state.code).toBe(2);
    expect(state.stderr).toMatch(/^error\[OCTX_STATE_INVALID\]: cannot read producer state /);
    expect(limits.code).toBe(2);
    expect(limits.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: --limits: cannot read /);
    for (const r of [output, state, limits]) expect(r.stderr, r.stderr).toContain(named);
  });

  it('-o - into a full device says so (typed, exit 2), not "check that the path exists"', async () => {
    const root = tempDir();
    const full = new Writable({
      write(_c, _e, cb) {
        cb(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' }));
      },
    });
    const r = await inProcess(['build', workdir(root), '--name', 'K', '--asset-id', ASSET, '-o', '-'], full);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error\[OCTX_IO_ERROR\]: could not write the package to stdout: the device stdout is redirected to is full \(ENOSPC\)/);
    expect(r.stderr).toMatch(/\nhint: stdout must take the whole package: redirect it where there is room/);
    expect(r.stderr).not.toMatch(/check that the path exists/);
  });

  it.skipIf(!onLinux || !existsSync('/dev/full'))(
    '-o - > /dev/full: the real thing',
    async () => {
      const root = tempDir();
      const fd = openSync('/dev/full', 'w');
      try {
        const r = await bounded(['build', workdir(root), '--name', 'K', '--asset-id', ASSET, '-o', '-'], fd);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(/^error\[OCTX_IO_ERROR\]: could not write the package to stdout: .*\(ENOSPC\)/);
      } finally {
        closeSync(fd);
      }
    },
    60_000,
  );

  it('-o - on a terminal is refused before any input is read', async () => {
    const tty = Object.assign(new Writable({ write: (_c, _e, cb) => cb() }), { isTTY: true });
    // The working folder does not exist: reading it first would report OCTX_OPEN_ERROR instead.
    const r = await inProcess(['build', join(tempDir(), 'missing'), '--name', 'K', '-o', '-'], tty);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: -o - would write the binary package to the terminal/);
  });

  it('ENAMETOOLONG is explained by the name over 255 bytes, else by the whole path over PATH_MAX', () => {
    expect(nameTooLong('/tmp/short/names.octx')).toBeUndefined();
    expect(nameTooLong(`/tmp/${'é'.repeat(128)}/x.octx`)).toContain('is 256 bytes long, above the 255 bytes');
    const deep = `/${'abcdefgh/'.repeat(460)}x.octx`;
    expect(nameTooLong(deep)).toBe(`the path is ${Buffer.byteLength(deep)} bytes long, above the 4095 bytes a path may have (PATH_MAX, ENAMETOOLONG)`);
    const e = fsFailure(Object.assign(new Error('ENAMETOOLONG: name too long, open'), { code: 'ENAMETOOLONG', path: deep }), {
      path: deep,
      field: 'output',
      action: 'use the output',
      invalidCode: 'OCTX_OUTPUT_INVALID',
    });
    expect(e.code).toBe('OCTX_OUTPUT_INVALID');
    expect(e.message).toContain('above the 4095 bytes a path may have');
    expect(e.message).not.toContain('name too long, open');
  });
});
