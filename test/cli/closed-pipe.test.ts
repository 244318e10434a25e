/**
 * A closed pipe on the CLI's output (`octx-export validate x.octx --json | head -c 10`): the run
 * ends quietly, exit 0 and nothing on stderr — not Node's `Unhandled 'error' event` EPIPE stack
 * (issue 22). The CLI runs as a real child process (test/cli/run-cli.ts: `cliArgv`) whose
 * stdout (or stderr) is a pipe the test closes: before the CLI wrote anything, or after reading a
 * few bytes of an output larger than the pipe's buffer, so a write after the close must fail.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PackageBuilder } from 'octx-export';
import { GOLDEN, ROOT } from '../helpers/temp.js';
import { cliArgv } from './run-cli.js';

interface Closed {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** What the test read before closing the pipe. */
  readonly read: string;
  /** stderr (or stdout, when stderr is the closed one) in full. */
  readonly other: string;
}

/**
 * Runs the CLI with `args`; closes the read end of `which` (stdout or stderr) once `after` bytes
 * have arrived (0: at once, before the CLI wrote anything).
 */
async function runIntoClosedPipe(args: readonly string[], after: number, which: 'stdout' | 'stderr' = 'stdout'): Promise<Closed> {
  const argv = await cliArgv(args);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), 55_000);
    const closing = child[which];
    const kept = which === 'stdout' ? child.stderr : child.stdout;
    let read = '';
    let other = '';
    kept.setEncoding('utf8').on('data', (s: string) => (other += s));
    if (after === 0) closing.destroy();
    else
      closing.setEncoding('utf8').on('data', (s: string) => {
        read += s;
        if (read.length >= after) closing.destroy();
      });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, read, other });
    });
  });
}

let scratch: string;
let big: string;

beforeAll(async () => {
  // 1500 documents: the manifest (and so `validate --json --manifest`) is far larger than a 64 KiB pipe buffer.
  scratch = mkdtempSync(join(tmpdir(), 'octx-closed-pipe-'));
  big = join(scratch, 'big.octx');
  const builder = new PackageBuilder({ asset: { name: 'Big' } });
  for (let i = 0; i < 1500; i++) builder.addDocument({ path: `notes/note-${String(i).padStart(4, '0')}.md`, markdown: `# Note ${i}\n\nText ${i}.\n` });
  await builder.export({ output: big });
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a closed output pipe ends the run quietly (exit 0, no stack)', () => {
  it('validate --json into a reader that closed before the first byte', async () => {
    const r = await runIntoClosedPipe(['validate', join(GOLDEN, 'B_sag_structured'), '--json'], 0);
    expect({ code: r.code, signal: r.signal, stderr: r.other }).toEqual({ code: 0, signal: null, stderr: '' });
  });

  it('validate --json --manifest into a reader that closes after a few bytes of a large output', async () => {
    const r = await runIntoClosedPipe(['validate', big, '--json', '--manifest'], 10);
    expect(r.read.startsWith('{')).toBe(true); // the reader did get the start of the output
    expect({ code: r.code, signal: r.signal, stderr: r.other }).toEqual({ code: 0, signal: null, stderr: '' });
  });

  it('any command: inspect (text output) and the usage help on a closed stderr', async () => {
    const inspect = await runIntoClosedPipe(['inspect', big], 0);
    expect({ code: inspect.code, stderr: inspect.other }).toEqual({ code: 0, stderr: '' });
    const usage = await runIntoClosedPipe([], 0, 'stderr');
    expect({ code: usage.code, stdout: usage.other }).toEqual({ code: 0, stdout: '' });
  });
});

describe('validate --json', () => {
  it('leaves the manifest out unless --manifest is given', async () => {
    const plain = await runIntoClosedPipe(['validate', big, '--json'], Infinity);
    const withManifest = await runIntoClosedPipe(['validate', big, '--json', '--manifest'], Infinity);
    expect(plain.code).toBe(0);
    const verdict = JSON.parse(plain.read) as Record<string, unknown>;
    expect(verdict).toMatchObject({ ok: true, command: 'validate', valid: true });
    expect(verdict).not.toHaveProperty('manifest');
    expect(plain.read.length).toBeLessThan(4096);
    const full = JSON.parse(withManifest.read) as { manifest: { files: unknown[] } };
    expect(full.manifest.files).toHaveLength(1500);
    expect(withManifest.read.length).toBeGreaterThan(64 * 1024);
  });
});
