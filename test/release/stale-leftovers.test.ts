/**
 * What a killed run leaves behind (issue 16, item 7): SIGKILL cannot be caught, so the next run
 * cleans up — spill folders and temporary outputs whose owner is certainly gone (same host, dead
 * PID) are removed, and a state lock held by such a process is taken over with a warning. Anything
 * whose owner may still run (a live PID, another host, no owner record) is left alone.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OctxError, PackageBuilder, ProducerState } from 'octx-export';
import { SPILL_OWNER_FILE, sweepStaleSpillDirs } from '../../src/package/spill-dir.js';
import { STALE_TEMP_OUTPUT_MS } from '../../src/package/atomic-output.js';
import { ROOT, tempDir } from '../helpers/temp.js';

/** The PID of a process that has just exited (so, on this host, a dead PID). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

const owner = (pid: number, host = hostname()) => `${JSON.stringify({ pid, host, started: '2026-12-01T00:00:00.000Z' })}\n`;

function fakeSpillDir(parent: string, name: string, ownerText?: string): string {
  const dir = join(parent, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'chunks.jsonl'), '{"secret":"plaintext copy"}\n');
  if (ownerText !== undefined) writeFileSync(join(dir, SPILL_OWNER_FILE), ownerText);
  return dir;
}

const GUIDE = '# Guide\n\nInstall it.\n';

describe('leftovers of killed runs', () => {
  it('a new builder sweeps spill folders whose owner is gone, and only those', async () => {
    const parent = tempDir();
    const dead = await deadPid();
    const stale = fakeSpillDir(parent, 'octx-export-stale1', owner(dead));
    const live = fakeSpillDir(parent, 'octx-export-live01', owner(process.ppid));
    const elsewhere = fakeSpillDir(parent, 'octx-export-other1', owner(dead, 'another-host.invalid'));
    const unowned = fakeSpillDir(parent, 'octx-export-noown1');
    const unrelated = fakeSpillDir(parent, 'someone-else-dead1', owner(dead));
    const builder = new PackageBuilder({ asset: { name: 'sweep' }, tempDir: parent });
    try {
      expect(existsSync(stale)).toBe(false);
      for (const kept of [live, elsewhere, unowned, unrelated]) expect(existsSync(kept), kept).toBe(true);
      // The builder's own folder carries its owner record, private to the user.
      const mine = readdirSync(parent).filter((n) => n.startsWith('octx-export-') && ![live, elsewhere, unowned].some((k) => k.endsWith(n)));
      expect(mine).toHaveLength(1);
      const record = JSON.parse(readFileSync(join(parent, mine[0]!, SPILL_OWNER_FILE), 'utf8')) as { pid: number; host: string };
      expect(record).toMatchObject({ pid: process.pid, host: hostname() });
      expect(statSync(join(parent, mine[0]!)).mode & 0o777).toBe(0o700);
      expect(sweepStaleSpillDirs(parent)).toEqual([]);
    } finally {
      await builder.dispose();
    }
  });

  it('a SIGKILLed export leaves its spill folder and state lock; the next run sweeps one and takes over the other', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    // The killed run: a builder with collected data, holding the state lock, then SIGKILL.
    const script = `
      import { PackageBuilder, ProducerState } from './src/index.ts';
      const b = new PackageBuilder({ asset: { name: 'killed' }, tempDir: ${JSON.stringify(dir)}, state: ${JSON.stringify(state)} });
      b.addDocument({ path: 'guide.md', markdown: ${JSON.stringify(GUIDE)} });
      await ProducerState.load(${JSON.stringify(state)}).lock();
      process.kill(process.pid, 'SIGKILL');`;
    const killed = await new Promise<NodeJS.Signals | null>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, timeout: 55_000 }, (error) =>
        resolve((error as { signal?: NodeJS.Signals } | null)?.signal ?? null),
      );
    });
    expect(killed).toBe('SIGKILL');
    const leftovers = readdirSync(dir).filter((n) => n.startsWith('octx-export-'));
    expect(leftovers).toHaveLength(1);
    expect(existsSync(`${state}.lock`)).toBe(true);

    const builder = new PackageBuilder({ asset: { name: 'next run' }, release: { version: '1.0.0' }, tempDir: dir, state });
    expect(existsSync(join(dir, leftovers[0]!))).toBe(false);
    const result = await builder.addDocument({ path: 'guide.md', markdown: GUIDE }).export({ output: join(dir, 'out.octx') });
    const takeover = result.report.warnings.filter((w) => w.code === 'OCTX_STATE_LOCK_TAKEN_OVER');
    expect(takeover).toHaveLength(1);
    expect(takeover[0]!.path).toBe(`${state}.lock`);
    expect(existsSync(`${state}.lock`)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith('octx-export-'))).toEqual([]);
  });

  it('a lock whose holder may still run is not taken over, and the refusal names the holder', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    writeFileSync(`${state}.lock`, owner(process.ppid));
    const builder = new PackageBuilder({ asset: { name: 'locked' }, release: { version: '1.0.0' }, tempDir: dir, state });
    try {
      const e = (await builder
        .addDocument({ path: 'guide.md', markdown: GUIDE })
        .export({ output: join(dir, 'out.octx') })
        .catch((x: unknown) => x)) as OctxError;
      expect(e).toBeInstanceOf(OctxError);
      expect(e.code).toBe('OCTX_STATE_LOCKED');
      expect(e.message).toContain(`process ${process.ppid} on ${hostname()}`);
      expect(existsSync(join(dir, 'out.octx'))).toBe(false);
    } finally {
      await builder.dispose();
    }
    // Another host's lock is never judged from here, even with a PID that is dead here.
    writeFileSync(`${state}.lock`, owner(await deadPid(), 'another-host.invalid'));
    const e = (await ProducerState.load(state)
      .lock()
      .catch((x: unknown) => x)) as OctxError;
    expect(e.code).toBe('OCTX_STATE_LOCKED');
  });

  it('an export sweeps the old temporary outputs of its own target left by dead processes', async () => {
    const dir = tempDir();
    const dead = await deadPid();
    const old = (Date.now() - STALE_TEMP_OUTPUT_MS - 60_000) / 1000;
    const temp = (name: string, mtime?: number) => {
      const p = join(dir, name);
      writeFileSync(p, 'partial zip');
      if (mtime !== undefined) utimesSync(p, mtime, mtime);
      return p;
    };
    const stale = temp(`.pkg.octx.${dead}.aaaaaaaaaaaa.tmp`, old);
    const recent = temp(`.pkg.octx.${dead}.bbbbbbbbbbbb.tmp`);
    const alive = temp(`.pkg.octx.${process.ppid}.cccccccccccc.tmp`, old);
    const otherTarget = temp(`.other.octx.${dead}.dddddddddddd.tmp`, old);
    const result = await new PackageBuilder({ asset: { name: 'temps' } }).addDocument({ path: 'guide.md', markdown: GUIDE }).export({ output: join(dir, 'pkg.octx') });
    expect(existsSync(result.output)).toBe(true);
    expect(existsSync(stale)).toBe(false);
    for (const kept of [recent, alive, otherTarget]) expect(existsSync(kept), kept).toBe(true);
  });
});
