/**
 * Issue 16, item 7: SIGINT or SIGTERM during a CLI export removes the temporary output and the
 * spill folder, then ends the process with that signal (a shell sees exit 130 / 143).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/temp.js';
import { cliArgv } from './run-cli.js';
import { createSpillDir, removeSpillDir } from '../../src/package/spill-dir.js';

/** A working folder of `n` concept documents (enough to keep the CLI collecting for a while). */
function workdir(root: string, n: number): string {
  const dir = join(root, 'kb');
  mkdirSync(join(dir, 'knowledge'), { recursive: true });
  const body = 'Liu Bei met Cao Cao by the river; the knowledge graph links them. '.repeat(40);
  for (let i = 0; i < n; i++) writeFileSync(join(dir, 'knowledge', `doc-${i}.md`), `---\ntype: Note\ntitle: Doc ${i}\n---\n\n# Doc ${i}\n\n${body}\n`);
  return dir;
}

async function interrupted(signal: 'SIGINT' | 'SIGTERM'): Promise<void> {
  const root = tempDir('octx-cli-signal-');
  const tmp = join(root, 'tmp');
  mkdirSync(tmp);
  const outDir = join(root, 'out');
  const dir = workdir(root, 3000);
  const child = spawn(process.execPath, await cliArgv(['build', dir, '-o', join(outDir, 'kb.octx'), '--name', 'KB']), {
    cwd: ROOT,
    env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig })));
  // Mid-collection: once the builder's spill folder exists.
  const deadline = Date.now() + 30_000;
  while (!readdirSync(tmp).some((n) => n.startsWith('octx-export-'))) {
    if (Date.now() > deadline) throw new Error(`no spill folder appeared; stderr: ${stderr}`);
    await sleep(20);
  }
  await sleep(100);
  child.kill(signal);
  const end = await exited;
  expect(end.code, stderr).toBeNull();
  expect(end.signal).toBe(signal);
  // What a shell reports: 128 + the signal number.
  expect(128 + constants.signals[signal]).toBe(signal === 'SIGINT' ? 130 : 143);
  // (Only the SDK's leftovers count: a loader could keep a cache in TMPDIR too.)
  expect(readdirSync(tmp).filter((n) => n.startsWith('octx-export-') || n.endsWith('.tmp'))).toEqual([]);
  let outputs: string[] = [];
  try {
    outputs = readdirSync(outDir);
  } catch {
    // The output folder was never created.
  }
  expect(outputs.filter((n) => n.endsWith('.tmp') || n === 'kb.octx')).toEqual([]);
}

describe.skipIf(process.platform === 'win32')('signals during a CLI export', () => {
  it('creates spill folders readable by their owner only (0700)', async () => {
    const d = createSpillDir(tempDir());
    try {
      expect(statSync(d).mode & 0o777).toBe(0o700);
    } finally {
      await removeSpillDir(d);
    }
  });

  it('SIGINT mid-collection leaves no spill folder and no temp output, and ends with SIGINT (130)', async () => {
    await interrupted('SIGINT');
  }, 90_000);

  it('SIGTERM mid-collection does the same and ends with SIGTERM (143)', async () => {
    await interrupted('SIGTERM');
  }, 90_000);
});
