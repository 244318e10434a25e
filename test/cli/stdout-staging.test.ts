/**
 * Issue 24, item 9: `-o -` builds the package in a private `$TMPDIR/octx-stdout-*` folder first.
 * A signal while the package is being delivered removes that folder (before, the whole package
 * stayed in $TMPDIR), and a folder left by a SIGKILLed run is swept by the next `-o -` run like
 * the spill folders.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SPILL_OWNER_FILE, STDOUT_STAGING_PREFIX } from '../../src/package/spill-dir.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { cliArgv } from './run-cli.js';

const ASSET = '019c2222-2222-7222-8222-222222222222';

/** A working folder whose package is far larger than a pipe's buffer (64 KiB). */
function workdir(root: string, n: number): string {
  const dir = join(root, 'kb');
  mkdirSync(join(dir, 'knowledge'), { recursive: true });
  for (let i = 0; i < n; i++) writeFileSync(join(dir, 'knowledge', `doc-${i}.md`), `---\ntype: Note\n---\n\n# Doc ${i}\n\n${randomBytes(3000).toString('base64')}\n`);
  return dir;
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

const staged = (tmp: string) => readdirSync(tmp).filter((n) => n.startsWith(STDOUT_STAGING_PREFIX));

describe.skipIf(process.platform === 'win32')('-o - staging folder', () => {
  it('SIGTERM while the package is delivered removes the staged package, and ends with SIGTERM', async () => {
    const root = tempDir('octx-cli-stdout-');
    const tmp = join(root, 'tmp');
    mkdirSync(tmp);
    // A staging folder of a killed run (dead PID on this host), and one without an owner record.
    const dead = await deadPid();
    const stale = join(tmp, `${STDOUT_STAGING_PREFIX}stale1`);
    mkdirSync(stale);
    writeFileSync(join(stale, 'package.octx'), 'a whole package');
    writeFileSync(join(stale, SPILL_OWNER_FILE), JSON.stringify({ pid: dead, host: hostname(), started: '2026-12-01T00:00:00.000Z' }));
    const unowned = join(tmp, `${STDOUT_STAGING_PREFIX}noown1`);
    mkdirSync(unowned);
    const child = spawn(process.execPath, await cliArgv(['build', workdir(root, 300), '-o', '-', '--name', 'KB', '--asset-id', ASSET]), {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp, NO_COLOR: '1' },
      // stdout is never read: once the pipe's buffer is full, delivery waits, mid-package.
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig })));
    const deadline = Date.now() + 40_000;
    // Delivering: the verified package is in the (new) staging folder.
    const delivering = () => staged(tmp).some((n) => existsSync(join(tmp, n, 'package.octx')) && join(tmp, n) !== stale);
    while (!delivering()) {
      if (Date.now() > deadline) throw new Error(`the package was never staged; stderr: ${stderr}`);
      await sleep(20);
    }
    // The run swept the stale folder when it made its own; the unowned one is not its to judge.
    expect(existsSync(stale)).toBe(false);
    await sleep(200);
    child.kill('SIGTERM');
    const end = await exited;
    expect(end.code, stderr).toBeNull();
    expect(end.signal).toBe('SIGTERM');
    expect(staged(tmp)).toEqual([`${STDOUT_STAGING_PREFIX}noown1`]);
  }, 90_000);
});
